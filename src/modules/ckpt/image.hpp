// Process images (DESIGN §8, spec/checkpoint-image.md): a single-threaded
// process writes itself to a file or socket, and a fresh process exec'd from
// the same binary with address randomisation off becomes it again. Knows
// nothing of MPI; the checkpoint protocol (src/modules/ckpt, ckpt-proto)
// decides when and where.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ftmpi::ckpt {

// What a fallible call of this module returns: empty `what` means success.
struct Error {
  std::string what;
  bool ok() const { return what.empty(); }
};

template <typename T>
class Result {
 public:
  Result(T v) : value_(std::move(v)) {}  // NOLINT: implicit, like a return value
  Result(Error e) : error_(std::move(e)) {}  // NOLINT
  bool ok() const { return value_.has_value(); }
  const T& value() const { return *value_; }
  const Error& error() const { return error_; }

 private:
  std::optional<T> value_;
  Error error_;
};

enum class Captured { kSaved, kResumed };

using PageRuns = std::vector<std::pair<uint64_t, uint64_t>>;  // [start, end), sorted

class DeltaTracker;  // image_delta.hpp

// Called single-threaded (a forked child, after the caller closed the
// descriptors and shared mappings the image must not hold; or the process
// itself, naming those in `leave_out`). Records the registers here, then
// writes every private readable mapping's resident pages, the layout of the
// others, the brk, signal state and the open regular files to `out_fd` (a
// file, pipe or socket). Returns kSaved once the image is written; returns
// kResumed in a different process that a restorer built from the image. No
// allocation happens between recording the registers and the end of the
// image, so the heap in the image is the heap at the capture point.
//
// `leave_out`: a path prefix (as /proc/self/maps and /proc/self/fd show
// it). Shared mappings and descriptors of such files are not in the image:
// a restored process does not have them, and the caller re-creates what it
// needs after kResumed (the numbers and addresses it remembers are then
// not its own). Empty: nothing is left out, and a shared writable mapping
// refuses the capture.
//
// `delta`: a process that writes its images itself keeps one tracker across
// captures (image_delta.hpp). When it planned a delta, the image holds only
// the pages written since the tracker's base and names the base for the
// others; otherwise the image is whole and tracking restarts from it.
//
// `unused`: page ranges of private anonymous memory whose content the
// caller will not read again before writing it (the sender log's dropped
// entries): not in the image, they read as zero in the restored process.
// Also left out of a delta, whatever its base held there.
Result<Captured> capture_self(int out_fd, const std::string& leave_out = "", DeltaTracker* delta = nullptr,
                              const PageRuns* unused = nullptr);

// Maps the image read from `in_fd` back into this process and resumes it in
// capture_self (which returns kResumed). Refuses a torn or corrupt image, or
// one whose layout this process cannot take (other binary, other library
// addresses, randomised addresses), before changing anything. Returns only
// on such a refusal; the process must then exit non-zero. Run by the
// load-time hook (FTMPI_CKPT_RESTORE, below), before main.
Error restore_from(int in_fd);

// The environment variable the load-time hook looks for: a number is an
// inherited descriptor (a file, pipe or socket holding the stream), anything
// else a path to an image file. A refused restore prints one line to stderr
// ("ftmpi: cannot restore checkpoint image ...: reason") and exits 70.
inline constexpr const char* kRestoreEnv = "FTMPI_CKPT_RESTORE";
inline constexpr int kRestoreFailedExit = 70;

// In a resumed process: the environment the restorer was started with (the
// image brings back the captured process's own environment, so what the
// daemon passed to the restorer, e.g. its new control descriptor, is only
// here). Empty in a process that was not restored.
const std::vector<std::string>& restorer_environment();

}  // namespace ftmpi::ckpt

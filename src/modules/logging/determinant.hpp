// Determinants: the outcome of each non-deterministic event a process saw
// (DESIGN §8, spec/transparent-mode.md §3). A named-source receive has none:
// channel order decides it. Each kind has its own event counter, and a
// determinant names the event it belongs to by that counter (`index`):
//
//   kMatch       wildcard receive number `index` (posting order) matched (slot, seq)
//   kProbe       index-th successful wildcard probe found (slot, seq)
//   kPolls       poll calls index .. index+count-1 (Test family, Iprobe) failed
//   kCompletion  index-th Waitany/Waitsome/Testany/Testsome returned `which`
//   kWtime       index-th MPI_Wtime returned `value`
//   kWtick       index-th MPI_Wtick returned `value`
//   kCancel      index-th MPI_Cancel outcome (`flag`: the operation was cancelled)
//   kWithdrawn   index-th send the user's cancel withdrew: message (slot, seq),
//                never delivered (a replay withholds it)
//   kRound       index-th round (not a first one) of a nonblocking collective
//                to start its sends: schedule `count` (this process's
//                schedules numbered from 0 as started), round `slot`, after
//                the process's first `seq` sends had taken their numbers
//
// Determinants travel to the event logger in batches (encode_batch); what a
// restarted process fetches is the concatenation of its batches.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/err.hpp"

namespace ftmpi::logging {

enum class DetKind : uint8_t {
  kMatch = 1,
  kPolls = 2,
  kCompletion = 3,
  kWtime = 4,
  kWtick = 5,
  kCancel = 6,
  kProbe = 7,
  kWithdrawn = 8,
  kRound = 9,
};
inline constexpr int kDetKinds = 10;  // array size indexed by DetKind

struct Determinant {
  DetKind kind = DetKind::kMatch;
  uint64_t index = 0;
  int32_t slot = -1;         // kMatch, kProbe: the sender's slot; kWithdrawn: the receiver's; kRound: the round
  uint64_t seq = 0;          // kMatch, kProbe, kWithdrawn: the message's channel sequence number; kRound: sends before it
  uint64_t count = 0;        // kPolls; kRound: the schedule
  double value = 0;          // kWtime, kWtick
  bool flag = false;         // kCancel
  std::vector<int32_t> which;  // kCompletion: request indices, in the order returned

  bool operator==(const Determinant&) const = default;
};

const char* kind_name(DetKind k);
std::string describe(const Determinant& d);

// One batch: magic "DT", version, count, body length, then the records.
void encode_batch(const std::vector<Determinant>& dets, std::vector<uint8_t>& out);
// Appends the records of every batch in `bytes` (concatenated batches) to
// `out`; kIntern on anything malformed (nothing is appended then).
Err decode_batches(const uint8_t* bytes, size_t len, std::vector<Determinant>& out);

}  // namespace ftmpi::logging

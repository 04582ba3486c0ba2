// Control frames between the logging modules of two processes
// (spec/transparent-mode.md §5), carried by p2p CONTROL frames:
//
//   RESENT  to a restarted incarnation, once its sender has queued again
//           every message it logged for it: "my messages to you go up to
//           sequence number `upto`, and I accepted yours up to `seen`". A
//           restarted process has caught up when its determinants are
//           replayed, it has taken every peer's messages up to `upto` and
//           sent each peer its own up to `seen` again (so it is past all
//           its dead incarnation showed anyone). A restarted process sends
//           RESENT{0, what it accepted} to everybody at its start.
//   DONE    the sender is in MPI_Finalize. Nobody leaves before every
//           process's current incarnation said DONE: until then a peer may
//           die and need our log.
//   COLLECT garbage collection (spec/checkpoint-protocol.md §5): from a
//           process whose checkpoint the runtime holds, "my image accepted
//           your messages up to `upto`": the receiver of the frame drops
//           them from its log for the sender.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ftmpi::logging {

enum class FrameKind : uint8_t { kResent = 1, kDone = 2, kCollect = 3 };

struct Resent {
  uint64_t upto = 0;
  uint64_t seen = 0;
};

std::vector<uint8_t> encode(const Resent& r);
bool decode(const uint8_t* p, size_t n, Resent& out);
std::vector<uint8_t> encode_done();

// From a process whose checkpoint the runtime holds: its image accepted our
// messages up to `upto` and had sent us its own up to `sent`.
struct Collect {
  uint64_t upto = 0;
  uint64_t sent = 0;
};

std::vector<uint8_t> encode(const Collect& c);
bool decode(const uint8_t* p, size_t n, Collect& out);
uint8_t frame_kind(const uint8_t* p, size_t n);  // 0: empty

}  // namespace ftmpi::logging

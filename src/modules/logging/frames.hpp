// Control frames between the logging modules of two processes
// (spec/transparent-mode.md §5), carried by p2p CONTROL frames:
//
//   RESENT  to a restarted incarnation, once its sender has queued again
//           every message it logged for it: "my messages to you go up to
//           sequence number `upto`". A restarted process has caught up when
//           its determinants are replayed and it has taken every peer's
//           messages up to there. A restarted process sends RESENT{0} to
//           everybody at its start (its log is empty).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ftmpi::logging {

enum class FrameKind : uint8_t { kResent = 1 };

struct Resent {
  uint64_t upto = 0;
};

std::vector<uint8_t> encode(const Resent& r);
bool decode(const uint8_t* p, size_t n, Resent& out);

}  // namespace ftmpi::logging

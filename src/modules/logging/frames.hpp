// Control frames between the logging modules of two processes
// (spec/transparent-mode.md §5), carried by p2p CONTROL frames:
//
//   HELLO  a restarted incarnation to every peer: "resend what you logged
//          for me from sequence number `from`, and tell me what you have
//          of mine"
//   HAVE   the answer, possibly in several frames: the checksums of the
//          messages of the restarted process's slot this process accepted,
//          from sequence number `first`; `last` on the final frame
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ftmpi::logging {

enum class FrameKind : uint8_t { kHello = 1, kHave = 2 };

struct Hello {
  uint64_t from = 1;
};

struct Have {
  uint64_t first = 1;
  bool last = false;
  std::vector<uint64_t> sums;
};

std::vector<uint8_t> encode(const Hello& h);
std::vector<uint8_t> encode(const Have& h);
// The kind of a frame, or 0 when it is too short to say.
uint8_t frame_kind(const uint8_t* p, size_t n);
bool decode(const uint8_t* p, size_t n, Hello& out);
bool decode(const uint8_t* p, size_t n, Have& out);
// How many checksums fit in one HAVE frame of at most max_bytes.
size_t have_capacity(size_t max_bytes);

}  // namespace ftmpi::logging

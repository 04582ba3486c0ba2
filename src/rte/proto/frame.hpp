// Turning messages into frames and a byte stream back into frames.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/codec.hpp"
#include "rte/proto/wire.hpp"

namespace ftmpi::rte::proto {

struct Frame {
  uint16_t type = 0;
  std::vector<uint8_t> payload;
};

// Appends `m` as one frame to `out`.
template <typename M>
void append_frame(std::vector<uint8_t>& out, const M& m) {
  size_t start = out.size();
  Encoder e(&out);
  e.u32(0);
  e.u16(static_cast<uint16_t>(M::kType));
  m.encode(e);
  uint32_t len = static_cast<uint32_t>(out.size() - start - 4);
  for (int i = 0; i < 4; ++i) out[start + i] = static_cast<uint8_t>(len >> (8 * i));
}

template <typename M>
std::vector<uint8_t> make_frame(const M& m) {
  std::vector<uint8_t> out;
  append_frame(out, m);
  return out;
}

// Decodes a frame's payload as M; false if the type differs, a field is out of
// range, or bytes are left over.
template <typename M>
bool parse(const Frame& f, M& m) {
  if (f.type != static_cast<uint16_t>(M::kType)) return false;
  Decoder d(f.payload);
  return m.decode(d) && d.done();
}

// Parses `f` as M and hands it to `fn`; false (and `fn` not called) if it
// does not parse. Keeps message dispatch switches to one line per type.
template <typename M, typename Fn>
bool with_parsed(const Frame& f, Fn&& fn) {
  M m;
  if (!parse(f, m)) return false;
  fn(m);
  return true;
}

// Splits one complete encoded frame (as made by make_frame) back into type
// and payload; false if `bytes` is not exactly one well-formed frame.
bool split_frame(const std::vector<uint8_t>& bytes, Frame& out);

// Accumulates stream bytes and cuts them into frames. After a malformed header
// (length < 2 or > max) it stays failed: the stream cannot be resynchronised.
class FrameReader {
 public:
  explicit FrameReader(uint32_t max_frame = kMaxFrame) : max_(max_frame) {}
  void feed(const uint8_t* p, size_t n);
  enum class Next { kFrame, kNeedMore, kBad };
  Next next(Frame& out);
  bool failed() const { return failed_; }
  const std::string& error() const { return error_; }
  size_t buffered() const { return buf_.size() - off_; }
  // A whole frame (or a malformed header) is buffered: next() will not say
  // kNeedMore. Bytes already read never make the socket readable again.
  bool has_frame() const;

 private:
  bool bad_length(uint32_t len) const { return len < 2 || len > max_; }
  std::vector<uint8_t> buf_;
  size_t off_ = 0;
  uint32_t max_;
  bool failed_ = false;
  std::string error_;
};

}  // namespace ftmpi::rte::proto

// Little-endian binary encoding for every wire and control format. Decoding
// never reads past the input: a short or malformed buffer sets a sticky
// failure flag that the caller checks once at the end.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ftmpi {

class Encoder {
 public:
  Encoder() = default;
  explicit Encoder(std::vector<uint8_t>* out) : out_(out) {}

  void u8(uint8_t v) { put(&v, 1); }
  void u16(uint16_t v) { put_le(v); }
  void u32(uint32_t v) { put_le(v); }
  void u64(uint64_t v) { put_le(v); }
  void i32(int32_t v) { put_le(static_cast<uint32_t>(v)); }
  void i64(int64_t v) { put_le(static_cast<uint64_t>(v)); }
  void f64(double v) {
    uint64_t x;
    std::memcpy(&x, &v, 8);
    put_le(x);
  }
  void bytes(const void* p, size_t n) {
    u32(static_cast<uint32_t>(n));
    put(p, n);
  }
  void str(std::string_view s) { bytes(s.data(), s.size()); }
  void raw(const void* p, size_t n) { put(p, n); }

  std::vector<uint8_t>& buffer() { return *out_; }
  size_t size() const { return out_->size(); }

 private:
  template <typename T>
  void put_le(T v) {
    uint8_t b[sizeof(T)];
    for (size_t i = 0; i < sizeof(T); ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
    put(b, sizeof(T));
  }
  void put(const void* p, size_t n) {
    const uint8_t* c = static_cast<const uint8_t*>(p);
    out_->insert(out_->end(), c, c + n);
  }
  std::vector<uint8_t> own_;
  std::vector<uint8_t>* out_ = &own_;
};

class Decoder {
 public:
  Decoder(const void* p, size_t n) : p_(static_cast<const uint8_t*>(p)), n_(n) {}
  explicit Decoder(const std::vector<uint8_t>& v) : Decoder(v.data(), v.size()) {}

  uint8_t u8() { return get_le<uint8_t>(); }
  uint16_t u16() { return get_le<uint16_t>(); }
  uint32_t u32() { return get_le<uint32_t>(); }
  uint64_t u64() { return get_le<uint64_t>(); }
  int32_t i32() { return static_cast<int32_t>(get_le<uint32_t>()); }
  int64_t i64() { return static_cast<int64_t>(get_le<uint64_t>()); }
  double f64() {
    uint64_t x = get_le<uint64_t>();
    double d;
    std::memcpy(&d, &x, 8);
    return d;
  }
  // Length-prefixed bytes; `limit` bounds what a peer may make us allocate.
  std::string str(size_t limit = 1u << 20) {
    uint32_t n = u32();
    if (n > limit || n > remaining()) {
      fail_ = true;
      return {};
    }
    std::string s(reinterpret_cast<const char*>(p_ + off_), n);
    off_ += n;
    return s;
  }
  std::vector<uint8_t> bytes(size_t limit = 1u << 20) {
    std::string s = str(limit);
    return std::vector<uint8_t>(s.begin(), s.end());
  }
  bool raw(void* out, size_t n) {
    if (n > remaining()) {
      fail_ = true;
      return false;
    }
    std::memcpy(out, p_ + off_, n);
    off_ += n;
    return true;
  }

  size_t remaining() const { return fail_ ? 0 : n_ - off_; }
  bool ok() const { return !fail_; }
  bool done() const { return !fail_ && off_ == n_; }
  void set_failed() { fail_ = true; }

 private:
  template <typename T>
  T get_le() {
    if (fail_ || n_ - off_ < sizeof(T)) {
      fail_ = true;
      return 0;
    }
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(static_cast<T>(p_[off_ + i]) << (8 * i));
    off_ += sizeof(T);
    return v;
  }
  const uint8_t* p_;
  size_t n_;
  size_t off_ = 0;
  bool fail_ = false;
};

}  // namespace ftmpi

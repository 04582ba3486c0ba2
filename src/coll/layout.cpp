#include "coll/layout.hpp"

#include <algorithm>
#include <cstring>

namespace ftmpi::coll {

Span span_of(const dtype::Type& t, size_t count) {
  if (count == 0 || t.size() == 0) return {};
  int64_t last = static_cast<int64_t>(count - 1) * t.extent();
  int64_t lo = t.true_lb() + std::min<int64_t>(0, last);
  int64_t hi = t.true_ub() + std::max<int64_t>(0, last);
  return {lo, static_cast<size_t>(hi - lo)};
}

void* temp_items(Xfer& x, const dtype::Type& t, size_t count) {
  Span s = span_of(t, count);
  return x.scratch(s.bytes) - s.lo;
}

void copy_typed(const void* src, size_t scount, const dtype::Type& st, void* dst, size_t dcount,
                const dtype::Type& dt) {
  size_t n = std::min(packed_size(st, scount), packed_size(dt, dcount));
  if (n == 0) return;
  if (st.contiguous() && dt.contiguous()) {
    std::memcpy(static_cast<uint8_t*>(dst) + dt.true_lb(), static_cast<const uint8_t*>(src) + st.true_lb(), n);
  } else if (st.contiguous()) {
    dtype::Cursor(dst, dcount, dt).unpack(static_cast<const uint8_t*>(src) + st.true_lb(), n);
  } else if (dt.contiguous()) {
    dtype::Cursor(src, scount, st).pack(static_cast<uint8_t*>(dst) + dt.true_lb(), n);
  } else {
    dtype::Cursor in(src, scount, st), out(dst, dcount, dt);
    uint8_t bounce[16384];
    while (n > 0) {
      size_t got = in.pack(bounce, std::min(n, sizeof bounce));
      out.unpack(bounce, got);
      n -= got;
    }
  }
}

void pack(const void* buf, size_t count, const dtype::Type& t, void* out) {
  size_t n = packed_size(t, count);
  if (n == 0) return;
  if (t.contiguous()) std::memcpy(out, static_cast<const uint8_t*>(buf) + t.true_lb(), n);
  else dtype::Cursor(buf, count, t).pack(out, n);
}

void unpack(const void* in, void* buf, size_t count, const dtype::Type& t) {
  size_t n = packed_size(t, count);
  if (n == 0) return;
  if (t.contiguous()) std::memcpy(static_cast<uint8_t*>(buf) + t.true_lb(), in, n);
  else dtype::Cursor(buf, count, t).unpack(in, n);
}

Packed::Packed(Xfer& x, void* buf, size_t count, const dtype::Type& t)
    : buf_(buf), count_(count), type_(t), size_(packed_size(t, count)), direct_(t.contiguous()) {
  data_ = direct_ ? static_cast<uint8_t*>(buf) + t.true_lb() : x.scratch(size_);
}

void Packed::load() {
  if (!direct_) pack(buf_, count_, type_, data_);
}

void Packed::store() {
  if (!direct_) unpack(data_, buf_, count_, type_);
}

}  // namespace ftmpi::coll

// Internal: polynomial hashing of type signatures (sequences of primitives).
//
// H(e_1..e_n) = sum code(e_i) * B^(n-i)  mod 2^61-1. It composes, which is
// what lets a signature be hashed from the type description instead of from
// the (possibly huge) element sequence:
//   H(a || b) = H(a) * B^|b| + H(b)
//   H(a^k)    = H(a) * (1 + B^|a| + ... + B^((k-1)|a|))
// so equal signatures hash equal however the types were built.
#pragma once
#include <cstdint>

#include "dtype/builtin.hpp"

namespace ftmpi::dtype::sig {

inline constexpr uint64_t kMod = (uint64_t{1} << 61) - 1;
inline constexpr uint64_t kBase = 0x1f3a5c7e9b2d4f61ull % kMod;

inline uint64_t mul(uint64_t a, uint64_t b) {
  unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  uint64_t r = static_cast<uint64_t>(p & kMod) + static_cast<uint64_t>(p >> 61);
  return r >= kMod ? r - kMod : r;
}
inline uint64_t add(uint64_t a, uint64_t b) {
  uint64_t r = a + b;
  return r >= kMod ? r - kMod : r;
}
inline uint64_t pow(uint64_t x, uint64_t e) {
  uint64_t r = 1;
  while (e) {
    if (e & 1) r = mul(r, x);
    x = mul(x, x);
    e >>= 1;
  }
  return r;
}
// A primitive's code; distinct and non-zero for every builtin.
inline uint64_t code(Builtin b) {
  return mul(static_cast<uint64_t>(b) + 1, 0x9e3779b97f4a7c15ull % kMod) + 1;
}
// H(a || b) given H(a), H(b) and |b|.
inline uint64_t concat(uint64_t ha, uint64_t hb, uint64_t len_b) {
  return add(mul(ha, pow(kBase, len_b)), hb);
}
// H(a^k) given H(a) and |a|, in O(log k).
inline uint64_t repeat(uint64_t ha, uint64_t len_a, uint64_t k) {
  // Geometric sum G(k) = 1 + x + ... + x^(k-1), x = B^|a|, by binary splitting:
  // walking the bits of k from the top, G(2m) = G(m)(1 + x^m), G(m+1) = 1 + x G(m).
  if (k == 0) return 0;
  uint64_t x = pow(kBase, len_a);
  uint64_t g = 0, xm = 1;  // G(m), x^m for the prefix m of k's bits
  // Leading zero bits leave G(0) = 0 and x^0 = 1 alone: start at the top set bit.
  for (int bit = 63 - __builtin_clzll(k); bit >= 0; --bit) {
    g = mul(g, add(1, xm));
    xm = mul(xm, xm);
    if ((k >> bit) & 1) {
      g = add(1, mul(x, g));
      xm = mul(xm, x);
    }
  }
  return mul(ha, g);
}

}  // namespace ftmpi::dtype::sig

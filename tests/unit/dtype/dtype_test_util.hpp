// Helpers shared by the dtype tests: a random type generator, buffers that
// cover a type's (possibly negative) data span, and a reference pack/unpack
// that walks the explicit type map, i.e. an implementation independent of
// the compiled programs the cursor uses.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "dtype/datatype.hpp"

namespace ftmpi::dtype::testing {

// Runs a constructor that must succeed and returns its type.
template <class F>
TypeRef must(F&& make) {
  TypeRef t;
  EXPECT_EQ(make(&t), Err::kOk);
  return t;
}

inline TypeRef contiguous(int64_t n, const Type& old) {
  return must([&](TypeRef* t) { return make_contiguous(n, old, t); });
}
inline TypeRef vector(int64_t n, int64_t bl, int64_t stride, const Type& old) {
  return must([&](TypeRef* t) { return make_vector(n, bl, stride, old, t); });
}
inline TypeRef hvector(int64_t n, int64_t bl, int64_t stride, const Type& old) {
  return must([&](TypeRef* t) { return make_hvector(n, bl, stride, old, t); });
}
inline TypeRef indexed(std::vector<int> bl, std::vector<int> d, const Type& old) {
  return must([&](TypeRef* t) { return make_indexed(bl, d, old, t); });
}
inline TypeRef hindexed(std::vector<int> bl, std::vector<int64_t> d, const Type& old) {
  return must([&](TypeRef* t) { return make_hindexed(bl, d, old, t); });
}
inline TypeRef structure(std::vector<int> bl, std::vector<int64_t> d, std::vector<const Type*> ts) {
  return must([&](TypeRef* t) { return make_struct(bl, d, ts, t); });
}
inline const Type& B(Builtin b) { return builtin_type(b); }

// Memory holding `count` items of `t` (data span only), filled with bytes
// from `rng`; base() is the address the items are laid out from.
class Buffer {
 public:
  Buffer(const Type& t, int64_t count, uint64_t seed) {
    lo_ = 0;
    int64_t hi = 0;
    if (t.size() > 0 && count > 0) {
      const int64_t last = (count - 1) * t.extent();
      lo_ = std::min(t.true_lb(), t.true_lb() + last);
      hi = std::max(t.true_ub(), t.true_ub() + last);
    }
    bytes_.resize(static_cast<size_t>(hi - lo_) + 1);
    std::mt19937_64 rng(seed);
    for (auto& b : bytes_) b = static_cast<unsigned char>(rng());
  }
  char* base() { return reinterpret_cast<char*>(bytes_.data()) - lo_; }
  const std::vector<unsigned char>& bytes() const { return bytes_; }

 private:
  int64_t lo_;
  std::vector<unsigned char> bytes_;
};

// Packs by walking the type map entry by entry.
inline std::vector<char> reference_pack(const Type& t, int64_t count, const char* base) {
  std::vector<char> out;
  const auto map = type_map(t);
  for (int64_t i = 0; i < count; ++i)
    for (const TypeMapEntry& e : map) {
      if (is_marker(e.type)) continue;
      const char* p = base + i * t.extent() + e.disp;
      out.insert(out.end(), p, p + info(e.type).size);
    }
  return out;
}

inline void reference_unpack(const Type& t, int64_t count, char* base, const std::vector<char>& in) {
  size_t pos = 0;
  const auto map = type_map(t);
  for (int64_t i = 0; i < count; ++i)
    for (const TypeMapEntry& e : map) {
      if (is_marker(e.type)) continue;
      std::memcpy(base + i * t.extent() + e.disp, in.data() + pos, info(e.type).size);
      pos += info(e.type).size;
    }
}

// Random nested types: every constructor, negative strides and
// displacements, zero counts and block lengths, pairs, markers.
class TypeGen {
 public:
  explicit TypeGen(uint64_t seed) : rng_(seed) {}

  TypeRef make(int depth) {
    if (depth == 0 || pick(5) == 0) return leaf();
    TypeRef child = make(depth - 1);
    const Type& c = *child;
    switch (pick(6)) {
      case 0: return contiguous(len(), c);
      case 1: return vector(len(), len(), range(-4, 4), c);
      case 2: return hvector(len(), len(), range(-48, 48), c);
      case 3: {
        std::vector<int> bl, d;
        for (int i = 0, n = 1 + pick(4); i < n; ++i) {
          bl.push_back(static_cast<int>(len()));
          d.push_back(static_cast<int>(range(-5, 5)));
        }
        return indexed(bl, d, c);
      }
      case 4: {
        std::vector<int> bl;
        std::vector<int64_t> d;
        for (int i = 0, n = 1 + pick(4); i < n; ++i) {
          bl.push_back(static_cast<int>(len()));
          d.push_back(range(-64, 64));
        }
        return hindexed(bl, d, c);
      }
      default: {
        std::vector<int> bl;
        std::vector<int64_t> d;
        std::vector<TypeRef> keep;
        std::vector<const Type*> ts;
        for (int i = 0, n = 1 + pick(4); i < n; ++i) {
          keep.push_back(pick(6) == 0 ? builtin_ref(pick(2) ? Builtin::kLb : Builtin::kUb)
                                      : (i == 0 ? child : make(depth - 1)));
          ts.push_back(keep.back().get());
          bl.push_back(static_cast<int>(len()));
          d.push_back(range(-64, 64));
        }
        return structure(bl, d, ts);
      }
    }
  }

  // A count or block length: mostly 1..3, sometimes 0.
  int64_t len() { return pick(6) == 0 ? 0 : 1 + pick(3); }
  int64_t pick(int64_t n) { return static_cast<int64_t>(rng_() % static_cast<uint64_t>(n)); }
  int64_t range(int64_t lo, int64_t hi) { return lo + pick(hi - lo + 1); }
  std::mt19937_64& rng() { return rng_; }

 private:
  TypeRef leaf() {
    static constexpr Builtin kLeaves[] = {
        Builtin::kChar,      Builtin::kShort,     Builtin::kInt,      Builtin::kDouble,
        Builtin::kLongDouble, Builtin::kShortInt, Builtin::kDoubleInt, Builtin::kComplex,
        Builtin::kByte,      Builtin::k2Int,      Builtin::kFloatInt};
    return builtin_ref(kLeaves[pick(std::size(kLeaves))]);
  }
  std::mt19937_64 rng_;
};

}  // namespace ftmpi::dtype::testing

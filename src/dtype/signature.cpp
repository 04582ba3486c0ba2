// Element counts and signature hashes, walked over the type description.
// Each walk descends one path of the constructor tree, so its cost is
// O(blocks along that path), independent of the counts.
#include "dtype/signature.hpp"

#include "dtype/sig_hash.hpp"

namespace ftmpi::dtype {
namespace {

// Elements in the first `bytes` packed bytes of one item, 0 <= bytes <= size.
int64_t prefix_elements(const Type& t, int64_t bytes) {
  if (bytes == 0) return 0;
  if (bytes == t.size()) return t.elements();
  if (t.is_builtin()) {
    const BuiltinInfo& in = info(t.builtin());
    if (is_pair(t.builtin()) && bytes == info(in.value).size) return 1;
    return kUndefined;
  }
  const int64_t item_size = t.size() / t.reps();
  int64_t acc = (bytes / item_size) * (t.elements() / t.reps());
  int64_t rem = bytes % item_size;
  for (const TypeBlock& b : t.blocks()) {
    if (rem == 0) break;
    const Type& c = *b.child;
    const int64_t block_bytes = b.blocklen * c.size();
    if (rem >= block_bytes) {
      rem -= block_bytes;
      acc += b.blocklen * c.elements();
      continue;
    }
    acc += (rem / c.size()) * c.elements();
    const int64_t sub = prefix_elements(c, rem % c.size());
    return sub < 0 ? kUndefined : acc + sub;
  }
  return acc;
}

struct HashBytes {
  uint64_t hash = 0;
  int64_t bytes = 0;
};

uint64_t block_hash(const TypeBlock& b) {
  return sig::repeat(b.child->signature_hash(), static_cast<uint64_t>(b.child->elements()),
                     static_cast<uint64_t>(b.blocklen));
}

// Hash of one repetition of a derived type.
uint64_t item_hash(const Type& t) {
  if (t.reps() == 1) return t.signature_hash();
  uint64_t h = 0;
  for (const TypeBlock& b : t.blocks())
    h = sig::concat(h, block_hash(b), static_cast<uint64_t>(b.blocklen * b.child->elements()));
  return h;
}

// Hash and packed bytes of the first `e` elements of one item, 0 <= e <= elements.
HashBytes prefix(const Type& t, int64_t e) {
  if (e == 0) return {};
  if (e == t.elements()) return {t.signature_hash(), t.size()};
  if (t.is_builtin()) {  // a pair cut after its value
    const Builtin v = info(t.builtin()).value;
    return {sig::code(v), info(v).size};
  }
  const int64_t item_elems = t.elements() / t.reps();
  const int64_t item_bytes = t.size() / t.reps();
  const int64_t k = e / item_elems;
  HashBytes r{sig::repeat(item_hash(t), static_cast<uint64_t>(item_elems), static_cast<uint64_t>(k)),
              k * item_bytes};
  int64_t rem = e % item_elems;
  for (const TypeBlock& b : t.blocks()) {
    if (rem == 0) break;
    const Type& c = *b.child;
    const int64_t block_elems = b.blocklen * c.elements();
    if (rem >= block_elems) {
      r.hash = sig::concat(r.hash, block_hash(b), static_cast<uint64_t>(block_elems));
      r.bytes += b.blocklen * c.size();
      rem -= block_elems;
      continue;
    }
    const int64_t whole = rem / c.elements();
    r.hash = sig::concat(r.hash,
                         sig::repeat(c.signature_hash(), static_cast<uint64_t>(c.elements()),
                                     static_cast<uint64_t>(whole)),
                         static_cast<uint64_t>(whole * c.elements()));
    r.bytes += whole * c.size();
    const int64_t part = rem % c.elements();
    const HashBytes sub = prefix(c, part);
    r.hash = sig::concat(r.hash, sub.hash, static_cast<uint64_t>(part));
    r.bytes += sub.bytes;
    break;
  }
  return r;
}

}  // namespace

int64_t get_elements(const Type& t, int64_t bytes) {
  if (bytes < 0) return kUndefined;
  if (t.size() == 0) return bytes == 0 ? 0 : kUndefined;
  const int64_t part = prefix_elements(t, bytes % t.size());
  if (part < 0) return kUndefined;
  return (bytes / t.size()) * t.elements() + part;
}

int64_t get_count(const Type& t, int64_t bytes) {
  if (bytes < 0) return kUndefined;
  if (t.size() == 0) return 0;
  return bytes % t.size() == 0 ? bytes / t.size() : kUndefined;
}

Signature signature(const Type& t, int64_t count) {
  Signature s;
  s.hash = sig::repeat(t.signature_hash(), static_cast<uint64_t>(t.elements()),
                       static_cast<uint64_t>(count));
  s.elements = count * t.elements();
  s.bytes = count * t.size();
  s.raw = t.raw_bytes();
  return s;
}

Signature signature_prefix(const Type& t, int64_t count, int64_t elements) {
  if (t.elements() == 0 || elements >= count * t.elements()) return signature(t, count);
  const int64_t items = elements / t.elements();
  const int64_t part = elements % t.elements();
  const HashBytes p = prefix(t, part);
  Signature s;
  s.hash = sig::concat(sig::repeat(t.signature_hash(), static_cast<uint64_t>(t.elements()),
                                   static_cast<uint64_t>(items)),
                       p.hash, static_cast<uint64_t>(part));
  s.elements = elements;
  s.bytes = items * t.size() + p.bytes;
  s.raw = t.raw_bytes();
  return s;
}

bool signature_matches(const Signature& sent, const Type& recv, int64_t count) {
  const int64_t recv_bytes = packed_bytes(recv, count);
  if (sent.raw || recv.raw_bytes()) return recv_bytes < 0 || sent.bytes <= recv_bytes;
  if (sent.elements == 0) return true;
  if (sent.elements > count * recv.elements()) return false;
  return signature_prefix(recv, count, sent.elements).hash == sent.hash;
}

bool same_signature(const Type& a, int64_t count_a, const Type& b, int64_t count_b) {
  // Collectives check this on every call; most pass one type on both sides,
  // or types with one item signature, where equal element counts decide.
  if (&a == &b || (a.raw_bytes() == b.raw_bytes() && a.elements() == b.elements() &&
                   a.size() == b.size() && a.signature_hash() == b.signature_hash()))
    return a.raw_bytes() ? count_a * a.size() == count_b * b.size() : count_a == count_b || a.elements() == 0;
  const Signature sa = signature(a, count_a), sb = signature(b, count_b);
  if (sa.raw || sb.raw) return sa.bytes == sb.bytes;
  return sa.elements == sb.elements && sa.hash == sb.hash;
}

}  // namespace ftmpi::dtype

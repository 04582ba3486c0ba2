// Attribute computation for builtins and derived types (MPI-1.2 §3.12).
//
// Bounds follow the standard's "sticky" marker rules as MPICH and Open MPI
// implement them: a child carrying an LB (UB) marker contributes only to the
// new LB (UB) marker bound, a child without one contributes its lb (ub) to
// the plain bound, and a marker bound, once present, wins. Only MPI_Type_struct
// pads: without a UB marker its extent (ub - lb) is rounded up to the largest
// member alignment, as for a C struct (MPI-1.2 §3.12.1, the epsilon term).
// Vector-like constructors take the grid of copies' min/max in O(1), so
// attributes cost O(blocks) whatever the counts.
#include <algorithm>
#include <map>

#include "dtype/padding.hpp"
#include "dtype/sig_hash.hpp"
#include "dtype/type_builder.hpp"

namespace ftmpi::dtype {
namespace {

// Sticky overflow tracking: one check after a chain of arithmetic.
struct Checked {
  bool bad = false;
  int64_t mul(int64_t a, int64_t b) {
    int64_t r = 0;
    bad |= __builtin_mul_overflow(a, b, &r);
    return r;
  }
  int64_t add(int64_t a, int64_t b) {
    int64_t r = 0;
    bad |= __builtin_add_overflow(a, b, &r);
    return r;
  }
};

uint64_t magnitude(int64_t v) {
  return v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
}

// n copies of a child `step` bytes apart: (child data disjoint, data span) ->
// whether the copies' data is provably disjoint.
bool copies_disjoint(int64_t n, int64_t step, bool child_disjoint, int64_t child_size,
                     int64_t child_true_extent) {
  if (!child_disjoint) return false;
  if (n <= 1 || child_size == 0) return true;
  return magnitude(step) >= static_cast<uint64_t>(child_true_extent);
}

struct Interval {
  int64_t lo, hi;
};

}  // namespace

Type* TypeBuilder::make_builtin_table() {
  Type* table = new Type[kNumBuiltins + 1];
  for (int i = 1; i <= kNumBuiltins; ++i) {
    Type& t = table[i];
    const Builtin b = static_cast<Builtin>(i);
    const BuiltinInfo& in = info(b);
    t.is_static_ = true;
    t.committed_ = true;
    t.refs_.store(1);
    t.combiner_ = Combiner::kBuiltin;
    t.builtin_ = b;
    t.size_ = in.size;
    t.align_ = in.align;
    t.contiguous_ = true;
    if (is_marker(b)) {
      t.has_lb_ = b == Builtin::kLb;
      t.has_ub_ = b == Builtin::kUb;
      continue;
    }
    t.ub_ = in.extent;
    t.unit_ = b;
    t.raw_ = b == Builtin::kByte || b == Builtin::kPacked;
    t.padded_ = padding_of(b) > 0;
    if (is_pair(b)) {
      const int64_t vsize = info(in.value).size, isize = info(in.index).size;
      t.elements_ = 2;
      t.true_ub_ = in.index_offset + isize;
      t.sig_hash_ = sig::concat(sig::code(in.value), sig::code(in.index), 1);
      Placed parts[2] = {{0, nullptr, vsize}, {in.index_offset, nullptr, isize}};
      t.data_ = program::list(parts);
      t.contiguous_ = t.data_.root->dense() && in.size == in.extent;
      if (in.size != in.extent) {
        t.has_unit_prog_ = true;
        t.unit_prog_ = program::dense(in.extent);
      }
    } else {
      t.elements_ = 1;
      t.true_ub_ = in.size;
      t.sig_hash_ = sig::code(b);
      t.data_ = program::dense(in.size);
    }
  }
  return table;
}

Err TypeBuilder::build(Combiner combiner, int64_t reps, int64_t rep_stride,
                       std::vector<TypeBlock> blocks, TypeRef* out) {
  Checked ck;
  // Per item (one repetition) first, then the repetitions.
  int64_t item_size = 0, item_elems = 0;
  bool sticky_lb = false, sticky_ub = false, plain_lb = false, plain_ub = false, data = false;
  int64_t slb = 0, sub = 0, plb = 0, pub = 0, tlb = 0, tub = 0;
  int align = 1;
  const int64_t rep_lo = std::min<int64_t>(0, ck.mul(reps - 1, rep_stride));
  const int64_t rep_hi = std::max<int64_t>(0, ck.mul(reps - 1, rep_stride));
  int64_t item_tlb = 0, item_tub = 0;  // data span of one repetition

  for (const TypeBlock& b : blocks) {
    const Type& c = *b.child;
    if (b.blocklen == 0 || reps == 0) continue;
    item_size = ck.add(item_size, ck.mul(b.blocklen, c.size_));
    item_elems = ck.add(item_elems, ck.mul(b.blocklen, c.elements_));
    if (!is_marker_only(c)) align = std::max(align, c.align_);
    const int64_t span = ck.mul(b.blocklen - 1, c.extent());
    const int64_t lo = ck.add(b.disp, std::min<int64_t>(0, span));
    const int64_t hi = ck.add(b.disp, std::max<int64_t>(0, span));
    if (c.has_lb_) {
      const int64_t v = ck.add(ck.add(lo, rep_lo), c.lb_);
      slb = sticky_lb ? std::min(slb, v) : v;
      sticky_lb = true;
    } else if (c.size_ > 0) {
      const int64_t v = ck.add(ck.add(lo, rep_lo), c.lb_);
      plb = plain_lb ? std::min(plb, v) : v;
      plain_lb = true;
    }
    if (c.has_ub_) {
      const int64_t v = ck.add(ck.add(hi, rep_hi), c.ub_);
      sub = sticky_ub ? std::max(sub, v) : v;
      sticky_ub = true;
    } else if (c.size_ > 0) {
      const int64_t v = ck.add(ck.add(hi, rep_hi), c.ub_);
      pub = plain_ub ? std::max(pub, v) : v;
      plain_ub = true;
    }
    if (c.size_ > 0) {
      const int64_t lo_t = ck.add(lo, c.true_lb_), hi_t = ck.add(hi, c.true_ub_);
      item_tlb = data ? std::min(item_tlb, lo_t) : lo_t;
      item_tub = data ? std::max(item_tub, hi_t) : hi_t;
      data = true;
    }
  }
  if (data) {
    tlb = ck.add(item_tlb, rep_lo);
    tub = ck.add(item_tub, rep_hi);
  }
  const int64_t size = ck.mul(item_size, reps);
  const int64_t elems = ck.mul(item_elems, reps);
  if (ck.bad) return Err::kArg;

  // A bound with neither a marker nor data falls back to the other bound, so
  // a marker-only type has extent 0 unless it carries both markers.
  int64_t lb = sticky_lb ? slb : plain_lb ? plb : sticky_ub ? sub : 0;
  int64_t ub = sticky_ub ? sub : plain_ub ? pub : lb;
  if (combiner == Combiner::kStruct && !sticky_ub && align > 1) {
    const int64_t ext = ck.add(ub, -lb);
    const int64_t rem = ((ext % align) + align) % align;
    if (rem) ub = ck.add(ub, align - rem);
  }
  if (ck.bad) return Err::kArg;

  auto t = TypeRef(new Type());
  Type& n = *t;
  n.combiner_ = combiner;
  n.size_ = size;
  n.elements_ = elems;
  n.lb_ = lb;
  n.ub_ = ub;
  n.true_lb_ = tlb;
  n.true_ub_ = tub;
  n.has_lb_ = sticky_lb;
  n.has_ub_ = sticky_ub;
  n.align_ = align;
  n.reps_ = reps;
  n.rep_stride_ = rep_stride;

  // Unit, raw-ness and signature, in type-map order.
  bool any_raw_candidate = false, all_raw = true;
  uint64_t item_hash = 0;
  std::vector<Interval> spans;
  bool disjoint = true;
  for (const TypeBlock& b : blocks) {
    const Type& c = *b.child;
    if (c.mixed_) n.mixed_ = true;
    if (c.unit_ != Builtin{}) {
      if (n.unit_ == Builtin{}) n.unit_ = c.unit_;
      else if (n.unit_ != c.unit_) n.mixed_ = true;
    }
    // Nothing below was overflow-checked for reps == 0, and nothing matters then.
    if (b.blocklen == 0 || c.elements_ == 0 || reps == 0) continue;
    any_raw_candidate = true;
    all_raw &= c.raw_;
    n.padded_ |= c.padded_;
    const uint64_t block_len = static_cast<uint64_t>(b.blocklen * c.elements_);
    item_hash = sig::concat(item_hash, sig::repeat(c.sig_hash_, c.elements_, b.blocklen), block_len);
    if (c.size_ > 0) {
      disjoint &= copies_disjoint(b.blocklen, c.extent(), c.disjoint_, c.size_, c.true_extent());
      const int64_t span = (b.blocklen - 1) * c.extent();
      spans.push_back({b.disp + std::min<int64_t>(0, span) + c.true_lb_,
                       b.disp + std::max<int64_t>(0, span) + c.true_ub_});
    }
  }
  n.raw_ = any_raw_candidate && all_raw;
  n.sig_hash_ = sig::repeat(item_hash, item_elems, reps);
  std::sort(spans.begin(), spans.end(), [](const Interval& a, const Interval& b) { return a.lo < b.lo; });
  for (size_t i = 1; i < spans.size() && disjoint; ++i) disjoint = spans[i - 1].hi <= spans[i].lo;
  n.disjoint_ = copies_disjoint(reps, rep_stride, disjoint, item_size, item_tub - item_tlb);

  // Children stay alive through the new type.
  for (TypeBlock& b : blocks) {
    if (n.children_.empty() || n.children_.back().get() != b.child)
      n.children_.emplace_back(const_cast<Type*>(b.child));
  }
  n.blocks_ = std::move(blocks);

  n.data_ = compile(n, /*units=*/false);
  n.contiguous_ = size == 0 || (n.data_.root->dense() && n.extent() == size);
  if (n.has_unit() && info(n.unit_).size != info(n.unit_).extent) {
    n.has_unit_prog_ = true;
    n.unit_prog_ = compile(n, /*units=*/true);
  }
  *out = std::move(t);
  return Err::kOk;
}

Err TypeBuilder::resize(const Type& old, int64_t lb, int64_t extent, TypeRef* out) {
  int64_t ub;
  if (__builtin_add_overflow(lb, extent, &ub)) return Err::kArg;
  TypeRef t;
  if (Err e = build(Combiner::kResized, 1, 0, {{0, 1, &old}}, &t); !ok(e)) return e;
  Type& n = *t;
  n.lb_ = lb;
  n.ub_ = ub;
  n.has_lb_ = true;
  n.has_ub_ = true;
  n.contiguous_ = n.size_ == 0 || (n.data_.root->dense() && n.extent() == n.size_);
  *out = std::move(t);
  return Err::kOk;
}

bool TypeBuilder::is_marker_only(const Type& t) { return t.size_ == 0 && t.elements_ == 0; }

// The blocks of one repetition become a list of placed programs; equal
// (child, blocklen) pairs share one compiled block.
Program TypeBuilder::compile(const Type& t, bool units) {
  if (t.reps_ == 0) return {};
  std::map<std::pair<const Type*, int64_t>, Program> block_progs;
  std::vector<Placed> parts;
  parts.reserve(t.blocks_.size());
  for (const TypeBlock& b : t.blocks_) {
    const Type& c = *b.child;
    const Program& cp = units ? c.unit_program() : c.data_program();
    if (b.blocklen == 0 || cp.empty()) continue;
    const Node& root = *cp.root;
    if (root.dense() && (b.blocklen == 1 || c.extent() == root.len)) {
      parts.push_back({b.disp + cp.disp, nullptr, b.blocklen * root.len});
      continue;
    }
    auto [it, fresh] = block_progs.try_emplace({&c, b.blocklen});
    if (fresh) it->second = program::repeat(b.blocklen, c.extent(), cp);
    parts.push_back({b.disp, &it->second, 0});
  }
  Program item = program::list(parts);
  return program::repeat(t.reps_, t.rep_stride_, item);
}

// ---- the MPI-1.2 constructors ----

Err make_contiguous(int64_t count, const Type& old, TypeRef* out) {
  if (count < 0) return Err::kCount;
  return TypeBuilder::build(Combiner::kContiguous, 1, 0, {{0, count, &old}}, out);
}

Err make_hvector(int64_t count, int64_t blocklen, int64_t stride_bytes, const Type& old,
                 TypeRef* out) {
  if (count < 0) return Err::kCount;
  if (blocklen < 0) return Err::kArg;
  return TypeBuilder::build(Combiner::kHvector, count, stride_bytes, {{0, blocklen, &old}}, out);
}

Err make_vector(int64_t count, int64_t blocklen, int64_t stride, const Type& old, TypeRef* out) {
  if (count < 0) return Err::kCount;
  if (blocklen < 0) return Err::kArg;
  int64_t bytes;
  if (__builtin_mul_overflow(stride, old.extent(), &bytes)) return Err::kArg;
  return TypeBuilder::build(Combiner::kVector, count, bytes, {{0, blocklen, &old}}, out);
}

namespace {

template <class D>
Err indexed_blocks(std::span<const int> blocklens, std::span<const D> displs, int64_t unit,
                   const Type& old, std::vector<TypeBlock>* blocks) {
  if (blocklens.size() != displs.size()) return Err::kArg;
  blocks->reserve(blocklens.size());
  for (size_t i = 0; i < blocklens.size(); ++i) {
    if (blocklens[i] < 0) return Err::kArg;
    int64_t disp;
    if (__builtin_mul_overflow(static_cast<int64_t>(displs[i]), unit, &disp)) return Err::kArg;
    blocks->push_back({disp, blocklens[i], &old});
  }
  return Err::kOk;
}

}  // namespace

Err make_indexed(std::span<const int> blocklens, std::span<const int> displs, const Type& old,
                 TypeRef* out) {
  std::vector<TypeBlock> blocks;
  if (Err e = indexed_blocks(blocklens, displs, old.extent(), old, &blocks); !ok(e)) return e;
  return TypeBuilder::build(Combiner::kIndexed, 1, 0, std::move(blocks), out);
}

Err make_hindexed(std::span<const int> blocklens, std::span<const int64_t> displs, const Type& old,
                  TypeRef* out) {
  std::vector<TypeBlock> blocks;
  if (Err e = indexed_blocks(blocklens, displs, 1, old, &blocks); !ok(e)) return e;
  return TypeBuilder::build(Combiner::kHindexed, 1, 0, std::move(blocks), out);
}

Err make_struct(std::span<const int> blocklens, std::span<const int64_t> displs,
                std::span<const Type* const> types, TypeRef* out) {
  if (blocklens.size() != displs.size() || blocklens.size() != types.size()) return Err::kArg;
  std::vector<TypeBlock> blocks;
  blocks.reserve(blocklens.size());
  for (size_t i = 0; i < blocklens.size(); ++i) {
    if (blocklens[i] < 0) return Err::kArg;
    if (types[i] == nullptr) return Err::kType;
    blocks.push_back({displs[i], blocklens[i], types[i]});
  }
  return TypeBuilder::build(Combiner::kStruct, 1, 0, std::move(blocks), out);
}

Err make_resized(const Type& old, int64_t lb, int64_t extent, TypeRef* out) {
  return TypeBuilder::resize(old, lb, extent, out);
}

}  // namespace ftmpi::dtype

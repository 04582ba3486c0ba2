// Type map enumeration and the exact overlap check.
#include "dtype/type_map.hpp"

#include <algorithm>

namespace ftmpi::dtype {
namespace {

struct MapWalk {
  std::vector<TypeMapEntry>* out;
  size_t max;
  bool full() const { return out->size() >= max; }
  void add(Builtin b, int64_t disp) {
    if (!full()) out->push_back({b, disp});
  }
  void item(const Type& t, int64_t base) {
    if (full()) return;
    if (t.is_builtin()) {
      const Builtin b = t.builtin();
      if (is_pair(b)) {
        add(info(b).value, base);
        add(info(b).index, base + info(b).index_offset);
      } else {
        add(b, base);
      }
      return;
    }
    for (int64_t r = 0; r < t.reps() && !full(); ++r)
      for (const TypeBlock& b : t.blocks())
        for (int64_t j = 0; j < b.blocklen && !full(); ++j)
          item(*b.child, base + r * t.rep_stride() + b.disp + j * b.child->extent());
  }
};

struct Interval {
  int64_t lo, hi;
};

// Data blocks of one item, relative to its origin, from the compiled program.
void collect(const Node& n, int64_t base, std::vector<Interval>* out) {
  switch (n.kind) {
    case Node::Kind::kBlocks:
      for (int64_t i = 0; i < n.count; ++i) out->push_back({base + i * n.stride, base + i * n.stride + n.len});
      return;
    case Node::Kind::kRepeat:
      for (int64_t i = 0; i < n.count; ++i) collect(*n.child, base + i * n.stride, out);
      return;
    case Node::Kind::kList:
      for (const ListEntry& e : n.entries) collect(*e.node, base + e.disp, out);
      return;
  }
}

// Do sorted, internally disjoint interval lists a and (a shifted by s) meet?
bool meets_shifted(const std::vector<Interval>& a, int64_t s) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < a.size()) {
    const int64_t blo = a[j].lo + s, bhi = a[j].hi + s;
    if (a[i].hi <= blo) ++i;
    else if (bhi <= a[i].lo) ++j;
    else return true;
  }
  return false;
}

}  // namespace

std::vector<TypeMapEntry> type_map(const Type& t, size_t max_entries) {
  std::vector<TypeMapEntry> out;
  MapWalk w{&out, max_entries};
  w.item(t, 0);
  return out;
}

bool has_overlap(const Type& t, int64_t count) {
  if (t.size() == 0 || count <= 0) return false;
  const int64_t span = t.true_extent();
  const int64_t ext = t.extent();
  const uint64_t step = ext < 0 ? uint64_t{0} - static_cast<uint64_t>(ext) : static_cast<uint64_t>(ext);
  const bool items_apart = count == 1 || step >= static_cast<uint64_t>(span);
  if (t.proven_disjoint() && items_apart) return false;
  if (count > 1 && ext == 0) return true;

  std::vector<Interval> blocks;
  const Program& p = t.data_program();
  collect(*p.root, p.disp, &blocks);
  std::sort(blocks.begin(), blocks.end(), [](const Interval& a, const Interval& b) { return a.lo < b.lo; });
  for (size_t i = 1; i < blocks.size(); ++i)
    if (blocks[i - 1].hi > blocks[i].lo) return true;
  if (items_apart) return false;
  // Item k lies ext*k further on: only shifts smaller than the span can meet.
  const uint64_t max_k = std::min<uint64_t>(static_cast<uint64_t>(count - 1),
                                            (static_cast<uint64_t>(span) - 1) / step);
  for (uint64_t k = 1; k <= max_k; ++k)
    if (meets_shifted(blocks, static_cast<int64_t>(k * step))) return true;
  return false;
}

}  // namespace ftmpi::dtype

#include "comm/ops/group_algebra.hpp"

#include "comm/model/context_id.hpp"

namespace ftmpi::comm::ops {

int rank_in(const Group& g, const ProcId& p) { return g.rank_of(p); }

bool is_subset(const Group& sub, const Group& of) {
  for (const ProcId& p : sub.members())
    if (rank_in(of, p) < 0) return false;
  return true;
}

bool disjoint(const Group& a, const Group& b) {
  for (const ProcId& p : a.members())
    if (rank_in(b, p) >= 0) return false;
  return true;
}

Similarity compare_groups(const Group& a, const Group& b) {
  if (a.size() != b.size()) return Similarity::kUnequal;
  if (a.members() == b.members()) return Similarity::kIdent;
  // Same size and a within b: the same set (a group has no repeated member).
  return is_subset(a, b) ? Similarity::kSimilar : Similarity::kUnequal;
}

GroupRef group_union(const Group& a, const Group& b) {
  std::vector<ProcId> m = a.members();
  for (const ProcId& p : b.members())
    if (rank_in(a, p) < 0) m.push_back(p);
  return Group::make(std::move(m));
}

GroupRef group_intersection(const Group& a, const Group& b) {
  std::vector<ProcId> m;
  for (const ProcId& p : a.members())
    if (rank_in(b, p) >= 0) m.push_back(p);
  return Group::make(std::move(m));
}

GroupRef group_difference(const Group& a, const Group& b) {
  std::vector<ProcId> m;
  for (const ProcId& p : a.members())
    if (rank_in(b, p) < 0) m.push_back(p);
  return Group::make(std::move(m));
}

namespace {
// Marks ranks[0..n) in `seen`; kRank for one out of range or repeated.
Err mark_ranks(const Group& g, int n, const int* ranks, std::vector<char>& seen) {
  seen.assign(static_cast<size_t>(g.size()), 0);
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= g.size() || seen[static_cast<size_t>(r)]) return Err::kRank;
    seen[static_cast<size_t>(r)] = 1;
  }
  return Err::kOk;
}
}  // namespace

Err group_incl(const Group& g, int n, const int* ranks, GroupRef* out) {
  if (n < 0 || n > g.size()) return n < 0 ? Err::kArg : Err::kRank;
  std::vector<char> seen;
  if (Err e = mark_ranks(g, n, ranks, seen); !ok(e)) return e;
  std::vector<ProcId> m;
  m.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) m.push_back(g.at(ranks[i]));
  *out = Group::make(std::move(m));
  return Err::kOk;
}

Err group_excl(const Group& g, int n, const int* ranks, GroupRef* out) {
  if (n < 0 || n > g.size()) return n < 0 ? Err::kArg : Err::kRank;
  std::vector<char> seen;
  if (Err e = mark_ranks(g, n, ranks, seen); !ok(e)) return e;
  std::vector<ProcId> m;
  for (int r = 0; r < g.size(); ++r)
    if (!seen[static_cast<size_t>(r)]) m.push_back(g.at(r));
  *out = Group::make(std::move(m));
  return Err::kOk;
}

Err expand_ranges(const Group& g, int n, const int (*ranges)[3], std::vector<int>* out) {
  if (n < 0) return Err::kArg;
  out->clear();
  std::vector<char> seen(static_cast<size_t>(g.size()), 0);
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0) return Err::kArg;
    if (first < 0 || first >= g.size() || last < 0 || last >= g.size()) return Err::kRank;
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) return Err::kArg;
    for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (seen[static_cast<size_t>(r)]) return Err::kRank;
      seen[static_cast<size_t>(r)] = 1;
      out->push_back(static_cast<int>(r));
    }
  }
  return Err::kOk;
}

Err translate_ranks(const Group& a, int n, const int* ranks, const Group& b, int undefined, int proc_null,
                    int* out) {
  if (n < 0) return Err::kArg;
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    if (r == proc_null) {
      out[i] = proc_null;
      continue;
    }
    if (r < 0 || r >= a.size()) return Err::kRank;
    const int t = rank_in(b, a.at(r));
    out[i] = t >= 0 ? t : undefined;
  }
  return Err::kOk;
}

uint64_t group_hash(const Group& g, Naming naming) {
  uint64_t h = mix64(static_cast<uint64_t>(g.size()));
  for (const ProcId& p : g.members())
    h = mix64(h ^ ((static_cast<uint64_t>(static_cast<uint32_t>(p.slot)) << 32) |
                   (naming == Naming::kSlot ? 0u : p.incarnation)));
  return h;
}

}  // namespace ftmpi::comm::ops

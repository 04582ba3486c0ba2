// Algorithm: reduce, then scatterv (MPICH MPIR_Reduce_scatter_intra_noncommutative
// takes the same route for general ops): an ordered binomial reduce of the
// whole vector to member 0, which sends each member its block. Keeps rank
// order, so it serves non-commutative ops.
// Cost: log2 p * (alpha + n * beta + n * gamma) + (p - 1) * alpha + n * beta.
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err reduce_scatter_reduce_scatterv(const Team& t, const ReduceScatterArgs& a) {
  const int csize = t.comm().size();
  std::vector<int> disp(static_cast<size_t>(csize), 0);
  size_t total = 0;
  for (int r = 0; r < csize; ++r) {
    disp[r] = static_cast<int>(total);
    total += static_cast<size_t>(a.rcounts[r]);
  }
  // Only for the temporary buffer: the two steps bring their own.
  Xfer x(t, AlgoId::kReduceScatterReduceScatterv);
  void* all = t.me() == 0 ? temp_items(x, **a.type, total) : nullptr;
  ReduceArgs r{a.sbuf, all, total, a.type, a.op, 0};
  Err reduced = reduce_binomial(t, r);
  if (is_hard(reduced)) return reduced;
  VArgs v{all, a.rcounts, disp.data(), 0, a.type, a.rbuf, nullptr, nullptr,
          static_cast<size_t>(a.rcounts[t.rank_of(t.me())]), a.type, 0};
  Err scattered = scatterv_linear(t, v);
  return ok(scattered) ? reduced : scattered;
}

}  // namespace ftmpi::coll

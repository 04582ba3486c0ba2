// Algorithm: allgather, then reduce locally: every member sends its vector
// to every other member in one round and folds all p contributions itself,
// in rank order ((x0 op x1) op x2 ...). Every member performs the very same
// fold, so results are bitwise equal everywhere and any op is allowed.
// One round instead of log2 p: the choice for small vectors on few members,
// above all when members outnumber cores and each round costs wake-ups.
// Cost: alpha + (p - 1) m * beta + (p - 1) m * gamma per member; p (p - 1)
// messages and p m bytes of temporary memory.
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err allreduce_linear(const Team& t, const ReduceArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& ty = **a.type;
  Xfer x(t, AlgoId::kAllreduceLinear);
  std::vector<void*> from(static_cast<size_t>(n), nullptr);
  for (int k = 1; k < n; ++k) {
    const int src = mod(me - k, n);
    from[static_cast<size_t>(src)] = temp_items(x, ty, a.count);
    x.recv(src, from[static_cast<size_t>(src)], a.count, *a.type, 0);
    x.send((me + k) % n, a.sbuf, a.count, *a.type, 0);
  }
  if (Err e = x.wait(); !ok(e)) return e;
  from[static_cast<size_t>(me)] = const_cast<void*>(a.sbuf);
  // acc := x0, then acc := acc op x_i for i = 1..p-1, keeping the result in
  // the receive buffer: hi := lo op hi lands in the later contribution's
  // buffer, which is a temporary except for my own.
  void* acc = from[0];
  for (int i = 1; i < n; ++i) {
    void* hi = from[static_cast<size_t>(i)];
    if (i == me) {
      copy_items(hi, a.rbuf, a.count, ty);
      hi = a.rbuf;
    }
    acc = combine(*a.op, acc, hi, a.count, ty);
  }
  if (acc != a.rbuf) copy_items(acc, a.rbuf, a.count, ty);
  return x.result();
}

}  // namespace ftmpi::coll

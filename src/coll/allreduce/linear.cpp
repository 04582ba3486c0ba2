// Algorithm: allgather, then reduce locally: every member sends its vector
// to every other member in one round and folds all p contributions itself,
// in rank order ((x0 op x1) op x2 ...). Every member performs the very same
// fold, so results are bitwise equal everywhere and any op is allowed.
// One round instead of log2 p: the choice for small vectors on few members,
// above all when members outnumber cores and each round costs wake-ups.
// Cost: alpha + (p - 1) m * beta + (p - 1) m * gamma per member; p (p - 1)
// messages and p m bytes of temporary memory.
#include <array>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err allreduce_linear(const Team& t, const ReduceArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& ty = **a.type;
  Xfer x(t, AlgoId::kAllreduceLinear);
  // Where each member's contribution is (no allocation for small teams).
  std::array<void*, 16> few{};
  std::vector<void*> many(n > 16 ? static_cast<size_t>(n) : 0);
  void** from = n > 16 ? many.data() : few.data();
  for (int k = 1; k < n; ++k) {
    const int src = mod(me - k, n);
    // The last member's contribution goes straight to the receive buffer,
    // where the final combination lands.
    from[static_cast<size_t>(src)] = src == n - 1 ? a.rbuf : temp_items(x, ty, a.count);
    x.recv(src, from[static_cast<size_t>(src)], a.count, *a.type, 0);
    x.send((me + k) % n, a.sbuf, a.count, *a.type, 0);
  }
  if (Err e = x.wait(); !ok(e)) return e;
  from[static_cast<size_t>(me)] = const_cast<void*>(a.sbuf);
  // acc := x0, then acc := acc op x_i for i = 1..p-1: hi := lo op hi lands
  // in the later contribution's buffer, the last one being the receive
  // buffer, so the result needs no final copy.
  void* acc = from[0];
  for (int i = 1; i < n; ++i) {
    void* hi = from[static_cast<size_t>(i)];
    if (i == me) {  // never write into the send buffer
      hi = i == n - 1 ? a.rbuf : temp_items(x, ty, a.count);
      copy_items(a.sbuf, hi, a.count, ty);
    }
    acc = combine(*a.op, acc, hi, a.count, ty);
  }
  if (acc != a.rbuf) copy_items(acc, a.rbuf, a.count, ty);
  return x.result();
}

}  // namespace ftmpi::coll

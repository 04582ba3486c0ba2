// Algorithm: linear reduce: every member sends its vector to the root in
// one round; the root folds the p contributions in rank order. One round
// instead of log2 p, and any op: the choice for small vectors on few
// members, above all when members outnumber cores.
// Cost: alpha + (p - 1) m * beta + (p - 1) m * gamma at the root.
#include <array>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err reduce_linear(const Team& t, const ReduceArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& ty = **a.type;
  Xfer x(t, AlgoId::kReduceLinear);
  if (me != a.root) {
    x.send(a.root, a.sbuf, a.count, *a.type, 0);
    if (Err e = x.wait(); !ok(e)) return e;
    return x.result();
  }
  // Where each member's contribution is (no allocation for small teams).
  std::array<void*, 16> few{};
  std::vector<void*> many(n > 16 ? static_cast<size_t>(n) : 0);
  void** from = n > 16 ? many.data() : few.data();
  for (int k = 1; k < n; ++k) {
    const int src = (me + k) % n;
    // The last member's contribution goes straight to the receive buffer,
    // where the final combination lands.
    from[static_cast<size_t>(src)] = src == n - 1 ? a.rbuf : temp_items(x, ty, a.count);
    x.recv(src, from[static_cast<size_t>(src)], a.count, *a.type, 0);
  }
  if (Err e = x.wait(); !ok(e)) return e;
  from[static_cast<size_t>(me)] = const_cast<void*>(a.sbuf);
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

// Algorithm: binomial-tree reduce (MPICH MPIR_Reduce_intra_binomial).
// Member v receives the partial results of its children v + 2^k (2^k below
// lowbit(v)), combines them in order and sends the result to v - lowbit(v).
// Commutative ops number members relative to the root; other ops keep team
// order, reduce to member 0 and send the result on to the root, so the
// combination order is always rank order.
// Cost: ceil(log2 p) * (alpha + m * beta + m * gamma).
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/layout.hpp"

namespace ftmpi::coll {

Err reduce_binomial(const Team& t, const ReduceArgs& a) {
  const int n = t.size(), me = t.me();
  const dtype::Type& ty = **a.type;
  const ReduceOp& op = *a.op;
  const int tree_root = op.commutative ? a.root : 0;
  const int v = mod(me - tree_root, n);
  auto real = [&](int vr) { return (vr + tree_root) % n; };
  Xfer x(t, AlgoId::kReduceBinomial);

  // Children's partial results arrive at once, each in its own buffer.
  const int top = v == 0 ? n : lowest_bit(v);
  std::vector<void*> child;
  for (int m = 1, step = 0; m < top && v + m < n; m <<= 1, ++step) {
    child.push_back(temp_items(x, ty, a.count));
    x.recv(real(v + m), child.back(), a.count, *a.type, step);
  }
  // The root accumulates in its receive buffer unless it must send a partial
  // result from there while the final one arrives (ordered tree, root != 0).
  void* acc = me == a.root && v == 0 ? a.rbuf : temp_items(x, ty, a.count);
  copy_items(a.sbuf, acc, a.count, ty);
  if (Err e = x.wait(); !ok(e)) return e;
  for (void* c : child) {
    // acc holds lower members than c.
    if (op.commutative) {
      op.apply(c, acc, a.count, ty);
    } else {
      acc = combine(op, acc, c, a.count, ty);
    }
  }
  if (v != 0) {
    int step = 0;
    while ((1 << step) != lowest_bit(v)) ++step;
    x.send(real(v - lowest_bit(v)), acc, a.count, *a.type, step);
  } else if (me != a.root) {
    x.send(a.root, acc, a.count, *a.type, 30);  // ordered tree: member 0 forwards
  } else if (acc != a.rbuf) {
    copy_items(acc, a.rbuf, a.count, ty);
  }
  if (me == a.root && tree_root != a.root) x.recv(tree_root, a.rbuf, a.count, *a.type, 30);
  if (Err e = x.wait(); !ok(e)) return e;
  return x.result();
}

}  // namespace ftmpi::coll

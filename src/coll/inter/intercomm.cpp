// Intercommunicator collectives (intercomm.hpp). Algorithms:
// - through the leaders: the group that gives data combines it inside the
//   group towards its leader (reduce) or the leader spreads what came across
//   (bcast, scatterv); one transfer between the two leaders. Cost: one
//   intra-group collective or two, plus one message across.
// - linear: each process posts its receives from and sends to every remote
//   process it exchanges with, then waits for all. Cost: m messages each way
//   per process (m = remote group size); intercommunicator collectives are
//   rare in programs, and this keeps every block in its owner's type.
#include "coll/inter/intercomm.hpp"

#include <vector>

#include "coll/collectives.hpp"
#include "coll/layout.hpp"
#include "coll/xfer.hpp"

namespace ftmpi::coll::inter {

bool RemoteWatch::give_up() const {
  const uint64_t f = eng_.failure_count();
  if (f != seen_failures_) {
    seen_failures_ = f;
    dead_ = false;
    const comm::Group& rg = inter_.peer_group();
    for (int r = 0; r < rg.size() && !dead_; ++r) dead_ = !rg.is_blank(r) && !eng_.alive(rg.at(r));
  }
  return dead_;
}

namespace {

bool is_leader(const Groups& g) { return g.local.me() == 0; }

bool remote_blank(const Groups& g, int r) { return g.bridge.comm().peer_group().is_blank(r); }

// Folds one step's outcome into the run's: true when the run must stop.
bool failed(Err e, Err* soft) {
  if (is_hard(e)) {
    *soft = e;
    return true;
  }
  if (!ok(e)) *soft = e;
  return false;
}

Err finish(Xfer& x, Err soft) {
  if (Err e = x.wait(); is_hard(e)) return e;
  if (!ok(soft)) return soft;
  return x.result();
}

// One side of a linear exchange: block r of a v-buffer for remote rank r
// (counts / displs in items when given, else r * count), or the same block
// for every remote rank (`one_block`: what allgather sends).
struct Side {
  const void* buf;
  const int* counts;
  const int* displs;
  size_t count;
  const dtype::TypeRef* type;
  bool one_block;
};

// Posts the receives (or sends) of `s` with every live remote rank.
void post_all(Xfer& x, const Groups& g, const Side& s, bool receive) {
  for (int r = 0; r < g.remote_size; ++r) {
    if (remote_blank(g, r)) continue;
    void* buf = const_cast<void*>(s.buf);
    size_t n = s.count;
    if (s.counts) {
      buf = item(buf, **s.type, static_cast<size_t>(s.displs[r]));
      n = static_cast<size_t>(s.counts[r]);
    } else if (!s.one_block) {
      buf = item(buf, **s.type, static_cast<size_t>(r) * s.count);
    }
    if (receive) x.recv(r, buf, n, *s.type, 0);
    else x.send(r, buf, n, *s.type, 0);
  }
}

Side recv_side(const VArgs& a) { return {a.rbuf, a.rcounts, a.rdispls, a.rcount, a.rtype, false}; }
Side send_side(const VArgs& a) { return {a.sbuf, a.scounts, a.sdispls, a.scount, a.stype, false}; }

}  // namespace

Err barrier(const Groups& g) {
  g.bridge.begin_call();
  Err soft = Err::kOk;
  if (failed(coll::barrier(g.local), &soft)) return soft;
  if (is_leader(g)) {
    Xfer x(g.bridge, AlgoId::kInterLeaders);
    x.recv_bytes(g.remote_leader, nullptr, 0, 0);
    x.send_bytes(g.remote_leader, nullptr, 0, 0);
    if (failed(finish(x, soft), &soft)) return soft;
  }
  // Nobody leaves before the leader heard that the whole remote group entered.
  failed(coll::barrier(g.local), &soft);
  return soft;
}

Err bcast(const Groups& g, const BcastArgs& a) {
  g.bridge.begin_call();
  if (a.root == kRootElsewhere) return Err::kOk;
  Xfer x(g.bridge, AlgoId::kInterLeaders);
  if (a.root == kRootHere) {
    x.send(g.remote_leader, a.buf, a.count, *a.type, 0);
    return finish(x, Err::kOk);
  }
  Err soft = Err::kOk;
  if (is_leader(g)) {
    x.recv(a.root, a.buf, a.count, *a.type, 0);
    if (failed(finish(x, soft), &soft)) return soft;
  }
  failed(coll::bcast(g.local, BcastArgs{a.buf, a.count, a.type, 0}), &soft);
  return soft;
}

Err reduce(const Groups& g, const ReduceArgs& a) {
  g.bridge.begin_call();
  if (a.root == kRootElsewhere) return Err::kOk;
  Xfer x(g.bridge, AlgoId::kInterLeaders);
  if (a.root == kRootHere) {
    x.recv(g.remote_leader, a.rbuf, a.count, *a.type, 0);
    return finish(x, Err::kOk);
  }
  Err soft = Err::kOk;
  void* partial = is_leader(g) ? temp_items(x, **a.type, a.count) : nullptr;
  if (failed(coll::reduce(g.local, ReduceArgs{a.sbuf, partial, a.count, a.type, a.op, 0}), &soft)) return soft;
  if (!is_leader(g)) return soft;
  x.send(a.root, partial, a.count, *a.type, 0);
  return finish(x, soft);
}

Err allreduce(const Groups& g, const ReduceArgs& a) {
  g.bridge.begin_call();
  Err soft = Err::kOk;
  Xfer x(g.bridge, AlgoId::kInterLeaders);
  void* partial = is_leader(g) ? temp_items(x, **a.type, a.count) : nullptr;
  if (failed(coll::reduce(g.local, ReduceArgs{a.sbuf, partial, a.count, a.type, a.op, 0}), &soft)) return soft;
  if (is_leader(g)) {
    // My group's result goes across; the remote group's comes into rbuf.
    x.recv(g.remote_leader, a.rbuf, a.count, *a.type, 0);
    x.send(g.remote_leader, partial, a.count, *a.type, 0);
    if (failed(finish(x, soft), &soft)) return soft;
  }
  failed(coll::bcast(g.local, BcastArgs{a.rbuf, a.count, a.type, 0}), &soft);
  return soft;
}

Err reduce_scatter(const Groups& g, const ReduceScatterArgs& a) {
  g.bridge.begin_call();
  const int n = g.local.comm().size();
  std::vector<int> displs(static_cast<size_t>(n));
  size_t total = 0;
  for (int r = 0; r < n; ++r) {
    displs[static_cast<size_t>(r)] = static_cast<int>(total);
    total += static_cast<size_t>(a.rcounts[r]);
  }
  Err soft = Err::kOk;
  Xfer x(g.bridge, AlgoId::kInterLeaders);
  void* mine = is_leader(g) ? temp_items(x, **a.type, total) : nullptr;
  void* theirs = is_leader(g) ? temp_items(x, **a.type, total) : nullptr;
  if (failed(coll::reduce(g.local, ReduceArgs{a.sbuf, mine, total, a.type, a.op, 0}), &soft)) return soft;
  if (is_leader(g)) {
    x.recv(g.remote_leader, theirs, total, *a.type, 0);
    x.send(g.remote_leader, mine, total, *a.type, 0);
    if (failed(finish(x, soft), &soft)) return soft;
  }
  const size_t mine_count = static_cast<size_t>(a.rcounts[g.local.comm().rank()]);
  VArgs s{theirs, a.rcounts, displs.data(), 0, a.type, a.rbuf, nullptr, nullptr, mine_count, a.type, 0};
  failed(coll::scatterv(g.local, s), &soft);
  return soft;
}

Err gather(const Groups& g, const VArgs& a) {
  g.bridge.begin_call();
  if (a.root == kRootElsewhere) return Err::kOk;
  Xfer x(g.bridge, AlgoId::kInterLinear);
  if (a.root == kRootHere) post_all(x, g, recv_side(a), true);
  else x.send(a.root, a.sbuf, a.scount, *a.stype, 0);
  return finish(x, Err::kOk);
}

Err scatter(const Groups& g, const VArgs& a) {
  g.bridge.begin_call();
  if (a.root == kRootElsewhere) return Err::kOk;
  Xfer x(g.bridge, AlgoId::kInterLinear);
  if (a.root == kRootHere) post_all(x, g, send_side(a), false);
  else x.recv(a.root, a.rbuf, a.rcount, *a.rtype, 0);
  return finish(x, Err::kOk);
}

Err allgather(const Groups& g, const VArgs& a) {
  g.bridge.begin_call();
  Xfer x(g.bridge, AlgoId::kInterLinear);
  post_all(x, g, recv_side(a), true);
  post_all(x, g, {a.sbuf, nullptr, nullptr, a.scount, a.stype, true}, false);
  return finish(x, Err::kOk);
}

Err alltoall(const Groups& g, const VArgs& a) {
  g.bridge.begin_call();
  Xfer x(g.bridge, AlgoId::kInterLinear);
  post_all(x, g, recv_side(a), true);
  post_all(x, g, send_side(a), false);
  return finish(x, Err::kOk);
}

Err alltoallw(const Groups& g, const WArgs& a) {
  g.bridge.begin_call();
  Xfer x(g.bridge, AlgoId::kInterLinear);
  for (int r = 0; r < g.remote_size; ++r) {
    if (remote_blank(g, r)) continue;
    const WBlock& b = a.recvs[r];
    x.recv(r, const_cast<void*>(b.buf), b.count, *b.type, 0);
  }
  for (int r = 0; r < g.remote_size; ++r) {
    if (remote_blank(g, r)) continue;
    const WBlock& b = a.sends[r];
    x.send(r, b.buf, b.count, *b.type, 0);
  }
  return finish(x, Err::kOk);
}

}  // namespace ftmpi::coll::inter

// The algorithm catalog of every collective and the calls that pick from
// it. Everything a selection depends on must be the same on every member
// (team size, op commutativity, and sizes every member knows), or members
// would run different algorithms.
#include <cstdint>
#include <vector>

#include "base/log.hpp"
#include "coll/algorithms.hpp"
#include "coll/collectives.hpp"
#include "coll/ft/atomic.hpp"
#include "coll/ft/inject.hpp"
#include "coll/select.hpp"
#include "coll/state.hpp"

namespace ftmpi::coll {
namespace {

template <class Fn>
struct Algo {
  const char* name;
  unsigned needs;
  Fn fn;
};

// Also numbers the call (Team::begin_call): every entry point goes through here.
// The last choice per collective is remembered (State::last_choice):
// programs repeat the same call.
template <class Fn, size_t N>
Fn choose(CollOp op, const Team& t, const CallInfo& info, const Algo<Fn> (&algos)[N]) {
  t.begin_call();
  ft::maybe_die(ft::Phase::kStart, t);  // fault injection (tests): before any message
  State& st = t.state();
  State::Choice& l = st.last_choice(op);
  if (l.info.size != info.size || l.info.bytes != info.bytes || l.info.commutative != info.commutative) {
    const std::string& forced = st.forced().name[static_cast<int>(op)];
    bool unknown = false;
    l.index = select_algorithm(op, info, catalog(op), tuning_table(), forced, &unknown);
    l.info = info;
    // Loud, so that a test forcing a misspelt algorithm cannot pass unnoticed.
    if (unknown && st.warn_once(op))
      FTMPI_LOG(kError, "coll", "FTMPI_COLL: %s has no algorithm '%s'", coll_name(op), forced.c_str());
  }
  return algos[l.index].fn;
}

template <class Fn, size_t N>
std::vector<AlgoDesc> descs(const Algo<Fn> (&algos)[N]) {
  std::vector<AlgoDesc> d;
  for (const Algo<Fn>& a : algos) d.push_back({a.name, a.needs});
  return d;
}

using BarrierFn = Err (*)(const Team&);
using BcastFn = Err (*)(const Team&, const BcastArgs&);
using ReduceFn = Err (*)(const Team&, const ReduceArgs&);
using BlockFn = Err (*)(const Team&, const BlockArgs&);
using VFn = Err (*)(const Team&, const VArgs&);
using ReduceScatterFn = Err (*)(const Team&, const ReduceScatterArgs&);

const Algo<BarrierFn> kBarrier[] = {
    {"dissemination", kNeedsNothing, barrier_dissemination},
    {"tree", kNeedsNothing, barrier_tree},
    {"linear", kNeedsNothing, barrier_linear},
};
const Algo<BcastFn> kBcast[] = {
    {"binomial", kNeedsNothing, bcast_binomial},
    {"scatter_allgather", kNeedsNothing, bcast_scatter_allgather},
    {"linear", kNeedsNothing, bcast_linear},
};
const Algo<ReduceFn> kReduce[] = {
    {"binomial", kNeedsNothing, reduce_binomial},
    {"rabenseifner", kNeedsCommutative, reduce_rabenseifner},
    {"linear", kNeedsNothing, reduce_linear},
};
const Algo<ReduceFn> kAllreduce[] = {
    {"recursive_doubling", kNeedsNothing, allreduce_recursive_doubling},
    {"rabenseifner", kNeedsCommutative, allreduce_rabenseifner},
    {"ring", kNeedsCommutative, allreduce_ring},
    {"linear", kNeedsNothing, allreduce_linear},
};
const Algo<ReduceFn> kScan[] = {
    {"recursive_doubling", kNeedsNothing, scan_recursive_doubling},
    {"linear", kNeedsNothing, scan_linear},
};
const Algo<BlockFn> kGather[] = {
    {"binomial", kNeedsNothing, gather_binomial},
    {"linear", kNeedsNothing, gather_linear},
};
const Algo<BlockFn> kScatter[] = {
    {"binomial", kNeedsNothing, scatter_binomial},
    {"linear", kNeedsNothing, scatter_linear},
};
const Algo<BlockFn> kAllgather[] = {
    {"bruck", kNeedsNothing, allgather_bruck},
    {"ring", kNeedsNothing, allgather_ring},
    {"linear", kNeedsNothing, allgather_linear},
};
const Algo<BlockFn> kAlltoall[] = {
    {"bruck", kNeedsNothing, alltoall_bruck},
    {"pairwise", kNeedsNothing, alltoall_pairwise},
    {"linear", kNeedsNothing, alltoall_linear},
};
const Algo<VFn> kGatherv[] = {{"linear", kNeedsNothing, gatherv_linear}};
const Algo<VFn> kScatterv[] = {{"linear", kNeedsNothing, scatterv_linear}};
const Algo<VFn> kAllgatherv[] = {
    {"ring", kNeedsNothing, allgatherv_ring},
    {"linear", kNeedsNothing, allgatherv_linear},
};
const Algo<VFn> kAlltoallv[] = {
    {"pairwise", kNeedsNothing, alltoallv_pairwise},
    {"linear", kNeedsNothing, alltoallv_linear},
};
const Algo<ReduceScatterFn> kReduceScatter[] = {
    {"halving", kNeedsCommutative, reduce_scatter_halving},
    {"pairwise", kNeedsCommutative, reduce_scatter_pairwise},
    {"reduce_scatterv", kNeedsNothing, reduce_scatter_reduce_scatterv},
};

}  // namespace

std::span<const AlgoDesc> catalog(CollOp op) {
  static const std::vector<AlgoDesc> all[] = {
      descs(kBarrier),  descs(kBcast),    descs(kReduce),  descs(kAllreduce), descs(kAllgather),
      descs(kAllgatherv), descs(kAlltoall), descs(kAlltoallv), descs(kGather), descs(kGatherv),
      descs(kScatter),  descs(kScatterv), descs(kReduceScatter), descs(kScan)};
  static_assert(sizeof all / sizeof all[0] == static_cast<size_t>(CollOp::kCount));
  return all[static_cast<int>(op)];
}

namespace {

uint64_t bytes_of(size_t count, const dtype::TypeRef* t) { return static_cast<uint64_t>(count) * (*t)->size(); }

CallInfo info(const Team& t, uint64_t bytes, bool commutative = true) { return {t.size(), bytes, commutative}; }

}  // namespace

Err plain::barrier(const Team& t) { return choose(CollOp::kBarrier, t, info(t, 0), kBarrier)(t); }

Err plain::bcast(const Team& t, const BcastArgs& a) {
  return choose(CollOp::kBcast, t, info(t, bytes_of(a.count, a.type)), kBcast)(t, a);
}

Err plain::reduce(const Team& t, const ReduceArgs& a) {
  return choose(CollOp::kReduce, t, info(t, bytes_of(a.count, a.type), a.op->commutative), kReduce)(t, a);
}

Err plain::allreduce(const Team& t, const ReduceArgs& a) {
  return choose(CollOp::kAllreduce, t, info(t, bytes_of(a.count, a.type), a.op->commutative), kAllreduce)(t, a);
}

Err plain::scan(const Team& t, const ReduceArgs& a) {
  return choose(CollOp::kScan, t, info(t, bytes_of(a.count, a.type), a.op->commutative), kScan)(t, a);
}

// Block sizes: the root's receive side equals every sender's send side.
Err plain::gather(const Team& t, const BlockArgs& a) {
  uint64_t b = t.me() == a.root ? bytes_of(a.rcount, a.rtype) : bytes_of(a.scount, a.stype);
  return choose(CollOp::kGather, t, info(t, b), kGather)(t, a);
}

Err plain::scatter(const Team& t, const BlockArgs& a) {
  uint64_t b = t.me() == a.root ? bytes_of(a.scount, a.stype) : bytes_of(a.rcount, a.rtype);
  return choose(CollOp::kScatter, t, info(t, b), kScatter)(t, a);
}

Err plain::allgather(const Team& t, const BlockArgs& a) {
  return choose(CollOp::kAllgather, t, info(t, bytes_of(a.scount, a.stype)), kAllgather)(t, a);
}

Err plain::alltoall(const Team& t, const BlockArgs& a) {
  return choose(CollOp::kAlltoall, t, info(t, bytes_of(a.scount, a.stype)), kAlltoall)(t, a);
}

// Only the root knows every count of a gatherv / scatterv, and nobody knows
// all counts of an alltoallv: these select on the team size alone.
Err plain::gatherv(const Team& t, const VArgs& a) { return choose(CollOp::kGatherv, t, info(t, 0), kGatherv)(t, a); }

Err plain::scatterv(const Team& t, const VArgs& a) { return choose(CollOp::kScatterv, t, info(t, 0), kScatterv)(t, a); }

Err plain::alltoallv(const Team& t, const VArgs& a) { return choose(CollOp::kAlltoallv, t, info(t, 0), kAlltoallv)(t, a); }

Err plain::allgatherv(const Team& t, const VArgs& a) {
  uint64_t total = 0;
  for (int i = 0; i < t.size(); ++i) total += static_cast<uint64_t>(a.rcounts[t.rank_of(i)]);
  return choose(CollOp::kAllgatherv, t, info(t, total * (*a.rtype)->size()), kAllgatherv)(t, a);
}

Err plain::reduce_scatter(const Team& t, const ReduceScatterArgs& a) {
  uint64_t total = 0;
  for (int r = 0; r < t.comm().size(); ++r) total += static_cast<uint64_t>(a.rcounts[r]);
  return choose(CollOp::kReduceScatter, t, info(t, total * (*a.type)->size(), a.op->commutative),
                kReduceScatter)(t, a);
}

}  // namespace ftmpi::coll

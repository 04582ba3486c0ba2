// The public collective entry points: plain runs, or atomic runs through
// temporary receive buffers and the agreement (atomic.hpp).
//
// A receive region is the byte span between the lowest and the highest
// data byte the call may write (span_of; for the v-variants, over every
// displacement). Its temporary copy starts as a copy of the user's bytes
// whenever the algorithm may leave some of them alone (holes of a
// non-contiguous type, segments of blank ranks, gaps between
// displacements), so copying the whole span back on COMMIT writes exactly
// what the plain run would have written and restores everything else.
#include <algorithm>
#include <cstring>
#include <vector>

#include "coll/collectives.hpp"
#include "coll/ft/agreement.hpp"
#include "coll/ft/atomic.hpp"
#include "coll/ft/inject.hpp"
#include "coll/layout.hpp"
#include "coll/xfer.hpp"

namespace ftmpi::coll {
namespace {

class AtomicRun {
 public:
  explicit AtomicRun(const Team& t) : t_(t), area_(t.state()) {}

  // The origin the algorithm uses instead of `user` for a region of
  // `s.bytes` bytes starting at user + s.lo.
  void* redirect(void* user, Span s, bool copy_in) {
    if (s.bytes == 0) return user;
    uint8_t* lo = static_cast<uint8_t*>(user) + s.lo;
    uint8_t* tmp = area_.bytes(s.bytes);
    if (copy_in) std::memcpy(tmp, lo, s.bytes);
    regions_.push_back({lo, tmp, s.bytes});
    return tmp - s.lo;
  }

  Err finish(Err local) {
    const Err d = ft::agree(t_, local);
    if (!ok(d)) return d;
    for (const Region& r : regions_) std::memcpy(r.user_lo, r.temp_lo, r.bytes);
    return Err::kOk;
  }

 private:
  struct Region {
    uint8_t* user_lo;
    uint8_t* temp_lo;
    size_t bytes;
  };
  const Team& t_;
  TempArea area_;
  std::vector<Region> regions_;
};

// Every data byte of the span is written: no copy-in needed.
bool dense(const dtype::TypeRef* t) { return (*t)->contiguous(); }

// Blocks of every communicator rank, rank r at r * count items: dense only
// when the team covers the whole communicator.
bool dense_blocks(const Team& t, const dtype::TypeRef* type) {
  return dense(type) && t.size() == t.comm().size();
}

// The span of blocks (counts[r] items at displs[r] items) over every rank.
Span v_span(const Team& t, const int* counts, const int* displs, const dtype::TypeRef* type) {
  const dtype::Type& ty = **type;
  int64_t lo = 0, hi = 0;
  bool any = false;
  for (int r = 0; r < t.comm().size(); ++r) {
    if (counts[r] <= 0) continue;
    const Span s = span_of(ty, static_cast<size_t>(counts[r]));
    const int64_t l = static_cast<int64_t>(displs[r]) * ty.extent() + s.lo;
    const int64_t h = l + static_cast<int64_t>(s.bytes);
    lo = any ? std::min(lo, l) : l;
    hi = any ? std::max(hi, h) : h;
    any = true;
  }
  return any ? Span{lo, static_cast<size_t>(hi - lo)} : Span{};
}

Span items(const dtype::TypeRef* t, size_t count) { return span_of(**t, count); }

}  // namespace

void refused(const Team& t) {
  if (!t.atomic()) return;
  t.begin_call();
  ft::maybe_die(ft::Phase::kStart, t);
  (void)ft::agree(t, Err::kOther);
}

Err barrier(const Team& t) {
  if (!t.atomic()) return plain::barrier(t);
  AtomicRun ar(t);
  return ar.finish(plain::barrier(t));
}

Err bcast(const Team& t, const BcastArgs& a) {
  if (!t.atomic()) return plain::bcast(t, a);
  AtomicRun ar(t);
  BcastArgs b = a;
  if (t.me() != a.root) b.buf = ar.redirect(a.buf, items(a.type, a.count), !dense(a.type));
  return ar.finish(plain::bcast(t, b));
}

Err reduce(const Team& t, const ReduceArgs& a) {
  if (!t.atomic()) return plain::reduce(t, a);
  AtomicRun ar(t);
  ReduceArgs b = a;
  if (t.me() == a.root) b.rbuf = ar.redirect(a.rbuf, items(a.type, a.count), !dense(a.type));
  return ar.finish(plain::reduce(t, b));
}

Err allreduce(const Team& t, const ReduceArgs& a) {
  if (!t.atomic()) return plain::allreduce(t, a);
  AtomicRun ar(t);
  ReduceArgs b = a;
  b.rbuf = ar.redirect(a.rbuf, items(a.type, a.count), !dense(a.type));
  return ar.finish(plain::allreduce(t, b));
}

Err scan(const Team& t, const ReduceArgs& a) {
  if (!t.atomic()) return plain::scan(t, a);
  AtomicRun ar(t);
  ReduceArgs b = a;
  b.rbuf = ar.redirect(a.rbuf, items(a.type, a.count), !dense(a.type));
  return ar.finish(plain::scan(t, b));
}

Err gather(const Team& t, const BlockArgs& a) {
  if (!t.atomic()) return plain::gather(t, a);
  AtomicRun ar(t);
  BlockArgs b = a;
  if (t.me() == a.root)
    b.rbuf = ar.redirect(a.rbuf, items(a.rtype, a.rcount * static_cast<size_t>(t.comm().size())),
                         !dense_blocks(t, a.rtype));
  return ar.finish(plain::gather(t, b));
}

Err scatter(const Team& t, const BlockArgs& a) {
  if (!t.atomic()) return plain::scatter(t, a);
  AtomicRun ar(t);
  BlockArgs b = a;
  b.rbuf = ar.redirect(a.rbuf, items(a.rtype, a.rcount), !dense(a.rtype));
  return ar.finish(plain::scatter(t, b));
}

Err allgather(const Team& t, const BlockArgs& a) {
  if (!t.atomic()) return plain::allgather(t, a);
  AtomicRun ar(t);
  BlockArgs b = a;
  b.rbuf = ar.redirect(a.rbuf, items(a.rtype, a.rcount * static_cast<size_t>(t.comm().size())),
                       !dense_blocks(t, a.rtype));
  return ar.finish(plain::allgather(t, b));
}

Err alltoall(const Team& t, const BlockArgs& a) {
  if (!t.atomic()) return plain::alltoall(t, a);
  AtomicRun ar(t);
  BlockArgs b = a;
  b.rbuf = ar.redirect(a.rbuf, items(a.rtype, a.rcount * static_cast<size_t>(t.comm().size())),
                       !dense_blocks(t, a.rtype));
  return ar.finish(plain::alltoall(t, b));
}

Err gatherv(const Team& t, const VArgs& a) {
  if (!t.atomic()) return plain::gatherv(t, a);
  AtomicRun ar(t);
  VArgs b = a;
  if (t.me() == a.root) b.rbuf = ar.redirect(a.rbuf, v_span(t, a.rcounts, a.rdispls, a.rtype), true);
  return ar.finish(plain::gatherv(t, b));
}

Err scatterv(const Team& t, const VArgs& a) {
  if (!t.atomic()) return plain::scatterv(t, a);
  AtomicRun ar(t);
  VArgs b = a;
  b.rbuf = ar.redirect(a.rbuf, items(a.rtype, a.rcount), !dense(a.rtype));
  return ar.finish(plain::scatterv(t, b));
}

Err allgatherv(const Team& t, const VArgs& a) {
  if (!t.atomic()) return plain::allgatherv(t, a);
  AtomicRun ar(t);
  VArgs b = a;
  b.rbuf = ar.redirect(a.rbuf, v_span(t, a.rcounts, a.rdispls, a.rtype), true);
  return ar.finish(plain::allgatherv(t, b));
}

Err alltoallv(const Team& t, const VArgs& a) {
  if (!t.atomic()) return plain::alltoallv(t, a);
  AtomicRun ar(t);
  VArgs b = a;
  b.rbuf = ar.redirect(a.rbuf, v_span(t, a.rcounts, a.rdispls, a.rtype), true);
  return ar.finish(plain::alltoallv(t, b));
}

Err reduce_scatter(const Team& t, const ReduceScatterArgs& a) {
  if (!t.atomic()) return plain::reduce_scatter(t, a);
  AtomicRun ar(t);
  ReduceScatterArgs b = a;
  b.rbuf = ar.redirect(a.rbuf, items(a.type, static_cast<size_t>(a.rcounts[t.comm().rank()])), !dense(a.type));
  return ar.finish(plain::reduce_scatter(t, b));
}

}  // namespace ftmpi::coll

// Schedules of the data-movement collectives: barrier, bcast, gather(v),
// scatter(v), allgather(v), alltoall(v/w). See builders.hpp for the costs.
#include "coll/layout.hpp"
#include "coll/nbc/builders.hpp"

namespace ftmpi::coll::nbc {
namespace {

uint8_t* at(void* buf, int64_t bytes) { return static_cast<uint8_t*>(buf) + bytes; }
void* at(const void* buf, int64_t bytes) { return const_cast<uint8_t*>(static_cast<const uint8_t*>(buf)) + bytes; }

// Block `rank` of `count` items per block of type t.
void* block(const void* buf, const dtype::TypeRef& t, size_t count, int rank) {
  return at(buf, static_cast<int64_t>(rank) * static_cast<int64_t>(count) * t->extent());
}

// Block at displacement `displ` items.
void* displaced(const void* buf, const dtype::TypeRef& t, int displ) {
  return at(buf, static_cast<int64_t>(displ) * t->extent());
}

void local_copy(Round& r, const void* src, size_t scount, const dtype::TypeRef& st, void* dst, size_t dcount,
                const dtype::TypeRef& dt) {
  r.local.push_back([=] { copy_typed(src, scount, *st, dst, dcount, *dt); });
}

}  // namespace

void barrier(Schedule& s) {
  const int n = s.size(), me = s.me();
  const dtype::TypeRef byte = dtype::builtin_ref(dtype::Builtin::kByte);
  for (int k = 1; k < n; k <<= 1) {
    Round& r = s.round();
    r.transfers.push_back({false, (me + k) % n, nullptr, 0, byte});
    r.transfers.push_back({true, (me - k + n) % n, nullptr, 0, byte});
  }
}

void bcast(Schedule& s, const BcastArgs& a) {
  const int n = s.size();
  const int vr = mod(s.me() - a.root, n);
  const dtype::TypeRef& t = *a.type;
  if (vr != 0) s.round().transfers.push_back({true, (vr - lowest_bit(vr) + a.root) % n, a.buf, a.count, t});
  Round& out = s.round();
  const int limit = vr == 0 ? n : lowest_bit(vr);
  for (int k = 1; k < limit && vr + k < n; k <<= 1) out.transfers.push_back({false, (vr + k + a.root) % n, a.buf, a.count, t});
}

void gather(Schedule& s, const BlockArgs& a) {
  Round& r = s.round();
  if (s.me() != a.root) {
    r.transfers.push_back({false, a.root, const_cast<void*>(a.sbuf), a.scount, *a.stype});
    return;
  }
  for (int i = 0; i < s.size(); ++i) {
    void* dst = block(a.rbuf, *a.rtype, a.rcount, s.team().rank_of(i));
    if (i == s.me()) local_copy(r, a.sbuf, a.scount, *a.stype, dst, a.rcount, *a.rtype);
    else r.transfers.push_back({true, i, dst, a.rcount, *a.rtype});
  }
}

void gatherv(Schedule& s, const VArgs& a) {
  Round& r = s.round();
  if (s.me() != a.root) {
    r.transfers.push_back({false, a.root, const_cast<void*>(a.sbuf), a.scount, *a.stype});
    return;
  }
  for (int i = 0; i < s.size(); ++i) {
    const int rank = s.team().rank_of(i);
    void* dst = displaced(a.rbuf, *a.rtype, a.rdispls[rank]);
    const size_t cnt = static_cast<size_t>(a.rcounts[rank]);
    if (i == s.me()) local_copy(r, a.sbuf, a.scount, *a.stype, dst, cnt, *a.rtype);
    else r.transfers.push_back({true, i, dst, cnt, *a.rtype});
  }
}

void scatter(Schedule& s, const BlockArgs& a) {
  Round& r = s.round();
  if (s.me() != a.root) {
    r.transfers.push_back({true, a.root, a.rbuf, a.rcount, *a.rtype});
    return;
  }
  for (int i = 0; i < s.size(); ++i) {
    void* src = block(a.sbuf, *a.stype, a.scount, s.team().rank_of(i));
    if (i == s.me()) local_copy(r, src, a.scount, *a.stype, a.rbuf, a.rcount, *a.rtype);
    else r.transfers.push_back({false, i, src, a.scount, *a.stype});
  }
}

void scatterv(Schedule& s, const VArgs& a) {
  Round& r = s.round();
  if (s.me() != a.root) {
    r.transfers.push_back({true, a.root, a.rbuf, a.rcount, *a.rtype});
    return;
  }
  for (int i = 0; i < s.size(); ++i) {
    const int rank = s.team().rank_of(i);
    void* src = displaced(a.sbuf, *a.stype, a.sdispls[rank]);
    const size_t cnt = static_cast<size_t>(a.scounts[rank]);
    if (i == s.me()) local_copy(r, src, cnt, *a.stype, a.rbuf, a.rcount, *a.rtype);
    else r.transfers.push_back({false, i, src, cnt, *a.stype});
  }
}

void allgather(Schedule& s, const BlockArgs& a) {
  Round& r = s.round();
  for (int i = 0; i < s.size(); ++i) {
    void* dst = block(a.rbuf, *a.rtype, a.rcount, s.team().rank_of(i));
    if (i == s.me()) {
      local_copy(r, a.sbuf, a.scount, *a.stype, dst, a.rcount, *a.rtype);
      continue;
    }
    r.transfers.push_back({false, i, const_cast<void*>(a.sbuf), a.scount, *a.stype});
    r.transfers.push_back({true, i, dst, a.rcount, *a.rtype});
  }
}

void allgatherv(Schedule& s, const VArgs& a) {
  Round& r = s.round();
  for (int i = 0; i < s.size(); ++i) {
    const int rank = s.team().rank_of(i);
    void* dst = displaced(a.rbuf, *a.rtype, a.rdispls[rank]);
    const size_t cnt = static_cast<size_t>(a.rcounts[rank]);
    if (i == s.me()) {
      local_copy(r, a.sbuf, a.scount, *a.stype, dst, cnt, *a.rtype);
      continue;
    }
    r.transfers.push_back({false, i, const_cast<void*>(a.sbuf), a.scount, *a.stype});
    r.transfers.push_back({true, i, dst, cnt, *a.rtype});
  }
}

void alltoall(Schedule& s, const BlockArgs& a) {
  Round& r = s.round();
  for (int i = 0; i < s.size(); ++i) {
    const int rank = s.team().rank_of(i);
    void* src = block(a.sbuf, *a.stype, a.scount, rank);
    void* dst = block(a.rbuf, *a.rtype, a.rcount, rank);
    if (i == s.me()) {
      local_copy(r, src, a.scount, *a.stype, dst, a.rcount, *a.rtype);
      continue;
    }
    r.transfers.push_back({false, i, src, a.scount, *a.stype});
    r.transfers.push_back({true, i, dst, a.rcount, *a.rtype});
  }
}

void alltoallv(Schedule& s, const VArgs& a) {
  Round& r = s.round();
  for (int i = 0; i < s.size(); ++i) {
    const int rank = s.team().rank_of(i);
    void* src = displaced(a.sbuf, *a.stype, a.sdispls[rank]);
    void* dst = displaced(a.rbuf, *a.rtype, a.rdispls[rank]);
    const size_t sc = static_cast<size_t>(a.scounts[rank]), rc = static_cast<size_t>(a.rcounts[rank]);
    if (i == s.me()) {
      local_copy(r, src, sc, *a.stype, dst, rc, *a.rtype);
      continue;
    }
    r.transfers.push_back({false, i, src, sc, *a.stype});
    r.transfers.push_back({true, i, dst, rc, *a.rtype});
  }
}

void alltoallw(Schedule& s, const WArgs& a) {
  Round& r = s.round();
  for (int i = 0; i < s.size(); ++i) {
    const int rank = s.team().rank_of(i);
    const size_t ri = static_cast<size_t>(rank);
    void* src = at(a.sbuf, a.sdispls[rank]);
    void* dst = at(a.rbuf, a.rdispls[rank]);
    const size_t sc = static_cast<size_t>(a.scounts[rank]), rc = static_cast<size_t>(a.rcounts[rank]);
    if (i == s.me()) {
      local_copy(r, src, sc, a.stypes[ri], dst, rc, a.rtypes[ri]);
      continue;
    }
    r.transfers.push_back({false, i, src, sc, a.stypes[ri]});
    r.transfers.push_back({true, i, dst, rc, a.rtypes[ri]});
  }
}

}  // namespace ftmpi::coll::nbc

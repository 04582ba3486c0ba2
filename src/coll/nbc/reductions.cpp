// Schedules of the reductions: reduce, allreduce, reduce_scatter, scan,
// exscan. Partial results combine as `hi := lo op hi` with `lo` from lower
// team indices (reduce_op.hpp), so non-commutative ops keep rank order.
#include <numeric>

#include "coll/layout.hpp"
#include "coll/nbc/builders.hpp"

namespace ftmpi::coll::nbc {
namespace {

// The binomial reduction towards team index 0 over `count` items at `sbuf`;
// returns where index 0 finds the result once the schedule's rounds so far
// have run (on other members: what they sent up).
const void* tree_reduce(Schedule& s, const void* sbuf, size_t count, const dtype::TypeRef& t, const ReduceOp* op) {
  const int n = s.size(), me = s.me();
  const int limit = me == 0 ? n : lowest_bit(me);
  std::vector<void*> parts;
  for (int k = 1; k < limit && me + k < n; k <<= 1) parts.push_back(s.temp_items(*t, count));
  const void* acc = sbuf;
  if (!parts.empty()) {
    Round& r = s.round();
    int k = 1;
    for (void* p : parts) {
      r.transfers.push_back({true, me + k, p, count, t});
      k <<= 1;
    }
    // parts[j] covers indices above those acc covers: parts[j] := acc op parts[j].
    r.local.push_back([=] {
      const void* lo = sbuf;
      for (void* p : parts) {
        op->apply(lo, p, count, *t);
        lo = p;
      }
    });
    acc = parts.back();
  }
  if (me != 0) s.round().transfers.push_back({false, me - lowest_bit(me), const_cast<void*>(acc), count, t});
  return acc;
}

void local_copy(Schedule& s, const void* src, void* dst, size_t count, const dtype::TypeRef& t) {
  Round& r = s.round();
  r.local.push_back([=] { copy_items(src, dst, count, *t); });
}

}  // namespace

void reduce(Schedule& s, const ReduceArgs& a) {
  const dtype::TypeRef& t = *a.type;
  const void* acc = tree_reduce(s, a.sbuf, a.count, t, a.op);
  if (a.root == 0) {
    if (s.me() == 0) local_copy(s, acc, a.rbuf, a.count, t);
    return;
  }
  if (s.me() == 0) s.round().transfers.push_back({false, a.root, const_cast<void*>(acc), a.count, t});
  else if (s.me() == a.root) s.round().transfers.push_back({true, 0, a.rbuf, a.count, t});
}

void allreduce(Schedule& s, const ReduceArgs& a) {
  const dtype::TypeRef& t = *a.type;
  const void* acc = tree_reduce(s, a.sbuf, a.count, t, a.op);
  if (s.me() == 0) local_copy(s, acc, a.rbuf, a.count, t);
  bcast(s, {a.rbuf, a.count, a.type, 0});
}

void reduce_scatter(Schedule& s, const ReduceScatterArgs& a) {
  const dtype::TypeRef& t = *a.type;
  const comm::Communicator& c = s.team().comm();
  // Block offsets by communicator rank over the whole vector.
  std::vector<size_t> off(static_cast<size_t>(c.size()) + 1, 0);
  for (int r = 0; r < c.size(); ++r) off[static_cast<size_t>(r) + 1] = off[static_cast<size_t>(r)] + static_cast<size_t>(a.rcounts[r]);
  const size_t total = off.back();
  const void* acc = tree_reduce(s, a.sbuf, total, t, a.op);
  const int me_rank = s.team().rank_of(s.me());
  const size_t mine = static_cast<size_t>(a.rcounts[me_rank]);
  if (s.me() != 0) {
    s.round().transfers.push_back({true, 0, a.rbuf, mine, t});
    return;
  }
  Round& r = s.round();
  for (int i = 0; i < s.size(); ++i) {
    const int rank = s.team().rank_of(i);
    const size_t cnt = static_cast<size_t>(a.rcounts[rank]);
    void* src = const_cast<void*>(item(acc, *t, off[static_cast<size_t>(rank)]));
    if (i == 0) r.local.push_back([=] { copy_items(src, a.rbuf, cnt, *t); });
    else r.transfers.push_back({false, i, src, cnt, t});
  }
}

void scan(Schedule& s, const ReduceArgs& a) {
  const dtype::TypeRef t = *a.type;
  const int me = s.me(), n = s.size();
  const void* sbuf = a.sbuf;
  void* rbuf = a.rbuf;
  const size_t count = a.count;
  const ReduceOp* op = a.op;
  if (me == 0) {
    local_copy(s, sbuf, rbuf, count, t);
  } else {
    void* partial = s.temp_items(*t, count);
    Round& r = s.round();
    r.transfers.push_back({true, me - 1, partial, count, t});
    r.local.push_back([=] {
      copy_items(sbuf, rbuf, count, *t);
      op->apply(partial, rbuf, count, *t);
    });
  }
  if (me + 1 < n) s.round().transfers.push_back({false, me + 1, rbuf, count, t});
}

void exscan(Schedule& s, const ReduceArgs& a) {
  const dtype::TypeRef t = *a.type;
  const int me = s.me(), n = s.size();
  const void* sbuf = a.sbuf;
  void* rbuf = a.rbuf;
  const size_t count = a.count;
  const ReduceOp* op = a.op;
  if (me == 0) {
    // Its receive buffer is undefined (MPI-3.1 §5.11.2): left untouched.
    if (n > 1) s.round().transfers.push_back({false, 1, const_cast<void*>(sbuf), count, t});
    return;
  }
  Round& r = s.round();
  r.transfers.push_back({true, me - 1, rbuf, count, t});
  if (me + 1 == n) return;
  void* up = s.temp_items(*t, count);
  r.local.push_back([=] {
    copy_items(sbuf, up, count, *t);
    op->apply(rbuf, up, count, *t);
  });
  s.round().transfers.push_back({false, me + 1, up, count, t});
}

}  // namespace ftmpi::coll::nbc

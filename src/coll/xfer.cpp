#include "coll/xfer.hpp"

#include <unistd.h>

#include <algorithm>

#include "base/log.hpp"
#include "base/params.hpp"
#include "coll/ft/inject.hpp"
#include "coll/wait.hpp"

namespace ftmpi::coll {
namespace {

const dtype::TypeRef& byte_type() {
  static const dtype::TypeRef t = dtype::builtin_ref(dtype::Builtin::kByte);
  return t;
}

// Temporary buffers of abandoned runs, kept until the engine has released
// every request that may still read or write them. Per process, like the
// engine; swept whenever a new run starts.
struct Orphans {
  std::vector<uint64_t> request_ids;
  std::vector<Xfer::Block> buffers;
};
std::vector<Orphans>& graveyard() {
  static std::vector<Orphans> g;
  return g;
}

// Ids of requests abandoned while a TempArea is open: the area's memory
// may be what they still write into.
struct AbandonLog {
  std::vector<uint64_t> ids;
  int open_areas = 0;
};
AbandonLog& abandon_log() {
  static AbandonLog l;
  return l;
}

bool request_live(p2p::Engine& eng, uint64_t id) {
  p2p::Request* r = eng.request_at(static_cast<uint32_t>(id & 0xffffffffu));
  return r && r->id == id;
}

void sweep(p2p::Engine& eng) {
  auto& g = graveyard();
  std::erase_if(g, [&](const Orphans& o) {
    return std::none_of(o.request_ids.begin(), o.request_ids.end(), [&](uint64_t id) { return request_live(eng, id); });
  });
}

// Request lists of the runs in progress (runs nest: an algorithm may run
// others), kept with their capacity so a run allocates nothing for them.
struct ListCache {
  std::vector<std::unique_ptr<std::vector<Xfer::Posted>>> lists;
  size_t in_use = 0;
};
ListCache& list_cache() {
  static ListCache c;
  return c;
}
std::vector<Xfer::Posted>& borrow_list() {
  ListCache& c = list_cache();
  if (c.in_use == c.lists.size()) c.lists.push_back(std::make_unique<std::vector<Xfer::Posted>>());
  return *c.lists[c.in_use++];
}

// Free scratch blocks, oldest first; at most kPoolBytes in all.
constexpr size_t kPoolBytes = size_t{64} << 20;
struct Pool {
  std::vector<Xfer::Block> free;
  size_t bytes = 0;
};
Pool& pool() {
  static Pool p;
  return p;
}

Xfer::Block take_block(size_t n) {
  Pool& p = pool();
  size_t best = p.free.size();
  for (size_t i = 0; i < p.free.size(); ++i)
    if (p.free[i].size >= n && (best == p.free.size() || p.free[i].size < p.free[best].size)) best = i;
  if (best < p.free.size()) {
    Xfer::Block b = std::move(p.free[best]);
    p.free.erase(p.free.begin() + static_cast<std::ptrdiff_t>(best));
    p.bytes -= b.size;
    return b;
  }
  // Powers of two (from 4 KiB) so that blocks fit later requests of similar size.
  size_t size = 4096;
  while (size < n) size *= 2;
  return {size, std::make_unique_for_overwrite<uint8_t[]>(size)};
}

void give_back(std::vector<Xfer::Block>& blocks) {
  Pool& p = pool();
  for (Xfer::Block& b : blocks) {
    if (b.size > kPoolBytes) continue;
    p.bytes += b.size;
    p.free.push_back(std::move(b));
  }
  blocks.clear();
  while (p.bytes > kPoolBytes) {
    p.bytes -= p.free.front().size;
    p.free.erase(p.free.begin());
  }
}

}  // namespace

const WaitBudget& wait_budget(const p2p::Engine& eng) {
  static const WaitBudget budget = [&] {
    const bool crowded = eng.local_ranks() > sysconf(_SC_NPROCESSORS_ONLN);
    return WaitBudget{static_cast<uint64_t>(params::get_int("FTMPI_COLL_SPIN_US", crowded ? 0 : 1)) * 1000u,
                      static_cast<uint64_t>(params::get_int("FTMPI_COLL_YIELD_US", 300)) * 1000u};
  }();
  return budget;
}

Xfer::Xfer(const Team& team, AlgoId algo)
    : team_(team),
      eng_(team.engine()),
      ctx_(team.comm().coll_ctx()),
      algo_(algo),
      posted_(borrow_list()) {
  if (!graveyard().empty()) sweep(eng_);
}

Xfer::~Xfer() {
  if (!posted_.empty()) abandon();
  give_back(scratch_);
  --list_cache().in_use;  // runs end in the reverse order of their start
}

void Xfer::send(int peer, const void* buf, size_t count, const dtype::TypeRef& type, int step) {
  const int tag = make_tag(team_.call_seq(), algo_, step);
  p2p::Request* r = eng_.isend(buf, count, type, team_.comm(), ctx_, team_.rank_of(peer), tag,
                               p2p::SendMode::kStandard, through_rings_);
  r->blocking = true;  // a failure notice withdraws it (spec/ft-semantics.md §4.1)
  posted_.push_back({r, 0, false});
}

void Xfer::recv(int peer, void* buf, size_t count, const dtype::TypeRef& type, int step) {
  const int tag = make_tag(team_.call_seq(), algo_, step);
  uint64_t expect = static_cast<uint64_t>(count) * static_cast<uint64_t>(type->size());
  p2p::Request* r = eng_.irecv(buf, count, type, team_.comm(), ctx_, team_.rank_of(peer), tag);
  r->blocking = true;
  posted_.push_back({r, expect, true});
}

void Xfer::prefer_rings(size_t bytes) {
  through_rings_ = bytes >= (512u << 10) && eng_.shm_ring_bytes() >= (256u << 10);
}

void Xfer::send_bytes(int peer, const void* buf, size_t n, int step) { send(peer, buf, n, byte_type(), step); }

void Xfer::recv_bytes(int peer, void* buf, size_t n, int step) { recv(peer, buf, n, byte_type(), step); }

Err Xfer::wait() {
  if (posted_.empty()) return Err::kOk;
  if (!waited_) {
    waited_ = true;
    ft::maybe_die(ft::Phase::kData, team_);  // fault injection: dies with its first batch posted
  }
  Err hard = Err::kOk;
  auto done = [&] {
    bool all = true;
    for (const Posted& p : posted_) {
      if (!p.req->complete) {
        all = false;
      } else if (!ok(p.req->st_err) && p.req->st_err != Err::kTruncate) {
        hard = p.req->st_err;
        return true;
      }
    }
    if (!all && team_.gave_up()) {
      hard = Err::kOther;
      return true;
    }
    return all;
  };
  wait_for(eng_, done);
  if (!ok(hard)) {
    FTMPI_LOG(kDebug, "coll", "call %u stops: %s (interrupted %d, member dead %d)", team_.call_seq(), err_name(hard),
              eng_.interrupted(), team_.member_dead());
    abandon();
    return hard;
  }
  for (const Posted& p : posted_) {
    if (p.is_recv && (p.req->st_err == Err::kTruncate || p.req->st_bytes != p.expect)) soft_ = Err::kTruncate;
    eng_.release_request(p.req);
  }
  posted_.clear();
  return Err::kOk;
}

void Xfer::abandon() {
  Orphans o;
  AbandonLog& log = abandon_log();
  for (const Posted& p : posted_) {
    p2p::Request* r = p.req;
    FTMPI_LOG(kDebug, "coll", "abandoning %s rank %d tag %#x: %s, protocol state %d",
              p.is_recv ? "receive from" : "send to", r->peer_rank, r->tag,
              r->complete ? "complete" : "pending", static_cast<int>(r->proto));
    if (!r->complete && p.is_recv && eng_.cancel_recv(r) && ok(r->st_err) && r->peer_rank >= 0) {
      p2p::Request* drain = eng_.irecv(nullptr, 0, byte_type(), team_.comm(), ctx_, r->peer_rank, r->tag);
      if (!drain->complete) drain->user_freed = true;
      else eng_.release_request(drain);
    }
    // Sends the receiver has not matched are withdrawn, and MPI_Finalize
    // does not wait for any of them (the receiver may have stopped too).
    const uint64_t id = r->id;
    const bool done = r->complete;
    eng_.abandon(r);  // releases it now or when it completes
    if (!done && request_live(eng_, id)) {
      o.request_ids.push_back(id);
      if (log.open_areas > 0) log.ids.push_back(id);
    }
  }
  posted_.clear();
  if (!o.request_ids.empty() && !scratch_.empty()) {
    o.buffers = std::move(scratch_);
    scratch_.clear();
    graveyard().push_back(std::move(o));
  }
}

TempArea::TempArea(p2p::Engine& eng) : eng_(eng), mark_(abandon_log().ids.size()) { ++abandon_log().open_areas; }

TempArea::~TempArea() {
  AbandonLog& log = abandon_log();
  Orphans o;
  for (size_t i = mark_; i < log.ids.size(); ++i)
    if (request_live(eng_, log.ids[i])) o.request_ids.push_back(log.ids[i]);
  if (--log.open_areas == 0) log.ids.clear();
  if (o.request_ids.empty()) {
    give_back(blocks_);
  } else {
    o.buffers = std::move(blocks_);
    graveyard().push_back(std::move(o));
  }
}

uint8_t* TempArea::bytes(size_t n) {
  blocks_.push_back(take_block(n));
  return blocks_.back().mem.get();
}

uint8_t* Xfer::scratch(size_t bytes) {
  scratch_.push_back(take_block(bytes));
  return scratch_.back().mem.get();
}

}  // namespace ftmpi::coll

#include "coll/xfer.hpp"

#include <unistd.h>

#include <algorithm>

#include "base/log.hpp"
#include "base/params.hpp"
#include "coll/ft/inject.hpp"
#include "coll/state.hpp"
#include "coll/wait.hpp"

namespace ftmpi::coll {
namespace {

const dtype::TypeRef& byte_type() {
  static const dtype::TypeRef t = dtype::builtin_ref(dtype::Builtin::kByte);
  return t;
}

bool request_live(p2p::Engine& eng, uint64_t id) {
  p2p::Request* r = eng.request_at(static_cast<uint32_t>(id & 0xffffffffu));
  return r && r->id == id;
}

void sweep(p2p::Engine& eng, XferState& m) {
  std::erase_if(m.graveyard, [&](const XferState::Orphans& o) {
    return std::none_of(o.request_ids.begin(), o.request_ids.end(), [&](uint64_t id) { return request_live(eng, id); });
  });
}

std::vector<Xfer::Posted>& borrow_list(XferState& m) {
  if (m.lists_in_use == m.lists.size()) m.lists.push_back(std::make_unique<std::vector<Xfer::Posted>>());
  return *m.lists[m.lists_in_use++];
}

Xfer::Block take_block(XferState& m, size_t n) {
  size_t best = m.pool.size();
  for (size_t i = 0; i < m.pool.size(); ++i)
    if (m.pool[i].size >= n && (best == m.pool.size() || m.pool[i].size < m.pool[best].size)) best = i;
  if (best < m.pool.size()) {
    Xfer::Block b = std::move(m.pool[best]);
    m.pool.erase(m.pool.begin() + static_cast<std::ptrdiff_t>(best));
    m.pool_bytes -= b.size;
    return b;
  }
  // Powers of two (from 4 KiB) so that blocks fit later requests of similar size.
  size_t size = 4096;
  while (size < n) size *= 2;
  return {size, std::make_unique_for_overwrite<uint8_t[]>(size)};
}

void give_back(XferState& m, std::vector<Xfer::Block>& blocks) {
  for (Xfer::Block& b : blocks) {
    if (b.size > XferState::kPoolBytes) continue;
    m.pool_bytes += b.size;
    m.pool.push_back(std::move(b));
  }
  blocks.clear();
  while (m.pool_bytes > XferState::kPoolBytes) {
    m.pool_bytes -= m.pool.front().size;
    m.pool.erase(m.pool.begin());
  }
}

}  // namespace

WaitBudget make_wait_budget(const p2p::Engine& eng) {
  const bool crowded = eng.local_ranks() > sysconf(_SC_NPROCESSORS_ONLN);
  return WaitBudget{static_cast<uint64_t>(params::get_int("FTMPI_COLL_SPIN_US", crowded ? 0 : 1)) * 1000u,
                    static_cast<uint64_t>(params::get_int("FTMPI_COLL_YIELD_US", 300)) * 1000u};
}

Xfer::Xfer(const Team& team, AlgoId algo)
    : team_(team),
      eng_(team.engine()),
      mem_(team.state().xfer()),
      ctx_(team.comm().coll_ctx()),
      algo_(algo),
      posted_(borrow_list(mem_)) {
  if (!mem_.graveyard.empty()) sweep(eng_, mem_);
}

Xfer::~Xfer() {
  if (!posted_.empty()) abandon();
  give_back(mem_, scratch_);
  --mem_.lists_in_use;  // runs end in the reverse order of their start
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
  wait_for(eng_, team_.state().wait_budget(), done);
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
  XferState::Orphans o;
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
      if (mem_.open_areas > 0) mem_.abandoned_ids.push_back(id);
    }
  }
  posted_.clear();
  if (!o.request_ids.empty() && !scratch_.empty()) {
    o.buffers = std::move(scratch_);
    scratch_.clear();
    mem_.graveyard.push_back(std::move(o));
  }
}

TempArea::TempArea(State& st) : eng_(st.engine()), mem_(st.xfer()), mark_(mem_.abandoned_ids.size()) {
  ++mem_.open_areas;
}

TempArea::~TempArea() {
  XferState::Orphans o;
  for (size_t i = mark_; i < mem_.abandoned_ids.size(); ++i)
    if (request_live(eng_, mem_.abandoned_ids[i])) o.request_ids.push_back(mem_.abandoned_ids[i]);
  if (--mem_.open_areas == 0) mem_.abandoned_ids.clear();
  if (o.request_ids.empty()) {
    give_back(mem_, blocks_);
  } else {
    o.buffers = std::move(blocks_);
    mem_.graveyard.push_back(std::move(o));
  }
}

uint8_t* TempArea::bytes(size_t n) {
  blocks_.push_back(take_block(mem_, n));
  return blocks_.back().mem.get();
}

uint8_t* Xfer::scratch(size_t bytes) {
  scratch_.push_back(take_block(mem_, bytes));
  return scratch_.back().mem.get();
}

}  // namespace ftmpi::coll

#include "coll/nbc/schedule.hpp"

#include <algorithm>

#include "base/log.hpp"
#include "coll/layout.hpp"
#include "coll/tags.hpp"

namespace ftmpi::coll::nbc {

Schedule::Schedule(const Team& team, p2p::Request* user) : team_(team), user_(user) {
  team_.begin_call();
  seq_ = team_.call_seq();
}

Schedule::~Schedule() = default;

Round& Schedule::round() { return rounds_.emplace_back(); }

uint8_t* Schedule::scratch(size_t bytes) {
  scratch_.push_back(std::make_unique<uint8_t[]>(std::max<size_t>(bytes, 1)));
  return scratch_.back().get();
}

void* Schedule::temp_items(const dtype::Type& t, size_t count) {
  Span s = span_of(t, count);
  return scratch(s.bytes) - s.lo;
}

bool Schedule::start_round() {
  p2p::Engine& eng = team_.engine();
  const std::vector<Transfer>& ts = rounds_[cur_].transfers;
  // A later round starts where progress finds its input: with a module on
  // (transparent mode) the engine says whether its sends may take their
  // numbers now. Receives alone change no numbering.
  const bool gated = cur_ > 0 && eng.module() &&
                     std::any_of(ts.begin(), ts.end(), [](const Transfer& t) { return !t.is_recv; });
  if (gated && !eng.round_may_start(number_, static_cast<uint32_t>(cur_))) {
    waiting_start_ = true;
    return false;
  }
  waiting_start_ = false;
  comm::Communicator& c = team_.comm();
  const uint64_t ctx = c.coll_ctx();
  // One tag for the whole call: between two members every schedule has at
  // most one message per direction, so the call sequence alone matches.
  const int tag = make_tag(seq_, AlgoId::kNonblocking, 0);
  for (const Transfer& t : rounds_[cur_].transfers) {
    const int peer = team_.rank_of(t.peer);
    p2p::Request* r = t.is_recv ? eng.irecv(t.buf, t.count, t.type, c, ctx, peer, tag)
                                : eng.isend(t.buf, t.count, t.type, c, ctx, peer, tag);
    inflight_.push_back(r);
  }
  if (gated) eng.round_started();
  return true;
}

bool Schedule::round_done(Err* e) {
  for (p2p::Request* r : inflight_) {
    if (!r->complete) continue;
    // A receive of another size than the schedule expects: the signatures
    // differ across processes (kTruncate, the call still completes).
    if (!ok(r->st_err) && r->st_err != Err::kTruncate) {
      *e = r->st_err == Err::kOther || r->failed_by_death ? Err::kOther : r->st_err;
      return true;
    }
    if (r->st_err == Err::kTruncate && ok(result_)) result_ = Err::kTruncate;
  }
  if (std::all_of(inflight_.begin(), inflight_.end(), [](const p2p::Request* r) { return r->complete; })) return true;
  // Waiting on: give up if a member is dead (a round whose transfers all
  // completed still counts, whoever died since).
  if (team_.member_dead()) {
    *e = Err::kOther;
    return true;
  }
  return false;
}

bool Schedule::poll() {
  if (done_) return true;
  if (!started_) {
    started_ = true;
    if (!rounds_.empty()) start_round();
  }
  if (waiting_start_ && !start_round()) return false;
  while (cur_ < rounds_.size()) {
    Err e = Err::kOk;
    if (!round_done(&e)) return false;
    if (!ok(e)) {
      stop(e);
      return true;
    }
    for (p2p::Request* r : inflight_) team_.engine().release_request(r);
    inflight_.clear();
    for (auto& step : rounds_[cur_].local) step();
    if (++cur_ < rounds_.size() && !start_round()) return false;
  }
  finish(result_);
  return true;
}

void Schedule::stop(Err e) {
  if (done_) return;
  p2p::Engine& eng = team_.engine();
  for (p2p::Request* r : inflight_) {
    FTMPI_LOG(kDebug, "coll", "nonblocking collective stops: abandoning a %s rank %d (%s)",
              r->kind == p2p::ReqKind::kRecv ? "receive from" : "send to", r->peer_rank,
              r->complete ? "complete" : "pending");
    if (r->complete) {
      eng.release_request(r);
      continue;
    }
    abandoned_.push_back(r->id);
    eng.abandon(r);
  }
  inflight_.clear();
  finish(e);
}

bool Schedule::abandoned_live(const p2p::Engine& eng) const {
  return std::any_of(abandoned_.begin(), abandoned_.end(), [&](uint64_t id) {
    const p2p::Request* r = eng.request_at(static_cast<uint32_t>(id & 0xffffffffu));
    return r && r->id == id;
  });
}

void Schedule::finish(Err e) {
  done_ = true;
  result_ = e;
  user_->st_err = e;
  team_.engine().schedule_ended(number_);
  team_.engine().complete(user_);
}

NbcEngine::~NbcEngine() = default;

void NbcEngine::start(std::unique_ptr<Schedule> s) {
  s->set_number(started_);
  eng_.schedule_started(started_++);
  if (s->poll()) park(std::move(s));
  else active_.push_back(std::move(s));
  hook_while_busy();
}

void NbcEngine::hook_while_busy() {
  eng_.set_progress_hook(active_.empty() && stopped_.empty() ? nullptr : this);
}

void NbcEngine::park(std::unique_ptr<Schedule> s) {
  // Requests it abandoned may still write into its scratch memory.
  if (!s->abandoned_live(eng_)) return;
  stopped_.push_back(std::move(s));
}

void NbcEngine::stop(const p2p::Request* user, Err e) {
  for (size_t i = 0; i < active_.size(); ++i) {
    if (active_[i]->user() != user) continue;
    active_[i]->stop(e);
    std::unique_ptr<Schedule> s = std::move(active_[i]);
    active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
    park(std::move(s));
    hook_while_busy();
    return;
  }
}

int NbcEngine::poll() {
  if (polling_ || (active_.empty() && stopped_.empty())) return 0;
  polling_ = true;
  int n = 0;
  for (size_t i = 0; i < active_.size();) {
    if (!active_[i]->poll()) {
      ++i;
      continue;
    }
    ++n;
    std::unique_ptr<Schedule> s = std::move(active_[i]);
    active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
    park(std::move(s));
  }
  std::erase_if(stopped_, [&](const std::unique_ptr<Schedule>& s) { return !s->abandoned_live(eng_); });
  polling_ = false;
  hook_while_busy();
  return n;
}

}  // namespace ftmpi::coll::nbc

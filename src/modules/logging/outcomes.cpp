#include "modules/logging/outcomes.hpp"

#include <algorithm>

namespace ftmpi::logging {

namespace {
size_t at(DetKind k) { return static_cast<size_t>(k); }
}  // namespace

void Outcomes::load(std::vector<Determinant> dets) {
  for (Determinant& d : dets) {
    // Withdrawals are numbered only to tell them apart: new ones come after
    // every logged one.
    if (d.kind == DetKind::kWithdrawn)
      counter_[at(DetKind::kWithdrawn)] = std::max(counter_[at(DetKind::kWithdrawn)], d.index + 1);
    if (keyed(d.kind)) by_index_[at(d.kind)][d.index] = std::move(d);
    else queue_[at(d.kind)].push_back(std::move(d));
    ++remaining_;
  }
}

const Determinant* Outcomes::head(DetKind k) const {
  const auto& q = queue_[at(k)];
  return q.empty() ? nullptr : &q.front();
}

void Outcomes::consume(DetKind k) {
  queue_[at(k)].pop_front();
  --remaining_;
  ++replayed_;
}

void Outcomes::diverge(const std::string& what) {
  if (divergence_.empty()) divergence_ = what;
}

void Outcomes::close_run() {
  if (run_count_ == 0) return;
  Determinant d;
  d.kind = DetKind::kPolls;
  d.index = run_start_;
  d.count = run_count_;
  run_count_ = 0;
  pending_.push_back(std::move(d));
  ++recorded_;
}

void Outcomes::record(Determinant d) {
  close_run();  // failures before this event are logged before it
  pending_.push_back(std::move(d));
  ++recorded_;
}

bool Outcomes::take_batch(std::vector<uint8_t>& out) {
  close_run();
  if (pending_.empty()) return false;
  encode_batch(pending_, out);
  pending_.clear();
  return true;
}

std::optional<Determinant> Outcomes::logged(DetKind k, uint64_t i) const {
  const auto& m = by_index_[at(k)];
  auto it = m.find(i);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

bool Outcomes::replay_or_record_keyed(const Determinant& e) {
  auto& m = by_index_[at(e.kind)];
  auto it = m.find(e.index);
  if (it == m.end()) {
    record(e);
    return true;
  }
  bool same = it->second == e;
  if (!same) diverge(describe(e) + " where the log says " + describe(it->second));
  m.erase(it);
  --remaining_;
  ++replayed_;
  return same;
}

std::optional<Outcomes::Forced> Outcomes::forced_match(uint64_t i) const {
  auto d = logged(DetKind::kMatch, i);
  if (!d) return std::nullopt;
  return Forced{d->slot, d->seq};
}

bool Outcomes::matched(uint64_t i, int32_t slot, uint64_t seq) {
  Determinant e;
  e.kind = DetKind::kMatch;
  e.index = i;
  e.slot = slot;
  e.seq = seq;
  return replay_or_record_keyed(e);
}

std::optional<Outcomes::Forced> Outcomes::forced_probe() const {
  const Determinant* d = head(DetKind::kProbe);
  if (!d) return std::nullopt;
  return Forced{d->slot, d->seq};
}

bool Outcomes::probed(int32_t slot, uint64_t seq) {
  Determinant e;
  e.kind = DetKind::kProbe;
  e.slot = slot;
  e.seq = seq;
  return replay_or_record(e, false);
}

bool Outcomes::replay_or_record(Determinant& e, bool forced) {
  e.index = counter_[at(e.kind)]++;
  const Determinant* d = head(e.kind);
  if (!d) {
    record(e);
    return true;
  }
  // The logged outcome is what the dead incarnation saw: forced ones are
  // taken as they are, checked ones must come out the same.
  bool same = d->index == e.index && (forced || *d == e);
  if (!same) diverge(describe(e) + " where the log says " + describe(*d));
  if (forced) e = *d;
  consume(e.kind);
  return same;
}

PollVerdict Outcomes::poll_verdict() const {
  uint64_t i = counter_[at(DetKind::kPolls)];
  if (const Determinant* d = head(DetKind::kPolls)) {
    if (i >= d->index && i < d->index + d->count) return PollVerdict::kFail;
  }
  return remaining_ > 0 ? PollVerdict::kSucceed : PollVerdict::kLive;
}

void Outcomes::polled(bool success) {
  uint64_t i = counter_[at(DetKind::kPolls)]++;
  if (const Determinant* d = head(DetKind::kPolls)) {
    if (i >= d->index && i < d->index + d->count) {
      if (success) diverge("poll #" + std::to_string(i) + " succeeded, the log says " + describe(*d));
      if (i + 1 == d->index + d->count) consume(DetKind::kPolls);
      return;
    }
    if (i > d->index) {
      diverge("poll #" + std::to_string(i) + " passed the logged run " + describe(*d));
      consume(DetKind::kPolls);
      return;
    }
  }
  if (remaining_ > 0) {
    if (!success) diverge("poll #" + std::to_string(i) + " failed where the dead incarnation's succeeded");
    return;
  }
  if (success) {
    close_run();
    return;
  }
  if (run_count_ == 0) run_start_ = i;
  ++run_count_;
}

std::optional<std::vector<int32_t>> Outcomes::forced_completion() const {
  const Determinant* d = head(DetKind::kCompletion);
  if (!d) return std::nullopt;
  return d->which;
}

bool Outcomes::completed(const std::vector<int32_t>& which) {
  Determinant e;
  e.kind = DetKind::kCompletion;
  e.which = which;
  return replay_or_record(e, false);
}

double Outcomes::clock(DetKind k, double live) {
  Determinant e;
  e.kind = k;
  e.value = live;
  replay_or_record(e, true);
  return e.value;
}

void Outcomes::withdrew(int32_t slot, uint64_t seq) {
  if (!withdrawn_.emplace(slot, seq).second) return;
  Determinant e;
  e.kind = DetKind::kWithdrawn;
  e.index = counter_[at(DetKind::kWithdrawn)]++;
  e.slot = slot;
  e.seq = seq;
  record(e);
}

bool Outcomes::withhold(int32_t slot, uint64_t seq) {
  auto& m = by_index_[at(DetKind::kWithdrawn)];
  auto it = std::find_if(m.begin(), m.end(), [&](const auto& kv) { return kv.second.slot == slot && kv.second.seq == seq; });
  if (it == m.end()) return false;
  m.erase(it);
  --remaining_;
  ++replayed_;
  withdrawn_.emplace(slot, seq);  // its cancel withdraws it again: not recorded twice
  return true;
}

std::optional<bool> Outcomes::forced_cancel(uint64_t i) const {
  auto d = logged(DetKind::kCancel, i);
  if (!d) return std::nullopt;
  return d->flag;
}

bool Outcomes::cancel_outcome(uint64_t i, bool cancelled) {
  Determinant e;
  e.kind = DetKind::kCancel;
  e.index = i;
  e.flag = cancelled;
  return replay_or_record_keyed(e);
}

bool Outcomes::round_due() const {
  const Determinant* d = head(DetKind::kRound);
  return d && d->seq <= numbered_;
}

void Outcomes::schedule_ended(uint64_t sched) {
  if (queue_[static_cast<size_t>(DetKind::kRound)].empty()) {
    ended_.clear();
    return;
  }
  ended_.insert(sched);
  // Ends come from progress, at any time: only the head round's own
  // schedule ending says now that it cannot come (a schedule not started yet
  // may legitimately be, until the program's next send).
  const Determinant* d = head(DetKind::kRound);
  if (d && d->count == sched) diverge(describe(*d) + " is logged, but that nonblocking collective has ended");
}

void Outcomes::check_round_comes() {
  const Determinant* d = head(DetKind::kRound);
  // Not due yet: the program's sends still go first. (Called when a send
  // was refused its number, so a due round comes before that send.)
  if (!d || d->seq > numbered_) return;
  // The schedule of a round due now began before it, in program order, and
  // so before the send that waits: in a faithful replay it has started and
  // is still running.
  if (d->count >= schedules_)
    diverge(describe(*d) + " is due, but only " + std::to_string(schedules_) +
            " nonblocking collectives were started");
  else if (ended_.count(d->count))
    diverge(describe(*d) + " is due, but that nonblocking collective has ended");
}

bool Outcomes::round_may_start(uint64_t sched, uint32_t round) {
  Determinant e;
  e.kind = DetKind::kRound;
  e.count = sched;
  e.slot = static_cast<int32_t>(round);
  e.seq = numbered_;
  const Determinant* d = head(DetKind::kRound);
  // Another round first, or this one later (after more of the program's
  // sends): not yet. Never earlier than logged: may_number holds the
  // program's sends at the logged point.
  if (d && d->count == sched && static_cast<uint32_t>(d->slot) < round)
    diverge("schedule " + std::to_string(sched) + " round " + std::to_string(round) + " would start where the log says " +
            describe(*d) + " comes first");
  if (d && (d->count != sched || d->slot != e.slot || d->seq > numbered_)) return false;
  e.index = counter_[at(DetKind::kRound)]++;
  if (d) {
    if (d->index != e.index || d->seq != numbered_) diverge(describe(e) + " where the log says " + describe(*d));
    consume(DetKind::kRound);
  } else {
    record(std::move(e));
  }
  in_round_ = true;
  return true;
}

}  // namespace ftmpi::logging

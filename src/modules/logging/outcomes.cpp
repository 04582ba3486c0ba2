#include "modules/logging/outcomes.hpp"

namespace ftmpi::logging {

namespace {
size_t at(DetKind k) { return static_cast<size_t>(k); }
}  // namespace

void Outcomes::load(std::vector<Determinant> dets) {
  for (Determinant& d : dets) {
    if (d.kind == DetKind::kMatch) matches_[d.index] = std::move(d);
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

std::optional<Outcomes::Forced> Outcomes::forced_match(uint64_t i) const {
  auto it = matches_.find(i);
  if (it == matches_.end()) return std::nullopt;
  return Forced{it->second.slot, it->second.seq};
}

bool Outcomes::matched(uint64_t i, int32_t slot, uint64_t seq) {
  if (auto it = matches_.find(i); it != matches_.end()) {
    const Determinant& d = it->second;
    bool same = d.slot == slot && d.seq == seq;
    if (!same)
      diverge("wildcard #" + std::to_string(i) + " matched slot " + std::to_string(slot) + " message " +
              std::to_string(seq) + ", the log says " + describe(d));
    matches_.erase(it);
    --remaining_;
    ++replayed_;
    return same;
  }
  Determinant d;
  d.kind = DetKind::kMatch;
  d.index = i;
  d.slot = slot;
  d.seq = seq;
  record(std::move(d));
  return true;
}

std::optional<Outcomes::Forced> Outcomes::forced_probe() const {
  const Determinant* d = head(DetKind::kProbe);
  if (!d) return std::nullopt;
  return Forced{d->slot, d->seq};
}

bool Outcomes::probed(int32_t slot, uint64_t seq) {
  uint64_t i = counter_[at(DetKind::kProbe)]++;
  if (const Determinant* d = head(DetKind::kProbe)) {
    bool same = d->index == i && d->slot == slot && d->seq == seq;
    if (!same)
      diverge("wildcard probe #" + std::to_string(i) + " found slot " + std::to_string(slot) + " message " +
              std::to_string(seq) + ", the log says " + describe(*d));
    consume(DetKind::kProbe);
    return same;
  }
  Determinant d;
  d.kind = DetKind::kProbe;
  d.index = i;
  d.slot = slot;
  d.seq = seq;
  record(std::move(d));
  return true;
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
  uint64_t i = counter_[at(DetKind::kCompletion)]++;
  if (const Determinant* d = head(DetKind::kCompletion)) {
    bool same = d->index == i && d->which == which;
    if (!same) diverge("completion #" + std::to_string(i) + " differs from the log: " + describe(*d));
    consume(DetKind::kCompletion);
    return same;
  }
  Determinant d;
  d.kind = DetKind::kCompletion;
  d.index = i;
  d.which = which;
  record(std::move(d));
  return true;
}

double Outcomes::clock(DetKind k, double live) {
  uint64_t i = counter_[at(k)]++;
  if (const Determinant* d = head(k)) {
    double v = d->value;
    if (d->index != i) diverge(std::string(kind_name(k)) + " #" + std::to_string(i) + ": the log says " + describe(*d));
    consume(k);
    return v;
  }
  Determinant d;
  d.kind = k;
  d.index = i;
  d.value = live;
  record(std::move(d));
  return live;
}

std::optional<bool> Outcomes::forced_cancel() const {
  const Determinant* d = head(DetKind::kCancel);
  if (!d) return std::nullopt;
  return d->flag;
}

bool Outcomes::cancel_outcome(bool cancelled) {
  uint64_t i = counter_[at(DetKind::kCancel)]++;
  if (const Determinant* d = head(DetKind::kCancel)) {
    bool same = d->index == i && d->flag == cancelled;
    if (!same) diverge("cancel #" + std::to_string(i) + " differs from the log: " + describe(*d));
    consume(DetKind::kCancel);
    return same;
  }
  Determinant d;
  d.kind = DetKind::kCancel;
  d.index = i;
  d.flag = cancelled;
  record(std::move(d));
  return true;
}

}  // namespace ftmpi::logging

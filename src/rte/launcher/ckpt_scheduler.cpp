#include "rte/launcher/ckpt_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ftmpi::rte {

uint64_t daly_interval_ns(uint64_t cost_ns, uint64_t mtbf_ns) {
  if (mtbf_ns == 0) return 0;
  const double c = static_cast<double>(cost_ns);
  const double m = static_cast<double>(mtbf_ns);
  if (c >= 2 * m) return mtbf_ns;
  const double x = c / (2 * m);
  const double t = std::sqrt(2 * c * m) * (1 + std::sqrt(x) / 3 + x / 9) - c;
  // A cost of zero would give T = 0: checkpointing without pause. One
  // millisecond keeps the runtime from ordering in a loop.
  return std::max<uint64_t>(static_cast<uint64_t>(t), 1'000'000);
}

CkptScheduler::CkptScheduler(const CkptScheduleConfig& cfg, int world_size, uint64_t start_ns)
    : cfg_(cfg), slots_(static_cast<size_t>(std::max(world_size, 0))) {
  if (cfg_.max_concurrent < 1) cfg_.max_concurrent = 1;
  next_round_ns_ = start_ns + interval_ns();
}

uint64_t CkptScheduler::interval_ns() const {
  if (!cfg_.interval_auto) return cfg_.interval_ns;
  if (cost_count_ == 0) return cfg_.first_auto_ns;
  return daly_interval_ns(cost_sum_ns_ / cost_count_, cfg_.mtbf_ns);
}

void CkptScheduler::set_traffic(int slot, uint64_t sent, uint64_t received) {
  if (slot < 0 || static_cast<size_t>(slot) >= slots_.size()) return;
  slots_[static_cast<size_t>(slot)].sent = sent;
  slots_[static_cast<size_t>(slot)].received = received;
}

void CkptScheduler::set_held_for(int slot, uint64_t bytes) {
  if (slot < 0 || static_cast<size_t>(slot) >= slots_.size()) return;
  Slot& s = slots_[static_cast<size_t>(slot)];
  // Less than at the last checkpoint: collected since, all of it is newer.
  if (bytes < s.held_base) s.held_base = 0;
  s.held_raw = bytes;
  s.held_for = bytes - s.held_base;
}

void CkptScheduler::completed(int slot, bool ok, uint64_t cost_ns, uint64_t now_ns) {
  (void)now_ns;
  if (slot < 0 || static_cast<size_t>(slot) >= slots_.size()) return;
  Slot& s = slots_[static_cast<size_t>(slot)];
  if (!s.in_flight) return;
  s.in_flight = false;
  --in_flight_;
  if (!ok) return;
  cost_sum_ns_ += cost_ns;
  ++cost_count_;
  // What its peers held for it is garbage now; traffic counts afresh.
  s.sent = s.received = s.held_for = 0;
  s.held_base = s.held_raw;
}

void CkptScheduler::slot_down(int slot) {
  if (slot < 0 || static_cast<size_t>(slot) >= slots_.size()) return;
  Slot& s = slots_[static_cast<size_t>(slot)];
  if (s.in_flight) {
    s.in_flight = false;
    --in_flight_;
  }
  s.alive = false;
  s.in_round = false;
}

void CkptScheduler::slot_up(int slot) {
  if (slot < 0 || static_cast<size_t>(slot) >= slots_.size()) return;
  slots_[static_cast<size_t>(slot)].alive = true;
}

bool CkptScheduler::round_open() const {
  return std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.in_round || s.in_flight; });
}

void CkptScheduler::start_round(uint64_t now_ns) {
  ++rounds_;
  for (Slot& s : slots_) s.in_round = s.alive;
  next_round_ns_ = now_ns + interval_ns();
}

int CkptScheduler::next_of_round() {
  const int n = static_cast<int>(slots_.size());
  int best = -1;
  if (cfg_.policy == CkptPolicy::kRoundRobin) {
    for (int k = 0; k < n && best < 0; ++k) {
      int i = (cursor_ + k) % n;
      if (slots_[static_cast<size_t>(i)].in_round && !slots_[static_cast<size_t>(i)].in_flight) best = i;
    }
    if (best >= 0) cursor_ = (best + 1) % n;
    return best;
  }
  // Adaptive: highest received/sent ratio first; a slot that sent nothing
  // and received something ranks above all; ties go to the lower slot.
  auto ratio = [&](int i) {
    const Slot& s = slots_[static_cast<size_t>(i)];
    if (s.sent == 0) return s.received > 0 ? std::numeric_limits<long double>::infinity() : 0.0L;
    return static_cast<long double>(s.received) / static_cast<long double>(s.sent);
  };
  auto above = [&](int a, int b) { return ratio(a) > ratio(b); };
  for (int i = 0; i < n; ++i) {
    const Slot& s = slots_[static_cast<size_t>(i)];
    if (!s.in_round || s.in_flight) continue;
    if (best < 0 || above(i, best)) best = i;
  }
  return best;
}

std::vector<int> CkptScheduler::due(uint64_t now_ns) {
  std::vector<int> out;
  auto order = [&](int i) {
    Slot& s = slots_[static_cast<size_t>(i)];
    s.in_flight = true;
    s.in_round = false;
    ++in_flight_;
    out.push_back(i);
  };
  // The log-size trigger goes first, largest holding first.
  if (cfg_.log_trigger > 0) {
    while (in_flight_ < cfg_.max_concurrent) {
      int pick = -1;
      for (size_t i = 0; i < slots_.size(); ++i) {
        const Slot& s = slots_[i];
        if (!s.alive || s.in_flight || s.held_for < cfg_.log_trigger) continue;
        if (pick < 0 || s.held_for > slots_[static_cast<size_t>(pick)].held_for) pick = static_cast<int>(i);
      }
      if (pick < 0) break;
      order(pick);
    }
  }
  if (interval_ns() == 0) return out;  // only the trigger checkpoints
  if (!round_open() && now_ns >= next_round_ns_) start_round(now_ns);
  while (in_flight_ < cfg_.max_concurrent) {
    int i = next_of_round();
    if (i < 0) break;
    order(i);
  }
  return out;
}

uint64_t CkptScheduler::next_check_ns() const {
  if (interval_ns() == 0 || round_open()) return std::numeric_limits<uint64_t>::max();
  return next_round_ns_;
}

}  // namespace ftmpi::rte

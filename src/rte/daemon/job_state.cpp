#include "rte/daemon/job_state.hpp"

namespace ftmpi::rte {

void JobState::init(const proto::JobStart& job) {
  modes_ = job.modes;
  max_respawn_ = job.max_respawn;
  epoch_ = job.epoch;
  round_seq_ = 0;
  procs_.assign(static_cast<size_t>(job.world_size), ProcEntry{});
  for (size_t h = 0; h < job.hosts.size(); ++h) {
    for (int32_t s : job.hosts[h].slots) {
      ProcEntry& p = procs_[static_cast<size_t>(s)];
      p.id = ProcId{s, 0};
      p.host = static_cast<int32_t>(h);
    }
  }
  events_.clear();
  collected_.assign(procs_.size(), 0);
}

bool JobState::apply_failure(const proto::ProcFailure& f) {
  if (f.seq != next_seq() || !valid_slot(f.who.slot)) return false;
  events_.push_back(f);
  ProcEntry& p = proc(f.who.slot);
  if (p.id == f.who) {
    p.state = ProcState::kDead;
    p.pid = f.pid;
  }
  return true;
}

int32_t JobState::count_alive() const {
  int32_t n = 0;
  for (const ProcEntry& p : procs_) n += p.state == ProcState::kAlive ? 1 : 0;
  return n;
}

bool JobState::apply_respawn(const ProcId& who, int32_t host) {
  if (!valid_slot(who.slot)) return false;
  ProcEntry& p = proc(who.slot);
  if (who.incarnation <= p.id.incarnation) return false;
  p.id = who;
  p.host = host;
  p.pid = 0;
  p.state = ProcState::kAlive;
  return true;
}

void JobState::apply_recovery(const RecoveryResult& r) {
  // The leader's daemon shares the leader's table, which is already ahead
  // (and may since have recorded a newer failure): apply each round once.
  if (r.epoch <= epoch_) return;
  epoch_ = r.epoch;
  round_seq_ = r.last_event_seq;
  for (const Card& c : r.cards) {
    if (c.host < 0 || !valid_slot(c.id.slot)) continue;
    ProcEntry& p = proc(c.id.slot);
    if (c.id.incarnation < p.id.incarnation) continue;
    p.id = c.id;
    p.host = c.host;
    p.pid = c.pid;
    p.state = ProcState::kAlive;
  }
}

}  // namespace ftmpi::rte

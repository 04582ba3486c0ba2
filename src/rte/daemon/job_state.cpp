#include "rte/daemon/job_state.hpp"

namespace ftmpi::rte {

void JobState::init(const proto::JobStart& job) {
  modes_ = job.modes;
  epoch_ = job.epoch;
  procs_.assign(static_cast<size_t>(job.world_size), ProcEntry{});
  for (size_t h = 0; h < job.hosts.size(); ++h) {
    for (int32_t s : job.hosts[h].slots) {
      ProcEntry& p = procs_[static_cast<size_t>(s)];
      p.id = ProcId{s, 0};
      p.host = static_cast<int32_t>(h);
    }
  }
  events_.clear();
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

}  // namespace ftmpi::rte

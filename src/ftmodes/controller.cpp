#include "ftmodes/controller.hpp"

#include <algorithm>

#include "base/log.hpp"
#include "ftmodes/membership.hpp"

namespace ftmpi::ft {

Controller::Controller(p2p::Engine& eng, rte::Client& client, const rte::Modes& modes, comm::Communicator& world)
    : eng_(eng), client_(client), modes_(modes), world_(world) {
  // IGNORE never recovers: a wildcard receive with nobody left can never match.
  eng_.set_lonely_wildcards_fail(modes.recovery == rte::RecoveryMode::kIgnore);
}

void Controller::on_proc_failed(ProcId who, uint64_t event_seq) {
  last_seq_ = std::max(last_seq_, event_seq);
  seen_.push_back(Seen{who, event_seq});
  episodes_.on_failure(who);
  // IGNORE: the engine already failed the operations that involve `who`.
  // ABORT: the runtime is ending the job.
  if (!recovers()) return;
  if (state_ == FtState::kNoFailures) state_ = FtState::kFailureRecognized;
  // Spec §4.1: every blocking call in progress returns MPI_ERR_OTHER, so no
  // survivor keeps waiting on a peer that is itself recovering.
  eng_.interrupt_blocking();
}

void Controller::on_recovery_done(const rte::RecoveryResult& r) {
  result_ = r;
  round_done_ = true;
}

Err Controller::recover() {
  if (!recovers()) return Err::kOther;
  state_ = FtState::kRecovering;
  round_done_ = false;
  if (Err e = client_.request_recovery(last_seq_); !ok(e)) return e;
  // From here on this process enters no call of the current epoch: upper
  // layers release peers that wait for its part in one (the agreement of
  // atomic collectives answers for the calls it never entered). Not before
  // the request is accepted: a process whose request failed goes on in the
  // epoch.
  eng_.close_epoch();
  // Waits progressing the transports: a peer may still need this process to
  // answer a cancel or to finish a transfer that had already matched.
  eng_.wait_until([this] { return round_done_; });
  install(result_);
  return Err::kOk;
}

bool Controller::recover_if_auto() {
  if (modes_.recovery != rte::RecoveryMode::kAuto || state_ != FtState::kFailureRecognized) return false;
  return ok(recover());
}

void Controller::install(const rte::RecoveryResult& r) {
  const LiveTable live = live_from_cards(r.cards);
  comm::GroupRef old_world = world_.group_ref();
  world_.reset_membership(comm::Group::make(world_after(modes_.comm, live)),
                          rank_after(modes_.comm, live, eng_.self().slot));
  p2p::RecoveryInstall inst;
  inst.epoch = r.epoch;
  inst.cards = r.cards;
  inst.discard_all = modes_.msg == rte::MsgMode::kReset;
  inst.world = &world_;
  inst.old_world = old_world;
  eng_.install_recovery(inst);
  episodes_.on_recovered(r.failed);
  // Failures sequenced after this round but already heard of open the next
  // episode at once.
  std::vector<Seen> later;
  for (const Seen& s : seen_)
    if (s.seq > r.last_event_seq) later.push_back(s);
  seen_ = later;
  for (const Seen& s : later) episodes_.on_failure(s.who);
  if (later.empty()) {
    state_ = FtState::kNoFailures;
    eng_.clear_interrupt();
  } else {
    state_ = FtState::kFailureRecognized;
  }
  FTMPI_LOG(kInfo, "ft", "recovered: epoch %u, world size %d, my rank %d, %zu failed", r.epoch, world_.size(),
            world_.rank(), r.failed.size());
  if (hooks_) {
    hooks_->invalidate_derived_objects();
    hooks_->run_world_delete_callbacks();
  }
}

void Controller::adopt_restart(const rte::RecoveryResult& r) {
  const LiveTable live = live_from_cards(r.cards);
  world_.reset_membership(comm::Group::make(world_after(modes_.comm, live)),
                          rank_after(modes_.comm, live, eng_.self().slot));
  last_seq_ = r.last_event_seq;
  episodes_.on_recovered(r.failed);
}

}  // namespace ftmpi::ft

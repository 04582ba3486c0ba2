#include "rte/daemon/leader.hpp"

#include <algorithm>

#include "base/log.hpp"
#include "rte/common/event_loop.hpp"
#include "rte/common/process.hpp"

namespace ftmpi::rte {

using proto::MsgType;

Leader::Leader(JobState& state, LeaderOutput& out)
    : state_(state),
      out_(out),
      cards_(static_cast<size_t>(state.world_size())),
      fenced_(static_cast<size_t>(state.world_size()), false),
      asked_(static_cast<size_t>(state.world_size()), false),
      restarted_(static_cast<size_t>(state.world_size()), false),
      joined_(static_cast<size_t>(state.world_size()), false),
      respawns_(static_cast<size_t>(state.world_size()), 0) {
  int32_t hosts = 0;
  for (int32_t s = 0; s < state.world_size(); ++s) hosts = std::max(hosts, state.proc(s).host + 1);
  host_lost_.assign(static_cast<size_t>(hosts), false);
}

bool Leader::on_frame(int32_t from_host, const proto::Frame& f) {
  using proto::with_parsed;
  if (syncing_) {
    // A new leader acts only on the complete picture (finish_takeover).
    queued_.emplace_back(from_host, f);
    return true;
  }
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kCardsUp:
      return with_parsed<proto::CardsUp>(f, [&](auto& m) { on_cards(from_host, m); });
    case MsgType::kFenceUp:
      return with_parsed<proto::FenceUp>(f, [&](auto& m) { on_fence(from_host, m); });
    case MsgType::kProcExit:
      return with_parsed<proto::ProcExit>(f, [&](auto& m) { on_proc_exit(from_host, m); });
    case MsgType::kAbortUp:
      return with_parsed<proto::AbortUp>(f, [&](auto& m) { on_abort(from_host, m); });
    case MsgType::kSuspectUp:
      return with_parsed<proto::SuspectUp>(f, [&](auto& m) { on_suspect(m); });
    case MsgType::kRecoverUp:
      return with_parsed<proto::RecoverUp>(f, [&](auto& m) { on_recover(from_host, m); });
    case MsgType::kReplayUp:
      return with_parsed<proto::ReplayUp>(f, [&](auto& m) { on_replay(from_host, m); });
    case MsgType::kCkptKeptUp:
      return with_parsed<proto::CkptKeptUp>(f, [&](auto& m) { on_ckpt_kept(from_host, m); });
    case MsgType::kRestartRefusedUp:
      return with_parsed<proto::RestartRefusedUp>(f, [&](auto& m) { on_restart_refused(from_host, m); });
    default:
      FTMPI_LOG(kWarn, "leader", "unexpected %s from host %d", proto::msg_name(f.type), from_host);
      return false;
  }
}

void Leader::on_cards(int32_t from_host, const proto::CardsUp& m) {
  for (const Card& c : m.cards) {
    // A daemon may only speak for the current incarnations of its own slots.
    if (!state_.current(c.id) || state_.proc(c.id.slot).host != from_host) {
      FTMPI_LOG(kWarn, "leader", "host %d sent a card for slot %d it does not own", from_host, c.id.slot);
      continue;
    }
    size_t s = static_cast<size_t>(c.id.slot);
    if (cards_done_) {
      // After the exchange only respawned processes send cards: they join a round.
      if (restarted_[s] && !joined_[s] && state_.alive(c.id.slot))
        state_.transparent() ? on_transparent_card(c) : on_restart_card(c);
      else
        FTMPI_LOG(kWarn, "leader", "late card from rank %d ignored", c.id.slot);
      continue;
    }
    cards_[s] = c;
    state_.proc(c.id.slot).pid = c.pid;
  }
  check_all();
}

void Leader::on_fence(int32_t from_host, const proto::FenceUp& m) {
  for (const ProcId& p : m.procs) {
    if (!state_.current(p) || state_.proc(p.slot).host != from_host) continue;
    fenced_[static_cast<size_t>(p.slot)] = true;
  }
  // A process in its fence no longer counts for a recovery round either.
  check_all();
}

void Leader::on_proc_exit(int32_t from_host, const proto::ProcExit& m) {
  if (!state_.current(m.who) || state_.proc(m.who.slot).host != from_host) return;
  ProcEntry& p = state_.proc(m.who.slot);
  if (p.state != ProcState::kAlive) return;
  p.pid = m.pid;
  switch (m.end) {
    case proto::EndKind::kNormal: p.state = ProcState::kFinished; break;
    case proto::EndKind::kTerminated: p.state = ProcState::kDead; break;
    case proto::EndKind::kFailure: fail(m.who, m.pid, m.exit, m.started, m.in_fence); break;
  }
  // One fewer participant may complete a gather the others are waiting in.
  check_all();
}

void Leader::fail(const ProcId& who, int32_t pid, const proto::ExitInfo& exit, bool started, bool in_fence) {
  if (ending_) {
    state_.proc(who.slot).state = ProcState::kDead;
    return;
  }
  proto::ProcFailure f;
  f.seq = state_.next_seq();
  f.who = who;
  f.host = state_.proc(who.slot).host;
  f.pid = pid;
  f.exit = exit;
  state_.apply_failure(f);
  // Transparent mode restarts processes that were killed or lost; one that
  // exited by itself before MPI_Finalize would do the same again in its
  // replay: that ends the job as in comm mode abort.
  bool continues = state_.continues_after_failure() &&
                   !(state_.transparent() && exit.how == proto::ExitInfo::kExited);
  FTMPI_LOG(kInfo, "leader", "event %llu: rank %d.%u failed (%s)%s", static_cast<unsigned long long>(f.seq),
            who.slot, who.incarnation, describe_exit(exit).c_str(), continues ? "" : "; ending the job");
  // Its program had finished; a new process would run it again from the
  // start and wait for peers that are leaving (spec/ft-semantics.md §5).
  // Transparent mode restarts it while the fence is not done: its sender log
  // died with it and a peer still replaying may need it (its replay makes it
  // again). Once the fence is done every program has finished.
  const bool finished = (in_fence || fenced_[static_cast<size_t>(who.slot)]) && (!state_.transparent() || fence_done_);
  const bool unstartable = who.incarnation > 0 && !started && exit.how == proto::ExitInfo::kExited;
  // Transparent mode needs no survivor: a restarted process re-creates its
  // messages by re-executing and fetches its determinants from the event
  // logger, so even the death of every process (np 1) is survived.
  const bool none_left = state_.count_alive() == 0 && !state_.transparent();
  // Decided here in the order the branches below act on it, so that the
  // launcher's line says what they do.
  proto::FailureReport report{f, continues, wall_clock_ns()};
  if (!continues || none_left || !state_.respawns())
    report.next = proto::FailureReport::kNoRestart;
  else if (finished)
    report.next = proto::FailureReport::kFinished;
  else
    report.next = unstartable ? proto::FailureReport::kNoRestart : proto::FailureReport::kRestart;
  out_.to_launcher(proto::make_frame(report));
  if (!continues) {
    end_job(failure_exit_code(exit));
    return;
  }
  out_.to_all_daemons(proto::make_frame(proto::EventDown{proto::EventDown::kProcFailed, f}));
  forget_round_state(who.slot);
  if (none_left) {
    bool any_finished = false;
    for (int32_t s = 0; s < state_.world_size(); ++s)
      any_finished |= state_.proc(s).state == ProcState::kFinished;
    // With some processes finished normally the job simply ends; REBUILD
    // daemons wait for a decision about the dead slot, so give one.
    if (!any_finished || state_.respawns()) job_failed("every process of the job has died; nothing is left to recover");
    return;
  }
  if (!state_.respawns()) return;
  if (finished) {
    FTMPI_LOG(kInfo, "leader", "rank %d died inside MPI_Finalize; not respawned", who.slot);
    return;
  }
  if (unstartable) {
    job_failed("rank " + std::to_string(who.slot) + " could not be respawned: incarnation " +
               std::to_string(who.incarnation) + " " + describe_exit(exit) + " before it started");
    return;
  }
  if (!cards_done_) {
    respawn_waiting_.push_back(who.slot);  // respawned once MPI_Init is done everywhere
    return;
  }
  respawn(who.slot);
}

void Leader::job_failed(const std::string& why) {
  if (ending_) return;
  FTMPI_LOG(kInfo, "leader", "ending the job: %s", why.c_str());
  out_.to_launcher(proto::make_frame(proto::JobFailedReport{1, why}));
  end_job(1);
}

void Leader::check_all() {
  check_cards();
  check_fence();
  check_round();
}

void Leader::on_abort(int32_t from_host, const proto::AbortUp& m) {
  if (ending_ || !state_.current(m.who) || state_.proc(m.who.slot).host != from_host) return;
  proto::AbortReport r;
  r.who = m.who;
  r.host = from_host;
  r.pid = m.pid;
  r.code = m.code;
  r.message = m.message;
  out_.to_launcher(proto::make_frame(r));
  end_job(m.code);
}

void Leader::on_suspect(const proto::SuspectUp& m) {
  if (!state_.current(m.suspect) || !state_.alive(m.suspect.slot)) return;
  FTMPI_LOG(kInfo, "leader", "rank %d suspects rank %d; asking host %d to check", m.reporter.slot,
            m.suspect.slot, state_.proc(m.suspect.slot).host);
  out_.to_daemon(state_.proc(m.suspect.slot).host, proto::make_frame(proto::CheckProc{m.suspect}));
}

void Leader::on_daemon_lost(int32_t host) {
  if (host >= 0 && host < static_cast<int32_t>(host_lost_.size())) host_lost_[static_cast<size_t>(host)] = true;
  for (int32_t s = 0; s < state_.world_size(); ++s) {
    ProcEntry& p = state_.proc(s);
    if (p.host != host || p.state != ProcState::kAlive) continue;
    if (fence_done_ && fenced_[static_cast<size_t>(s)]) {
      p.state = ProcState::kFinished;  // released from its fence: its end is a normal one
      continue;
    }
    fail(p.id, p.pid, proto::ExitInfo{proto::ExitInfo::kLost, 0}, true);
  }
  check_all();
}

void Leader::end_job(int32_t exit_code) {
  if (ending_) return;
  ending_ = true;
  out_.to_all_daemons(proto::make_frame(proto::EndJob{exit_code}));
}

void Leader::check_cards() {
  if (cards_done_ || ending_) return;
  for (int32_t s = 0; s < state_.world_size(); ++s)
    if (state_.alive(s) && !cards_[static_cast<size_t>(s)]) return;
  cards_done_ = true;
  proto::CardTableDown table;
  table.cards.resize(static_cast<size_t>(state_.world_size()));
  for (int32_t s = 0; s < state_.world_size(); ++s) {
    Card& c = table.cards[static_cast<size_t>(s)];
    if (state_.alive(s) && cards_[static_cast<size_t>(s)]) {
      c = *cards_[static_cast<size_t>(s)];
    } else {
      c = Card{};
      c.id = state_.proc(s).id;  // host stays -1: nobody to reach there
    }
  }
  out_.to_all_daemons(proto::make_frame(table));
  out_.to_launcher(proto::make_frame(proto::InitReport{wall_clock_ns()}));
  std::vector<int32_t> waiting;
  waiting.swap(respawn_waiting_);
  for (int32_t s : waiting) respawn(s);
}

void Leader::check_fence() {
  if (fence_done_ || ending_) return;
  bool any = false;
  for (int32_t s = 0; s < state_.world_size(); ++s) {
    if (!state_.alive(s)) continue;
    if (!fenced_[static_cast<size_t>(s)]) return;
    any = true;
  }
  if (!any) return;  // everybody ended without a fence: nobody to release
  fence_done_ = true;
  out_.to_all_daemons(proto::make_frame(proto::FenceDown{}));
}

}  // namespace ftmpi::rte

// The daemon's part of recovery rounds (spec/ft-semantics.md §5), REBUILD
// respawns, fault injection and timeline traces.
#include <signal.h>
#include <unistd.h>

#include "base/log.hpp"
#include "rte/daemon/daemon.hpp"
#include "rte/proto/rank_messages.hpp"

namespace ftmpi::rte {

void Daemon::check_local_recover() {
  if (terminating_ || !state_.recovers()) return;
  // The first request of a round goes up at once (the leader starts the
  // round's clock, and a respawn there may join it); the others are gathered
  // into one RECOVER_UP, like CARDS_UP, once every local rank the round waits
  // for has asked. Ranks in their fence, respawns that have not joined yet
  // (their card went up alone) and programs that never booted are not waited for.
  bool first = true;
  for (const LocalRank& r : ranks_.ranks()) first = first && !r.recover_sent_up;
  proto::RecoverUp up;
  bool all = true;
  for (const LocalRank& r : ranks_.ranks()) {
    if (!r.running() || !r.booted || !r.carded || r.fence_entered || r.restart_pending()) continue;
    if (!r.recover_asked)
      all = false;
    else if (!r.recover_sent_up)
      up.procs.push_back(r.id);
  }
  if (up.procs.empty() || !(first || all)) return;
  for (LocalRank& r : ranks_.ranks())
    if (r.recover_asked) r.recover_sent_up = true;
  to_leader(proto::make_frame(up));
}

void Daemon::on_event_down(const proto::EventDown& m) {
  uint32_t count = 0;
  for (LocalRank& r : ranks_.ranks()) {
    uint64_t before = r.notified_upto;
    notify_failures(r);
    if (before < m.failure.seq && r.notified_upto >= m.failure.seq && r.id != m.failure.who && r.booted &&
        r.running() && !r.restart_pending())
      ++count;
  }
  if (job_ && job_->trace)
    trace(proto::Trace{proto::Trace::kNotified, m.failure.who, m.failure.pid, m.failure.seq, count, 0});
}

void Daemon::on_respawn(const proto::Respawn& m) {
  state_.apply_respawn(m.who, m.host);  // the leader's own table is already there
  if (m.host != args_.host || terminating_) return;
  LocalRank* r = ranks_.find(m.who.slot);
  if (!r && state_.current(m.who) && state_.alive(m.who.slot)) {
    // Its host is lost: the slot moves here (the next live host in order),
    // from a stored image if there is one (its local image was on that
    // host), else from the program's start.
    prepare_restore(m.who, nullptr);
    if (refuse_restart_from_start(m.who)) return;
    FTMPI_LOG(kInfo, "ftmpid", "adopting rank %d (incarnation %u) from a lost host", m.who.slot,
              m.who.incarnation);
    ranks_.adopt(m.who);
    // Transparent mode: its determinants are on other hosts (the lost one's buddy).
    if (state_.transparent() && !det_complete_.count(m.who.slot)) want_determinants(m.who.slot);
    return;
  }
  if (!r || !state_.current(m.who) || !state_.alive(m.who.slot)) {
    FTMPI_LOG(kError, "ftmpid", "cannot respawn rank %d here", m.who.slot);
    return;
  }
  restart_here(*r, m.who);
}

void Daemon::on_recover_done(const proto::RecoverDoneDown& m) {
  const RecoveryResult& res = m.result;
  if (res.cards.size() != static_cast<size_t>(state_.world_size())) {
    FTMPI_LOG(kError, "ftmpid", "RECOVER_DONE_DOWN with %zu cards for %d slots", res.cards.size(),
              state_.world_size());
    return;
  }
  state_.apply_recovery(res);
  proto::RecoverDone done{res};
  uint32_t count = 0;
  for (LocalRank& r : ranks_.ranks()) {
    if (!r.running() || !r.booted || !r.ctrl) continue;
    if (r.recover_asked && r.recover_sent_up) {
      r.recover_asked = false;
      r.recover_sent_up = false;
      r.ctrl->send(done);
      ++count;
    } else if (r.restart_pending() && r.carded && res.cards[static_cast<size_t>(r.id.slot)].id == r.id) {
      // The answer to its card exchange; from now on it hears of failures
      // after the ones this round covers.
      r.joined = true;
      r.notified_upto = res.last_event_seq;
      r.ctrl->send(done);
      notify_failures(r);
      ++count;
    }
  }
  if (job_ && job_->trace)
    trace(proto::Trace{proto::Trace::kReleased, ProcId{}, 0, res.last_event_seq, count, 0});
}

void Daemon::on_inject(const proto::InjectKill& m) {
  proto::InjectResult res;
  res.request_id = m.request_id;
  res.wall_ns = wall_clock_ns();
  if (m.slot < 0) {
    // The loss of a whole host: every rank and this daemon, without a word.
    FTMPI_LOG(kInfo, "ftmpid", "fault injection: killing this daemon and its ranks");
    ranks_.signal_all(SIGKILL);
    ::kill(::getpid(), SIGKILL);
    return;
  }
  LocalRank* r = ranks_.find(m.slot);
  if (!r || !r->running() || r->pid <= 0) {
    res.who = ProcId{m.slot, r ? r->id.incarnation : 0};
    res.message = "rank " + std::to_string(m.slot) + " is not running on this host";
  } else if (r->fence_done) {
    // Released from MPI_Finalize's fence: its MPI part is over and nothing
    // can restart it (its peers' logs end with them). A kill now would test
    // no fault tolerance, only turn a finished job's status into 137.
    res.who = r->id;
    res.pid = static_cast<int32_t>(r->pid);
    res.message = "rank " + std::to_string(m.slot) + " has finished MPI_Finalize";
  } else {
    res.who = r->id;
    res.pid = static_cast<int32_t>(r->pid);
    // The whole process group, like every other signal the daemon sends a rank.
    res.ok = ::kill(-r->pid, m.signal) == 0 || ::kill(r->pid, m.signal) == 0;
    r->kill_sent = res.ok && m.signal == SIGKILL;
    if (!res.ok) res.message = "kill failed";
  }
  to_launcher(proto::make_frame(res));
}

void Daemon::trace(const proto::Trace& t) {
  proto::Trace stamped = t;
  stamped.wall_ns = wall_clock_ns();
  to_launcher(proto::make_frame(stamped));
}

}  // namespace ftmpi::rte

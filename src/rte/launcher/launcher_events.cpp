// What the daemons and the leader report to the launcher: output, rank starts
// and ends, failures, recovery rounds, traces. Each is printed as it happens
// where a user wants to see it, and written to the timeline.
#include "base/log.hpp"
#include "rte/common/process.hpp"
#include "rte/launcher/launcher.hpp"

namespace ftmpi::rte {

using proto::MsgType;

namespace {

std::vector<int64_t> slots_of(const std::vector<ProcId>& v) {
  std::vector<int64_t> out;
  for (const ProcId& p : v) out.push_back(p.slot);
  return out;
}

const char* end_name(proto::EndKind k) {
  switch (k) {
    case proto::EndKind::kNormal: return "normal";
    case proto::EndKind::kFailure: return "failure";
    default: return "terminated";
  }
}

const char* how_name(uint8_t how) {
  switch (how) {
    case proto::ExitInfo::kExited: return "exited";
    case proto::ExitInfo::kSignaled: return "signaled";
    default: return "lost";
  }
}

}  // namespace

void Launcher::record(const TimelineEvent& e, uint64_t wall_ns) {
  if (timeline_.enabled()) timeline_.write(e, wall_ns ? wall_ns : wall_clock_ns());
}

bool Launcher::on_daemon_frame(DaemonEntry& d, const proto::Frame& f) {
  using proto::with_parsed;
  int32_t host = static_cast<int32_t>(&d - daemons_.data());
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kIo:
      return with_parsed<proto::Io>(f, [&](auto& m) { on_output(m); });
    case MsgType::kIoEof:
      // Transparent mode: a dead incarnation's last partial line is continued
      // by the next one; streams end with the rank (on_rank_exit).
      return with_parsed<proto::IoEof>(f, [&](auto& m) {
        if (!transparent()) out_.eof(m.slot, m.stream);
      });
    case MsgType::kRankStart:
      return with_parsed<proto::RankStart>(f, [&](auto& m) { on_rank_start(host, m); });
    case MsgType::kRankExit:
      return with_parsed<proto::RankExit>(f, [&](auto& m) { on_rank_exit(host, m); });
    case MsgType::kStdinCredit:
      return host == stdin_host_ &&
             with_parsed<proto::StdinCredit>(f, [&](auto& m) { on_stdin_credit(m.bytes); });
    case MsgType::kDaemonDone:
      return with_parsed<proto::DaemonDone>(f, [&](auto&) {
        d.done = true;
        maybe_shutdown();
      });
    case MsgType::kHostSuspect:
      return with_parsed<proto::HostSuspect>(f, [&](auto& m) { on_host_suspect(host, m); });
    case MsgType::kTrace:
      return with_parsed<proto::Trace>(f, [&](auto& m) { on_trace(host, m); });
    case MsgType::kInjectResult:
      return with_parsed<proto::InjectResult>(f, [&](auto& m) { on_inject_result(host, m); });
    case MsgType::kFailureReport:
      return with_parsed<proto::FailureReport>(f, [&](auto& m) { on_failure_report(m); });
    case MsgType::kAbortReport:
      return with_parsed<proto::AbortReport>(f, [&](auto& m) {
        record(TimelineEvent("abort").add("rank", m.who.slot).add("incarnation", m.who.incarnation)
                   .add("pid", m.pid).add("host", host_name(m.host)).add("code", m.code).add("message", m.message));
        outcome_.on_abort(m, host_name(m.host));
      });
    case MsgType::kInitReport:
      return with_parsed<proto::InitReport>(f, [&](auto& m) {
        record(TimelineEvent("init_done").add("epoch", epoch_), m.wall_ns);
        init_done_ = true;
        schedule_injections();
        start_checkpoints();
      });
    case MsgType::kRespawn:
      return with_parsed<proto::Respawn>(f, [&](auto& m) {
        say(std::string(transparent() ? "ftmpirun: restarting rank " : "ftmpirun: respawning rank ") +
            std::to_string(m.who.slot) + " as incarnation " + std::to_string(m.who.incarnation) + " on " +
            host_name(m.host));
      });
    case MsgType::kCkptNote:
      return with_parsed<proto::CkptNote>(f, [&](auto& m) { on_ckpt_note(host, m); });
    case MsgType::kCkptWoken:
      return with_parsed<proto::CkptWoken>(f, [&](auto& m) { on_ckpt_woken(m); });
    case MsgType::kCkptTaken:
      return with_parsed<proto::CkptTaken>(f, [&](auto& m) { on_ckpt_taken(m); });
    case MsgType::kLogNote:
      return with_parsed<proto::LogNote>(f, [&](auto& m) { on_log_note(m); });
    case MsgType::kReplayNote:
      return with_parsed<proto::ReplayNote>(f, [&](auto& m) { on_replay_note(m); });
    case MsgType::kRecoveryReport:
      return with_parsed<proto::RecoveryReport>(f, [&](auto& m) { on_recovery_report(m); });
    case MsgType::kJobFailedReport:
      return with_parsed<proto::JobFailedReport>(f, [&](auto& m) {
        record(TimelineEvent("job_failed").add("message", m.message));
        outcome_.on_job_failed(m);
      });
    default: return false;
  }
}

void Launcher::on_rank_start(int32_t host, const proto::RankStart& m) {
  if (m.who.slot >= np_) return;
  SlotInfo& s = slots_[static_cast<size_t>(m.who.slot)];
  uint64_t failed_wall_ns = s.failed_wall_ns;  // the failure this start answers
  s = SlotInfo{m.who, host, m.pid, true};
  s.failed_wall_ns = failed_wall_ns;
  bool respawn = m.who.incarnation > 0;
  if (respawn && transparent()) once_.restart(m.who.slot);
  if (respawn) ckpt_slot_up(m.who.slot);
  record(TimelineEvent(respawn ? (transparent() ? "restart" : "respawn") : "rank_start")
             .add("rank", m.who.slot)
             .add("incarnation", m.who.incarnation)
             .add("pid", m.pid)
             .add("host", host_name(host))
             .add("epoch", epoch_),
         m.wall_ns);
}

void Launcher::on_rank_exit(int32_t host, const proto::RankExit& m) {
  FTMPI_LOG(kDebug, "ftmpirun", "rank %d (pid %d) %s", m.who.slot, m.pid, describe_exit(m.exit).c_str());
  if (m.who.slot < np_) {
    SlotInfo& s = slots_[static_cast<size_t>(m.who.slot)];
    if (s.id == m.who) {
      s.alive = false;
      ckpt_slot_down(m.who.slot);
    }
  }
  record(TimelineEvent("rank_exit")
             .add("rank", m.who.slot)
             .add("incarnation", m.who.incarnation)
             .add("pid", m.pid)
             .add("host", host_name(host))
             .add("how", how_name(m.exit.how))
             .add("value", m.exit.value)
             .add("end", end_name(m.end))
             .add("in_fence", static_cast<int64_t>(m.in_fence)));
  if (transparent() && m.end != proto::EndKind::kFailure)
    for (uint8_t stream : {uint8_t{1}, uint8_t{2}}) out_.eof(m.who.slot, stream);
  // (Transparent mode restarts such a rank while the fence is not done.)
  if (m.end == proto::EndKind::kFailure && m.in_fence && opts_.modes.comm == CommMode::kRebuild)
    say("ftmpirun: rank " + std::to_string(m.who.slot) +
        " died inside MPI_Finalize; not respawned (its program had finished)");
  outcome_.on_rank_exit(m);
}

void Launcher::on_failure_report(const proto::FailureReport& m) {
  const proto::ProcFailure& f = m.failure;
  const std::string& where = host_name(f.host);
  if (f.who.slot < np_) {
    SlotInfo& s = slots_[static_cast<size_t>(f.who.slot)];
    if (s.id == f.who) {
      s.alive = false;
      ckpt_slot_down(f.who.slot);
    }
    s.failed_wall_ns = m.wall_ns;
  }
  record(TimelineEvent("death")
             .add("rank", f.who.slot)
             .add("incarnation", f.who.incarnation)
             .add("pid", f.pid)
             .add("host", where)
             .add("how", how_name(f.exit.how))
             .add("value", f.exit.value)
             .add("seq", f.seq)
             .add("epoch", epoch_)
             .add("job_continues", static_cast<int64_t>(m.job_continues)),
         m.wall_ns);
  if (m.job_continues) say(JobOutcome::failure_line(f, where, true, epoch_, transparent(), m.next));
  outcome_.on_failure(f, where, m.job_continues);
}

void Launcher::on_recovery_report(const proto::RecoveryReport& m) {
  bool begin = m.kind == proto::RecoveryReport::kBegin;
  if (begin) ++rounds_begun_;
  TimelineEvent e(begin ? "recovery_begin" : "recovery_end");
  e.add("round", rounds_begun_).add("epoch", m.epoch).add("failed", slots_of(m.failed)).add("seq", m.last_event_seq);
  if (!begin) {
    epoch_ = m.epoch;
    outcome_.on_round_done(m.duration_ns);
    e.add("alive", m.alive)
        .add("respawned", slots_of(m.respawned))
        .add("duration_ms", static_cast<double>(m.duration_ns) / 1e6);
  }
  record(e, m.wall_ns);
  say(JobOutcome::round_line(m, rounds_begun_, np_));
}

void Launcher::on_replay_note(const proto::ReplayNote& m) {
  if (m.who.slot < 0 || m.who.slot >= np_) return;
  SlotInfo& s = slots_[static_cast<size_t>(m.who.slot)];
  TimelineEvent e(m.phase == 1 ? "replay_start" : "replay_end");
  e.add("rank", m.who.slot).add("incarnation", m.who.incarnation).add("determinants", m.determinants);
  if (m.phase == 1) {
    s.replay_start_wall_ns = m.wall_ns;
    record(e, m.wall_ns);
    return;
  }
  uint64_t replaying = s.replay_start_wall_ns && m.wall_ns > s.replay_start_wall_ns ? m.wall_ns - s.replay_start_wall_ns : 0;
  uint64_t since_failure = s.failed_wall_ns && m.wall_ns > s.failed_wall_ns ? m.wall_ns - s.failed_wall_ns : 0;
  e.add("messages", m.messages)
      .add("suppressed", m.suppressed)
      .add("replay_ms", static_cast<double>(replaying) / 1e6)
      .add("since_failure_ms", static_cast<double>(since_failure) / 1e6);
  record(e, m.wall_ns);
  outcome_.on_replay_done(replaying);
  say(JobOutcome::caught_up_line(m.who, since_failure, m.determinants, m.messages, m.suppressed));
}

void Launcher::on_trace(int32_t host, const proto::Trace& m) {
  switch (m.kind) {
    case proto::Trace::kDetected:
      record(TimelineEvent("detection")
                 .add("rank", m.who.slot)
                 .add("incarnation", m.who.incarnation)
                 .add("pid", m.pid)
                 .add("host", host_name(host)),
             m.wall_ns);
      break;
    case proto::Trace::kNotified:
      record(TimelineEvent("notification")
                 .add("rank", m.who.slot)
                 .add("incarnation", m.who.incarnation)
                 .add("seq", m.seq)
                 .add("host", host_name(host))
                 .add("notified", m.count),
             m.wall_ns);
      break;
    default:
      record(TimelineEvent("recovery_released").add("host", host_name(host)).add("seq", m.seq).add("released", m.count),
             m.wall_ns);
      break;
  }
}

}  // namespace ftmpi::rte

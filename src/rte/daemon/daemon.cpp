#include "rte/daemon/daemon.hpp"

#include <signal.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/clock.hpp"
#include "base/log.hpp"
#include "rte/common/process.hpp"
#include "rte/proto/rank_messages.hpp"

namespace ftmpi::rte {

using proto::MsgType;

namespace {
// Output queued towards the launcher beyond which ranks' pipes stop being read.
constexpr size_t kOutputHighWater = 8u << 20;
// A daemon that never hears its job gives up.
constexpr uint64_t kJobStartTimeoutMs = 60000;
}  // namespace

Daemon::Daemon(const DaemonArgs& args, const auth::Secret& secret)
    : args_(args), secret_(secret), ranks_(loop_, *this) {}

Daemon::~Daemon() {
  if (signal_watch_) loop_.unwatch(signal_watch_);
  if (listen_watch_) loop_.unwatch(listen_watch_);
  if (signal_fd_ >= 0) ::close(signal_fd_);
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (stored_watch_) loop_.unwatch(stored_watch_);
  if (stored_fd_ >= 0) ::close(stored_fd_);
}

int Daemon::run() {
  signal_fd_ = make_signal_fd({SIGTERM, SIGINT, SIGHUP});
  signal_watch_ = loop_.watch(signal_fd_, EPOLLIN, [this](uint32_t) { on_signal(); });
  if (!connect_launcher()) return 1;  // it also opens our listener (on the job network)
  job_timer_ = loop_.after_ms(kJobStartTimeoutMs, [this] {
    job_timer_ = 0;
    FTMPI_LOG(kError, "ftmpid", "no job from the launcher in time; exiting");
    exit_status_ = 1;
    stop_ = true;
  });
  while (!stop_) loop_.run_once(-1);
  // Give the launcher what is still queued for it (DAEMON_DONE, last output).
  for (int i = 0; i < 50 && launcher_ && !launcher_->closed() && launcher_->pending() > 0; ++i)
    loop_.run_once(20);
  return exit_status_;
}

void Daemon::start_job(const proto::JobStart& job) {
  if (job_) {
    FTMPI_LOG(kError, "ftmpid", "second JOB_START ignored");
    return;
  }
  if (args_.host >= static_cast<int32_t>(job.hosts.size())) {
    FTMPI_LOG(kError, "ftmpid", "JOB_START has no entry for host %d", args_.host);
    exit_status_ = 1;
    stop_ = true;
    return;
  }
  if (job_timer_) loop_.cancel(job_timer_);
  job_timer_ = 0;
  job_ = job;
  state_.init(job);
  setup_ckpt_store(job);
  const proto::HostEntry& me = job.hosts[static_cast<size_t>(args_.host)];
  std::string ident = "ftmpid@" + me.name;
  log::set_identity(ident.c_str());
  lost_.assign(job.hosts.size(), false);
  leader_host_ = job.leader;
  if (job.leader == args_.host) leader_ = std::make_unique<Leader>(state_, *this);
  attach_to_parent();
  std::vector<std::pair<Connection*, proto::PeerHello>> early;
  early.swap(early_hellos_);
  for (auto& [c, m] : early)
    if (!c->closed()) on_child_hello(c, m);
  start_heartbeats();
  std::string err;
  // REBUILD moves the ranks of a lost host to the next live host after it:
  // room in the segment for those of the host before this one.
  size_t spare = 0;
  if (job.modes.comm == CommMode::kRebuild && job.hosts.size() > 1) {
    const size_t h = static_cast<size_t>(args_.host), nh = job.hosts.size();
    spare = job.hosts[(h + nh - 1) % nh].slots.size();
  }
  if (!ranks_.create_host_resources(me.slots, spare, job.shm_size, err)) {
    FTMPI_LOG(kError, "ftmpid", "%s", err.c_str());
    exit_status_ = 1;
    stop_ = true;
    return;
  }
  LocalRanks::Launch launch;
  launch.program = job.program;
  launch.args = job.args;
  launch.cwd = job.cwd;
  launch.world_size = job.world_size;
  launch.stdin_slot = job.stdin_slot;
  launch.env = job.env;
  launch.no_aslr = job.modes.transparent_mode();
  launch.det_stage = job.modes.transparent_mode();
  det_complete_.insert(me.slots.begin(), me.slots.end());
  ranks_.spawn_all(launch);
  check_buddy();
  maybe_done();  // a host with no slots is done at once
}

void Daemon::send_boot(LocalRank& r) {
  const proto::JobStart& job = *job_;
  const proto::HostEntry& me = job.hosts[static_cast<size_t>(args_.host)];
  proto::Boot b;
  b.self = r.id;
  b.world_size = job.world_size;
  b.host = args_.host;
  b.hostname = me.name;
  if (r.in_segment) {
    b.local_slots = ranks_.segment_slots(r);
    b.local_index = r.local_index;
    b.shm_fd = ranks_.shm_fd();
    b.shm_size = ranks_.shm_size();
    b.doorbell_fds.assign(ranks_.doorbells().begin(), ranks_.doorbells().end());
  } else {
    // Moved here from a lost host once the segment's spares are taken:
    // alone in its "host", TCP to everyone.
    b.local_slots = {r.id.slot};
    b.local_index = 0;
    b.shm_fd = -1;
    b.shm_size = 0;
    b.doorbell_fds = {r.own_doorbell};
  }
  b.det_fd = ranks_.stage_fd(r);
  if (state_.transparent()) offer_stable_stage(r);
  b.secret = secret_;
  b.tcp_bind_addr = my_addr_;
  b.epoch = state_.epoch();
  b.restarted = r.id.incarnation > 0;
  b.modes = state_.modes();
  r.ctrl->send(b);
}

int Daemon::notify_failures(LocalRank& r) {
  // A respawned process hears of the failures its round covers through the
  // round's result, and of later ones after it (on_recover_done).
  if (!r.booted || !r.running() || !r.ctrl || r.restart_pending()) return 0;
  int sent = 0;
  for (const proto::ProcFailure& f : state_.events()) {
    if (f.seq <= r.notified_upto) continue;
    r.notified_upto = f.seq;
    if (f.who == r.id) continue;
    r.ctrl->send(proto::ProcFailed{f.who, f.seq});
    ++sent;
  }
  return sent;
}

void Daemon::on_control(LocalRank& r, const proto::Frame& f) {
  auto bad = [&](const char* why) {
    FTMPI_LOG(kError, "ftmpid", "rank %d: %s %s; closing its control channel", r.id.slot, why,
              proto::msg_name(f.type));
    r.ctrl->close(why);
  };
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kRankHello: {
      proto::RankHello m;
      if (!proto::parse(f, m) || r.booted) return bad("unexpected");
      if (m.version != proto::kProtocolVersion) return bad("protocol version mismatch in");
      r.booted = true;
      r.hello_pid = m.pid;
      send_boot(r);
      notify_failures(r);
      if (terminating_) r.ctrl->send(proto::JobAbort{1});
      return;
    }
    case MsgType::kCard: {
      proto::CardMsg m;
      if (!proto::parse(f, m) || !r.booted || r.carded) return bad("unexpected");
      r.card = m.card;
      r.card.id = r.id;  // the daemon knows who is on this channel
      r.card.host = args_.host;
      r.card.pid = r.hello_pid;  // the MPI process itself: p2p reads its memory
      r.carded = true;
      if (r.restart_pending()) {
        // A respawn joins through the next round: its card goes up alone, now.
        to_leader(proto::make_frame(proto::CardsUp{{r.card}}));
        check_local_recover();
      } else {
        check_local_cards();
      }
      return;
    }
    case MsgType::kRecoverReq: {
      proto::RecoverReq m;
      if (!proto::parse(f, m) || !r.carded || r.restart_pending() || !state_.recovers()) return bad("unexpected");
      if (r.recover_asked) return;  // already counted for the coming round
      r.recover_asked = true;
      r.recover_sent_up = false;
      check_local_recover();
      return;
    }
    case MsgType::kFenceEnter: {
      proto::FenceEnter m;
      if (!proto::parse(f, m) || !r.booted || r.fence_entered) return bad("unexpected");
      r.fence_entered = true;
      check_local_fence();
      check_local_recover();  // a rank in its fence is not waited for
      return;
    }
    case MsgType::kAbortRequest: {
      proto::AbortRequest m;
      if (!proto::parse(f, m) || !r.booted) return bad("unexpected");
      to_leader(proto::make_frame(proto::AbortUp{r.id, static_cast<int32_t>(r.pid), m.code, m.message}));
      return;
    }
    case MsgType::kSuspect: {
      proto::Suspect m;
      if (!proto::parse(f, m) || !r.booted) return bad("unexpected");
      to_leader(proto::make_frame(proto::SuspectUp{r.id, m.who}));
      return;
    }
    case MsgType::kDetLog: {
      proto::DetLog m;
      if (!proto::parse(f, m) || !r.booted || !state_.transparent()) return bad("unexpected");
      on_det_log(r, m);
      return;
    }
    case MsgType::kDetFetch: {
      proto::DetFetch m;
      if (!proto::parse(f, m) || !r.booted || !state_.transparent() || fetch_waiting_.count(r.id.slot))
        return bad("unexpected");
      on_det_fetch(r);
      return;
    }
    case MsgType::kReplayReport: {
      proto::ReplayReport m;
      if (!proto::parse(f, m) || !r.booted || !state_.transparent()) return bad("unexpected");
      on_replay_report(r, m);
      return;
    }
    case MsgType::kCkptDone: {
      proto::CkptDone m;
      if (!proto::parse(f, m) || !r.booted || !state_.transparent()) return bad("unexpected");
      on_ckpt_done(r, m);
      return;
    }
    case MsgType::kLogStats: {
      proto::LogStats m;
      if (!proto::parse(f, m) || !r.booted || !state_.transparent()) return bad("unexpected");
      on_log_stats(r, m);
      return;
    }
    default: return bad("sent");
  }
}

void Daemon::check_local_cards() {
  if (cards_up_sent_ || terminating_) return;
  proto::CardsUp up;
  for (const LocalRank& r : ranks_.ranks()) {
    if (r.carded)
      up.cards.push_back(r.card);
    else if (r.running())
      return;  // still expecting its card
  }
  cards_up_sent_ = true;
  to_leader(proto::make_frame(up));
}

void Daemon::check_local_fence() {
  if (terminating_) return;
  // Sent again when a respawned rank enters the fence after the others.
  // Ranks waiting for a recovery round (asked, or respawned and not joined)
  // cannot enter the fence before it completes, and the round must learn who
  // is in the fence: they are not waited for.
  proto::FenceUp up;
  for (const LocalRank& r : ranks_.ranks()) {
    if (r.fence_entered) {
      if (!r.fence_sent_up) up.procs.push_back(r.id);
    } else if (r.running() && !r.recover_asked && !r.restart_pending()) {
      return;
    }
  }
  if (up.procs.empty()) return;
  for (LocalRank& r : ranks_.ranks())
    if (r.fence_entered) r.fence_sent_up = true;
  to_leader(proto::make_frame(up));
}

void Daemon::from_leader(const proto::Frame& f) {
  using proto::with_parsed;
  bool ok = false;
  switch (static_cast<MsgType>(f.type)) {
    case MsgType::kCardTableDown:
      ok = with_parsed<proto::CardTableDown>(f, [&](auto& m) {
        proto::CardTable table{std::move(m.cards)};
        for (LocalRank& r : ranks_.ranks())
          if (r.carded && r.running() && r.ctrl) r.ctrl->send(table);
      });
      break;
    case MsgType::kFenceDown:
      ok = with_parsed<proto::FenceDown>(f, [&](auto&) {
        fence_released_ = true;
        for (LocalRank& r : ranks_.ranks()) {
          if (!r.fence_entered) continue;
          // A rank killed in its fence whose death is not reaped yet must
          // not count as released: its end would be taken for a normal one
          // with the kill's status (spec/ft-semantics.md §5).
          ranks_.check(r);
          if (r.running() && r.ctrl && !r.kill_sent) {
            r.fence_done = true;
            r.ctrl->send(proto::FenceDone{});
          } else if (!r.running()) {
            r.awaiting_respawn = false;  // died in the fence it completed: the leader restarts nothing
          }
        }
        maybe_done();
      });
      break;
    case MsgType::kEventDown: {
      proto::EventDown m;
      // The leader's own state already holds the event; followers apply it
      // here. A gap in the sequence would mean a lost event: refuse it.
      ok = proto::parse(f, m) &&
           (state_.apply_failure(m.failure) || m.failure.seq <= state_.events().size());
      if (ok) on_event_down(m);
      break;
    }
    case MsgType::kRespawn:
      ok = with_parsed<proto::Respawn>(f, [&](auto& m) { on_respawn(m); });
      break;
    case MsgType::kRecoverDoneDown:
      ok = with_parsed<proto::RecoverDoneDown>(f, [&](auto& m) { on_recover_done(m); });
      break;
    case MsgType::kEndJob:
      ok = with_parsed<proto::EndJob>(f, [&](auto& m) { terminate(m.exit_code, false); });
      break;
    case MsgType::kProcRestartedDown:
      ok = with_parsed<proto::ProcRestartedDown>(f, [&](auto& m) { on_proc_restarted(m); });
      break;
    case MsgType::kCkptKeptDown:
      ok = with_parsed<proto::CkptKeptDown>(f, [&](auto& m) { on_ckpt_kept_down(m); });
      break;
    case MsgType::kDetWant:
      ok = with_parsed<proto::DetWant>(f, [&](auto& m) { on_det_want(m); });
      break;
    case MsgType::kDetHandover:
      ok = with_parsed<proto::DetHandover>(f, [&](auto& m) { on_det_handover(m); });
      break;
    case MsgType::kCheckProc:
      ok = with_parsed<proto::CheckProc>(f, [&](auto& m) {
        if (LocalRank* r = ranks_.find(m.who.slot); r && r->id == m.who) ranks_.check(*r);
      });
      break;
    default: break;
  }
  if (!ok) {
    FTMPI_LOG(kError, "ftmpid", "bad %s from the leader", proto::msg_name(f.type));
    if (parent_) parent_->close("protocol error");
  }
}

void Daemon::terminate(int32_t exit_code, bool immediate) {
  drop_all_images();
  remove_memory_images();
  if (!terminating_) {
    terminating_ = true;
    if (leader_) leader_->stop();  // the deaths that follow are not events
    if (sync_timer_) loop_.cancel(sync_timer_);
    sync_timer_ = 0;
    for (LocalRank& r : ranks_.ranks())
      if (r.booted && r.running() && r.ctrl) r.ctrl->send(proto::JobAbort{exit_code});
  }
  if (immediate) {
    ranks_.signal_all(SIGKILL);
  } else if (!grace_timer_) {
    ranks_.signal_all(SIGTERM);
    uint32_t grace = job_ ? job_->grace_ms : 1000;
    grace_timer_ = loop_.after_ms(grace, [this] {
      grace_timer_ = 0;
      ranks_.signal_all(SIGKILL);
    });
  }
  maybe_done();
}

void Daemon::on_exit(LocalRank& r) {
  fetch_waiting_.erase(r.id.slot);
  died_at_ns_[r.id.slot] = now_ns();
  r.ckpt_ordered = 0;  // a fetch it made dies with it; the next incarnation asks again
  bool never_joined_ok = !r.booted && r.exit.how == proto::ExitInfo::kExited && r.exit.value == 0;
  if (r.fence_done || never_joined_ok)
    r.end = proto::EndKind::kNormal;
  else if (terminating_)
    r.end = proto::EndKind::kTerminated;
  else
    r.end = proto::EndKind::kFailure;
  FTMPI_LOG(kDebug, "ftmpid", "rank %d (pid %d) %s", r.id.slot, static_cast<int>(r.pid),
            describe_exit(r.exit).c_str());
  // A failed slot of a transparent job may restart from its local image
  // (daemon_wake.cpp); otherwise the image is of no use any more.
  if (r.end != proto::EndKind::kFailure || !state_.transparent()) drop_images_of(r.id.slot);
  if (r.end == proto::EndKind::kFailure) {
    // REBUILD: this slot is not done until the leader respawned it or ended the job.
    // (Transparent mode: also inside MPI_Finalize, until FENCE_DOWN says
    // the fence is done.)
    r.awaiting_respawn = state_.respawns() && (!r.in_fence() || (state_.transparent() && !fence_released_));
    if (job_ && job_->trace)
      trace(proto::Trace{proto::Trace::kDetected, r.id, static_cast<int32_t>(r.pid), 0, 0, 0});
  }
  to_leader(proto::make_frame(proto::ProcExit{r.id, static_cast<int32_t>(r.pid), r.exit, r.end, r.booted, r.in_fence()}));
  check_local_cards();
  check_local_fence();
  check_local_recover();
}

void Daemon::on_finished(LocalRank& r) {
  to_launcher(proto::make_frame(proto::RankExit{r.id, static_cast<int32_t>(r.pid), r.exit, r.end, r.booted,
                                                    r.in_fence()}));
  maybe_done();
}

void Daemon::on_started(LocalRank& r) {
  to_launcher(proto::make_frame(proto::RankStart{r.id, static_cast<int32_t>(r.pid), wall_clock_ns()}));
  proto::CkptWoken m;
  m.who = r.id;
  m.pid = static_cast<int32_t>(r.pid);
  auto w = woken_.find(r.id.slot);
  auto restoring = restoring_.find(r.id.slot);
  if (w != woken_.end()) {
    m.image_of = w->second.image_of;
    m.number = w->second.number;
    m.wake_ns = w->second.wake_ns;
    m.skipped = w->second.skipped;
    woken_.erase(w);
  } else if (restoring != restoring_.end() && restoring->second.incarnation == r.id.incarnation) {
    // A restorer: its output continues from the stored image's fork.
    m.image_of = ProcId{r.id.slot, 0};
    m.number = restoring->second.number;
    m.store = ckpt_store_;
    m.wake_ns = ns_since_death(r.id.slot);
  } else {
    return;
  }
  m.wall_ns = wall_clock_ns();
  to_launcher(proto::make_frame(m));
}

void Daemon::on_output(LocalRank& r, uint8_t stream, std::string data) {
  proto::Io io;
  io.slot = r.id.slot;
  io.stream = stream;
  io.data = std::move(data);
  to_launcher(proto::make_frame(io));
  if (launcher_ && launcher_->pending() > kOutputHighWater) ranks_.pause_output(true);
}

void Daemon::on_output_eof(LocalRank& r, uint8_t stream) {
  to_launcher(proto::make_frame(proto::IoEof{r.id.slot, stream}));
}

void Daemon::on_stdin_consumed(size_t bytes) {
  to_launcher(proto::make_frame(proto::StdinCredit{static_cast<uint32_t>(bytes)}));
}

void Daemon::maybe_done() {
  bool ranks_done = !job_ || ranks_.all_finished();
  if (!terminating_)
    for (const LocalRank& r : ranks_.ranks()) ranks_done = ranks_done && !r.awaiting_respawn;
  if (!ranks_done) return;
  if (exit_without_done_) {
    stop_ = true;  // nobody to report to
    return;
  }
  if (job_ && !done_sent_) {
    done_sent_ = true;
    to_launcher(proto::make_frame(proto::DaemonDone{}));
  }
}

}  // namespace ftmpi::rte

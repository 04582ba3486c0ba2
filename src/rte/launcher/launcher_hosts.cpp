// ftmpirun as the arbiter of which hosts are alive (docs/multi-host.md):
// heartbeats on every daemon link, HOST_SUSPECT reports from the daemons'
// tree, and the VIEW that tells every live daemon which hosts are lost and
// who leads (the lowest live host). A daemon that cannot hear the launcher
// ends its ranks, so after a network split only the launcher's side goes on.
#include <signal.h>

#include <algorithm>

#include "base/clock.hpp"
#include "base/fd.hpp"
#include "base/log.hpp"
#include "base/params.hpp"
#include "rte/launcher/launcher.hpp"
#include "rte/proto/tree_messages.hpp"

namespace ftmpi::rte {

namespace {
// A report about a host the launcher still hears counts only when repeated:
// one broken daemon-to-daemon link must not cost a healthy host.
constexpr int kSuspicionsToDeclare = 3;
}  // namespace

uint32_t Launcher::heartbeat_ms() const {
  if (opts_.heartbeat_ms > 0) return static_cast<uint32_t>(opts_.heartbeat_ms);
  return static_cast<uint32_t>(std::max<int64_t>(1, params::get_int("FTMPI_HEARTBEAT_MS", 200)));
}

uint32_t Launcher::heartbeat_timeout_ms() const {
  uint32_t t = opts_.heartbeat_timeout_ms > 0
                   ? static_cast<uint32_t>(opts_.heartbeat_timeout_ms)
                   : static_cast<uint32_t>(std::max<int64_t>(1, params::get_int("FTMPI_HEARTBEAT_TIMEOUT_MS", 1000)));
  return std::max(t, heartbeat_ms() + 1);
}

void Launcher::start_heartbeats() {
  for (DaemonEntry& d : daemons_)
    if (d.conn) d.conn->touch();  // quiet until now: daemons beat from JOB_START on
  hb_timer_ = loop_.after_ms(heartbeat_ms(), [this] { heartbeat_tick(); });
}

void Launcher::heartbeat_tick() {
  hb_timer_ = 0;
  const uint64_t now = now_ns(), limit = static_cast<uint64_t>(heartbeat_timeout_ms()) * 1000000ull;
  // If this process itself did not run for a good part of the timeout (an
  // overloaded machine, a debugger), the silence it sees may be its own:
  // what the daemons sent meanwhile is still unread. Judge at the next tick.
  const bool starved = hb_last_tick_ns_ != 0 && now - hb_last_tick_ns_ > limit / 2;
  hb_last_tick_ns_ = now;
  for (size_t h = 0; h < daemons_.size(); ++h) {
    DaemonEntry& d = daemons_[h];
    if (!d.conn || d.link_closed || d.lost) continue;
    if (starved) d.conn->touch();
    if (now > d.conn->last_rx_ns() + limit) {
      const std::string quiet = std::to_string((now - d.conn->last_rx_ns()) / 1000000ull);
      // (A daemon of an srun step has no process of ours: the step stands for it.)
      if (d.plan.remote || !(d.pid > 0 ? fd::process_running(d.pid) : step_running())) {
        declare_lost(static_cast<int32_t>(h), "silent for " + quiet + " ms");
        continue;
      }
      // A daemon on this host, over loopback: nothing between us can fail,
      // and its process is there and not stopped. It is starved of CPU
      // (ranks outnumbering cores), not lost; its death closes the link.
      FTMPI_LOG(kInfo, "ftmpirun", "daemon on %s silent for %s ms but running; waiting", d.plan.name.c_str(),
                quiet.c_str());
      d.conn->touch();
    }
    if (d.conn->pending() < (64u << 10)) d.conn->send(proto::Heartbeat{});
  }
  if (!finished()) hb_timer_ = loop_.after_ms(heartbeat_ms(), [this] { heartbeat_tick(); });
}

void Launcher::on_host_suspect(int32_t reporter, const proto::HostSuspect& m) {
  if (m.host < 0 || m.host >= static_cast<int32_t>(daemons_.size())) return;
  DaemonEntry& d = daemons_[static_cast<size_t>(m.host)];
  if (d.lost || outcome_.ending()) return;
  FTMPI_LOG(kInfo, "ftmpirun", "host %s reports host %s: %s", host_name(reporter).c_str(), d.plan.name.c_str(),
            m.why.c_str());
  const uint64_t half = static_cast<uint64_t>(heartbeat_timeout_ms()) * 500000ull;
  bool quiet_here = !d.conn || d.link_closed || now_ns() > d.conn->last_rx_ns() + half;
  if (quiet_here || ++d.suspicions >= kSuspicionsToDeclare)
    declare_lost(m.host, "reported by " + host_name(reporter) + ": " + m.why);
}

void Launcher::declare_lost(int32_t host, const std::string& why) {
  DaemonEntry& d = daemons_[static_cast<size_t>(host)];
  if (d.lost) return;
  d.lost = true;
  ++term_;
  record(TimelineEvent("daemon_lost").add("host", d.plan.name).add("why", why));
  if (host == stdin_host_) stop_stdin();
  int32_t leader = -1;
  proto::View view;
  view.term = term_;
  for (size_t h = 0; h < daemons_.size(); ++h) {
    if (daemons_[h].lost)
      view.lost.push_back(static_cast<int32_t>(h));
    else if (leader < 0)
      leader = static_cast<int32_t>(h);
  }
  if (leader < 0 || outcome_.ending()) {
    if (!outcome_.ending()) outcome_.on_daemon_lost(d.plan.name, why);
    end_job(1, false);
  } else {
    bool leader_changed = leader != leader_host_;
    leader_host_ = leader;
    view.leader = leader;
    say("ftmpirun: lost host " + d.plan.name + " (" + why + "); its ranks count as failed" +
        (leader_changed ? "; the daemon on " + daemons_[static_cast<size_t>(leader)].plan.name + " leads now" : ""));
    for (DaemonEntry& o : daemons_)
      if (!o.lost && o.conn && !o.link_closed) o.conn->send(view);
  }
  if (d.conn && !d.link_closed) d.conn->close("declared lost: " + why);
  // Its daemon ends its ranks once it notices it cannot hear us; if it is
  // frozen (or its agent hangs), the local agent process is killed.
  if (d.pid > 0 && !d.reaped) {
    pid_t pid = d.pid;
    size_t h = static_cast<size_t>(host);
    loop_.after_ms(std::max<uint64_t>(2000, 2ull * heartbeat_timeout_ms()), [this, h, pid] {
      if (!daemons_[h].reaped) kill(pid, SIGKILL);
    });
  }
  maybe_shutdown();
}

}  // namespace ftmpi::rte

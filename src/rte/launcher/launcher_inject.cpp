// Fault injection (--inject) and kill requests from other terminals
// (ftmpirun --kill, contact.hpp). Both end in INJECT_KILL to the daemon that
// owns the rank: the kill is a real signal from the rank's own daemon.
#include <signal.h>
#include <unistd.h>

#include <ctime>

#include "base/log.hpp"
#include "rte/common/shown.hpp"
#include "rte/launcher/launcher.hpp"

namespace ftmpi::rte {

void Launcher::write_contact_file() {
  Contact c;
  c.launcher_pid = getpid();
  c.addr = "127.0.0.1";
  c.port = listen_port_;
  c.secret = secret_;
  c.np = np_;
  c.program = opts_.program;
  c.started = static_cast<int64_t>(std::time(nullptr));
  std::string err;
  // Without the file only --kill is unavailable; the job itself runs.
  if (!contact_.write(c, err)) FTMPI_LOG(kWarn, "ftmpirun", "%s; 'ftmpirun --kill' cannot reach this job", err.c_str());
}

void Launcher::schedule_injections() {
  for (size_t i = 0; i < opts_.injects.size(); ++i)
    loop_.after_ms(inject_time_ms(opts_.injects[i], 0), [this, i] { fire_injection(i, 0); });
}

void Launcher::fire_injection(size_t spec, int k) {
  if (outcome_.ending() || shutdown_sent_) return;
  const InjectSpec& s = opts_.injects[spec];
  if (k + 1 < s.count) loop_.after_ms(s.every_ms, [this, spec, k] { fire_injection(spec, k + 1); });
  int32_t slot = -1, host = -1;
  std::string what, skipped;
  switch (s.target) {
    case InjectSpec::Target::kRank:
      slot = s.rank;
      what = "rank " + std::to_string(slot);
      if (!slots_[static_cast<size_t>(slot)].alive) skipped = what + " is not running";
      break;
    case InjectSpec::Target::kRandom: {
      std::vector<int32_t> live;
      for (const SlotInfo& x : slots_)
        if (x.alive) live.push_back(x.id.slot);
      slot = rng_.pick(live);
      what = "rank " + std::to_string(slot) + " (random, seed " + std::to_string(seed_) + ")";
      if (slot < 0) skipped = "fewer than two ranks are alive";
      break;
    }
    case InjectSpec::Target::kHost:
      for (size_t h = 0; h < daemons_.size(); ++h)
        if (daemons_[h].plan.name == s.host) host = static_cast<int32_t>(h);
      what = "host " + s.host + " (its daemon and ranks)";
      if (host < 0 || !daemons_[static_cast<size_t>(host)].conn) skipped = "host " + s.host + " is gone";
      break;
  }
  if (!skipped.empty()) {
    record(TimelineEvent("inject_skipped").add("spec", s.text).add("reason", skipped));
    say("ftmpirun: injection " + shown(s.text) + " skipped: " + skipped);
    return;
  }
  uint64_t when = wall_clock_ns();  // before the kill: the daemon's stamps follow it
  uint32_t id = send_kill(slot, host);
  TimelineEvent e("inject");
  e.add("spec", s.text).add("request", id);
  if (slot >= 0)
    e.add("rank", slot).add("incarnation", slots_[static_cast<size_t>(slot)].id.incarnation);
  else
    e.add("host", s.host);
  record(e, when);
  say("ftmpirun: injecting failure: kill " + what);
}

Connection* Launcher::kill_link(int32_t slot, int32_t host) const {
  if (slot >= 0) host = slots_[static_cast<size_t>(slot)].host;
  if (host < 0 || host >= static_cast<int32_t>(daemons_.size())) return nullptr;
  const DaemonEntry& d = daemons_[static_cast<size_t>(host)];
  return d.link_closed ? nullptr : d.conn;
}

uint32_t Launcher::send_kill(int32_t slot, int32_t host) {
  Connection* link = kill_link(slot, host);
  if (!link) return 0;
  uint32_t id = next_request_++;
  link->send(proto::InjectKill{id, slot, SIGKILL});
  return id;
}

void Launcher::on_inject_result(int32_t host, const proto::InjectResult& m) {
  record(TimelineEvent("injected")
             .add("request", m.request_id)
             .add("rank", m.who.slot)
             .add("incarnation", m.who.incarnation)
             .add("pid", m.pid)
             .add("host", host_name(host))
             .add("ok", static_cast<int64_t>(m.ok))
             .add("message", m.message),
         m.wall_ns);
  auto w = kill_waiters_.find(m.request_id);
  std::string line = m.ok ? "killed rank " + std::to_string(m.who.slot) + " (pid " + std::to_string(m.pid) + " on " +
                                host_name(host) + ", incarnation " + std::to_string(m.who.incarnation) + ")"
                          : m.message;
  if (w != kill_waiters_.end()) {
    Connection* c = w->second;
    kill_waiters_.erase(w);
    send_kill_reply(c, m.ok, line);
  } else if (!m.ok) {
    // The daemon found no process to kill (it ended, or left MPI_Finalize).
    say("ftmpirun: injection skipped: " + line);
  }
}

bool Launcher::on_control_request(Connection* c, const proto::Frame& f) {
  // One request per connection: its answers end with the connection.
  if (!control_conns_.insert(c).second) return false;
  proto::KillRequest m;
  if (!proto::parse(f, m)) return false;
  c->set_name("kill request");
  std::string refused = job_started_ && !outcome_.ending() ? kill_refusal(m.slots) : "the job is not running";
  if (!refused.empty()) {
    send_kill_reply(c, false, refused);
    return true;
  }
  // All the INJECT_KILLs leave before anything else is handled (the timeline
  // and the terminal come after), so that the ranks fail together: a job
  // recovering in a few ms would otherwise see separate failures.
  uint64_t when = wall_clock_ns();
  std::vector<uint32_t> ids;
  for (int32_t slot : m.slots) ids.push_back(send_kill(slot, -1));
  std::string named;
  for (size_t i = 0; i < ids.size(); ++i) {
    kill_waiters_[ids[i]] = c;
    record(TimelineEvent("kill_request").add("rank", m.slots[i]).add("request", ids[i]), when);
    named += (i ? ", " : "") + std::to_string(m.slots[i]);
  }
  say("ftmpirun: kill request from another terminal: rank" + std::string(ids.size() > 1 ? "s " : " ") + named);
  return true;
}

std::string Launcher::kill_refusal(const std::vector<int32_t>& slots) const {
  // All or nothing: killing some of the ranks would turn the simultaneous
  // failure that was asked for into a different experiment.
  std::set<int32_t> seen;
  for (int32_t slot : slots) {
    std::string rank = "rank " + std::to_string(slot);
    if (slot >= np_) return "no " + rank + " (the job has " + std::to_string(np_) + ")";
    if (!seen.insert(slot).second) return rank + " is named twice";
    if (!slots_[static_cast<size_t>(slot)].alive) return rank + " is not running";
    if (!kill_link(slot, -1)) return "the daemon of " + rank + " is gone";
  }
  return "";
}

void Launcher::send_kill_reply(Connection* c, bool ok, const std::string& message) {
  c->send(proto::KillReply{ok, message});
  // The connection ends with the request: close it after its last answer.
  for (const auto& w : kill_waiters_)
    if (w.second == c) return;
  if (c->pending() == 0) {
    c->close("answered");
  } else {
    c->set_on_drained([c] { c->close("answered"); });
  }
}

}  // namespace ftmpi::rte

// ftmpirun's job: start one daemon per host through a LaunchAgent, accept
// their authenticated connections, send them the job, relay output and stdin,
// print failure and recovery events as they come (and write them to the
// timeline), run fault injections and kill requests from other terminals
// (contact.hpp), and end the job in order: on SIGINT or
// SIGTERM every daemon ends its ranks (SIGTERM, SIGKILL after the grace
// period) and the launcher exits 128+signal once all daemons are gone; a
// second signal kills at once. The launcher waits for every daemon's link to
// close and every local daemon process to be reaped before it exits, so
// nothing it started outlives it.
#pragma once
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "base/auth.hpp"
#include "rte/common/connection.hpp"
#include "rte/common/event_loop.hpp"
#include "rte/launcher/ckpt_report.hpp"
#include "rte/launcher/ckpt_scheduler.hpp"
#include "rte/launcher/contact.hpp"
#include "rte/launcher/inject.hpp"
#include "rte/launcher/launch_agent.hpp"
#include "rte/launcher/options.hpp"
#include "rte/launcher/outcome.hpp"
#include "rte/launcher/output.hpp"
#include "rte/launcher/timeline.hpp"
#include "rte/proto/ckpt_messages.hpp"
#include "rte/proto/event_log_messages.hpp"
#include "rte/proto/runtime_messages.hpp"
#include "rte/proto/tree_messages.hpp"

namespace ftmpi::rte {

struct HostPlan {
  std::string name;
  std::string addr;       // local hosts: the loopback address to bind; remote: the name
  bool remote = false;    // started through the launch agent
  std::vector<int32_t> slots;
};

class Launcher {
 public:
  Launcher(const LaunchOptions& opts, std::vector<HostPlan> hosts, int np, LaunchAgent& agent);
  ~Launcher();
  int run();

 private:
  struct DaemonEntry {
    HostPlan plan;
    pid_t pid = -1;
    int pidfd = -1;
    uint64_t pid_watch = 0;
    bool reaped = false;
    Connection* conn = nullptr;
    bool hello = false;
    bool done = false;
    bool link_closed = false;
    uint16_t peer_port = 0;
    uint16_t ckpt_port = 0;  // its buddy checkpoint server
    std::string addr;     // its address on the job network (DAEMON_HELLO)
    bool lost = false;    // declared lost (launcher_hosts.cpp)
    int suspicions = 0;   // HOST_SUSPECT reports while the launcher still heard it
  };

  // What the launcher knows about each slot, from RANK_START, failure
  // reports and RANK_EXIT: enough to aim injections at live processes.
  struct SlotInfo {
    ProcId id;
    int32_t host = -1;
    int32_t pid = 0;
    bool alive = false;
    uint64_t failed_wall_ns = 0;        // transparent mode: its last failure
    uint64_t replay_start_wall_ns = 0;  // ...and when its replay started
  };

  void start_daemons();
  void accept_daemons();
  void on_frame(Connection* c, const proto::Frame& f);
  bool on_hello(Connection* c, const proto::Frame& f);
  void on_output(const proto::Io& m);

  // ---- reports from daemons (launcher_events.cpp) ----
  bool on_daemon_frame(DaemonEntry& d, const proto::Frame& f);
  void on_rank_start(int32_t host, const proto::RankStart& m);
  void on_rank_exit(int32_t host, const proto::RankExit& m);
  void on_failure_report(const proto::FailureReport& m);
  void on_recovery_report(const proto::RecoveryReport& m);
  void on_replay_note(const proto::ReplayNote& m);
  bool transparent() const { return opts_.modes.transparent_mode(); }
  void on_trace(int32_t host, const proto::Trace& m);
  void record(const TimelineEvent& e, uint64_t wall_ns = 0);

  // ---- checkpoints (launcher_ckpt.cpp) ----
  struct CkptState {
    CkptState(const CkptScheduleConfig& c, int np, uint64_t now)
        : sched(c, np, now), tally(np), slots(static_cast<size_t>(np)), held(static_cast<size_t>(np)) {}
    CkptScheduler sched;
    CkptTally tally;
    struct Slot {
      uint64_t number = 0;   // last checkpoint ordered
      uint64_t timeout = 0;  // timer of the order in flight (0: none)
    };
    std::vector<Slot> slots;
    std::vector<std::vector<uint64_t>> held;  // [sender][receiver]: bytes logged
    uint64_t timer = 0;
  };
  void start_checkpoints();
  void ckpt_tick();
  void order_checkpoint(int32_t slot);
  void finish_checkpoint(const ProcId& who, const proto::CkptFacts& f);
  void on_ckpt_note(int32_t host, const proto::CkptNote& m);
  void on_ckpt_woken(const proto::CkptWoken& m);
  void on_ckpt_taken(const proto::CkptTaken& m);
  void on_log_note(const proto::LogNote& m);
  void ckpt_slot_down(int32_t slot);
  void ckpt_slot_up(int32_t slot);
  std::string ckpt_summary() const;
  // The disk store at the end of the job: its images are removed after a
  // normal end unless --ckpt-keep; otherwise a line says where they are.
  void ckpt_end_disk();

  // ---- injections and kill requests (launcher_inject.cpp) ----
  void schedule_injections();
  void fire_injection(size_t spec, int k);
  // Asks the daemon owning `slot` (or, slot -1, daemon `host` itself) to kill;
  // returns the request id, 0 if that daemon cannot be reached (kill_link).
  uint32_t send_kill(int32_t slot, int32_t host);
  Connection* kill_link(int32_t slot, int32_t host) const;
  void on_inject_result(int32_t host, const proto::InjectResult& m);
  bool on_control_request(Connection* c, const proto::Frame& f);
  // Why a kill request for `slots` is refused as a whole, "" if it is not.
  std::string kill_refusal(const std::vector<int32_t>& slots) const;
  // Answers one rank of a kill request (or the whole request); closes the
  // connection after the last answer.
  void send_kill_reply(Connection* c, bool ok, const std::string& message);
  void write_contact_file();

  // ---- daemons started by one command, srun (launcher_step.cpp) ----
  DaemonLaunch daemon_launch(size_t host, const std::string& job_id) const;
  void start_step(const std::string& job_id);
  void on_step_process();
  void step_watchdog();
  bool step_running() const { return step_pid_ > 0 && !step_reaped_; }

  // ---- liveness and views (launcher_hosts.cpp) ----
  uint32_t heartbeat_ms() const;
  uint32_t heartbeat_timeout_ms() const;
  void start_heartbeats();
  void heartbeat_tick();
  void on_host_suspect(int32_t reporter, const proto::HostSuspect& m);
  void declare_lost(int32_t host, const std::string& why);
  std::vector<std::string> job_environment() const;
  void on_closed(Connection* c, const std::string& why);
  void on_daemon_process(DaemonEntry& d);
  void maybe_start_job();
  void maybe_shutdown();
  void end_job(int32_t exit_code, bool immediate);
  void kill_daemons();
  void on_signal();
  bool finished() const;
  void start_stdin();
  void pump_stdin();
  void on_stdin_credit(size_t bytes);
  void stop_stdin();
  void write_out(int stream, const std::string& bytes);
  void say(const std::string& line);  // a launcher message on stderr
  const std::string& host_name(int32_t host) const;

  EventLoop loop_;
  LaunchOptions opts_;
  int np_;
  LaunchAgent& agent_;
  auth::Secret secret_;
  std::vector<DaemonEntry> daemons_;
  std::vector<std::unique_ptr<Connection>> conns_;
  std::map<Connection*, int32_t> conn_host_;
  OutputRouter out_;
  OutputOnce once_;  // transparent mode
  JobOutcome outcome_;
  int listen_fd_ = -1;
  uint16_t listen_port_ = 0;
  uint64_t listen_watch_ = 0;
  int signal_fd_ = -1;
  uint64_t signal_watch_ = 0;
  int signals_seen_ = 0;
  bool job_started_ = false;
  bool init_done_ = false;  // every rank finished MPI_Init: injections may start
  uint64_t start_wall_ns_ = 0;
  Timeline timeline_;
  ContactFile contact_;
  std::vector<SlotInfo> slots_;
  uint32_t epoch_ = 0;
  std::string launcher_addr_;  // job-network address, "" when every host is local
  uint32_t term_ = 0;        // view number: one more for every lost host
  int32_t leader_host_ = 0;  // lowest live host
  uint64_t hb_timer_ = 0;
  uint64_t hb_last_tick_ns_ = 0;  // when heartbeat_tick last ran (0: not yet)
  int rounds_begun_ = 0;
  InjectRandom rng_{0};
  uint64_t seed_ = 0;
  uint32_t next_request_ = 1;
  std::map<uint32_t, Connection*> kill_waiters_;  // --kill requests awaiting INJECT_RESULT
  std::set<Connection*> control_conns_;            // connections of --kill clients
  bool shutdown_sent_ = false;
  uint64_t startup_timer_ = 0;
  uint64_t partial_timer_ = 0;
  bool stderr_at_line_start_ = true;
  // stdin of the launcher -> rank 0, with at most kStdinWindow bytes unacknowledged.
  int32_t stdin_host_ = -1;
  uint64_t stdin_watch_ = 0;
  bool stdin_is_file_ = false;
  // The one process standing for every daemon when the agent starts them at once.
  pid_t step_pid_ = -1;
  int step_pidfd_ = -1;
  uint64_t step_watch_ = 0;
  bool step_reaped_ = false;
  uint64_t step_links_gone_ns_ = 0;  // when every daemon link was first seen closed
  int step_signals_ = 0;
  bool stdin_done_ = false;
  size_t stdin_in_flight_ = 0;
  std::unique_ptr<CkptState> ckpt_;  // --ckpt-*: null when checkpoints are off
  std::string ckpt_job_;             // names this job's disk images (FTMPI_CKPT_JOB)
};

}  // namespace ftmpi::rte

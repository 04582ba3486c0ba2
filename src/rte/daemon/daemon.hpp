// ftmpid: one per host. It connects back to the launcher, receives the job,
// creates the host's shared memory and doorbells, forks the local ranks and
// serves their control channels, forwards their output, and reports their
// exits. Daemon 0 is also the job's leader (rte/daemon/leader.hpp); the
// others keep one TCP link to it.
//
// Life of a daemon: connect + authenticate to the launcher, DAEMON_HELLO,
// JOB_START, (non-leaders: connect + authenticate to the leader, PEER_HELLO),
// spawn ranks, serve, DAEMON_DONE once every local rank ended and its output
// is forwarded, exit on SHUTDOWN. If the launcher link breaks, or on SIGTERM,
// the daemon ends its ranks (SIGTERM, SIGKILL after the grace period) and exits.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/auth.hpp"
#include "rte/common/connection.hpp"
#include "rte/common/event_loop.hpp"
#include "rte/daemon/job_state.hpp"
#include "rte/daemon/leader.hpp"
#include "rte/daemon/local_ranks.hpp"
#include "rte/proto/runtime_messages.hpp"

namespace ftmpi::rte {

struct DaemonArgs {
  std::string launcher_addr;
  uint16_t launcher_port = 0;
  int32_t host = 0;
  std::string bind_addr = "127.0.0.1";  // where this daemon accepts other daemons
};

class Daemon : public RankListener, public LeaderOutput {
 public:
  Daemon(const DaemonArgs& args, const auth::Secret& secret);
  ~Daemon() override;
  // Serves one job; returns the daemon's exit status.
  int run();

 private:
  // ---- links (daemon_links.cpp) ----
  bool connect_launcher();
  bool listen_for_peers();
  bool connect_leader();
  void accept_peers();
  void on_peer_frame(Connection* c, const proto::Frame& f);
  void on_peer_closed(Connection* c, const std::string& why);
  void on_launcher_frame(const proto::Frame& f);
  void on_launcher_closed(const std::string& why);
  void on_signal();
  void to_leader(const std::vector<uint8_t>& frame);
  void to_daemon(int32_t host, const std::vector<uint8_t>& frame) override;
  void to_all_daemons(const std::vector<uint8_t>& frame) override;
  void to_launcher(const std::vector<uint8_t>& frame) override;

  // ---- job (daemon.cpp) ----
  void start_job(const proto::JobStart& job);
  void from_leader(const proto::Frame& f);
  void terminate(int32_t exit_code, bool immediate);
  void maybe_done();
  void send_boot(LocalRank& r);
  // Sends `r` the failure notices it has not had; returns how many.
  int notify_failures(LocalRank& r);
  void check_local_cards();
  void check_local_fence();
  void check_local_recover();
  void on_event_down(const proto::EventDown& m);
  void on_respawn(const proto::Respawn& m);
  void on_recover_done(const proto::RecoverDoneDown& m);
  void on_inject(const proto::InjectKill& m);
  void trace(const proto::Trace& t);
  void on_control(LocalRank& r, const proto::Frame& f) override;
  void on_output(LocalRank& r, uint8_t stream, std::string data) override;
  void on_output_eof(LocalRank& r, uint8_t stream) override;
  void on_exit(LocalRank& r) override;
  void on_finished(LocalRank& r) override;
  void on_started(LocalRank& r) override;
  void on_stdin_consumed(size_t bytes) override;

  EventLoop loop_;  // first member: everything below unregisters from it
  DaemonArgs args_;
  auth::Secret secret_;
  std::unique_ptr<Connection> launcher_;
  int listen_fd_ = -1;
  uint16_t listen_port_ = 0;
  uint64_t listen_watch_ = 0;
  int signal_fd_ = -1;
  uint64_t signal_watch_ = 0;
  std::unique_ptr<Connection> leader_link_;      // non-leaders
  std::vector<std::unique_ptr<Connection>> peers_;  // leader: accepted daemons
  std::map<Connection*, int32_t> peer_host_;        // identified by PEER_HELLO
  std::map<int32_t, std::vector<std::vector<uint8_t>>> held_;  // frames for daemons not yet connected

  std::optional<proto::JobStart> job_;
  JobState state_;
  std::unique_ptr<Leader> leader_;
  LocalRanks ranks_;

  bool terminating_ = false;
  bool exit_without_done_ = false;  // launcher gone or we were signalled: no DAEMON_DONE, just exit
  bool done_sent_ = false;
  bool stop_ = false;
  int exit_status_ = 0;
  bool cards_up_sent_ = false;
  uint64_t grace_timer_ = 0;
  uint64_t job_timer_ = 0;
};

}  // namespace ftmpi::rte

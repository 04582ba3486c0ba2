// ftmpid: one per host. It connects back to the launcher, receives the job,
// creates the host's shared memory and doorbells, forks the local ranks and
// serves their control channels, forwards their output, and reports their
// exits. The daemons form a tree over the live hosts of the launcher's view
// (rte/daemon/topology.hpp) rooted at the leader (rte/daemon/leader.hpp):
// frames for the leader go up through the parents, the leader's broadcasts
// come down and are kept in every daemon's broadcast log.
//
// Life of a daemon: connect + authenticate to the launcher, DAEMON_HELLO
// (with its address on the job network), JOB_START, attach to its parent
// (PEER_HELLO / PEER_WELCOME), spawn ranks, serve, DAEMON_DONE once every
// local rank ended and its output is forwarded, exit on SHUTDOWN.
// Every link carries heartbeats: a silent tree neighbour is reported to the
// launcher (HOST_SUSPECT), which alone declares hosts lost (VIEW); a silent
// or broken launcher link, or SIGTERM, makes the daemon end its ranks
// (SIGTERM, SIGKILL after the grace period) and exit.
#pragma once
#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/auth.hpp"
#include "base/clock.hpp"
#include "rte/common/connection.hpp"
#include "rte/common/event_loop.hpp"
#include "rte/daemon/ckpt_server.hpp"
#include "rte/daemon/event_log.hpp"
#include "rte/daemon/job_state.hpp"
#include "rte/daemon/leader.hpp"
#include "rte/daemon/local_ranks.hpp"
#include "rte/daemon/topology.hpp"
#include "rte/proto/ckpt_messages.hpp"
#include "rte/proto/gc_messages.hpp"
#include "rte/proto/rank_messages.hpp"
#include "rte/proto/runtime_messages.hpp"
#include "rte/proto/tree_messages.hpp"

namespace ftmpi::rte {

struct DaemonArgs {
  std::string launcher_addr;
  uint16_t launcher_port = 0;
  int32_t host = 0;
  // Where this daemon accepts other daemons and its ranks listen; "auto": the
  // address its connection to the launcher leaves from (its job network).
  std::string bind_addr = "127.0.0.1";
};

class Daemon : public RankListener, public LeaderOutput {
 public:
  Daemon(const DaemonArgs& args, const auth::Secret& secret);
  ~Daemon() override;
  // Serves one job; returns the daemon's exit status.
  int run();

 private:
  // ---- launcher link, listener, heartbeats (daemon_links.cpp) ----
  bool connect_launcher();
  bool listen_for_peers();
  void accept_peers();
  void on_launcher_frame(const proto::Frame& f);
  void on_launcher_closed(const std::string& why);
  void on_signal();
  void start_heartbeats();
  void heartbeat_tick();
  // A tree neighbour went silent or its link broke: tell the launcher, drop the link.
  void suspect_host(int32_t host, const std::string& why);
  void to_launcher(const std::vector<uint8_t>& frame) override;
  int tcp_user_timeout_ms() const;

  // ---- the control tree (daemon_tree.cpp) ----
  void apply_view(const proto::View& v);
  void attach_to_parent();
  void on_parent_frame(const proto::Frame& f);
  void on_parent_closed(const std::string& why);
  void on_child_frame(Connection* c, const proto::Frame& f);
  void on_child_closed(Connection* c, const std::string& why);
  void on_child_hello(Connection* c, const proto::PeerHello& m);
  // An UP frame from a child (or our own): to the leader, or on to the parent.
  void route_up(const proto::Up& m, const std::vector<uint8_t>& encoded);
  void deliver_to_leader(int32_t origin, const std::vector<uint8_t>& frame);
  // A DOWN frame from the parent, or a log fill from a child (`from_child`).
  void on_down(const proto::Down& m, Connection* from_child);
  void forward_down(const std::vector<uint8_t>& encoded, Connection* except);
  void to_leader(const std::vector<uint8_t>& frame);
  void to_daemon(int32_t host, const std::vector<uint8_t>& frame) override;
  void to_all_daemons(const std::vector<uint8_t>& frame) override;
  std::vector<proto::Frame> logged_broadcasts() const override;
  proto::Down log_entry(uint64_t bseq) const;
  void close_tree_link_to(int32_t host);
  bool tree_links_quiet() const { return stop_ || done_sent_ || terminating_; }
  void start_sync_timer();
  // Sends this host's HOST_SYNC up the tree (not with the fault-injection
  // knob FTMPI_FAULT_SILENT_SYNC_HOST naming this host: tests of a daemon
  // that never answers a new leader).
  void send_host_sync();
  // A new leader waits at most this long for the HOST_SYNCs
  // (FTMPI_TAKEOVER_TIMEOUT_MS, default 10 heartbeat timeouts, at least 5 s).
  uint64_t takeover_timeout_ms() const;

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
  // This daemon's local facts for the leader (after a view change).
  proto::HostSync host_sync() const;
  void on_control(LocalRank& r, const proto::Frame& f) override;
  void on_output(LocalRank& r, uint8_t stream, std::string data) override;
  void on_output_eof(LocalRank& r, uint8_t stream) override;
  void on_exit(LocalRank& r) override;
  void on_finished(LocalRank& r) override;
  void on_started(LocalRank& r) override;
  void on_stdin_consumed(size_t bytes) override;
  bool start_over(LocalRank& r) override;  // daemon_ckpt_store.cpp

  // ---- transparent mode: checkpoint images (daemon_ckpt.cpp) ----
  void on_ckpt_order(const proto::CkptOrder& m);
  void on_ckpt_done(LocalRank& r, const proto::CkptDone& m);
  void on_log_stats(LocalRank& r, const proto::LogStats& m);
  void drop_image(pid_t pid);  // SIGKILL; reaped by on_image_exit
  void drop_images_of(int32_t slot);
  void drop_all_images();
  // The memory store's files of this job on this host (an abnormal end: the
  // launcher that removes them at a normal end may be gone).
  void remove_memory_images();
  void on_image_exit(pid_t pid);

  // ---- transparent mode: buddy and disk stores, restorers (daemon_ckpt_store.cpp) ----
  // Before DAEMON_HELLO: every daemon serves buddy images (its port goes
  // to the launcher, and in JOB_START to every daemon).
  void start_ckpt_server();
  // At JOB_START: the store the job uses (FTMPI_CKPT_STORE in its environment).
  void setup_ckpt_store(const proto::JobStart& job);
  // "ADDR:PORT" of the checkpoint server a local rank's images go to: the
  // next live host in host order (the one that adopts the slot if this host
  // is lost), or this daemon's own on a one-host job; "" without the buddy store.
  std::string buddy_for_images() const;
  // CKPT_DONE of an image that is still being stored: its note waits.
  bool hold_note_until_stored(pid_t image, const proto::CkptNote& note, bool collect);
  void on_stored_datagram();
  void finish_stored(pid_t image, const proto::CkptStored* m, const std::string& error);
  // Before (re)spawning `who`: if no local image can serve and a stored one
  // can, the new process is its restorer. `dead` is the slot's previous
  // incarnation here (null when adopted from a lost host).
  void prepare_restore(const ProcId& who, const LocalRank* dead);
  // A socket at the stream of the image our buddy holds for `slot`, or -1.
  int fetch_from_buddy(int32_t slot, uint64_t& number, std::string& from);
  // The newest complete disk image of `slot` (path, number), or number 0.
  std::pair<std::string, uint64_t> newest_disk_image(int32_t slot) const;

  // ---- transparent mode: garbage collection after a checkpoint (daemon_gc.cpp) ----
  void ckpt_kept(const ProcId& who, const proto::CkptFacts& f);
  void on_ckpt_kept_down(const proto::CkptKeptDown& m);
  // A restart of `who` without a local image: true (and the leader is asked
  // to end the job) if garbage collection made a start from the program's
  // start incorrect and no stored image prepared for it (prepare_restore)
  // covers what was collected.
  bool refuse_restart_from_start(const ProcId& who);

  // ---- transparent mode: restarts and the event logger (daemon_event_log.cpp) ----
  void on_det_log(LocalRank& r, const proto::DetLog& m);
  void on_det_fetch(LocalRank& r);
  void on_replay_report(LocalRank& r, const proto::ReplayReport& m);
  void on_proc_restarted(const proto::ProcRestartedDown& m);
  // The buddy: the tree parent, or for the root its first child; null if
  // that link is not up. `host` gets its host.
  Connection* buddy_link(int32_t& host);
  // No other live host: batches are acknowledged once stored here.
  bool alone() const;
  // Takes the batches the rank of `slot` staged in its memfd into the
  // primary log (spec/wire-control.md "Determinant staging"); false (and
  // its channel closed) if the area is corrupt. take_all_staged: every rank's.
  bool take_staged(int32_t slot);
  void take_all_staged();
  // Alone: tells the rank that a staged batch is stable once written.
  void offer_stable_stage(const LocalRank& r);
  // After any tree change: a new buddy gets every primary batch again.
  void check_buddy();
  // A tree link to `host` closed.
  void buddy_link_closed(int32_t host);
  void replicate(Connection* to, int32_t slot, const std::vector<proto::DetBatch>& batches);
  void on_det_repl(Connection* from, const proto::DetRepl& m);
  void on_det_repl_ack(int32_t from_host, const proto::DetReplAck& m);
  // Acknowledges to the local rank of `slot`, if it is `incarnation`, up to `batch`.
  void ack_local(int32_t slot, uint32_t incarnation, uint64_t batch);
  // Hand-over of a moved slot's log: ask every daemon (through the leader).
  void want_determinants(int32_t slot);
  void on_det_want(const proto::DetWant& m);
  void on_det_handover(const proto::DetHandover& m);
  void answer_fetch(int32_t slot);
  // Leader only: DET_WANT / DET_HANDOVER to every daemon, unlogged.
  void broadcast_unlogged(const std::vector<uint8_t>& frame);
  // Frames on a tree link that belong to the event logger; false if not one of those.
  bool on_event_log_frame(Connection* c, int32_t host, const proto::Frame& f, bool& ok);

  EventLoop loop_;  // first member: everything below unregisters from it
  DaemonArgs args_;
  auth::Secret secret_;
  std::unique_ptr<Connection> launcher_;
  int listen_fd_ = -1;
  uint16_t listen_port_ = 0;
  uint64_t listen_watch_ = 0;
  int signal_fd_ = -1;
  uint64_t signal_watch_ = 0;
  std::string my_addr_;  // address on the job network (bind address)

  // The tree. Accepted connections are children once they said PEER_HELLO.
  uint32_t term_ = 0;
  int32_t leader_host_ = 0;
  std::vector<bool> lost_;  // by host, from the launcher's views
  std::unique_ptr<Connection> parent_;
  int32_t parent_host_ = -1;
  bool parent_ready_ = false;  // welcomed: UP frames may go out
  std::vector<std::vector<uint8_t>> up_queue_;  // encoded UP frames waiting for a parent
  std::vector<std::unique_ptr<Connection>> peers_;  // accepted daemon connections
  std::map<Connection*, int32_t> child_host_;       // ...that said PEER_HELLO
  std::vector<std::pair<Connection*, proto::PeerHello>> early_hellos_;  // before our JOB_START
  struct LogEntry {
    uint32_t term;
    std::vector<uint8_t> frame;
  };
  std::vector<LogEntry> log_;  // the leader's broadcasts, bseq = index + 1
  uint64_t heartbeat_timer_ = 0;
  uint64_t heartbeat_last_tick_ns_ = 0;  // when heartbeat_tick last ran (0: not yet)
  // The launcher is our parent on this host (reached over loopback): its
  // silence with its process running means it is starved, not lost.
  pid_t local_launcher_pid_ = -1;
  uint64_t sync_timer_ = 0;

  std::optional<proto::JobStart> job_;
  JobState state_;
  std::unique_ptr<Leader> leader_;
  LocalRanks ranks_;

  bool terminating_ = false;
  // FENCE_DOWN came: MPI_Finalize's fence is complete job-wide, and a rank
  // that dies inside it now is not restarted (its program has finished).
  bool fence_released_ = false;
  bool exit_without_done_ = false;  // launcher gone or we were signalled: no DAEMON_DONE, just exit
  bool done_sent_ = false;
  bool stop_ = false;
  int exit_status_ = 0;
  bool cards_up_sent_ = false;

  // Transparent mode: the event logger's stores, and hand-overs in progress.
  EventLog primary_;   // the slots this daemon runs (all their incarnations)
  EventLog replicas_;  // other daemons' slots, as their buddy
  std::set<int32_t> det_complete_;  // slots whose whole log is in primary_
  std::set<int32_t> fetch_waiting_;  // slots whose rank waits for DET_DATA
  int32_t synced_buddy_ = -1;        // buddy host that has all of primary_ sent to it
  struct Handover {
    uint32_t request = 0;
    std::set<int32_t> answered;  // hosts whose answer to `request` is complete
  };
  std::map<int32_t, Handover> handovers_;  // by slot
  uint32_t next_request_ = 0;
  // Checkpoint images (local store): every image process, and each slot's latest.
  struct ImageProc {
    ProcId owner;
    pid_t owner_pid = -1;  // the process that forked it: names its wake socket
    uint64_t received = 0;  // messages it had received (CkptFacts.received, summed)
    uint64_t number = 0;
    pid_t pid = -1;
    int pidfd = -1;
    uint64_t watch = 0;
  };
  std::map<pid_t, ImageProc> images_;
  // Watches `pid` as an image of `owner`'s checkpoint `number` (made by
  // `owner_pid`, which names its wake socket); false: not a child of ours.
  bool keep_image(const ProcId& owner, pid_t owner_pid, uint64_t received, uint64_t number, pid_t pid);
  std::map<int32_t, pid_t> latest_image_;
  // Restart from a local image (daemon_wake.cpp).
  enum class RestartPlan { kWakeImage, kFromStart };
  RestartPlan plan_restart(const LocalRank& r) const;
  void restart_here(LocalRank& r, const ProcId& who);
  pid_t wake_image(const LocalRank& r, const ChildFds& fds);
  struct Woken {
    ProcId image_of;
    uint64_t number = 0;
    uint64_t wake_ns = 0;
    uint64_t skipped = 0;
  };
  std::map<int32_t, Woken> woken_;         // by slot, until on_started tells the launcher
  std::map<int32_t, uint64_t> died_at_ns_;  // by slot: when its last death was seen
  // Since the slot's last death seen here (0: none seen, e.g. adopted).
  uint64_t ns_since_death(int32_t slot) const {
    auto died = died_at_ns_.find(slot);
    return died != died_at_ns_.end() ? now_ns() - died->second : 0;
  }
  // Stores (buddy, disk): this daemon's checkpoint server, the job's store,
  // the datagram socket on which frozen copies report, the notes waiting for
  // those reports (by image pid), reports that came before their CKPT_DONE,
  // and the restorers started (slot -> image number; number of a stored
  // image that failed to restore, never tried again).
  std::unique_ptr<CheckpointServer> ckpt_server_;
  uint8_t ckpt_store_ = proto::CkptFacts::kStoreLocal;
  std::string ckpt_dir_, ckpt_job_;
  int stored_fd_ = -1;
  uint64_t stored_watch_ = 0;
  struct HeldNote {
    proto::CkptNote note;
    bool collect = false;  // garbage collection follows once it is stored
  };
  std::map<pid_t, HeldNote> held_notes_;
  std::map<pid_t, proto::CkptStored> early_stored_;
  struct Restoring {
    uint32_t incarnation = 0;
    uint64_t number = 0;
  };
  std::map<int32_t, Restoring> restoring_;
  std::map<int32_t, uint64_t> bad_image_;
  uint64_t grace_timer_ = 0;
  uint64_t job_timer_ = 0;
};

}  // namespace ftmpi::rte

// The ranks of this host as operating-system processes: the host's memfd
// segment and eventfd doorbells, fork/exec of each rank with its control
// socketpair and stdio pipes, watching exits through pidfds, reading output,
// feeding stdin. What the protocol makes of all that is the Daemon's business
// (RankListener).
//
// Each rank runs in its own process group (pgid = its pid), so one kill(-pid)
// reaches whatever the rank forked too; the daemon itself runs in its own
// session, away from the terminal's Ctrl-C. PR_SET_PDEATHSIG(SIGKILL) ends a
// rank whose daemon vanishes.
#pragma once
#include <sys/types.h>

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/proc_id.hpp"
#include "rte/common/connection.hpp"
#include "rte/common/event_loop.hpp"
#include "rte/proto/card.hpp"
#include "rte/proto/det_stage.hpp"
#include "rte/proto/runtime_messages.hpp"

namespace ftmpi::rte {

struct LocalRank {
  ProcId id;
  int32_t local_index = 0;  // index in LocalRanks::ranks()
  // Placed on this host at start: shares the host's shm segment. A slot moved
  // here from a lost host (REBUILD) is not, and talks TCP to everyone.
  bool in_segment = true;
  pid_t pid = -1;
  // Protocol progress, maintained by the Daemon.
  bool booted = false;
  int32_t hello_pid = 0;  // the process that said HELLO (may be a child of `pid`, e.g. under a wrapper script)
  bool carded = false;
  bool fence_entered = false;
  bool fence_sent_up = false;   // included in a FENCE_UP
  bool fence_done = false;
  // Entered MPI_Finalize's fence and not released yet: a death now is a
  // failure, but REBUILD does not respawn it (spec/ft-semantics.md §5).
  bool in_fence() const { return fence_entered && !fence_done; }
  // The daemon sent it SIGKILL (fault injection) and has not reaped it yet:
  // it is as good as dead, so FENCE_DOWN must not release it.
  bool kill_sent = false;
  bool recover_asked = false;    // sent RECOVER_REQ, not answered yet
  bool recover_sent_up = false;  // ...and included in a RECOVER_UP
  bool joined = true;            // false for a respawn until its first round completes
  bool awaiting_respawn = false;  // REBUILD: failed; the leader decides (respawn or end)
  uint64_t notified_upto = 0;  // highest failure event seq passed to this rank
  uint64_t det_acked = 0;      // transparent mode: last determinant batch acknowledged to it
  uint64_t ckpt_ordered = 0;   // checkpoint asked of it and not reported yet
  bool ckpt_collect = false;   // ...and garbage collection follows it
  proto::EndKind end = proto::EndKind::kNormal;
  Card card;
  // Process state, maintained by LocalRanks.
  bool exited = false;    // reaped
  bool finished = false;  // reaped and its output streams are closed
  proto::ExitInfo exit;
  std::unique_ptr<Connection> ctrl;

  // Can still act on the job (not yet reaped).
  bool running() const { return !exited; }
  // A respawned incarnation that has not completed its first round.
  bool restart_pending() const { return !joined; }
  int own_doorbell = -1;  // a moved slot's doorbell (BOOT wants one; nothing rings it)

 private:
  friend class LocalRanks;
  int pidfd = -1;
  uint64_t pid_watch = 0;
  // Transparent mode: the slot's determinant staging area on this host,
  // kept across its incarnations (rte/proto/det_stage.hpp).
  int stage_fd = -1;
  void* stage_map = nullptr;
  int out_fd[2] = {-1, -1};  // stdout, stderr read ends
  uint64_t out_watch[2] = {0, 0};
  int in_fd = -1;  // write end of stdin pipe (stdin rank only)
  uint64_t in_watch = 0;
  std::string in_buf;
  bool in_eof = false;
  uint64_t linger_timer = 0;
  bool exit_announced = false;  // on_exit() ran: only then may on_finished() follow
};

class RankListener {
 public:
  virtual ~RankListener() = default;
  virtual void on_control(LocalRank& r, const proto::Frame& f) = 0;
  virtual void on_output(LocalRank& r, uint8_t stream, std::string data) = 0;
  virtual void on_output_eof(LocalRank& r, uint8_t stream) = 0;
  // Reaped; everything it had written is already passed to on_output.
  virtual void on_exit(LocalRank& r) = 0;
  // Its output streams are closed too.
  virtual void on_finished(LocalRank& r) = 0;
  // A process was forked for it (first start or respawn).
  virtual void on_started(LocalRank& r) = 0;
  // Bytes of stdin written to (or dropped for) the stdin rank.
  virtual void on_stdin_consumed(size_t bytes) = 0;
  // Reaped before it said HELLO: true when the listener started the same
  // incarnation again instead of reporting the exit (a restorer whose image
  // could not be restored; nobody knew of that process).
  virtual bool start_over(LocalRank&) { return false; }
};

// The new process's ends of its channels, made as for a fresh spawn
// (control socket, stdin, stdout, stderr).
struct ChildFds {
  int ctrl = -1;
  int in = -1;
  int out = -1;
  int err = -1;
};

class LocalRanks {
 public:
  // Starts a rank's process some other way than fork/exec of the program
  // (a woken checkpoint image): its pid, a child of this daemon, or -1 to
  // spawn the program after all, or kNotStarted: neither (a restart the
  // runtime refused; the rank is reported as exited 127).
  using Starter = std::function<pid_t(const LocalRank& r, const ChildFds& fds)>;
  static constexpr pid_t kNotStarted = 0;

  LocalRanks(EventLoop& loop, RankListener& listener);
  ~LocalRanks();

  // Creates the shared-memory segment and doorbells for `slots` (this host's)
  // plus `spare` local indices that ranks adopted from a lost host take, in
  // order (REBUILD), so that they talk to this host's ranks through memory.
  bool create_host_resources(const std::vector<int32_t>& slots, size_t spare, uint64_t shm_size,
                             std::string& err);
  struct Launch {
    std::string program;
    std::vector<std::string> args;
    std::string cwd;
    int32_t world_size = 1;
    int32_t stdin_slot = -1;
    std::vector<std::string> env;  // "NAME=value" set for every rank
    bool no_aslr = false;          // transparent mode: address randomisation off
    bool det_stage = false;        // transparent mode: a determinant staging area per rank
  };
  // Forks every rank; a rank that cannot be forked is reported as exited 127.
  void spawn_all(const Launch& launch);
  // The next respawn or adoption starts the restorer of the image on
  // `image_fd` (make_restorer) instead of the program; the fd is closed
  // after that spawn.
  void restore_next_from(int image_fd) { restore_fd_ = image_fd; }
  // Starts `r` again as incarnation `who` (same program, arguments,
  // environment, shm segment and doorbell; stdin only ever goes to the first
  // incarnation). The old one's output is closed first (RANK_EXIT follows
  // through on_finished). False if `r` has not been reaped yet.
  // With `start`: that starts the process (falling back to the program).
  bool respawn(LocalRank& r, const ProcId& who, const Starter& start = {});
  // Starts slot `who.slot`, which was placed on a host that is lost, here:
  // same program, at the next spare index of the host's segment (outside it,
  // talking TCP, once the spares are used up). Returns the new entry.
  LocalRank& adopt(const ProcId& who);
  // The segment's slot per local index as BOOT gives it to `r`: spares are
  // -1 (the transport learns who took one from the segment), except r's own.
  std::vector<int32_t> segment_slots(const LocalRank& r) const;

  // A deque: adopt() appends without moving the others (handlers hold indices,
  // callers may hold references across a respawn).
  std::deque<LocalRank>& ranks() { return ranks_; }
  const std::deque<LocalRank>& ranks() const { return ranks_; }
  LocalRank* find(int32_t slot);
  int shm_fd() const { return shm_fd_; }
  uint64_t shm_size() const { return shm_size_; }
  const std::vector<int>& doorbells() const { return doorbells_; }
  // The rank's determinant staging area (-1 / invalid: none).
  int stage_fd(const LocalRank& r) const { return r.stage_fd; }
  proto::StageReader stage(const LocalRank& r) const;
  bool all_finished() const;

  // Sends `sig` to the process group of every rank not yet reaped.
  void signal_all(int sig);
  // Reads everything the rank's output pipes hold now (on_output).
  void drain_output(LocalRank& r);
  // Reaps `r` now if it has exited (a peer suspects it).
  void check(LocalRank& r);
  void write_stdin(const std::string& data);
  void close_stdin();
  // Stops/resumes reading rank output (the launcher link is backed up).
  void pause_output(bool paused);

 private:
  void spawn_one(LocalRank& r, const Launch& launch, const Starter& start = {});
  void create_stage(LocalRank& r);
  void on_pidfd(LocalRank& r);
  void read_output(LocalRank& r, int stream_index, bool until_eof_or_empty);
  void close_output(LocalRank& r, int stream_index);
  void pump_stdin(LocalRank& r);
  void drop_stdin(LocalRank& r);
  void maybe_finished(LocalRank& r);

  EventLoop& loop_;
  RankListener& listener_;
  Launch launch_;
  int restore_fd_ = -1;  // restore_next_from
  std::deque<LocalRank> ranks_;
  int shm_fd_ = -1;
  uint64_t shm_size_ = 0;
  std::vector<int> doorbells_;  // one per local index of the segment, spares included
  std::vector<int32_t> host_slots_;  // the host's own slots, by local index
  bool output_paused_ = false;
};

}  // namespace ftmpi::rte

// Library side of the control protocol: the one channel between a rank and its
// daemon (an inherited socketpair, FTMPI_CTRL_FD). Through it a rank boots
// (learns who it is and gets the host's shared-memory segment and doorbells),
// exchanges contact cards with every other rank, hears about failures, takes
// part in recovery rounds (spec/ft-semantics.md §5), and fences at
// MPI_Finalize. In transparent mode (DESIGN §8) it also hears of restarted
// processes and talks to the event logger (the daemons). The p2p progress
// engine puts fd() in its epoll set and calls poll() when it is readable, so
// notices arrive while a rank sleeps.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "base/auth.hpp"
#include "base/err.hpp"
#include "base/proc_id.hpp"
#include "rte/client/boot_backend.hpp"
#include "rte/proto/card.hpp"
#include "rte/proto/ckpt_messages.hpp"
#include "rte/proto/det_stage.hpp"
#include "rte/proto/frame.hpp"
#include "rte/proto/modes.hpp"
#include "rte/proto/recovery.hpp"
#include "rte/proto/wire.hpp"

namespace ftmpi::rte {

// CommMode, MsgMode, CollMode, RecoveryMode and Modes (FT modes chosen at
// launch, DESIGN §7) are defined in rte/proto/modes.hpp, Card (how to reach
// one process) in rte/proto/card.hpp, and RecoveryResult (what a completed
// recovery round says) in rte/proto/recovery.hpp: the daemons carry them
// without linking this client. They are in this namespace, so users of this header see them
// unchanged.

struct BootInfo {
  ProcId self;
  int32_t world_size = 1;
  int32_t host = 0;       // this host's index
  std::string hostname;   // name the user gave (or gethostname())
  std::vector<int32_t> local_slots;  // slots on this host, by local index
  int32_t local_index = 0;           // my position in local_slots
  int shm_fd = -1;                   // host segment (memfd), -1 if none
  uint64_t shm_size = 0;
  std::vector<int> doorbell_fds;     // eventfd per local index
  auth::Secret secret{};
  std::string tcp_bind_addr = "127.0.0.1";  // address my TCP transport binds
  uint32_t epoch = 0;                // job epoch at (re)start
  // Respawned process. FT-MPI modes: MPI_Init returns MPI_INIT_RESTARTED_NODE.
  // Transparent mode: a restart the program must not notice (the library replays).
  bool restarted = false;
  Modes modes;                       // modes.transparent: transparent mode
  bool singleton = false;            // started without ftmpirun: a job of one
};

// What a restarted process reports about its replay (Client::report_replay).
enum class ReplayPhase : uint8_t { kStart = 1, kCaughtUp = 2 };
struct ReplayStats {
  uint64_t determinants = 0;  // kStart: fetched; kCaughtUp: replayed
  uint64_t messages = 0;      // kCaughtUp: logged messages re-received from peers
  uint64_t suppressed = 0;    // kCaughtUp: own re-sends dropped as duplicates
};

// Largest batch log_determinants() takes (split bigger ones).
inline constexpr size_t kMaxDeterminantBatch = proto::kMaxDetBatch;

// Runtime events delivered by poll(): the one event interface from the
// runtime client upwards. Sinks form a chain: poll() hands each event to the
// first (the p2p engine), which acts on it and passes it on to the next one
// (set_next: the fault-tolerance controller), and so on. A method a sink does
// not override passes its event on unchanged, so a new event is declared
// here once and overridden only where something acts on it; a sink that must
// keep an event from the sinks above it (the engine, for a failure a module
// hides) overrides it and does not call the base method.
class EventSink {
 public:
  virtual ~EventSink() = default;
  void set_next(EventSink* next) { next_ = next; }

  // A process is dead; every survivor gets the same notices in the same order.
  virtual void on_proc_failed(ProcId who, uint64_t event_seq) {
    if (next_) next_->on_proc_failed(who, event_seq);
  }
  // The launcher or another rank ended the job (MPI_Abort elsewhere, SIGINT).
  virtual void on_job_abort(int exit_code) {
    if (next_) next_->on_job_abort(exit_code);
  }
  // The recovery round this process asked for is complete (spec §5 step 3).
  // Every PROC_FAILED with event_seq <= r.last_event_seq was delivered before.
  virtual void on_recovery_done(const RecoveryResult& r) {
    if (next_) next_->on_recovery_done(r);
  }
  // Transparent mode only (other sinks never get these):
  // slot new_id.slot lives again as new_id, has booted and is reachable at
  // `card`. It follows an on_proc_failed for the previous incarnation, except
  // for a slot that was already restarting when this process got its card
  // table (there: host -1 and the new id).
  virtual void on_proc_restarted(ProcId new_id, const Card& card) {
    if (next_) next_->on_proc_restarted(new_id, card);
  }
  // The event logger holds every batch up to and including `batch` (stored
  // by the daemon and, with several hosts, replicated on another host).
  // Delivered in batch order.
  virtual void on_determinants_acked(uint64_t batch) {
    if (next_) next_->on_determinants_acked(batch);
  }

 private:
  EventSink* next_ = nullptr;
};

class Client {
 public:
  Client() = default;
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Reads FTMPI_CTRL_FD; without it, boots through the resource manager that
  // started the process (PMIx, boot_backend.hpp), or else fills a singleton
  // BootInfo (world of one).
  Err init(BootInfo& out);
  int fd() const;
  // Collective over the job: send my card, get everybody's (indexed by slot).
  // A respawned process (BootInfo::restarted) returns when the recovery round
  // that includes it completes: `all` is that round's card table, and
  // restart_result() holds the round's result. In transparent mode a
  // restarted process returns as soon as its card is registered, with the
  // current table (no collective: the others are running; restart_result()
  // stays empty, the epoch does not change).
  Err exchange_cards(const Card& mine, std::vector<Card>& all);
  // Drains whatever the daemon sent; never blocks.
  void poll(EventSink& sink);
  // Collective fence of MPI_Finalize; after it, my exit is a normal one.
  Err finalize();
  // The same fence without blocking, for a process that must keep serving
  // its peers while it waits (transparent mode: a restarted peer replaying
  // may need this process's logged messages): enter it, then poll() (the
  // control fd becomes readable) until fence_done(). finalize() afterwards
  // only waits for what is left.
  Err finalize_begin();
  bool fence_done() const { return fence_done_; }
  // Ends the whole job with this exit code; the launcher prints msg.
  [[noreturn]] void abort(int code, const std::string& msg);
  // A transport error with this process (the runtime decides if it is dead).
  void report_suspect(ProcId who);
  // Asks for a recovery round (spec §5 step 1); never blocks. The answer
  // arrives through poll() as EventSink::on_recovery_done. Only after
  // exchange_cards() and in comm mode rebuild/blank/shrink with recovery mode
  // manual/auto (else Err::kArg). Asking again while a request is outstanding
  // changes nothing (one answer comes). A singleton completes its round at
  // once (epoch + 1, no failures), delivered by the next poll().
  Err request_recovery(uint64_t known_event_seq);
  // ---- transparent mode (the event logger; spec/wire-control.md) ----
  // Hands an opaque batch (1 .. kMaxDeterminantBatch bytes) to the event
  // logger without waiting for its acknowledgement. Returns its number (1, 2, 3, ... per incarnation),
  // acknowledged later through EventSink::on_determinants_acked; 0 if refused
  // (not transparent mode, empty or too large; logged). `stable`: it went
  // into the daemon's staging area while that is the job's only copy, and
  // counts as acknowledged now (no EventSink call follows for it).
  uint64_t log_determinants(const void* bytes, size_t len, bool& stable);
  // Highest batch acknowledged so far (as delivered by poll()).
  uint64_t determinants_acked() const { return det_acked_; }
  // Blocking: every batch the event logger holds for this slot (from all
  // earlier incarnations, and this one's), concatenated in logging order.
  // Used once by a restarted incarnation in MPI_Init. Err::kArg outside
  // transparent mode.
  Err fetch_determinants(std::vector<uint8_t>& out);
  // Replay progress of a restarted incarnation: mpirun prints "rank N caught
  // up after X ms" and records both phases in --timeline and --summary.
  void report_replay(ReplayPhase phase, const ReplayStats& stats);
  // ---- checkpoints (transparent mode; spec/checkpoint-protocol.md) ----
  // The number of the checkpoint the runtime asked for and this process has
  // not reported yet (0: none). Set by poll() and by any blocking wait.
  uint64_t checkpoint_wanted() const { return ckpt_wanted_; }
  // With the buddy store: "ADDR:PORT" of the checkpoint server that the
  // wanted checkpoint's image goes to, and the job secret it asks for.
  const std::string& checkpoint_buddy() const { return ckpt_buddy_; }
  const auth::Secret& job_secret() const { return secret_; }
  // The checkpoint is taken (or could not be): the runtime keeps the image.
  // Blocks until the daemon acknowledges (it read the output written
  // before the fork first).
  void report_checkpoint(const proto::CkptFacts& facts);
  // A checkpoint image runs again as the slot's next incarnation
  // (spec/checkpoint-protocol.md §5): forgets the old channel (its
  // descriptor was closed at the fork), says HELLO on `ctrl_fd` and fills
  // `out` from BOOT, which must name the same slot's next incarnation.
  // exchange_cards() follows, as after init().
  Err resume(int ctrl_fd, BootInfo& out);
  // The sender log's figures (log-size trigger, memory reports).
  void report_log(const proto::LogFigures& figures);
  // The latest checkpoint of this incarnation the runtime holds and allows
  // garbage collection for (CKPT_KEPT; 0: none yet). Set by poll() and by
  // any blocking wait.
  uint64_t checkpoint_kept() const { return ckpt_kept_; }

  // True between request_recovery() and the delivery of its answer.
  bool recovery_requested() const { return recovery_outstanding_; }
  // For a respawned process: the result of the round that included it
  // (empty cards before exchange_cards() returned, and for other processes).
  const RecoveryResult& restart_result() const { return restart_result_; }
  // Notices that arrived while exchange_cards()/finalize() blocked and that
  // poll() has not delivered yet (fd() need not be readable for them).
  // Also frames read from the socket but not parsed yet (wait_for stops at
  // the frame it waits for; those behind it will not wake epoll again).
  bool has_pending_events() const;

 private:
  struct Pending {
    enum Kind { kProcFailed, kJobAbort, kRecoveryDone, kProcRestarted, kDetAck } kind;
    ProcId who;
    uint64_t seq = 0;         // kProcFailed: event; kDetAck: batch
    int exit_code = 0;
    RecoveryResult recovery;  // kRecoveryDone only
    Card card;                // kProcRestarted only
  };
  void send_frame(const std::vector<uint8_t>& frame);
  Err boot_on_channel(BootInfo& out);  // HELLO, BOOT, and what BOOT says
  // Reads what the socket holds; exits the process if the daemon is gone.
  void read_socket();
  // Keeps failure, abort and recovery notices for poll(); true if `f` was one.
  bool queue_notice(const proto::Frame& f);
  // Blocks until a frame of `type` arrives, queueing notices meanwhile.
  void wait_for(proto::MsgType type, proto::Frame& out);
  [[noreturn]] void lost_daemon(const char* why);

  int fd_ = -1;
  bool singleton_ = false;
  ProcId self_;
  int32_t host_ = 0;
  int32_t world_size_ = 1;
  Modes modes_;
  bool restarted_ = false;
  bool exchanged_ = false;            // exchange_cards() completed
  bool fence_entered_ = false;        // FENCE sent
  bool fence_done_ = false;           // FENCE_DONE received
  bool recovery_outstanding_ = false;
  uint32_t epoch_ = 0;                // last epoch installed (BOOT, then each round)
  Card my_card_;                      // what a singleton's rounds report
  RecoveryResult restart_result_;
  uint64_t det_logged_ = 0;  // last batch number handed out
  std::vector<uint8_t> det_frame_;  // the DET_LOG frame being sent
  uint64_t det_acked_ = 0;   // last batch acknowledged (delivered)
  // The daemon's determinant staging area (BOOT det_fd), mapped here for
  // the process's life.
  proto::StageWriter stage_;
  void map_stage(int fd);
  uint64_t ckpt_wanted_ = 0;  // CKPT_REQ not answered yet
  std::string ckpt_buddy_;    // ...and where its image goes (buddy store)
  auth::Secret secret_{};     // from BOOT
  uint64_t ckpt_kept_ = 0;    // highest CKPT_KEPT
  proto::FrameReader reader_;
  std::deque<Pending> pending_;
  std::unique_ptr<BootBackend> ext_;  // booted without a daemon: everything goes there
};

}  // namespace ftmpi::rte

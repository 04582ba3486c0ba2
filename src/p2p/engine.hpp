// The point-to-point engine: one per process, created by MPI_Init. It owns
// the transports, the matching table, the request pool and the epoll set in
// which a blocked call sleeps (control channel, TCP sockets, shm doorbell).
//
// Progress is single-threaded and happens only inside MPI calls (DESIGN §5).
// Upper layers start operations with start_send/start_recv and drive them
// with wait_until(); they learn about process failures through the runtime's
// event interface (rte::EventSink): the engine is the first sink of the
// chain and passes events on to the one set with set_next (the
// fault-tolerance controller).
#pragma once
#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <set>
#include <vector>

#include "base/clock.hpp"
#include "base/err.hpp"
#include "base/proc_id.hpp"
#include "comm/model/communicator.hpp"
#include "p2p/frame_guard.hpp"
#include "p2p/match.hpp"
#include "p2p/module_seam.hpp"
#include "p2p/request.hpp"
#include "p2p/wire.hpp"
#include "rte/client/client.hpp"

namespace ftmpi::p2p {

inline constexpr int kProcNull = -1;
inline constexpr int kAnySource = -2;

// Receives the CONTROL frames of one handler id (control.cpp). Control
// frames carry an upper layer's protocol (the collectives' agreement) beside
// the matching traffic: they are never matched, never held back by epochs
// (only by an incarnation not installed yet) and never purged by a recovery.
// Between two processes they keep their order with every other frame.
class ControlHandler {
 public:
  virtual ~ControlHandler() = default;
  // Runs inside a transport poll: may send (send_control, isend), must not
  // poll or wait. `from` may already be known dead: the handler decides.
  virtual void on_control(ProcId from, const uint8_t* data, size_t len) = 0;
  // MPI_Finalize, before this process waits for its sends and fences: after
  // the fence it answers nothing, so this is the last chance to tell peers.
  virtual void on_finalize() {}
  // This process is about to join a recovery round (Engine::close_epoch):
  // it will never enter another call of `epoch`, its next calls run in a
  // later epoch. Peers still waiting for its part in such a call must be
  // told now: it waits in the round until they join it.
  virtual void on_epoch_closed(uint32_t epoch) { (void)epoch; }
};

// Work of an upper layer that advances inside progress(): the schedules
// of the nonblocking collectives (src/coll/nbc). poll() runs at the end of
// every progress pass while the hook is set (its owner sets it only while
// it has work: an idle hook would cost every pass a call) and returns how
// many steps it took; it must not wait.
class ProgressHook {
 public:
  virtual ~ProgressHook() = default;
  virtual int poll() = 0;
};

// What a completed recovery round changes in the engine (recovery.cpp).
struct RecoveryInstall {
  uint32_t epoch = 0;
  std::vector<rte::Card> cards;        // every slot; host < 0: dead
  bool discard_all = false;            // message mode RESET
  comm::Communicator* world = nullptr; // already holds the new membership
  comm::GroupRef old_world;            // its membership before the round
};

// A message as MPI_Status reports it: what a probe found, or what recv_wait
// delivered.
struct MessageStatus {
  int source = 0;
  int tag = 0;
  uint64_t bytes = 0;
  // Probe: kOther when the named source has failed and nothing of it is
  // queued. recv_wait: kTruncate when the message was longer than the buffer.
  Err err = Err::kOk;
};

class Engine final : public rte::EventSink {
 public:
  Engine();
  ~Engine() override;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Err init(rte::Client& client, const rte::BootInfo& boot);
  Err finalize();

  ProcId self() const { return self_; }
  int world_size() const { return static_cast<int>(cards_.size()); }
  const rte::BootInfo& boot() const { return boot_; }
  const std::vector<rte::Card>& cards() const { return cards_; }
  uint32_t epoch() const { return epoch_; }
  // Ranks on this host (spare indices of the segment not taken do not count).
  int local_ranks() const;
  rte::Client& client() { return *client_; }
  void set_progress_hook(ProgressHook* h) { hook_ = h; }

  // Module seam (module_seam.hpp, spec/module-seam.md). Null: no module.
  void set_module(ModuleSeam* m) { module_ = m; }
  ModuleSeam* module() const { return module_; }
  // `r` reaches the application (every completion path of src/api calls this
  // right before reporting the status).
  void delivered(const Request* r) {
    if (module_) module_->on_delivered(r);
  }
  // A Test-family call, Waitany/Waitsome or Iprobe decided `pick` (see
  // ModuleSeam::on_poll); a module may rewrite it.
  void decide_poll(PollKind kind, uint8_t* pick, size_t n) {
    if (module_) module_->on_poll(kind, pick, n);
  }
  // The module lets the sends it held (SendVerdict::kHold) go.
  void release_held();
  // A slot whose failure the module hid (FailurePolicy::kHide) runs again as
  // the incarnation of `card`: the engine connects to it, re-queues its own
  // unfinished sends to it, lets the module inject (on_peer_back) and then
  // sends. Frames from that incarnation held until now are delivered.
  void peer_restarted(const rte::Card& card);
  // Queues a message the module logged for process `slot` (its current
  // incarnation) with the envelope's ctx, tag and sequence number, behind
  // every queued frame of lower sequence number: the bytes are copied. False
  // (nothing queued) when the engine still has that message queued itself,
  // or the slot is not known.
  bool inject(int32_t slot, const Envelope& e, const void* data, uint64_t len);
  // The last channel sequence number given to a send to `slot` (0: none).
  uint64_t last_send_seq(int32_t slot) const;
  // Nonblocking collectives (coll/nbc): may round `round` (> 0) of this
  // process's schedule number `sched` start its sends now (see
  // ModuleSeam::round_may_start)? Then round_started() once they are
  // started: sends kept unnumbered meanwhile (ModuleSeam::may_number) go on.
  bool round_may_start(uint64_t sched, uint32_t round) { return !module_ || module_->round_may_start(sched, round); }
  void round_started() {
    if (!module_) return;
    module_->round_started();
    number_kept();
  }
  void schedule_started(uint64_t sched) {
    if (module_) module_->schedule_started(sched);
  }
  void schedule_ended(uint64_t sched) {
    if (module_) module_->schedule_ended(sched);
  }
  // CANCELs the module deferred (ModuleSeam::defer_cancels): answered now,
  // as on arrival; one whose sender died meanwhile is dropped (its next
  // incarnation asks again if it still waits).
  bool has_deferred_cancels() const { return !deferred_cancels_.empty(); }
  void answer_deferred_cancels();

  Request* alloc_request() { return pool_.alloc(); }
  Request* request_at(uint32_t idx) const { return pool_.at(idx); }
  void release_request(Request* r) { pool_.release(r); }
  // `r` has data, comm, peer_rank, tag, ctx (and mode) filled in.
  void start_send(Request* r);
  void start_recv(Request* r);
  // The per-message path of the blocking calls (direct.cpp), for a
  // contiguous buffer: what needs no request is done without one (with a
  // module on, when it lets the send go at once, or the receive names its
  // source; the seam sees them with no request). send_now writes a standard-mode EAGER at once when the destination
  // is another live process of the named incarnation, nothing is queued to
  // it and its transport has room. False: nothing happened, the caller
  // takes the general path (a request). The checks and outcomes are those
  // of start_send / start_recv for the same case.
  bool send_now(const comm::Communicator& c, uint64_t ctx, int peer_rank, int tag, const void* buf, size_t count,
                const dtype::TypeRef& type);
  // recv_wait takes an EAGER message already in the unexpected queue or,
  // when nothing is there yet, waits for it (wait_until's
  // spin, yield and sleep policy) without posting a receive: for a buffer
  // of at most 64 bytes and a source that is alive (or a wildcard someone
  // can satisfy). An arrival waits in the unexpected queue until taken, as
  // it would for a receive posted a moment later. False (nothing taken):
  // the caller takes the general path, which the wait also falls back to
  // when a failure notice arrives or the message is an RTS. An interrupt
  // (interrupt_blocking) ends it as it ends a posted blocking receive: true,
  // out->err kOther.
  bool recv_wait(const comm::Communicator& c, uint64_t ctx, int peer_rank, int tag, void* data, uint64_t cap,
                 MessageStatus* out);
  // Shorthands for internal users (collectives, FT protocols): build and
  // start a request on context `ctx` of communicator `c`.
  // through_rings: a large message goes through the shared-memory rings in
  // pieces, sender and receiver copying at once, instead of the receiver's
  // single process_vm_readv. With few ranks per host and big rings that is
  // faster for one message at a time (1 MiB, 2 ranks: 65 us against 91),
  // slower when many transfers compete (streaming, all-to-all).
  Request* isend(const void* buf, size_t count, const dtype::TypeRef& type, comm::Communicator& c, uint64_t ctx,
                 int peer_rank, int tag, SendMode mode = SendMode::kStandard, bool through_rings = false);
  // Bytes of one shared-memory ring between two local ranks (0: none).
  uint64_t shm_ring_bytes() const;
  Request* irecv(void* buf, size_t count, const dtype::TypeRef& type, comm::Communicator& c, uint64_t ctx,
                 int peer_rank, int tag);
  // Waits for all, releases them, and returns the first error (or kOk).
  // For the library's internal exchanges (communicator creation): it gives
  // up with MPI_ERR_OTHER as soon as one request fails, a failure notice
  // interrupts the engine, or (with `watch`) a non-blank member of that
  // communicator is dead, abandoning the rest; a peer that gave up will
  // never send, so waiting on would hang (spec/ft-semantics.md §4.1).
  Err wait_all(Request* const* reqs, size_t n, const comm::Communicator* watch = nullptr);
  // Withdraws a receive that has not matched yet (true), or says it is too late.
  bool cancel_recv(Request* r);
  // MPI_Cancel (cancel.cpp). Receives: cancel_recv. Sends: withdrawn locally
  // if still queued here, else a CANCEL asks the receiver to drop the message
  // if it has not matched it; until the answer arrives the request is not
  // complete (even an eager send that had completed), so Wait/Test report
  // either a cancelled send that never delivers or a normal completion.
  // Works on the user request of a buffered send too (see SendMode).
  void cancel(Request* r);
  bool iprobe(comm::Communicator& c, uint64_t ctx, int source, int tag, MessageStatus* out);
  // An internal user (a collective that stopped) gives up on `r`: the engine
  // releases it when it completes, and MPI_Finalize does not wait for it. A
  // send the receiver has not matched is withdrawn (cancel protocol: never
  // delivered late); a posted receive leaves the queue.
  void abandon(Request* r);

  // Control frames (control.cpp). Handler ids are small numbers chosen by
  // the upper layers (kControlIds of them); frames for an id nobody
  // registered yet are kept until someone does.
  static constexpr uint8_t kControlIds = 4;
  void set_control_handler(uint8_t id, ControlHandler* h);
  // Queues `len` bytes (at most max_control_bytes()) for process `to`; a
  // frame to a process known dead, or to an incarnation that is not the
  // current one, is dropped (false). A frame to oneself is delivered by the
  // next progress(), never from inside this call.
  bool send_control(ProcId to, uint8_t id, const void* data, size_t len);
  size_t max_control_bytes() const { return max_control_; }
  // Called by the fault-tolerance controller as this process joins a
  // recovery round: the current epoch is closed (on_epoch_closed of every
  // control handler). epoch_closed(e): no call of epoch e will start here
  // any more.
  void close_epoch();
  bool epoch_closed(uint32_t e) const { return e < closed_below_; }

  // Fault tolerance (recovery.cpp, spec/ft-semantics.md §4.1 and §6).
  // Withdraws every blocking operation in progress that has not matched (it
  // ends with MPI_ERR_OTHER; a withdrawn send never delivers) and marks the
  // engine interrupted until clear_interrupt(): waits on non-blocking requests
  // check interrupted() and return early.
  void interrupt_blocking();
  void clear_interrupt() { interrupted_ = false; }
  bool interrupted() const { return interrupted_; }
  void install_recovery(const RecoveryInstall& in);
  // A communicator object is gone: its contexts' empty queues can go too.
  void forget_context(uint64_t ctx) {
    match_.forget(ctx);
    match_.forget(comm::coll_context(ctx));
  }
  // Recovery mode IGNORE (set by the fault-tolerance layer): a blocking
  // MPI_ANY_SOURCE receive or probe on a communicator where no other
  // process is alive can never match; it fails with MPI_ERR_OTHER instead
  // of waiting forever (spec/ft-semantics.md §4.2). Other modes wait: a
  // recovery may bring senders back.
  void set_lonely_wildcards_fail(bool on) { lonely_wildcards_fail_ = on; }
  // How many failure notices this engine has installed (a cheap "did
  // anything change" test for upper layers watching a member list).
  uint64_t failure_count() const { return failures_; }
  // Is this process alive as far as the runtime has told us?
  // A module that hides failures keeps the communicators' old incarnations:
  // the slot's current incarnation stands for them.
  bool alive(ProcId p) const;

  // Checkpoints (image_support.cpp): no transfer of this process is in
  // progress: nothing queued or streaming, no send waiting for an answer,
  // no receive that matched and waits for data, nothing on a TCP socket.
  // A fork now is an image that needs no engine protocol state restored.
  bool quiescent();
  // The lowest sequence number from `slot` of a large message that arrived
  // here as an RTS and was not taken yet (0: none). Its data is still in the
  // sender's memory, not in ours: an image of this process has the message
  // counted as received but needs its sender's copy again.
  uint64_t first_unpulled(int32_t slot);
  // A checkpoint image (taken when quiescent()) runs again as the slot's
  // next incarnation `boot.self`; the client has said HELLO on its new
  // channel and holds `boot`. The transports of the image's process are
  // forgotten, not closed (their descriptors were closed at the fork and
  // the numbers may be reused), new ones are opened from `boot`, the card
  // goes to the runtime and the current table is installed: live peers are
  // connected (listed in `up`: the module re-sends its log to them),
  // restarting ones wait behind a gate (peer_restarted), and an RTS that
  // was unexpected here waits for its sender's copy (the sender sends it
  // again).
  Err resume(const rte::BootInfo& boot, std::vector<ProcId>& up);
  // After resume, once the module re-sent its log to the live peer `slot`:
  // the image's cancels still waiting for an answer from it ask again,
  // naming the re-sent copy (the answer went to the dead incarnation, and
  // the receiver answers a copy of a message it withdrew "withdrawn").
  void ask_cancels_again(int32_t slot) { resend_cancels(slot); }
  // After resume: wildcard receives the image had posted and not matched
  // were posted live (any source); `force` gives one of them, in posting
  // order, the logged (slot, seq) of its match, as force_source does for a
  // receive posted in a replay (false: nothing logged, it stays open).
  template <typename Force>
  void force_open_wildcards(Force&& force) {
    match_.for_each([&](uint64_t, MatchTable::Queues& q) {
      for (Request* r = q.posted_head; r;) {
        Request* next = r->qnext;
        int32_t slot = kAnySlot;
        uint64_t seq = 0;
        if (r->peer_rank == kAnySource && r->want_seq == 0 && force(static_cast<const Request*>(r), &slot, &seq))
          restrict_wildcard(q, r, slot, seq);
        r = next;
      }
    });
  }

  // One non-blocking pass over everything; returns the number of events.
  int progress();
  template <typename Done>
  void wait_until(Done&& done) {
    if (done()) return;
    uint64_t spin_start = 0;
    unsigned iter = 0;
    while (!done()) {
      if (progress() > 0) {
        spin_start = 0;
        continue;
      }
      if (done()) break;
      if (spin_ns_ > 0 && (++iter & 31) != 0) continue;
      uint64_t now = spin_ns_ > 0 ? now_ns() : 0;
      if (spin_start == 0) spin_start = now;
      if (spin_ns_ > 0 && now - spin_start < spin_budget(now)) {
        // A send the module holds waits for the runtime's daemon (an event
        // logger's acknowledgement), which needs a core: give this one up.
        if (!oversubscribed() && !holding_) continue;
        // Ranks outnumber cores: the partner most likely waits for this core.
        if (yield_when_crowded_) {
          sched_yield();
          continue;
        }
      }
      block();
      spin_start = 0;
    }
  }
  void wait(Request* r) {
    wait_until([r] { return r->complete; });
  }
  // Marks r complete and runs its completion callback.
  void complete(Request* r);

  // rte::EventSink: the engine acts on these, then passes them on (a
  // failure the module hides is not passed on).
  void on_proc_failed(ProcId who, uint64_t event_seq) override;
  void on_job_abort(int exit_code) override;
  // Transparent mode: a hidden failure's slot runs again (peer_restarted),
  // and the event logger's acknowledgements go to the module.
  void on_proc_restarted(ProcId new_id, const rte::Card& card) override {
    if (module_) peer_restarted(card);
    EventSink::on_proc_restarted(new_id, card);
  }
  void on_determinants_acked(uint64_t batch) override {
    if (module_) module_->on_determinants_acked(batch);
    EventSink::on_determinants_acked(batch);
  }

 private:
  // Defined in engine_state.hpp, which only src/p2p includes: the upper
  // layers compile against none of the transports.
  struct Link;
  struct Links;
  struct Pending;
  struct Peer;
  struct Held;
  struct Unclaimed;

  // The transports (links.cpp): made by init(), given each peer's card by
  // connect_peer() (at init and whenever the slot runs a new process), and
  // closed by close_links(). Nothing else creates or destroys transport state.
  Err open_links(const rte::BootInfo& boot);
  void connect_peer(int32_t slot, const rte::Card& c);
  void disconnect_peer(Peer& p);
  void close_links();
  // Adds `fd` to the epoll set a blocked call sleeps on (tags: engine_state.hpp).
  void watch_fd(int fd, uint64_t tag);
  // What the transports deliver (Links is their sink).
  void on_frame(int32_t peer_slot, const uint8_t* hdr, size_t hlen, const uint8_t* payload, size_t plen);
  void on_peer_lost(int32_t peer_slot);

  Peer& peer(int32_t slot);
  bool oversubscribed() const;
  uint64_t spin_budget(uint64_t now) const {
    return now - rndv_at_ns_ < kRndvWindowNs ? std::max(spin_ns_, kRndvSpinNs) : spin_ns_;
  }
  void block();
  int poll_fds(int timeout_ms);

  // send side (send.cpp)
  void queue_send(Peer& p, int32_t slot, Request* r, bool held);
  bool try_send_match(Peer& p, Request* r);
  bool try_send_ctl(Peer& p, const CtlHdr& c);
  void send_ctl(int32_t slot, const CtlHdr& c);
  void send_self(Request* r);
  int flush_pending();
  int push_data();
  bool push_one(Request* r);
  void on_cts(const CtlHdr& c);
  void on_fin_or_ack(const CtlHdr& c);

  // receive side (recv.cpp)
  void on_match_frame(const MatchHdr& h, const uint8_t* rest, size_t rest_len, const uint8_t* payload,
                      size_t plen);
  void deliver_eager(Request* r, const MatchHdr& h, const uint8_t* payload, size_t plen);
  void deliver_rts(Request* r, const MatchHdr& h, const RtsInfo& info, const uint8_t* iovs);
  bool cma_read(Request* r, const RtsInfo& info, const uint8_t* iovs, uint64_t n);
  void match_unexpected(Request* r, Unexpected* u);
  void on_data(const CtlHdr& c, const uint8_t* payload, size_t plen);
  void set_recv_status(Request* r, const MatchHdr& h);
  // The blocking calls without a request (direct.cpp).
  enum class Take { kTaken, kAbsent, kRefused };  // kRefused: a match only the general path handles
  Take take_eager(const comm::Communicator& c, uint64_t ctx, int32_t slot, int tag, void* data, uint64_t cap,
                  MessageStatus* out);
  bool source_slot(const comm::Communicator& c, int peer_rank, int32_t* slot) const;
  bool taken(Take t);  // recv_wait's answer for a take (a module sees the delivery)

  // module seam (module_seam.cpp)
  Envelope envelope_of(const MatchHdr& h) const;
  // A message this process sends to `slot`, as on_send sees it.
  Envelope outgoing(const Peer& p, int32_t slot, uint64_t ctx, int tag, uint64_t len, uint64_t seq,
                    bool sync) const;
  bool announce_send(Peer& p, int32_t slot, Request* r);  // true: the module holds it
  // send_now's announce: false (nothing logged) unless the module lets the
  // send go and the transport has room for it now; sets h.sum, and
  // *sum_of_bytes when a receiver could compute it (Envelope::sum_of_bytes).
  bool announce_now(Peer& p, int32_t slot, MatchHdr& h, const void* buf, size_t count, const dtype::TypeRef& type,
                    bool* sum_of_bytes);
  // start_send from the sequence number on (the destination is resolved).
  void number_and_send(Peer& p, Request* r);
  void number_kept();  // the kept sends the module now lets take their numbers
  void force_wildcard(Request* r);
  void matched(const Request* r, const MatchHdr& h) {
    if (module_) module_->on_matched(envelope_of(h), r, false);
  }
  // kDuplicate handled: true when the frame must go no further.
  bool screen_arrival(const MatchHdr& h, const RtsInfo& info, const uint8_t* iovs);
  bool resume_from(const MatchHdr& h, const RtsInfo& info, const uint8_t* iovs);
  // A duplicate synchronous EAGER whose first copy is still unexpected: the
  // copy now names the re-executed send (true), to be acknowledged at its match.
  bool rebind_duplicate(const MatchHdr& h);
  void hide_failure(int32_t slot);
  // Acknowledges a synchronous-mode EAGER to its sender once it matched.
  inline void ack_sync(const MatchHdr& h);  // engine_state.hpp
  // Cancels pending towards a slot whose failure was hidden ask its new
  // incarnation, naming the copy of their message that goes to it again.
  void resend_cancels(int32_t slot);
  // fault tolerance (recovery.cpp)
  Verdict guard(int32_t src_slot, const FrameStamp& f) const;
  // `successor`: the frame comes from an incarnation of `slot` not installed yet.
  void hold(int32_t slot, bool successor, const uint8_t* hdr, size_t hlen, const uint8_t* payload, size_t plen);
  void purge_unexpected_from(int32_t slot);
  void mark_dead(int32_t slot);
  void end_all_pending(Err err);
  void drop_collective_leftovers();
  void install_peer(int32_t slot, const rte::Card& c);  // the peer's queue must be empty or kept on purpose
  size_t replay_held();
  // `r` takes message (slot, seq) only (false: no such slot, left as it was).
  bool aim_wildcard(Request* r, int32_t slot, uint64_t seq);
  // force_open_wildcards: `r` (posted in `q`) takes message (slot, seq) only.
  void restrict_wildcard(MatchTable::Queues& q, Request* r, int32_t slot, uint64_t seq);

  // control frames (control.cpp)
  bool try_send_raw(Peer& p, const uint8_t* frame, size_t len);
  void on_control(int32_t peer_slot, const uint8_t* hdr, size_t hlen, const uint8_t* payload, size_t plen);
  int deliver_self_control();
  void finalize_handlers();

  // cancel protocol (cancel.cpp)
  void mark_withdrawn(Request* r);
  bool unqueue(Request* m);
  // Drops message `seq` of src_slot's channel if it is unexpected here.
  bool withdraw_unexpected(int32_t src_slot, uint64_t seq);
  void on_cancel(int32_t from_slot, const CtlHdr& c);
  void on_cancel_reply(const CtlHdr& c);
  void end_cancel_wait(Request* w, bool withdrawn);
  void fail_requests_of(int32_t slot, Err err);
  // IGNORE only: no process of c's peer group but this one is alive, so a
  // wildcard receive on c can never match (set_lonely_wildcards_fail).
  bool nobody_left_to_send(const comm::Communicator& c) const;

  rte::Client* client_ = nullptr;
  rte::BootInfo boot_;
  std::vector<rte::Card> cards_;
  ProcId self_;
  uint32_t epoch_ = 0;
  ProgressHook* hook_ = nullptr;
  ModuleSeam* module_ = nullptr;

  std::unique_ptr<Links> links_;
  MatchTable match_;
  RequestPool pool_;
  TypedBuffer direct_send_;  // send_now's message as a module's on_send reads it
  std::vector<Peer> peers_;
  std::vector<int32_t> pending_peers_;  // peers with a non-empty pending queue
  std::vector<Request*> pushing_;       // sends streaming DATA
  int active_sends_ = 0;
  int abandoned_sends_ = 0;  // active sends nobody waits for (abandon())
  uint64_t failures_ = 0;

  // control frames
  ControlHandler* control_[kControlIds] = {};
  uint32_t closed_below_ = 0;  // epochs below are closed (close_epoch)
  std::vector<Unclaimed> unclaimed_;  // for handler ids not registered yet
  std::vector<Unclaimed> to_self_;    // sent to this process, delivered by progress()
  size_t max_control_ = 0;

  int epfd_ = -1;
  bool have_remote_ = false;
  unsigned tick_ = 0;
  uint64_t spin_ns_ = 0;
  // Last rendezvous sent or received. A large transfer keeps both sides
  // waiting for a while (1 MiB: ~80 us of copy, then the reply), just past
  // FTMPI_SPIN_US; sleeping then costs ~20 us of wake-up per message (1 MiB
  // ping-pong: 110 us sleeping, 90 us polling), so waits within kRndvWindowNs of
  // one poll for up to kRndvSpinNs.
  uint64_t rndv_at_ns_ = 0;
  static constexpr uint64_t kRndvWindowNs = 2'000'000, kRndvSpinNs = 1'000'000;
  bool yield_when_crowded_ = true;
  int ncpus_ = 1;
  bool cma_ok_ = true;
  uint64_t self_eager_ = 0;  // messages to oneself up to this size are buffered
  std::vector<uint8_t> scratch_;

  // fault tolerance
  std::vector<Held> held_;      // frames from a later incarnation or epoch than installed
  // Module on (transparent mode): messages a sender's CANCEL withdrew, by
  // (sender slot, sequence number): the CANCEL a restarted sender asks
  // again gets the answer its dead incarnation got.
  std::set<std::pair<int32_t, uint64_t>> withdrawn_seqs_;
  struct DeferredCancel {
    int32_t slot;
    uint32_t inc;  // the sender's incarnation when it asked
    CtlHdr c;
  };
  std::vector<DeferredCancel> deferred_cancels_;
  // Sends the module withholds (SendVerdict::kWithhold) until the user's
  // cancel withdraws them.
  std::vector<Request*> withheld_;
  bool holding_ = false;  // a send is held for the module (release_held)
  // Sends kept before they take a sequence number (ModuleSeam::may_number),
  // in start order: every later send waits behind them.
  std::deque<Request*> unnumbered_;
  bool interrupted_ = false;
  bool lonely_wildcards_fail_ = false;
  bool epoch_discard_ = false;  // RESET after a recovery: frames of earlier epochs are dropped
};

}  // namespace ftmpi::p2p

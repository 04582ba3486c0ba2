// The seam through which an optional module watches and steers the
// point-to-point engine (DESIGN §8: the pessimistic sender-based
// message-logging module). The engine holds one ModuleSeam pointer, null
// when no module is on; every call below sits behind `if (module_)`, and the
// calls on the per-message path are the only ones a job without a module
// pays for (one predictable branch each).
//
// Where each call is made and what it may do: spec/module-seam.md. In short:
//   on_send        start_send, destination resolved, before the first byte
//                  leaves; may copy the payload; may HOLD sends to other
//                  processes until Engine::release_held(), or WITHHOLD one
//                  until the user cancels it
//   on_arrival     an EAGER/RTS from another process passed the frame guard,
//                  before matching; may drop it as a duplicate
//   force_source   a wildcard receive or probe is about to match (replay:
//                  the logged source)
//   on_matched     a message matched a receive (wildcard or not), or a
//                  wildcard probe found one
//   on_delivered   a receive or send completes towards the application
//                  (every completion path, the blocking ones without a
//                  request included)
//   sends_go       may the blocking send path without a request take the
//                  next send (on_send then answers kGo)
//   on_poll        a Test-family call, Waitany/Waitsome or Iprobe decided
//                  (replay: the logged outcome)
//   on_failure     the runtime says a process died: FT-MPI rule, or hide it
//   on_peer_back   a hidden failure's slot runs again as a new incarnation
//   on_withdrawn   a cancelled send was withdrawn (never delivered)
//   defer_cancels  a CANCEL arrived: answer it now or when the module says
//   may_number     a send is about to take its sequence number: now or later
//   round_may_start a nonblocking collective's later round would start its
//                  sends (replay: where the dead incarnation started it)
//   schedule_started, schedule_ended  a nonblocking collective began, ended
//
// Everything runs inside MPI calls on the one thread; calls made from inside
// a transport poll (on_arrival, on_matched) may send or inject but must not
// poll or wait.
#pragma once
#include <cstddef>
#include <cstdint>

#include "base/proc_id.hpp"

namespace ftmpi::p2p {

struct Request;
class TypedBuffer;

// One message as the module sees it (spec/wire-p2p.md, MatchHdr).
struct Envelope {
  int32_t src_slot = -1;
  uint32_t src_inc = 0;
  int32_t dst_slot = -1;
  uint32_t dst_inc = 0;
  uint64_t ctx = 0;
  int32_t tag = 0;
  uint32_t epoch = 0;
  uint64_t len = 0;   // packed bytes
  uint64_t seq = 0;   // channel sequence number: per ordered pair of slots, from 1
  bool sync = false;  // synchronous send: the sender waits for the match
  uint64_t sum = 0;   // module checksum carried by the message (on_send sets it)
  // on_send: `sum` is checksum() of the envelope and of the payload bytes as
  // they leave, so a receiver can compute it itself (EAGER_SHORT carries
  // none). False when the module changed bytes before summing them.
  bool sum_of_bytes = false;
};

enum class SendVerdict : uint8_t {
  kGo,    // send now
  kHold,  // keep it (and everything after it to that process) until release_held()
  kWithhold,  // never send it: it waits apart, later sends pass it, and only
              // the user's cancel ends it (withdrawn); a replay of a send the
              // dead incarnation withdrew before it left
};

enum class ArrivalVerdict : uint8_t {
  kAccept,
  kDuplicate,  // already received by this process (or its image): dropped; a
               // sender that waits (RTS, synchronous EAGER) is answered as if
               // the message had matched, so its re-executed send completes
};

// What the runtime's PROC_FAILED means for this process.
enum class FailurePolicy : uint8_t {
  kFail,  // FT-MPI (spec/ft-semantics.md): purge, fail the requests, tell the layers above
  kHide,  // transparent mode: nothing fails, traffic to the slot waits for its next incarnation
};

// kTest also stands for a buffered send asking for room in the attached
// buffer (pick[0]: there was room).
enum class PollKind : uint8_t { kTest, kTestall, kTestany, kTestsome, kWaitany, kWaitsome, kIprobe };

class ModuleSeam {
 public:
  virtual ~ModuleSeam() = default;

  // A send whose destination is resolved (self included), before any byte of
  // it leaves. `data` reads the message: data.pack(offset, dst, n) copies
  // packed bytes (the user may reuse the buffer as soon as the send
  // completes, which for an eager message is at once). kHold is honoured for
  // other processes only.
  // kWithhold (other processes only) keeps this one message out of the
  // queue: it is never sent, and MPI_Cancel withdraws it as a message that
  // never left. It may set e.sum, which the message carries (MatchHdr::sum).
  virtual SendVerdict on_send(Envelope& e, TypedBuffer& data) = 0;

  // The sum on_send gives a message with sum_of_bytes, from its envelope and
  // its `e.len` payload bytes as they arrived: the receiver's side of an
  // EAGER_SHORT, which carries no sum (spec/wire-p2p.md).
  virtual uint64_t checksum(const Envelope& e, const uint8_t* payload) = 0;

  // An EAGER or RTS from another process, accepted by the frame guard, before
  // it is matched or queued. Frames a module injected are seen here too on
  // the receiving side.
  virtual ArrivalVerdict on_arrival(const Envelope& e) = 0;

  // A receive (or probe, `probe` true) with MPI_ANY_SOURCE on context `ctx`
  // is about to look for a message. Replay: return true and the logged
  // message's source slot and sequence number; the receive then matches that
  // message only (the probe reports nothing else), waiting for it if needed.
  virtual bool force_source(uint64_t ctx, int tag, bool probe, int32_t* src_slot, uint64_t* seq) = 0;

  // The message `e` matched receive `r` (r.peer_rank says whether it was a
  // wildcard), or a probe (`probe`, `r` null) found it. Self messages
  // included. `r` is null too for a blocking receive with a named source
  // that took its message without a request (Engine::recv_wait).
  virtual void on_matched(const Envelope& e, const Request* r, bool probe) = 0;

  // `r` completes towards the application: its status is about to be
  // reported (MPI_Wait/Test families, blocking MPI_Send/Recv/Sendrecv).
  // Null: a blocking send or receive that completed without a request
  // (Engine::send_now, recv_wait).
  virtual void on_delivered(const Request* r) = 0;

  // May the next send to another process go without a request (a blocking
  // standard send of one contiguous block, Engine::send_now)? Changes
  // nothing. true promises that may_number(), asked next, answers true and
  // that on_send, called for it right after, answers kGo: nothing is held
  // or withheld. false (the default): every send takes the general path.
  virtual bool sends_go() const { return false; }

  // A non-deterministic completion decision. `pick[i]` says whether request
  // i (or, for kIprobe, the one probe) is reported complete; all zeros is an
  // unsuccessful poll. Replay: rewrite `pick`; the caller then waits until
  // every picked request is complete and reports exactly those (for
  // kTestany/kWaitany pick at most one).
  virtual void on_poll(PollKind kind, uint8_t* pick, size_t n) = 0;

  // The runtime says `who` died. kHide: the engine keeps every request and
  // queued frame (sends to the slot wait), drops nothing of it, tells the
  // layers above nothing, and waits for Engine::peer_restarted().
  virtual FailurePolicy on_failure(ProcId who) = 0;

  // After Engine::peer_restarted(): the engine re-queued its own unfinished
  // sends to that slot (same sequence numbers); the module now injects the
  // logged messages the new incarnation must get again (Engine::inject).
  // Frames reach the new incarnation once this returns.
  virtual void on_peer_back(ProcId who) = 0;

  // The user's cancel withdrew message `seq` to `dst_slot`: its receiver
  // never delivers it, so it must not be sent again (e.g. to a restarted
  // receiver), nor by a replay of this process. Either it was still queued
  // here (its number is skipped on the channel) or its receiver withdrew
  // it. May come twice for one message.
  virtual void on_withdrawn(int32_t dst_slot, uint64_t seq) {
    (void)dst_slot;
    (void)seq;
  }

  // The runtime's event logger acknowledged determinant batches up to
  // `batch` (rte::EventSink::on_determinants_acked, forwarded).
  virtual void on_determinants_acked(uint64_t batch) { (void)batch; }

  // A CANCEL from another process asks to withdraw a message sent here.
  // true: the answer waits until Engine::answer_deferred_cancels() (a
  // replaying process must not withdraw a message its dead incarnation may
  // have matched before it has re-executed that far).
  virtual bool defer_cancels() { return false; }

  // A send (to any process, this one included) is about to take its
  // channel sequence number. false: not yet; the engine keeps it, and every
  // later send that gets false too, unnumbered and in order, and asks again
  // after round_started(). A replay keeps the program's sends behind a
  // nonblocking collective's round the dead incarnation started first.
  virtual bool may_number() { return true; }
  // Round `round` (> 0) of the nonblocking collective schedule `sched` (this
  // process's schedules numbered from 0 in start order) has its input and
  // would start its sends, from wherever progress runs. true: they start now
  // and round_started() follows them; false: ask again at a later progress
  // pass. Every send of the round may_number() allows.
  virtual bool round_may_start(uint64_t sched, uint32_t round) {
    (void)sched;
    (void)round;
    return true;
  }
  virtual void round_started() {}
  // Schedule `sched` (numbered as above) was started by its MPI call, before
  // its first round; it ended (completed or stopped). A replay learns from
  // them that a logged round can no longer come.
  virtual void schedule_started(uint64_t sched) { (void)sched; }
  virtual void schedule_ended(uint64_t sched) { (void)sched; }

  // The end of every progress pass, outside any transport poll: the one
  // place where the process may be forked for a checkpoint (the checkpoint
  // module's safe point, spec/checkpoint-protocol.md §2).
  virtual void on_progress() {}
  // The engine is about to sleep (nothing came for its whole spin): a
  // module may do there, in a piece of at most ~100 us, work that would
  // otherwise stall a later call. true: it did some; the engine polls
  // again instead of sleeping, and asks again when it would sleep next.
  virtual bool on_idle() { return false; }
};

}  // namespace ftmpi::p2p

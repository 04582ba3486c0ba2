// A point-to-point operation in flight. Requests live in a pool owned by the
// engine; their 64-bit id (generation << 32 | index) travels in protocol
// headers, so a late reply for a request that was freed and reused is
// recognised as stale instead of corrupting the new one.
#pragma once
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "base/err.hpp"
#include "comm/model/communicator.hpp"
#include "p2p/typed_buffer.hpp"

namespace ftmpi::p2p {

// kColl: the user's request of a nonblocking collective (src/coll/nbc); the
// engine never starts it, the schedule completes it.
enum class ReqKind : uint8_t { kSend, kRecv, kColl };
// kBuffered never reaches the protocols: the API copies the message into the
// attached buffer and sends that copy with an internal standard-mode request;
// the user's request (mode kBuffered) completes at once and remembers the
// internal message's id in `remote_req`, so that MPI_Cancel can still reach it.
enum class SendMode : uint8_t { kStandard, kSync, kReady, kBuffered };

// Protocol position of a request (what it waits for).
enum class Proto : uint8_t {
  kIdle,
  kQueued,        // send waiting for ring space behind earlier frames
  kPosted,        // receive in the posted queue
  kWaitAck,       // synchronous eager send, waiting for the match
  kWaitFin,       // RTS sent, receiver reads with CMA, waiting for FIN
  kWaitCts,       // RTS sent, waiting for CTS (pipelined)
  kPushing,       // sender streaming DATA
  kReceiving,     // receiver taking DATA
  kAwaitResend,   // receiver matched an RTS whose sender died, a module hiding it:
                  // waits for the next incarnation's RTS of the same sequence number
  kDone,
};

struct Request;
using CompletionFn = void (*)(Request&, void* arg);

// Everything of a request but the buffers it owns. Trivially copyable, so a
// pooled request is reset with a few stores (RequestPool::alloc) instead of
// building and moving a whole Request.
struct RequestState {
  uint64_t id = 0;
  ReqKind kind = ReqKind::kSend;
  SendMode mode = SendMode::kStandard;
  Proto proto = Proto::kIdle;
  bool active = false;      // protocol in progress: between start and the engine's completion
  bool complete = false;    // what Wait/Test see: done, and no cancel answer outstanding
  bool started = false;     // the user started it and has not retired it yet (persistent: active)
  bool persistent = false;
  bool user_freed = false;  // MPI_Request_free on an active request: release at completion
  bool cancelled = false;
  bool cancel_pending = false;  // CANCEL sent, waiting for the receiver's answer
  // Fault tolerance (spec/ft-semantics.md §4.1): a blocking call's request is
  // withdrawn when a failure interrupts it; `ft_interrupted` marks one whose
  // withdrawal is under way, so that it ends with MPI_ERR_OTHER, not cancelled.
  bool blocking = false;
  bool ft_interrupted = false;
  bool failed_by_death = false;  // ended because its peer died (CONT: MPI_ERR_REQUEST after recovery)
  bool peer_gone = false;        // persistent, its peer died and was not replaced: MPI_Start fails
  bool abandoned = false;        // Engine::abandon(): nobody waits for it, MPI_Finalize neither
  bool through_rings = false;    // send: never offer a single copy (see Engine::isend)
  // The request counts in comm->pending_ops from its first start (or, for a
  // persistent request, its creation) until it is released, so a freed
  // communicator outlives every request that may still read `comm`.
  bool holds_comm = false;

  comm::Communicator* comm = nullptr;
  int peer_rank = 0;   // as given by the user (rank, MPI_ANY_SOURCE or MPI_PROC_NULL)
  int32_t peer_slot = -1;  // send: destination; recv: required source (-1 = any)
  uint32_t peer_inc = 0;
  int tag = 0;
  uint64_t ctx = 0;
  // Channel sequence number: send: the one it carries; receive: the matched
  // message's. want_seq: a forced wildcard receive's only message (0: any).
  uint64_t seq = 0;
  uint64_t want_seq = 0;
  uint64_t sum = 0;  // send: the module checksum it carries (MatchHdr::sum)
  bool sum_of_bytes = false;  // ... and the receiver could compute it (Envelope::sum_of_bytes)

  // Outcome (what MPI_Status reports). st_slot: the sender of a received
  // message, so a status read after a SHRINK recovery shows its new rank.
  int32_t st_slot = -1;
  int st_source = 0;
  int st_tag = 0;
  Err st_err = Err::kOk;
  uint64_t st_bytes = 0;

  // Protocol state.
  uint64_t msg_len = 0;     // receive: incoming message size
  uint64_t remote_req = 0;  // the other side's request id (user request of a bsend: the internal one)
  uint64_t done_bytes = 0;  // pipelined bytes sent / received
  int32_t xfer_slot = -1;   // peer of the data transfer

  Request* qnext = nullptr;  // posted queue / pending list
  Request* qprev = nullptr;

  CompletionFn on_complete = nullptr;  // upper layers (bsend, collectives)
  void* cb_arg = nullptr;
};

struct Request : RequestState {
  TypedBuffer data;
  std::unique_ptr<uint8_t[]> bounce;  // buffered-mode copy or pack buffer

  void hold_comm() {
    if (comm && !holds_comm) {
      ++comm->pending_ops;
      holds_comm = true;
    }
  }
  void reset_outcome() {
    st_source = 0;
    st_tag = 0;
    st_err = Err::kOk;
    st_bytes = 0;
    cancelled = false;
    cancel_pending = false;
    ft_interrupted = false;
    failed_by_death = false;
    st_slot = -1;
    done_bytes = 0;
    msg_len = 0;
    remote_req = 0;
    want_seq = 0;
    complete = false;
  }
};

static_assert(std::is_trivially_copyable_v<RequestState>);

class RequestPool {
 public:
  Request* alloc();
  void release(Request* r);
  // The live request with this id, or nullptr if it was released since.
  Request* find(uint64_t id) const;
  // Gives a live request a fresh id (same pool index, so the same MPI handle):
  // a restarted persistent request must not be confused with its previous
  // message by late replies or by a cancel.
  void renew(Request* r);
  size_t live() const { return live_; }
  // The live request at this pool index (MPI_Request handles are indices).
  Request* at(uint32_t idx) const {
    return idx < by_index_.size() && by_index_[idx]->id != 0 ? by_index_[idx] : nullptr;
  }
  static uint32_t index_of(const Request* r) { return static_cast<uint32_t>(r->id & 0xffffffffu); }
  template <typename Fn>
  void for_each_live(Fn&& fn) {
    for (Request* r : by_index_)
      if (r->id != 0) fn(r);
  }

 private:
  static constexpr size_t kChunk = 256;
  std::vector<std::unique_ptr<Request[]>> chunks_;
  std::vector<Request*> by_index_;
  std::vector<uint32_t> gen_;
  std::vector<uint32_t> free_;
  size_t live_ = 0;
};

}  // namespace ftmpi::p2p

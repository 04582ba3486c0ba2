// Buffered mode: MPI_Buffer_attach / MPI_Buffer_detach and the start of a
// buffered send (used by MPI_Bsend, MPI_Ibsend and MPI_Start of a request
// from MPI_Bsend_init).
//
// A buffered send packs the message into the attached buffer and sends that
// copy with an internal standard-mode request, released by the engine when
// it completes; its completion callback returns the space. The user's
// request completes at once (MPI-1.2 §3.4: a buffered send is local) and
// keeps the internal request's id so that MPI_Cancel can still withdraw the
// copy from the receiver.
#include <cstdint>

#include "api/p2p_ops.hpp"
#include "api/pmpi.hpp"

namespace ftmpi::api {
namespace {

void copy_sent(p2p::Request&, void* space) {
  if (Runtime* r = rt()) r->bsend.release(static_cast<const uint8_t*>(space));
}

// No destination (MPI_PROC_NULL or a BLANK rank): nothing is buffered.
void complete_null(p2p::Request* w) {
  w->st_source = MPI_PROC_NULL;
  w->st_tag = MPI_ANY_TAG;
  w->peer_slot = -1;
  w->complete = true;
}

}  // namespace

Err start_buffered(p2p::Request* w, Why& why) {
  Runtime& R = *rt();
  p2p::Engine& eng = R.engine;
  w->reset_outcome();
  w->kind = p2p::ReqKind::kSend;
  w->proto = p2p::Proto::kDone;  // the user's part is done once the copy is made
  w->active = false;
  if (w->peer_rank == MPI_PROC_NULL) {
    w->started = true;
    complete_null(w);
    return Err::kOk;
  }
  const ProcId dst = w->comm->peer_group().at(w->peer_rank);
  if (!dst.valid()) {
    w->started = true;
    complete_null(w);
    return Err::kOk;
  }
  if (!R.bsend.attached()) return why.set(Err::kBuffer, "no buffer is attached (MPI_Buffer_attach)");
  const uint64_t n = w->data.bytes();
  uint8_t* space = R.bsend.reserve(n);
  // Copies whose sends finished since the last call may not have been
  // noticed yet: progress once before giving up.
  while (!space && eng.progress() > 0) space = R.bsend.reserve(n);
  // Whether there was room depends on how far earlier copies got: an
  // outcome MPI gives, logged in transparent mode as a poll (failed: no
  // room), and taken from the log by a replay, whose copies to survivors
  // complete at once (spec/transparent-mode.md §3).
  if (eng.module()) {
    uint8_t room = space != nullptr;
    eng.decide_poll(p2p::PollKind::kTest, &room, 1);
    if (!room && space) {
      R.bsend.release(space);
      space = nullptr;
    } else if (room && !space) {
      eng.wait_until([&] { return (space = R.bsend.reserve(n)) != nullptr || eng.interrupted(); });
    }
  }
  if (!space)
    return why.set(Err::kBuffer,
                   "the attached buffer (%zu bytes, %zu in use) has no room for %llu bytes + MPI_BSEND_OVERHEAD",
                   R.bsend.size(), R.bsend.in_use(), static_cast<unsigned long long>(n));
  if (n) w->data.pack(0, space, n);
  p2p::Request* m = eng.alloc_request();
  m->kind = p2p::ReqKind::kSend;
  m->data = p2p::TypedBuffer(space, n, dtype::builtin_ref(dtype::Builtin::kByte));
  m->comm = w->comm;
  m->ctx = w->ctx;
  m->peer_rank = w->peer_rank;
  m->tag = w->tag;
  m->mode = p2p::SendMode::kStandard;
  m->user_freed = true;  // nobody waits for it: the engine releases it
  m->on_complete = copy_sent;
  m->cb_arg = space;
  w->remote_req = m->id;
  w->peer_slot = dst.slot;
  w->started = true;
  w->complete = true;
  const uint64_t numbered = eng.last_send_seq(dst.slot);
  eng.start_send(m);  // may complete and release m right away
  // The user's request knows its message's channel number: a cancel that
  // withdraws it after the copy completed names it to the module.
  if (eng.last_send_seq(dst.slot) != numbered) w->seq = eng.last_send_seq(dst.slot);
  return Err::kOk;
}

}  // namespace ftmpi::api

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Buffer_attach(void* buffer, int size) {
  Call call("MPI_Buffer_attach");
  if (size < 0) return call.fail(nullptr, Err::kArg, "size %d is negative", size);
  if (!buffer && size > 0) return call.fail(nullptr, Err::kBuffer, "buffer is null");
  BsendPool& pool = rt()->bsend;
  if (pool.attached())
    return call.fail(nullptr, Err::kBuffer, "a buffer of %zu bytes is already attached", pool.size());
  pool.attach(buffer, static_cast<size_t>(size));  // even zero bytes: attached, with no room
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Buffer_attach, PMPI_Buffer_attach)

// `buffer` is really a void**: it receives the address given to attach.
int PMPI_Buffer_detach(void* buffer, int* size) {
  Call call("MPI_Buffer_detach");
  if (!buffer || !size) return call.fail(nullptr, Err::kArg, "null argument");
  Runtime& R = *rt();
  if (!R.bsend.attached()) {  // as MPICH and Open MPI do: nothing to hand back
    *static_cast<void**>(buffer) = nullptr;
    *size = 0;
    return MPI_SUCCESS;
  }
  // MPI-1.2 §3.6: detach blocks until every buffered message has been sent.
  R.engine.wait_until([&] { return R.bsend.empty(); });
  *static_cast<void**>(buffer) = R.bsend.base();
  *size = static_cast<int>(R.bsend.size());
  R.bsend.detach();
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Buffer_detach, PMPI_Buffer_detach)

}  // extern "C"

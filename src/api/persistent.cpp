// Persistent requests (MPI_Send_init ... MPI_Recv_init, MPI_Start,
// MPI_Startall), MPI_Request_free, MPI_Cancel and MPI_Test_cancelled.
//
// A persistent request is one engine Request with `persistent` set; MPI_Start
// runs start_send / start_recv on it again (the engine gives it a fresh id,
// so late replies for the previous message cannot touch the new one).
// `started` is the user's view: set by MPI_Start, cleared when a wait or test
// retires the operation.
#include "api/p2p_ops.hpp"
#include "api/pmpi.hpp"

namespace ftmpi::api {
namespace {

int make_persistent(const char* name, bool send, const void* buf, int count, MPI_Datatype dt, int peer, int tag,
                    MPI_Comm ch, p2p::SendMode mode, MPI_Request* request) {
  Call call(name);
  if (!request) return call.fail(lookup_comm(ch), Err::kArg, "request pointer is null");
  Op op;
  int code = MPI_SUCCESS;
  if (!ok(prepare(call, send, buf, count, dt, peer, tag, ch, mode, op, code))) return code;
  op.req->persistent = true;
  op.req->hold_comm();  // MPI_Start reads its communicator, which may be freed meanwhile
  *request = request_handle(op.req);
  return MPI_SUCCESS;
}

// The request behind a handle that MPI_Start may start, or an error class.
Err startable(MPI_Request h, p2p::Request** out, Why& w) {
  if (h == MPI_REQUEST_NULL) return w.set(Err::kRequest, "request is MPI_REQUEST_NULL");
  p2p::Request* r = lookup_request(h);
  if (!r) return w.set(Err::kRequest, "invalid request handle");
  if (!r->persistent) return w.set(Err::kRequest, "not a persistent request");
  if (r->started) return w.set(Err::kRequest, "persistent request is already active");
  if (r->comm && state_of(*r->comm).handle == MPI_COMM_NULL)
    return w.set(Err::kRequest, "its communicator no longer exists (freed, or destroyed by a recovery)");
  if (r->peer_gone)  // set by the recovery (spec/ft-semantics.md §4.4)
    return w.set(Err::kRequest, "its peer process died and was not replaced");
  *out = r;
  return Err::kOk;
}

Err start_one(p2p::Request* r, Why& w) {
  if (r->kind == p2p::ReqKind::kRecv) {
    rt()->engine.start_recv(r);
    return Err::kOk;
  }
  if (r->mode == p2p::SendMode::kBuffered) return start_buffered(r, w);
  rt()->engine.start_send(r);
  return Err::kOk;
}

}  // namespace
}  // namespace ftmpi::api

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Send_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return make_persistent("MPI_Send_init", true, buf, count, dt, dest, tag, comm, p2p::SendMode::kStandard, req);
}
FTMPI_WEAK_ALIAS(MPI_Send_init, PMPI_Send_init)

int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return make_persistent("MPI_Bsend_init", true, buf, count, dt, dest, tag, comm, p2p::SendMode::kBuffered, req);
}
FTMPI_WEAK_ALIAS(MPI_Bsend_init, PMPI_Bsend_init)

int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return make_persistent("MPI_Ssend_init", true, buf, count, dt, dest, tag, comm, p2p::SendMode::kSync, req);
}
FTMPI_WEAK_ALIAS(MPI_Ssend_init, PMPI_Ssend_init)

int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return make_persistent("MPI_Rsend_init", true, buf, count, dt, dest, tag, comm, p2p::SendMode::kReady, req);
}
FTMPI_WEAK_ALIAS(MPI_Rsend_init, PMPI_Rsend_init)

int PMPI_Recv_init(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  return make_persistent("MPI_Recv_init", false, buf, count, dt, source, tag, comm, p2p::SendMode::kStandard, req);
}
FTMPI_WEAK_ALIAS(MPI_Recv_init, PMPI_Recv_init)

int PMPI_Start(MPI_Request* request) {
  Call call("MPI_Start");
  if (!request) return call.fail(nullptr, Err::kArg, "request pointer is null");
  Why w;
  p2p::Request* r = nullptr;
  if (Err e = startable(*request, &r, w); !ok(e)) return call.fail(nullptr, e, "%s", w.text);
  int code = MPI_SUCCESS;
  if (call.ft_blocked(r->comm, &code)) return code;
  if (Err e = start_one(r, w); !ok(e)) return call.fail(r->comm, e, "%s", w.text);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Start, PMPI_Start)

int PMPI_Startall(int count, MPI_Request* requests) {
  Call call("MPI_Startall");
  if (count < 0) return call.fail(nullptr, Err::kCount, "count %d is negative", count);
  if (count > 0 && !requests) return call.fail(nullptr, Err::kArg, "request array is null");
  Why w;
  // Check every handle before starting any, so that an error starts nothing.
  for (int i = 0; i < count; ++i) {
    p2p::Request* r = nullptr;
    if (Err e = startable(requests[i], &r, w); !ok(e)) return call.fail(nullptr, e, "request %d: %s", i, w.text);
  }
  int code = MPI_SUCCESS;
  if (count > 0 && call.ft_blocked(lookup_request(requests[0])->comm, &code)) return code;
  for (int i = 0; i < count; ++i) {
    p2p::Request* r = lookup_request(requests[i]);
    if (r->started) return call.fail(r->comm, Err::kRequest, "request %d appears twice in the array", i);
    if (Err e = start_one(r, w); !ok(e)) return call.fail(r->comm, e, "request %d: %s", i, w.text);
  }
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Startall, PMPI_Startall)

int PMPI_Request_free(MPI_Request* request) {
  Call call("MPI_Request_free");
  if (!request) return call.fail(nullptr, Err::kArg, "request pointer is null");
  if (*request == MPI_REQUEST_NULL) return call.fail(nullptr, Err::kRequest, "request is MPI_REQUEST_NULL");
  p2p::Request* r = lookup_request(*request);
  if (!r) return call.fail(nullptr, Err::kRequest, "invalid request handle");
  // MPI-3.1 §5.12: erroneous for a nonblocking collective's request.
  if (r->kind == p2p::ReqKind::kColl)
    return call.fail(r->comm, Err::kRequest, "a nonblocking collective's request cannot be freed");
  // An operation in flight goes on and the engine releases the request when
  // it ends (MPI-1.2 §3.7.3); anything else goes now.
  if (r->complete || is_inactive(r)) rt()->engine.release_request(r);
  else r->user_freed = true;
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Request_free, PMPI_Request_free)

int PMPI_Cancel(MPI_Request* request) {
  Call call("MPI_Cancel");
  if (!request) return call.fail(nullptr, Err::kArg, "request pointer is null");
  if (*request == MPI_REQUEST_NULL) return call.fail(nullptr, Err::kRequest, "request is MPI_REQUEST_NULL");
  p2p::Request* r = lookup_request(*request);
  if (!r) return call.fail(nullptr, Err::kRequest, "invalid request handle");
  if (is_inactive(r)) return call.fail(r->comm, Err::kRequest, "persistent request is not active");
  if (r->kind == p2p::ReqKind::kColl)
    return call.fail(r->comm, Err::kRequest, "a nonblocking collective cannot be cancelled");
  // The outcome shows in the status: cancelled, or completed normally
  // (transparent mode: logged, and replayed with its logged outcome).
  if (rt()->logging) rt()->logging->cancel(r);
  else rt()->engine.cancel(r);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Cancel, PMPI_Cancel)

int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  Call call("MPI_Test_cancelled");
  if (!status || status == MPI_STATUS_IGNORE || !flag) return call.fail(nullptr, Err::kArg, "null argument");
  // Whether a cancel won the race is non-deterministic: the logging module
  // logs it when the request completes and forces it in a replay.
  *flag = status->ftmpi_cancelled != 0;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Test_cancelled, PMPI_Test_cancelled)

}  // extern "C"

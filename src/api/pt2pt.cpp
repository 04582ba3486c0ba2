// Blocking and non-blocking sends and receives of MPI-1.2 chapter 3 (all four
// send modes), Sendrecv, Sendrecv_replace and Get_count.
#include <vector>

#include "api/p2p_ops.hpp"
#include "api/pmpi.hpp"

namespace ftmpi::api {

bool awaits_recovery(const p2p::Request* r) {
  if (!r->complete || !r->failed_by_death || r->st_err != Err::kOther) return false;
  const Runtime* R = rt();
  return R->ft->modes().recovery != rte::RecoveryMode::kIgnore;
}

Err retire_request(MPI_Request* h, p2p::Request* r, MPI_Status* st) {
  rt()->engine.delivered(r);
  fill_status(st, *r);
  Err e = r->st_err;
  if (r->persistent) {
    r->started = false;  // inactive until the next MPI_Start
    r->complete = false;
  } else {
    rt()->engine.release_request(r);
    *h = MPI_REQUEST_NULL;
  }
  return e;
}

Err check_p2p(Call& call, bool send, const void* buf, int count, MPI_Datatype dt, int peer, int tag, MPI_Comm ch,
              Op& op, int& code) {
  Why w;
  op.comm = lookup_comm(ch);
  Err e = Err::kOk;
  const dtype::TypeRef*& type = op.type;
  if (!op.comm) {
    code = call.fail(nullptr, Err::kComm, "invalid communicator");
    return Err::kComm;
  }
  if (!ok(e = check_count(count, w)) || !ok(e = check_type(dt, &type, w)) ||
      !ok(e = check_buffer(buf, count, *type, w)) ||
      !ok(e = send ? check_send_tag(tag, w) : check_recv_tag(tag, w)) ||
      !ok(e = send ? check_dest(*op.comm, peer, w) : check_source(*op.comm, peer, w))) {
    code = call.fail(op.comm, e, "%s", w.text);
    return e;
  }
  if (call.ft_blocked(op.comm, &code)) return Err::kOther;
  return Err::kOk;
}

void make_request(Op& op, bool send, const void* buf, int count, int peer, int tag, p2p::SendMode mode) {
  p2p::Request* r = rt()->engine.alloc_request();
  r->kind = send ? p2p::ReqKind::kSend : p2p::ReqKind::kRecv;
  // Only a receive writes the buffer, and a receive's buffer is never const.
  r->data.reset(const_cast<void*>(buf), static_cast<size_t>(count), *op.type);
  r->comm = op.comm;
  r->peer_rank = peer;
  r->tag = tag;
  r->ctx = op.comm->ctx();
  r->mode = mode;
  op.req = r;
}

namespace {

// The message as one block of memory (its start and packed size), when its
// datatype lays it out so: the blocking calls' path without a request.
bool one_block(const void* buf, int count, const dtype::TypeRef& type, uint8_t** start, uint64_t* len) {
  const dtype::Type& t = *type;
  if (!t.contiguous()) return false;
  *len = static_cast<uint64_t>(count) * static_cast<uint64_t>(t.size());
  *start = *len ? static_cast<uint8_t*>(const_cast<void*>(buf)) + t.true_lb() : nullptr;
  return true;
}

int blocking_send(const char* name, const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm ch,
                  p2p::SendMode mode) {
  Call call(name);
  Op op;
  int code = MPI_SUCCESS;
  if (!ok(check_p2p(call, true, buf, count, dt, dest, tag, ch, op, code))) return code;
  p2p::Engine& eng = rt()->engine;
  if (mode == p2p::SendMode::kStandard &&
      eng.send_now(*op.comm, op.comm->ctx(), dest, tag, buf, static_cast<size_t>(count), *op.type))
    return MPI_SUCCESS;
  make_request(op, true, buf, count, dest, tag, mode);
  Err e = Err::kOk;
  if (mode == p2p::SendMode::kBuffered) {
    Why w;
    e = start_buffered(op.req, w);
    if (ok(e)) eng.delivered(op.req);
    eng.release_request(op.req);
    return ok(e) ? MPI_SUCCESS : call.fail(op.comm, e, "%s", w.text);
  }
  op.req->blocking = true;  // a failure notice withdraws it (spec/ft-semantics.md §4.1)
  eng.start_send(op.req);
  eng.wait(op.req);
  eng.delivered(op.req);
  e = op.req->st_err;
  eng.release_request(op.req);
  return call.ret(op.comm, e);
}

int nonblocking(const char* name, bool send, const void* buf, int count, MPI_Datatype dt, int peer, int tag,
                MPI_Comm ch, p2p::SendMode mode, MPI_Request* request) {
  Call call(name);
  if (!request) return call.fail(lookup_comm(ch), Err::kArg, "request pointer is null");
  Op op;
  int code = MPI_SUCCESS;
  if (!ok(prepare(call, send, buf, count, dt, peer, tag, ch, mode, op, code))) return code;
  if (mode == p2p::SendMode::kBuffered) {
    Why w;
    if (Err e = start_buffered(op.req, w); !ok(e)) {
      rt()->engine.release_request(op.req);
      return call.fail(op.comm, e, "%s", w.text);
    }
  } else if (send) {
    rt()->engine.start_send(op.req);
  } else {
    rt()->engine.start_recv(op.req);
  }
  *request = request_handle(op.req);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace ftmpi::api

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Send(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Send", buf, count, dt, dest, tag, comm, p2p::SendMode::kStandard);
}
FTMPI_WEAK_ALIAS(MPI_Send, PMPI_Send)

int PMPI_Bsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Bsend", buf, count, dt, dest, tag, comm, p2p::SendMode::kBuffered);
}
FTMPI_WEAK_ALIAS(MPI_Bsend, PMPI_Bsend)

int PMPI_Ssend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Ssend", buf, count, dt, dest, tag, comm, p2p::SendMode::kSync);
}
FTMPI_WEAK_ALIAS(MPI_Ssend, PMPI_Ssend)

int PMPI_Rsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return blocking_send("MPI_Rsend", buf, count, dt, dest, tag, comm, p2p::SendMode::kReady);
}
FTMPI_WEAK_ALIAS(MPI_Rsend, PMPI_Rsend)

int PMPI_Recv(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm ch, MPI_Status* status) {
  Call call("MPI_Recv");
  Op op;
  int code = MPI_SUCCESS;
  if (!ok(check_p2p(call, false, buf, count, dt, source, tag, ch, op, code))) return code;
  p2p::Engine& eng = rt()->engine;
  uint8_t* start = nullptr;
  uint64_t cap = 0;
  p2p::MessageStatus got;
  if (one_block(buf, count, *op.type, &start, &cap) &&
      eng.recv_wait(*op.comm, op.comm->ctx(), source, tag, start, cap, &got)) {
    report_status(status, got);
    return call.ret(op.comm, got.err);
  }
  make_request(op, false, buf, count, source, tag, p2p::SendMode::kStandard);
  op.req->blocking = true;
  eng.start_recv(op.req);
  eng.wait(op.req);
  eng.delivered(op.req);
  fill_status(status, *op.req);
  Err e = op.req->st_err;
  eng.release_request(op.req);
  return call.ret(op.comm, e);
}
FTMPI_WEAK_ALIAS(MPI_Recv, PMPI_Recv)

int PMPI_Isend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return nonblocking("MPI_Isend", true, buf, count, dt, dest, tag, comm, p2p::SendMode::kStandard, req);
}
FTMPI_WEAK_ALIAS(MPI_Isend, PMPI_Isend)

int PMPI_Ibsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return nonblocking("MPI_Ibsend", true, buf, count, dt, dest, tag, comm, p2p::SendMode::kBuffered, req);
}
FTMPI_WEAK_ALIAS(MPI_Ibsend, PMPI_Ibsend)

int PMPI_Issend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return nonblocking("MPI_Issend", true, buf, count, dt, dest, tag, comm, p2p::SendMode::kSync, req);
}
FTMPI_WEAK_ALIAS(MPI_Issend, PMPI_Issend)

int PMPI_Irsend(const void* buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return nonblocking("MPI_Irsend", true, buf, count, dt, dest, tag, comm, p2p::SendMode::kReady, req);
}
FTMPI_WEAK_ALIAS(MPI_Irsend, PMPI_Irsend)

int PMPI_Irecv(void* buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  return nonblocking("MPI_Irecv", false, buf, count, dt, source, tag, comm, p2p::SendMode::kStandard, req);
}
FTMPI_WEAK_ALIAS(MPI_Irecv, PMPI_Irecv)

int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm ch, MPI_Status* status) {
  Call call("MPI_Sendrecv");
  Op s, r;
  int code = MPI_SUCCESS;
  if (!ok(prepare(call, true, sendbuf, sendcount, sendtype, dest, sendtag, ch, p2p::SendMode::kStandard, s, code)))
    return code;
  if (!ok(prepare(call, false, recvbuf, recvcount, recvtype, source, recvtag, ch, p2p::SendMode::kStandard, r,
                  code))) {
    rt()->engine.release_request(s.req);
    return code;
  }
  p2p::Engine& eng = rt()->engine;
  r.req->blocking = s.req->blocking = true;
  eng.start_recv(r.req);
  eng.start_send(s.req);
  eng.wait_until([&] { return r.req->complete && s.req->complete; });
  eng.delivered(s.req);
  eng.delivered(r.req);
  fill_status(status, *r.req);
  Err e = !ok(r.req->st_err) ? r.req->st_err : s.req->st_err;
  eng.release_request(s.req);
  eng.release_request(r.req);
  return call.ret(s.comm, e);
}
FTMPI_WEAK_ALIAS(MPI_Sendrecv, PMPI_Sendrecv)

int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype dt, int dest, int sendtag, int source, int recvtag,
                          MPI_Comm ch, MPI_Status* status) {
  Call call("MPI_Sendrecv_replace");
  Op s, r;
  int code = MPI_SUCCESS;
  if (!ok(prepare(call, true, buf, count, dt, dest, sendtag, ch, p2p::SendMode::kStandard, s, code))) return code;
  if (!ok(prepare(call, false, buf, count, dt, source, recvtag, ch, p2p::SendMode::kStandard, r, code))) {
    rt()->engine.release_request(s.req);
    return code;
  }
  // The outgoing message leaves from a packed copy, so the receive may
  // overwrite the buffer while the copy is still being sent.
  std::vector<uint8_t> copy(s.req->data.bytes());
  if (!copy.empty()) s.req->data.pack(0, copy.data(), copy.size());
  s.req->data.reset(copy.data(), copy.size(), dtype::builtin_ref(dtype::Builtin::kByte));
  p2p::Engine& eng = rt()->engine;
  r.req->blocking = s.req->blocking = true;
  eng.start_recv(r.req);
  eng.start_send(s.req);
  eng.wait_until([&] { return r.req->complete && s.req->complete; });
  eng.delivered(s.req);
  eng.delivered(r.req);
  fill_status(status, *r.req);
  Err e = !ok(r.req->st_err) ? r.req->st_err : s.req->st_err;
  eng.release_request(s.req);
  eng.release_request(r.req);
  return call.ret(s.comm, e);
}
FTMPI_WEAK_ALIAS(MPI_Sendrecv_replace, PMPI_Sendrecv_replace)

int PMPI_Get_count(const MPI_Status* status, MPI_Datatype dt, int* count) {
  Call call("MPI_Get_count");
  Why w;
  const dtype::TypeRef* type = nullptr;
  if (!status || status == MPI_STATUS_IGNORE || !count) return call.fail(nullptr, Err::kArg, "null argument");
  if (Err e = check_type(dt, &type, w); !ok(e)) return call.fail(nullptr, e, "%s", w.text);
  int64_t n = dtype::get_count(**type, status->ftmpi_count);
  *count = n == dtype::kUndefined || n > INT_MAX ? MPI_UNDEFINED : static_cast<int>(n);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Get_count, PMPI_Get_count)

}  // extern "C"

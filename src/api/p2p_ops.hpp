// Building blocks shared by the point-to-point entry points (pt2pt.cpp,
// persistent.cpp, bsend.cpp): argument checks that end in a request, and the
// start of a buffered send.
#pragma once
#include "api/args.hpp"
#include "api/call.hpp"
#include "api/requests.hpp"

namespace ftmpi::api {

// Writes what a probe found, or what a receive without a request delivered,
// to the user's status (nothing for MPI_STATUS_IGNORE).
inline void report_status(MPI_Status* status, const p2p::MessageStatus& m) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = m.source;
  status->MPI_TAG = m.tag;
  status->MPI_ERROR = static_cast<int>(m.err);
  status->ftmpi_count = static_cast<long long>(m.bytes);
  status->ftmpi_cancelled = 0;
}

struct Op {
  comm::Communicator* comm = nullptr;
  p2p::Request* req = nullptr;
  const dtype::TypeRef* type = nullptr;
};

// Validates the arguments of one send or receive (communicator first, then
// count, datatype, buffer, tag, rank) and the fault-tolerance state; sets
// op.comm and op.type. On error reports through the error handler, stores
// the code to return in `code` and returns the class.
Err check_p2p(Call& call, bool send, const void* buf, int count, MPI_Datatype dt, int peer, int tag, MPI_Comm ch,
              Op& op, int& code);

// After check_p2p: allocates op.req with data, comm, peer, tag, context and
// mode filled in.
void make_request(Op& op, bool send, const void* buf, int count, int peer, int tag, p2p::SendMode mode);

// check_p2p, then make_request.
inline Err prepare(Call& call, bool send, const void* buf, int count, MPI_Datatype dt, int peer, int tag,
                   MPI_Comm ch, p2p::SendMode mode, Op& op, int& code) {
  if (Err e = check_p2p(call, send, buf, count, dt, peer, tag, ch, op, code); !ok(e)) return e;
  make_request(op, send, buf, count, peer, tag, mode);
  return Err::kOk;
}

// Starts the user request `w` of a buffered send (mode kBuffered, prepared as
// above): packs the message into the attached buffer, sends that copy with
// an internal request and completes `w` at once. Err::kBuffer (explained in
// `why`) when no buffer is attached or it has no room left.
Err start_buffered(p2p::Request* w, Why& why);

}  // namespace ftmpi::api

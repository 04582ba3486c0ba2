// Building blocks shared by the point-to-point entry points (pt2pt.cpp,
// persistent.cpp, bsend.cpp): argument checks that end in a request, and the
// start of a buffered send.
#pragma once
#include "api/args.hpp"
#include "api/call.hpp"
#include "api/requests.hpp"

namespace ftmpi::api {

struct Op {
  comm::Communicator* comm = nullptr;
  p2p::Request* req = nullptr;
};

// Validates the arguments of one send or receive (communicator first, then
// count, datatype, buffer, tag, rank) and allocates its request with data,
// comm, peer, tag, context and mode filled in. On error reports through the
// error handler, stores the code to return in `code` and returns the class.
Err prepare(Call& call, bool send, const void* buf, int count, MPI_Datatype dt, int peer, int tag, MPI_Comm ch,
            p2p::SendMode mode, Op& op, int& code);

// Starts the user request `w` of a buffered send (mode kBuffered, prepared as
// above): packs the message into the attached buffer, sends that copy with
// an internal request and completes `w` at once. Err::kBuffer (explained in
// `why`) when no buffer is attached or it has no room left.
Err start_buffered(p2p::Request* w, Why& why);

}  // namespace ftmpi::api

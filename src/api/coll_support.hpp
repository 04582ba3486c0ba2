// What the collective entry points share: the team a collective runs over,
// the binding of an MPI_Op to the coll layer's ReduceOp, and argument checks
// specific to collectives.
#pragma once
#include <climits>

#include "api/args.hpp"
#include "api/call.hpp"
#include "coll/reduce_op.hpp"
#include "coll/team.hpp"

namespace ftmpi::api {

// The one place that decides who takes part in a collective on `c`: every
// rank but the blanks of BLANK mode (spec/ft-collectives.md §4), atomic in
// FTMPI_COLL_MODE_ATOMIC.
coll::Team team_of(comm::Communicator& c);

// The fault-tolerance entry check of a collective (Call::ft_blocked_collective).
// A refused call still takes its turn in an atomic team's agreement
// (coll::refused, a fail vote) before the error is reported, which in mode
// AUTO runs the recovery (spec/ft-collectives.md §3.5). True if refused;
// *code is what the call returns.
bool refused_collective(Call& call, comm::Communicator& c, int* code);

// BLANK mode: a blank root makes every process return at once, buffers
// untouched, with MPI_SUCCESS (FT-MPI spec §4.1).
inline bool blank_root(const comm::Communicator& c, int root) { return c.group().is_blank(root); }

// Calls a user function (MPI_Op_create) with the datatype handle the user
// passed to the collective, in pieces of at most INT_MAX items.
class UserOpCall final : public coll::UserFunction {
 public:
  UserOpCall() = default;
  UserOpCall(MPI_User_function* fn, MPI_Datatype dt, int64_t extent) : fn_(fn), dt_(dt), extent_(extent) {}
  void invoke(const void* in, void* inout, size_t count) const override;

 private:
  MPI_User_function* fn_ = nullptr;
  MPI_Datatype dt_ = MPI_DATATYPE_NULL;
  int64_t extent_ = 0;
};

// An MPI_Op bound to one call's datatype. Not copyable: op.user may point
// into it.
struct BoundOp {
  BoundOp() = default;
  BoundOp(const BoundOp&) = delete;
  BoundOp& operator=(const BoundOp&) = delete;
  coll::ReduceOp op;
  UserOpCall user;
};

// kOp for an invalid op, or a predefined op that does not apply to `t`.
Err bind_op(MPI_Op h, MPI_Datatype dt, const dtype::TypeRef& t, BoundOp* out, Why& w);

// The communicator of a collective: valid, and an intracommunicator unless
// `inter_ok` (the collectives that have an intercommunicator form,
// coll_inter.hpp). On failure returns null and sets *code to what the call
// must return.
comm::Communicator* coll_comm(Call& call, MPI_Comm ch, int* code, bool inter_ok = false);
// The same for a nonblocking collective, whose request pointer must not be
// null (checked after the communicator, as every entry point did).
comm::Communicator* nbc_comm(Call& call, MPI_Comm ch, const MPI_Request* request, int* code);

// One side (buffer, count, type) of a collective.
Err check_side(const void* buf, int count, MPI_Datatype dt, const dtype::TypeRef** t, Why& w);

// MPI-1.2 defines collectives on intracommunicators only; MPI-2 adds the
// intercommunicator forms of most (not Scan, Exscan, nonblocking ones here).
inline Err check_intra(const comm::Communicator& c, Why& w) {
  return c.is_inter() ? w.set(Err::kComm, "collective operations need an intracommunicator") : Err::kOk;
}

inline Err check_root(const comm::Communicator& c, int root, Why& w) {
  return root >= 0 && root < c.size() ? Err::kOk
                                      : w.set(Err::kRoot, "root %d is out of range for a communicator of size %d",
                                              root, c.size());
}

// One process's send and receive sides of a collective must carry the same
// type signature: kTruncate when the sizes differ, kType otherwise.
Err check_same_signature(const dtype::Type& st, int scount, const dtype::Type& rt, int rcount, Why& w);

// A count array of `n` entries: present and none negative.
Err check_counts(const int* counts, int n, const char* what, Why& w);
// A vector collective's counts (as check_counts), then its displacements:
// present.
Err check_vector(const int* counts, int n, const char* counts_name, const int* displs, const char* displs_name,
                 Why& w);

// MPI-1.2 forbids a send buffer that is also the receive buffer.
inline Err check_not_aliased(const void* sbuf, size_t sbytes, const void* rbuf, size_t rbytes, Why& w) {
  return sbuf && sbuf == rbuf && sbytes > 0 && rbytes > 0
             ? w.set(Err::kBuffer, "the send and receive buffers are the same (aliased buffers are not allowed)")
             : Err::kOk;
}

inline size_t bytes_of(int count, const dtype::TypeRef& t) {
  return static_cast<size_t>(count) * static_cast<size_t>(t->size());
}

}  // namespace ftmpi::api

// Argument checks shared by the collective entry points.
#include "api/call.hpp"
#include "api/coll_support.hpp"
#include "coll/collectives.hpp"

namespace ftmpi::api {

coll::Team team_of(comm::Communicator& c) {
  Runtime* R = rt();
  coll::Team t = coll::Team::live(R->coll, c);
  t.set_atomic(R->ft->modes().coll == rte::CollMode::kAtomic);
  return t;
}

bool refused_collective(Call& call, comm::Communicator& c, int* code) {
  const char* why = call.ft_blocked_collective_why(&c);
  if (!why) return false;
  // The vote comes first: fail() runs the recovery in mode AUTO, and the
  // members that entered this call wait in the agreement for this vote, so
  // they would never join the recovery round this process waits in. After
  // the recovery the team would also be the wrong one (new membership and
  // epoch, other communicators gone), its vote landing on a call of the new
  // epoch.
  coll::refused(team_of(c));
  *code = call.fail(&c, Err::kOther, "%s", why);
  return true;
}

// Finds and checks the communicator; on failure returns the error code through `code`.
comm::Communicator* coll_comm(Call& call, MPI_Comm ch, int* code, bool inter_ok) {
  comm::Communicator* c = lookup_comm(ch);
  if (!c) {
    *code = call.fail(nullptr, Err::kComm, ch == MPI_COMM_NULL ? "communicator is MPI_COMM_NULL" : "invalid communicator");
    return nullptr;
  }
  Why w;
  if (Err e = inter_ok ? Err::kOk : check_intra(*c, w); !ok(e)) {
    *code = call.fail(c, e, "%s", w.text);
    return nullptr;
  }
  return c;
}

comm::Communicator* nbc_comm(Call& call, MPI_Comm ch, const MPI_Request* request, int* code) {
  comm::Communicator* c = coll_comm(call, ch, code);
  if (c && !request) {
    *code = call.fail(c, Err::kArg, "request pointer is null");
    return nullptr;
  }
  return c;
}

// One side (buffer, count, type) of a collective.
Err check_side(const void* buf, int count, MPI_Datatype dt, const dtype::TypeRef** t, Why& w) {
  Err e;
  if (!ok(e = check_count(count, w)) || !ok(e = check_type(dt, t, w)) || !ok(e = check_buffer(buf, count, **t, w)))
    return e;
  return Err::kOk;
}

Err check_same_signature(const dtype::Type& st, int scount, const dtype::Type& rt, int rcount, Why& w) {
  if (dtype::same_signature(st, scount, rt, rcount)) return Err::kOk;
  long long sb = static_cast<long long>(scount) * st.size(), rb = static_cast<long long>(rcount) * rt.size();
  if (sb != rb) return w.set(Err::kTruncate, "this process sends %lld bytes but receives %lld", sb, rb);
  return w.set(Err::kType, "the send and receive type signatures differ");
}

Err check_counts(const int* counts, int n, const char* what, Why& w) {
  if (!counts) return w.set(Err::kArg, "%s is a null array", what);
  for (int i = 0; i < n; ++i)
    if (counts[i] < 0) return w.set(Err::kCount, "%s[%d] = %d is negative", what, i, counts[i]);
  return Err::kOk;
}

Err check_vector(const int* counts, int n, const char* counts_name, const int* displs, const char* displs_name,
                 Why& w) {
  if (Err e = check_counts(counts, n, counts_name, w); !ok(e)) return e;
  return displs ? Err::kOk : w.set(Err::kArg, "%s is a null array", displs_name);
}

}  // namespace ftmpi::api

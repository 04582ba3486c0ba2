#include "api/coll_schedule.hpp"

namespace ftmpi::api {

std::unique_ptr<coll::nbc::Schedule> open_schedule(Call& call, comm::Communicator& c, int* code) {
  // No atomic vote here: a schedule never runs the agreement (spec
  // ft-collectives.md §7), so a refused call owes nobody a vote.
  if (call.ft_blocked_collective(&c, code)) return nullptr;
  p2p::Request* r = rt()->engine.alloc_request();
  r->kind = p2p::ReqKind::kColl;
  r->comm = &c;
  r->hold_comm();
  r->peer_rank = MPI_PROC_NULL;
  r->st_source = MPI_ANY_SOURCE;
  r->st_tag = MPI_ANY_TAG;
  return std::make_unique<coll::nbc::Schedule>(team_of(c), r);
}

int run_schedule(Call& call, comm::Communicator& c, std::unique_ptr<coll::nbc::Schedule> s, MPI_Request* request) {
  Runtime& R = *rt();
  p2p::Request* user = R.engine.request_at(p2p::RequestPool::index_of(s->user()));
  if (request) {
    *request = request_handle(user);
    R.nbc.start(std::move(s));
    return MPI_SUCCESS;
  }
  R.nbc.start(std::move(s));
  p2p::Engine& eng = R.engine;
  eng.wait_until([&] { return user->complete || eng.interrupted(); });
  if (!user->complete) R.nbc.stop(user, Err::kOther);
  const Err e = user->st_err;
  eng.release_request(user);
  return call.ret(&c, e);
}

Err type_ref(MPI_Datatype dt, dtype::TypeRef* out, Why& w) {
  const dtype::TypeRef* t = nullptr;
  if (Err e = check_type(dt, &t, w); !ok(e)) return e;
  *out = *t;
  return Err::kOk;
}

}  // namespace ftmpi::api

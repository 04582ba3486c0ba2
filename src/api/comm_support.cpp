#include "api/comm_support.hpp"

#include <algorithm>

#include "api/coll_inter.hpp"

namespace ftmpi::api {

HandleTable<GroupObj> make_group_table() {
  HandleTable<GroupObj> t{Kind::kGroup, 2};
  auto empty = std::make_unique<GroupObj>();
  empty->group = comm::Group::make({});
  t.set_predefined(handle_index(MPI_GROUP_EMPTY), std::move(empty));
  return t;
}

const comm::GroupRef* lookup_group(MPI_Group h) {
  GroupObj* g = rt()->groups.get(h);
  return g ? &g->group : nullptr;
}

MPI_Group group_handle(comm::GroupRef g) {
  if (g->size() == 0) return MPI_GROUP_EMPTY;
  auto obj = std::make_unique<GroupObj>();
  obj->group = std::move(g);
  return rt()->groups.add(std::move(obj));
}

MPI_Comm adopt_comm(std::unique_ptr<comm::Communicator> c, comm::Communicator& parent) {
  if (!c) return MPI_COMM_NULL;
  reap_zombie_comms();
  return register_comm(std::move(c), state_of(parent).errhandler);
}

void reap_zombie_comms() {
  auto& z = rt()->zombie_comms;
  z.erase(std::remove_if(z.begin(), z.end(),
                         [](const auto& c) {
                           if (c->pending_ops > 0) return false;
                           rt()->engine.forget_context(c->ctx());
                           return true;
                         }),
          z.end());
}

int destroy_comm(MPI_Comm h) {
  Runtime* r = rt();
  comm::Communicator* c = r->comms.get(h);
  const int rc = c->attrs.clear(h);
  // A delete callback may itself have freed the communicator (erroneous, but
  // it must not crash us).
  c = r->comms.get(h);
  if (!c) return rc;
  const MPI_Errhandler eh = state_of(*c).errhandler;
  retire_inter_local(*c);
  std::unique_ptr<comm::Communicator> obj = r->comms.remove(h);
  if (obj->pending_ops > 0) r->zombie_comms.push_back(std::move(obj));
  else r->engine.forget_context(obj->ctx());
  obj.reset();
  drop_errhandler_if_retired(eh);
  reap_zombie_comms();
  return rc;
}

void drop_errhandler_if_retired(MPI_Errhandler eh) {
  Runtime* r = rt();
  auto& retired = r->retired_errhandlers;
  auto it = std::find(retired.begin(), retired.end(), eh);
  if (it == retired.end()) return;
  bool in_use = false;
  r->comms.for_each([&](int, comm::Communicator& c) { in_use |= state_of(c).errhandler == eh; });
  if (in_use) return;
  retired.erase(it);
  r->errhandlers.remove(eh);
}

int callback_failure(Call& call, comm::Communicator* c, int code, const char* what) {
  return call.fail(c, static_cast<Err>(code), "%s returned %d", what, code);
}

}  // namespace ftmpi::api

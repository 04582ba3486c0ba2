// Communicator management (MPI-1.2 §5.4): compare, dup, create, split, free.
// Context ids need no agreement protocol (src/comm/ops/README.md), so dup and
// create are local; split costs one small allgather.
#include "api/args.hpp"
#include "api/comm_support.hpp"
#include "api/ft_hooks.hpp"
#include "api/pmpi.hpp"
#include "comm/ops/constructors.hpp"
#include "comm/ops/group_algebra.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

static_assert(static_cast<int>(comm::ops::Similarity::kIdent) == MPI_IDENT);
static_assert(static_cast<int>(comm::ops::Similarity::kCongruent) == MPI_CONGRUENT);
static_assert(static_cast<int>(comm::ops::Similarity::kSimilar) == MPI_SIMILAR);
static_assert(static_cast<int>(comm::ops::Similarity::kUnequal) == MPI_UNEQUAL);

namespace {
bool is_predefined_comm(MPI_Comm h) { return h == MPI_COMM_WORLD || h == MPI_COMM_SELF; }
}  // namespace

extern "C" {

int PMPI_Comm_compare(MPI_Comm h1, MPI_Comm h2, int* result) {
  Call call("MPI_Comm_compare");
  comm::Communicator* a = lookup_comm(h1);
  comm::Communicator* b = lookup_comm(h2);
  if (!a || !b) return call.fail(nullptr, Err::kComm, "invalid communicator (%s argument)", a ? "second" : "first");
  if (!result) return call.fail(a, Err::kArg, "result pointer is null");
  using comm::ops::Similarity;
  if (a == b) {
    *result = MPI_IDENT;
  } else if (a->is_inter() != b->is_inter()) {
    *result = MPI_UNEQUAL;
  } else {
    // Distinct communicators over the same ordered group(s) are congruent.
    Similarity s = comm::ops::compare_groups(a->group(), b->group());
    if (a->is_inter()) s = std::max(s, comm::ops::compare_groups(*a->remote_ref(), *b->remote_ref()));
    *result = static_cast<int>(s == Similarity::kIdent ? Similarity::kCongruent : s);
  }
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_compare, PMPI_Comm_compare)

int PMPI_Comm_dup(MPI_Comm ch, MPI_Comm* newcomm) {
  Call call("MPI_Comm_dup");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!newcomm) return call.fail(c, Err::kArg, "newcomm pointer is null");
  int code = MPI_SUCCESS;
  // FT-MPI: MPI_Comm_dup(MPI_COMM_WORLD) after a failure is the recovery call.
  if (ch == MPI_COMM_WORLD && ft_recover_world(call, newcomm, &code)) return code;
  if (call.ft_blocked_collective(c, &code)) return code;
  std::unique_ptr<comm::Communicator> n = comm::ops::dup(*c);
  n->topo = c->topo;
  const MPI_Comm h = adopt_comm(std::move(n), *c);
  comm::Communicator* nc = rt()->comms.get(h);
  if (int rc = c->attrs.copy_to(nc->attrs, ch); rc != 0) {
    // The standard: a failing copy callback makes the dup fail.
    (void)destroy_comm(h);
    *newcomm = MPI_COMM_NULL;
    return callback_failure(call, c, rc, "an attribute copy callback");
  }
  *newcomm = h;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_dup, PMPI_Comm_dup)

int PMPI_Comm_create(MPI_Comm ch, MPI_Group gh, MPI_Comm* newcomm) {
  Call call("MPI_Comm_create");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (c->is_inter()) return call.fail(c, Err::kComm, "MPI-1.2 creates communicators from intracommunicators only");
  const comm::GroupRef* g = lookup_group(gh);
  if (!g) return call.fail(c, Err::kGroup, "invalid group");
  if (!newcomm) return call.fail(c, Err::kArg, "newcomm pointer is null");
  if (int code = MPI_SUCCESS; call.ft_blocked_collective(c, &code)) return code;
  if (!comm::ops::is_subset(**g, c->group()))
    return call.fail(c, Err::kGroup, "the group is not a subset of the communicator's group");
  *newcomm = adopt_comm(comm::ops::create_from_group(*c, *g), *c);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_create, PMPI_Comm_create)

int PMPI_Comm_split(MPI_Comm ch, int color, int key, MPI_Comm* newcomm) {
  Call call("MPI_Comm_split");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (c->is_inter()) return call.fail(c, Err::kComm, "MPI-1.2 splits intracommunicators only");
  if (!newcomm) return call.fail(c, Err::kArg, "newcomm pointer is null");
  if (int code = MPI_SUCCESS; call.ft_blocked_collective(c, &code)) return code;
  if (color < 0 && color != MPI_UNDEFINED)
    return call.fail(c, Err::kArg, "color %d is negative and not MPI_UNDEFINED", color);
  std::unique_ptr<comm::Communicator> n;
  if (Err e = comm::ops::split(rt()->engine, *c, color, key, MPI_UNDEFINED, &n); !ok(e)) {
    *newcomm = MPI_COMM_NULL;
    return call.fail(c, e, "exchanging colors and keys failed");
  }
  *newcomm = adopt_comm(std::move(n), *c);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_split, PMPI_Comm_split)

int PMPI_Comm_free(MPI_Comm* comm) {
  Call call("MPI_Comm_free");
  if (!comm) return call.fail(nullptr, Err::kArg, "comm pointer is null");
  comm::Communicator* c = lookup_comm(*comm);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (is_predefined_comm(*comm))
    return call.fail(c, Err::kComm, "%s cannot be freed", *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
  const int rc = destroy_comm(*comm);
  *comm = MPI_COMM_NULL;
  return rc == 0 ? MPI_SUCCESS : callback_failure(call, nullptr, rc, "an attribute delete callback");
}
FTMPI_WEAK_ALIAS(MPI_Comm_free, PMPI_Comm_free)

}  // extern "C"

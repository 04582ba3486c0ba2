// Groups (MPI-1.2 §5.3). Groups are local objects: no call here communicates.
// Errors are reported through MPI_COMM_WORLD's error handler (no
// communicator is involved), as §7.2 says.
#include "api/args.hpp"
#include "api/comm_support.hpp"
#include "api/pmpi.hpp"
#include "comm/ops/group_algebra.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace {

int bad_group(Call& call, const char* what) { return call.fail(nullptr, Err::kGroup, "invalid group (%s)", what); }

using BinaryOp = comm::GroupRef (*)(const comm::Group&, const comm::Group&);

int binary(const char* name, BinaryOp op, MPI_Group g1, MPI_Group g2, MPI_Group* out) {
  Call call(name);
  const comm::GroupRef* a = lookup_group(g1);
  if (!a) return bad_group(call, "first argument");
  const comm::GroupRef* b = lookup_group(g2);
  if (!b) return bad_group(call, "second argument");
  if (!out) return call.fail(nullptr, Err::kArg, "newgroup pointer is null");
  *out = group_handle(op(**a, **b));
  return MPI_SUCCESS;
}

using ListOp = Err (*)(const comm::Group&, int, const int*, comm::GroupRef*);

int by_ranks(Call& call, ListOp op, MPI_Group gh, int n, const int* ranks, MPI_Group* out) {
  const comm::GroupRef* g = lookup_group(gh);
  if (!g) return bad_group(call, "group argument");
  if (!out) return call.fail(nullptr, Err::kArg, "newgroup pointer is null");
  if (n < 0) return call.fail(nullptr, Err::kArg, "n = %d is negative", n);
  if (n > 0 && !ranks) return call.fail(nullptr, Err::kArg, "ranks array is null");
  comm::GroupRef r;
  if (Err e = op(**g, n, ranks, &r); !ok(e))
    return call.fail(nullptr, e, "the ranks must be distinct ranks of a group of size %d", (*g)->size());
  *out = group_handle(std::move(r));
  return MPI_SUCCESS;
}

int by_ranges(const char* name, ListOp op, MPI_Group gh, int n, int ranges[][3], MPI_Group* out) {
  Call call(name);
  const comm::GroupRef* g = lookup_group(gh);
  if (!g) return bad_group(call, "group argument");
  if (n > 0 && !ranges) return call.fail(nullptr, Err::kArg, "ranges array is null");
  std::vector<int> ranks;
  if (Err e = comm::ops::expand_ranges(**g, n, ranges, &ranks); !ok(e))
    return call.fail(nullptr, e,
                     e == Err::kArg ? "a range has stride 0, or a stride that does not lead from first to last"
                                    : "the ranges must give distinct ranks of a group of size %d",
                     (*g)->size());
  return by_ranks(call, op, gh, static_cast<int>(ranks.size()), ranks.data(), out);
}

}  // namespace

extern "C" {

int PMPI_Group_size(MPI_Group gh, int* size) {
  Call call("MPI_Group_size");
  const comm::GroupRef* g = lookup_group(gh);
  if (!g) return bad_group(call, "group argument");
  if (!size) return call.fail(nullptr, Err::kArg, "size pointer is null");
  *size = (*g)->size();
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Group_size, PMPI_Group_size)

int PMPI_Group_rank(MPI_Group gh, int* rank) {
  Call call("MPI_Group_rank");
  const comm::GroupRef* g = lookup_group(gh);
  if (!g) return bad_group(call, "group argument");
  if (!rank) return call.fail(nullptr, Err::kArg, "rank pointer is null");
  const int r = comm::ops::rank_in(**g, rt()->engine.self());
  *rank = r >= 0 ? r : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Group_rank, PMPI_Group_rank)

int PMPI_Group_translate_ranks(MPI_Group g1, int n, const int* ranks1, MPI_Group g2, int* ranks2) {
  Call call("MPI_Group_translate_ranks");
  const comm::GroupRef* a = lookup_group(g1);
  if (!a) return bad_group(call, "first group");
  const comm::GroupRef* b = lookup_group(g2);
  if (!b) return bad_group(call, "second group");
  if (n < 0) return call.fail(nullptr, Err::kArg, "n = %d is negative", n);
  if (n > 0 && (!ranks1 || !ranks2)) return call.fail(nullptr, Err::kArg, "rank array is null");
  if (Err e = comm::ops::translate_ranks(**a, n, ranks1, **b, MPI_UNDEFINED, MPI_PROC_NULL, ranks2); !ok(e))
    return call.fail(nullptr, e, "a rank is not valid in the first group (size %d)", (*a)->size());
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Group_translate_ranks, PMPI_Group_translate_ranks)

int PMPI_Group_compare(MPI_Group g1, MPI_Group g2, int* result) {
  Call call("MPI_Group_compare");
  const comm::GroupRef* a = lookup_group(g1);
  if (!a) return bad_group(call, "first argument");
  const comm::GroupRef* b = lookup_group(g2);
  if (!b) return bad_group(call, "second argument");
  if (!result) return call.fail(nullptr, Err::kArg, "result pointer is null");
  *result = static_cast<int>(comm::ops::compare_groups(**a, **b));
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Group_compare, PMPI_Group_compare)

int PMPI_Comm_group(MPI_Comm ch, MPI_Group* group) {
  Call call("MPI_Comm_group");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!group) return call.fail(c, Err::kArg, "group pointer is null");
  *group = group_handle(c->group_ref());  // the local group of an intercommunicator
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_group, PMPI_Comm_group)

int PMPI_Group_union(MPI_Group g1, MPI_Group g2, MPI_Group* out) {
  return binary("MPI_Group_union", comm::ops::group_union, g1, g2, out);
}
FTMPI_WEAK_ALIAS(MPI_Group_union, PMPI_Group_union)

int PMPI_Group_intersection(MPI_Group g1, MPI_Group g2, MPI_Group* out) {
  return binary("MPI_Group_intersection", comm::ops::group_intersection, g1, g2, out);
}
FTMPI_WEAK_ALIAS(MPI_Group_intersection, PMPI_Group_intersection)

int PMPI_Group_difference(MPI_Group g1, MPI_Group g2, MPI_Group* out) {
  return binary("MPI_Group_difference", comm::ops::group_difference, g1, g2, out);
}
FTMPI_WEAK_ALIAS(MPI_Group_difference, PMPI_Group_difference)

int PMPI_Group_incl(MPI_Group gh, int n, const int* ranks, MPI_Group* out) {
  Call call("MPI_Group_incl");
  return by_ranks(call, comm::ops::group_incl, gh, n, ranks, out);
}
FTMPI_WEAK_ALIAS(MPI_Group_incl, PMPI_Group_incl)

int PMPI_Group_excl(MPI_Group gh, int n, const int* ranks, MPI_Group* out) {
  Call call("MPI_Group_excl");
  return by_ranks(call, comm::ops::group_excl, gh, n, ranks, out);
}
FTMPI_WEAK_ALIAS(MPI_Group_excl, PMPI_Group_excl)

int PMPI_Group_range_incl(MPI_Group gh, int n, int ranges[][3], MPI_Group* out) {
  return by_ranges("MPI_Group_range_incl", comm::ops::group_incl, gh, n, ranges, out);
}
FTMPI_WEAK_ALIAS(MPI_Group_range_incl, PMPI_Group_range_incl)

int PMPI_Group_range_excl(MPI_Group gh, int n, int ranges[][3], MPI_Group* out) {
  return by_ranges("MPI_Group_range_excl", comm::ops::group_excl, gh, n, ranges, out);
}
FTMPI_WEAK_ALIAS(MPI_Group_range_excl, PMPI_Group_range_excl)

int PMPI_Group_free(MPI_Group* group) {
  Call call("MPI_Group_free");
  if (!group) return call.fail(nullptr, Err::kArg, "group pointer is null");
  if (!lookup_group(*group)) return call.fail(nullptr, Err::kGroup, "invalid group");
  // MPI_GROUP_EMPTY is what every empty result is, so programs free it like
  // any group they got: allowed, and it stays valid.
  if (!rt()->groups.is_predefined(*group)) rt()->groups.remove(*group);
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Group_free, PMPI_Group_free)

}  // extern "C"

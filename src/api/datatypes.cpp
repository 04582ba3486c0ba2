// Datatype handles and the datatype calls of MPI-1.2 §3.12: constructors,
// commit and free, the size / extent / bound queries, MPI_Address and
// MPI_Get_elements. The objects are ftmpi::dtype types; the handle table holds
// one reference and every operation in flight another, so MPI_Type_free never
// pulls a type from under a pending request (MPI-1.2 §3.12.4).
#include <climits>
#include <new>
#include <vector>

#include "api/args.hpp"
#include "api/call.hpp"
#include "api/pmpi.hpp"
#include "api/type_support.hpp"

namespace ftmpi::api {

Err check_type(MPI_Datatype h, const dtype::TypeRef** out, Why& w) {
  TypeObj* t = rt()->types.get(h);
  if (!t) return w.set(Err::kType, h == MPI_DATATYPE_NULL ? "datatype is MPI_DATATYPE_NULL" : "invalid datatype");
  if (!t->type->committed()) return w.set(Err::kType, "datatype is not committed");
  *out = &t->type;
  return Err::kOk;
}

namespace {

int query_bound(const char* name, MPI_Datatype dt, MPI_Aint* out, int64_t (dtype::Type::*what)() const) {
  Call call(name);
  const dtype::Type* t = any_type(dt);
  if (!t) return bad_type(call, dt);
  if (!out) return call.fail(nullptr, Err::kArg, "result pointer is null");
  *out = static_cast<MPI_Aint>((t->*what)());
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace ftmpi::api

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  Call call("MPI_Type_contiguous");
  if (int c = check_common(call, count, true, newtype); c != MPI_SUCCESS) return c;
  const dtype::Type* old = any_type(oldtype);
  if (!old) return bad_type(call, oldtype);
  return construct(call, newtype, [&](dtype::TypeRef* out) { return dtype::make_contiguous(count, *old, out); },
                   envelope(MPI_COMBINER_CONTIGUOUS, {count}, {}, {oldtype}));
}
FTMPI_WEAK_ALIAS(MPI_Type_contiguous, PMPI_Type_contiguous)

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  Call call("MPI_Type_vector");
  if (int c = check_common(call, count, true, newtype); c != MPI_SUCCESS) return c;
  const dtype::Type* old = any_type(oldtype);
  if (!old) return bad_type(call, oldtype);
  if (blocklength < 0) return call.fail(nullptr, Err::kArg, "block length %d is negative", blocklength);
  return construct(call, newtype,
                   [&](dtype::TypeRef* out) { return dtype::make_vector(count, blocklength, stride, *old, out); },
                   envelope(MPI_COMBINER_VECTOR, {count, blocklength, stride}, {}, {oldtype}));
}
FTMPI_WEAK_ALIAS(MPI_Type_vector, PMPI_Type_vector)

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return create_hvector("MPI_Type_hvector", MPI_COMBINER_HVECTOR_INTEGER, count, blocklength, stride, oldtype,
                        newtype);
}
FTMPI_WEAK_ALIAS(MPI_Type_hvector, PMPI_Type_hvector)

int PMPI_Type_indexed(int count, const int* blocklengths, const int* displacements, MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  Call call("MPI_Type_indexed");
  if (int c = check_common(call, count, blocklengths && displacements, newtype); c != MPI_SUCCESS)
    return c;
  const dtype::Type* old = any_type(oldtype);
  if (!old) return bad_type(call, oldtype);
  const size_t n = static_cast<size_t>(count);
  return construct(call, newtype, [&](dtype::TypeRef* out) {
    return dtype::make_indexed({blocklengths, n}, {displacements, n}, *old, out);
  }, envelope(MPI_COMBINER_INDEXED, concat({count}, {blocklengths, n}, {displacements, n}), {}, {oldtype}));
}
FTMPI_WEAK_ALIAS(MPI_Type_indexed, PMPI_Type_indexed)

int PMPI_Type_hindexed(int count, const int* blocklengths, const MPI_Aint* displacements, MPI_Datatype oldtype,
                       MPI_Datatype* newtype) {
  return create_hindexed("MPI_Type_hindexed", MPI_COMBINER_HINDEXED_INTEGER, count, blocklengths, displacements,
                         oldtype, newtype);
}
FTMPI_WEAK_ALIAS(MPI_Type_hindexed, PMPI_Type_hindexed)

int PMPI_Type_struct(int count, const int* blocklengths, const MPI_Aint* displacements, const MPI_Datatype* types,
                     MPI_Datatype* newtype) {
  return create_struct("MPI_Type_struct", MPI_COMBINER_STRUCT_INTEGER, count, blocklengths, displacements, types,
                       newtype);
}
FTMPI_WEAK_ALIAS(MPI_Type_struct, PMPI_Type_struct)

int PMPI_Type_commit(MPI_Datatype* datatype) {
  Call call("MPI_Type_commit");
  if (!datatype) return call.fail(nullptr, Err::kArg, "datatype pointer is null");
  TypeObj* t = rt()->types.get(*datatype);
  if (!t) return bad_type(call, *datatype);
  if (!t->type->committed()) t->type->commit();
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_commit, PMPI_Type_commit)

int PMPI_Type_free(MPI_Datatype* datatype) {
  Call call("MPI_Type_free");
  if (!datatype) return call.fail(nullptr, Err::kArg, "datatype pointer is null");
  Runtime& R = *rt();
  if (!R.types.get(*datatype)) return bad_type(call, *datatype);
  if (R.types.is_predefined(*datatype)) return call.fail(nullptr, Err::kType, "a predefined datatype cannot be freed");
  // Attributes go first: their delete callbacks may still look at the type.
  if (int rc = R.types.get(*datatype)->attrs.clear(*datatype); rc != 0)
    return call.fail(nullptr, static_cast<Err>(rc), "an attribute delete callback returned %d", rc);
  R.types.remove(*datatype);  // pending operations keep their own reference
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_free, PMPI_Type_free)

int PMPI_Type_size(MPI_Datatype dt, int* size) {
  Call call("MPI_Type_size");
  const dtype::Type* t = any_type(dt);
  if (!t) return bad_type(call, dt);
  if (!size) return call.fail(nullptr, Err::kArg, "size pointer is null");
  // Too large for an int: MPI_UNDEFINED, as later MPI versions specify.
  *size = t->size() > INT_MAX ? MPI_UNDEFINED : static_cast<int>(t->size());
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_size, PMPI_Type_size)

int PMPI_Type_extent(MPI_Datatype dt, MPI_Aint* extent) {
  return query_bound("MPI_Type_extent", dt, extent, &dtype::Type::extent);
}
FTMPI_WEAK_ALIAS(MPI_Type_extent, PMPI_Type_extent)

int PMPI_Type_lb(MPI_Datatype dt, MPI_Aint* displacement) {
  return query_bound("MPI_Type_lb", dt, displacement, &dtype::Type::lb);
}
FTMPI_WEAK_ALIAS(MPI_Type_lb, PMPI_Type_lb)

int PMPI_Type_ub(MPI_Datatype dt, MPI_Aint* displacement) {
  return query_bound("MPI_Type_ub", dt, displacement, &dtype::Type::ub);
}
FTMPI_WEAK_ALIAS(MPI_Type_ub, PMPI_Type_ub)

int PMPI_Address(const void* location, MPI_Aint* address) {
  Call call("MPI_Address");
  if (!address) return call.fail(nullptr, Err::kArg, "address pointer is null");
  *address = static_cast<MPI_Aint>(reinterpret_cast<uintptr_t>(location));
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Address, PMPI_Address)

int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype dt, int* count) {
  Call call("MPI_Get_elements");
  Why w;
  const dtype::TypeRef* type = nullptr;
  if (!status || status == MPI_STATUS_IGNORE || !count) return call.fail(nullptr, Err::kArg, "null argument");
  if (Err e = check_type(dt, &type, w); !ok(e)) return call.fail(nullptr, e, "%s", w.text);
  int64_t n = dtype::get_elements(**type, status->ftmpi_count);
  *count = n == dtype::kUndefined || n > INT_MAX ? MPI_UNDEFINED : static_cast<int>(n);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Get_elements, PMPI_Get_elements)

}  // extern "C"

// The MPI-2 datatype constructors (MPI-3.1 §4.1.2-4.1.7): the create_
// forms of hvector / hindexed / struct (the code behind the MPI-1 forms too,
// which differ only in name and combiner), indexed_block, hindexed_block,
// resized, subarray, and MPI_Type_dup. Each records its envelope for
// MPI_Type_get_envelope / get_contents (type_query.cpp); darray is in
// type_darray.cpp.
#include <vector>

#include "api/pmpi.hpp"
#include "api/type_support.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace {

// An int count from a C array of MPI_Aint displacements.
std::vector<int64_t> widen(const MPI_Aint* d, size_t n) { return std::vector<int64_t>(d, d + n); }

// Subarray (MPI-3.1 §4.1.3): nested hvectors for the selected block, moved
// to its start and resized to the whole array, so that consecutive items
// address consecutive arrays.
Err build_subarray(int ndims, const int* sizes, const int* subsizes, const int* starts, bool c_order,
                   const dtype::Type& old, dtype::TypeRef* out) {
  // Dimension order from the fastest-varying one.
  std::vector<int> dims(static_cast<size_t>(ndims));
  for (int i = 0; i < ndims; ++i) dims[static_cast<size_t>(i)] = c_order ? ndims - 1 - i : i;
  const int64_t ext = old.extent();
  dtype::TypeRef t;
  if (Err e = dtype::make_contiguous(subsizes[dims[0]], old, &t); !ok(e)) return e;
  int64_t stride = 0, disp = 0;
  if (__builtin_mul_overflow(static_cast<int64_t>(sizes[dims[0]]), ext, &stride)) return Err::kArg;
  if (__builtin_mul_overflow(static_cast<int64_t>(starts[dims[0]]), ext, &disp)) return Err::kArg;
  for (size_t k = 1; k < dims.size(); ++k) {
    const int d = dims[k];
    dtype::TypeRef next;
    if (Err e = dtype::make_hvector(subsizes[d], 1, stride, *t, &next); !ok(e)) return e;
    t = std::move(next);
    int64_t off = 0;
    if (__builtin_mul_overflow(static_cast<int64_t>(starts[d]), stride, &off) ||
        __builtin_add_overflow(disp, off, &disp) ||
        __builtin_mul_overflow(stride, static_cast<int64_t>(sizes[d]), &stride))
      return Err::kArg;
  }
  const int one = 1;
  dtype::TypeRef placed;
  if (Err e = dtype::make_hindexed({&one, 1}, {&disp, 1}, *t, &placed); !ok(e)) return e;
  // Bounds of the whole array: [0, product(sizes) * extent).
  return dtype::make_resized(*placed, 0, stride, out);
}

}  // namespace

namespace ftmpi::api {

int create_hvector(const char* name, int combiner, int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                   MPI_Datatype* newtype) {
  Call call(name);
  if (int c = check_common(call, count, true, newtype); c != MPI_SUCCESS) return c;
  const dtype::Type* old = any_type(oldtype);
  if (!old) return bad_type(call, oldtype);
  if (blocklength < 0) return call.fail(nullptr, Err::kArg, "block length %d is negative", blocklength);
  return construct(call, newtype,
                   [&](dtype::TypeRef* out) { return dtype::make_hvector(count, blocklength, stride, *old, out); },
                   envelope(combiner, {count, blocklength}, {stride}, {oldtype}));
}

int create_hindexed(const char* name, int combiner, int count, const int* blocklengths, const MPI_Aint* displacements,
                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  Call call(name);
  if (int c = check_common(call, count, blocklengths && displacements, newtype); c != MPI_SUCCESS) return c;
  const dtype::Type* old = any_type(oldtype);
  if (!old) return bad_type(call, oldtype);
  const size_t n = static_cast<size_t>(count);
  return construct(
      call, newtype,
      [&](dtype::TypeRef* out) { return dtype::make_hindexed({blocklengths, n}, widen(displacements, n), *old, out); },
      envelope(combiner, concat({count}, {blocklengths, n}), {displacements, displacements + n}, {oldtype}));
}

int create_struct(const char* name, int combiner, int count, const int* blocklengths, const MPI_Aint* displacements,
                  const MPI_Datatype* types, MPI_Datatype* newtype) {
  Call call(name);
  if (int c = check_common(call, count, blocklengths && displacements && types, newtype); c != MPI_SUCCESS)
    return c;
  const size_t n = static_cast<size_t>(count);
  std::vector<const dtype::Type*> members(n);
  for (size_t i = 0; i < n; ++i) {
    members[i] = any_type(types[i]);
    if (!members[i]) return call.fail(nullptr, Err::kType, "types[%zu] is not a valid datatype", i);
  }
  return construct(
      call, newtype,
      [&](dtype::TypeRef* out) { return dtype::make_struct({blocklengths, n}, widen(displacements, n), members, out); },
      envelope(combiner, concat({count}, {blocklengths, n}), {displacements, displacements + n}, {types, types + n}));
}

}  // namespace ftmpi::api

extern "C" {

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype* newtype) {
  return create_hvector("MPI_Type_create_hvector", MPI_COMBINER_HVECTOR, count, blocklength, stride, oldtype, newtype);
}
FTMPI_WEAK_ALIAS(MPI_Type_create_hvector, PMPI_Type_create_hvector)

int PMPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return create_hindexed("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count, blocklengths, displacements,
                         oldtype, newtype);
}
FTMPI_WEAK_ALIAS(MPI_Type_create_hindexed, PMPI_Type_create_hindexed)

int PMPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                            const MPI_Datatype types[], MPI_Datatype* newtype) {
  return create_struct("MPI_Type_create_struct", MPI_COMBINER_STRUCT, count, blocklengths, displacements, types,
                       newtype);
}
FTMPI_WEAK_ALIAS(MPI_Type_create_struct, PMPI_Type_create_struct)

int PMPI_Type_create_indexed_block(int count, int blocklength, const int displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  Call call("MPI_Type_create_indexed_block");
  if (int c = check_common(call, count, displacements != nullptr, newtype); c != MPI_SUCCESS) return c;
  const dtype::Type* old = any_type(oldtype);
  if (!old) return bad_type(call, oldtype);
  if (blocklength < 0) return call.fail(nullptr, Err::kArg, "block length %d is negative", blocklength);
  const size_t n = static_cast<size_t>(count);
  const std::vector<int> lens(n, blocklength);
  return construct(
      call, newtype,
      [&](dtype::TypeRef* out) { return dtype::make_indexed(lens, {displacements, n}, *old, out); },
      envelope(MPI_COMBINER_INDEXED_BLOCK, concat({count, blocklength}, {displacements, n}), {}, {oldtype}));
}
FTMPI_WEAK_ALIAS(MPI_Type_create_indexed_block, PMPI_Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype* newtype) {
  Call call("MPI_Type_create_hindexed_block");
  if (int c = check_common(call, count, displacements != nullptr, newtype); c != MPI_SUCCESS) return c;
  const dtype::Type* old = any_type(oldtype);
  if (!old) return bad_type(call, oldtype);
  if (blocklength < 0) return call.fail(nullptr, Err::kArg, "block length %d is negative", blocklength);
  const size_t n = static_cast<size_t>(count);
  const std::vector<int> lens(n, blocklength);
  return construct(
      call, newtype,
      [&](dtype::TypeRef* out) { return dtype::make_hindexed(lens, widen(displacements, n), *old, out); },
      envelope(MPI_COMBINER_HINDEXED_BLOCK, {count, blocklength}, {displacements, displacements + n}, {oldtype}));
}
FTMPI_WEAK_ALIAS(MPI_Type_create_hindexed_block, PMPI_Type_create_hindexed_block)

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  Call call("MPI_Type_create_resized");
  if (!newtype) return call.fail(nullptr, Err::kArg, "newtype pointer is null");
  const dtype::Type* old = any_type(oldtype);
  if (!old) return bad_type(call, oldtype);
  return construct(
      call, newtype, [&](dtype::TypeRef* out) { return dtype::make_resized(*old, lb, extent, out); },
      envelope(MPI_COMBINER_RESIZED, {}, {lb, extent}, {oldtype}));
}
FTMPI_WEAK_ALIAS(MPI_Type_create_resized, PMPI_Type_create_resized)

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[], const int starts[], int order,
                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  Call call("MPI_Type_create_subarray");
  if (!newtype) return call.fail(nullptr, Err::kArg, "newtype pointer is null");
  if (ndims <= 0) return call.fail(nullptr, Err::kArg, "ndims %d is not positive", ndims);
  if (!sizes || !subsizes || !starts) return call.fail(nullptr, Err::kArg, "an array argument is null");
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return call.fail(nullptr, Err::kArg, "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  for (int i = 0; i < ndims; ++i) {
    if (sizes[i] <= 0) return call.fail(nullptr, Err::kArg, "sizes[%d] = %d is not positive", i, sizes[i]);
    if (subsizes[i] <= 0 || subsizes[i] > sizes[i])
      return call.fail(nullptr, Err::kArg, "subsizes[%d] = %d is not in 1..%d", i, subsizes[i], sizes[i]);
    if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i])
      return call.fail(nullptr, Err::kArg, "starts[%d] = %d is not in 0..%d", i, starts[i], sizes[i] - subsizes[i]);
  }
  const dtype::Type* old = any_type(oldtype);
  if (!old) return bad_type(call, oldtype);
  const size_t n = static_cast<size_t>(ndims);
  std::vector<int> ints = concat({ndims}, {sizes, n}, {subsizes, n});
  ints.insert(ints.end(), starts, starts + n);
  ints.push_back(order);
  return construct(
      call, newtype,
      [&](dtype::TypeRef* out) {
        return build_subarray(ndims, sizes, subsizes, starts, order == MPI_ORDER_C, *old, out);
      },
      envelope(MPI_COMBINER_SUBARRAY, std::move(ints), {}, {oldtype}));
}
FTMPI_WEAK_ALIAS(MPI_Type_create_subarray, PMPI_Type_create_subarray)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  Call call("MPI_Type_dup");
  if (!newtype) return call.fail(nullptr, Err::kArg, "newtype pointer is null");
  TypeObj* old = rt()->types.get(oldtype);
  if (!old) return bad_type(call, oldtype);
  // One copy of old: the same type map and bounds, its own commit state
  // (a duplicate of a committed type is committed, MPI-3.1 §4.1.10).
  const bool committed = old->type->committed();
  MPI_Datatype h = MPI_DATATYPE_NULL;
  int rc = construct(
      call, &h, [&](dtype::TypeRef* out) { return dtype::make_contiguous(1, *old->type, out); },
      envelope(MPI_COMBINER_DUP, {}, {}, {oldtype}));
  if (rc != MPI_SUCCESS) return rc;
  TypeObj* dup = rt()->types.get(h);
  if (committed) dup->type->commit();
  old = rt()->types.get(oldtype);
  if (int crc = old->attrs.copy_to(dup->attrs, oldtype); crc != 0) {
    (void)dup->attrs.clear(h);
    rt()->types.remove(h);
    return call.fail(nullptr, static_cast<Err>(crc), "an attribute copy callback returned %d", crc);
  }
  *newtype = h;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_dup, PMPI_Type_dup)

}  // extern "C"

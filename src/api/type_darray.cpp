// MPI_Type_create_darray (MPI-3.1 §4.1.4): the part of a global array that
// one process of a process grid owns, under HPF-style BLOCK, CYCLIC(k) or
// NONE distributions per dimension. Built as the standard defines it: one
// level per dimension, from the fastest-varying one (the last in C order,
// the first in Fortran order), each level selecting this process's blocks
// of the level below and spanning the whole dimension (lb 0, extent gsize
// times the extent of the level below).
#include <vector>

#include "api/pmpi.hpp"
#include "api/type_support.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace {

// One dimension: the elements i of [0, gsize) with (i / darg) % psize == r,
// at i * extent(old), in increasing order. Full blocks form one hvector;
// a last, shorter block (only when gsize is not a multiple of darg) follows.
Err cyclic_level(int64_t darg, int64_t gsize, int64_t r, int64_t psize, const dtype::Type& old,
                 dtype::TypeRef* out) {
  const int64_t ex = old.extent();
  int64_t span = 0, stride = 0, first = 0;
  if (__builtin_mul_overflow(gsize, ex, &span) || __builtin_mul_overflow(darg * psize, ex, &stride) ||
      __builtin_mul_overflow(r * darg, ex, &first))
    return Err::kArg;
  // Blocks of this process: b = r, r + psize, ...; block b starts at b * darg.
  const int64_t nblocks = (gsize + darg - 1) / darg;
  const int64_t mine = nblocks > r ? (nblocks - r + psize - 1) / psize : 0;
  int64_t last_len = darg;
  if (mine > 0) {
    const int64_t last_start = (r + (mine - 1) * psize) * darg;
    last_len = gsize - last_start < darg ? gsize - last_start : darg;
  }
  const int64_t full = last_len == darg ? mine : mine - 1;
  std::vector<dtype::TypeRef> parts;
  std::vector<int64_t> disps;
  if (full > 0) {
    dtype::TypeRef v;
    if (Err e = dtype::make_hvector(full, darg, stride, old, &v); !ok(e)) return e;
    parts.push_back(std::move(v));
    disps.push_back(first);
  }
  if (full < mine) {
    dtype::TypeRef c;
    if (Err e = dtype::make_contiguous(last_len, old, &c); !ok(e)) return e;
    parts.push_back(std::move(c));
    disps.push_back((r + full * psize) * darg * ex);
  }
  dtype::TypeRef sel;
  if (parts.empty()) {
    if (Err e = dtype::make_contiguous(0, old, &sel); !ok(e)) return e;
  } else {
    const std::vector<int> ones(parts.size(), 1);
    std::vector<const dtype::Type*> members;
    for (const auto& p : parts) members.push_back(p.get());
    if (Err e = dtype::make_struct(ones, disps, members, &sel); !ok(e)) return e;
  }
  return dtype::make_resized(*sel, 0, span, out);
}

struct Dim {
  int64_t gsize, darg, psize, coord;
};

Err build_darray(const std::vector<Dim>& dims, bool c_order, const dtype::Type& old, dtype::TypeRef* out) {
  const size_t n = dims.size();
  dtype::TypeRef t;
  const dtype::Type* below = &old;
  for (size_t k = 0; k < n; ++k) {
    const Dim& d = dims[c_order ? n - 1 - k : k];
    dtype::TypeRef next;
    if (Err e = cyclic_level(d.darg, d.gsize, d.coord, d.psize, *below, &next); !ok(e)) return e;
    t = std::move(next);
    below = t.get();
  }
  *out = std::move(t);
  return Err::kOk;
}

}  // namespace

extern "C" {

int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                            const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  Call call("MPI_Type_create_darray");
  if (!newtype) return call.fail(nullptr, Err::kArg, "newtype pointer is null");
  if (size <= 0) return call.fail(nullptr, Err::kArg, "size %d is not positive", size);
  if (rank < 0 || rank >= size) return call.fail(nullptr, Err::kArg, "rank %d is not in 0..%d", rank, size - 1);
  if (ndims <= 0) return call.fail(nullptr, Err::kArg, "ndims %d is not positive", ndims);
  if (!gsizes || !distribs || !dargs || !psizes) return call.fail(nullptr, Err::kArg, "an array argument is null");
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return call.fail(nullptr, Err::kArg, "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
  int64_t grid = 1;
  for (int i = 0; i < ndims; ++i) {
    if (gsizes[i] <= 0) return call.fail(nullptr, Err::kArg, "array_of_gsizes[%d] = %d is not positive", i, gsizes[i]);
    if (psizes[i] <= 0)
      return call.fail(nullptr, Err::kArg, "array_of_psizes[%d] = %d is not positive", i, psizes[i]);
    grid *= psizes[i];
    if (grid > size) break;
  }
  if (grid != size)
    return call.fail(nullptr, Err::kArg, "the process grid (product of array_of_psizes) is not of size %d", size);
  // Process coordinates: the grid is numbered in row-major order whatever
  // the array's order (MPI-3.1 §4.1.4).
  std::vector<Dim> dims(static_cast<size_t>(ndims));
  int64_t t_rank = rank, t_size = size;
  for (int i = 0; i < ndims; ++i) {
    Dim& d = dims[static_cast<size_t>(i)];
    d.gsize = gsizes[i];
    d.psize = psizes[i];
    t_size /= psizes[i];
    d.coord = t_rank / t_size;
    t_rank %= t_size;
    switch (distribs[i]) {
      case MPI_DISTRIBUTE_NONE:
        if (psizes[i] != 1)
          return call.fail(nullptr, Err::kArg, "dimension %d is MPI_DISTRIBUTE_NONE but array_of_psizes[%d] = %d",
                           i, i, psizes[i]);
        d.darg = d.gsize;  // one block: the whole dimension; the darg given is not used
        break;
      case MPI_DISTRIBUTE_BLOCK:
        if (dargs[i] == MPI_DISTRIBUTE_DFLT_DARG) {
          d.darg = (d.gsize + d.psize - 1) / d.psize;
        } else if (dargs[i] <= 0) {
          return call.fail(nullptr, Err::kArg, "array_of_dargs[%d] = %d is not positive", i, dargs[i]);
        } else if (static_cast<int64_t>(dargs[i]) * d.psize < d.gsize) {
          return call.fail(nullptr, Err::kArg,
                           "dimension %d: BLOCK(%d) on %d processes does not cover %d elements", i, dargs[i],
                           psizes[i], gsizes[i]);
        } else {
          d.darg = dargs[i];
        }
        break;
      case MPI_DISTRIBUTE_CYCLIC:
        if (dargs[i] == MPI_DISTRIBUTE_DFLT_DARG) {
          d.darg = 1;
        } else if (dargs[i] <= 0) {
          return call.fail(nullptr, Err::kArg, "array_of_dargs[%d] = %d is not positive", i, dargs[i]);
        } else {
          d.darg = dargs[i];
        }
        break;
      default:
        return call.fail(nullptr, Err::kArg, "array_of_distribs[%d] = %d is not a distribution", i, distribs[i]);
    }
  }
  const dtype::Type* old = any_type(oldtype);
  if (!old) return bad_type(call, oldtype);
  const size_t n = static_cast<size_t>(ndims);
  std::vector<int> ints = concat({size, rank, ndims}, {gsizes, n}, {distribs, n});
  ints.insert(ints.end(), dargs, dargs + n);
  ints.insert(ints.end(), psizes, psizes + n);
  ints.push_back(order);
  return construct(
      call, newtype, [&](dtype::TypeRef* out) { return build_darray(dims, order == MPI_ORDER_C, *old, out); },
      envelope(MPI_COMBINER_DARRAY, std::move(ints), {}, {oldtype}));
}
FTMPI_WEAK_ALIAS(MPI_Type_create_darray, PMPI_Type_create_darray)

}  // extern "C"

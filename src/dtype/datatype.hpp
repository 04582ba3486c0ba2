// ftmpi::dtype — the datatype engine and the predefined reduction ops.
//
// Include this header; it pulls in the whole public interface. The module
// uses only src/base and never sees an MPI handle: the API layer maps
// MPI_Datatype handle indices 1..35 to Builtin values by a cast, and user
// handles to TypeRefs.
//
// Objects
//   Builtin, info(b)          the 35 predefined types with size, extent,
//                             alignment, Kind (c-integer, fortran-integer,
//                             floating, logical, complex, byte, character,
//                             pair, packed, marker) and CType<b> (builtin.hpp)
//   Type, TypeRef             an immutable datatype with an intrusive
//                             reference count: the handle table holds one
//                             reference, every pending operation another, so
//                             MPI_Type_free never pulls a type from under a
//                             request. commit() only sets the flag: the
//                             compiled layout is built by the constructor.
//   make_contiguous / make_vector / make_hvector / make_indexed /
//   make_hindexed / make_struct, builtin_type(b), builtin_ref(b)   (type.hpp)
//
// Queries (Type): size, extent, lb, ub, true_lb/true_ub, has_lb_marker /
// has_ub_marker, elements() per item, contiguous() for the memcpy / zero-copy
// fast path, unit() for reductions, and signature_hash(). The explicit type
// map (type_map.hpp) is for tests and debugging only: it is O(elements).
//
// Bounds (type_build.cpp): MPI-1.2 §3.12 with sticky MPI_LB / MPI_UB markers;
// MPI_Type_struct rounds its extent up to the largest member alignment unless
// a UB marker fixes the upper bound (the standard's epsilon; vector-like
// constructors never pad, as in MPICH). A marker only moves its own bound.
//
// Moving data: Cursor (cursor.hpp) walks (buffer, count, type) as a packed
// byte stream: pack(dst, max), unpack(src, n), seek(offset) and
// iovecs(out, max_entries, max_bytes) for process_vm_readv / writev. Pieces
// may end inside a basic element. Send and receive types only need equal
// signatures: the packed stream is the same. The layout is a tree of
// (count, stride, run length) nodes (program.hpp), so memory is proportional
// to the type description and a strided run costs one tight copy loop.
//
// Counting and matching (signature.hpp): get_elements / get_count
// (MPI_Get_elements / MPI_Get_count, kUndefined = -1 for MPI_UNDEFINED),
// signature hashes, signature_matches for receive checks, same_signature for
// collectives. has_overlap (type_map.hpp) checks receive buffers.
//
// Reductions (op.hpp): OpKind (values = MPI_Op handle indices), check() per
// MPI-1.2 §4.9.2 returning Err::kOp when the pair is not allowed, apply()
// elementwise in type-map order, also on derived types made of one builtin.
//
// Threads: a Type may be read from any thread once built; a Cursor belongs to
// one thread. Nothing here blocks or does I/O.
#pragma once

#include "dtype/builtin.hpp"
#include "dtype/cursor.hpp"
#include "dtype/op.hpp"
#include "dtype/signature.hpp"
#include "dtype/type.hpp"
#include "dtype/type_map.hpp"

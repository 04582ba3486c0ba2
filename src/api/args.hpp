// Argument checks shared by the MPI_ entry points. Each returns the error
// class to report (with the explanation written to `why`), or Err::kOk.
#pragma once
#include <climits>
#include <cstdio>

#include "api/runtime.hpp"

namespace ftmpi::api {

inline constexpr int kTagUb = INT_MAX;

struct Why {
  // Only the first byte is set up front: every call makes one of these, and
  // zero-filling all of it cost more than the checks it explains.
  Why() { text[0] = '\0'; }
  char text[160];
  template <typename... A>
  Err set(Err e, const char* fmt, A... a) {
    std::snprintf(text, sizeof text, fmt, a...);
    return e;
  }
};

inline comm::Communicator* lookup_comm(MPI_Comm h) { return rt()->comms.get(h); }

inline Err check_count(int count, Why& w) {
  return count < 0 ? w.set(Err::kCount, "count %d is negative", count) : Err::kOk;
}

// A datatype usable for communication: valid and committed.
Err check_type(MPI_Datatype h, const dtype::TypeRef** out, Why& w);

inline Err check_buffer(const void* buf, int count, const dtype::TypeRef& t, Why& w) {
  // The collectives replace MPI_IN_PLACE where it is allowed (in_place.hpp)
  // before checking: any left is misplaced.
  if (buf == MPI_IN_PLACE) return w.set(Err::kBuffer, "MPI_IN_PLACE is not allowed for this buffer");
  // A null buffer is legitimate with MPI_BOTTOM and absolute-address types,
  // so only builtin types make it an error.
  if (!buf && count > 0 && t->is_builtin() && t->size() > 0)
    return w.set(Err::kBuffer, "null buffer with count %d", count);
  return Err::kOk;
}

inline Err check_send_tag(int tag, Why& w) {
  return tag < 0 || tag > kTagUb ? w.set(Err::kTag, "tag %d is outside 0..MPI_TAG_UB", tag) : Err::kOk;
}

inline Err check_recv_tag(int tag, Why& w) {
  return (tag < 0 && tag != MPI_ANY_TAG) || tag > kTagUb ? w.set(Err::kTag, "tag %d is not valid for a receive", tag)
                                                         : Err::kOk;
}

inline Err check_dest(const comm::Communicator& c, int rank, Why& w) {
  int n = c.is_inter() ? c.remote_size() : c.size();
  if (rank == MPI_PROC_NULL || (rank >= 0 && rank < n)) return Err::kOk;
  return w.set(Err::kRank, "rank %d is out of range for a communicator of size %d", rank, n);
}

inline Err check_source(const comm::Communicator& c, int rank, Why& w) {
  return rank == MPI_ANY_SOURCE ? Err::kOk : check_dest(c, rank, w);
}

}  // namespace ftmpi::api

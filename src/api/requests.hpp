// MPI_Request handles are (kind << 26) | (pool index + 1) of the engine's
// request pool, so looking one up costs an index, and a handle of a request
// that has been freed (and whose slot was reused) is caught by the pool's id.
#pragma once
#include "api/runtime.hpp"
#include "p2p/request.hpp"

namespace ftmpi::api {

inline MPI_Request request_handle(const p2p::Request* r) {
  return make_handle(Kind::kRequest, static_cast<int>(p2p::RequestPool::index_of(r)) + 1);
}

inline p2p::Request* lookup_request(MPI_Request h) {
  if (!handle_is(h, Kind::kRequest) || handle_index(h) == 0) return nullptr;
  return rt()->engine.request_at(static_cast<uint32_t>(handle_index(h) - 1));
}

inline void fill_status(MPI_Status* s, const p2p::Request& r) {
  if (s == MPI_STATUS_IGNORE) return;
  // The sender's rank now: after a SHRINK recovery it may differ from the
  // rank it had when the message matched (spec/ft-semantics.md §4.4).
  int now = r.st_slot >= 0 && r.comm ? r.comm->peer_group().rank_of_slot(r.st_slot) : -1;
  s->MPI_SOURCE = now >= 0 ? now : r.st_source;
  s->MPI_TAG = r.st_tag;
  s->MPI_ERROR = static_cast<int>(r.st_err);
  s->ftmpi_count = static_cast<long long>(r.st_bytes);
  s->ftmpi_cancelled = r.cancelled;
}

// The status MPI-1.2 defines for null and inactive requests.
inline void empty_status(MPI_Status* s) {
  if (s == MPI_STATUS_IGNORE) return;
  s->MPI_SOURCE = MPI_ANY_SOURCE;
  s->MPI_TAG = MPI_ANY_TAG;
  s->MPI_ERROR = MPI_SUCCESS;
  s->ftmpi_count = 0;
  s->ftmpi_cancelled = 0;
}

// A persistent request that is not started: completes at once with an empty
// status in every wait and test, as MPI-1.2 §3.9 says.
inline bool is_inactive(const p2p::Request* r) { return r->persistent && !r->started; }

// A request that ended because its peer died, while the recovery that makes
// it invalid has not happened yet (MANUAL and AUTO recovery modes): waits
// and tests leave it alone and report MPI_ERR_OTHER (in Waitall/Testall
// statuses MPI_ERR_PENDING); after the recovery it ends with
// MPI_ERR_REQUEST (spec/ft-semantics.md §4.4). In IGNORE mode no recovery
// comes: it ends with MPI_ERR_OTHER at once.
bool awaits_recovery(const p2p::Request* r);

// After r completed: report its status, free it (or deactivate a persistent
// one) and update the user's handle. Returns the operation's error.
Err retire_request(MPI_Request* h, p2p::Request* r, MPI_Status* st);

}  // namespace ftmpi::api

// Completion calls: MPI_Wait, MPI_Test, MPI_Waitall (and the probes).
#include "api/args.hpp"
#include "api/call.hpp"
#include "api/pmpi.hpp"
#include "api/requests.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace {
// A request that is null or an inactive persistent one completes at once with an empty status.
bool is_inactive(const p2p::Request* r) { return r->persistent && !r->active && !r->complete; }
}  // namespace

extern "C" {

int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  Call call("MPI_Wait");
  if (!call.running()) return MPI_ERR_OTHER;
  if (!request) return call.fail(nullptr, Err::kArg, "request pointer is null");
  if (*request == MPI_REQUEST_NULL) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  p2p::Request* r = lookup_request(*request);
  if (!r) return call.fail(nullptr, Err::kRequest, "invalid request handle");
  if (is_inactive(r)) {
    empty_status(status);
    return MPI_SUCCESS;
  }
  rt()->engine.wait(r);
  comm::Communicator* c = r->comm;
  return call.ret(c, retire_request(request, r, status));
}
FTMPI_WEAK_ALIAS(MPI_Wait, PMPI_Wait)

int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  Call call("MPI_Test");
  if (!call.running()) return MPI_ERR_OTHER;
  if (!request || !flag) return call.fail(nullptr, Err::kArg, "null argument");
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  p2p::Request* r = lookup_request(*request);
  if (!r) return call.fail(nullptr, Err::kRequest, "invalid request handle");
  if (is_inactive(r)) {
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  if (!r->complete) rt()->engine.progress();
  *flag = r->complete;
  if (!r->complete) return MPI_SUCCESS;
  comm::Communicator* c = r->comm;
  return call.ret(c, retire_request(request, r, status));
}
FTMPI_WEAK_ALIAS(MPI_Test, PMPI_Test)

int PMPI_Waitall(int count, MPI_Request* requests, MPI_Status* statuses) {
  Call call("MPI_Waitall");
  if (!call.running()) return MPI_ERR_OTHER;
  if (count < 0) return call.fail(nullptr, Err::kCount, "count %d is negative", count);
  if (count > 0 && !requests) return call.fail(nullptr, Err::kArg, "request array is null");
  std::vector<p2p::Request*> reqs(static_cast<size_t>(count), nullptr);
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    reqs[static_cast<size_t>(i)] = lookup_request(requests[i]);
    if (!reqs[static_cast<size_t>(i)]) return call.fail(nullptr, Err::kRequest, "request %d is not valid", i);
    if (is_inactive(reqs[static_cast<size_t>(i)])) reqs[static_cast<size_t>(i)] = nullptr;
  }
  rt()->engine.wait_until([&] {
    for (p2p::Request* r : reqs)
      if (r && !r->complete) return false;
    return true;
  });
  bool any_error = false;
  comm::Communicator* err_comm = nullptr;
  for (int i = 0; i < count; ++i) {
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    p2p::Request* r = reqs[static_cast<size_t>(i)];
    if (!r) {
      empty_status(st);
      continue;
    }
    comm::Communicator* c = r->comm;
    Err e = retire_request(&requests[i], r, st);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = static_cast<int>(e);
    if (!ok(e) && !any_error) {
      any_error = true;
      err_comm = c;
    }
  }
  return any_error ? call.fail(err_comm, Err::kInStatus, "see the statuses") : MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Waitall, PMPI_Waitall)

int PMPI_Iprobe(int source, int tag, MPI_Comm ch, int* flag, MPI_Status* status) {
  Call call("MPI_Iprobe");
  if (!call.running()) return MPI_ERR_OTHER;
  Why w;
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!flag) return call.fail(c, Err::kArg, "flag pointer is null");
  if (Err e = check_recv_tag(tag, w); !ok(e)) return call.fail(c, e, "%s", w.text);
  if (Err e = check_source(*c, source, w); !ok(e)) return call.fail(c, e, "%s", w.text);
  p2p::ProbeResult pr;
  *flag = rt()->engine.iprobe(*c, c->ctx(), source, tag, &pr);
  if (*flag && status != MPI_STATUS_IGNORE) {
    status->MPI_SOURCE = pr.source;
    status->MPI_TAG = pr.tag;
    status->MPI_ERROR = MPI_SUCCESS;
    status->ftmpi_count = static_cast<long long>(pr.bytes);
    status->ftmpi_cancelled = 0;
  }
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Iprobe, PMPI_Iprobe)

int PMPI_Probe(int source, int tag, MPI_Comm ch, MPI_Status* status) {
  Call call("MPI_Probe");
  if (!call.running()) return MPI_ERR_OTHER;
  Why w;
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (Err e = check_recv_tag(tag, w); !ok(e)) return call.fail(c, e, "%s", w.text);
  if (Err e = check_source(*c, source, w); !ok(e)) return call.fail(c, e, "%s", w.text);
  p2p::ProbeResult pr;
  p2p::Engine& eng = rt()->engine;
  eng.wait_until([&] { return eng.iprobe(*c, c->ctx(), source, tag, &pr); });
  if (status != MPI_STATUS_IGNORE) {
    status->MPI_SOURCE = pr.source;
    status->MPI_TAG = pr.tag;
    status->MPI_ERROR = MPI_SUCCESS;
    status->ftmpi_count = static_cast<long long>(pr.bytes);
    status->ftmpi_cancelled = 0;
  }
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Probe, PMPI_Probe)

}  // extern "C"

// Completion calls of MPI-1.2 §3.7.3 and §3.7.5: MPI_Wait / MPI_Test and
// the any / all / some families.
//
// Rules kept here (MPI-1.2): null handles and inactive persistent requests
// count as complete with an empty status; when none is active, the "any"
// calls give index MPI_UNDEFINED (Testany with flag true) and the "some"
// calls outcount MPI_UNDEFINED. The multiple-completion calls report errors
// as MPI_ERR_IN_STATUS with each status' MPI_ERROR set. Waitall waits for
// every request, except that a request failed by a process failure ends the
// wait at once (the others may never complete): requests still in flight
// then stay active and get MPI_ERR_PENDING. A request whose peer died is
// left alone until the recovery (awaits_recovery(): MPI_ERR_OTHER, or
// MPI_ERR_PENDING in a status). Every blocking wait sleeps in
// Engine::wait_until. Among several complete requests the "any" calls take
// the lowest index, the "some" calls all of them in index order.
#include <vector>

#include "api/args.hpp"
#include "api/call.hpp"
#include "api/pmpi.hpp"
#include "api/requests.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace {

using Reqs = std::vector<p2p::Request*>;

MPI_Status* status_at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// Checks the array arguments and looks every handle up: nullptr for null
// handles and inactive requests. Returns the code to return on an error.
bool resolve(Call& call, int count, MPI_Request* handles, Reqs& out, int& code) {
  if (count < 0) {
    code = call.fail(nullptr, Err::kCount, "count %d is negative", count);
    return false;
  }
  if (count > 0 && !handles) {
    code = call.fail(nullptr, Err::kArg, "request array is null");
    return false;
  }
  out.assign(static_cast<size_t>(count), nullptr);
  for (int i = 0; i < count; ++i) {
    if (handles[i] == MPI_REQUEST_NULL) continue;
    p2p::Request* r = lookup_request(handles[i]);
    if (!r) {
      code = call.fail(nullptr, Err::kRequest, "request %d is not a valid handle", i);
      return false;
    }
    if (!is_inactive(r)) out[static_cast<size_t>(i)] = r;
  }
  return true;
}

bool none_active(const Reqs& reqs) {
  for (const p2p::Request* r : reqs)
    if (r) return false;
  return true;
}

int first_complete(const Reqs& reqs) {
  for (size_t i = 0; i < reqs.size(); ++i)
    if (reqs[i] && reqs[i]->complete && !awaits_recovery(reqs[i])) return static_cast<int>(i);
  return -1;
}

bool any_awaiting(const Reqs& reqs) {
  for (const p2p::Request* r : reqs)
    if (r && awaits_recovery(r)) return true;
  return false;
}

// True when every request is complete, or one has failed because a process
// did (the point where Waitall stops waiting).
bool all_settled(const Reqs& reqs) {
  bool all = true;
  for (const p2p::Request* r : reqs) {
    if (!r) continue;
    if (!r->complete) all = false;
    else if (r->st_err == Err::kOther) return true;
  }
  return all;
}

// Waitall / Testall once all_settled(): retires the complete requests, marks
// the others pending, and returns MPI_SUCCESS or MPI_ERR_IN_STATUS.
int finish_all(Call& call, MPI_Request* handles, const Reqs& reqs, MPI_Status* statuses) {
  comm::Communicator* err_comm = nullptr;
  bool any_error = false;
  for (size_t i = 0; i < reqs.size(); ++i) {
    MPI_Status* st = status_at(statuses, static_cast<int>(i));
    p2p::Request* r = reqs[i];
    if (!r) {
      empty_status(st);
      continue;
    }
    if (!r->complete || awaits_recovery(r)) {
      // Still in flight after another one failed or a failure interrupted the
      // wait, or its peer died and the recovery has not run: the request
      // stays valid (re-post the wait after recovery).
      if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = MPI_ERR_PENDING;
      any_error = true;
      continue;
    }
    comm::Communicator* c = r->comm;
    Err e = retire_request(&handles[i], r, st);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = static_cast<int>(e);
    if (!ok(e) && !any_error) {
      any_error = true;
      err_comm = c;
    }
  }
  return any_error ? call.fail(err_comm, Err::kInStatus, "see the statuses' MPI_ERROR fields") : MPI_SUCCESS;
}

// Waitsome / Testsome: retires every complete request, in index order.
int finish_some(Call& call, MPI_Request* handles, const Reqs& reqs, int* outcount, int* indices,
                MPI_Status* statuses) {
  comm::Communicator* err_comm = nullptr;
  bool any_error = false;
  int k = 0;
  for (size_t i = 0; i < reqs.size(); ++i) {
    p2p::Request* r = reqs[i];
    if (!r || !r->complete || awaits_recovery(r)) continue;
    MPI_Status* st = status_at(statuses, k);
    comm::Communicator* c = r->comm;
    Err e = retire_request(&handles[i], r, st);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = static_cast<int>(e);
    if (!ok(e) && !any_error) {
      any_error = true;
      err_comm = c;
    }
    indices[k++] = static_cast<int>(i);
  }
  *outcount = k;
  return any_error ? call.fail(err_comm, Err::kInStatus, "see the statuses' MPI_ERROR fields") : MPI_SUCCESS;
}

// A module (p2p/module_seam.hpp) sees which requests this call is about to
// report (`pick`, one flag per request) and may choose others (replay: the
// logged outcome). Waits until every chosen request is complete (a failure
// interrupting that wait leaves the unfinished ones out) and returns the
// requests to report: `reqs` with the others null.
Reqs module_pick(p2p::Engine& eng, p2p::PollKind kind, const Reqs& reqs, std::vector<uint8_t> pick) {
  eng.decide_poll(kind, pick.data(), pick.size());
  Reqs out(reqs.size(), nullptr);
  for (size_t i = 0; i < reqs.size(); ++i)
    if (pick[i] && reqs[i]) out[i] = reqs[i];
  eng.wait_until([&] {
    for (const p2p::Request* r : out)
      if (r && !r->complete) return eng.interrupted();
    return true;
  });
  for (p2p::Request*& r : out)
    if (r && !r->complete) r = nullptr;
  return out;
}

// The natural pick: the complete requests (only index `only` if >= 0; none if `none`).
std::vector<uint8_t> complete_flags(const Reqs& reqs, int only, bool none) {
  std::vector<uint8_t> pick(reqs.size(), 0);
  for (size_t i = 0; i < reqs.size() && !none; ++i)
    pick[i] = reqs[i] && reqs[i]->complete && (only < 0 || static_cast<int>(i) == only);
  return pick;
}

}  // namespace

extern "C" {

int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  Call call("MPI_Wait");
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
  p2p::Engine& eng = rt()->engine;
  eng.wait_until([&] { return r->complete || eng.interrupted(); });
  comm::Communicator* c = r->comm;
  // A failure interrupted the wait: the request stays valid (CONT mode
  // completes it after recovery; RESET ends it then).
  if (!r->complete) return call.fail(c, Err::kOther, "a process failed while waiting");
  if (awaits_recovery(r)) return call.fail(c, Err::kOther, "the request's peer died; recover first");
  return call.ret(c, retire_request(request, r, status));
}
FTMPI_WEAK_ALIAS(MPI_Wait, PMPI_Wait)

int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  Call call("MPI_Test");
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
  p2p::Engine& eng = rt()->engine;
  if (!r->complete) eng.progress();
  bool done = r->complete && !awaits_recovery(r);
  if (eng.module()) done = module_pick(eng, p2p::PollKind::kTest, Reqs{r}, {done})[0] != nullptr;
  *flag = done;
  if (!r->complete || (!done && !awaits_recovery(r))) return MPI_SUCCESS;
  comm::Communicator* c = r->comm;
  if (awaits_recovery(r)) return call.fail(c, Err::kOther, "the request's peer died; recover first");
  return call.ret(c, retire_request(request, r, status));
}
FTMPI_WEAK_ALIAS(MPI_Test, PMPI_Test)

int PMPI_Waitall(int count, MPI_Request* requests, MPI_Status* statuses) {
  Call call("MPI_Waitall");
  Reqs reqs;
  int code = MPI_SUCCESS;
  if (!resolve(call, count, requests, reqs, code)) return code;
  p2p::Engine& eng = rt()->engine;
  eng.wait_until([&] { return all_settled(reqs) || eng.interrupted(); });
  return finish_all(call, requests, reqs, statuses);
}
FTMPI_WEAK_ALIAS(MPI_Waitall, PMPI_Waitall)

int PMPI_Testall(int count, MPI_Request* requests, int* flag, MPI_Status* statuses) {
  Call call("MPI_Testall");
  if (!flag) return call.fail(nullptr, Err::kArg, "flag pointer is null");
  Reqs reqs;
  int code = MPI_SUCCESS;
  if (!resolve(call, count, requests, reqs, code)) return code;
  p2p::Engine& eng = rt()->engine;
  if (!all_settled(reqs)) eng.progress();
  *flag = 0;
  if (eng.module()) {
    bool every = true;
    for (const p2p::Request* r : reqs)
      if (r && !r->complete) every = false;
    Reqs picked = module_pick(eng, p2p::PollKind::kTestall, reqs, complete_flags(reqs, -1, !every));
    if (picked != reqs) return MPI_SUCCESS;  // an unsuccessful poll
  }
  if (!all_settled(reqs)) return MPI_SUCCESS;  // nothing is modified
  bool all = true;
  for (const p2p::Request* r : reqs)
    if (r && (!r->complete || awaits_recovery(r))) all = false;
  *flag = all;
  return finish_all(call, requests, reqs, statuses);
}
FTMPI_WEAK_ALIAS(MPI_Testall, PMPI_Testall)

int PMPI_Waitany(int count, MPI_Request* requests, int* index, MPI_Status* status) {
  Call call("MPI_Waitany");
  if (!index) return call.fail(nullptr, Err::kArg, "index pointer is null");
  Reqs reqs;
  int code = MPI_SUCCESS;
  if (!resolve(call, count, requests, reqs, code)) return code;
  if (none_active(reqs)) {
    *index = MPI_UNDEFINED;
    empty_status(status);
    return MPI_SUCCESS;
  }
  int i = -1;
  p2p::Engine& eng = rt()->engine;
  eng.wait_until([&] { return (i = first_complete(reqs)) >= 0 || eng.interrupted() || any_awaiting(reqs); });
  if (i >= 0 && eng.module())
    i = first_complete(module_pick(eng, p2p::PollKind::kWaitany, reqs, complete_flags(reqs, i, false)));
  if (i < 0) {
    *index = MPI_UNDEFINED;
    return call.fail(nullptr, Err::kOther, "a process failed while waiting");
  }
  p2p::Request* r = reqs[static_cast<size_t>(i)];
  comm::Communicator* c = r->comm;
  *index = i;
  return call.ret(c, retire_request(&requests[i], r, status));
}
FTMPI_WEAK_ALIAS(MPI_Waitany, PMPI_Waitany)

int PMPI_Testany(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status) {
  Call call("MPI_Testany");
  if (!index || !flag) return call.fail(nullptr, Err::kArg, "null argument");
  Reqs reqs;
  int code = MPI_SUCCESS;
  if (!resolve(call, count, requests, reqs, code)) return code;
  *index = MPI_UNDEFINED;
  if (none_active(reqs)) {  // MPI-1.2: flag true, index MPI_UNDEFINED, empty status
    *flag = 1;
    empty_status(status);
    return MPI_SUCCESS;
  }
  p2p::Engine& eng = rt()->engine;
  int i = first_complete(reqs);
  if (i < 0) {
    eng.progress();
    i = first_complete(reqs);
  }
  if (eng.module())
    i = first_complete(module_pick(eng, p2p::PollKind::kTestany, reqs, complete_flags(reqs, i, i < 0)));
  *flag = i >= 0;
  if (i < 0 && any_awaiting(reqs)) return call.fail(nullptr, Err::kOther, "a request's peer died; recover first");
  if (i < 0) return MPI_SUCCESS;
  p2p::Request* r = reqs[static_cast<size_t>(i)];
  comm::Communicator* c = r->comm;
  *index = i;
  return call.ret(c, retire_request(&requests[i], r, status));
}
FTMPI_WEAK_ALIAS(MPI_Testany, PMPI_Testany)

int PMPI_Waitsome(int incount, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses) {
  Call call("MPI_Waitsome");
  if (!outcount || (incount > 0 && !indices)) return call.fail(nullptr, Err::kArg, "null argument");
  Reqs reqs;
  int code = MPI_SUCCESS;
  if (!resolve(call, incount, requests, reqs, code)) return code;
  if (none_active(reqs)) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  p2p::Engine& eng = rt()->engine;
  eng.wait_until([&] { return first_complete(reqs) >= 0 || eng.interrupted() || any_awaiting(reqs); });
  if (first_complete(reqs) < 0) {
    *outcount = 0;
    return call.fail(nullptr, Err::kOther, "a process failed while waiting");
  }
  if (eng.module()) {
    Reqs picked = module_pick(eng, p2p::PollKind::kWaitsome, reqs, complete_flags(reqs, -1, false));
    return finish_some(call, requests, picked, outcount, indices, statuses);
  }
  return finish_some(call, requests, reqs, outcount, indices, statuses);
}
FTMPI_WEAK_ALIAS(MPI_Waitsome, PMPI_Waitsome)

int PMPI_Testsome(int incount, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses) {
  Call call("MPI_Testsome");
  if (!outcount || (incount > 0 && !indices)) return call.fail(nullptr, Err::kArg, "null argument");
  Reqs reqs;
  int code = MPI_SUCCESS;
  if (!resolve(call, incount, requests, reqs, code)) return code;
  if (none_active(reqs)) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  p2p::Engine& eng = rt()->engine;
  if (first_complete(reqs) < 0) eng.progress();
  if (first_complete(reqs) < 0 && any_awaiting(reqs)) {
    *outcount = 0;
    return call.fail(nullptr, Err::kOther, "a request's peer died; recover first");
  }
  if (eng.module()) {
    Reqs picked = module_pick(eng, p2p::PollKind::kTestsome, reqs, complete_flags(reqs, -1, false));
    return finish_some(call, requests, picked, outcount, indices, statuses);
  }
  return finish_some(call, requests, reqs, outcount, indices, statuses);
}
FTMPI_WEAK_ALIAS(MPI_Testsome, PMPI_Testsome)

}  // extern "C"

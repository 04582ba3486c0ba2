// MPI_Probe and MPI_Iprobe (MPI-1.2 §3.8), on one source or MPI_ANY_SOURCE,
// one tag or MPI_ANY_TAG.
#include "api/args.hpp"
#include "api/call.hpp"
#include "api/p2p_ops.hpp"
#include "api/pmpi.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace {

// The communicator, after checking comm, tag and source; nullptr after an
// error (its code in `code`).
comm::Communicator* check_probe(Call& call, int source, int tag, MPI_Comm ch, int& code) {
  Why w;
  comm::Communicator* c = lookup_comm(ch);
  if (!c) {
    code = call.fail(nullptr, Err::kComm, "invalid communicator");
    return nullptr;
  }
  Err e = check_recv_tag(tag, w);
  if (ok(e)) e = check_source(*c, source, w);
  if (!ok(e)) {
    code = call.fail(c, e, "%s", w.text);
    return nullptr;
  }
  return c;
}

}  // namespace

extern "C" {

int PMPI_Iprobe(int source, int tag, MPI_Comm ch, int* flag, MPI_Status* status) {
  Call call("MPI_Iprobe");
  int code = MPI_SUCCESS;
  comm::Communicator* c = check_probe(call, source, tag, ch, code);
  if (!c) return code;
  if (!flag) return call.fail(c, Err::kArg, "flag pointer is null");
  if (call.ft_blocked(c, &code)) return code;
  p2p::MessageStatus pr;
  p2p::Engine& eng = rt()->engine;
  *flag = eng.iprobe(*c, c->ctx(), source, tag, &pr);
  if (eng.module()) {
    // A module sees the outcome and may force it (p2p/module_seam.hpp).
    uint8_t pick = *flag != 0;
    eng.decide_poll(p2p::PollKind::kIprobe, &pick, 1);
    if (pick && !*flag)
      eng.wait_until([&] { return (*flag = eng.iprobe(*c, c->ctx(), source, tag, &pr)) || eng.interrupted(); });
    if (!pick) *flag = 0;
  }
  if (*flag) report_status(status, pr);
  return call.ret(c, pr.err);
}
FTMPI_WEAK_ALIAS(MPI_Iprobe, PMPI_Iprobe)

int PMPI_Probe(int source, int tag, MPI_Comm ch, MPI_Status* status) {
  Call call("MPI_Probe");
  int code = MPI_SUCCESS;
  comm::Communicator* c = check_probe(call, source, tag, ch, code);
  if (!c) return code;
  if (call.ft_blocked(c, &code)) return code;
  p2p::MessageStatus pr;
  p2p::Engine& eng = rt()->engine;
  bool found = false;
  eng.wait_until([&] { return (found = eng.iprobe(*c, c->ctx(), source, tag, &pr)) || eng.interrupted(); });
  if (!found) return call.fail(c, Err::kOther, "a process failed while probing");
  report_status(status, pr);
  return call.ret(c, pr.err);
}
FTMPI_WEAK_ALIAS(MPI_Probe, PMPI_Probe)

}  // extern "C"

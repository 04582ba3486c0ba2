// What every MPI_ entry point does around its work: check that the library is
// initialized (constructing the Call does it), and turn an internal Err into
// an MPI error code delivered through the right error handler (the
// communicator's, else MPI_COMM_WORLD's, as MPI-1.2 §7.2 says for errors not
// tied to a communicator).
#pragma once
#include "api/runtime.hpp"
#include "base/err.hpp"

namespace ftmpi::api {

class Call {
 public:
  // Outside MPI_Init..MPI_Finalize no error handler exists and MPI's default
  // is fatal: the process ends with a message, so that code after the
  // constructor always runs with rt() non-null.
  explicit Call(const char* name) : name_(name) {
    if (phase() != Phase::kRunning) [[unlikely]]
      not_running(name);
  }
  const char* name() const { return name_; }

  // Reports `e` with an explanation through c's error handler (world's if c
  // is null) and returns the error code the call must return.
  int fail(comm::Communicator* c, Err e, const char* fmt = nullptr, ...) __attribute__((format(printf, 4, 5)));
  int ret(comm::Communicator* c, Err e) { return ok(e) ? MPI_SUCCESS : fail(c, e); }
  // Communication calls only (spec/ft-semantics.md §4.1): true when an
  // unrecovered failure blocks communication; *code is what the call returns
  // (MPI_ERR_OTHER through c's handler; in AUTO mode after the recovery,
  // through MPI_COMM_WORLD's). Inline: every send and receive asks, and
  // the answer is almost always no (the rest is in ft_attributes.cpp).
  bool ft_blocked(comm::Communicator* c, int* code) {
    if (!rt()->ft->communication_blocked()) [[likely]]
      return false;
    return report_blocked(c, ft_blocked_why(c), code);
  }
  // Collective and communicator-creation calls: also, in recovery mode
  // IGNORE, fails when c holds a dead process (spec §4.2).
  bool ft_blocked_collective(comm::Communicator* c, int* code);
  // The same checks without reporting anything (no handler, no AUTO
  // recovery): why the call is blocked, or null. For callers that must do
  // something before the report (api::refused_collective).
  const char* ft_blocked_why(const comm::Communicator* c) const;
  const char* ft_blocked_collective_why(const comm::Communicator* c) const;

 private:
  [[noreturn]] static void not_running(const char* name);
  // Reports `why` (non-null) as MPI_ERR_OTHER into *code; false for null.
  bool report_blocked(comm::Communicator* c, const char* why, int* code);

  const char* name_;
};

// Runs the error handler `eh` for communicator handle `comm`; returns code.
int invoke_errhandler(MPI_Comm comm, MPI_Errhandler eh, int code, const char* call, const char* detail);

}  // namespace ftmpi::api

#include "api/call.hpp"

#include <unistd.h>

#include <cstdarg>
#include <cstdio>

namespace ftmpi::api {

void Call::not_running(const char* name) {
  char msg[256];
  int n = std::snprintf(msg, sizeof msg, "ftmpi: %s called %s\n", name,
                        phase() == Phase::kBefore ? "before MPI_Init" : "after MPI_Finalize");
  ssize_t w = ::write(STDERR_FILENO, msg, static_cast<size_t>(n));
  (void)w;
  _exit(1);
}

int Call::fail(comm::Communicator* c, Err e, const char* fmt, ...) {
  char detail[384] = "";
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
  }
  Runtime* r = rt();
  // Recovery mode AUTO: recover as soon as the failure surfaces, then report
  // it through MPI_COMM_WORLD's handler (FT-MPI spec, chapter 3).
  if (e == Err::kOther && r && r->ft->recover_if_auto()) c = nullptr;
  if (!c && r) c = r->comms.get(MPI_COMM_WORLD);
  if (!c) return static_cast<int>(e);
  CommState& st = state_of(*c);
  return invoke_errhandler(st.handle, st.errhandler, static_cast<int>(e), name_, detail);
}

int invoke_errhandler(MPI_Comm comm, MPI_Errhandler eh, int code, const char* call, const char* detail) {
  if (eh == MPI_ERRORS_RETURN) return code;
  Runtime* r = rt();
  if (eh != MPI_ERRORS_ARE_FATAL && r) {
    if (ErrhandlerObj* h = r->errhandlers.get(eh); h && h->fn) {
      MPI_Comm c = comm;
      int cd = code;
      h->fn(&c, &cd, call, detail);
      return code;
    }
  }
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  PMPI_Error_string(code, msg, &len);
  char line[1024];
  std::snprintf(line, sizeof line, "%s: %s%s%s (error class %d); MPI_ERRORS_ARE_FATAL ends the job", call, msg,
                detail && *detail ? ": " : "", detail ? detail : "", code);
  if (r) r->client.abort(code, line);
  std::fprintf(stderr, "ftmpi: %s\n", line);
  _exit(code);
}

}  // namespace ftmpi::api

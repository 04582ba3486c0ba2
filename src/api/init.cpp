// MPI_Init / MPI_Finalize and the environment calls of MPI-1.2 chapter 7.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "api/call.hpp"
#include "api/ft_hooks.hpp"
#include "api/pmpi.hpp"
#include "base/clock.hpp"
#include "base/log.hpp"
#include "base/params.hpp"

namespace ftmpi::api {

Library detail::g_library;

namespace {
// Sender-log memory per process in transparent mode (FTMPI_LOG_LIMIT).
constexpr uint64_t kDefaultLogLimit = 1ull << 30;

void make_predefined(Runtime& r) {
  std::vector<ProcId> world;
  world.reserve(r.engine.cards().size());
  for (const rte::Card& c : r.engine.cards()) world.push_back(c.id);
  const ProcId me = r.engine.self();
  auto wc = std::make_unique<comm::Communicator>(comm::kWorldContext, comm::Group::make(std::move(world)), me.slot);
  wc->name = "MPI_COMM_WORLD";
  auto sc = std::make_unique<comm::Communicator>(comm::kSelfContext, comm::Group::make({me}), 0);
  sc->name = "MPI_COMM_SELF";
  for (auto* c : {wc.get(), sc.get()}) {
    auto st = std::make_unique<CommState>();
    st->handle = c == wc.get() ? MPI_COMM_WORLD : MPI_COMM_SELF;
    c->ext = std::move(st);
  }
  r.comms.set_predefined(handle_index(MPI_COMM_WORLD), std::move(wc));
  r.comms.set_predefined(handle_index(MPI_COMM_SELF), std::move(sc));
  r.errhandlers.set_predefined(handle_index(MPI_ERRORS_ARE_FATAL), std::make_unique<ErrhandlerObj>());
  r.errhandlers.set_predefined(handle_index(MPI_ERRORS_RETURN), std::make_unique<ErrhandlerObj>());
  for (int b = 1; b <= dtype::kNumBuiltins; ++b) {
    auto t = std::make_unique<TypeObj>();
    t->type = dtype::builtin_ref(static_cast<dtype::Builtin>(b));
    t->name = dtype::info(static_cast<dtype::Builtin>(b)).name;
    r.types.set_predefined(b, std::move(t));
  }
}
}  // namespace

CommState& state_of(comm::Communicator& c) { return static_cast<CommState&>(*c.ext); }

MPI_Comm register_comm(std::unique_ptr<comm::Communicator> c, MPI_Errhandler eh) {
  auto st = std::make_unique<CommState>();
  CommState* raw = st.get();
  raw->errhandler = eh;
  c->ext = std::move(st);
  raw->handle = detail::g_library.rt->comms.add(std::move(c));
  return raw->handle;
}

}  // namespace ftmpi::api

using namespace ftmpi;
using namespace ftmpi::api;

extern "C" {

int PMPI_Init(int* argc, char*** argv) {
  (void)argc;
  (void)argv;
  if (detail::g_library.phase != Phase::kBefore) {
    std::fprintf(stderr, "ftmpi: MPI_Init called twice\n");
    return MPI_ERR_OTHER;
  }
  auto r = std::make_unique<Runtime>();
  if (Err e = r->client.init(r->boot); !ok(e)) {
    std::fprintf(stderr, "ftmpi: MPI_Init: cannot reach the runtime (%s)\n", err_name(e));
    return static_cast<int>(e);
  }
  char who[64];
  std::snprintf(who, sizeof who, "rank %d", r->boot.self.slot);
  log::set_identity(who);
  if (Err e = r->engine.init(r->client, r->boot); !ok(e)) {
    std::fprintf(stderr, "ftmpi: MPI_Init: communication setup failed (%s)\n", err_name(e));
    return static_cast<int>(e);
  }
  if (!r->boot.hostname.empty()) {
    r->processor_name = r->boot.hostname;
  } else {
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    r->processor_name = host;
  }
  if (r->boot.modes.transparent != rte::Transparent::kNone) {
    // Before anything moves: every message from here on is logged, and a
    // restarted incarnation replays from here (spec/transparent-mode.md).
    r->logging = std::make_unique<logging::Module>(r->engine, r->client,
                                                   params::get_size("FTMPI_LOG_LIMIT", kDefaultLogLimit));
    if (r->boot.restarted) r->logging->start_replay();
    r->ckpt = std::make_unique<ckpt::Module>(r->engine, r->client, *r->logging);
  }
  detail::g_library.rt = r.release();
  make_predefined(*detail::g_library.rt);
  detail::g_library.rt->main_thread = std::this_thread::get_id();
  ft_attach(*detail::g_library.rt);
  detail::g_library.phase = Phase::kRunning;
  // Transparent mode: the program must not notice its restart.
  return detail::g_library.rt->boot.restarted && !detail::g_library.rt->logging ? MPI_INIT_RESTARTED_NODE : MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Init, PMPI_Init)

int PMPI_Finalize(void) {
  Call call("MPI_Finalize");
  detail::g_library.rt->ckpt.reset();  // no checkpoint inside MPI_Finalize
  if (detail::g_library.rt->logging) {
    // What the program printed reaches its daemon while a death is still
    // survived: once the fence is complete a killed process is not
    // restarted, and output left in its stdio buffers would be lost.
    std::fflush(nullptr);
    detail::g_library.rt->logging->finalize();
  }
  Err e = detail::g_library.rt->engine.finalize();
  detail::g_library.phase = Phase::kFinalized;
  delete detail::g_library.rt;
  detail::g_library.rt = nullptr;
  return ok(e) ? MPI_SUCCESS : static_cast<int>(e);
}
FTMPI_WEAK_ALIAS(MPI_Finalize, PMPI_Finalize)

int PMPI_Initialized(int* flag) {
  if (!flag) return MPI_ERR_ARG;
  // MPI-1.2: true once MPI_Init has been called, even after MPI_Finalize.
  *flag = detail::g_library.phase != Phase::kBefore;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Initialized, PMPI_Initialized)

int PMPI_Abort(MPI_Comm comm, int errorcode) {
  Call call("MPI_Abort");
  char msg[160];
  std::snprintf(msg, sizeof msg, "MPI_Abort(comm=%s, errorcode=%d) called", 
                comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : comm == MPI_COMM_SELF ? "MPI_COMM_SELF" : "user",
                errorcode);
  if (detail::g_library.rt->boot.singleton) {
    std::fprintf(stderr, "ftmpi: %s\n", msg);
    _exit(errorcode);
  }
  detail::g_library.rt->client.abort(errorcode, msg);
}
FTMPI_WEAK_ALIAS(MPI_Abort, PMPI_Abort)

int PMPI_Get_processor_name(char* name, int* resultlen) {
  Call call("MPI_Get_processor_name");
  if (!name || !resultlen) return call.fail(nullptr, Err::kArg, "null argument");
  size_t n = std::min<size_t>(detail::g_library.rt->processor_name.size(), MPI_MAX_PROCESSOR_NAME - 1);
  std::memcpy(name, detail::g_library.rt->processor_name.data(), n);
  name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Get_processor_name, PMPI_Get_processor_name)

// Clock values are non-deterministic: transparent mode logs them (a replay
// gets the dead incarnation's values).
double PMPI_Wtime(void) {
  double t = now_seconds();
  return detail::g_library.rt && detail::g_library.rt->logging ? detail::g_library.rt->logging->wtime(t) : t;
}
FTMPI_WEAK_ALIAS(MPI_Wtime, PMPI_Wtime)

double PMPI_Wtick(void) {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  double t = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  return detail::g_library.rt && detail::g_library.rt->logging ? detail::g_library.rt->logging->wtick(t) : t;
}
FTMPI_WEAK_ALIAS(MPI_Wtick, PMPI_Wtick)

}  // extern "C"

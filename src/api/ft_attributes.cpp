// The API's side of fault tolerance (spec/ft-semantics.md): the FTMPI_*
// attributes, the end-of-recovery work on handles, the entry check of
// communication calls, and MPI_Comm_dup(MPI_COMM_WORLD) as the recovery call.
#include "api/call.hpp"
#include "api/coll_inter.hpp"
#include "api/ft_hooks.hpp"
#include "coll/ft/agreement.hpp"

namespace ftmpi::api {

static_assert(FTMPI_RECOVERY_MODE_MANUAL == static_cast<int>(rte::RecoveryMode::kManual) &&
              FTMPI_RECOVERY_MODE_AUTO == static_cast<int>(rte::RecoveryMode::kAuto) &&
              FTMPI_RECOVERY_MODE_IGNORE == static_cast<int>(rte::RecoveryMode::kIgnore));
static_assert(FTMPI_COMM_MODE_ABORT == static_cast<int>(rte::CommMode::kAbort) &&
              FTMPI_COMM_MODE_REBUILD == static_cast<int>(rte::CommMode::kRebuild) &&
              FTMPI_COMM_MODE_BLANK == static_cast<int>(rte::CommMode::kBlank) &&
              FTMPI_COMM_MODE_SHRINK == static_cast<int>(rte::CommMode::kShrink));
static_assert(FTMPI_MSG_MODE_RESET == static_cast<int>(rte::MsgMode::kReset) &&
              FTMPI_MSG_MODE_CONT == static_cast<int>(rte::MsgMode::kCont));
static_assert(FTMPI_COLL_MODE_NONATOMIC == static_cast<int>(rte::CollMode::kNonAtomic) &&
              FTMPI_COLL_MODE_ATOMIC == static_cast<int>(rte::CollMode::kAtomic));

const int* ft_attribute_value(MPI_Comm comm, int keyval) {
  Runtime* R = rt();
  if (comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF) return nullptr;
  if (keyval < kFirstFtKeyval || keyval > kLastFtKeyval) return nullptr;
  const rte::Modes& m = R->ft->modes();
  int v = 0;
  switch (keyval) {
    case FTMPI_RECOVERY_MODE: v = static_cast<int>(m.recovery); break;
    case FTMPI_COMM_MODE: v = static_cast<int>(m.comm); break;
    case FTMPI_MSG_MODE: v = static_cast<int>(m.msg); break;
    case FTMPI_COLL_MODE: v = static_cast<int>(m.coll); break;
    case FTMPI_NUM_FAILED_PROCS: v = R->ft->episodes().num_failed(); break;
    case FTMPI_ERROR_FAILURE: v = R->ft->episodes().error_code(); break;
  }
  int& slot = R->ft_attr[keyval - kFirstFtKeyval];
  slot = v;
  return &slot;
}

namespace {
class ApiWorldHooks final : public ft::WorldHooks {
 public:
  void invalidate_derived_objects() override {
    Runtime& R = *rt();
    std::vector<int> comms;
    R.comms.for_each([&](int h, comm::Communicator&) {
      if (h != MPI_COMM_WORLD && h != MPI_COMM_SELF) comms.push_back(h);
    });
    // Requests may still point at them (CONT mode): keep the objects.
    for (int h : comms) {
      if (auto obj = R.comms.remove(h)) {
        state_of(*obj).handle = MPI_COMM_NULL;
        retire_inter_local(*obj);
        R.zombie_comms.push_back(std::move(obj));
      }
    }
    std::vector<int> groups;
    R.groups.for_each([&](int h, GroupObj&) {
      if (!R.groups.is_predefined(h)) groups.push_back(h);
    });
    for (int h : groups) R.groups.remove(h);
  }
  void run_world_delete_callbacks() override { api::run_world_delete_callbacks(); }
};
}  // namespace

void ft_attach(Runtime& R) {
  R.ft = std::make_unique<ft::Controller>(R.engine, R.client, R.boot.modes, *R.comms.get(MPI_COMM_WORLD));
  R.ft_hooks = std::make_unique<ApiWorldHooks>();
  R.ft->set_hooks(R.ft_hooks.get());
  // Runtime events reach the controller through the engine (which hides
  // what a module asks it to hide): rte::EventSink.
  R.engine.set_next(R.ft.get());
  // A restart through a recovery round (REBUILD); a transparent restart joins
  // the unchanged world (its card table is already installed by the engine).
  if (R.boot.restarted && !R.boot.singleton && !R.boot.modes.transparent_mode())
    R.ft->adopt_restart(R.client.restart_result());
  // The agreement must answer peers from the start, also before this
  // process's first atomic collective (an ASK for a call it never enters).
  if (R.boot.modes.coll == rte::CollMode::kAtomic) coll::ft::attach(R.coll);
}

const char* Call::ft_blocked_why(const comm::Communicator* c) const {
  (void)c;
  Runtime* R = rt();
  if (!R->ft->communication_blocked()) return nullptr;
  return "a process failed; MPI_COMM_WORLD must be recovered first";
}

const char* Call::ft_blocked_collective_why(const comm::Communicator* c) const {
  if (const char* why = ft_blocked_why(c)) return why;
  Runtime* R = rt();
  if (R->ft->modes().recovery != rte::RecoveryMode::kIgnore || R->ft->episodes().num_failed() == 0)
    return nullptr;
  auto has_dead = [&](const comm::Group& g) {
    for (int i = 0; i < g.size(); ++i)
      if (!g.is_blank(i) && !R->engine.alive(g.at(i))) return true;
    return false;
  };
  if (has_dead(c->group()) || (c->is_inter() && has_dead(c->peer_group())))
    return "the communicator contains a failed process (recovery mode ignore)";
  return nullptr;
}

bool Call::report_blocked(comm::Communicator* c, const char* why, int* code) {
  if (!why) return false;
  *code = fail(c, Err::kOther, "%s", why);
  return true;
}

bool Call::ft_blocked_collective(comm::Communicator* c, int* code) {
  return report_blocked(c, ft_blocked_collective_why(c), code);
}

bool ft_recover_world(Call& call, MPI_Comm* newcomm, int* code) {
  Runtime* R = rt();
  if (R->ft->state() == ft::FtState::kNoFailures) return false;
  if (R->ft->modes().recovery == rte::RecoveryMode::kIgnore) return false;
  if (newcomm) *newcomm = MPI_COMM_NULL;  // spec/ft-semantics.md §4.1: undefined in FT-MPI, null here
  Err e = R->ft->recover();
  *code = ok(e) ? MPI_SUCCESS : call.fail(nullptr, e, "recovery impossible in this mode");
  return true;
}

}  // namespace ftmpi::api

// The Runtime owns all library state: created by MPI_Init, destroyed by
// MPI_Finalize. Every MPI_ entry point reaches the engine, the collective
// layer's state and the handle tables through rt(); nothing below src/api
// knows about handles, and no layer keeps state of its own elsewhere (no
// mutable globals, no function-local statics: docs/architecture.md, "Where
// the state lives"). The only global is the Library below, which points at
// the Runtime.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/bsend_pool.hpp"
#include "api/handle_table.hpp"
#include "coll/nbc/schedule.hpp"
#include "coll/state.hpp"
#include "comm/model/communicator.hpp"
#include "dtype/datatype.hpp"
#include "ftmodes/controller.hpp"
#include "modules/ckpt/module.hpp"
#include "modules/logging/module.hpp"
#include "mpi.h"
#include "p2p/engine.hpp"
#include "rte/client/client.hpp"

namespace ftmpi::api {

// What the API layer keeps per communicator (hung on Communicator::ext).
struct CommState : comm::CommExt {
  MPI_Comm handle = MPI_COMM_NULL;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  // Storage of the MPI_IO attribute's value (the caller's rank here), which
  // MPI_Attr_get hands out by address.
  int attr_io_value = 0;
  // Intercommunicators: an intracommunicator of the local group, made at the
  // first collective (coll_inter.cpp); never a user handle.
  std::unique_ptr<comm::Communicator> inter_local;
};

struct ErrhandlerObj {
  MPI_Handler_function* fn = nullptr;  // null for the two predefined ones
};

// How a datatype was made, as MPI_Type_get_envelope / get_contents report
// it: the combiner and the constructor's arguments. `types` keeps the
// argument datatypes alive (get_contents hands out new handles to them).
struct TypeEnvelope {
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<dtype::TypeRef> types;
  std::vector<TypeEnvelope> type_envs;  // the envelope of each of `types`
};

struct TypeObj {
  dtype::TypeRef type;
  TypeEnvelope env;
  std::string name;       // MPI_Type_set_name (predefined: the MPI name)
  comm::AttrList attrs;   // MPI_Type_set_attr
};

// An MPI_Info: ordered (key, value) pairs (MPI_Info_get_nthkey counts in
// the order keys were first set).
struct InfoObj {
  std::vector<std::pair<std::string, std::string>> entries;
};

// A user reduction op (MPI_Op_create). The predefined ops 1..12 have no
// object: their handle index is the dtype::OpKind (src/api/op.cpp).
struct OpObj {
  MPI_User_function* fn = nullptr;
  bool commutative = true;
};

// An MPI_Group: a shared, immutable member list (MPI_Comm_group costs no copy).
struct GroupObj {
  comm::GroupRef group;
};
// Group handles; index 1 is MPI_GROUP_EMPTY.
HandleTable<GroupObj> make_group_table();

enum class Phase { kBefore, kRunning, kFinalized };

inline constexpr int kFirstTypeKeyval = 1 << 24;

struct Runtime {
  rte::Client client;
  rte::BootInfo boot;
  // The collective layer's state (call numbers, scratch memory, buffers of
  // abandoned runs, the agreement). Declared before the engine so that it
  // goes after it: buffers of abandoned runs stay valid while requests the
  // engine still holds may write into them.
  coll::State coll{engine};
  p2p::Engine engine;
  // Schedules of the nonblocking collectives: the engine's progress hook.
  coll::nbc::NbcEngine nbc{engine};
  HandleTable<comm::Communicator> comms{Kind::kComm, 3};
  HandleTable<TypeObj> types{Kind::kDatatype, 64};
  HandleTable<ErrhandlerObj> errhandlers{Kind::kErrhandler, 8};
  HandleTable<OpObj> ops{Kind::kOp, 32};
  HandleTable<GroupObj> groups = make_group_table();
  HandleTable<InfoObj> infos{Kind::kInfo, 1};
  // User keyvals (MPI_Keyval_create) from 16; 1-15 are the predefined keys.
  comm::KeyvalRegistry keyvals{16};
  // Datatype keyvals (MPI_Type_create_keyval): a number range of their own,
  // so a communicator keyval passed to a datatype call is caught.
  comm::KeyvalRegistry type_keyvals{kFirstTypeKeyval};
  // Transparent mode (--ft-transparent): the message-logging module, null
  // otherwise. Declared after the engine: it goes first.
  std::unique_ptr<logging::Module> logging;
  // Transparent mode: checkpoints (src/modules/ckpt), inert until the
  // runtime orders one. Declared after logging: it goes first.
  std::unique_ptr<ckpt::Module> ckpt;
  // Fault tolerance (spec/ft-semantics.md): the state machine (made by
  // MPI_Init's ft_attach, so never null in an entry point), and the storage
  // of the FTMPI_* attribute values handed out by MPI_Attr_get.
  std::unique_ptr<ft::Controller> ft;
  std::unique_ptr<ft::WorldHooks> ft_hooks;  // what a recovery asks of the API (ft_attributes.cpp)
  int ft_attr[6] = {};
  // Storage of the MPI_TAG_UB, MPI_HOST, MPI_WTIME_IS_GLOBAL and MPI_APPNUM
  // values that MPI_Attr_get hands out by address (attr.cpp writes them
  // before each get).
  struct {
    int tag_ub = 0;
    int host = 0;
    int wtime_is_global = 0;
    int appnum = 0;
  } predefined_attr;
  // Freed communicators whose operations are still in flight.
  std::vector<std::unique_ptr<comm::Communicator>> zombie_comms;
  // Freed error handlers still attached to a communicator.
  std::vector<MPI_Errhandler> retired_errhandlers;
  std::string processor_name;
  // MPI_Buffer_attach's buffer and the buffered messages in it (bsend.cpp).
  BsendPool bsend;
  // MPI_Comm_create_group calls so far per (parent context, group and tag
  // salt): part of the new context id (comm_mpi3.cpp).
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> create_group_calls;
  // MPI_Init_thread: the level granted and the thread that initialised.
  int thread_level = MPI_THREAD_SINGLE;
  std::thread::id main_thread;
};

// The library's only global: its phase and, between MPI_Init and
// MPI_Finalize, the Runtime (init.cpp). Read inline: every entry point
// asks for both.
struct Library {
  Phase phase = Phase::kBefore;
  Runtime* rt = nullptr;
};
namespace detail {
extern Library g_library;
}  // namespace detail
inline Phase phase() { return detail::g_library.phase; }
inline Runtime* rt() { return detail::g_library.rt; }  // non-null only between MPI_Init and MPI_Finalize

CommState& state_of(comm::Communicator& c);
// Creates the API state of a communicator and registers its handle.
MPI_Comm register_comm(std::unique_ptr<comm::Communicator> c, MPI_Errhandler eh);

}  // namespace ftmpi::api

// Attribute caching (MPI-1.2 §5.7): keyvals, Attr_put/get/delete, the
// predefined callbacks, and the predefined attributes.
//
// Keyvals 1-15 are reserved: 1-4 are MPI_TAG_UB, MPI_HOST, MPI_IO and
// MPI_WTIME_IS_GLOBAL (readable on every communicator), 5-6 MPI_UNIVERSE_SIZE
// and MPI_APPNUM (MPI-2, on MPI_COMM_WORLD only), 8-13 the FTMPI_*
// keys (read through the FT layer's hook, on MPI_COMM_WORLD and
// MPI_COMM_SELF); all are read-only. User keyvals start at 16.
#include <type_traits>

#include "api/args.hpp"
#include "api/comm_support.hpp"
#include "api/ft_hooks.hpp"
#include "api/pmpi.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

// comm/model stores the user's callbacks as these types.
static_assert(std::is_same_v<MPI_Copy_function*, comm::AttrCopyFn>);
static_assert(std::is_same_v<MPI_Delete_function*, comm::AttrDeleteFn>);

namespace {

// The address of a predefined attribute's value on `c`, or nullptr if the
// key is reserved but not set there. The values live in the Runtime and are
// written on every get (a program may have written through the pointer).
void* predefined_value(MPI_Comm ch, comm::Communicator& c, int keyval) {
  auto& values = rt()->predefined_attr;
  switch (keyval) {
    case MPI_TAG_UB:
      values.tag_ub = kTagUb;
      return &values.tag_ub;
    case MPI_HOST:
      values.host = MPI_PROC_NULL;
      return &values.host;
    case MPI_IO: {
      // Every process can do I/O: each one names itself.
      CommState& st = state_of(c);
      st.attr_io_value = c.rank();
      return &st.attr_io_value;
    }
    case MPI_WTIME_IS_GLOBAL:
      values.wtime_is_global = 0;
      return &values.wtime_is_global;
    // MPI-3.1 §10.5.1: the processes the job may use in total. No dynamic
    // process creation, so those mpirun started: the world size at launch
    // (REBUILD respawns into it; SHRINK does not add to it).
    case MPI_UNIVERSE_SIZE:
      return ch == MPI_COMM_WORLD ? &rt()->boot.world_size : nullptr;
    // Not set in a singleton: no startup command to number (§10.5.3); else
    // the number of mpirun's command block, and mpirun takes one program.
    case MPI_APPNUM:
      return ch == MPI_COMM_WORLD && !rt()->boot.singleton ? &(values.appnum = 0) : nullptr;
    default:
      break;
  }
  if (keyval >= kFirstFtKeyval && keyval <= kLastFtKeyval && (ch == MPI_COMM_WORLD || ch == MPI_COMM_SELF))
    return const_cast<int*>(ft_attribute_value(ch, keyval));
  return nullptr;
}

// MPI-1.1 §5.7.1: a freed key is really freed only when no communicator
// holds an attribute of it any more; until then the attributes can still be
// read and deleted (and are copied by MPI_Comm_dup: each entry keeps its
// callbacks, comm/model/attributes.hpp).
bool freed_key_in_use(int keyval) {
  if (!rt()->keyvals.issued(keyval) || rt()->keyvals.find(keyval)) return false;
  bool used = false;
  rt()->comms.for_each([&](int, comm::Communicator& c) {
    void* v = nullptr;
    used = used || c.attrs.get(keyval, &v);
  });
  return used;
}

// The callbacks of a live user keyval, reporting a bad one.
const comm::Keyval* user_keyval(Call& call, comm::Communicator* c, int keyval, int* code) {
  if (rt()->keyvals.is_reserved(keyval)) {
    *code = call.fail(c, Err::kArg, "keyval %d is predefined and read-only", keyval);
    return nullptr;
  }
  const comm::Keyval* k = rt()->keyvals.find(keyval);
  if (!k && rt()->keyvals.issued(keyval))
    *code = call.fail(c, Err::kArg, "keyval %d was freed%s", keyval,
                      freed_key_in_use(keyval) ? "; its attributes can only be read or deleted" : "");
  else if (!k)
    *code = call.fail(c, Err::kArg, "keyval %d is not a valid keyval", keyval);
  return k;
}

// MPI_Attr_get and MPI_Attr_delete: a live user keyval, or a freed one that
// still has attributes somewhere.
bool readable_keyval(Call& call, comm::Communicator* c, int keyval, int* code) {
  return freed_key_in_use(keyval) || user_keyval(call, c, keyval, code);
}

}  // namespace

extern "C" {

int MPI_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int MPI_NULL_DELETE_FN(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

int MPI_DUP_FN(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                       void* extra_state) {
  Call call("MPI_Keyval_create");
  if (!keyval) return call.fail(nullptr, Err::kArg, "keyval pointer is null");
  *keyval = rt()->keyvals.create({copy_fn, delete_fn, extra_state});
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Keyval_create, PMPI_Keyval_create)

int PMPI_Keyval_free(int* keyval) {
  Call call("MPI_Keyval_free");
  if (!keyval) return call.fail(nullptr, Err::kArg, "keyval pointer is null");
  int code = MPI_SUCCESS;
  if (!user_keyval(call, nullptr, *keyval, &code)) return code;
  // Attributes already set keep their callbacks (comm/model/attributes.hpp).
  rt()->keyvals.release(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Keyval_free, PMPI_Keyval_free)

int PMPI_Attr_put(MPI_Comm ch, int keyval, void* attribute_val) {
  Call call("MPI_Attr_put");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  int code = MPI_SUCCESS;
  const comm::Keyval* k = user_keyval(call, c, keyval, &code);
  if (!k) return code;
  if (int rc = c->attrs.put(ch, keyval, *k, attribute_val); rc != 0)
    return callback_failure(call, c, rc, "the delete callback of the replaced value");
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Attr_put, PMPI_Attr_put)

int PMPI_Attr_get(MPI_Comm ch, int keyval, void* attribute_val, int* flag) {
  Call call("MPI_Attr_get");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!attribute_val || !flag) return call.fail(c, Err::kArg, "null argument");
  void* value = nullptr;
  if (rt()->keyvals.is_reserved(keyval)) {
    value = predefined_value(ch, *c, keyval);
    *flag = value != nullptr;
  } else {
    int code = MPI_SUCCESS;
    if (!readable_keyval(call, c, keyval, &code)) return code;
    *flag = c->attrs.get(keyval, &value);
  }
  // attribute_val is really a void** (MPI-1's C binding types it void*).
  if (*flag) *static_cast<void**>(attribute_val) = value;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Attr_get, PMPI_Attr_get)

int PMPI_Attr_delete(MPI_Comm ch, int keyval) {
  Call call("MPI_Attr_delete");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  int code = MPI_SUCCESS;
  if (!readable_keyval(call, c, keyval, &code)) return code;
  if (int rc = c->attrs.erase(ch, keyval); rc != 0) return callback_failure(call, c, rc, "the delete callback");
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Attr_delete, PMPI_Attr_delete)

}  // extern "C"

namespace ftmpi::api {

int run_world_delete_callbacks() {
  comm::Communicator* w = rt()->comms.get(MPI_COMM_WORLD);
  return w ? w->attrs.clear(MPI_COMM_WORLD) : MPI_SUCCESS;
}

}  // namespace ftmpi::api

// The MPI-2 names of communicator error handlers, attributes and names
// (MPI-3.1 §6.7, §6.8, §8.3). Error handlers and attributes are the MPI-1
// objects (errhandler.cpp, attr.cpp): these calls check their arguments
// with the MPI-2 error classes (MPI_ERR_KEYVAL for a bad keyval) and then
// do the MPI-1 call's work through its PMPI_ entry.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "api/args.hpp"
#include "api/comm_support.hpp"
#include "api/pmpi.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

static_assert(std::is_same_v<MPI_Comm_errhandler_function, MPI_Handler_function>);
static_assert(std::is_same_v<MPI_Comm_copy_attr_function*, comm::AttrCopyFn>);
static_assert(std::is_same_v<MPI_Comm_delete_attr_function*, comm::AttrDeleteFn>);

namespace {

// A keyval usable on a communicator: predefined, or a live user keyval.
bool comm_keyval_ok(Call& call, comm::Communicator* c, int keyval, bool allow_predefined, int* code) {
  if (rt()->keyvals.is_reserved(keyval)) {
    if (allow_predefined) return true;
    *code = call.fail(c, Err::kKeyval, "keyval %d is predefined and read-only", keyval);
    return false;
  }
  if (rt()->keyvals.find(keyval)) return true;
  *code = call.fail(c, Err::kKeyval, "keyval %d is not a valid communicator keyval", keyval);
  return false;
}

}  // namespace

extern "C" {

int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

int MPI_COMM_DUP_FN(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler) {
  Call call("MPI_Comm_create_errhandler");
  return errhandler_create(call, function, errhandler);
}
FTMPI_WEAK_ALIAS(MPI_Comm_create_errhandler, PMPI_Comm_create_errhandler)

int PMPI_Comm_set_errhandler(MPI_Comm ch, MPI_Errhandler errhandler) {
  Call call("MPI_Comm_set_errhandler");
  return errhandler_set(call, ch, errhandler);
}
FTMPI_WEAK_ALIAS(MPI_Comm_set_errhandler, PMPI_Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm ch, MPI_Errhandler* errhandler) {
  Call call("MPI_Comm_get_errhandler");
  return errhandler_get(call, ch, errhandler);
}
FTMPI_WEAK_ALIAS(MPI_Comm_get_errhandler, PMPI_Comm_get_errhandler)

int PMPI_Comm_call_errhandler(MPI_Comm ch, int errorcode) {
  Call call("MPI_Comm_call_errhandler");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  // The handler runs as for an error inside a call on `ch`; the call itself
  // succeeds unless the handler does not return (MPI-3.1 §8.3.4).
  CommState& st = state_of(*c);
  (void)invoke_errhandler(st.handle, st.errhandler, errorcode, "MPI_Comm_call_errhandler", "raised by the application");
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_call_errhandler, PMPI_Comm_call_errhandler)

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn,
                            int* keyval, void* extra_state) {
  Call call("MPI_Comm_create_keyval");
  if (!keyval) return call.fail(nullptr, Err::kArg, "keyval pointer is null");
  return PMPI_Keyval_create(copy_fn, delete_fn, keyval, extra_state);
}
FTMPI_WEAK_ALIAS(MPI_Comm_create_keyval, PMPI_Comm_create_keyval)

int PMPI_Comm_free_keyval(int* keyval) {
  Call call("MPI_Comm_free_keyval");
  if (!keyval) return call.fail(nullptr, Err::kArg, "keyval pointer is null");
  int code = MPI_SUCCESS;
  if (!comm_keyval_ok(call, nullptr, *keyval, false, &code)) return code;
  return PMPI_Keyval_free(keyval);
}
FTMPI_WEAK_ALIAS(MPI_Comm_free_keyval, PMPI_Comm_free_keyval)

int PMPI_Comm_set_attr(MPI_Comm ch, int keyval, void* attribute_val) {
  Call call("MPI_Comm_set_attr");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  int code = MPI_SUCCESS;
  if (!comm_keyval_ok(call, c, keyval, false, &code)) return code;
  return PMPI_Attr_put(ch, keyval, attribute_val);
}
FTMPI_WEAK_ALIAS(MPI_Comm_set_attr, PMPI_Comm_set_attr)

int PMPI_Comm_get_attr(MPI_Comm ch, int keyval, void* attribute_val, int* flag) {
  Call call("MPI_Comm_get_attr");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!attribute_val || !flag) return call.fail(c, Err::kArg, "null argument");
  int code = MPI_SUCCESS;
  if (!comm_keyval_ok(call, c, keyval, true, &code)) return code;
  return PMPI_Attr_get(ch, keyval, attribute_val, flag);
}
FTMPI_WEAK_ALIAS(MPI_Comm_get_attr, PMPI_Comm_get_attr)

int PMPI_Comm_delete_attr(MPI_Comm ch, int keyval) {
  Call call("MPI_Comm_delete_attr");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  int code = MPI_SUCCESS;
  if (!comm_keyval_ok(call, c, keyval, false, &code)) return code;
  return PMPI_Attr_delete(ch, keyval);
}
FTMPI_WEAK_ALIAS(MPI_Comm_delete_attr, PMPI_Comm_delete_attr)

int PMPI_Comm_set_name(MPI_Comm ch, const char* name) {
  Call call("MPI_Comm_set_name");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!name) return call.fail(c, Err::kArg, "name is null");
  // Longer names are truncated (MPI-3.1 §6.8).
  c->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_set_name, PMPI_Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm ch, char* name, int* resultlen) {
  Call call("MPI_Comm_get_name");
  comm::Communicator* c = lookup_comm(ch);
  if (!c) return call.fail(nullptr, Err::kComm, "invalid communicator");
  if (!name || !resultlen) return call.fail(c, Err::kArg, "null argument");
  const size_t n = std::min<size_t>(c->name.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(name, c->name.data(), n);
  name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Comm_get_name, PMPI_Comm_get_name)

}  // extern "C"

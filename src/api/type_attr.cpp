// Attributes cached on datatypes (MPI-3.1 §6.7.4): keyvals of their own
// number range (Runtime::type_keyvals), values in TypeObj::attrs with the
// same semantics as communicator attributes (comm/model/attributes.hpp):
// MPI_Type_dup runs the copy callbacks (type_create.cpp), MPI_Type_free the
// delete callbacks (datatypes.cpp).
#include <type_traits>

#include "api/pmpi.hpp"
#include "api/type_support.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

// The store calls callbacks with the handle as an int: the datatype forms
// have the same shape.
static_assert(std::is_same_v<MPI_Type_copy_attr_function*, comm::AttrCopyFn>);
static_assert(std::is_same_v<MPI_Type_delete_attr_function*, comm::AttrDeleteFn>);

namespace {

const comm::Keyval* type_keyval(Call& call, int keyval, int* code) {
  const comm::Keyval* k = rt()->type_keyvals.find(keyval);
  if (!k) *code = call.fail(nullptr, Err::kKeyval, "keyval %d is not a valid datatype keyval", keyval);
  return k;
}

}  // namespace

extern "C" {

int MPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void*, void*) { return MPI_SUCCESS; }

int MPI_TYPE_DUP_FN(MPI_Datatype, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn, MPI_Type_delete_attr_function* delete_fn,
                            int* keyval, void* extra_state) {
  Call call("MPI_Type_create_keyval");
  if (!keyval) return call.fail(nullptr, Err::kArg, "keyval pointer is null");
  *keyval = rt()->type_keyvals.create({copy_fn, delete_fn, extra_state});
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_create_keyval, PMPI_Type_create_keyval)

int PMPI_Type_free_keyval(int* keyval) {
  Call call("MPI_Type_free_keyval");
  if (!keyval) return call.fail(nullptr, Err::kArg, "keyval pointer is null");
  int code = MPI_SUCCESS;
  if (!type_keyval(call, *keyval, &code)) return code;
  // Attributes already set keep their callbacks (attributes.hpp).
  rt()->type_keyvals.release(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_free_keyval, PMPI_Type_free_keyval)

int PMPI_Type_set_attr(MPI_Datatype dt, int keyval, void* attribute_val) {
  Call call("MPI_Type_set_attr");
  TypeObj* t = rt()->types.get(dt);
  if (!t) return bad_type(call, dt);
  int code = MPI_SUCCESS;
  const comm::Keyval* k = type_keyval(call, keyval, &code);
  if (!k) return code;
  if (int rc = t->attrs.put(dt, keyval, *k, attribute_val); rc != 0)
    return call.fail(nullptr, static_cast<Err>(rc), "the delete callback of the replaced value returned %d", rc);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_set_attr, PMPI_Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype dt, int keyval, void* attribute_val, int* flag) {
  Call call("MPI_Type_get_attr");
  TypeObj* t = rt()->types.get(dt);
  if (!t) return bad_type(call, dt);
  if (!attribute_val || !flag) return call.fail(nullptr, Err::kArg, "null argument");
  int code = MPI_SUCCESS;
  if (!type_keyval(call, keyval, &code)) return code;
  void* value = nullptr;
  *flag = t->attrs.get(keyval, &value);
  if (*flag) *static_cast<void**>(attribute_val) = value;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_get_attr, PMPI_Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype dt, int keyval) {
  Call call("MPI_Type_delete_attr");
  TypeObj* t = rt()->types.get(dt);
  if (!t) return bad_type(call, dt);
  int code = MPI_SUCCESS;
  if (!type_keyval(call, keyval, &code)) return code;
  if (int rc = t->attrs.erase(dt, keyval); rc != 0)
    return call.fail(nullptr, static_cast<Err>(rc), "the delete callback returned %d", rc);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_delete_attr, PMPI_Type_delete_attr)

}  // extern "C"

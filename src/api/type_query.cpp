// MPI-2/3 datatype queries (MPI-3.1 §4.1.5, §4.1.8, §4.1.13, §6.8):
// MPI_Get_address, extents and sizes (with their MPI_Count forms),
// MPI_Get_elements_x, envelopes and contents, and datatype names.
#include <algorithm>
#include <climits>
#include <cstring>

#include "api/args.hpp"
#include "api/pmpi.hpp"
#include "api/type_support.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace {

// Both out pointers non-null, the type valid: fills them from `lo`/`ext`.
template <typename T>
int bounds(const char* name, MPI_Datatype dt, T* lo, T* ext, bool true_bounds) {
  Call call(name);
  const dtype::Type* t = any_type(dt);
  if (!t) return bad_type(call, dt);
  if (!lo || !ext) return call.fail(nullptr, Err::kArg, "a result pointer is null");
  *lo = static_cast<T>(true_bounds ? t->true_lb() : t->lb());
  *ext = static_cast<T>(true_bounds ? t->true_extent() : t->extent());
  return MPI_SUCCESS;
}

// get_contents hands out a handle for each argument datatype: the same one
// for a predefined type, a new one (the user frees it) for a derived type.
MPI_Datatype handle_for(const dtype::TypeRef& t, const TypeEnvelope& env) {
  if (t->is_builtin()) return static_cast<MPI_Datatype>(make_handle(Kind::kDatatype, static_cast<int>(t->builtin())));
  auto obj = std::make_unique<TypeObj>();
  obj->type = t;
  obj->env = env;
  return rt()->types.add(std::move(obj));
}

void copy_name(const std::string& name, char* out, int* len) {
  const size_t n = std::min<size_t>(name.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(out, name.data(), n);
  out[n] = '\0';
  *len = static_cast<int>(n);
}

}  // namespace

extern "C" {

int PMPI_Get_address(const void* location, MPI_Aint* address) {
  Call call("MPI_Get_address");
  if (!address) return call.fail(nullptr, Err::kArg, "address pointer is null");
  *address = static_cast<MPI_Aint>(reinterpret_cast<uintptr_t>(location));
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Get_address, PMPI_Get_address)

int PMPI_Type_get_extent(MPI_Datatype dt, MPI_Aint* lb, MPI_Aint* extent) {
  return bounds("MPI_Type_get_extent", dt, lb, extent, false);
}
FTMPI_WEAK_ALIAS(MPI_Type_get_extent, PMPI_Type_get_extent)

int PMPI_Type_get_true_extent(MPI_Datatype dt, MPI_Aint* lb, MPI_Aint* extent) {
  return bounds("MPI_Type_get_true_extent", dt, lb, extent, true);
}
FTMPI_WEAK_ALIAS(MPI_Type_get_true_extent, PMPI_Type_get_true_extent)

int PMPI_Type_get_extent_x(MPI_Datatype dt, MPI_Count* lb, MPI_Count* extent) {
  return bounds("MPI_Type_get_extent_x", dt, lb, extent, false);
}
FTMPI_WEAK_ALIAS(MPI_Type_get_extent_x, PMPI_Type_get_extent_x)

int PMPI_Type_get_true_extent_x(MPI_Datatype dt, MPI_Count* lb, MPI_Count* extent) {
  return bounds("MPI_Type_get_true_extent_x", dt, lb, extent, true);
}
FTMPI_WEAK_ALIAS(MPI_Type_get_true_extent_x, PMPI_Type_get_true_extent_x)

int PMPI_Type_size_x(MPI_Datatype dt, MPI_Count* size) {
  Call call("MPI_Type_size_x");
  const dtype::Type* t = any_type(dt);
  if (!t) return bad_type(call, dt);
  if (!size) return call.fail(nullptr, Err::kArg, "size pointer is null");
  *size = static_cast<MPI_Count>(t->size());
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_size_x, PMPI_Type_size_x)

int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype dt, MPI_Count* count) {
  Call call("MPI_Get_elements_x");
  Why w;
  const dtype::TypeRef* type = nullptr;
  if (!status || status == MPI_STATUS_IGNORE || !count) return call.fail(nullptr, Err::kArg, "null argument");
  if (Err e = check_type(dt, &type, w); !ok(e)) return call.fail(nullptr, e, "%s", w.text);
  const int64_t n = dtype::get_elements(**type, status->ftmpi_count);
  *count = n == dtype::kUndefined ? MPI_UNDEFINED : static_cast<MPI_Count>(n);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Get_elements_x, PMPI_Get_elements_x)

int PMPI_Type_get_envelope(MPI_Datatype dt, int* num_integers, int* num_addresses, int* num_datatypes,
                           int* combiner) {
  Call call("MPI_Type_get_envelope");
  TypeObj* t = rt()->types.get(dt);
  if (!t) return bad_type(call, dt);
  if (!num_integers || !num_addresses || !num_datatypes || !combiner)
    return call.fail(nullptr, Err::kArg, "a result pointer is null");
  *num_integers = static_cast<int>(t->env.ints.size());
  *num_addresses = static_cast<int>(t->env.aints.size());
  *num_datatypes = static_cast<int>(t->env.types.size());
  *combiner = t->env.combiner;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_get_envelope, PMPI_Type_get_envelope)

int PMPI_Type_get_contents(MPI_Datatype dt, int max_integers, int max_addresses, int max_datatypes, int integers[],
                           MPI_Aint addresses[], MPI_Datatype datatypes[]) {
  Call call("MPI_Type_get_contents");
  TypeObj* t = rt()->types.get(dt);
  if (!t) return bad_type(call, dt);
  if (t->env.combiner == MPI_COMBINER_NAMED)
    return call.fail(nullptr, Err::kType, "a predefined datatype has no contents");
  const TypeEnvelope env = t->env;  // handle_for may grow the table under t
  if (max_integers < static_cast<int>(env.ints.size()) || max_addresses < static_cast<int>(env.aints.size()) ||
      max_datatypes < static_cast<int>(env.types.size()))
    return call.fail(nullptr, Err::kArg, "the arrays are smaller than MPI_Type_get_envelope says");
  if ((!env.ints.empty() && !integers) || (!env.aints.empty() && !addresses) || (!env.types.empty() && !datatypes))
    return call.fail(nullptr, Err::kArg, "an array argument is null");
  std::copy(env.ints.begin(), env.ints.end(), integers);
  std::copy(env.aints.begin(), env.aints.end(), addresses);
  for (size_t i = 0; i < env.types.size(); ++i) datatypes[i] = handle_for(env.types[i], env.type_envs[i]);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_get_contents, PMPI_Type_get_contents)

int PMPI_Type_set_name(MPI_Datatype dt, const char* name) {
  Call call("MPI_Type_set_name");
  TypeObj* t = rt()->types.get(dt);
  if (!t) return bad_type(call, dt);
  if (!name) return call.fail(nullptr, Err::kArg, "name is null");
  // Longer names are truncated (MPI-3.1 §6.8).
  t->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_set_name, PMPI_Type_set_name)

int PMPI_Type_get_name(MPI_Datatype dt, char* name, int* resultlen) {
  Call call("MPI_Type_get_name");
  TypeObj* t = rt()->types.get(dt);
  if (!t) return bad_type(call, dt);
  if (!name || !resultlen) return call.fail(nullptr, Err::kArg, "null argument");
  copy_name(t->name, name, resultlen);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Type_get_name, PMPI_Type_get_name)

}  // extern "C"

// Info objects (MPI-3.1 §9): ordered (key, value) string pairs. Nothing in
// the library interprets a hint yet; calls that take an info accept any.
// Errors: keys empty or longer than MPI_MAX_INFO_KEY -> MPI_ERR_INFO_KEY,
// values longer than MPI_MAX_INFO_VAL -> MPI_ERR_INFO_VALUE, deleting an
// absent key -> MPI_ERR_INFO_NOKEY; an invalid handle -> MPI_ERR_ARG.
#include <algorithm>
#include <cstring>
#include <string>

#include "api/call.hpp"
#include "api/pmpi.hpp"

using namespace ftmpi;
using namespace ftmpi::api;

namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

// The object behind `h`, or null after reporting.
InfoObj* lookup(Call& call, MPI_Info h, int* code) {
  InfoObj* o = rt()->infos.get(h);
  if (!o) *code = call.fail(nullptr, Err::kArg, h == MPI_INFO_NULL ? "info is MPI_INFO_NULL" : "invalid info object");
  return o;
}

// A usable key, or reports.
bool key_ok(Call& call, const char* key, int* code) {
  const size_t n = key ? strnlen(key, MPI_MAX_INFO_KEY + 1) : 0;
  if (n == 0 || n > MPI_MAX_INFO_KEY) {
    *code = call.fail(nullptr, Err::kInfoKey, key ? "the key is empty or longer than MPI_MAX_INFO_KEY" : "key is null");
    return false;
  }
  return true;
}

Entries::iterator find(Entries& e, const char* key) {
  return std::find_if(e.begin(), e.end(), [&](const auto& kv) { return kv.first == key; });
}

}  // namespace

extern "C" {

int PMPI_Info_create(MPI_Info* info) {
  Call call("MPI_Info_create");
  if (!info) return call.fail(nullptr, Err::kArg, "info pointer is null");
  *info = rt()->infos.add(std::make_unique<InfoObj>());
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Info_create, PMPI_Info_create)

int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  Call call("MPI_Info_set");
  int code = MPI_SUCCESS;
  InfoObj* o = lookup(call, info, &code);
  if (!o || !key_ok(call, key, &code)) return code;
  if (!value) return call.fail(nullptr, Err::kInfoValue, "value is null");
  const size_t vn = strnlen(value, MPI_MAX_INFO_VAL + 1);
  if (vn > MPI_MAX_INFO_VAL) return call.fail(nullptr, Err::kInfoValue, "the value is longer than MPI_MAX_INFO_VAL");
  auto it = find(o->entries, key);
  if (it != o->entries.end()) it->second = value;
  else o->entries.emplace_back(key, value);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Info_set, PMPI_Info_set)

int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  Call call("MPI_Info_get");
  int code = MPI_SUCCESS;
  InfoObj* o = lookup(call, info, &code);
  if (!o || !key_ok(call, key, &code)) return code;
  if (valuelen < 0) return call.fail(nullptr, Err::kArg, "valuelen %d is negative", valuelen);
  if (!value || !flag) return call.fail(nullptr, Err::kArg, "null argument");
  auto it = find(o->entries, key);
  *flag = it != o->entries.end();
  if (*flag) {
    // At most valuelen characters, then the terminating null (the caller's
    // buffer holds valuelen + 1).
    const size_t n = std::min(it->second.size(), static_cast<size_t>(valuelen));
    std::memcpy(value, it->second.data(), n);
    value[n] = '\0';
  }
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Info_get, PMPI_Info_get)

int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  Call call("MPI_Info_get_valuelen");
  int code = MPI_SUCCESS;
  InfoObj* o = lookup(call, info, &code);
  if (!o || !key_ok(call, key, &code)) return code;
  if (!valuelen || !flag) return call.fail(nullptr, Err::kArg, "null argument");
  auto it = find(o->entries, key);
  *flag = it != o->entries.end();
  if (*flag) *valuelen = static_cast<int>(it->second.size());
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Info_get_valuelen, PMPI_Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  Call call("MPI_Info_get_nkeys");
  int code = MPI_SUCCESS;
  InfoObj* o = lookup(call, info, &code);
  if (!o) return code;
  if (!nkeys) return call.fail(nullptr, Err::kArg, "nkeys is null");
  *nkeys = static_cast<int>(o->entries.size());
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Info_get_nkeys, PMPI_Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  Call call("MPI_Info_get_nthkey");
  int code = MPI_SUCCESS;
  InfoObj* o = lookup(call, info, &code);
  if (!o) return code;
  if (!key) return call.fail(nullptr, Err::kArg, "key is null");
  if (n < 0 || n >= static_cast<int>(o->entries.size()))
    return call.fail(nullptr, Err::kArg, "n = %d is not in 0..%zu", n, o->entries.size());
  const std::string& k = o->entries[static_cast<size_t>(n)].first;
  std::memcpy(key, k.c_str(), k.size() + 1);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Info_get_nthkey, PMPI_Info_get_nthkey)

int PMPI_Info_delete(MPI_Info info, const char* key) {
  Call call("MPI_Info_delete");
  int code = MPI_SUCCESS;
  InfoObj* o = lookup(call, info, &code);
  if (!o || !key_ok(call, key, &code)) return code;
  auto it = find(o->entries, key);
  if (it == o->entries.end()) return call.fail(nullptr, Err::kInfoNoKey, "key \"%s\" is not set", key);
  o->entries.erase(it);
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Info_delete, PMPI_Info_delete)

int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  Call call("MPI_Info_dup");
  int code = MPI_SUCCESS;
  InfoObj* o = lookup(call, info, &code);
  if (!o) return code;
  if (!newinfo) return call.fail(nullptr, Err::kArg, "newinfo is null");
  auto copy = std::make_unique<InfoObj>(*o);
  *newinfo = rt()->infos.add(std::move(copy));
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Info_dup, PMPI_Info_dup)

int PMPI_Info_free(MPI_Info* info) {
  Call call("MPI_Info_free");
  if (!info) return call.fail(nullptr, Err::kArg, "info pointer is null");
  int code = MPI_SUCCESS;
  if (!lookup(call, *info, &code)) return code;
  rt()->infos.remove(*info);
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}
FTMPI_WEAK_ALIAS(MPI_Info_free, PMPI_Info_free)

}  // extern "C"

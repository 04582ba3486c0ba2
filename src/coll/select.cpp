#include "coll/select.hpp"

#include <cstdlib>

#include "base/log.hpp"

namespace ftmpi::coll {

const char* coll_name(CollOp op) {
  static const char* const kNames[] = {"barrier",    "bcast",    "reduce",  "allreduce", "allgather",
                                       "allgatherv", "alltoall", "alltoallv", "gather",  "gatherv",
                                       "scatter",    "scatterv", "reduce_scatter", "scan"};
  static_assert(sizeof kNames / sizeof kNames[0] == static_cast<size_t>(CollOp::kCount));
  return kNames[static_cast<int>(op)];
}

bool usable(const AlgoDesc& a, const CallInfo& info) {
  if ((a.needs & kNeedsCommutative) && !info.commutative) return false;
  if ((a.needs & kNeedsPow2) && (info.size & (info.size - 1)) != 0) return false;
  return true;
}

namespace {
constexpr int kUnknown = -2;
int find_usable(std::span<const AlgoDesc> catalog, std::string_view name, const CallInfo& info) {
  for (size_t i = 0; i < catalog.size(); ++i)
    if (name == catalog[i].name) return usable(catalog[i], info) ? static_cast<int>(i) : -1;
  return kUnknown;
}
}  // namespace

int select_algorithm(CollOp op, const CallInfo& info, std::span<const AlgoDesc> catalog, std::span<const Rule> table,
                     std::string_view forced, bool* unknown_forced) {
  if (!forced.empty()) {
    int i = find_usable(catalog, forced, info);
    if (i >= 0) return i;
    if (i == kUnknown && unknown_forced) *unknown_forced = true;
  }
  for (const Rule& r : table) {
    if (r.op != op || info.size > r.max_size || info.bytes > r.max_bytes) continue;
    if (int i = find_usable(catalog, r.algorithm, info); i >= 0) return i;
  }
  for (size_t i = 0; i < catalog.size(); ++i)
    if (usable(catalog[i], info)) return static_cast<int>(i);
  return 0;
}

bool parse_forced(std::string_view text, Forced* out, std::string* error) {
  *out = Forced{};
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (item.empty()) continue;
    size_t colon = item.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == item.size()) {
      *error = "expected <collective>:<algorithm>, got '" + std::string(item) + "'";
      return false;
    }
    std::string_view coll = item.substr(0, colon);
    int which = -1;
    for (int i = 0; i < static_cast<int>(CollOp::kCount); ++i)
      if (coll == coll_name(static_cast<CollOp>(i))) which = i;
    if (which < 0) {
      *error = "unknown collective '" + std::string(coll) + "'";
      return false;
    }
    out->name[which] = std::string(item.substr(colon + 1));
  }
  return true;
}

Forced forced_from_env() {
  Forced r;
  const char* env = std::getenv("FTMPI_COLL");
  std::string err;
  if (env && !parse_forced(env, &r, &err)) {
    FTMPI_LOG(kWarn, "coll", "ignoring FTMPI_COLL: %s", err.c_str());
    r = Forced{};
  }
  return r;
}

}  // namespace ftmpi::coll

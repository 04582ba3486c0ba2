// Choosing an algorithm: a catalog per collective (name + restrictions, in
// the dispatcher) and one tuning table kept as data (tuning_table.cpp), read
// by a small interpreter.
//
// A table row is (collective, max team size, max bytes, algorithm name). The
// first row of the collective whose limits hold and whose algorithm is in
// the catalog with its restrictions met wins; a collective's last row should
// have no limits. `bytes` is what the row's collective measures (see
// tuning_table.cpp).
//
// FTMPI_COLL=<coll>:<algorithm>[,...] forces an algorithm (tests use it to
// run every algorithm; benchmarks to compare them). A forced algorithm whose
// restrictions do not hold is ignored for that call.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ftmpi::coll {

enum class CollOp : uint8_t {
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kAllgather,
  kAllgatherv,
  kAlltoall,
  kAlltoallv,
  kGather,
  kGatherv,
  kScatter,
  kScatterv,
  kReduceScatter,
  kScan,
  kCount,
};
const char* coll_name(CollOp op);

// Restrictions of an algorithm (bits).
enum Needs : unsigned {
  kNeedsNothing = 0,
  kNeedsCommutative = 1u << 0,  // reorders the combination of contributions
  kNeedsPow2 = 1u << 1,         // team size a power of two
};

struct CallInfo {
  int size = 1;
  uint64_t bytes = 0;
  bool commutative = true;
};

struct AlgoDesc {
  const char* name;
  unsigned needs;
};

struct Rule {
  CollOp op;
  int max_size;        // kAnySize: no limit
  uint64_t max_bytes;  // kAnyBytes: no limit
  const char* algorithm;
};
inline constexpr int kAnySize = 1 << 30;
inline constexpr uint64_t kAnyBytes = ~uint64_t{0};

std::span<const Rule> tuning_table();
// The algorithms of a collective, as dispatch.cpp knows them.
std::span<const AlgoDesc> catalog(CollOp op);

bool usable(const AlgoDesc& a, const CallInfo& info);

// Index into `catalog` of the algorithm to run: the forced one if given and
// usable, else the table's choice, else the first usable entry. A forced
// name the catalog does not know sets *unknown_forced (when given).
int select_algorithm(CollOp op, const CallInfo& info, std::span<const AlgoDesc> catalog, std::span<const Rule> table,
                     std::string_view forced, bool* unknown_forced = nullptr);

// Parses FTMPI_COLL-style text into the forced algorithm per collective.
struct Forced {
  std::string name[static_cast<int>(CollOp::kCount)];
};
bool parse_forced(std::string_view text, Forced* out, std::string* error);
// The FTMPI_COLL setting (read by coll::State when it is made).
Forced forced_from_env();

}  // namespace ftmpi::coll

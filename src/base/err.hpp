// Internal error type. Values equal the MPI error classes of include/mpi.h so
// that the API layer converts with a cast; base itself never includes mpi.h.
#pragma once

namespace ftmpi {

enum class Err : int {
  kOk = 0,
  kBuffer = 1,
  kCount = 2,
  kType = 3,
  kTag = 4,
  kComm = 5,
  kRank = 6,
  kRequest = 7,
  kRoot = 8,
  kGroup = 9,
  kOp = 10,
  kTopology = 11,
  kDims = 12,
  kArg = 13,
  kUnknown = 14,
  kTruncate = 15,
  kOther = 16,  // FT-MPI: a process failure (and nothing else) is reported as this class
  kIntern = 17,
  kInStatus = 18,
  kPending = 19,
  // MPI-2 classes
  kKeyval = 20,
  kInfoKey = 21,
  kInfoValue = 22,
  kInfoNoKey = 23,
  kNoMem = 24,
};

inline constexpr bool ok(Err e) { return e == Err::kOk; }
const char* err_name(Err e);

}  // namespace ftmpi

// The tuning table: which algorithm runs for a team size and a message
// size, first matching row wins (see select.hpp). Measured on this project's
// reference machine (2 cores, shared memory; bench/coll/run.py, numbers in
// bench/coll/README.md). "bytes" is:
//   bcast, reduce, allreduce, scan   the whole vector
//   reduce_scatter, allgatherv       the sum of all blocks
//   gather, scatter, allgather, alltoall   one block
//   barrier, gatherv, scatterv, alltoallv  0 (not every member knows the sizes)
#include "coll/select.hpp"

namespace ftmpi::coll {
namespace {

using enum CollOp;

constexpr Rule kTable[] = {
    {kBarrier, kAnySize, kAnyBytes, "dissemination"},

    {kBcast, kAnySize, 16 << 10, "binomial"},
    {kBcast, 8, kAnyBytes, "linear"},
    {kBcast, kAnySize, kAnyBytes, "scatter_allgather"},

    {kReduce, kAnySize, 64 << 10, "binomial"},
    {kReduce, kAnySize, kAnyBytes, "rabenseifner"},

    {kAllreduce, kAnySize, 16 << 10, "recursive_doubling"},
    {kAllreduce, kAnySize, kAnyBytes, "rabenseifner"},

    {kScan, kAnySize, kAnyBytes, "recursive_doubling"},

    {kGather, kAnySize, 4 << 10, "binomial"},
    {kGather, kAnySize, kAnyBytes, "linear"},
    {kScatter, kAnySize, 4 << 10, "binomial"},
    {kScatter, kAnySize, kAnyBytes, "linear"},

    {kAllgather, kAnySize, 4 << 10, "bruck"},
    {kAllgather, 8, kAnyBytes, "linear"},
    {kAllgather, kAnySize, kAnyBytes, "ring"},
    {kAllgatherv, 8, kAnyBytes, "linear"},
    {kAllgatherv, kAnySize, kAnyBytes, "ring"},

    {kAlltoall, kAnySize, 256, "bruck"},
    {kAlltoall, 16, kAnyBytes, "linear"},
    {kAlltoall, kAnySize, kAnyBytes, "pairwise"},
    {kAlltoallv, 16, kAnyBytes, "linear"},
    {kAlltoallv, kAnySize, kAnyBytes, "pairwise"},

    {kGatherv, kAnySize, kAnyBytes, "linear"},
    {kScatterv, kAnySize, kAnyBytes, "linear"},

    {kReduceScatter, kAnySize, 64 << 10, "halving"},
    {kReduceScatter, kAnySize, kAnyBytes, "pairwise"},
};

}  // namespace

std::span<const Rule> tuning_table() { return kTable; }

}  // namespace ftmpi::coll

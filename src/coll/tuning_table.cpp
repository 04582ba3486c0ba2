// The tuning table: which algorithm runs for a team size and a message
// size, first matching row wins (see select.hpp). Measured on this project's
// reference machine (2 cores, shared memory, a virtual machine) with
// bench/coll/sweep.py; numbers in bench/coll/README.md. Rows for teams above
// 8 follow the usual cost models (no such machine to measure on). "bytes" is:
//   bcast, reduce, allreduce, scan   the whole vector
//   reduce_scatter, allgatherv       the sum of all blocks
//   gather, scatter, allgather, alltoall   one block
//   barrier, gatherv, scatterv, alltoallv  0 (not every member knows the sizes)
#include "coll/select.hpp"

namespace ftmpi::coll {
namespace {

using enum CollOp;

constexpr Rule kTable[] = {
    // One round beats log2(p) rounds while members are few: every round
    // costs each member a wait for a core.
    {kBarrier, 2, kAnyBytes, "dissemination"},
    {kBarrier, 8, kAnyBytes, "linear"},
    {kBarrier, kAnySize, kAnyBytes, "dissemination"},

    {kBcast, kAnySize, 16 << 10, "binomial"},
    {kBcast, 8, kAnyBytes, "linear"},
    {kBcast, kAnySize, 512 << 10, "binomial"},
    {kBcast, kAnySize, kAnyBytes, "scatter_allgather"},

    // Few members: one round for small vectors, else Rabenseifner, whose
    // halves let two cores share the reduction work.
    {kReduce, 2, 256 << 10, "linear"},
    {kReduce, 8, 64 << 10, "linear"},
    {kReduce, 8, kAnyBytes, "rabenseifner"},
    {kReduce, kAnySize, 64 << 10, "binomial"},
    {kReduce, kAnySize, kAnyBytes, "rabenseifner"},
    {kReduce, kAnySize, kAnyBytes, "binomial"},  // non-commutative ops

    {kAllreduce, 8, 1 << 10, "linear"},
    {kAllreduce, kAnySize, 8 << 10, "recursive_doubling"},
    {kAllreduce, kAnySize, kAnyBytes, "rabenseifner"},
    {kAllreduce, kAnySize, kAnyBytes, "recursive_doubling"},  // non-commutative ops

    {kScan, kAnySize, kAnyBytes, "recursive_doubling"},

    {kGather, kAnySize, 4 << 10, "binomial"},
    {kGather, kAnySize, kAnyBytes, "linear"},
    {kScatter, kAnySize, 4 << 10, "binomial"},
    {kScatter, kAnySize, kAnyBytes, "linear"},

    {kAllgather, 8, kAnyBytes, "linear"},
    {kAllgather, kAnySize, 1 << 10, "bruck"},
    {kAllgather, kAnySize, kAnyBytes, "ring"},
    {kAllgatherv, 8, kAnyBytes, "linear"},
    {kAllgatherv, kAnySize, kAnyBytes, "ring"},

    {kAlltoall, 8, kAnyBytes, "linear"},
    {kAlltoall, kAnySize, 256, "bruck"},
    {kAlltoall, kAnySize, kAnyBytes, "pairwise"},
    {kAlltoallv, 8, kAnyBytes, "linear"},
    {kAlltoallv, kAnySize, kAnyBytes, "pairwise"},

    {kGatherv, kAnySize, kAnyBytes, "linear"},
    {kScatterv, kAnySize, kAnyBytes, "linear"},

    {kReduceScatter, kAnySize, 64 << 10, "halving"},
    {kReduceScatter, kAnySize, kAnyBytes, "pairwise"},
    {kReduceScatter, kAnySize, kAnyBytes, "reduce_scatterv"},  // non-commutative ops
};

}  // namespace

std::span<const Rule> tuning_table() { return kTable; }

}  // namespace ftmpi::coll

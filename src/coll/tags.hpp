// The registry of every tag the library itself uses. All of them travel on
// a communicator's collective context (Communicator::coll_ctx()), which
// user point-to-point traffic never uses, so they only have to differ from
// each other:
//
// - Collective algorithm runs (Xfer, and nbc schedules with kNonblocking):
//     tag = (call sequence mod 2^12) << 19 | algorithm id << 12 | step mod 2^12
//   so messages of different calls, algorithms or rounds never match each
//   other, even after a run stopped half-way. Algorithm ids are 32..127.
// - Internal exchanges (InternalTag below): kInternalBase + k, k < 2^12.
//   Their algorithm-id bits are 0, which no algorithm id is, so no
//   collective tag can equal them. They are not numbered per call: callers
//   run them in the same order on every member, and per-pair FIFO order
//   keeps consecutive exchanges apart.
//
// A new internal exchange takes the next free k here, nowhere else.
#pragma once
#include <cstdint>

namespace ftmpi::coll {

enum class AlgoId : int {
  kBarrierDissemination = 32,
  kBarrierTree,
  kBarrierLinear,
  kBcastBinomial,
  kBcastScatterAllgather,
  kBcastLinear,
  kReduceBinomial,
  kReduceRabenseifner,
  kReduceLinear,
  kAllreduceRecursiveDoubling,
  kAllreduceRabenseifner,
  kAllreduceRing,
  kAllreduceLinear,
  kAllgatherBruck,
  kAllgatherRing,
  kAllgatherLinear,
  kAllgathervRing,
  kAllgathervLinear,
  kAlltoallBruck,
  kAlltoallPairwise,
  kAlltoallLinear,
  kAlltoallvPairwise,
  kAlltoallvLinear,
  kGatherBinomial,
  kGatherLinear,
  kGathervLinear,
  kScatterBinomial,
  kScatterLinear,
  kScattervLinear,
  kReduceScatterHalving,
  kReduceScatterPairwise,
  kReduceScatterReduceScatterv,
  kScanRecursiveDoubling,
  kScanLinear,
  kNonblocking,  // every nonblocking collective (nbc/schedule.hpp), step 0
  kInterLeaders,  // intercommunicator collectives: transfers between the groups (inter/)
  kInterLinear,
};

inline constexpr int kStepBits = 12;
inline constexpr int kAlgoBits = 7;
inline constexpr int kSeqBits = 12;
static_assert(kStepBits + kAlgoBits + kSeqBits == 31, "tags must stay non-negative ints");

static_assert(static_cast<int>(AlgoId::kBarrierDissemination) > 0 &&
                  static_cast<int>(AlgoId::kInterLinear) < (1 << kAlgoBits),  // the first and the last id
              "algorithm ids must fit their field and never be 0");

inline int make_tag(uint32_t seq, AlgoId algo, int step) {
  return static_cast<int>(((seq & ((1u << kSeqBits) - 1)) << (kStepBits + kAlgoBits)) |
                          (static_cast<uint32_t>(algo) << kStepBits) |
                          (static_cast<uint32_t>(step) & ((1u << kStepBits) - 1)));
}

inline constexpr int kInternalBase = 1 << 20;
static_assert(((kInternalBase >> kStepBits) & ((1 << kAlgoBits) - 1)) == 0,
              "internal tags must read as algorithm id 0");

enum InternalTag : int {
  // coll/internal.cpp: the byte collectives of communicator creation and
  // the FT protocols.
  kTagAllgatherBytes = kInternalBase + 0,
  kTagBcastBytes = kInternalBase + 1,
  kTagAllgatherBytesLog = kInternalBase + 2,
  // comm/ops/intercomm.cpp: the leaders' exchange of MPI_Intercomm_merge.
  kTagMergeFlags = kInternalBase + 16,
  kInternalEnd = kInternalBase + (1 << kStepBits),  // first tag past the range
};

}  // namespace ftmpi::coll

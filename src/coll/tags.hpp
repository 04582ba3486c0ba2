// Tags of collective messages (Xfer):
//   tag = (call sequence mod 2^12) << 19 | algorithm id << 12 | step mod 2^12
// so messages of different calls, algorithms or rounds never match each
// other, even after a run stopped half-way. Algorithm ids are 32..127; the
// internal byte collectives (internal.cpp) use tags (1<<20) + small k,
// which read as algorithm id 0: no Xfer tag can equal them.
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

inline int make_tag(uint32_t seq, AlgoId algo, int step) {
  return static_cast<int>(((seq & ((1u << kSeqBits) - 1)) << (kStepBits + kAlgoBits)) |
                          (static_cast<uint32_t>(algo) << kStepBits) |
                          (static_cast<uint32_t>(step) & ((1u << kStepBits) - 1)));
}

}  // namespace ftmpi::coll

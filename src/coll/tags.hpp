// One id per algorithm: the high bits of its message tags (Xfer), so that
// messages of different algorithms or rounds can never match each other,
// even after a run stopped half-way. Ids start at 32; the internal byte
// collectives (internal.cpp) use tags 1<<20 and (1<<20)+1, i.e. id 16.
#pragma once

namespace ftmpi::coll {

enum class AlgoId : int {
  kBarrierDissemination = 32,
  kBarrierTree,
  kBcastBinomial,
  kBcastScatterAllgather,
  kBcastLinear,
  kBcastPipeline,
  kReduceBinomial,
  kReduceRabenseifner,
  kReduceLinear,
  kAllreduceRecursiveDoubling,
  kAllreduceRabenseifner,
  kAllreduceRing,
  kAllreduceReduceBcast,
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
};

inline constexpr int kStepBits = 16;

}  // namespace ftmpi::coll

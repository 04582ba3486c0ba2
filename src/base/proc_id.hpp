// Process identity (DESIGN.md §3): slot = MPI_COMM_WORLD rank at job start,
// never reused for another process; incarnation grows with each respawn.
#pragma once
#include <cstdint>
#include <functional>

namespace ftmpi {

struct ProcId {
  int32_t slot = -1;
  uint32_t incarnation = 0;
  friend bool operator==(const ProcId&, const ProcId&) = default;
  bool valid() const { return slot >= 0; }
};

}  // namespace ftmpi

template <>
struct std::hash<ftmpi::ProcId> {
  size_t operator()(const ftmpi::ProcId& p) const noexcept {
    return (static_cast<uint64_t>(p.slot) << 32) ^ p.incarnation;
  }
};

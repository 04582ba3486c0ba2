// An ordered set of processes: rank -> ProcId, and back. Immutable once
// built and shared (std::shared_ptr<const Group>) by every communicator and
// MPI_Group handle that uses it, so MPI_Comm_dup costs no copy.
// A member may be a blank (FT-MPI BLANK mode): it keeps its rank but has no
// process; p2p treats it like MPI_PROC_NULL. A blank still has an identity,
// the slot of the process that died there (blank_member), so group algebra
// (incl/excl, union, translate_ranks, Comm_create's subset check) can follow
// blanks like any other member and tell two blanks apart
// (spec/ft-semantics.md §4.3.1).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "base/proc_id.hpp"

namespace ftmpi::comm {

// The member that stands for dead slot `slot` in BLANK mode: slot -2 - slot,
// never valid() (so every layer that addresses processes skips it) and never
// equal to the anonymous ProcId{} (slot -1) or to another slot's blank.
inline ProcId blank_member(int32_t slot) { return ProcId{-2 - slot, 0}; }
// The slot a blank member stands for, or -1 for a live or anonymous member.
inline int32_t blank_slot(const ProcId& p) { return p.slot <= -2 ? -2 - p.slot : -1; }

class Group {
 public:
  Group() = default;
  explicit Group(std::vector<ProcId> members);

  int size() const { return static_cast<int>(members_.size()); }
  const ProcId& at(int rank) const { return members_[static_cast<size_t>(rank)]; }
  bool is_blank(int rank) const { return !members_[static_cast<size_t>(rank)].valid(); }
  // Rank of the process occupying this slot, or -1.
  int rank_of_slot(int32_t slot) const {
    return slot >= 0 && static_cast<size_t>(slot) < slot_to_rank_.size() ? slot_to_rank_[static_cast<size_t>(slot)] : -1;
  }
  // Rank of member `p` (live or blank), or -1. The anonymous ProcId{} is
  // never found.
  int rank_of(const ProcId& p) const {
    const int32_t b = blank_slot(p);
    const std::vector<int32_t>& index = b >= 0 ? blank_to_rank_ : slot_to_rank_;
    const int32_t i = b >= 0 ? b : p.slot;
    const int r = i >= 0 && static_cast<size_t>(i) < index.size() ? index[static_cast<size_t>(i)] : -1;
    return r >= 0 && at(r) == p ? r : -1;
  }
  const std::vector<ProcId>& members() const { return members_; }

  static std::shared_ptr<const Group> make(std::vector<ProcId> members) {
    return std::make_shared<const Group>(std::move(members));
  }

 private:
  std::vector<ProcId> members_;
  std::vector<int32_t> slot_to_rank_;
  std::vector<int32_t> blank_to_rank_;  // indexed by blank_slot()
};

using GroupRef = std::shared_ptr<const Group>;

}  // namespace ftmpi::comm

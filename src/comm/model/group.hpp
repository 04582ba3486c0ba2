// An ordered set of processes: rank -> ProcId, and back. Immutable once
// built and shared (std::shared_ptr<const Group>) by every communicator and
// MPI_Group handle that uses it, so MPI_Comm_dup costs no copy.
// A member may be a blank (FT-MPI BLANK mode): it keeps its rank but has no
// process; p2p treats it like MPI_PROC_NULL.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "base/proc_id.hpp"

namespace ftmpi::comm {

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
  const std::vector<ProcId>& members() const { return members_; }

  static std::shared_ptr<const Group> make(std::vector<ProcId> members) {
    return std::make_shared<const Group>(std::move(members));
  }

 private:
  std::vector<ProcId> members_;
  std::vector<int32_t> slot_to_rank_;
};

using GroupRef = std::shared_ptr<const Group>;

}  // namespace ftmpi::comm

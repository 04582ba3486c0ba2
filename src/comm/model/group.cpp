#include "comm/model/group.hpp"

#include <algorithm>

namespace ftmpi::comm {

Group::Group(std::vector<ProcId> members) : members_(std::move(members)) {
  int32_t max_slot = -1;
  for (const ProcId& p : members_) max_slot = std::max(max_slot, p.slot);
  slot_to_rank_.assign(static_cast<size_t>(max_slot + 1), -1);
  for (size_t r = 0; r < members_.size(); ++r)
    if (members_[r].valid()) slot_to_rank_[static_cast<size_t>(members_[r].slot)] = static_cast<int32_t>(r);
}

}  // namespace ftmpi::comm

#include "comm/model/group.hpp"

#include <algorithm>

namespace ftmpi::comm {

Group::Group(std::vector<ProcId> members) : members_(std::move(members)) {
  int32_t max_slot = -1, max_blank = -1;
  for (const ProcId& p : members_) {
    max_slot = std::max(max_slot, p.slot);
    max_blank = std::max(max_blank, blank_slot(p));
  }
  slot_to_rank_.assign(static_cast<size_t>(max_slot + 1), -1);
  blank_to_rank_.assign(static_cast<size_t>(max_blank + 1), -1);
  for (size_t r = 0; r < members_.size(); ++r) {
    const ProcId& p = members_[r];
    if (p.valid()) slot_to_rank_[static_cast<size_t>(p.slot)] = static_cast<int32_t>(r);
    else if (blank_slot(p) >= 0) blank_to_rank_[static_cast<size_t>(blank_slot(p))] = static_cast<int32_t>(r);
  }
}

}  // namespace ftmpi::comm

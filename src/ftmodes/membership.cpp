#include "ftmodes/membership.hpp"

#include "comm/model/group.hpp"

namespace ftmpi::ft {

std::vector<ProcId> world_after(rte::CommMode mode, const LiveTable& live) {
  std::vector<ProcId> out;
  out.reserve(live.size());
  for (size_t s = 0; s < live.size(); ++s) {
    const ProcId& p = live[s];
    if (p.valid()) out.push_back(p);
    // A blank remembers its slot, so groups can follow it (comm/model/group.hpp).
    else if (mode != rte::CommMode::kShrink) out.push_back(comm::blank_member(static_cast<int32_t>(s)));
  }
  return out;
}

int rank_after(rte::CommMode mode, const LiveTable& live, int32_t slot) {
  if (slot < 0 || static_cast<size_t>(slot) >= live.size() || !live[static_cast<size_t>(slot)].valid()) return -1;
  if (mode != rte::CommMode::kShrink) return slot;
  int r = 0;
  for (int32_t s = 0; s < slot; ++s) r += live[static_cast<size_t>(s)].valid();
  return r;
}

LiveTable live_from_cards(const std::vector<rte::Card>& cards) {
  LiveTable t(cards.size());
  for (size_t s = 0; s < cards.size(); ++s)
    if (cards[s].host >= 0) t[s] = cards[s].id;
  return t;
}

}  // namespace ftmpi::ft

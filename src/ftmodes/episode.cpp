#include "ftmodes/episode.hpp"

#include <algorithm>

namespace ftmpi::ft {

void Episodes::snapshot() {
  // Each change of the episode's list gets a new code, so an old code keeps
  // describing what it described when it was handed out.
  history_.push_back(current_);
}

void Episodes::on_failure(ProcId who) {
  if (fresh_) {
    current_.clear();
    fresh_ = false;
  }
  pending_ = true;
  if (std::find(current_.begin(), current_.end(), who) == current_.end()) {
    current_.push_back(who);
    snapshot();
  }
}

void Episodes::on_recovered(const std::vector<ProcId>& failed) {
  if (fresh_) current_.clear();
  bool changed = false;
  for (const ProcId& p : failed) {
    if (std::find(current_.begin(), current_.end(), p) == current_.end()) {
      current_.push_back(p);
      changed = true;
    }
  }
  if (changed) snapshot();
  pending_ = false;
  fresh_ = true;
}

std::string Episodes::describe(int code) const {
  size_t idx = static_cast<size_t>(code - kFailureCodeBase - 1);
  if (code <= kFailureCodeBase || idx >= history_.size()) return {};
  std::vector<int32_t> slots;
  for (const ProcId& p : history_[idx]) slots.push_back(p.slot);
  std::sort(slots.begin(), slots.end());
  slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
  std::string s = slots.size() == 1 ? "process failure: rank" : "process failure: ranks";
  for (int32_t r : slots) s += " " + std::to_string(r);
  return s + " of MPI_COMM_WORLD";
}

}  // namespace ftmpi::ft

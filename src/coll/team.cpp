#include "coll/team.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace ftmpi::coll {

Team::Team(p2p::Engine& eng, comm::Communicator& c, const Watch* watch)
    : eng_(&eng), comm_(&c), watch_(watch), size_(c.size()), me_(c.rank()) {}

Team::Team(p2p::Engine& eng, comm::Communicator& c, std::vector<int> members, const Watch* watch)
    : eng_(&eng), comm_(&c), watch_(watch), members_(std::move(members)) {
  size_ = static_cast<int>(members_.size());
  me_ = index_of(c.rank());
}

Team Team::live(p2p::Engine& eng, comm::Communicator& c) {
  const comm::Group& g = c.group();
  bool blanks = false;
  for (int r = 0; r < g.size() && !blanks; ++r) blanks = g.is_blank(r);
  if (!blanks) return Team(eng, c);
  std::vector<int> members;
  members.reserve(static_cast<size_t>(g.size()));
  for (int r = 0; r < g.size(); ++r)
    if (!g.is_blank(r)) members.push_back(r);
  return Team(eng, c, std::move(members));
}

int Team::index_of(int rank) const {
  if (members_.empty()) return rank >= 0 && rank < size_ ? rank : -1;
  auto it = std::lower_bound(members_.begin(), members_.end(), rank);
  return it != members_.end() && *it == rank ? static_cast<int>(it - members_.begin()) : -1;
}

bool Team::member_dead() const {
  const uint64_t f = eng_->failure_count();
  if (f != seen_failures_) {
    seen_failures_ = f;
    dead_ = false;
    for (int i = 0; i < size_ && !dead_; ++i) dead_ = !eng_->alive(proc_of(i));
  }
  return dead_;
}

void Team::begin_call() const {
  // One counter per (collective context, epoch); a process has few
  // communicators, so an ordered map is cheap enough.
  static std::map<std::pair<uint64_t, uint32_t>, uint32_t> counters;
  static std::pair<uint64_t, uint32_t> last_key{~uint64_t{0}, 0};
  static uint32_t* last = nullptr;  // map nodes never move
  const std::pair<uint64_t, uint32_t> key{comm_->coll_ctx(), eng_->epoch()};
  if (!last || key != last_key) {
    last = &counters[key];
    last_key = key;
  }
  seq_ = (*last)++;
}

}  // namespace ftmpi::coll

#include "coll/team.hpp"

#include <algorithm>
#include <utility>

#include "coll/state.hpp"

namespace ftmpi::coll {

Members::Members(const comm::Communicator& c, std::vector<int> members) : members_(std::move(members)) {
  size_ = static_cast<int>(members_.size());
  me_ = index_of(c.rank());
}

Members Members::live(const comm::Communicator& c) {
  const comm::Group& g = c.group();
  bool blanks = false;
  for (int r = 0; r < g.size() && !blanks; ++r) blanks = g.is_blank(r);
  if (!blanks) return Members(c);
  std::vector<int> members;
  members.reserve(static_cast<size_t>(g.size()));
  for (int r = 0; r < g.size(); ++r)
    if (!g.is_blank(r)) members.push_back(r);
  return Members(c, std::move(members));
}

int Members::index_of(int rank) const {
  if (members_.empty()) return rank >= 0 && rank < size_ ? rank : -1;
  auto it = std::lower_bound(members_.begin(), members_.end(), rank);
  return it != members_.end() && *it == rank ? static_cast<int>(it - members_.begin()) : -1;
}

Team::Team(State& st, comm::Communicator& c, Members members, const Watch* watch)
    : Members(std::move(members)), st_(&st), eng_(&st.engine()), comm_(&c), watch_(watch) {}

bool Team::member_dead() const {
  const uint64_t f = eng_->failure_count();
  if (f != seen_failures_) {
    seen_failures_ = f;
    dead_ = false;
    for (int i = 0; i < size() && !dead_; ++i) dead_ = !eng_->alive(proc_of(i));
  }
  return dead_;
}

void Team::begin_call() const { seq_ = st_->next_call(comm_->coll_ctx(), eng_->epoch()); }

}  // namespace ftmpi::coll

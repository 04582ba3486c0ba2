// Intracommunicator constructors: dup, create, split.
#include "comm/ops/constructors.hpp"

#include <algorithm>

#include "coll/internal.hpp"
#include "comm/ops/group_algebra.hpp"

namespace ftmpi::comm::ops {

CommPtr dup(Communicator& parent) {
  const uint64_t ctx = parent.next_child_context();
  return std::make_unique<Communicator>(ctx, parent.group_ref(), parent.rank(), parent.remote_ref());
}

CommPtr create_from_group(Communicator& parent, const GroupRef& group) {
  const uint64_t ctx = parent.next_child_context();  // advanced by members and non-members alike
  const int me = rank_in(*group, parent.group().at(parent.rank()));
  if (me < 0) return nullptr;
  // Comm_create of the parent's own group (a common idiom) shares the group.
  const GroupRef& g = group->members() == parent.group().members() ? parent.group_ref() : group;
  return std::make_unique<Communicator>(ctx, g, me);
}

CommPtr create_from_prefix(Communicator& parent, int n) {
  const uint64_t ctx = parent.next_child_context();
  if (parent.rank() >= n) return nullptr;
  if (n == parent.size()) return std::make_unique<Communicator>(ctx, parent.group_ref(), parent.rank());
  const auto& all = parent.group().members();
  std::vector<ProcId> m(all.begin(), all.begin() + n);
  return std::make_unique<Communicator>(ctx, Group::make(std::move(m)), parent.rank());
}

CommPtr create_from_ranks(Communicator& parent, const std::vector<int>& ranks) {
  const uint64_t ctx = parent.next_child_context();  // advanced by members and non-members alike
  int me = -1;
  std::vector<ProcId> m;
  m.reserve(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == parent.rank()) me = static_cast<int>(i);
    m.push_back(parent.group().at(ranks[i]));
  }
  if (me < 0) return nullptr;
  return std::make_unique<Communicator>(ctx, Group::make(std::move(m)), me);
}

std::vector<int> split_members(const std::vector<ColorKey>& all, int my_rank, int undefined) {
  const int32_t color = all[static_cast<size_t>(my_rank)].color;
  std::vector<int> ranks;
  if (color == undefined) return ranks;
  for (size_t r = 0; r < all.size(); ++r)
    if (all[r].color == color) ranks.push_back(static_cast<int>(r));
  // Stable: equal keys keep the parent's rank order.
  std::stable_sort(ranks.begin(), ranks.end(), [&](int x, int y) {
    return all[static_cast<size_t>(x)].key < all[static_cast<size_t>(y)].key;
  });
  return ranks;
}

Err split(p2p::Engine& eng, Communicator& parent, int color, int key, int undefined, CommPtr* out) {
  out->reset();
  const uint64_t ctx = parent.next_child_context();
  // Blanks (BLANK mode) send nothing, and the allgather leaves their entries
  // as they are: they count as passing MPI_UNDEFINED (FT-MPI spec §4.1).
  std::vector<ColorKey> all(static_cast<size_t>(parent.size()), ColorKey{undefined, 0});
  const ColorKey mine{color, key};
  if (Err e = coll::allgather_bytes_log(eng, parent, &mine, sizeof mine, all.data()); !ok(e)) return e;
  const std::vector<int> ranks = split_members(all, parent.rank(), undefined);
  if (ranks.empty()) return Err::kOk;
  std::vector<ProcId> m;
  m.reserve(ranks.size());
  int me = -1;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] == parent.rank()) me = static_cast<int>(i);
    m.push_back(parent.group().at(ranks[i]));
  }
  // A split that keeps everybody in order (color and key the same everywhere)
  // shares the parent's group instead of building a copy.
  const bool same = ranks.size() == static_cast<size_t>(parent.size()) &&
                    std::is_sorted(ranks.begin(), ranks.end());
  *out = std::make_unique<Communicator>(ctx, same ? parent.group_ref() : Group::make(std::move(m)), me);
  return Err::kOk;
}

}  // namespace ftmpi::comm::ops

#include "rte/daemon/topology.hpp"

#include <cstddef>

namespace ftmpi::rte {

int32_t lowest_live_host(const std::vector<bool>& lost) {
  for (size_t h = 0; h < lost.size(); ++h)
    if (!lost[h]) return static_cast<int32_t>(h);
  return -1;
}

Tree::Tree(const std::vector<bool>& lost, int32_t root, uint32_t fanout)
    : position_(lost.size(), -1), fanout_(fanout == 0 ? 1 : fanout) {
  int32_t n = static_cast<int32_t>(lost.size());
  if (root < 0 || root >= n || lost[static_cast<size_t>(root)]) return;
  for (int32_t i = 0; i < n; ++i) {
    int32_t h = (root + i) % n;
    if (lost[static_cast<size_t>(h)]) continue;
    position_[static_cast<size_t>(h)] = static_cast<int32_t>(order_.size());
    order_.push_back(h);
  }
}

int32_t Tree::position(int32_t host) const {
  if (host < 0 || host >= static_cast<int32_t>(position_.size())) return -1;
  return position_[static_cast<size_t>(host)];
}

int32_t Tree::parent(int32_t host) const {
  int32_t p = position(host);
  if (p <= 0) return -1;
  return order_[static_cast<size_t>((p - 1) / static_cast<int32_t>(fanout_))];
}

std::vector<int32_t> Tree::children(int32_t host) const {
  std::vector<int32_t> out;
  int32_t p = position(host);
  if (p < 0) return out;
  int64_t first = static_cast<int64_t>(p) * fanout_ + 1;
  for (int64_t c = first; c < first + fanout_ && c < static_cast<int64_t>(order_.size()); ++c)
    out.push_back(order_[static_cast<size_t>(c)]);
  return out;
}

int32_t Tree::depth(int32_t host) const {
  int32_t p = position(host);
  if (p < 0) return -1;
  int32_t d = 0;
  while (p > 0) {
    p = (p - 1) / static_cast<int32_t>(fanout_);
    ++d;
  }
  return d;
}

bool Tree::in_subtree(int32_t host, int32_t x) const {
  int32_t ph = position(host), px = position(x);
  if (ph < 0 || px < 0) return false;
  while (px > ph) px = (px - 1) / static_cast<int32_t>(fanout_);
  return px == ph;
}

int32_t Tree::height() const {
  return order_.empty() ? -1 : depth(order_.back());
}

}  // namespace ftmpi::rte

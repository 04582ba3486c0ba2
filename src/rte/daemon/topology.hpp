// The daemons' control tree, as pure functions of a view (which hosts are
// lost, who leads) and the fanout. Every daemon computes the same tree from
// the same view, so nobody has to announce it: a daemon connects to its
// parent, accepts its children, and relays frames between them.
//
// Order: the leader first, then the other live hosts in ascending host order
// after it (wrapping around). Position p's children are positions
// p*k+1 .. p*k+k (a complete k-ary tree), so a daemon has at most k + 1 tree
// links whatever the job's size, and a broadcast reaches n hosts in
// ceil(log_k n) hops.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ftmpi::rte {

// The lowest-numbered live host (the fixed succession order), -1 if none.
int32_t lowest_live_host(const std::vector<bool>& lost);

class Tree {
 public:
  // `lost[h]`: host h is gone. `root` must be live. `fanout` >= 1.
  Tree(const std::vector<bool>& lost, int32_t root, uint32_t fanout);

  int32_t root() const { return order_.empty() ? -1 : order_.front(); }
  const std::vector<int32_t>& order() const { return order_; }
  // -1 for the root and for hosts not in the tree (lost or out of range).
  int32_t parent(int32_t host) const;
  std::vector<int32_t> children(int32_t host) const;
  bool contains(int32_t host) const { return position(host) >= 0; }
  // Hops from the root; -1 if not in the tree.
  int32_t depth(int32_t host) const;
  // Is `x` in the subtree rooted at `host` (x == host included)?
  bool in_subtree(int32_t host, int32_t x) const;
  // Height of the whole tree (0 for a root alone).
  int32_t height() const;

 private:
  int32_t position(int32_t host) const;
  std::vector<int32_t> order_;     // position -> host
  std::vector<int32_t> position_;  // host -> position, -1 if lost
  uint32_t fanout_;
};

}  // namespace ftmpi::rte

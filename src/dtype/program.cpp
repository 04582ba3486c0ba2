// Building and simplifying programs (see program.hpp).
#include "dtype/program.hpp"

#include <unordered_map>
#include <unordered_set>

namespace ftmpi::dtype::program {
namespace {

void set_blocks(Node* n, int64_t count, int64_t stride, int64_t len) {
  n->kind = Node::Kind::kBlocks;
  n->depth = 1;
  n->count = count;
  n->stride = count > 1 ? stride : 0;
  n->len = len;
  n->size = count * len;
  n->child = nullptr;
  n->entries.clear();
  n->owned.clear();
}

std::shared_ptr<Node> blocks_node(int64_t count, int64_t stride, int64_t len) {
  auto n = std::make_shared<Node>();
  set_blocks(n.get(), count, stride, len);
  return n;
}

// A part of a list while it is being simplified: a dense run (node == null)
// or any node.
struct Item {
  int64_t disp;
  std::shared_ptr<const Node> node;
  int64_t dense_len;
};

bool same_shape(const Item& a, const Item& b) {
  if (!a.node || !b.node) return !a.node && !b.node && a.dense_len == b.dense_len;
  return a.node == b.node;
}

}  // namespace

Program dense(int64_t len) {
  if (len <= 0) return {};
  return {blocks_node(1, 0, len), 0};
}

bool merge_repeat(int64_t n, int64_t stride, const Node& c, Node* out) {
  if (c.kind != Node::Kind::kBlocks) return false;
  if (c.count == 1) {
    if (n == 1 || stride == c.len) set_blocks(out, 1, 0, n * c.len);
    else set_blocks(out, n, stride, c.len);
    return true;
  }
  if (n == 1) {
    set_blocks(out, c.count, c.stride, c.len);
    return true;
  }
  // The copies continue the child's own run pattern.
  if (stride == c.count * c.stride) {
    set_blocks(out, n * c.count, c.stride, c.len);
    return true;
  }
  return false;
}

Program repeat(int64_t n, int64_t stride, const Program& p) {
  if (p.empty() || n <= 0) return {};
  if (n == 1) return p;
  auto r = std::make_shared<Node>();
  if (!merge_repeat(n, stride, *p.root, r.get())) {
    r->kind = Node::Kind::kRepeat;
    r->count = n;
    r->stride = stride;
    r->child = p.root.get();
    r->size = n * p.root->size;
    r->depth = 1 + p.root->depth;
    r->owned.push_back(p.root);
  }
  return {std::move(r), p.disp};
}

Program list(std::span<const Placed> parts) {
  std::vector<Item> items;
  items.reserve(parts.size());
  auto add_dense = [&](int64_t disp, int64_t len) {
    if (!items.empty() && !items.back().node && items.back().disp + items.back().dense_len == disp)
      items.back().dense_len += len;
    else
      items.push_back({disp, nullptr, len});
  };
  for (const Placed& pt : parts) {
    if (!pt.prog) {
      if (pt.dense_len > 0) add_dense(pt.disp, pt.dense_len);
      continue;
    }
    const Program& p = *pt.prog;
    if (p.empty()) continue;
    if (p.root->dense()) add_dense(pt.disp + p.disp, p.root->len);
    else items.push_back({pt.disp + p.disp, p.root, 0});
  }

  // Equally spaced runs of equal parts become one node.
  std::vector<Item> out;
  for (size_t i = 0; i < items.size();) {
    size_t j = i + 1;
    int64_t gap = 0;
    if (j < items.size() && same_shape(items[i], items[j])) {
      gap = items[j].disp - items[i].disp;
      while (j + 1 < items.size() && same_shape(items[i], items[j + 1]) &&
             items[j + 1].disp - items[j].disp == gap)
        ++j;
      ++j;
    }
    if (j - i >= 2) {
      Program unit = items[i].node ? Program{items[i].node, 0} : dense(items[i].dense_len);
      Program run = repeat(static_cast<int64_t>(j - i), gap, unit);
      out.push_back({items[i].disp, run.root, 0});
    } else {
      out.push_back(std::move(items[i]));
    }
    i = j;
  }

  if (out.empty()) return {};
  std::unordered_map<int64_t, std::shared_ptr<const Node>> dense_nodes;
  auto node_of = [&](const Item& it) -> std::shared_ptr<const Node> {
    if (it.node) return it.node;
    auto& slot = dense_nodes[it.dense_len];
    if (!slot) slot = blocks_node(1, 0, it.dense_len);
    return slot;
  };
  if (out.size() == 1) return {node_of(out[0]), out[0].disp};

  auto l = std::make_shared<Node>();
  l->kind = Node::Kind::kList;
  l->count = static_cast<int64_t>(out.size());
  l->entries.reserve(out.size());
  std::unordered_set<const Node*> owned;
  int64_t packed = 0;
  for (const Item& it : out) {
    std::shared_ptr<const Node> n = node_of(it);
    l->entries.push_back({it.disp, packed, n.get()});
    packed += n->size;
    l->depth = std::max(l->depth, 1 + n->depth);
    if (owned.insert(n.get()).second) l->owned.push_back(std::move(n));
  }
  l->size = packed;
  return {std::move(l), 0};
}

}  // namespace ftmpi::dtype::program

// Internal: the compiled layout of a datatype, as walked by the cursor.
//
// A Program is a small tree of immutable Nodes describing where the data bytes
// of one item lie, in type-map order, with every contiguous run already merged:
//   kBlocks  `count` runs of `len` bytes, run i at base + i*stride  (the leaves)
//   kRepeat  `count` copies of `child`, copy i at base + i*stride
//   kList    entries {disp, node}: heterogeneous parts (indexed, struct)
// Its size is proportional to the constructor calls, never to the number of
// blocks: vector(1M, 1, 2, MPI_DOUBLE) is one kBlocks node. Nodes are shared
// between the programs of a type and of the types built from it.
//
// Only bytes that carry data appear: LB/UB markers, zero counts and padding
// vanish at compile time, so every node has size > 0 and an empty program
// (root == nullptr) means "no data at all".
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace ftmpi::dtype {

struct Node;

struct ListEntry {
  int64_t disp = 0;           // where this part's origin lies, from the list's origin
  int64_t packed_before = 0;  // packed bytes of the entries before it (for seeking)
  const Node* node = nullptr;
};

struct Node {
  enum class Kind : uint8_t { kBlocks, kRepeat, kList };
  Kind kind = Kind::kBlocks;
  int depth = 1;       // cursor frames needed to walk one instance
  int64_t count = 0;   // runs, copies or list entries
  int64_t stride = 0;  // kBlocks, kRepeat
  int64_t len = 0;     // kBlocks: bytes per run
  int64_t size = 0;    // packed bytes of one instance
  const Node* child = nullptr;                      // kRepeat
  std::vector<ListEntry> entries;                   // kList
  std::vector<std::shared_ptr<const Node>> owned;  // keeps `child` / entry nodes alive

  bool dense() const { return kind == Kind::kBlocks && count == 1; }
};

struct Program {
  std::shared_ptr<const Node> root;  // nullptr: no data
  int64_t disp = 0;                  // root's origin relative to the item's origin

  bool empty() const { return root == nullptr; }
  int64_t size() const { return root ? root->size : 0; }
};

// One part of a list: either a program placed at `disp`, or (prog == nullptr)
// a dense run of `dense_len` bytes at `disp`, which needs no node of its own.
struct Placed {
  int64_t disp = 0;
  const Program* prog = nullptr;
  int64_t dense_len = 0;
};

namespace program {

Program dense(int64_t len);
// n copies of p, copy i at i*stride; merges into one kBlocks node when it can.
Program repeat(int64_t n, int64_t stride, const Program& p);
// Parts in order; coalesces adjacent dense runs and turns equally spaced
// equal parts into kBlocks / kRepeat nodes.
Program list(std::span<const Placed> parts);

// If n copies of `child` at `stride` form one kBlocks node, fill *out with it
// (a value, so the cursor can build its top level without allocating).
bool merge_repeat(int64_t n, int64_t stride, const Node& child, Node* out);

}  // namespace program
}  // namespace ftmpi::dtype

// Internal: the cursor's walking loop, a template over what is done with the
// bytes (copy out, copy in, describe as iovecs, reduce).
//
// A Visitor provides
//   bool    block(uintptr_t addr, int64_t len)    one run or part of a run;
//                                                 false: stop before it
//   int64_t runs(uintptr_t addr, int64_t stride, int64_t len, int64_t n)
//                                                 n whole runs, stride apart;
//                                                 returns how many it took
// The loop hands whole stretches of a kBlocks node to runs(), so a strided
// type costs one visitor call per node, not per element.
#pragma once
#include <algorithm>

#include "dtype/cursor.hpp"

namespace ftmpi::dtype {

template <class Visitor>
int64_t Cursor::walk(int64_t max_bytes, Visitor& v) {
  Frame* fr = frames();
  int64_t done = 0;
  while (done < max_bytes && depth_ > 0) {
    Frame& f = fr[depth_ - 1];
    const Node& n = *f.node;  // always kBlocks: the stack ends at a leaf
    const uintptr_t p = f.base + static_cast<uintptr_t>(f.idx * n.stride);
    const int64_t want = max_bytes - done;
    if (leaf_off_ != 0 || want < n.len) {
      const int64_t k = std::min(n.len - leaf_off_, want);
      if (!v.block(p + static_cast<uintptr_t>(leaf_off_), k)) break;
      done += k;
      leaf_off_ += k;
      if (leaf_off_ < n.len) break;
      leaf_off_ = 0;
      ++f.idx;
    } else {
      const int64_t runs = std::min(n.count - f.idx, want / n.len);
      const int64_t got = v.runs(p, n.stride, n.len, runs);
      f.idx += got;
      done += got * n.len;
      if (got < runs) break;
    }
    if (f.idx == n.count) next_leaf(fr);
  }
  pos_ += done;
  return done;
}

}  // namespace ftmpi::dtype

#include "coll/internal.hpp"

#include <cstring>
#include <vector>

namespace ftmpi::coll {
namespace {
// Tags of the internal collectives, below any algorithm's round numbers.
constexpr int kTagAllgatherBytes = 1 << 20;
constexpr int kTagBcastBytes = (1 << 20) + 1;
constexpr int kTagAllgatherBytesLog = (1 << 20) + 2;

const dtype::TypeRef& byte_type() {
  static const dtype::TypeRef t = dtype::builtin_ref(dtype::Builtin::kByte);
  return t;
}

// The members that take part: every rank but the blanks of BLANK mode. A
// blank acts as MPI_PROC_NULL, so an algorithm that relayed data through one
// would lose everything routed via it (spec/ft-collectives.md §4); these
// exchanges run over the live ranks only, as the user's collectives do.
struct Live {
  explicit Live(const comm::Communicator& c) {
    const comm::Group& g = c.group();
    for (int r = 0; r < g.size(); ++r)
      if (g.is_blank(r)) blanks = true;
    if (!blanks) {
      n = g.size();
      me = c.rank();
      return;
    }
    for (int r = 0; r < g.size(); ++r) {
      if (g.is_blank(r)) continue;
      if (r == c.rank()) me = static_cast<int>(ranks.size());
      ranks.push_back(r);
    }
    n = static_cast<int>(ranks.size());
  }
  // The communicator rank of live index i, and back (-1: a blank).
  int rank(int i) const { return blanks ? ranks[static_cast<size_t>(i)] : i; }
  int index(int r) const {
    if (!blanks) return r;
    for (int i = 0; i < n; ++i)
      if (ranks[static_cast<size_t>(i)] == r) return i;
    return -1;
  }
  bool blanks = false;
  std::vector<int> ranks;  // filled only when there are blanks
  int n = 0, me = 0;
};
}  // namespace

Err allgather_bytes(p2p::Engine& eng, comm::Communicator& c, const void* mine, size_t n, void* all) {
  const Live L(c);
  const int size = L.n, me = L.me;
  uint8_t* out = static_cast<uint8_t*>(all);
  if (n) std::memcpy(out + static_cast<size_t>(c.rank()) * n, mine, n);
  const int right = L.rank((me + 1) % size), left = L.rank((me - 1 + size) % size);
  for (int step = 0; step < size - 1; ++step) {
    // Forward the block received in the previous step (first our own).
    int send_block = L.rank((me - step + size) % size);
    int recv_block = L.rank((me - step - 1 + size) % size);
    p2p::Request* reqs[2] = {
        eng.irecv(out + static_cast<size_t>(recv_block) * n, n, byte_type(), c, c.coll_ctx(), left,
                  kTagAllgatherBytes),
        eng.isend(out + static_cast<size_t>(send_block) * n, n, byte_type(), c, c.coll_ctx(), right,
                  kTagAllgatherBytes),
    };
    if (Err e = eng.wait_all(reqs, 2, &c); !ok(e)) return e;
  }
  return Err::kOk;
}

Err allgather_bytes_log(p2p::Engine& eng, comm::Communicator& c, const void* mine, size_t n, void* all) {
  const Live L(c);
  const int size = L.n, me = L.me;
  uint8_t* out = static_cast<uint8_t*>(all);
  // Blocks in rotated order: tmp block i is live member (me + i) % size's.
  std::vector<uint8_t> tmp(static_cast<size_t>(size) * n);
  if (n) std::memcpy(tmp.data(), mine, n);
  for (int k = 1; k < size; k <<= 1) {
    // One message per source per call: (me + k) differs for every k < size,
    // so receives by source match the right round.
    const size_t blocks = static_cast<size_t>(k < size - k ? k : size - k);
    p2p::Request* reqs[2] = {
        eng.irecv(tmp.data() + static_cast<size_t>(k) * n, blocks * n, byte_type(), c, c.coll_ctx(),
                  L.rank((me + k) % size), kTagAllgatherBytesLog),
        eng.isend(tmp.data(), blocks * n, byte_type(), c, c.coll_ctx(), L.rank((me - k + size) % size),
                  kTagAllgatherBytesLog),
    };
    if (Err e = eng.wait_all(reqs, 2, &c); !ok(e)) return e;
  }
  for (int i = 0; i < size; ++i)
    if (n)
      std::memcpy(out + static_cast<size_t>(L.rank((me + i) % size)) * n, tmp.data() + static_cast<size_t>(i) * n,
                  n);
  return Err::kOk;
}

Err bcast_bytes(p2p::Engine& eng, comm::Communicator& c, void* buf, size_t n, int root) {
  const Live L(c);
  const int size = L.n, vroot = L.index(root);
  if (vroot < 0) return Err::kRoot;  // a blank has nothing to send: the caller must pick a live root
  const int vrank = (L.me - vroot + size) % size;  // root becomes 0
  int mask = 1;
  while (mask < size) {
    if (vrank & mask) {
      int src = L.rank((vrank - mask + vroot) % size);
      p2p::Request* r = eng.irecv(buf, n, byte_type(), c, c.coll_ctx(), src, kTagBcastBytes);
      if (Err e = eng.wait_all(&r, 1, &c); !ok(e)) return e;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vrank + mask < size) {
      int dst = L.rank((vrank + mask + vroot) % size);
      p2p::Request* s = eng.isend(buf, n, byte_type(), c, c.coll_ctx(), dst, kTagBcastBytes);
      if (Err e = eng.wait_all(&s, 1, &c); !ok(e)) return e;
    }
  }
  return Err::kOk;
}

}  // namespace ftmpi::coll

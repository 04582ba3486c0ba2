#include "coll/internal.hpp"

#include <cstring>
#include <vector>

#include "coll/tags.hpp"
#include "coll/team.hpp"

namespace ftmpi::coll {
namespace {

const dtype::TypeRef& byte_type() {
  static const dtype::TypeRef t = dtype::builtin_ref(dtype::Builtin::kByte);
  return t;
}
}  // namespace

Err allgather_bytes(p2p::Engine& eng, comm::Communicator& c, const void* mine, size_t n, void* all) {
  const Members team = Members::live(c);  // blanks take no part
  const int size = team.size(), me = team.me();
  uint8_t* out = static_cast<uint8_t*>(all);
  if (n) std::memcpy(out + static_cast<size_t>(c.rank()) * n, mine, n);
  const int right = team.rank_of((me + 1) % size), left = team.rank_of((me - 1 + size) % size);
  for (int step = 0; step < size - 1; ++step) {
    // Forward the block received in the previous step (first our own).
    int send_block = team.rank_of((me - step + size) % size);
    int recv_block = team.rank_of((me - step - 1 + size) % size);
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
  const Members team = Members::live(c);  // blanks take no part
  const int size = team.size(), me = team.me();
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
                  team.rank_of((me + k) % size), kTagAllgatherBytesLog),
        eng.isend(tmp.data(), blocks * n, byte_type(), c, c.coll_ctx(), team.rank_of((me - k + size) % size),
                  kTagAllgatherBytesLog),
    };
    if (Err e = eng.wait_all(reqs, 2, &c); !ok(e)) return e;
  }
  for (int i = 0; i < size; ++i)
    if (n)
      std::memcpy(out + static_cast<size_t>(team.rank_of((me + i) % size)) * n, tmp.data() + static_cast<size_t>(i) * n,
                  n);
  return Err::kOk;
}

Err bcast_bytes(p2p::Engine& eng, comm::Communicator& c, void* buf, size_t n, int root) {
  const Members team = Members::live(c);  // blanks take no part
  const int size = team.size(), vroot = team.index_of(root);
  if (vroot < 0) return Err::kRoot;  // a blank has nothing to send: the caller must pick a live root
  const int vrank = (team.me() - vroot + size) % size;  // root becomes 0
  int mask = 1;
  while (mask < size) {
    if (vrank & mask) {
      int src = team.rank_of((vrank - mask + vroot) % size);
      p2p::Request* r = eng.irecv(buf, n, byte_type(), c, c.coll_ctx(), src, kTagBcastBytes);
      if (Err e = eng.wait_all(&r, 1, &c); !ok(e)) return e;
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (vrank + mask < size) {
      int dst = team.rank_of((vrank + mask + vroot) % size);
      p2p::Request* s = eng.isend(buf, n, byte_type(), c, c.coll_ctx(), dst, kTagBcastBytes);
      if (Err e = eng.wait_all(&s, 1, &c); !ok(e)) return e;
    }
  }
  return Err::kOk;
}

}  // namespace ftmpi::coll

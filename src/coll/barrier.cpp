#include "coll/barrier.hpp"

namespace ftmpi::coll {

Err barrier(p2p::Engine& eng, comm::Communicator& c) {
  const int n = c.size(), me = c.rank();
  static const dtype::TypeRef kByte = dtype::builtin_ref(dtype::Builtin::kByte);
  for (int k = 1, round = 0; k < n; k <<= 1, ++round) {
    p2p::Request* reqs[2] = {
        eng.irecv(nullptr, 0, kByte, c, c.coll_ctx(), (me - k + n) % n, round),
        eng.isend(nullptr, 0, kByte, c, c.coll_ctx(), (me + k) % n, round),
    };
    if (Err e = eng.wait_all(reqs, 2); !ok(e)) return e;
  }
  return Err::kOk;
}

}  // namespace ftmpi::coll

#include "coll/barrier.hpp"

namespace ftmpi::coll {

Err barrier(p2p::Engine& eng, comm::Communicator& c) {
  const int n = c.size(), me = c.rank();
  static const dtype::TypeRef kByte = dtype::builtin_ref(dtype::Builtin::kByte);
  for (int k = 1, round = 0; k < n; k <<= 1, ++round) {
    p2p::Request* s = eng.alloc_request();
    p2p::Request* r = eng.alloc_request();
    for (p2p::Request* q : {s, r}) {
      q->data = p2p::TypedBuffer(nullptr, 0, kByte);
      q->comm = &c;
      q->tag = round;
      q->ctx = c.coll_ctx();
    }
    s->peer_rank = (me + k) % n;
    r->peer_rank = (me - k + n) % n;
    eng.start_recv(r);
    eng.start_send(s);
    eng.wait_until([&] { return s->complete && r->complete; });
    Err e = !ok(s->st_err) ? s->st_err : r->st_err;
    eng.release_request(s);
    eng.release_request(r);
    if (!ok(e)) return e;
  }
  return Err::kOk;
}

}  // namespace ftmpi::coll

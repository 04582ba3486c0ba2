// What the checkpoint module asks of the engine (spec/checkpoint-protocol.md):
// kept apart from the protocol files so that the transports can change
// under it.
#include "p2p/engine.hpp"

namespace ftmpi::p2p {

bool Engine::quiescent() {
  if (active_sends_ > abandoned_sends_ || !pending_peers_.empty() || !pushing_.empty() || !held_.empty()) return false;
  for (size_t s = 0; s < peers_.size(); ++s) {
    const Peer& p = peers_[s];
    if (p.awaiting_resend > 0) return false;
    if (p.via == Via::kTcp && tcp_.queued_bytes(static_cast<int32_t>(s)) > 0) return false;
  }
  bool busy = false;
  pool_.for_each_live([&](Request* r) {
    switch (r->proto) {
      case Proto::kIdle:
      case Proto::kPosted:
      case Proto::kDone: break;
      default: busy = true;
    }
  });
  return !busy;
}

}  // namespace ftmpi::p2p

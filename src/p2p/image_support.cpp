// What the checkpoint module asks of the engine (spec/checkpoint-protocol.md):
// kept apart from the protocol files so that the transports can change
// under it.
#include "p2p/engine.hpp"
#include "p2p/engine_state.hpp"

namespace ftmpi::p2p {

bool Engine::quiescent() {
  if (active_sends_ > abandoned_sends_ || !pending_peers_.empty() || !pushing_.empty() || !held_.empty()) return false;
  for (const Peer& p : peers_) {
    if (p.awaiting_resend > 0) return false;
    if (p.link && !p.link->tx->drained(p.addr)) return false;
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

// CONTROL frames: an upper layer's protocol messages (the collectives'
// agreement, src/coll/ft) carried beside the matching traffic. The engine
// knows nothing of what they mean: it moves bytes to a handler id.
//
// Rules that make them usable by an agreement protocol:
// - same per-pair FIFO as every other frame (same rings, same sockets, same
//   pending queue when a ring is full);
// - no matching, no epochs, no purges: a frame of an older epoch is still
//   delivered (a process may have to answer about a collective of the epoch
//   before a recovery finished elsewhere);
// - incarnations still count: a frame from a predecessor of the slot, or
//   meant for one, is dropped; one from a successor we have not installed
//   yet waits with the held match frames (recovery.cpp replays it);
// - frames from a process that died meanwhile are still delivered (the
//   handler decides whether it believes them);
// - delivery happens inside progress(), never inside send_control().
#include <cstring>

#include "base/log.hpp"
#include "p2p/engine_state.hpp"
#include "p2p/frames.hpp"

namespace ftmpi::p2p {

void Engine::set_control_handler(uint8_t id, ControlHandler* h) {
  if (id >= kControlIds) return;
  control_[id] = h;
  if (!h) return;
  std::vector<Unclaimed> waiting;
  waiting.swap(unclaimed_);
  for (Unclaimed& u : waiting) {
    if (u.id == id) h->on_control(u.from, u.data.data(), u.data.size());
    else unclaimed_.push_back(std::move(u));
  }
}

bool Engine::send_control(ProcId to, uint8_t id, const void* data, size_t len) {
  if (id >= kControlIds || len > max_control_) return false;
  if (to.slot < 0 || static_cast<size_t>(to.slot) >= peers_.size()) return false;
  Peer& p = peer(to.slot);
  if (!p.alive || p.inc != to.incarnation) return false;
  if (p.self) {
    const uint8_t* b = static_cast<const uint8_t*>(data);
    to_self_.push_back(Unclaimed{self_, id, std::vector<uint8_t>(b, b + len)});
    return true;
  }
  ControlHdr h{};
  h.type = MsgType::kControl;
  h.handler = id;
  h.src_inc = self_.incarnation;
  h.dst_inc = to.incarnation;
  h.len = static_cast<uint32_t>(len);
  std::vector<uint8_t> frame(sizeof h + len);
  std::memcpy(frame.data(), &h, sizeof h);
  if (len) std::memcpy(frame.data() + sizeof h, data, len);
  if (p.pending.empty() && try_send_raw(p, frame.data(), frame.size())) return true;
  if (p.pending.empty()) pending_peers_.push_back(to.slot);
  Pending q;
  q.raw = std::move(frame);
  p.pending.push_back(std::move(q));
  return true;
}

bool Engine::try_send_raw(Peer& p, const uint8_t* frame, size_t len) {
  return write_control(*p.link->tx, p.addr, frame, len);
}

void Engine::on_control(int32_t peer_slot, const uint8_t* hdr, size_t hlen, const uint8_t* payload, size_t plen) {
  ControlHdr h;
  std::memcpy(&h, hdr, sizeof h);
  if (h.len != plen || h.handler >= kControlIds) return;
  switch (guard(peer_slot, FrameStamp{FrameClass::kControl, h.dst_inc, h.src_inc, 0, false})) {
    case Verdict::kDrop:
      return;
    case Verdict::kHold:
      hold(peer_slot, h.src_inc > peer(peer_slot).inc, hdr, hlen, payload, plen);
      return;
    case Verdict::kAccept:
      break;
  }
  const ProcId from{peer_slot, h.src_inc};
  if (ControlHandler* c = control_[h.handler]) {
    c->on_control(from, payload, plen);
    return;
  }
  unclaimed_.push_back(Unclaimed{from, h.handler, std::vector<uint8_t>(payload, payload + plen)});
}

int Engine::deliver_self_control() {
  std::vector<Unclaimed> mine;
  mine.swap(to_self_);
  for (Unclaimed& u : mine) {
    if (ControlHandler* c = control_[u.id]) c->on_control(u.from, u.data.data(), u.data.size());
    else unclaimed_.push_back(std::move(u));
  }
  return static_cast<int>(mine.size());
}

void Engine::close_epoch() {
  if (closed_below_ > epoch_) return;  // already closed (a round that restarts)
  closed_below_ = epoch_ + 1;
  for (ControlHandler* c : control_)
    if (c) c->on_epoch_closed(epoch_);
}

void Engine::finalize_handlers() {
  for (ControlHandler* c : control_)
    if (c) c->on_finalize();
}

}  // namespace ftmpi::p2p

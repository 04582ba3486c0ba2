// The engine's private types: its peer table, the frames waiting for a
// transport, and the transports themselves. Only src/p2p includes this
// header; the layers above see engine.hpp, which names none of them, and so
// compile against no transport header (tools/check_layers.py checks it).
#pragma once
#include <deque>
#include <vector>

#include "p2p/engine.hpp"
#include "transport/shm_transport.hpp"
#include "transport/tcp_transport.hpp"

namespace ftmpi::p2p {

// epoll data tags of the set a blocked call sleeps on.
inline constexpr uint64_t kWaitCtrl = 1;      // the runtime client's socket
inline constexpr uint64_t kWaitTcp = 2;       // the TCP transport's own epoll fd
inline constexpr uint64_t kWaitDoorbell = 3;  // this rank's shm doorbell

// One transport and how the protocols use it: the protocol code asks these
// questions instead of asking which transport a peer is on.
struct Engine::Link {
  transport::Transport* tx = nullptr;
  uint64_t eager = 0;  // largest EAGER payload; larger messages go RTS
  uint64_t chunk = 0;  // largest DATA piece after a CTS
  bool cma = false;    // same host: an RTS offers the sender's memory for process_vm_readv
};

// The transports this process owns, and the sink they deliver frames to.
struct Engine::Links final : transport::Sink {
  explicit Links(Engine& e) : engine(e) {}
  void on_frame(int32_t peer_slot, const uint8_t* hdr, size_t hlen, const uint8_t* payload, size_t plen) override;
  void on_peer_lost(int32_t peer_slot) override;

  Engine& engine;
  transport::ShmTransport shm;
  transport::TcpTransport tcp;
  Link shm_link{&shm};
  Link tcp_link{&tcp};
};

struct Engine::Pending {
  Request* req = nullptr;  // an EAGER or RTS to (re)build; else ctl or raw
  CtlHdr ctl{};
  std::vector<uint8_t> raw;  // non-empty: a CONTROL frame, header then payload
  // Nothing from here on leaves: a send the module holds (release_held),
  // or (gate) a peer whose failure the module hides (peer_restarted).
  bool held = false;
  bool gate = false;
};

struct Engine::Peer {
  // How frames reach it: a transport and the transport's handle for the
  // peer. Null for this process itself (self) and for a slot no transport
  // was connected to yet (dead or still restarting when this process
  // started); a dead peer keeps its last link.
  const Link* link = nullptr;
  int addr = -1;
  bool self = false;
  uint32_t inc = 0;
  int32_t pid = 0;
  bool alive = true;
  bool down = false;        // its failure is hidden: waiting for the next incarnation
  uint64_t send_seq = 0;    // last channel sequence number sent to it
  int awaiting_resend = 0;  // stale RTSs of it, matched or not (resume_from)
  bool successor_held = false;  // frames of its next incarnation wait in held_
  std::deque<Pending> pending;  // frames waiting for ring space, in order
  size_t inject_hint = 0;       // where inject() looks first: after its last entry
};

struct Engine::Held {
  int32_t slot;
  std::vector<uint8_t> hdr;
  std::vector<uint8_t> payload;
};

struct Engine::Unclaimed {
  ProcId from;
  uint8_t id;
  std::vector<uint8_t> data;
};

inline Engine::Peer& Engine::peer(int32_t slot) { return peers_[static_cast<size_t>(slot)]; }

// Inline: every arriving frame asks.
inline Verdict Engine::guard(int32_t src_slot, const FrameStamp& f) const {
  GuardState g;
  g.self_inc = self_.incarnation;
  g.epoch = epoch_;
  g.discard_old_epochs = epoch_discard_;
  if (src_slot >= 0 && static_cast<size_t>(src_slot) < peers_.size()) {
    const Peer& p = peers_[static_cast<size_t>(src_slot)];
    g.sender_known = true;
    g.sender_inc = p.inc;
    g.sender_alive = p.alive;
    g.successor_held = p.successor_held;
  }
  return guard_frame(f, g);
}

// Inline: both receive paths (recv.cpp, direct.cpp) run it per message.
inline void Engine::ack_sync(const MatchHdr& h) {
  // A synchronous message of a dead incarnation (failure hidden by a module)
  // is acknowledged to its next one when that one sends it again
  // (rebind_duplicate): the dead one's request id means nothing there.
  if ((h.flags & kFlagSync) && (!module_ || h.src_inc == peer(h.src_slot).inc)) {
    CtlHdr ack{};
    ack.type = MsgType::kAck;
    ack.sreq = h.sreq;
    send_ctl(h.src_slot, ack);
  }
}

}  // namespace ftmpi::p2p

// Messages of the multi-host runtime (protocol version 3): liveness, the
// daemons' control tree, views and leader succession (spec/wire-control.md,
// "Tree, views and succession").
//
// The launcher is the arbiter of which hosts are alive: it alone declares a
// host lost and sends every live daemon a VIEW (term, leader, lost hosts);
// the daemons arrange themselves in a tree over the live hosts of the view
// (rte/daemon/topology.hpp). Frames for the leader travel up the tree inside
// UP; the leader's broadcasts travel down inside DOWN, numbered, and every
// daemon keeps them in its broadcast log, so that a daemon that reattaches
// to a new parent, or a new leader, can catch up.
#pragma once
#include <string>
#include <vector>

#include "rte/proto/messages_common.hpp"
#include "rte/proto/runtime_messages.hpp"

namespace ftmpi::rte::proto {

// Keeps a link's liveness clock running; carries nothing. Connection swallows it.
using Heartbeat = EmptyMsg<MsgType::kHeartbeat>;

// Daemon -> launcher: the link to `host` (a tree neighbour) went silent or broke.
struct HostSuspect {
  static constexpr MsgType kType = MsgType::kHostSuspect;
  int32_t host = 0;
  std::string why;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const HostSuspect&, const HostSuspect&) = default;
};

// Launcher -> every live daemon: the job's hosts as the launcher sees them.
// A new term follows every lost host; the leader is the lowest live host.
struct View {
  static constexpr MsgType kType = MsgType::kView;
  uint32_t term = 0;
  int32_t leader = 0;
  std::vector<int32_t> lost;  // hosts declared lost, ascending
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const View&, const View&) = default;
};

// Child -> parent: `frame` (a complete encoded frame) for the leader, from
// the daemon on host `origin`. Relayed unchanged up to the root.
struct Up {
  static constexpr MsgType kType = MsgType::kUp;
  int32_t origin = 0;
  std::vector<uint8_t> frame;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const Up&, const Up&) = default;
};

// Parent -> child: a leader broadcast. `bseq` numbers it in the job's
// broadcast log (1, 2, ...; 0: not logged, e.g. CHECK_PROC); `term` is the
// view term of the leader that made it. Child -> parent it is a log fill:
// an entry the parent lacks.
struct Down {
  static constexpr MsgType kType = MsgType::kDown;
  uint32_t term = 0;
  uint64_t bseq = 0;
  std::vector<uint8_t> frame;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const Down&, const Down&) = default;
};

// Parent -> child, answer to PEER_HELLO: the parent's log holds 1..last_bseq.
// Entries the child lacks follow as DOWN; the child sends up those the parent lacks.
struct PeerWelcome {
  static constexpr MsgType kType = MsgType::kPeerWelcome;
  uint64_t last_bseq = 0;
  void encode(Encoder& e) const { e.u64(last_bseq); }
  bool decode(Decoder& d) {
    last_bseq = d.u64();
    return d.ok();
  }
  friend bool operator==(const PeerWelcome&, const PeerWelcome&) = default;
};

// A daemon's local facts, sent to the leader (inside UP) after every view
// change: what a new leader needs to rebuild its gathers, and what the
// current one may have missed when frames died with a relaying daemon.
// Applying it twice changes nothing.
struct HostSync {
  static constexpr MsgType kType = MsgType::kHostSync;
  uint32_t term = 0;   // the view it answers
  uint32_t epoch = 0;  // the epoch this daemon installed last
  std::vector<Card> cards;      // carded local ranks that still run (respawns waiting to join too)
  std::vector<ProcId> fenced;   // local ranks in their finalize fence
  std::vector<ProcId> asked;    // local ranks waiting for the round after `epoch`
  std::vector<ProcExit> ended;  // local ranks (current incarnations) that ended
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const HostSync&, const HostSync&) = default;
};

}  // namespace ftmpi::rte::proto

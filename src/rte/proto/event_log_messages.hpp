// Transparent mode's runtime messages (protocol version 5; DESIGN §8,
// spec/wire-control.md "Transparent mode"): restarts without a round, the
// event logger's replication between daemons, the hand-over of a slot's
// determinants to the host it moved to, and replay reports.
//
// Every daemon is the event logger of its own ranks: it stores each slot's
// determinant batches (the primary copy) and, while the job has another live
// host, replicates them to its buddy (its parent in the control tree; the
// root's buddy is its first child) before it acknowledges them to the rank.
#pragma once
#include <string>
#include <vector>

#include "base/proc_id.hpp"
#include "rte/proto/card.hpp"
#include "rte/proto/messages_common.hpp"

namespace ftmpi::rte::proto {

// One determinant batch of one incarnation of a slot; (incarnation, batch)
// names it for ever, so copies can be merged and repeated without harm.
struct DetBatch {
  uint32_t incarnation = 0;
  uint64_t batch = 0;
  std::string data;
  friend bool operator==(const DetBatch&, const DetBatch&) = default;
};

// Buddy link (tree parent <-> child, either way): store these batches of
// `slot` as a replica. Answered by DET_REPL_ACK for the last one.
struct DetRepl {
  static constexpr MsgType kType = MsgType::kDetRepl;
  int32_t slot = 0;
  std::vector<DetBatch> batches;  // ascending (incarnation, batch)
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const DetRepl&, const DetRepl&) = default;
};

// Buddy link, answer: every batch of `slot` up to (incarnation, batch) that
// DET_REPL brought is stored.
struct DetReplAck {
  static constexpr MsgType kType = MsgType::kDetReplAck;
  int32_t slot = 0;
  uint32_t incarnation = 0;
  uint64_t batch = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const DetReplAck&, const DetReplAck&) = default;
};

// Up to the leader, then down to every daemon (not logged): the daemon on
// `to_host` runs `slot` now (its host was lost) and needs its determinants.
// `request` tells answers to different requests apart.
struct DetWant {
  static constexpr MsgType kType = MsgType::kDetWant;
  int32_t slot = 0;
  int32_t to_host = 0;
  uint32_t request = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const DetWant&, const DetWant&) = default;
};

// Answer to DET_WANT from every live daemon (up to the leader, down to all,
// not logged; only `to_host` keeps it): what `from_host` holds of `slot`,
// in pieces; `last` ends this daemon's answer (possibly with no batch).
struct DetHandover {
  static constexpr MsgType kType = MsgType::kDetHandover;
  int32_t slot = 0;
  int32_t to_host = 0;
  int32_t from_host = 0;
  uint32_t request = 0;
  bool last = true;
  std::vector<DetBatch> batches;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const DetHandover&, const DetHandover&) = default;
};

// Leader -> all (logged): transparent mode, slot card.id.slot lives again as
// card.id and can be reached at `card`; `table` is the job's current card
// table (by slot) that the new incarnation gets as its CARD_TABLE, and
// `last_event_seq` the last failure event that table shows: the new
// incarnation hears of every later one (its daemon may have applied some
// already when this reaches it: the leader's own daemon shares its state).
struct ProcRestartedDown {
  static constexpr MsgType kType = MsgType::kProcRestartedDown;
  Card card;
  std::vector<Card> table;
  uint64_t last_event_seq = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const ProcRestartedDown&, const ProcRestartedDown&) = default;
};

// A restarted incarnation's replay started or caught up (REPLAY_REPORT from
// the rank). Daemon -> leader inside UP (REPLAY_UP: the leader counts the slot
// as recovered, FTMPI_MAX_RESPAWN), leader -> launcher (REPLAY_NOTE).
template <MsgType T>
struct ReplayMsg {
  static constexpr MsgType kType = T;
  ProcId who;
  uint8_t phase = 1;  // 1 started, 2 caught up
  uint64_t determinants = 0;
  uint64_t messages = 0;
  uint64_t suppressed = 0;
  uint64_t wall_ns = 0;
  void encode(Encoder& e) const {
    put_proc(e, who);
    e.u8(phase);
    e.u64(determinants);
    e.u64(messages);
    e.u64(suppressed);
    e.u64(wall_ns);
  }
  bool decode(Decoder& d) {
    who = get_proc(d);
    phase = d.u8();
    determinants = d.u64();
    messages = d.u64();
    suppressed = d.u64();
    wall_ns = d.u64();
    return d.ok() && who.valid() && (phase == 1 || phase == 2);
  }
  friend bool operator==(const ReplayMsg&, const ReplayMsg&) = default;
};
using ReplayUp = ReplayMsg<MsgType::kReplayUp>;
using ReplayNote = ReplayMsg<MsgType::kReplayNote>;

}  // namespace ftmpi::rte::proto

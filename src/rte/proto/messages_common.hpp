// Pieces every message header uses: the message concept and bodiless messages.
// A message struct M has `static constexpr MsgType kType`, `encode(Encoder&)`
// and `decode(Decoder&)`; decode returns false on anything it cannot accept
// (the caller also insists that the payload is consumed exactly).
#pragma once
#include <vector>

#include "base/codec.hpp"
#include "base/proc_id.hpp"
#include "rte/proto/card.hpp"
#include "rte/proto/codec_util.hpp"
#include "rte/proto/wire.hpp"

namespace ftmpi::rte::proto {

template <MsgType T>
struct EmptyMsg {
  static constexpr MsgType kType = T;
  void encode(Encoder&) const {}
  bool decode(Decoder&) { return true; }
  friend bool operator==(const EmptyMsg&, const EmptyMsg&) = default;
};

// Payloads that several message types share; each type is its own struct
// (a frame of one type never parses as another).

template <MsgType T>
struct CardListMsg {  // CARD_TABLE, CARDS_UP, CARD_TABLE_DOWN
  static constexpr MsgType kType = T;
  std::vector<Card> cards;
  void encode(Encoder& e) const { put_cards(e, cards); }
  bool decode(Decoder& d) { return get_cards(d, cards); }
  friend bool operator==(const CardListMsg&, const CardListMsg&) = default;
};

template <MsgType T>
struct RecoveryMsg {  // RECOVER_DONE, RECOVER_DONE_DOWN
  static constexpr MsgType kType = T;
  RecoveryResult result;
  void encode(Encoder& e) const { put_recovery(e, result); }
  bool decode(Decoder& d) { return get_recovery(d, result); }
  friend bool operator==(const RecoveryMsg&, const RecoveryMsg&) = default;
};

template <MsgType T>
struct ProcMsg {  // SUSPECT, CHECK_PROC
  static constexpr MsgType kType = T;
  ProcId who;
  void encode(Encoder& e) const { put_proc(e, who); }
  bool decode(Decoder& d) {
    who = get_proc(d);
    return d.ok() && who.valid();
  }
  friend bool operator==(const ProcMsg&, const ProcMsg&) = default;
};

template <MsgType T>
struct ExitCodeMsg {  // JOB_ABORT, END_JOB
  static constexpr MsgType kType = T;
  int32_t exit_code = 1;
  void encode(Encoder& e) const { e.i32(exit_code); }
  bool decode(Decoder& d) {
    exit_code = d.i32();
    return d.ok();
  }
  friend bool operator==(const ExitCodeMsg&, const ExitCodeMsg&) = default;
};

}  // namespace ftmpi::rte::proto

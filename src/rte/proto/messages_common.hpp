// Pieces every message header uses: the message concept and bodiless messages.
// A message struct M has `static constexpr MsgType kType`, `encode(Encoder&)`
// and `decode(Decoder&)`; decode returns false on anything it cannot accept
// (the caller also insists that the payload is consumed exactly).
#pragma once
#include "base/codec.hpp"
#include "rte/proto/wire.hpp"

namespace ftmpi::rte::proto {

template <MsgType T>
struct EmptyMsg {
  static constexpr MsgType kType = T;
  void encode(Encoder&) const {}
  bool decode(Decoder&) { return true; }
  friend bool operator==(const EmptyMsg&, const EmptyMsg&) = default;
};

}  // namespace ftmpi::rte::proto

// Garbage collection after a checkpoint (transparent mode, issue 17;
// spec/checkpoint-protocol.md §5). Once a daemon holds the image of a
// checkpoint it tells the leader (CKPT_KEPT_UP); the leader marks the slot
// "collected" in the job state (a restart from the program's start is no
// longer correct for it) and tells every daemon (CKPT_KEPT_DOWN, a logged
// broadcast): each drops the slot's determinant batches the image no longer
// needs, primary copy and buddy replica alike, and the slot's own daemon
// passes the word to the rank (CKPT_KEPT), whose logging module then tells
// its senders what they may drop. A daemon told to restart a collected slot
// without an image to start from asks the leader to end the job
// (RESTART_REFUSED_UP).
#pragma once
#include <string>

#include "base/proc_id.hpp"
#include "rte/proto/messages_common.hpp"

namespace ftmpi::rte::proto {

// The checkpoint `number` of `who` is held; its image had consumed the
// incarnation's determinant batches up to `dets_acked` (and every earlier
// incarnation's).
template <MsgType T>
struct CkptKeptMsg {
  static constexpr MsgType kType = T;
  ProcId who;
  uint64_t number = 0;
  uint64_t dets_acked = 0;
  void encode(Encoder& e) const {
    put_proc(e, who);
    e.u64(number);
    e.u64(dets_acked);
  }
  bool decode(Decoder& d) {
    who = get_proc(d);
    number = d.u64();
    dets_acked = d.u64();
    return d.ok() && who.valid() && number > 0;
  }
  friend bool operator==(const CkptKeptMsg&, const CkptKeptMsg&) = default;
};
using CkptKeptUp = CkptKeptMsg<MsgType::kCkptKeptUp>;      // daemon -> leader (inside UP)
using CkptKeptDown = CkptKeptMsg<MsgType::kCkptKeptDown>;  // leader -> every daemon

// daemon -> rank: your checkpoint `number` is held; your senders may drop
// what its image accepted.
struct CkptKept {
  static constexpr MsgType kType = MsgType::kCkptKept;
  uint64_t number = 0;
  void encode(Encoder& e) const { e.u64(number); }
  bool decode(Decoder& d) {
    number = d.u64();
    return d.ok() && number > 0;
  }
  friend bool operator==(const CkptKept&, const CkptKept&) = default;
};

// daemon -> leader (inside UP): `who` must restart but cannot (why).
struct RestartRefusedUp {
  static constexpr MsgType kType = MsgType::kRestartRefusedUp;
  ProcId who;
  std::string why;
  void encode(Encoder& e) const {
    put_proc(e, who);
    e.str(why);
  }
  bool decode(Decoder& d) {
    who = get_proc(d);
    why = d.str(kMaxName);
    return d.ok() && who.valid() && !why.empty();
  }
  friend bool operator==(const RestartRefusedUp&, const RestartRefusedUp&) = default;
};

}  // namespace ftmpi::rte::proto

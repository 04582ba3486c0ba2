// Checkpoint messages (transparent mode, issue 17; spec/checkpoint-protocol.md):
// the launcher's scheduler orders a checkpoint of a slot, its daemon passes
// the order to the rank, the rank forks at its next safe point and reports
// the image, the daemon keeps the image and tells the launcher. Ranks also
// report their sender-log figures (the log-size trigger, bounded memory).
#pragma once
#include <string>
#include <vector>

#include "base/proc_id.hpp"
#include "rte/proto/messages_common.hpp"

namespace ftmpi::rte::proto {

// launcher -> the daemon of `slot`: checkpoint it (number `number`, counted
// by the launcher per slot from 1). `collect` (version 8): once the image is
// held, garbage collection follows (spec/checkpoint-protocol.md §5a).
struct CkptOrder {
  static constexpr MsgType kType = MsgType::kCkptOrder;
  int32_t slot = 0;
  uint64_t number = 0;
  uint8_t collect = 1;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const CkptOrder&, const CkptOrder&) = default;
};

// daemon -> rank: take checkpoint `number` at the next safe point.
struct CkptRequest {
  static constexpr MsgType kType = MsgType::kCkptRequest;
  uint64_t number = 0;
  void encode(Encoder& e) const { e.u64(number); }
  bool decode(Decoder& d) {
    number = d.u64();
    return d.ok() && number > 0;
  }
  friend bool operator==(const CkptRequest&, const CkptRequest&) = default;
};

// daemon -> rank: CKPT_DONE of checkpoint `number` is handled; everything
// the rank wrote to its output before the fork was read first (output once
// counts from there: spec/checkpoint-protocol.md §5).
struct CkptAck {
  static constexpr MsgType kType = MsgType::kCkptAck;
  uint64_t number = 0;
  void encode(Encoder& e) const { e.u64(number); }
  bool decode(Decoder& d) {
    number = d.u64();
    return d.ok() && number > 0;
  }
  friend bool operator==(const CkptAck&, const CkptAck&) = default;
};

// What a checkpoint captured (rank -> daemon as CKPT_DONE; daemon ->
// launcher inside CKPT_NOTE).
struct CkptFacts {
  uint64_t number = 0;
  uint8_t ok = 0;             // 0: no image (why says so)
  int32_t image_pid = 0;      // the frozen child (local store)
  uint64_t pause_ns = 0;      // the parent's pause: fork and report
  uint64_t resident = 0;      // resident bytes of the process at the fork
  uint64_t dets_acked = 0;    // the incarnation's determinant batches acknowledged at the fork
  uint64_t log_bytes = 0;     // sender-log payload bytes at the fork
  std::vector<uint64_t> received;  // per slot: highest sequence number accepted
  std::string why;
  friend bool operator==(const CkptFacts&, const CkptFacts&) = default;
};

struct CkptDone {
  static constexpr MsgType kType = MsgType::kCkptDone;
  CkptFacts facts;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const CkptDone&, const CkptDone&) = default;
};

// rank -> daemon, and (as LOG_NOTE with the rank's id) daemon -> launcher:
// the sender log now. `held_for[s]`: payload bytes logged for slot s.
struct LogFigures {
  uint64_t log_bytes = 0;
  uint64_t reclaimed = 0;  // bytes dropped by garbage collection so far
  uint64_t sent = 0;       // bytes sent / received since the last checkpoint
  uint64_t received = 0;
  std::vector<uint64_t> held_for;
  friend bool operator==(const LogFigures&, const LogFigures&) = default;
};

struct LogStats {
  static constexpr MsgType kType = MsgType::kLogStats;
  LogFigures figures;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const LogStats&, const LogStats&) = default;
};

// daemon -> launcher: a checkpoint of `who` ended (kept, or failed).
struct CkptNote {
  static constexpr MsgType kType = MsgType::kCkptNote;
  ProcId who;
  CkptFacts facts;
  uint64_t wall_ns = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const CkptNote&, const CkptNote&) = default;
};

struct LogNote {
  static constexpr MsgType kType = MsgType::kLogNote;
  ProcId who;
  LogFigures figures;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const LogNote&, const LogNote&) = default;
};

// daemon -> launcher: `who` (the slot's next incarnation) is the local image
// of checkpoint `number` of incarnation `image_of`, woken as process `pid`
// (sent right after its RANK_START). Its output continues the stream from
// where the imaged incarnation was at the fork.
struct CkptWoken {
  static constexpr MsgType kType = MsgType::kCkptWoken;
  ProcId who;
  ProcId image_of;
  uint64_t number = 0;
  int32_t pid = 0;
  uint64_t wake_ns = 0;  // from the death seen by the daemon to the image running
  uint64_t skipped = 0;  // messages the image had received: the replay needs none of them
  uint64_t wall_ns = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const CkptWoken&, const CkptWoken&) = default;
};

}  // namespace ftmpi::rte::proto

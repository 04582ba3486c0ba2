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
// held, garbage collection follows (spec/checkpoint-protocol.md §5b).
struct CkptOrder {
  static constexpr MsgType kType = MsgType::kCkptOrder;
  int32_t slot = 0;
  uint64_t number = 0;
  uint8_t collect = 1;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const CkptOrder&, const CkptOrder&) = default;
};

// daemon -> rank: take checkpoint `number` at the next safe point; with the
// buddy store, `buddy` is "ADDR:PORT" of the checkpoint server the image
// goes to (empty otherwise).
struct CkptRequest {
  static constexpr MsgType kType = MsgType::kCkptRequest;
  uint64_t number = 0;
  std::string buddy;
  void encode(Encoder& e) const {
    e.u64(number);
    e.str(buddy);
  }
  bool decode(Decoder& d) {
    number = d.u64();
    buddy = d.str(kMaxName);
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
  int32_t image_pid = 0;      // the frozen child (0 with the memory store: there is none)
  uint64_t pause_ns = 0;      // the parent's pause: the fork, or with the memory store the image's writing
  uint64_t resident = 0;      // resident bytes of the process at the fork
  uint64_t dets_acked = 0;    // the incarnation's determinant batches acknowledged at the fork
  uint64_t log_bytes = 0;     // sender-log payload bytes at the fork
  std::vector<uint64_t> received;  // per slot: highest sequence number accepted
  std::string why;
  // Filled by the daemon once the frozen copy stored the image elsewhere
  // (buddy, disk; spec/checkpoint-protocol.md §2a). A store that failed
  // leaves the local image (ok stays 1) and says why in store_error. With
  // the memory store the rank fills them itself (§2b): the image is stored
  // before CKPT_DONE, and a failed store is a checkpoint not taken.
  uint8_t store = kStoreLocal;
  uint64_t stored_bytes = 0;  // image stream length
  uint64_t store_ns = 0;      // from the fork to the store's confirmation
  std::string stored_at;      // buddy host name, or the image file
  std::string store_error;
  static constexpr uint8_t kStoreLocal = 0, kStoreBuddy = 1, kStoreDisk = 2, kStoreMemory = 3;
  friend bool operator==(const CkptFacts&, const CkptFacts&) = default;
};

// Where a transparent job's images go, as the launcher writes it into the
// job's environment (FTMPI_CKPT_STORE=buddy, =disk:/abs/dir, =memory:/dir;
// unset or anything else: the local store) and the daemons and ranks read it.
inline constexpr const char* kCkptStoreEnv = "FTMPI_CKPT_STORE";
struct StoreSetting {
  uint8_t kind = CkptFacts::kStoreLocal;
  std::string dir;  // disk and memory stores
};
StoreSetting parse_store_setting(const std::string& value);

struct CkptDone {
  static constexpr MsgType kType = MsgType::kCkptDone;
  CkptFacts facts;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const CkptDone&, const CkptDone&) = default;
};

// frozen copy -> its daemon, as one datagram on the daemon's abstract Unix
// socket `ckpt_store_socket_name(daemon pid)` (the copy holds no runtime
// channel): image `number` of `slot` is stored (`ok`) or not (`error`).
struct CkptStored {
  static constexpr MsgType kType = MsgType::kCkptStored;
  int32_t slot = 0;
  uint64_t number = 0;
  uint8_t store = CkptFacts::kStoreLocal;
  uint8_t ok = 0;
  uint64_t bytes = 0;     // stream length
  uint64_t ns = 0;        // transfer (capture, send, confirmation)
  std::string where;      // "ADDR:PORT" of the buddy, or the file
  std::string error;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const CkptStored&, const CkptStored&) = default;
};
inline std::string ckpt_store_socket_name(int daemon_pid) {
  return "ftmpi-ckpt-stored-" + std::to_string(daemon_pid);
}

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

// daemon -> launcher: checkpoint `number` of `who` is frozen, and everything
// the rank wrote before the fork was forwarded before this frame (output
// once: an image's output continues from here). Sent at CKPT_DONE; the
// CKPT_NOTE may come later (a buddy or disk store confirms first).
struct CkptTaken {
  static constexpr MsgType kType = MsgType::kCkptTaken;
  ProcId who;
  uint64_t number = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const CkptTaken&, const CkptTaken&) = default;
};

// daemon -> launcher: `who` (the slot's next incarnation) is the image of
// checkpoint `number`, running as process `pid` (sent right after its
// RANK_START): the local image of incarnation `image_of` woken (`store`
// local), or a restorer of the image held by the buddy or disk store
// (`image_of.incarnation` 0: the store does not say which incarnation took
// it). Its output continues the stream from where the imaged incarnation
// was at the fork.
struct CkptWoken {
  static constexpr MsgType kType = MsgType::kCkptWoken;
  ProcId who;
  ProcId image_of;
  uint64_t number = 0;
  int32_t pid = 0;
  uint64_t wake_ns = 0;  // from the death seen by the daemon to the image running
  uint64_t skipped = 0;  // messages the image had received: the replay needs none of them
  uint64_t wall_ns = 0;
  uint8_t store = CkptFacts::kStoreLocal;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const CkptWoken&, const CkptWoken&) = default;
};

}  // namespace ftmpi::rte::proto

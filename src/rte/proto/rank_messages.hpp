// Messages between a rank (rte::Client) and its daemon over the inherited
// socketpair. Order of a rank's life: HELLO -> BOOT, CARD -> CARD_TABLE (a
// respawned process: CARD -> RECOVER_DONE), then any number of RECOVER_REQ ->
// RECOVER_DONE, FENCE -> FENCE_DONE; PROC_FAILED and JOB_ABORT may arrive at
// any time after BOOT; ABORT and SUSPECT may be sent at any time after BOOT.
// Transparent mode: a restarted process's CARD is answered by CARD_TABLE at
// once; DET_LOG (answered by DET_ACK in order), DET_FETCH (answered by
// DET_DATA chunks) and REPLAY_REPORT may be sent after BOOT; PROC_RESTARTED
// arrives after the card exchange.
#pragma once
#include <string>
#include <vector>

#include "base/auth.hpp"
#include "base/proc_id.hpp"
#include "rte/proto/card.hpp"
#include "rte/proto/messages_common.hpp"
#include "rte/proto/modes.hpp"

namespace ftmpi::rte::proto {

struct RankHello {
  static constexpr MsgType kType = MsgType::kRankHello;
  uint16_t version = kProtocolVersion;
  int32_t pid = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const RankHello&, const RankHello&) = default;
};

struct CardMsg {
  static constexpr MsgType kType = MsgType::kCard;
  Card card;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const CardMsg&, const CardMsg&) = default;
};

using FenceEnter = EmptyMsg<MsgType::kFenceEnter>;

struct AbortRequest {
  static constexpr MsgType kType = MsgType::kAbortRequest;
  int32_t code = 1;
  std::string message;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const AbortRequest&, const AbortRequest&) = default;
};

using Suspect = ProcMsg<MsgType::kSuspect>;

// Asks for a recovery round (spec/ft-semantics.md §5 step 1).
struct RecoverReq {
  static constexpr MsgType kType = MsgType::kRecoverReq;
  uint64_t known_event_seq = 0;  // highest failure event the process has seen
  void encode(Encoder& e) const { e.u64(known_event_seq); }
  bool decode(Decoder& d) {
    known_event_seq = d.u64();
    return d.ok();
  }
  friend bool operator==(const RecoverReq&, const RecoverReq&) = default;
};

// A batch of determinants for the event logger (opaque to the runtime).
// `batch` numbers the incarnation's batches 1, 2, 3, ...
struct DetLog {
  static constexpr MsgType kType = MsgType::kDetLog;
  uint64_t batch = 0;
  std::string data;  // 1 .. kMaxDetBatch bytes
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const DetLog&, const DetLog&) = default;
};

// DET_LOG as one frame appended to `out`, straight from the caller's bytes:
// the same bytes as append_frame(out, DetLog{batch, data}) without the
// string copy (a process with wildcard receives logs a batch per send).
void append_det_log_frame(std::vector<uint8_t>& out, uint64_t batch, const void* data, size_t len);

using DetFetch = EmptyMsg<MsgType::kDetFetch>;

// Where a restarted process's replay is (for mpirun's line, the timeline and --summary).
struct ReplayReport {
  static constexpr MsgType kType = MsgType::kReplayReport;
  enum Phase : uint8_t { kStart = 1, kCaughtUp = 2 };
  uint8_t phase = kStart;
  uint64_t determinants = 0;  // start: fetched; caught up: replayed
  uint64_t messages = 0;      // start: 0; caught up: logged messages re-received
  uint64_t suppressed = 0;    // start: 0; caught up: own re-sends dropped as duplicates
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const ReplayReport&, const ReplayReport&) = default;
};

// Everything a rank learns at start-up. The fd numbers are valid in the rank
// because it inherited them from the daemon at the same numbers.
struct Boot {
  static constexpr MsgType kType = MsgType::kBoot;
  uint16_t version = kProtocolVersion;
  ProcId self;
  int32_t world_size = 1;
  int32_t host = 0;
  std::string hostname;
  std::vector<int32_t> local_slots;
  int32_t local_index = 0;
  int32_t shm_fd = -1;
  uint64_t shm_size = 0;
  std::vector<int32_t> doorbell_fds;  // one per local index
  int32_t det_fd = -1;                // transparent mode: the determinant staging area (det_stage.hpp)
  auth::Secret secret{};
  std::string tcp_bind_addr;
  uint32_t epoch = 0;
  bool restarted = false;
  Modes modes;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const Boot&, const Boot&) = default;
};

// All world_size cards indexed by slot (dead or absent slots: host == -1).
using CardTable = CardListMsg<MsgType::kCardTable>;

using FenceDone = EmptyMsg<MsgType::kFenceDone>;

struct ProcFailed {
  static constexpr MsgType kType = MsgType::kProcFailed;
  ProcId who;
  uint64_t event_seq = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const ProcFailed&, const ProcFailed&) = default;
};

using JobAbort = ExitCodeMsg<MsgType::kJobAbort>;

// The round this process asked for (or, respawned, joined with its CARD) is complete.
using RecoverDone = RecoveryMsg<MsgType::kRecoverDone>;

// Every batch up to and including `batch` is stored (and, with several
// hosts, replicated on another host).
struct DetAck {
  static constexpr MsgType kType = MsgType::kDetAck;
  uint64_t batch = 0;
  void encode(Encoder& e) const { e.u64(batch); }
  bool decode(Decoder& d) {
    batch = d.u64();
    return d.ok() && batch > 0;
  }
  friend bool operator==(const DetAck&, const DetAck&) = default;
};

// One piece of the answer to DET_FETCH: the slot's batches concatenated in
// order, cut at most every kMaxDetBatch bytes; `last` ends the answer.
struct DetData {
  static constexpr MsgType kType = MsgType::kDetData;
  bool last = true;
  std::string data;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const DetData&, const DetData&) = default;
};

// Transparent mode: slot card.id.slot lives again as card.id, reachable at `card`.
struct ProcRestarted {
  static constexpr MsgType kType = MsgType::kProcRestarted;
  Card card;
  void encode(Encoder& e) const { put_card(e, card); }
  bool decode(Decoder& d) {
    card = get_card(d);
    return d.ok() && card.id.valid() && card.host >= 0;
  }
  friend bool operator==(const ProcRestarted&, const ProcRestarted&) = default;
};

}  // namespace ftmpi::rte::proto

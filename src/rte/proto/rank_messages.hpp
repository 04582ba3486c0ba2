// Messages between a rank (rte::Client) and its daemon over the inherited
// socketpair. Order of a rank's life: HELLO -> BOOT, CARD -> CARD_TABLE (a
// respawned process: CARD -> RECOVER_DONE), then any number of RECOVER_REQ ->
// RECOVER_DONE, FENCE -> FENCE_DONE; PROC_FAILED and JOB_ABORT may arrive at
// any time after BOOT; ABORT and SUSPECT may be sent at any time after BOOT.
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

}  // namespace ftmpi::rte::proto

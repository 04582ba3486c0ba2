// Messages between runtime processes over authenticated TCP: daemon <->
// launcher and daemon <-> leader daemon (spec/wire-control.md has the
// sequence diagrams). The leader is the one daemon that sequences job events;
// the other daemons send it their ranks' cards, fences, exits and aborts and
// apply what it broadcasts.
#pragma once
#include <string>
#include <vector>

#include "base/proc_id.hpp"
#include "rte/proto/card.hpp"
#include "rte/proto/messages_common.hpp"
#include "rte/proto/modes.hpp"

namespace ftmpi::rte::proto {

// How a process ended.
struct ExitInfo {
  enum How : uint8_t { kExited = 0, kSignaled = 1, kLost = 2 /* its daemon vanished */ };
  uint8_t how = kExited;
  int32_t value = 0;  // exit status, or signal number
  friend bool operator==(const ExitInfo&, const ExitInfo&) = default;
};

// Why a daemon considers an ended rank's exit normal or not.
enum class EndKind : uint8_t {
  kNormal = 0,      // after its fence, or a program that never joined and exited 0
  kFailure = 1,     // before its fence: the job must hear about it
  kTerminated = 2,  // the runtime was ending the job and killed it
};

// A death sequenced by the leader; every survivor sees these in seq order.
struct ProcFailure {
  uint64_t seq = 0;
  ProcId who;
  int32_t host = -1;
  int32_t pid = 0;
  ExitInfo exit;
  friend bool operator==(const ProcFailure&, const ProcFailure&) = default;
};

// ---- daemon -> launcher ----

struct DaemonHello {
  static constexpr MsgType kType = MsgType::kDaemonHello;
  uint16_t version = kProtocolVersion;
  int32_t host = 0;
  int32_t pid = 0;
  uint16_t peer_port = 0;  // where this daemon accepts other daemons
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const DaemonHello&, const DaemonHello&) = default;
};

struct Io {
  static constexpr MsgType kType = MsgType::kIo;
  enum Stream : uint8_t { kStdout = 1, kStderr = 2 };
  int32_t slot = 0;
  uint8_t stream = kStdout;
  std::string data;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const Io&, const Io&) = default;
};

struct IoEof {
  static constexpr MsgType kType = MsgType::kIoEof;
  int32_t slot = 0;
  uint8_t stream = Io::kStdout;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const IoEof&, const IoEof&) = default;
};

// How a rank ended: daemon -> launcher (RANK_EXIT) and daemon -> leader (PROC_EXIT).
template <MsgType T>
struct ProcEndMsg {
  static constexpr MsgType kType = T;
  ProcId who;
  int32_t pid = 0;
  ExitInfo exit;
  EndKind end = EndKind::kNormal;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const ProcEndMsg&, const ProcEndMsg&) = default;
};
using RankExit = ProcEndMsg<MsgType::kRankExit>;
using ProcExit = ProcEndMsg<MsgType::kProcExit>;

// The daemon wrote this many stdin bytes to rank 0; the launcher may send more.
struct StdinCredit {
  static constexpr MsgType kType = MsgType::kStdinCredit;
  uint32_t bytes = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const StdinCredit&, const StdinCredit&) = default;
};

using DaemonDone = EmptyMsg<MsgType::kDaemonDone>;

struct FailureReport {
  static constexpr MsgType kType = MsgType::kFailureReport;
  ProcFailure failure;
  bool job_continues = false;  // FT modes: survivors were notified
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const FailureReport&, const FailureReport&) = default;
};

struct AbortReport {
  static constexpr MsgType kType = MsgType::kAbortReport;
  ProcId who;
  int32_t host = -1;
  int32_t pid = 0;
  int32_t code = 1;
  std::string message;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const AbortReport&, const AbortReport&) = default;
};

// ---- launcher -> daemon ----

struct HostEntry {
  std::string name;        // as the user wrote it
  std::string addr;        // IPv4 address daemon and ranks of this host bind
  uint16_t peer_port = 0;  // daemon's listening port (filled from DaemonHello)
  std::vector<int32_t> slots;  // slots placed on this host, ascending
  friend bool operator==(const HostEntry&, const HostEntry&) = default;
};

struct JobStart {
  static constexpr MsgType kType = MsgType::kJobStart;
  int32_t world_size = 1;
  Modes modes;
  int32_t leader = 0;  // host index of the leader daemon
  std::vector<HostEntry> hosts;
  std::string program;
  std::vector<std::string> args;
  std::string cwd;
  uint64_t shm_size = 0;  // 0: the daemon's default formula
  uint32_t grace_ms = 1000;
  int32_t stdin_slot = 0;  // -1: nobody reads stdin
  uint32_t epoch = 0;
  void encode(Encoder& e) const;
  // Also checks that the slots of all hosts are exactly 0..world_size-1.
  bool decode(Decoder& d);
  friend bool operator==(const JobStart&, const JobStart&) = default;
};

struct Stdin {
  static constexpr MsgType kType = MsgType::kStdin;
  std::string data;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const Stdin&, const Stdin&) = default;
};

using StdinEof = EmptyMsg<MsgType::kStdinEof>;

struct Terminate {
  static constexpr MsgType kType = MsgType::kTerminate;
  int32_t exit_code = 143;  // what ranks are told (JOB_ABORT)
  bool immediate = false;   // SIGKILL now instead of SIGTERM + grace
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const Terminate&, const Terminate&) = default;
};

using Shutdown = EmptyMsg<MsgType::kShutdown>;

// ---- daemon <-> daemon ----

struct PeerHello {
  static constexpr MsgType kType = MsgType::kPeerHello;
  uint16_t version = kProtocolVersion;
  int32_t host = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const PeerHello&, const PeerHello&) = default;
};

using CardsUp = CardListMsg<MsgType::kCardsUp>;

struct FenceUp {
  static constexpr MsgType kType = MsgType::kFenceUp;
  std::vector<ProcId> procs;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const FenceUp&, const FenceUp&) = default;
};

struct AbortUp {
  static constexpr MsgType kType = MsgType::kAbortUp;
  ProcId who;
  int32_t pid = 0;
  int32_t code = 1;
  std::string message;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const AbortUp&, const AbortUp&) = default;
};

struct SuspectUp {
  static constexpr MsgType kType = MsgType::kSuspectUp;
  ProcId reporter;
  ProcId suspect;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const SuspectUp&, const SuspectUp&) = default;
};

using CardTableDown = CardListMsg<MsgType::kCardTableDown>;

using FenceDown = EmptyMsg<MsgType::kFenceDown>;

struct EventDown {
  static constexpr MsgType kType = MsgType::kEventDown;
  enum Kind : uint8_t { kProcFailed = 1 };
  uint8_t kind = kProcFailed;
  ProcFailure failure;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const EventDown&, const EventDown&) = default;
};

using EndJob = ExitCodeMsg<MsgType::kEndJob>;

// Leader -> the daemon hosting `who`: a peer suspects it; check it now.
using CheckProc = ProcMsg<MsgType::kCheckProc>;

}  // namespace ftmpi::rte::proto

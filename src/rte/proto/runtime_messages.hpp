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
  std::string addr;        // its address on the job network: daemons and its ranks bind it
  uint16_t ckpt_port = 0;  // its buddy checkpoint server (0: none)
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
  bool started = false;  // it said HELLO (a respawn that never did failed to start)
  bool in_fence = false;  // it had entered its MPI_Finalize fence (not released yet)
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

// A rank process was started (first start or respawn); wall_ns: CLOCK_REALTIME.
struct RankStart {
  static constexpr MsgType kType = MsgType::kRankStart;
  ProcId who;
  int32_t pid = 0;
  uint64_t wall_ns = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const RankStart&, const RankStart&) = default;
};

// Timeline points only a daemon sees; sent when JOB_START asked for traces.
struct Trace {
  static constexpr MsgType kType = MsgType::kTrace;
  enum Kind : uint8_t {
    kDetected = 1,  // a rank was reaped before its fence: who, pid
    kNotified = 2,  // PROC_FAILED seq about `who` went to `count` local ranks
    kReleased = 3,  // RECOVER_DONE (up to event seq) went to `count` local ranks
  };
  uint8_t kind = kDetected;
  ProcId who;  // slot -1 for kReleased
  int32_t pid = 0;
  uint64_t seq = 0;
  uint32_t count = 0;
  uint64_t wall_ns = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const Trace&, const Trace&) = default;
};

// Answer to INJECT_KILL: what the daemon did.
struct InjectResult {
  static constexpr MsgType kType = MsgType::kInjectResult;
  uint32_t request_id = 0;
  bool ok = false;
  ProcId who;  // slot -1: the daemon itself
  int32_t pid = 0;
  std::string message;  // why not, when !ok
  uint64_t wall_ns = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const InjectResult&, const InjectResult&) = default;
};

struct FailureReport {
  static constexpr MsgType kType = MsgType::kFailureReport;
  // What the leader does about the failed slot.
  enum Next : uint8_t { kNoRestart = 0, kRestart = 1, kFinished = 2 /* its program had finished */ };
  ProcFailure failure;
  bool job_continues = false;  // FT modes: survivors were notified
  uint64_t wall_ns = 0;        // when the leader sequenced it (CLOCK_REALTIME)
  uint8_t next = kNoRestart;
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

// Leader only: every live rank has its card (MPI_Init done everywhere).
struct InitReport {
  static constexpr MsgType kType = MsgType::kInitReport;
  uint64_t wall_ns = 0;
  void encode(Encoder& e) const { e.u64(wall_ns); }
  bool decode(Decoder& d) {
    wall_ns = d.u64();
    return d.ok();
  }
  friend bool operator==(const InitReport&, const InitReport&) = default;
};

// Leader only: a recovery round began or completed.
struct RecoveryReport {
  static constexpr MsgType kType = MsgType::kRecoveryReport;
  enum Kind : uint8_t { kBegin = 1, kDone = 2 };
  uint8_t kind = kBegin;
  uint32_t epoch = 0;  // begin: the epoch the round will install; done: installed
  uint32_t alive = 0;  // live processes (done)
  std::vector<ProcId> failed;     // the episode's failures known so far
  std::vector<ProcId> respawned;  // done: processes that joined through this round
  uint64_t last_event_seq = 0;
  uint64_t duration_ns = 0;  // done: since the round began
  uint64_t wall_ns = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const RecoveryReport&, const RecoveryReport&) = default;
};

// Leader only: the job cannot go on (all dead, respawn impossible); it is ending.
struct JobFailedReport {
  static constexpr MsgType kType = MsgType::kJobFailedReport;
  int32_t exit_code = 1;
  std::string message;  // one line, without the "ftmpirun: " prefix
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const JobFailedReport&, const JobFailedReport&) = default;
};

// ---- launcher -> daemon ----

struct HostEntry {
  std::string name;        // as the user wrote it
  std::string addr;        // IPv4 address daemon and ranks of this host bind
  uint16_t peer_port = 0;  // daemon's listening port (filled from DaemonHello)
  std::vector<int32_t> slots;  // slots placed on this host, ascending
  uint16_t ckpt_port = 0;      // its daemon's buddy checkpoint server (0: none)
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
  uint32_t max_respawn = 10;  // FTMPI_MAX_RESPAWN: failures of a slot without completing a round
  bool trace = false;         // daemons send TRACE frames (--timeline)
  uint32_t heartbeat_ms = 200;           // every runtime link carries a frame at least this often
  uint32_t heartbeat_timeout_ms = 800;   // a link silent this long means the peer host is lost
  uint32_t tree_fanout = 4;              // children per daemon in the control tree (>= 1)
  std::vector<std::string> env;          // "NAME=value" for the ranks (FTMPI_* and -x)
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

// Fault injection: the daemon owning `slot` sends it `signal`; slot -1: the
// daemon SIGKILLs all its ranks and then itself (the loss of a host).
struct InjectKill {
  static constexpr MsgType kType = MsgType::kInjectKill;
  uint32_t request_id = 0;
  int32_t slot = -1;
  int32_t signal = 9;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const InjectKill&, const InjectKill&) = default;
};

// ---- control client (ftmpirun --kill) <-> launcher ----

// The ranks to kill at once (at least one; the launcher checks range and
// duplicates, so that it can say what is wrong).
struct KillRequest {
  static constexpr MsgType kType = MsgType::kKillRequest;
  std::vector<int32_t> slots;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const KillRequest&, const KillRequest&) = default;
};

// One per slot of the request, or a single one (ok=0) for a request refused
// as a whole; the launcher closes after the last.
struct KillReply {
  static constexpr MsgType kType = MsgType::kKillReply;
  bool ok = false;
  std::string message;  // one line for the user
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const KillReply&, const KillReply&) = default;
};

// ---- daemon <-> daemon ----

// Child -> parent in the control tree, first frame after the handshake.
struct PeerHello {
  static constexpr MsgType kType = MsgType::kPeerHello;
  uint16_t version = kProtocolVersion;
  int32_t host = 0;
  uint32_t term = 0;       // the view the child computed its parent from
  uint64_t last_bseq = 0;  // the child's broadcast log holds entries 1..last_bseq
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const PeerHello&, const PeerHello&) = default;
};

using CardsUp = CardListMsg<MsgType::kCardsUp>;

template <MsgType T>
struct ProcListMsg {  // FENCE_UP, RECOVER_UP
  static constexpr MsgType kType = T;
  std::vector<ProcId> procs;
  void encode(Encoder& e) const { put_procs(e, procs); }
  bool decode(Decoder& d) { return get_procs(d, procs); }
  friend bool operator==(const ProcListMsg&, const ProcListMsg&) = default;
};
using FenceUp = ProcListMsg<MsgType::kFenceUp>;
// Local ranks that asked for a recovery round, sent once every local rank
// the round waits for has asked (like CARDS_UP for the card exchange).
using RecoverUp = ProcListMsg<MsgType::kRecoverUp>;

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

// Leader -> all: slot who.slot lives on as incarnation who.incarnation on
// `host`, whose daemon starts it (REBUILD). Every daemon updates its JobState.
struct Respawn {
  static constexpr MsgType kType = MsgType::kRespawn;
  ProcId who;
  int32_t host = 0;
  void encode(Encoder& e) const;
  bool decode(Decoder& d);
  friend bool operator==(const Respawn&, const Respawn&) = default;
};

// Leader -> all: the recovery round is complete; daemons pass it to the ranks
// that asked (RECOVER_DONE) and to the respawned ranks that joined.
using RecoverDoneDown = RecoveryMsg<MsgType::kRecoverDoneDown>;

}  // namespace ftmpi::rte::proto

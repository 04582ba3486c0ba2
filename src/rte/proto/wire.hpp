// Control protocol framing and message catalogue (spec/wire-control.md).
//
// Every frame on every control stream (rank<->daemon socketpair, daemon<->launcher
// and daemon<->daemon TCP) is
//     u32 length | u16 type | payload            (little-endian)
// where `length` counts the bytes after itself (2 + payload). A frame whose
// length is below 2 or above kMaxFrame is malformed: the receiver logs it and
// closes that connection. Types are grouped by link so a frame arriving on the
// wrong kind of link is recognised as a protocol error.
//
// Version history (kProtocolVersion, carried in the three HELLO messages):
//   1  first version: boot, card exchange, fence, abort, failure notices (abort
//      and notify-only FT modes), I/O forwarding, termination.
//   2  recovery rounds (RECOVER_REQ/RECOVER_DONE), respawn, fault injection,
//      timeline traces; PROC_EXIT/RANK_EXIT say whether the process started.
//   3  multi-host: heartbeats, daemons in a tree (UP/DOWN routing, the
//      leader's broadcast log, PEER_WELCOME), views and leader succession
//      (VIEW, HOST_SUSPECT, HOST_SYNC), DAEMON_HELLO.addr, JOB_START's
//      heartbeat, tree and environment fields.
//   4  PROC_EXIT/RANK_EXIT.in_fence.
//   5  transparent mode: Modes.transparent, restart without a round
//      (PROC_RESTARTED), the event logger (DET_LOG/DET_ACK/DET_FETCH/DET_DATA
//      and the daemons' replication), replay reports.
//   6  checkpoints (transparent mode): CKPT_ORDER, CKPT_REQ, CKPT_DONE,
//      CKPT_NOTE, LOG_STATS, LOG_NOTE.
//   7  checkpoint stores and restart from an image: CKPT_ACK, CKPT_WOKEN (and
//      the wake message on an image's own socket, proto/wake.hpp);
//      DAEMON_HELLO/JOB_START host ckpt_port, CKPT_REQ.buddy, CkptFacts store
//      fields, CKPT_STORED.
//   8  CKPT_TAKEN (the output position of a checkpoint, apart from its
//      CKPT_NOTE, which waits for a buddy or disk store); CKPT_WOKEN.store
//      (a slot's next incarnation restored from a stored image too).
//   9  PROC_RESTARTED_DOWN.last_event_seq (the failures the new
//      incarnation's table already shows).
//  10  garbage collection after a checkpoint: CKPT_KEPT_UP, CKPT_KEPT_DOWN,
//      CKPT_KEPT, RESTART_REFUSED_UP, CKPT_ORDER.collect.
//  11  the memory store: CkptFacts.store 3, a taken checkpoint without a
//      frozen child (image_pid 0), its store facts in CKPT_DONE.
//  12  KILL_REQUEST names a list of ranks, killed at once; one KILL_REPLY
//      per rank.
//  13  the logging modules' COLLECT frame carries the image's sent count
//      (receivers drop the checksums of those messages); the runtime's
//      version keeps modules of both kinds from meeting.
//  14  FAILURE_REPORT says what the leader does about the slot (restart,
//      none, none because its program had finished).
#pragma once
#include <cstdint>

namespace ftmpi::rte::proto {

inline constexpr uint16_t kProtocolVersion = 15;
inline constexpr uint32_t kFrameHeader = 6;             // u32 length + u16 type
inline constexpr uint32_t kMaxFrame = 16u << 20;        // bound on `length`
inline constexpr uint32_t kIoChunk = 64u << 10;         // largest forwarded output piece
inline constexpr uint32_t kMaxDetBatch = 1u << 20;      // largest determinant batch (DET_LOG, DET_DATA piece)

enum class MsgType : uint16_t {
  // any runtime link between two runtime processes (daemon/launcher TCP)
  kHeartbeat = 0x0001,
  // rank -> daemon (socketpair)
  kRankHello = 0x0101,
  kCard = 0x0102,
  kFenceEnter = 0x0103,
  kAbortRequest = 0x0104,
  kSuspect = 0x0105,
  kRecoverReq = 0x0106,
  kDetLog = 0x0107,        // transparent mode: a determinant batch for the event logger
  kDetFetch = 0x0108,      // transparent mode: every stored batch of my slot, please
  kReplayReport = 0x0109,  // transparent mode: replay started / caught up
  kCkptDone = 0x010a,      // checkpoints: the image is frozen (or could not be taken)
  kLogStats = 0x010b,      // checkpoints: the sender log's figures
  kCkptStored = 0x010f,    // checkpoints: a frozen copy stored its image (datagram to the daemon)
  // daemon -> rank
  kBoot = 0x0181,
  kCardTable = 0x0182,
  kFenceDone = 0x0183,
  kProcFailed = 0x0184,
  kJobAbort = 0x0185,
  kRecoverDone = 0x0186,
  kDetAck = 0x0187,         // batches up to this one are stored (and replicated)
  kDetData = 0x0188,        // answer to DET_FETCH, in chunks
  kProcRestarted = 0x0189,  // transparent mode: a slot's next incarnation has booted
  kCkptRequest = 0x018a,    // checkpoints: take one at the next safe point
  kCkptAck = 0x018b,        // checkpoints: CKPT_DONE handled, output before the fork drained
  kCkptKept = 0x018c,       // checkpoints: the runtime holds that image (garbage collection may start)
  // daemon -> launcher (TCP); the last two only from the leader daemon
  kDaemonHello = 0x0201,
  kIo = 0x0202,
  kIoEof = 0x0203,
  kRankExit = 0x0204,
  kStdinCredit = 0x0205,
  kDaemonDone = 0x0206,
  kRankStart = 0x0207,
  kTrace = 0x0208,
  kInjectResult = 0x0209,
  kFailureReport = 0x0210,
  kAbortReport = 0x0211,
  kInitReport = 0x0212,
  kRecoveryReport = 0x0213,
  kJobFailedReport = 0x0214,
  kHostSuspect = 0x0215,
  kReplayNote = 0x0216,  // leader only: a restarted rank's replay started / caught up
  kCkptNote = 0x0217,    // a checkpoint of a local rank ended
  kLogNote = 0x0218,     // a local rank's sender-log figures
  kCkptWoken = 0x0219,   // a slot's next incarnation is its woken or restored image
  kCkptTaken = 0x021a,   // a local rank's image is frozen; its output up to the fork came first
  // launcher -> daemon
  kJobStart = 0x0281,
  kStdin = 0x0282,
  kStdinEof = 0x0283,
  kTerminate = 0x0284,
  kShutdown = 0x0285,
  kInjectKill = 0x0286,
  kView = 0x0287,
  kCkptOrder = 0x0288,  // checkpoint this slot
  // control client (ftmpirun --kill) <-> launcher (TCP)
  kKillRequest = 0x0290,
  kKillReply = 0x0291,
  // daemon -> leader daemon (TCP, or a direct call inside the leader)
  kPeerHello = 0x0301,
  kCardsUp = 0x0302,
  kFenceUp = 0x0303,
  kProcExit = 0x0304,
  kAbortUp = 0x0305,
  kSuspectUp = 0x0306,
  kRecoverUp = 0x0307,
  kUp = 0x0308,        // child -> parent: a frame for the leader, relayed
  kHostSync = 0x0309,  // (inside UP) a daemon's local facts for the leader
  // transparent mode (rte/proto/event_log_messages.hpp)
  kDetRepl = 0x030a,     // buddy link: replicate determinant batches
  kDetReplAck = 0x030b,  // buddy link: ...stored
  kDetWant = 0x030c,     // up to the leader, down to all: a moved slot's determinants, please
  kDetHandover = 0x030d, // up to the leader, down to all: ...here is what I hold
  kReplayUp = 0x030e,    // (inside UP) a restarted rank's replay report
  kCkptKeptUp = 0x030f,       // (inside UP) a daemon holds a rank's checkpoint image
  kRestartRefusedUp = 0x0310, // (inside UP) a collected slot has no image to restart from
  // leader daemon -> every daemon
  kCardTableDown = 0x0381,
  kFenceDown = 0x0382,
  kEventDown = 0x0383,
  kEndJob = 0x0384,
  kCheckProc = 0x0385,
  kRespawn = 0x0386,
  kRecoverDoneDown = 0x0387,
  kDown = 0x0388,         // parent -> child: a leader broadcast (child -> parent: log fill)
  kPeerWelcome = 0x0389,  // parent -> child: answer to PEER_HELLO
  kProcRestartedDown = 0x038a,  // transparent mode: a slot's next incarnation joined
  kCkptKeptDown = 0x038b,       // checkpoints: a slot's image is held; drop what it no longer needs
};

const char* msg_name(uint16_t type);

}  // namespace ftmpi::rte::proto

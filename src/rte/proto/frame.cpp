#include "rte/proto/frame.hpp"

#include <cstddef>
#include <cstdio>

namespace ftmpi::rte::proto {

void FrameReader::feed(const uint8_t* p, size_t n) {
  if (failed_) return;
  // Compact lazily: only when the consumed prefix dominates the buffer.
  if (off_ > 0 && off_ * 2 >= buf_.size()) {
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<ptrdiff_t>(off_));
    off_ = 0;
  }
  buf_.insert(buf_.end(), p, p + n);
}

bool FrameReader::has_frame() const {
  if (failed_) return true;
  const size_t have = buf_.size() - off_;
  if (have < 4) return false;
  Decoder hdr(buf_.data() + off_, 4);
  const uint32_t len = hdr.u32();
  return bad_length(len) || have - 4 >= len;
}

FrameReader::Next FrameReader::next(Frame& out) {
  if (failed_) return Next::kBad;
  size_t have = buf_.size() - off_;
  if (have < 4) return Next::kNeedMore;
  Decoder hdr(buf_.data() + off_, 4);
  uint32_t len = hdr.u32();
  if (bad_length(len)) {
    failed_ = true;
    char msg[96];
    std::snprintf(msg, sizeof msg, "frame length %u outside [2, %u]", len, max_);
    error_ = msg;
    return Next::kBad;
  }
  if (have - 4 < len) return Next::kNeedMore;
  const uint8_t* p = buf_.data() + off_ + 4;
  out.type = static_cast<uint16_t>(p[0] | (p[1] << 8));
  out.payload.assign(p + 2, p + len);
  off_ += 4 + len;
  if (off_ == buf_.size()) {
    buf_.clear();
    off_ = 0;
  }
  return Next::kFrame;
}

bool split_frame(const std::vector<uint8_t>& bytes, Frame& out) {
  FrameReader r;
  r.feed(bytes.data(), bytes.size());
  return r.next(out) == FrameReader::Next::kFrame && r.buffered() == 0;
}

const char* msg_name(uint16_t type) {
  switch (static_cast<MsgType>(type)) {
    case MsgType::kHeartbeat: return "HEARTBEAT";
    case MsgType::kRankHello: return "HELLO";
    case MsgType::kCard: return "CARD";
    case MsgType::kFenceEnter: return "FENCE";
    case MsgType::kAbortRequest: return "ABORT";
    case MsgType::kSuspect: return "SUSPECT";
    case MsgType::kRecoverReq: return "RECOVER_REQ";
    case MsgType::kDetLog: return "DET_LOG";
    case MsgType::kDetFetch: return "DET_FETCH";
    case MsgType::kReplayReport: return "REPLAY_REPORT";
    case MsgType::kBoot: return "BOOT";
    case MsgType::kCardTable: return "CARD_TABLE";
    case MsgType::kFenceDone: return "FENCE_DONE";
    case MsgType::kProcFailed: return "PROC_FAILED";
    case MsgType::kJobAbort: return "JOB_ABORT";
    case MsgType::kRecoverDone: return "RECOVER_DONE";
    case MsgType::kDetAck: return "DET_ACK";
    case MsgType::kDetData: return "DET_DATA";
    case MsgType::kProcRestarted: return "PROC_RESTARTED";
    case MsgType::kDaemonHello: return "DAEMON_HELLO";
    case MsgType::kIo: return "IO";
    case MsgType::kIoEof: return "IO_EOF";
    case MsgType::kRankExit: return "RANK_EXIT";
    case MsgType::kStdinCredit: return "STDIN_CREDIT";
    case MsgType::kDaemonDone: return "DAEMON_DONE";
    case MsgType::kRankStart: return "RANK_START";
    case MsgType::kTrace: return "TRACE";
    case MsgType::kInjectResult: return "INJECT_RESULT";
    case MsgType::kInitReport: return "INIT_REPORT";
    case MsgType::kRecoveryReport: return "RECOVERY_REPORT";
    case MsgType::kJobFailedReport: return "JOB_FAILED_REPORT";
    case MsgType::kFailureReport: return "FAILURE_REPORT";
    case MsgType::kHostSuspect: return "HOST_SUSPECT";
    case MsgType::kView: return "VIEW";
    case MsgType::kUp: return "UP";
    case MsgType::kHostSync: return "HOST_SYNC";
    case MsgType::kDown: return "DOWN";
    case MsgType::kPeerWelcome: return "PEER_WELCOME";
    case MsgType::kAbortReport: return "ABORT_REPORT";
    case MsgType::kJobStart: return "JOB_START";
    case MsgType::kStdin: return "STDIN";
    case MsgType::kStdinEof: return "STDIN_EOF";
    case MsgType::kTerminate: return "TERMINATE";
    case MsgType::kShutdown: return "SHUTDOWN";
    case MsgType::kInjectKill: return "INJECT_KILL";
    case MsgType::kKillRequest: return "KILL_REQUEST";
    case MsgType::kKillReply: return "KILL_REPLY";
    case MsgType::kPeerHello: return "PEER_HELLO";
    case MsgType::kCardsUp: return "CARDS_UP";
    case MsgType::kFenceUp: return "FENCE_UP";
    case MsgType::kProcExit: return "PROC_EXIT";
    case MsgType::kAbortUp: return "ABORT_UP";
    case MsgType::kSuspectUp: return "SUSPECT_UP";
    case MsgType::kRecoverUp: return "RECOVER_UP";
    case MsgType::kCardTableDown: return "CARD_TABLE_DOWN";
    case MsgType::kFenceDown: return "FENCE_DOWN";
    case MsgType::kEventDown: return "EVENT_DOWN";
    case MsgType::kEndJob: return "END_JOB";
    case MsgType::kCheckProc: return "CHECK_PROC";
    case MsgType::kRespawn: return "RESPAWN";
    case MsgType::kReplayNote: return "REPLAY_NOTE";
    case MsgType::kDetRepl: return "DET_REPL";
    case MsgType::kDetReplAck: return "DET_REPL_ACK";
    case MsgType::kDetWant: return "DET_WANT";
    case MsgType::kDetHandover: return "DET_HANDOVER";
    case MsgType::kReplayUp: return "REPLAY_UP";
    case MsgType::kProcRestartedDown: return "PROC_RESTARTED_DOWN";
    case MsgType::kRecoverDoneDown: return "RECOVER_DONE_DOWN";
    case MsgType::kCkptDone: return "CKPT_DONE";
    case MsgType::kLogStats: return "LOG_STATS";
    case MsgType::kCkptStored: return "CKPT_STORED";
    case MsgType::kCkptRequest: return "CKPT_REQ";
    case MsgType::kCkptNote: return "CKPT_NOTE";
    case MsgType::kLogNote: return "LOG_NOTE";
    case MsgType::kCkptOrder: return "CKPT_ORDER";
    case MsgType::kCkptAck: return "CKPT_ACK";
    case MsgType::kCkptWoken: return "CKPT_WOKEN";
    case MsgType::kCkptTaken: return "CKPT_TAKEN";
    case MsgType::kCkptKept: return "CKPT_KEPT";
    case MsgType::kCkptKeptUp: return "CKPT_KEPT_UP";
    case MsgType::kCkptKeptDown: return "CKPT_KEPT_DOWN";
    case MsgType::kRestartRefusedUp: return "RESTART_REFUSED_UP";
  }
  return "UNKNOWN";
}

}  // namespace ftmpi::rte::proto

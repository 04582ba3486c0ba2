#include "rte/client/client.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/clock.hpp"
#include "base/fd.hpp"
#include "base/log.hpp"
#include "rte/client/boot_backend.hpp"
#include "rte/proto/gc_messages.hpp"
#include "rte/proto/rank_messages.hpp"

namespace ftmpi::rte {
namespace {

using proto::Frame;
using proto::FrameReader;
using proto::MsgType;

// How long abort() waits for the runtime to confirm before exiting by itself.
constexpr int kAbortWaitMs = 10000;

std::string local_hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

// Modes for a singleton come from the same environment variables the launcher reads.
template <typename E>
bool mode_from_env(const char* name, E& out) {
  const char* v = std::getenv(name);
  if (!v || !*v) return true;
  if (parse_mode(v, out)) return true;
  FTMPI_LOG(kError, "rte", "%s=%s is not a valid mode", name, v);
  return false;
}

Err singleton_boot(BootInfo& out) {
  out = BootInfo{};
  out.self = ProcId{0, 0};
  out.world_size = 1;
  out.host = 0;
  out.hostname = local_hostname();
  out.local_slots = {0};
  out.local_index = 0;
  out.secret = auth::make_secret();
  out.singleton = true;
  if (!mode_from_env("FTMPI_COMM_MODE", out.modes.comm) || !mode_from_env("FTMPI_MSG_MODE", out.modes.msg) ||
      !mode_from_env("FTMPI_COLL_MODE", out.modes.coll) ||
      !mode_from_env("FTMPI_RECOVERY_MODE", out.modes.recovery))
    return Err::kArg;
  // A singleton has no runtime to restart it: transparent mode would only
  // cost. Said once, so the user is not surprised.
  if (const char* t = std::getenv("FTMPI_TRANSPARENT"); t && *t)
    FTMPI_LOG(kWarn, "rte", "FTMPI_TRANSPARENT ignored: a process started without ftmpirun cannot be restarted");
  return Err::kOk;
}

}  // namespace

Client::~Client() { fd::close_quietly(fd_); }

int Client::fd() const { return ext_ ? ext_->fd() : fd_; }

bool Client::has_pending_events() const {
  if (ext_) return ext_->has_pending_events();
  return !pending_.empty() || reader_.has_frame();
}

void Client::lost_daemon(const char* why) {
  FTMPI_LOG(kError, "rte", "control channel to the daemon: %s; exiting", why);
  ::_exit(1);
}

void Client::send_frame(const std::vector<uint8_t>& frame) {
  size_t off = 0;
  while (off < frame.size()) {
    ssize_t w = ::send(fd_, frame.data() + off, frame.size() - off, MSG_NOSIGNAL);
    if (w > 0) {
      off += static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // Someone made the socket non-blocking (the progress engine may): wait.
      pollfd p{fd_, POLLOUT, 0};
      ::poll(&p, 1, -1);
      continue;
    }
    lost_daemon(w < 0 ? std::strerror(errno) : "short write");
  }
}

void Client::read_socket() {
  uint8_t buf[16 * 1024];
  for (;;) {
    ssize_t r = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    if (r > 0) {
      reader_.feed(buf, static_cast<size_t>(r));
      continue;
    }
    if (r == 0) lost_daemon("closed by the daemon");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;
    lost_daemon(std::strerror(errno));
  }
}

bool Client::queue_notice(const Frame& f) {
  if (f.type == static_cast<uint16_t>(MsgType::kProcFailed)) {
    proto::ProcFailed m;
    if (!proto::parse(f, m)) lost_daemon("malformed PROC_FAILED");
    pending_.push_back(Pending{Pending::kProcFailed, m.who, m.event_seq, 0, {}, {}});
    return true;
  }
  if (f.type == static_cast<uint16_t>(MsgType::kJobAbort)) {
    proto::JobAbort m;
    if (!proto::parse(f, m)) lost_daemon("malformed JOB_ABORT");
    pending_.push_back(Pending{Pending::kJobAbort, ProcId{}, 0, m.exit_code, {}, {}});
    return true;
  }
  if (f.type == static_cast<uint16_t>(MsgType::kRecoverDone)) {
    proto::RecoverDone m;
    if (!proto::parse(f, m) || m.result.cards.size() != static_cast<size_t>(world_size_))
      lost_daemon("malformed RECOVER_DONE");
    if (!recovery_outstanding_) FTMPI_LOG(kWarn, "rte", "RECOVER_DONE without a request");
    pending_.push_back(Pending{Pending::kRecoveryDone, ProcId{}, 0, 0, std::move(m.result), {}});
    return true;
  }
  if (f.type == static_cast<uint16_t>(MsgType::kFenceDone)) {
    // After finalize_begin(): poll() or any wait finds it.
    if (!fence_entered_) lost_daemon("FENCE_DONE before FENCE");
    fence_done_ = true;
    return true;
  }
  if (f.type == static_cast<uint16_t>(MsgType::kProcRestarted)) {
    proto::ProcRestarted m;
    if (!proto::parse(f, m) || m.card.id.slot >= world_size_) lost_daemon("malformed PROC_RESTARTED");
    pending_.push_back(Pending{Pending::kProcRestarted, m.card.id, 0, 0, {}, m.card});
    return true;
  }
  if (f.type == static_cast<uint16_t>(MsgType::kCkptRequest)) {
    proto::CkptRequest m;
    if (!proto::parse(f, m) || !modes_.transparent_mode()) lost_daemon("malformed CKPT_REQ");
    ckpt_wanted_ = m.number;  // a later order replaces one not taken yet
    ckpt_buddy_ = m.buddy;
    return true;
  }
  if (f.type == static_cast<uint16_t>(MsgType::kCkptKept)) {
    proto::CkptKept m;
    if (!proto::parse(f, m) || !modes_.transparent_mode()) lost_daemon("malformed CKPT_KEPT");
    if (m.number > ckpt_kept_) ckpt_kept_ = m.number;
    return true;
  }
  if (f.type == static_cast<uint16_t>(MsgType::kDetAck)) {
    proto::DetAck m;
    if (!proto::parse(f, m) || m.batch > det_logged_) lost_daemon("malformed DET_ACK");
    pending_.push_back(Pending{Pending::kDetAck, ProcId{}, m.batch, 0, {}, {}});
    return true;
  }
  return false;
}

void Client::wait_for(MsgType type, Frame& out) {
  for (;;) {
    FrameReader::Next n;
    while ((n = reader_.next(out)) == FrameReader::Next::kFrame) {
      if (out.type == static_cast<uint16_t>(type)) return;
      if (!queue_notice(out))
        FTMPI_LOG(kWarn, "rte", "ignoring unexpected %s while waiting for %s", proto::msg_name(out.type),
                  proto::msg_name(static_cast<uint16_t>(type)));
    }
    if (n == FrameReader::Next::kBad) lost_daemon(reader_.error().c_str());
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, -1) < 0 && errno != EINTR) lost_daemon(std::strerror(errno));
    read_socket();
  }
}

Err Client::init(BootInfo& out) {
  const char* v = std::getenv("FTMPI_CTRL_FD");
  if (!v || !*v) {
    if (Err e = open_external_boot(ext_); !ok(e)) return e;
    if (ext_) {
      Err e = ext_->init(out);
      self_ = out.self;
      world_size_ = out.world_size;
      modes_ = out.modes;
      return e;
    }
    singleton_ = true;
    Err e = singleton_boot(out);
    self_ = out.self;
    modes_ = out.modes;
    return e;
  }
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  int type = 0;
  socklen_t len = sizeof type;
  if (*end != '\0' || n < 0 || n > 1 << 20 ||
      getsockopt(static_cast<int>(n), SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM) {
    FTMPI_LOG(kError, "rte", "FTMPI_CTRL_FD=%s is not a control socket", v);
    return Err::kIntern;
  }
  fd_ = static_cast<int>(n);
  // Programs this rank starts must not inherit the channel (they would look
  // like this rank to the daemon); without the variable they become singletons.
  fd::set_cloexec(fd_);
  unsetenv("FTMPI_CTRL_FD");

  return boot_on_channel(out);
}

Err Client::boot_on_channel(BootInfo& out) {
  proto::RankHello hello;
  hello.pid = static_cast<int32_t>(getpid());
  send_frame(proto::make_frame(hello));
  Frame f;
  wait_for(MsgType::kBoot, f);
  proto::Boot boot;
  if (!proto::parse(f, boot)) lost_daemon("malformed BOOT");
  if (boot.version != proto::kProtocolVersion) lost_daemon("protocol version mismatch");

  out = BootInfo{};
  out.self = boot.self;
  out.world_size = boot.world_size;
  out.host = boot.host;
  out.hostname = boot.hostname;
  out.local_slots = boot.local_slots;
  out.local_index = boot.local_index;
  out.shm_fd = boot.shm_fd;
  out.shm_size = boot.shm_size;
  out.doorbell_fds.assign(boot.doorbell_fds.begin(), boot.doorbell_fds.end());
  out.secret = boot.secret;
  secret_ = boot.secret;
  out.tcp_bind_addr = boot.tcp_bind_addr;
  out.epoch = boot.epoch;
  out.restarted = boot.restarted;
  out.modes = boot.modes;
  out.singleton = false;
  if (out.shm_fd >= 0 && !fd::set_cloexec(out.shm_fd)) {
    FTMPI_LOG(kError, "rte", "shared-memory fd %d from BOOT is not open", out.shm_fd);
    return Err::kIntern;
  }
  for (int d : out.doorbell_fds) {
    if (!fd::set_cloexec(d)) {
      FTMPI_LOG(kError, "rte", "doorbell fd %d from BOOT is not open", d);
      return Err::kIntern;
    }
  }
  if (boot.det_fd >= 0 && out.modes.transparent_mode()) map_stage(boot.det_fd);
  self_ = out.self;
  host_ = out.host;
  world_size_ = out.world_size;
  modes_ = out.modes;
  restarted_ = out.restarted;
  epoch_ = out.epoch;
  return Err::kOk;
}

Err Client::exchange_cards(const Card& mine, std::vector<Card>& all) {
  if (ext_) {
    Err e = ext_->exchange_cards(mine, all);
    exchanged_ = ok(e);
    return e;
  }
  Card card = mine;
  // The runtime, not the caller, is the authority on who and where we are.
  card.id = self_;
  card.host = host_;
  card.pid = static_cast<int32_t>(getpid());
  my_card_ = card;
  if (singleton_) {
    all.assign(1, card);
    exchanged_ = true;
    return Err::kOk;
  }
  if (fd_ < 0 || exchanged_) return Err::kIntern;
  send_frame(proto::make_frame(proto::CardMsg{card}));
  Frame f;
  if (restarted_ && !modes_.transparent_mode()) {
    // A respawned process joins the job through the recovery round that
    // includes it; the daemon answers its CARD with that round's result.
    wait_for(MsgType::kRecoverDone, f);
    proto::RecoverDone done;
    if (!proto::parse(f, done) || done.result.cards.size() != static_cast<size_t>(world_size_))
      lost_daemon("malformed RECOVER_DONE");
    if (!(done.result.cards[static_cast<size_t>(self_.slot)].id == self_))
      lost_daemon("RECOVER_DONE does not list this process");
    restart_result_ = std::move(done.result);
    epoch_ = restart_result_.epoch;
    all = restart_result_.cards;
    exchanged_ = true;
    return Err::kOk;
  }
  wait_for(MsgType::kCardTable, f);
  proto::CardTable table;
  if (!proto::parse(f, table)) lost_daemon("malformed CARD_TABLE");
  if (table.cards.size() != static_cast<size_t>(world_size_)) lost_daemon("CARD_TABLE of the wrong size");
  for (size_t i = 0; i < table.cards.size(); ++i)
    if (table.cards[i].id.slot != static_cast<int32_t>(i)) lost_daemon("CARD_TABLE out of slot order");
  all = std::move(table.cards);
  exchanged_ = true;
  return Err::kOk;
}

Err Client::request_recovery(uint64_t known_event_seq) {
  bool recovers = modes_.comm != CommMode::kAbort && modes_.recovery != RecoveryMode::kIgnore;
  if (!recovers) {
    FTMPI_LOG(kWarn, "rte", "recovery requested in comm mode %s, recovery mode %s: no rounds there",
              mode_name(modes_.comm), mode_name(modes_.recovery));
    return Err::kArg;
  }
  if (!exchanged_) return Err::kIntern;
  if (recovery_outstanding_) return Err::kOk;
  recovery_outstanding_ = true;
  if (singleton_) {
    // A job of one has nobody to wait for and nothing can have failed.
    Pending p{Pending::kRecoveryDone, ProcId{}, 0, 0, {}, {}};
    p.recovery.epoch = epoch_ + 1;
    p.recovery.cards = {my_card_};
    pending_.push_back(std::move(p));
    return Err::kOk;
  }
  send_frame(proto::make_frame(proto::RecoverReq{known_event_seq}));
  return Err::kOk;
}

void Client::poll(EventSink& sink) {
  if (ext_) return ext_->poll(sink);
  if (fd_ >= 0) {
    read_socket();
    Frame f;
    FrameReader::Next n;
    while ((n = reader_.next(f)) == FrameReader::Next::kFrame) {
      if (!queue_notice(f))
        FTMPI_LOG(kWarn, "rte", "ignoring unexpected %s", proto::msg_name(f.type));
    }
    if (n == FrameReader::Next::kBad) lost_daemon(reader_.error().c_str());
  }
  // Deliver from a local copy: a sink may call back into this client.
  std::deque<Pending> ready;
  ready.swap(pending_);
  for (const Pending& p : ready) {
    switch (p.kind) {
      case Pending::kProcFailed: sink.on_proc_failed(p.who, p.seq); break;
      case Pending::kJobAbort: sink.on_job_abort(p.exit_code); break;
      case Pending::kRecoveryDone:
        // Cleared before the call: the sink may ask for the next round at once.
        recovery_outstanding_ = false;
        epoch_ = p.recovery.epoch;
        sink.on_recovery_done(p.recovery);
        break;
      case Pending::kProcRestarted: sink.on_proc_restarted(p.who, p.card); break;
      case Pending::kDetAck:
        // Acks come in batch order; a repeated one (after a buddy change) adds nothing.
        if (p.seq > det_acked_) {
          det_acked_ = p.seq;
          sink.on_determinants_acked(p.seq);
        }
        break;
    }
  }
}

void Client::map_stage(int fd) {
  struct stat st{};
  if (!fd::set_cloexec(fd) || fstat(fd, &st) != 0 || st.st_size <= 0) {
    FTMPI_LOG(kWarn, "rte", "determinant staging fd %d from BOOT is not usable; logging through the socket", fd);
    return;
  }
  const size_t bytes = static_cast<size_t>(st.st_size);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    FTMPI_LOG(kWarn, "rte", "cannot map the determinant staging area: %s", std::strerror(errno));
    return;
  }
  proto::StageWriter w(p, bytes);
  if (!w.valid()) {
    FTMPI_LOG(kWarn, "rte", "the determinant staging area from BOOT is not laid out; logging through the socket");
    munmap(p, bytes);
    return;
  }
  stage_ = w;
}

uint64_t Client::log_determinants(const void* bytes, size_t len, bool& stable) {
  stable = false;
  if (!modes_.transparent_mode() || singleton_ || fd_ < 0) {
    FTMPI_LOG(kError, "rte", "log_determinants outside transparent mode");
    return 0;
  }
  if (len == 0 || len > kMaxDeterminantBatch) {
    FTMPI_LOG(kError, "rte", "log_determinants: batch of %zu bytes (must be 1..%u)", len, proto::kMaxDetBatch);
    return 0;
  }
  // Staged only behind no DET_LOG in flight: acknowledgements come in
  // batch order, and the daemon takes staged batches before a DET_LOG.
  if (det_acked_ == det_logged_ && stage_.stable() &&
      stage_.put(self_.incarnation, det_logged_ + 1, bytes, len)) {
    det_acked_ = ++det_logged_;
    stable = true;
    return det_logged_;
  }
  det_frame_.clear();  // keeps its room
  proto::append_det_log_frame(det_frame_, ++det_logged_, bytes, len);
  send_frame(det_frame_);
  return det_logged_;
}

Err Client::fetch_determinants(std::vector<uint8_t>& out) {
  out.clear();
  if (!modes_.transparent_mode() || singleton_ || fd_ < 0) return Err::kArg;
  send_frame(proto::make_frame(proto::DetFetch{}));
  for (;;) {
    Frame f;
    wait_for(MsgType::kDetData, f);
    proto::DetData piece;
    if (!proto::parse(f, piece)) lost_daemon("malformed DET_DATA");
    out.insert(out.end(), piece.data.begin(), piece.data.end());
    if (piece.last) return Err::kOk;
  }
}

void Client::report_replay(ReplayPhase phase, const ReplayStats& stats) {
  if (!modes_.transparent_mode() || singleton_ || fd_ < 0) return;
  proto::ReplayReport m;
  m.phase = static_cast<uint8_t>(phase);
  m.determinants = stats.determinants;
  m.messages = stats.messages;
  m.suppressed = stats.suppressed;
  send_frame(proto::make_frame(m));
}

void Client::report_checkpoint(const proto::CkptFacts& facts) {
  if (!modes_.transparent_mode() || singleton_ || fd_ < 0) return;
  if (facts.number == ckpt_wanted_) ckpt_wanted_ = 0;
  send_frame(proto::make_frame(proto::CkptDone{facts}));
  // Nothing more may reach the output pipes before the daemon has read
  // what was there at the fork: that is where a woken image's output
  // continues the stream (output once).
  for (;;) {
    Frame f;
    wait_for(MsgType::kCkptAck, f);
    proto::CkptAck ack;
    if (!proto::parse(f, ack)) lost_daemon("malformed CKPT_ACK");
    if (ack.number == facts.number) return;
  }
}

Err Client::resume(int ctrl_fd, BootInfo& out) {
  int type = 0;
  socklen_t len = sizeof type;
  if (ext_ || singleton_ || !modes_.transparent_mode() || ctrl_fd < 0 ||
      getsockopt(ctrl_fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
    return Err::kArg;
  const ProcId before = self_;
  // Everything the image's process knew of its own channel is the old one's.
  fd_ = ctrl_fd;
  fd::set_cloexec(fd_);
  reader_ = proto::FrameReader{};
  pending_.clear();
  exchanged_ = fence_entered_ = fence_done_ = recovery_outstanding_ = false;
  restart_result_ = RecoveryResult{};
  det_logged_ = det_acked_ = 0;
  // The image left the old area's mapping out; BOOT gives the area again.
  stage_ = proto::StageWriter();
  ckpt_wanted_ = 0;
  if (Err e = boot_on_channel(out); !ok(e)) return e;
  if (out.self.slot != before.slot || out.self.incarnation <= before.incarnation || !out.restarted ||
      !out.modes.transparent_mode()) {
    FTMPI_LOG(kError, "rte", "BOOT names %d.%u, not a next incarnation of %d.%u", out.self.slot,
              out.self.incarnation, before.slot, before.incarnation);
    return Err::kIntern;
  }
  return Err::kOk;
}

void Client::report_log(const proto::LogFigures& figures) {
  if (!modes_.transparent_mode() || singleton_ || fd_ < 0) return;
  send_frame(proto::make_frame(proto::LogStats{figures}));
}

Err Client::finalize_begin() {
  if (ext_) {
    // A PMIx fence blocks (direct launch never runs in transparent mode).
    fence_entered_ = true;
    Err e = ext_->finalize();
    fence_done_ = ok(e);
    return e;
  }
  if (singleton_) {
    fence_done_ = true;
    return Err::kOk;
  }
  if (fd_ < 0 || fence_entered_) return Err::kIntern;
  fence_entered_ = true;
  send_frame(proto::make_frame(proto::FenceEnter{}));
  return Err::kOk;
}

Err Client::finalize() {
  if (!fence_entered_)
    if (Err e = finalize_begin(); !ok(e)) return e;
  if (fence_done_) return Err::kOk;
  if (ext_) return Err::kIntern;
  Frame f;
  wait_for(MsgType::kFenceDone, f);
  fence_done_ = true;
  return Err::kOk;
}

void Client::abort(int code, const std::string& msg) {
  if (ext_) ext_->abort(code, msg);
  int status = (code & 0xff) == 0 && code != 0 ? 1 : (code & 0xff);
  if (fd_ < 0) {
    std::fprintf(stderr, "MPI_Abort with code %d: %s\n", code, msg.c_str());
    std::fflush(nullptr);
    ::_exit(status);
  }
  send_frame(proto::make_frame(proto::AbortRequest{code, msg}));
  std::fflush(nullptr);
  // The daemon answers with JOB_ABORT (then SIGTERM); exit on whichever comes
  // first, or by ourselves if the runtime is slow.
  uint64_t deadline = now_ns() + static_cast<uint64_t>(kAbortWaitMs) * 1000000ull;
  Frame f;
  for (;;) {
    while (reader_.next(f) == FrameReader::Next::kFrame)
      if (f.type == static_cast<uint16_t>(MsgType::kJobAbort)) ::_exit(status);
    uint64_t now = now_ns();
    if (now >= deadline || reader_.failed()) ::_exit(status);
    pollfd p{fd_, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>((deadline - now) / 1000000ull) + 1);
    uint8_t buf[4096];
    ssize_t r = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) ::_exit(status);
    if (r > 0) reader_.feed(buf, static_cast<size_t>(r));
  }
}

void Client::report_suspect(ProcId who) {
  if (ext_) return ext_->report_suspect(who);
  if (singleton_ || fd_ < 0 || !who.valid()) return;
  send_frame(proto::make_frame(proto::Suspect{who}));
}

}  // namespace ftmpi::rte

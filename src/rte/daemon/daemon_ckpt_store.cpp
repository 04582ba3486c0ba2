// ftmpid: the buddy and disk checkpoint stores and the restorers
// (spec/checkpoint-protocol.md §2a, §5a). Every daemon runs a checkpoint
// server (ckpt_server.hpp) for the images other hosts' ranks send it. A
// rank's frozen copy writes its image to the buddy or to the disk store and
// reports the outcome as one CKPT_STORED datagram on this daemon's abstract
// socket; the checkpoint's CKPT_NOTE waits for it, and the slot's previous
// local image is dropped only then. When a slot restarts here and no local
// image serves, the newest stored image that this daemon can reach (its own
// server's copy, or the disk file) feeds a restorer; an image that fails to
// restore is never tried again, and the slot then starts from the program's
// start.
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "base/ckpt_image_files.hpp"
#include "base/fd.hpp"
#include "base/log.hpp"
#include "rte/daemon/daemon.hpp"
#include "rte/proto/frame.hpp"

namespace ftmpi::rte {
namespace {

using proto::CkptFacts;

// Exit statuses of a restorer that did not become the next incarnation:
// the image was refused (ckpt::kRestoreFailedExit), or the restored process
// could not resume (modules/ckpt: resume and store_copy.hpp).
bool restore_failed_exit(const proto::ExitInfo& e) {
  return e.how == proto::ExitInfo::kExited && (e.value == 70 || e.value == 123 || e.value == 124);
}

// Connect, handshake and answer of a buddy's server, in the daemon's loop:
// well under the heartbeat timeout (800 ms by default).
constexpr int kBuddyFetchTimeoutMs = 300;
// Reports that came before their CKPT_DONE, at most (one per rank is usual).
constexpr size_t kMaxEarlyReports = 1024;

}  // namespace

void Daemon::start_ckpt_server() {
  ckpt_server_ = std::make_unique<CheckpointServer>(loop_, secret_);
  if (!ckpt_server_->listen(my_addr_)) {
    FTMPI_LOG(kWarn, "ftmpid", "cannot open the checkpoint server on %s: no buddy images here", my_addr_.c_str());
    ckpt_server_.reset();
  }
}

void Daemon::setup_ckpt_store(const proto::JobStart& job) {
  if (!job.modes.transparent_mode()) return;
  const std::string key = std::string(proto::kCkptStoreEnv) + "=";
  proto::StoreSetting st;
  std::string name;
  for (const std::string& e : job.env) {
    if (e.rfind(key, 0) == 0) st = proto::parse_store_setting(e.substr(key.size()));
    if (e.rfind("FTMPI_CKPT_JOB=", 0) == 0) name = e.substr(15);
  }
  ckpt_store_ = st.kind;
  ckpt_dir_ = st.dir;
  ckpt_job_ = st.dir.empty() ? std::string() : name;
  // The memory store's ranks write their images themselves and report them
  // in CKPT_DONE: no copy, so no report socket; the local store has none.
  if (st.kind != CkptFacts::kStoreBuddy && st.kind != CkptFacts::kStoreDisk) return;
  stored_fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  const std::string sock = proto::ckpt_store_socket_name(static_cast<int>(::getpid()));
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path + 1, sock.data(), std::min(sock.size(), sizeof a.sun_path - 2));
  const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + sock.size());
  const int on = 1;
  // SO_PASSCRED: each report names its sender, which must be one of our images.
  if (stored_fd_ < 0 || ::setsockopt(stored_fd_, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) != 0 ||
      ::bind(stored_fd_, reinterpret_cast<sockaddr*>(&a), len) != 0) {
    FTMPI_LOG(kError, "ftmpid", "cannot open the checkpoint report socket: %s; images stay local",
              std::strerror(errno));
    fd::close_quietly(stored_fd_);
    ckpt_store_ = CkptFacts::kStoreLocal;
    return;
  }
  stored_watch_ = loop_.watch(stored_fd_, EPOLLIN, [this](uint32_t) { on_stored_datagram(); });
}

std::string Daemon::buddy_for_images() const {
  if (ckpt_store_ != CkptFacts::kStoreBuddy || !job_) return "";
  const auto n = static_cast<int32_t>(job_->hosts.size());
  for (int32_t i = 1; i <= n; ++i) {
    const int32_t h = (args_.host + i) % n;
    const bool lost = static_cast<size_t>(h) < lost_.size() && lost_[static_cast<size_t>(h)];
    const proto::HostEntry& e = job_->hosts[static_cast<size_t>(h)];
    if (!lost && e.ckpt_port != 0) return e.addr + ":" + std::to_string(e.ckpt_port);
  }
  return "";
}

bool Daemon::hold_note_until_stored(pid_t image, const proto::CkptNote& note, bool collect) {
  if (ckpt_store_ == CkptFacts::kStoreLocal || ckpt_store_ == CkptFacts::kStoreMemory) return false;
  held_notes_[image] = HeldNote{note, collect};
  held_notes_[image].note.facts.store = ckpt_store_;
  auto early = early_stored_.find(image);
  if (early != early_stored_.end()) {
    proto::CkptStored m = early->second;
    early_stored_.erase(early);
    finish_stored(image, &m, "");
  }
  return true;
}

void Daemon::on_stored_datagram() {
  for (;;) {
    uint8_t buf[16384];
    alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(ucred))];
    iovec iov{buf, sizeof buf};
    msghdr h{};
    h.msg_iov = &iov;
    h.msg_iovlen = 1;
    h.msg_control = ctl;
    h.msg_controllen = sizeof ctl;
    const ssize_t n = ::recvmsg(stored_fd_, &h, MSG_DONTWAIT);
    if (n < 0) return;
    pid_t from = -1;
    for (cmsghdr* c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS) {
        ucred cred{};
        std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
        from = cred.pid;
      }
    proto::Frame f;
    proto::CkptStored m;
    if (from <= 0 || !proto::split_frame(std::vector<uint8_t>(buf, buf + n), f) || !proto::parse(f, m)) {
      FTMPI_LOG(kWarn, "ftmpid", "malformed checkpoint report from pid %d ignored", static_cast<int>(from));
      continue;
    }
    if (held_notes_.count(from)) {
      finish_stored(from, &m, "");
    } else if (!images_.count(from) && early_stored_.size() < kMaxEarlyReports) {
      // The copy was quicker than its original's CKPT_DONE; a report whose
      // pid never becomes one of our images is dropped with the job.
      early_stored_[from] = m;
    }
  }
}

void Daemon::finish_stored(pid_t image, const proto::CkptStored* m, const std::string& error) {
  auto it = held_notes_.find(image);
  if (it == held_notes_.end()) return;
  proto::CkptNote n = it->second.note;
  const bool collect = it->second.collect;
  held_notes_.erase(it);
  CkptFacts& f = n.facts;
  if (m) {
    f.stored_bytes = m->bytes;
    f.store_ns = m->ns;
    f.stored_at = m->where;
    f.store_error = m->ok ? "" : (m->error.empty() ? "no reason given" : m->error);
    if (m->ok && ckpt_store_ == CkptFacts::kStoreBuddy && job_) {
      // The buddy by name, as users wrote it.
      for (const proto::HostEntry& h : job_->hosts)
        if (m->where == h.addr + ":" + std::to_string(h.ckpt_port)) f.stored_at = h.name;
    }
  } else {
    f.store_error = error;
  }
  // The previous local image goes only now that this checkpoint is complete.
  const int32_t slot = n.who.slot;
  auto latest = latest_image_.find(slot);
  if (images_.count(image)) {
    if (latest != latest_image_.end() && latest->second != image) drop_image(latest->second);
    latest_image_[slot] = image;
  }
  // Only a stored image lets the senders drop their logs: the local one
  // dies with its host, and a failed store leaves the last stored image
  // older than this checkpoint.
  if (collect && f.store_error.empty()) ckpt_kept(n.who, f);
  n.wall_ns = wall_clock_ns();
  to_launcher(proto::make_frame(n));
}

int Daemon::fetch_from_buddy(int32_t slot, uint64_t& number, std::string& from) {
  const std::string buddy = buddy_for_images();
  const size_t colon = buddy.rfind(':');
  if (buddy.empty() || colon == std::string::npos) return -1;
  const std::string addr = buddy.substr(0, colon);
  const auto port = static_cast<uint16_t>(std::strtoul(buddy.c_str() + colon + 1, nullptr, 10));
  if (job_ && addr == job_->hosts[static_cast<size_t>(args_.host)].addr && ckpt_server_ &&
      port == ckpt_server_->port())
    return -1;  // our own server, asked above
  std::string why;
  int fd = CheckpointServer::fetch(addr, port, secret_, slot, kBuddyFetchTimeoutMs, number, why);
  if (fd < 0) {
    FTMPI_LOG(kInfo, "ftmpid", "rank %d: no stored image from the buddy: %s", slot, why.c_str());
    return -1;
  }
  from = "buddy " + buddy;
  return fd;
}

bool Daemon::start_over(LocalRank& r) {
  auto it = restoring_.find(r.id.slot);
  if (it == restoring_.end() || it->second.incarnation != r.id.incarnation || !restore_failed_exit(r.exit))
    return false;
  // The one place that decides decides again: prepare_restore marks this
  // image bad, and without another the program's start follows, which a
  // slot whose garbage was collected refuses (a start over after
  // collection replayed without the dropped messages and diverged). Then
  // nothing was started: the exit is reported after the refusal, as the
  // end of the slot, so that the host can finish.
  restart_here(r, ProcId(r.id));
  return !r.exited;
}

std::pair<std::string, uint64_t> Daemon::newest_disk_image(int32_t slot) const {
  ckpt_files::ImageFile f = ckpt_files::newest_image(ckpt_dir_, ckpt_job_, slot);
  return {std::move(f.path), f.number};
}

void Daemon::remove_memory_images() {
  if (ckpt_store_ != CkptFacts::kStoreMemory || ckpt_job_.empty()) return;
  for (const ckpt_files::ImageFile& f : ckpt_files::job_images(ckpt_dir_, ckpt_job_)) (void)::unlink(f.path.c_str());
}

void Daemon::prepare_restore(const ProcId& who, const LocalRank* dead) {
  if (ckpt_store_ == CkptFacts::kStoreLocal) return;
  const int32_t slot = who.slot;
  auto was = restoring_.find(slot);
  if (was != restoring_.end() && dead && dead->id.incarnation == was->second.incarnation &&
      (!dead->booted || restore_failed_exit(dead->exit))) {
    FTMPI_LOG(kWarn, "ftmpid", "rank %d did not come back from stored image %llu (%s); not trying it again", slot,
              static_cast<unsigned long long>(was->second.number), describe_exit(dead->exit).c_str());
    bad_image_[slot] = std::max(bad_image_[slot], was->second.number);
  }
  restoring_.erase(slot);
  if (latest_image_.count(slot)) return;  // a local image serves (waking it is not this file's)
  int fd = -1;
  uint64_t number = 0;
  std::string from;
  if (ckpt_store_ == CkptFacts::kStoreDisk || ckpt_store_ == CkptFacts::kStoreMemory) {
    auto [path, n] = newest_disk_image(slot);
    if (n > 0 && n > bad_image_[slot]) {
      fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      number = n;
      from = path;
    }
  } else {
    // Adopted from a lost host: we were its buddy, the image is here.
    auto held = ckpt_server_ ? ckpt_server_->held(slot) : std::nullopt;
    if (held && held->number > bad_image_[slot]) {
      fd = ckpt_server_->image_memfd(slot);
      number = held->number;
      from = "this daemon's buddy memory";
    } else {
      // The rank and its copy died here: the image is on our buddy. The
      // restorer reads the stream straight from its socket.
      fd = fetch_from_buddy(slot, number, from);
      if (fd >= 0 && number <= bad_image_[slot]) fd::close_quietly(fd);
    }
  }
  if (fd < 0) return;
  FTMPI_LOG(kInfo, "ftmpid", "rank %d incarnation %u restores from stored image %llu (%s)", slot, who.incarnation,
            static_cast<unsigned long long>(number), from.c_str());
  restoring_[slot] = Restoring{who.incarnation, number};
  ranks_.restore_next_from(fd);
}

}  // namespace ftmpi::rte

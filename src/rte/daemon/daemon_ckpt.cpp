// ftmpid: checkpoints of its ranks (transparent mode; spec/checkpoint-protocol.md).
// The launcher orders a checkpoint (CKPT_ORDER), the daemon passes it to the
// rank (CKPT_REQ); the rank freezes a copy of itself as the image, a child
// of this daemon (CLONE_PARENT), and reports it (CKPT_DONE). The daemon keeps
// the latest image of each slot, drops the previous one only once the new
// one is complete, reaps images through pidfds, and tells the launcher
// (CKPT_NOTE; with a buddy or disk store once the copy reports the image
// stored). At CKPT_DONE it reads the rank's output up to the fork, tells the
// launcher where that output ends (CKPT_TAKEN) and acknowledges (CKPT_ACK):
// the rank goes on at once, whatever the store. With the memory store there
// is no copy: the rank wrote its image file before CKPT_DONE, which says so.
// Sender-log figures pass through to the launcher (LOG_NOTE).
// A failed slot's latest image is woken as its next incarnation
// (daemon_wake.cpp).
#include <signal.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/fd.hpp"
#include "base/log.hpp"
#include "rte/common/process.hpp"
#include "rte/daemon/daemon.hpp"

namespace ftmpi::rte {

bool Daemon::keep_image(const ProcId& owner, pid_t owner_pid, uint64_t received, uint64_t number, pid_t pid) {
  int pfd = open_pidfd(pid);
  if (pfd < 0) {
    // Not our child (CLONE_PARENT failed to make it one) or already gone.
    ::kill(pid, SIGKILL);
    return false;
  }
  // Out of the rank's process group already: a copy leaves it before the
  // process that made it goes on (local_image.cpp).
  ImageProc img{owner, owner_pid, received, number, pid, pfd, 0};
  img.watch = loop_.watch(pfd, EPOLLIN, [this, pid](uint32_t) { on_image_exit(pid); });
  images_[pid] = img;
  return true;
}

void Daemon::on_ckpt_order(const proto::CkptOrder& m) {
  LocalRank* r = ranks_.find(m.slot);
  if (r && r->running() && r->booted && r->ctrl && !r->fence_entered && state_.transparent()) {
    r->ckpt_ordered = m.number;
    r->ckpt_collect = m.collect != 0;
    r->ctrl->send(proto::CkptRequest{m.number, buddy_for_images()});
    return;
  }
  proto::CkptNote n;
  n.who = ProcId{m.slot, r ? r->id.incarnation : 0};
  n.facts.number = m.number;
  n.facts.why = !r ? "not on this host" : r->fence_entered ? "in MPI_Finalize" : "not running";
  n.wall_ns = wall_clock_ns();
  to_launcher(proto::make_frame(n));
}

void Daemon::on_ckpt_done(LocalRank& r, const proto::CkptDone& m) {
  proto::CkptNote n;
  n.who = r.id;
  n.facts = m.facts;
  n.wall_ns = wall_clock_ns();
  if (m.facts.number != r.ckpt_ordered) {
    n.facts.ok = 0;
    n.facts.why = "not the checkpoint ordered";
  }
  r.ckpt_ordered = 0;
  const bool memory = ckpt_store_ == proto::CkptFacts::kStoreMemory;
  if (n.facts.ok && (n.facts.store == proto::CkptFacts::kStoreMemory) != memory) {
    n.facts.ok = 0;
    n.facts.why = "not the job's checkpoint store";
  }
  // From here, for a taken checkpoint, `memory` is also what the rank said.
  if (n.facts.ok && memory && !n.facts.store_error.empty()) {
    n.facts.ok = 0;
    n.facts.why = n.facts.store_error;
  }
  if (n.facts.ok && !memory) {
    uint64_t received = 0;
    for (uint64_t x : m.facts.received) received += x;
    if (!keep_image(r.id, static_cast<pid_t>(r.hello_pid), received, m.facts.number,
                    static_cast<pid_t>(m.facts.image_pid))) {
      n.facts.ok = 0;
      n.facts.why = "the image is not a child of its daemon";
    }
  }
  // What the rank wrote before the fork reaches the launcher before
  // CKPT_TAKEN (an image's output continues from there), and the rank
  // writes nothing more until the acknowledgement.
  ranks_.drain_output(r);
  if (n.facts.ok) to_launcher(proto::make_frame(proto::CkptTaken{r.id, n.facts.number}));
  if (r.ctrl) r.ctrl->send(proto::CkptAck{m.facts.number});
  const auto pid = static_cast<pid_t>(m.facts.image_pid);
  // Buddy or disk: the note, and the drop of the previous image, wait for
  // the copy's report that the image is stored.
  // Garbage collection too: a restart after a host loss needs the stored
  // image once the senders dropped what a start from scratch needs.
  if (n.facts.ok && hold_note_until_stored(pid, n, r.ckpt_collect)) return;
  if (n.facts.ok && memory) {
    // The rank wrote the file before it reported (and removed its older ones).
    if (r.ckpt_collect) ckpt_kept(r.id, n.facts);
  } else if (n.facts.ok) {
    // The previous image goes only now that this one is complete.
    auto it = latest_image_.find(r.id.slot);
    if (it != latest_image_.end()) drop_image(it->second);
    latest_image_[r.id.slot] = pid;
    if (r.ckpt_collect) ckpt_kept(r.id, n.facts);  // garbage collection may start (daemon_gc.cpp)
  }
  to_launcher(proto::make_frame(n));
}

void Daemon::on_log_stats(LocalRank& r, const proto::LogStats& m) {
  to_launcher(proto::make_frame(proto::LogNote{r.id, m.figures}));
}

void Daemon::drop_image(pid_t pid) {
  auto it = images_.find(pid);
  if (it == images_.end()) return;
  ::kill(pid, SIGKILL);  // reaped by on_image_exit
  for (auto l = latest_image_.begin(); l != latest_image_.end(); ++l)
    if (l->second == pid) {
      latest_image_.erase(l);
      break;
    }
}

void Daemon::drop_images_of(int32_t slot) {
  auto it = latest_image_.find(slot);
  if (it != latest_image_.end()) drop_image(it->second);
}

void Daemon::drop_all_images() {
  std::vector<pid_t> all;
  for (const auto& [pid, img] : images_) all.push_back(pid);
  for (pid_t p : all) drop_image(p);
}

void Daemon::on_image_exit(pid_t pid) {
  auto it = images_.find(pid);
  if (it == images_.end()) return;
  proto::ExitInfo ex;
  if (!reap(pid, ex)) return;
  loop_.unwatch(it->second.watch);
  fd::close_quietly(it->second.pidfd);
  FTMPI_LOG(kDebug, "ftmpid", "image %llu of rank %d (pid %d) ended: %s",
            static_cast<unsigned long long>(it->second.number), it->second.owner.slot, static_cast<int>(pid),
            describe_exit(ex).c_str());
  images_.erase(it);
  for (auto l = latest_image_.begin(); l != latest_image_.end(); ++l)
    if (l->second == pid) {
      latest_image_.erase(l);
      break;
    }
  early_stored_.erase(pid);
  finish_stored(pid, nullptr, "the frozen copy ended before its image was stored");
}

}  // namespace ftmpi::rte

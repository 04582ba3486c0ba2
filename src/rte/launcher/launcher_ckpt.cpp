// ftmpirun: the checkpoint scheduler's driver (transparent mode;
// spec/checkpoint-protocol.md §4). The scheduler (ckpt_scheduler.hpp) is
// pure; here it gets the clock and the daemons' reports, and its decisions
// go out as CKPT_ORDER to the daemon of each slot. An order that no report
// answers within kOrderTimeoutMs (the rank never reached a safe point, or
// its report was lost with it) counts as failed, so that a stuck process
// cannot stop checkpointing for the others.
#include <unistd.h>

#include <cstdio>
#include <limits>

#include "base/ckpt_image_files.hpp"
#include "base/clock.hpp"
#include "base/log.hpp"
#include "base/params.hpp"
#include "rte/launcher/launcher.hpp"

namespace ftmpi::rte {
namespace {
constexpr uint64_t kOrderTimeoutMs = 10'000;
// With a buddy or disk store the answer comes once the image is stored: the
// transfer of a large image over a loaded link or disk takes its time.
constexpr uint64_t kStoredOrderTimeoutMs = 60'000;
}

void Launcher::start_checkpoints() {
  if (!opts_.ckpt.on || ckpt_) return;
  ckpt_ = std::make_unique<CkptState>(schedule_config(opts_.ckpt), np_, now_ns());
  ckpt_tick();
}

void Launcher::ckpt_tick() {
  if (!ckpt_ || outcome_.ending() || shutdown_sent_) return;
  if (ckpt_->timer) loop_.cancel(ckpt_->timer);
  ckpt_->timer = 0;
  const uint64_t now = now_ns();
  for (int slot : ckpt_->sched.due(now)) order_checkpoint(slot);
  const uint64_t next = ckpt_->sched.next_check_ns();
  if (next == std::numeric_limits<uint64_t>::max()) return;
  const uint64_t delay_ms = next > now ? (next - now + 999'999) / 1'000'000 : 0;
  ckpt_->timer = loop_.after_ms(delay_ms, [this] {
    ckpt_->timer = 0;
    ckpt_tick();
  });
}

void Launcher::order_checkpoint(int32_t slot) {
  CkptState::Slot& s = ckpt_->slots[static_cast<size_t>(slot)];
  const uint64_t number = ++s.number;
  const int32_t host = slots_[static_cast<size_t>(slot)].host;
  DaemonEntry* d = host >= 0 && host < static_cast<int32_t>(daemons_.size()) ? &daemons_[static_cast<size_t>(host)]
                                                                              : nullptr;
  if (!d || !d->conn || d->link_closed || !slots_[static_cast<size_t>(slot)].alive) {
    ckpt_->sched.completed(slot, false, 0, now_ns());
    return;
  }
  d->conn->send(proto::CkptOrder{slot, number, static_cast<uint8_t>(opts_.ckpt.gc ? 1 : 0)});
  record(TimelineEvent("ckpt_order").add("rank", slot).add("number", number));
  const uint64_t limit_ms = opts_.ckpt.store == CkptStore::kLocal ? kOrderTimeoutMs : kStoredOrderTimeoutMs;
  s.timeout = loop_.after_ms(limit_ms, [this, slot, number, limit_ms] {
    CkptState::Slot& x = ckpt_->slots[static_cast<size_t>(slot)];
    x.timeout = 0;
    if (x.number != number) return;
    proto::CkptFacts f;
    f.number = number;
    f.why = "no safe point within " + std::to_string(limit_ms / 1000) + " s";
    finish_checkpoint(slots_[static_cast<size_t>(slot)].id, f);
  });
}

void Launcher::finish_checkpoint(const ProcId& who, const proto::CkptFacts& f) {
  CkptState::Slot& s = ckpt_->slots[static_cast<size_t>(who.slot)];
  if (s.timeout) loop_.cancel(s.timeout);
  s.timeout = 0;
  ckpt_->tally.on_checkpoint(f);
  say(ckpt_line(who, f));
  ckpt_->sched.completed(who.slot, f.ok != 0, f.pause_ns, now_ns());
  ckpt_tick();
}

void Launcher::on_ckpt_note(int32_t host, const proto::CkptNote& m) {
  if (m.who.slot < 0 || m.who.slot >= np_) return;
  if (!ckpt_) return;
  CkptState::Slot& s = ckpt_->slots[static_cast<size_t>(m.who.slot)];
  TimelineEvent e(m.facts.ok ? "checkpoint" : "checkpoint_failed");
  e.add("rank", m.who.slot).add("incarnation", m.who.incarnation).add("number", m.facts.number);
  if (m.facts.ok)
    e.add("host", host_name(host))
        .add("store", ckpt_store_name(m.facts.store))
        .add("image_pid", m.facts.image_pid)
        .add("resident", m.facts.resident)
        .add("pause_ms", static_cast<double>(m.facts.pause_ns) / 1e6)
        .add("log_bytes", m.facts.log_bytes)
        .add("dets_acked", m.facts.dets_acked);
  if (m.facts.ok && m.facts.store != proto::CkptFacts::kStoreLocal) {
    e.add("stored_bytes", m.facts.stored_bytes)
        .add("store_ms", static_cast<double>(m.facts.store_ns) / 1e6)
        .add("stored_at", m.facts.stored_at);
    if (!m.facts.store_error.empty()) e.add("store_error", m.facts.store_error);
  }
  if (!m.facts.ok)
    e.add("reason", m.facts.why);
  record(e, m.wall_ns);
  if (m.facts.number != s.number || s.timeout == 0) return;  // late: already counted as failed
  finish_checkpoint(m.who, m.facts);
}

void Launcher::on_ckpt_taken(const proto::CkptTaken& m) {
  // The daemon forwarded the rank's output up to the fork before this
  // frame: the image's output continues from here if it ever runs.
  if (m.who.slot >= 0 && m.who.slot < np_ && transparent()) once_.mark(m.who.slot, m.number);
}

void Launcher::on_ckpt_woken(const proto::CkptWoken& m) {
  if (m.who.slot < 0 || m.who.slot >= np_) return;
  const bool known = once_.resume_at(m.who.slot, m.number);
  const bool local = m.store == proto::CkptFacts::kStoreLocal;
  TimelineEvent e("restart_from_image");
  e.add("rank", m.who.slot)
      .add("incarnation", m.who.incarnation)
      .add("checkpoint", m.number)
      .add("store", ckpt_store_name(m.store))
      .add("pid", m.pid)
      .add("wake_ms", static_cast<double>(m.wake_ns) / 1e6);
  if (local) e.add("image_of", m.image_of.incarnation).add("messages_skipped", m.skipped);
  record(e, m.wall_ns);
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", static_cast<double>(m.wake_ns) / 1e6);
  const std::string line = "ftmpirun: rank " + std::to_string(m.who.slot) + " restarts from checkpoint " +
                           std::to_string(m.number);
  if (local)
    say(line + " (local image of incarnation " + std::to_string(m.image_of.incarnation) + ", running again " + ms +
        " ms after its death; " + std::to_string(m.skipped) + " messages it had need no replay)");
  else
    say(line + " (" + ckpt_store_name(m.store) + " image, restorer started " + ms + " ms after its death)");
  if (!known)
    FTMPI_LOG(kWarn, "ftmpirun", "rank %d: no output position for checkpoint %llu; its output may repeat",
              m.who.slot, static_cast<unsigned long long>(m.number));
}

void Launcher::on_log_note(const proto::LogNote& m) {
  if (!ckpt_ || m.who.slot < 0 || m.who.slot >= np_) return;
  ckpt_->tally.on_log(m.who.slot, m.figures);
  record(TimelineEvent("sender_log")
             .add("rank", m.who.slot)
             .add("incarnation", m.who.incarnation)
             .add("bytes", m.figures.log_bytes)
             .add("reclaimed", m.figures.reclaimed));
  // What every sender holds for each slot: the log-size trigger's figure.
  auto& row = ckpt_->held[static_cast<size_t>(m.who.slot)];
  row.assign(static_cast<size_t>(np_), 0);
  for (size_t d = 0; d < m.figures.held_for.size() && d < row.size(); ++d) row[d] = m.figures.held_for[d];
  for (int32_t d = 0; d < np_; ++d) {
    uint64_t sum = 0;
    for (const auto& r : ckpt_->held) sum += r.empty() ? 0 : r[static_cast<size_t>(d)];
    ckpt_->sched.set_held_for(d, sum);
  }
  ckpt_->sched.set_traffic(m.who.slot, m.figures.sent, m.figures.received);
  ckpt_tick();
}

void Launcher::ckpt_slot_down(int32_t slot) {
  if (!ckpt_ || slot < 0 || slot >= np_) return;
  CkptState::Slot& s = ckpt_->slots[static_cast<size_t>(slot)];
  if (s.timeout) loop_.cancel(s.timeout);
  s.timeout = 0;
  ckpt_->sched.slot_down(slot);
  ckpt_->held[static_cast<size_t>(slot)].clear();  // its log died with it
  ckpt_tick();
}

void Launcher::ckpt_slot_up(int32_t slot) {
  if (!ckpt_ || slot < 0 || slot >= np_) return;
  ckpt_->sched.slot_up(slot);
  ckpt_tick();
}

std::string Launcher::ckpt_summary() const { return ckpt_ ? ckpt_->tally.summary_line() : ""; }

void Launcher::ckpt_end_disk() {
  if (!opts_.ckpt.on || (opts_.ckpt.store != CkptStore::kDisk && opts_.ckpt.store != CkptStore::kMemory)) return;
  const std::string& dir = opts_.ckpt.disk_dir;
  // Memory images are the host's memory: a failed job does not keep them.
  const bool keep = opts_.ckpt.store == CkptStore::kDisk && (opts_.ckpt.keep || outcome_.exit_status() != 0);
  if (keep) say("ftmpirun: checkpoint images kept in " + dir + " (" + ckpt_job_ + ".r*.img)");
  // The job's images unless kept, and in any case the temporary files of
  // copies killed while writing (with their rank, at its end).
  for (const ckpt_files::ImageFile& f : ckpt_files::job_images(dir, ckpt_job_))
    if ((!keep || !f.whole) && ::unlink(f.path.c_str()) != 0) say("ftmpirun: cannot remove checkpoint image " + f.path);
  // Shared by the host's jobs: gone only when the last one leaves it empty.
  if (opts_.ckpt.store == CkptStore::kMemory) (void)::rmdir(dir.c_str());
}

}  // namespace ftmpi::rte

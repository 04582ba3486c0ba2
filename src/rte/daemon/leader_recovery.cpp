// The leader's recovery rounds and REBUILD respawns (spec/ft-semantics.md §5).
//
// A round begins with the first RECOVER_REQ (or the card of a respawned
// process) after the previous one, and completes once every live process
// that is not in its finalize fence has asked, respawned ones counting once
// their card arrived. Failures while it runs only shrink the set it waits for
// (and, in REBUILD, respawn the slot again). Completion installs epoch + 1,
// sends the cards of all live processes and the episode's failures to every
// daemon, and resets the per-slot respawn counters of the live processes.
#include <algorithm>

#include "base/clock.hpp"
#include "base/log.hpp"
#include "rte/common/event_loop.hpp"
#include "rte/daemon/leader.hpp"

namespace ftmpi::rte {

int32_t Leader::respawn_host(int32_t own_host, const std::vector<bool>& host_lost, bool movable) {
  int32_t n = static_cast<int32_t>(host_lost.size());
  if (own_host < 0 || own_host >= n) return -1;
  if (!host_lost[static_cast<size_t>(own_host)]) return own_host;
  if (!movable) return -1;
  for (int32_t i = 1; i < n; ++i) {
    int32_t h = (own_host + i) % n;
    if (!host_lost[static_cast<size_t>(h)]) return h;
  }
  return -1;
}

void Leader::forget_round_state(int32_t slot) {
  size_t s = static_cast<size_t>(slot);
  asked_[s] = false;
  restarted_[s] = false;
  joined_[s] = false;
}

void Leader::on_recover(int32_t from_host, const proto::RecoverUp& m) {
  if (!state_.recovers()) {
    FTMPI_LOG(kWarn, "leader", "host %d asked for recovery in a mode without rounds", from_host);
    return;
  }
  bool any = false;
  for (const ProcId& p : m.procs) {
    if (!state_.current(p) || state_.proc(p.slot).host != from_host || !state_.alive(p.slot)) continue;
    size_t s = static_cast<size_t>(p.slot);
    if (!cards_done_ || (restarted_[s] && !joined_[s])) {
      FTMPI_LOG(kWarn, "leader", "rank %d asked for recovery before joining the job; ignored", p.slot);
      continue;
    }
    asked_[s] = true;
    any = true;
  }
  if (any && !round_active_) begin_round();
  check_round();
}

void Leader::on_restart_card(const Card& c) {
  size_t s = static_cast<size_t>(c.id.slot);
  cards_[s] = c;
  state_.proc(c.id.slot).pid = c.pid;
  joined_[s] = true;
  if (!round_active_) begin_round();
  check_round();
}

void Leader::begin_round() {
  round_active_ = true;
  round_start_ns_ = now_ns();
  proto::RecoveryReport r;
  r.kind = proto::RecoveryReport::kBegin;
  r.epoch = state_.epoch() + 1;
  for (const proto::ProcFailure& f : state_.events())
    if (f.seq > state_.round_seq()) r.failed.push_back(f.who);
  r.last_event_seq = state_.last_seq();
  r.wall_ns = wall_clock_ns();
  FTMPI_LOG(kInfo, "leader", "recovery round for epoch %u begins", r.epoch);
  out_.to_launcher(proto::make_frame(r));
}

void Leader::check_round() {
  if (!round_active_ || ending_) return;
  for (int32_t slot = 0; slot < state_.world_size(); ++slot) {
    size_t s = static_cast<size_t>(slot);
    if (!state_.alive(slot) || fenced_[s]) continue;
    if (restarted_[s] ? !joined_[s] : !asked_[s]) return;
  }
  complete_round();
}

void Leader::complete_round() {
  proto::RecoverDoneDown done;
  RecoveryResult& r = done.result;
  r.epoch = state_.epoch() + 1;
  r.cards.resize(static_cast<size_t>(state_.world_size()));
  std::vector<ProcId> respawned;
  uint32_t alive = 0;
  for (int32_t slot = 0; slot < state_.world_size(); ++slot) {
    size_t s = static_cast<size_t>(slot);
    Card& c = r.cards[s];
    if (state_.alive(slot) && cards_[s]) {
      c = *cards_[s];
      ++alive;
    } else {
      c = Card{};
      c.id = state_.proc(slot).id;  // host -1: dead or ended
    }
    if (state_.alive(slot) && restarted_[s]) respawned.push_back(state_.proc(slot).id);
  }
  for (const proto::ProcFailure& f : state_.events())
    if (f.seq > state_.round_seq()) r.failed.push_back(f.who);
  r.last_event_seq = state_.last_seq();
  state_.set_epoch(r.epoch, r.last_event_seq);
  for (int32_t slot = 0; slot < state_.world_size(); ++slot) {
    if (!state_.alive(slot)) continue;
    forget_round_state(slot);
    respawns_[static_cast<size_t>(slot)] = 0;
  }
  round_active_ = false;
  FTMPI_LOG(kInfo, "leader", "recovery round done: epoch %u, %u alive, %zu failed, %zu respawned", r.epoch, alive,
            r.failed.size(), respawned.size());
  proto::RecoveryReport report;
  report.kind = proto::RecoveryReport::kDone;
  report.epoch = r.epoch;
  report.alive = alive;
  report.failed = r.failed;
  report.respawned = std::move(respawned);
  report.last_event_seq = r.last_event_seq;
  report.duration_ns = now_ns() - round_start_ns_;
  report.wall_ns = wall_clock_ns();
  out_.to_all_daemons(proto::make_frame(done));
  out_.to_launcher(proto::make_frame(report));
}

void Leader::respawn(int32_t slot) {
  if (ending_ || state_.alive(slot)) return;
  size_t s = static_cast<size_t>(slot);
  const ProcEntry& p = state_.proc(slot);
  if (respawns_[s] >= state_.max_respawn()) {
    job_failed("rank " + std::to_string(slot) + " failed " + std::to_string(respawns_[s] + 1) +
               (state_.transparent() ? " times without its replay catching up (FTMPI_MAX_RESPAWN="
                                     : " times without completing a recovery round (FTMPI_MAX_RESPAWN=") +
               std::to_string(state_.max_respawn()) + "); giving up");
    return;
  }
  // A slot whose host is lost moves to the next live host (its daemon adopts it).
  int32_t host = respawn_host(p.host, host_lost_, /*movable=*/true);
  if (host < 0) {
    job_failed("no live host is left to respawn rank " + std::to_string(slot) + " on");
    return;
  }
  ++respawns_[s];
  ProcId next{slot, p.id.incarnation + 1};
  state_.apply_respawn(next, host);
  forget_round_state(slot);
  restarted_[s] = true;
  fenced_[s] = false;
  cards_[s].reset();
  FTMPI_LOG(kInfo, "leader", "respawning rank %d as incarnation %u on host %d", slot, next.incarnation, host);
  std::vector<uint8_t> frame = proto::make_frame(proto::Respawn{next, host});
  out_.to_all_daemons(frame);
  out_.to_launcher(frame);  // after the failure report, on the same link
}

}  // namespace ftmpi::rte

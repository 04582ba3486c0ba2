// Leader succession and views.
//
// The launcher declares hosts lost and names the leader (the lowest live
// host). A daemon that becomes leader because its predecessor's host is lost
// has the replicated JobState and the broadcast log, but not the gathers in
// progress (cards, fences, recovery requests) nor the normal ends its
// predecessor saw. So it first waits for a HOST_SYNC from every live host:
// each daemon sends one after attaching to the new tree, behind any log
// entries it held that the new leader lacked (log fills travel the same
// links first). Then it rebuilds its state from the log, applies the syncs,
// the frames queued meanwhile and the hosts the view lost, and goes on.
// HOST_SYNCs that reach a leader outside a takeover fill in what was lost
// with a relaying daemon; applying one twice changes nothing. A daemon that
// never answers does not stall the job: after the daemon's takeover timeout
// the leader goes on without it (give_up_waiting) and reports it to the
// launcher, which decides whether that host is lost.
#include <algorithm>

#include "base/log.hpp"
#include "rte/daemon/leader.hpp"
#include "rte/proto/event_log_messages.hpp"

namespace ftmpi::rte {

using proto::MsgType;

void Leader::begin_takeover(uint32_t term, const std::vector<bool>& lost) {
  syncing_ = true;
  takeover_term_ = term;
  size_t n = std::max(host_lost_.size(), lost.size());
  host_lost_.resize(n, false);
  for (size_t h = 0; h < lost.size(); ++h) host_lost_[h] = host_lost_[h] || lost[h];
  syncs_.assign(n, std::nullopt);
  FTMPI_LOG(kInfo, "leader", "taking over as leader in view %u; waiting for every live daemon", term);
}

std::vector<int32_t> Leader::unsynced_hosts() const {
  std::vector<int32_t> out;
  if (!syncing_) return out;
  for (size_t h = 0; h < host_lost_.size(); ++h)
    if (!host_lost_[h] && !syncs_[h]) out.push_back(static_cast<int32_t>(h));
  return out;
}

std::vector<int32_t> Leader::give_up_waiting() {
  std::vector<int32_t> silent = unsynced_hosts();
  if (syncing_) finish_takeover();
  return silent;
}

void Leader::on_view(const std::vector<bool>& lost) {
  std::vector<int32_t> newly;
  if (lost.size() > host_lost_.size()) host_lost_.resize(lost.size(), false);
  for (size_t h = 0; h < lost.size(); ++h)
    if (lost[h] && !host_lost_[h]) newly.push_back(static_cast<int32_t>(h));
  if (syncing_) {
    // Stop waiting for them; their ranks fail when the takeover completes.
    for (int32_t h : newly) host_lost_[static_cast<size_t>(h)] = true;
    if (unsynced_hosts().empty()) finish_takeover();
    return;
  }
  for (int32_t h : newly) on_daemon_lost(h);
}

void Leader::on_host_sync(int32_t from_host, const proto::HostSync& m) {
  if (from_host < 0 || from_host >= static_cast<int32_t>(host_lost_.size())) return;
  if (syncing_) {
    if (m.term < takeover_term_ || host_lost_[static_cast<size_t>(from_host)]) return;
    syncs_[static_cast<size_t>(from_host)] = m;
    if (unsynced_hosts().empty()) finish_takeover();
    return;
  }
  if (host_lost_[static_cast<size_t>(from_host)]) return;
  apply_sync(from_host, m);
}

void Leader::finish_takeover() {
  syncing_ = false;
  restore(out_.logged_broadcasts());
  // Slots the predecessor saw fail but did not get to respawn (REBUILD).
  std::vector<int32_t> unrespawned;
  if (state_.respawns() && !ending_)
    for (int32_t s = 0; s < state_.world_size(); ++s)
      if (state_.proc(s).state == ProcState::kDead) unrespawned.push_back(s);
  FTMPI_LOG(kInfo, "leader", "took over: epoch %u, %llu events, %d alive, %zu to respawn", state_.epoch(),
            static_cast<unsigned long long>(state_.last_seq()), state_.count_alive(), unrespawned.size());
  for (size_t h = 0; h < syncs_.size(); ++h)
    if (syncs_[h] && !host_lost_[h]) apply_sync(static_cast<int32_t>(h), *syncs_[h]);
  syncs_.clear();
  std::vector<std::pair<int32_t, proto::Frame>> queued;
  queued.swap(queued_);
  for (const auto& [host, f] : queued)
    if (!host_lost_[static_cast<size_t>(host)]) on_frame(host, f);
  for (int32_t s : unrespawned) {
    if (!cards_done_)
      respawn_waiting_.push_back(s);
    else
      respawn(s);
  }
  for (size_t h = 0; h < host_lost_.size(); ++h)
    if (host_lost_[h]) on_daemon_lost(static_cast<int32_t>(h));
  check_all();
}

void Leader::restore(const std::vector<proto::Frame>& log) {
  using proto::with_parsed;
  for (const proto::Frame& f : log) {
    switch (static_cast<MsgType>(f.type)) {
      case MsgType::kCardTableDown:
        with_parsed<proto::CardTableDown>(f, [&](auto& m) {
          cards_done_ = true;
          for (const Card& c : m.cards)
            if (c.host >= 0 && state_.valid_slot(c.id.slot)) cards_[static_cast<size_t>(c.id.slot)] = c;
        });
        break;
      case MsgType::kFenceDown:
        fence_done_ = true;
        std::fill(fenced_.begin(), fenced_.end(), true);
        break;
      case MsgType::kEventDown:
        with_parsed<proto::EventDown>(f, [&](auto& m) {
          if (state_.valid_slot(m.failure.who.slot)) forget_round_state(m.failure.who.slot);
        });
        break;
      case MsgType::kRespawn:
        with_parsed<proto::Respawn>(f, [&](auto& m) {
          size_t s = static_cast<size_t>(m.who.slot);
          if (!state_.valid_slot(m.who.slot)) return;
          forget_round_state(m.who.slot);
          restarted_[s] = true;
          fenced_[s] = false;
          cards_[s].reset();
          ++respawns_[s];
        });
        break;
      case MsgType::kRecoverDoneDown:
        with_parsed<proto::RecoverDoneDown>(f, [&](auto& m) {
          for (const Card& c : m.result.cards) {
            if (c.host < 0 || !state_.valid_slot(c.id.slot)) continue;
            size_t s = static_cast<size_t>(c.id.slot);
            forget_round_state(c.id.slot);
            respawns_[s] = 0;
            cards_[s] = c;
          }
        });
        break;
      case MsgType::kProcRestartedDown:
        with_parsed<proto::ProcRestartedDown>(f, [&](auto& m) {
          if (!state_.valid_slot(m.card.id.slot)) return;
          size_t s = static_cast<size_t>(m.card.id.slot);
          restarted_[s] = false;
          joined_[s] = true;
          cards_[s] = m.card;
          // Replay reports are not in the log: a successor counts failures
          // since the slot last joined (never more than its predecessor did).
          respawns_[s] = 0;
        });
        break;
      case MsgType::kEndJob: ending_ = true; break;
      default: break;
    }
  }
}

void Leader::apply_sync(int32_t from_host, const proto::HostSync& m) {
  auto owns = [&](const ProcId& p) { return state_.current(p) && state_.proc(p.slot).host == from_host; };
  for (const Card& c : m.cards) {
    if (!owns(c.id) || !state_.alive(c.id.slot)) continue;
    size_t s = static_cast<size_t>(c.id.slot);
    if (!cards_done_) {
      cards_[s] = c;
      state_.proc(c.id.slot).pid = c.pid;
    } else if (restarted_[s] && !joined_[s]) {
      state_.transparent() ? on_transparent_card(c) : on_restart_card(c);
    }
  }
  for (const ProcId& p : m.fenced)
    if (owns(p)) fenced_[static_cast<size_t>(p.slot)] = true;
  bool asked = false;
  // Requests a daemon made before the round it has not heard of yet were
  // answered by that round: only those for the round after ours count.
  if (m.epoch == state_.epoch() && cards_done_ && state_.recovers()) {
    for (const ProcId& p : m.asked) {
      size_t s = static_cast<size_t>(p.slot);
      if (!owns(p) || !state_.alive(p.slot) || (restarted_[s] && !joined_[s])) continue;
      asked_[s] = true;
      asked = true;
    }
  }
  for (const proto::ProcExit& e : m.ended) on_proc_exit(from_host, e);
  if (asked && !round_active_ && !ending_) begin_round();
  check_all();
}

}  // namespace ftmpi::rte

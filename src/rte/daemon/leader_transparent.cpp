// The leader in transparent mode (DESIGN §8): a failed slot restarts at once
// (Leader::fail -> respawn, as in REBUILD) but never through a recovery
// round: the epoch does not change and the survivors keep running. The new
// incarnation joins as soon as its card arrives; the leader then tells every
// daemon (PROC_RESTARTED_DOWN, logged, so a successor knows it joined), and
// each daemon passes the card to its running ranks and the current table to
// the new process.
#include "base/log.hpp"
#include "rte/daemon/leader.hpp"

namespace ftmpi::rte {

void Leader::on_transparent_card(const Card& c) {
  size_t s = static_cast<size_t>(c.id.slot);
  cards_[s] = c;
  state_.proc(c.id.slot).pid = c.pid;
  restarted_[s] = false;
  joined_[s] = true;
  proto::ProcRestartedDown m;
  m.card = c;
  m.last_event_seq = state_.last_seq();
  m.table.resize(static_cast<size_t>(state_.world_size()));
  for (int32_t slot = 0; slot < state_.world_size(); ++slot) {
    size_t i = static_cast<size_t>(slot);
    // Restarted slots that have not joined yet appear as unreachable: their
    // own PROC_RESTARTED_DOWN will follow.
    if (state_.alive(slot) && cards_[i] && !restarted_[i]) {
      m.table[i] = *cards_[i];
    } else {
      m.table[i] = Card{};
      m.table[i].id = state_.proc(slot).id;
    }
  }
  FTMPI_LOG(kInfo, "leader", "rank %d.%u restarted (pid %d on host %d)", c.id.slot, c.id.incarnation, c.pid, c.host);
  out_.to_all_daemons(proto::make_frame(m));
}

void Leader::on_replay(int32_t from_host, const proto::ReplayUp& m) {
  if (!state_.transparent() || !state_.current(m.who) || state_.proc(m.who.slot).host != from_host) return;
  if (m.phase == 2) respawns_[static_cast<size_t>(m.who.slot)] = 0;
  proto::ReplayNote note;
  note.who = m.who;
  note.phase = m.phase;
  note.determinants = m.determinants;
  note.messages = m.messages;
  note.suppressed = m.suppressed;
  note.wall_ns = m.wall_ns;
  out_.to_launcher(proto::make_frame(note));
}

void Leader::on_ckpt_kept(int32_t from_host, const proto::CkptKeptUp& m) {
  if (ending_ || !state_.transparent() || !state_.current(m.who) || !state_.alive(m.who.slot) ||
      state_.proc(m.who.slot).host != from_host)
    return;
  // Marked here first: from now on the slot restarts from an image or not
  // at all. Every daemon marks it too before it drops anything.
  state_.mark_collected(m.who.slot, m.number);
  out_.to_all_daemons(proto::make_frame(proto::CkptKeptDown{m.who, m.number, m.dets_acked}));
}

void Leader::on_restart_refused(int32_t from_host, const proto::RestartRefusedUp& m) {
  if (!state_.current(m.who) || state_.proc(m.who.slot).host != from_host) return;
  job_failed(m.why);
}

}  // namespace ftmpi::rte

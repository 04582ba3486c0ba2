// ftmpid: garbage collection after a checkpoint (transparent mode;
// spec/checkpoint-protocol.md §5).
//
// Order matters more than speed here. A daemon that holds a new image of a
// rank (on_ckpt_done kept it and dropped the previous one) tells the
// leader; the leader marks the slot collected in the job state and tells
// every daemon (CKPT_KEPT_DOWN, logged: a successor leader and a daemon
// that adopts the slot after a host loss know it too). Only when that word
// comes back does anything get dropped: each daemon drops the slot's
// determinant batches the image had consumed (its primary copy, or its
// replica as the buddy), and the slot's daemon tells the rank (CKPT_KEPT),
// whose logging module tells its senders what the image accepted. So every
// daemon that may be asked to restart the slot knows that a restart from
// the program's start is wrong before any sender or logger dropped a byte.
#include "base/log.hpp"
#include "rte/daemon/daemon.hpp"

namespace ftmpi::rte {

void Daemon::ckpt_kept(const ProcId& who, const proto::CkptFacts& f) {
  to_leader(proto::make_frame(proto::CkptKeptUp{who, f.number, f.dets_acked}));
}

void Daemon::on_ckpt_kept_down(const proto::CkptKeptDown& m) {
  state_.mark_collected(m.who.slot, m.number);
  take_staged(m.who.slot);  // staged batches may be among those to drop
  const size_t dropped = primary_.drop_through(m.who.slot, m.who.incarnation, m.dets_acked) +
                         replicas_.drop_through(m.who.slot, m.who.incarnation, m.dets_acked);
  if (dropped > 0)
    FTMPI_LOG(kDebug, "ftmpid", "event log: checkpoint %llu of rank %d.%u: %zu bytes of determinants dropped",
              static_cast<unsigned long long>(m.number), m.who.slot, m.who.incarnation, dropped);
  LocalRank* r = ranks_.find(m.who.slot);
  if (r && r->id == m.who && r->running() && r->ctrl) r->ctrl->send(proto::CkptKept{m.number});
}

bool Daemon::refuse_restart_from_start(const ProcId& who) {
  const uint64_t number = state_.collected(who.slot);
  if (number == 0) return false;
  // A stored image (buddy, disk) prepared for the spawn serves if it is
  // not older than what was collected; garbage is collected only once a
  // stored image is confirmed, so the newest one always is.
  auto restore = restoring_.find(who.slot);
  if (restore != restoring_.end() && restore->second.incarnation == who.incarnation &&
      restore->second.number >= number)
    return false;
  FTMPI_LOG(kDebug, "ftmpid", "rank %d cannot restart from the program's start (collected after checkpoint %llu)",
            who.slot, static_cast<unsigned long long>(number));
  to_leader(proto::make_frame(proto::RestartRefusedUp{
      who, "rank " + std::to_string(who.slot) + " cannot be restarted: its checkpoint " + std::to_string(number) +
               " let its senders and the event logger drop what a restart from the program's start needs, "
               "and no image of it is left to restart from"}));
  return true;
}

}  // namespace ftmpi::rte

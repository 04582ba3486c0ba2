// Fault tolerance inside the engine (spec/ft-semantics.md §4.1, §4.4, §6):
// which arriving frames are accepted, dropped or held for a later epoch or
// incarnation; withdrawing blocking calls when a failure interrupts them;
// installing the outcome of a recovery round.
#include <algorithm>

#include "base/log.hpp"
#include "p2p/engine_state.hpp"

namespace ftmpi::p2p {

void Engine::hold(int32_t slot, bool successor, const uint8_t* hdr, size_t hlen, const uint8_t* payload,
                  size_t plen) {
  if (successor) peer(slot).successor_held = true;
  Held h;
  h.slot = slot;
  h.hdr.assign(hdr, hdr + hlen);
  if (plen) h.payload.assign(payload, payload + plen);
  held_.push_back(std::move(h));
}

void Engine::purge_unexpected_from(int32_t slot) {
  match_.for_each([&](uint64_t, MatchTable::Queues& q) {
    for (Unexpected* u = q.unexp_head; u;) {
      Unexpected* next = u->next;
      if (u->hdr.src_slot == slot) {
        match_.remove_unexpected(q, u);
        match_.free_unexpected(u);
      }
      u = next;
    }
  });
}

void Engine::interrupt_blocking() {
  interrupted_ = true;
  std::vector<Request*> victims;
  pool_.for_each_live([&](Request* r) {
    if (r->blocking && r->active && !r->complete && !r->ft_interrupted) victims.push_back(r);
  });
  for (Request* r : victims) {
    if (r->kind == ReqKind::kRecv) {
      if (r->proto != Proto::kPosted) continue;  // matched: the transfer finishes
      match_.unpost(r);
      r->st_err = Err::kOther;
      complete(r);
      continue;
    }
    switch (r->proto) {
      case Proto::kQueued:  // never left this process
        unqueue(r);
        r->st_err = Err::kOther;
        complete(r);
        break;
      case Proto::kWaitAck:
      case Proto::kWaitCts:
      case Proto::kWaitFin:
        // The receiver may not have matched it yet: ask it to drop the
        // message. Either it was withdrawn (MPI_ERR_OTHER, never delivered)
        // or it had matched and the send completes normally.
        r->ft_interrupted = true;
        cancel(r);
        break;
      default:
        break;  // streaming DATA: matched, finishes
    }
  }
}

void Engine::end_all_pending(Err err) {
  // Control frames are never purged (control.cpp); everything else queued goes.
  pending_peers_.clear();
  for (size_t s = 0; s < peers_.size(); ++s) {
    std::deque<Pending>& q = peers_[s].pending;
    std::erase_if(q, [](const Pending& f) { return f.raw.empty(); });
    if (!q.empty()) pending_peers_.push_back(static_cast<int32_t>(s));
  }
  pushing_.clear();
  std::vector<Request*> victims;
  pool_.for_each_live([&](Request* r) {
    if (r->active && !r->complete) victims.push_back(r);
  });
  for (Request* r : victims) {
    if (r->kind == ReqKind::kRecv && r->proto == Proto::kPosted) match_.unpost(r);
    r->cancel_pending = false;
    r->st_err = err;
    complete(r);
  }
  match_.for_each([&](uint64_t, MatchTable::Queues& q) {
    while (Unexpected* u = q.unexp_head) {
      match_.remove_unexpected(q, u);
      match_.free_unexpected(u);
    }
  });
}

// CONT keeps point-to-point traffic across a recovery, but what interrupted
// collectives left on collective contexts (frames nobody received, receives
// posted to drain them) would match a collective of the new epoch with the
// same call number.
void Engine::drop_collective_leftovers() {
  std::vector<Request*> victims;
  pool_.for_each_live([&](Request* r) {
    if (r->kind == ReqKind::kRecv && r->active && !r->complete && r->proto == Proto::kPosted &&
        comm::is_coll_context(r->ctx))
      victims.push_back(r);
  });
  for (Request* r : victims) {
    match_.unpost(r);
    r->st_err = Err::kOther;
    complete(r);
  }
  size_t dropped = 0;
  match_.for_each([&](uint64_t ctx, MatchTable::Queues& q) {
    if (!comm::is_coll_context(ctx)) return;
    for (Unexpected* u = q.unexp_head; u;) {
      Unexpected* next = u->next;
      if (u->hdr.epoch < epoch_) {
        match_.remove_unexpected(q, u);
        match_.free_unexpected(u);
        ++dropped;
      }
      u = next;
    }
  });
  if (!victims.empty() || dropped)
    FTMPI_LOG(kDebug, "p2p", "CONT: %zu collective receives ended, %zu collective frames of older epochs dropped",
              victims.size(), dropped);
}

void Engine::install_peer(int32_t slot, const rte::Card& c) {
  Peer& p = peer(slot);
  p.inc = c.id.incarnation;
  p.pid = c.pid;
  p.alive = true;
  cards_[static_cast<size_t>(slot)] = c;
  connect_peer(slot, c);
}

void Engine::install_recovery(const RecoveryInstall& in) {
  epoch_ = in.epoch;
  epoch_discard_ = in.discard_all;
  for (size_t s = 0; s < in.cards.size() && s < peers_.size(); ++s) {
    const int32_t slot = static_cast<int32_t>(s);
    const rte::Card& c = in.cards[s];
    Peer& p = peers_[s];
    if (slot == self_.slot) continue;
    if (c.host < 0 || c.id.incarnation < p.inc) {
      mark_dead(slot);  // normally we had the notice already
      continue;
    }
    // A replacement. (The same incarnation stays dead once we heard it died,
    // even if the round that just ended still counted it as live: that
    // failure opens the next episode.)
    if (c.id.incarnation > p.inc) {
      mark_dead(slot);
      install_peer(slot, c);
    }
  }
  // Requests that ended because their peer died are invalid from now on, in
  // both message modes (FT-MPI §5 rule 1 and its "for discussion" on requests
  // to failed processes; spec/ft-semantics.md §4.4): MPI_ERR_REQUEST.
  pool_.for_each_live([&](Request* r) {
    if (r->failed_by_death && r->complete) r->st_err = Err::kRequest;
  });
  if (in.discard_all) {
    // RESET: nothing of an older generation is received in this one.
    end_all_pending(Err::kOther);
  } else {
    drop_collective_leftovers();
  }
  // Persistent requests on MPI_COMM_WORLD keep addressing the same process
  // under its new rank (SHRINK). One whose peer died is invalid (MPI_Start
  // gives MPI_ERR_REQUEST) unless REBUILD replaced it: then the rank names
  // the replacement. (A request made to a rank that was already a blank
  // keeps acting as MPI_PROC_NULL.)
  if (in.world && in.old_world) {
    const comm::Group& now = in.world->peer_group();
    pool_.for_each_live([&](Request* r) {
      if (!r->persistent || r->comm != in.world || r->peer_rank < 0 || r->peer_rank >= in.old_world->size()) return;
      const ProcId before = in.old_world->at(r->peer_rank);
      if (!before.valid()) return;
      const int rank = now.rank_of_slot(before.slot);
      if (rank >= 0 && now.at(rank).valid()) r->peer_rank = rank;
      else r->peer_gone = true;
    });
  }
  size_t replayed = replay_held();
  FTMPI_LOG(kDebug, "p2p", "installed epoch %u (%zu held frames replayed)", epoch_, replayed);
}

size_t Engine::replay_held() {
  // Frames that waited for this epoch or for a new incarnation; those still
  // too new are held again.
  std::vector<Held> held;
  held.swap(held_);
  for (const Held& h : held) peer(h.slot).successor_held = false;
  for (Held& h : held)
    on_frame(h.slot, h.hdr.data(), h.hdr.size(), h.payload.empty() ? nullptr : h.payload.data(), h.payload.size());
  return held.size();
}

}  // namespace ftmpi::p2p

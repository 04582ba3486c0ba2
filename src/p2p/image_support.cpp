// What the checkpoint module asks of the engine (spec/checkpoint-protocol.md):
// kept apart from the protocol files so that the transports can change
// under it.
#include <sys/epoll.h>
#include <unistd.h>

#include "base/log.hpp"
#include "p2p/engine.hpp"
#include "p2p/engine_state.hpp"

namespace ftmpi::p2p {

bool Engine::quiescent() {
  if (active_sends_ > abandoned_sends_ || !pending_peers_.empty() || !pushing_.empty() || !held_.empty()) return false;
  for (const Peer& p : peers_) {
    if (p.awaiting_resend > 0) return false;
    if (p.link && !p.link->tx->drained(p.addr)) return false;
  }
  bool busy = false;
  pool_.for_each_live([&](Request* r) {
    switch (r->proto) {
      case Proto::kIdle:
      case Proto::kPosted:
      case Proto::kDone: break;
      default: busy = true;
    }
  });
  return !busy;
}

void Engine::restrict_wildcard(MatchTable::Queues& q, Request* r, int32_t slot, uint64_t seq) {
  if (!aim_wildcard(r, slot, seq)) return;
  // Posted before its message arrived, unless that came as a re-sent copy.
  if (Unexpected* u = match_.find_unexpected(q, slot, r->tag, true, seq)) {
    match_.unpost(r);
    match_unexpected(r, u);
  }
}

uint64_t Engine::first_unpulled(int32_t slot) {
  uint64_t first = 0;
  match_.for_each([&](uint64_t, MatchTable::Queues& mq) {
    for (Unexpected* u = mq.unexp_head; u; u = u->next)
      if (u->hdr.type == MsgType::kRts && u->hdr.src_slot == slot && (first == 0 || u->hdr.seq < first))
        first = u->hdr.seq;
  });
  return first;
}

Err Engine::resume(const rte::BootInfo& boot, std::vector<ProcId>& up) {
  if (boot.self.slot != self_.slot || boot.world_size != world_size()) return Err::kIntern;
  links_->shm.forget();
  links_->tcp.forget();
  links_.reset();
  boot_ = boot;
  self_ = boot.self;
  have_remote_ = false;
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epfd_ < 0) return Err::kIntern;
  if (Err e = open_links(boot); !ok(e)) return e;
  rte::Card mine;
  mine.id = self_;
  mine.host = boot.host;
  mine.pid = static_cast<int32_t>(getpid());
  mine.tcp_addr = links_->tcp.addr();
  mine.tcp_port = links_->tcp.port();
  std::vector<rte::Card> table;
  if (Err e = client_->exchange_cards(mine, table); !ok(e)) return e;
  if (table.size() != cards_.size()) return Err::kIntern;
  // A large message that was unexpected here refers to its sender's memory
  // as it was then: the sender sends it again to this incarnation (its own
  // unfinished send, or its log), and the new RTS takes the old one's place.
  match_.for_each([&](uint64_t, MatchTable::Queues& mq) {
    for (Unexpected* u = mq.unexp_head; u; u = u->next) {
      if (u->hdr.type != MsgType::kRts || u->stale) continue;
      u->stale = true;
      ++peer(u->hdr.src_slot).awaiting_resend;
    }
  });
  for (size_t s = 0; s < table.size(); ++s) {
    const int32_t slot = static_cast<int32_t>(s);
    const rte::Card& c = table[s];
    Peer& p = peers_[s];
    p.link = nullptr;
    p.addr = -1;
    if (slot == self_.slot) {
      p.inc = self_.incarnation;
      p.pid = mine.pid;
      cards_[s] = c;
      continue;
    }
    if (c.host >= 0) {
      install_peer(slot, c);
      p.down = false;
      up.push_back(c.id);
      continue;
    }
    // Restarting now: like a slot restarting when a process starts (init).
    cards_[s] = c;
    p.inc = c.id.incarnation;
    p.pid = c.pid;
    p.alive = true;
    p.down = true;
    Pending gate;
    gate.gate = true;
    p.pending.push_back(std::move(gate));
    pending_peers_.push_back(slot);
  }
  watch_fd(client_->fd(), kWaitCtrl);
  FTMPI_LOG(kDebug, "p2p", "resumed as %d.%u: %zu peers up, shm %s", self_.slot, self_.incarnation, up.size(),
            links_->shm.active() ? "on" : "off");
  return Err::kOk;
}

}  // namespace ftmpi::p2p

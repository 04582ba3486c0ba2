// The engine's transports: where they are made, given peers and closed.
// These four functions are the only places that create or destroy transport
// state, so that re-creating it (a process image woken up as a new
// incarnation) has one sequence to follow: open_links, connect_peer per
// live slot, and close_links before the process goes.
#include <sys/epoll.h>

#include <algorithm>

#include "base/log.hpp"
#include "base/params.hpp"
#include "p2p/engine_state.hpp"

namespace ftmpi::p2p {

void Engine::Links::on_frame(int32_t peer_slot, const uint8_t* hdr, size_t hlen, const uint8_t* payload,
                             size_t plen) {
  engine.on_frame(peer_slot, hdr, hlen, payload, plen);
}

void Engine::Links::on_peer_lost(int32_t peer_slot) { engine.on_peer_lost(peer_slot); }

void Engine::watch_fd(int fd, uint64_t tag) {
  if (fd < 0) return;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = tag;
  epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev);
}

Err Engine::open_links(const rte::BootInfo& boot) {
  // Fresh transports; every peer is connected to them afterwards (connect_peer).
  links_ = std::make_unique<Links>(*this);
  Links& L = *links_;
  // 64 KiB when the host's ranks share cores: a rendezvous costs the sender
  // a wait for its receiver to run (several scheduler round trips); an
  // eager copy into the ring costs less up to there (docs/benchmarks.md, CG
  // np 4/8). 32 KiB when each has a core: above that the receiver's single
  // copy (process_vm_readv) streams faster than the two copies through the
  // ring (64 KiB: 1.6x, docs/benchmarks.md, issue 15). The ring's record
  // size caps it (32 KiB with 5-16 local ranks).
  const bool own_cores = boot.local_slots.size() <= static_cast<size_t>(ncpus_);
  const uint64_t shm_eager = params::get_size("FTMPI_SHM_EAGER", own_cores ? 32u << 10 : 64u << 10);
  const uint64_t tcp_eager = params::get_size("FTMPI_TCP_EAGER", 64u << 10);
  const uint64_t tcp_chunk = params::get_size("FTMPI_TCP_CHUNK", 256u << 10);
  const std::string want = params::get_str("FTMPI_TRANSPORT", "auto");  // auto | tcp

  L.shm_link.eager = shm_eager;
  L.shm_link.cma = true;
  if (want != "tcp" && boot.local_slots.size() > 1) {
    transport::ShmConfig cfg;
    cfg.memfd = boot.shm_fd;
    cfg.my_local = boot.local_index;
    cfg.local_slots = boot.local_slots;
    cfg.doorbells = boot.doorbell_fds;
    if (Err e = L.shm.init(cfg); !ok(e)) return e;
    L.shm_link.eager = std::min<uint64_t>(shm_eager, L.shm.max_payload(sizeof(MatchHdr)));
    // Half a ring record: the reader frees one piece while we fill the next.
    L.shm_link.chunk = L.shm.max_payload(sizeof(CtlHdr)) / 2;
  }
  L.tcp_link.eager = tcp_eager;
  L.tcp_link.chunk = tcp_chunk;
  // Two pieces in flight keep the socket busy without queueing the message.
  L.tcp.set_queue_limit(2 * tcp_chunk);
  if (!boot.singleton) {
    if (Err e = L.tcp.init(boot.tcp_bind_addr, boot.secret, self_); !ok(e)) return e;
  }
  self_eager_ = std::max(L.shm_link.eager, tcp_eager);
  // Control frames must fit one ring record (they are never split).
  max_control_ = 64u << 10;
  if (L.shm.active()) max_control_ = std::min<size_t>(max_control_, L.shm.max_payload(sizeof(ControlHdr)));
  watch_fd(L.tcp.epoll_fd(), kWaitTcp);
  if (L.shm.active()) watch_fd(L.shm.doorbell_fd(), kWaitDoorbell);
  return Err::kOk;
}

void Engine::connect_peer(int32_t slot, const rte::Card& c) {
  Links& L = *links_;
  Peer& p = peer(slot);
  disconnect_peer(p);
  // On this host and in its segment (its own index, or a spare index a rank
  // moved here from a lost host took): the rings are the ones a predecessor
  // at that index used; frames left in them carry the old incarnation and
  // are dropped. The replacement published its slot and pid before its card
  // went out.
  if (int local = c.host == boot_.host ? L.shm.claim(slot, c.pid) : -1; local >= 0) {
    p.link = &L.shm_link;
    p.addr = local;
    FTMPI_LOG(kDebug, "p2p", "slot %d.%u reached through shared memory (local index %d)", slot, c.id.incarnation,
              local);
    return;
  }
  p.link = &L.tcp_link;
  p.addr = slot;
  have_remote_ = true;
  L.tcp.set_peer(slot, c.tcp_addr, c.tcp_port);
}

void Engine::disconnect_peer(Peer& p) {
  if (p.link) p.link->tx->disconnect(p.addr);
}

void Engine::close_links() {
  links_->shm.shutdown();
  links_->tcp.shutdown();
}

}  // namespace ftmpi::p2p

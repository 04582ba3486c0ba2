#include "p2p/match.hpp"

namespace ftmpi::p2p {

// Unexpected messages live in chunks_, freed with the table.
MatchTable::~MatchTable() = default;

Unexpected* MatchTable::new_unexpected() {
  if (spares_.empty()) {
    auto chunk = std::make_unique<Unexpected[]>(kChunk);
    for (size_t i = kChunk; i-- > 0;) spares_.push_back(&chunk[i]);
    chunks_.push_back(std::move(chunk));
  }
  Unexpected* u = spares_.back();
  spares_.pop_back();
  return u;
}

void MatchTable::free_unexpected(Unexpected* u) {
  if (u->payload.heap_capacity() > kKeepBytes) u->payload.free_heap();
  u->hdr = MatchHdr{};
  u->rts = RtsInfo{};
  u->payload.clear();
  u->stale = false;
  u->next = u->prev = nullptr;
  u->src_next = u->src_prev = nullptr;
  spares_.push_back(u);
}

MatchTable::Queues& MatchTable::lookup(uint64_t ctx) {
  auto& slot = table_[ctx];
  if (!slot) slot = std::make_unique<Queues>();
  last_ctx_ = ctx;
  last_ = slot.get();
  return *slot;
}

void MatchTable::forget(uint64_t ctx) {
  auto it = table_.find(ctx);
  if (it == table_.end() || it->second->posted_head || it->second->unexp_head) return;
  if (last_ == it->second.get()) {
    last_ = nullptr;
    last_ctx_ = ~uint64_t{0};
  }
  table_.erase(it);
}

Request* MatchTable::take_posted(Queues& q, int32_t src_slot, int tag, uint64_t seq) {
  for (Request* r = q.posted_head; r; r = r->qnext) {
    if (!accepts(*r, src_slot, tag, seq)) continue;
    unpost(r);
    return r;
  }
  return nullptr;
}

void MatchTable::post(Queues& q, Request* r) {
  r->qnext = nullptr;
  r->qprev = q.posted_tail;
  if (q.posted_tail) q.posted_tail->qnext = r;
  else q.posted_head = r;
  q.posted_tail = r;
}

void MatchTable::unpost(Request* r) {
  Queues& q = queues(r->ctx);
  if (r->qprev) r->qprev->qnext = r->qnext;
  else q.posted_head = r->qnext;
  if (r->qnext) r->qnext->qprev = r->qprev;
  else q.posted_tail = r->qprev;
  r->qnext = r->qprev = nullptr;
}

Unexpected* MatchTable::find_unexpected(Queues& q, int32_t src_slot, int tag, bool take, uint64_t seq) {
  if (!q.unexp_head) return nullptr;
  Unexpected* u = nullptr;
  if (src_slot == kAnySlot) {
    for (u = q.unexp_head; u; u = u->next)
      if ((tag == kAnyTag || u->hdr.tag == tag) && (seq == 0 || u->hdr.seq == seq)) break;
  } else if (src_slot >= 0 && static_cast<size_t>(src_slot) < q.by_src.size()) {
    for (u = q.by_src[static_cast<size_t>(src_slot)].head; u; u = u->src_next)
      if ((tag == kAnyTag || u->hdr.tag == tag) && (seq == 0 || u->hdr.seq == seq)) break;
  }
  if (u && take) remove_unexpected(q, u);
  return u;
}

void MatchTable::add_unexpected(Queues& q, Unexpected* u) {
  u->next = nullptr;
  u->prev = q.unexp_tail;
  if (q.unexp_tail) q.unexp_tail->next = u;
  else q.unexp_head = u;
  q.unexp_tail = u;
  const size_t src = static_cast<size_t>(u->hdr.src_slot);
  if (src >= q.by_src.size()) q.by_src.resize(src + 1);
  Queues::Chain& c = q.by_src[src];
  u->src_next = nullptr;
  u->src_prev = c.tail;
  if (c.tail) c.tail->src_next = u;
  else c.head = u;
  c.tail = u;
}

void MatchTable::remove_unexpected(Queues& q, Unexpected* u) {
  if (u->prev) u->prev->next = u->next;
  else q.unexp_head = u->next;
  if (u->next) u->next->prev = u->prev;
  else q.unexp_tail = u->prev;
  Queues::Chain& c = q.by_src[static_cast<size_t>(u->hdr.src_slot)];
  if (u->src_prev) u->src_prev->src_next = u->src_next;
  else c.head = u->src_next;
  if (u->src_next) u->src_next->src_prev = u->src_prev;
  else c.tail = u->src_prev;
  u->next = u->prev = nullptr;
  u->src_next = u->src_prev = nullptr;
}

}  // namespace ftmpi::p2p

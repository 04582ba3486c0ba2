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

namespace {
// An unexpected message is on two chains (every source in arrival order,
// and its own source's): the links are written once, `Next` and `Prev`
// naming the chain.
template <Unexpected* Unexpected::*Next, Unexpected* Unexpected::*Prev>
void append(Unexpected*& head, Unexpected*& tail, Unexpected* u) {
  u->*Next = nullptr;
  u->*Prev = tail;
  if (tail) tail->*Next = u;
  else head = u;
  tail = u;
}

template <Unexpected* Unexpected::*Next, Unexpected* Unexpected::*Prev>
void unlink(Unexpected*& head, Unexpected*& tail, Unexpected* u) {
  if (u->*Prev) (u->*Prev)->*Next = u->*Next;
  else head = u->*Next;
  if (u->*Next) (u->*Next)->*Prev = u->*Prev;
  else tail = u->*Prev;
  u->*Next = u->*Prev = nullptr;
}

// The first message from `u` on along the chain that fits tag and seq.
template <Unexpected* Unexpected::*Next>
Unexpected* first_fit(Unexpected* u, int tag, uint64_t seq) {
  for (; u; u = u->*Next)
    if ((tag == kAnyTag || u->hdr.tag == tag) && (seq == 0 || u->hdr.seq == seq)) return u;
  return nullptr;
}
}  // namespace

Unexpected* MatchTable::find_unexpected(Queues& q, int32_t src_slot, int tag, bool take, uint64_t seq) {
  if (!q.unexp_head) return nullptr;
  Unexpected* u = nullptr;
  if (src_slot == kAnySlot) u = first_fit<&Unexpected::next>(q.unexp_head, tag, seq);
  else if (src_slot >= 0 && static_cast<size_t>(src_slot) < q.by_src.size())
    u = first_fit<&Unexpected::src_next>(q.by_src[static_cast<size_t>(src_slot)].head, tag, seq);
  if (u && take) remove_unexpected(q, u);
  return u;
}

void MatchTable::add_unexpected(Queues& q, Unexpected* u) {
  append<&Unexpected::next, &Unexpected::prev>(q.unexp_head, q.unexp_tail, u);
  const size_t src = static_cast<size_t>(u->hdr.src_slot);
  if (src >= q.by_src.size()) q.by_src.resize(src + 1);
  Queues::Chain& c = q.by_src[src];
  append<&Unexpected::src_next, &Unexpected::src_prev>(c.head, c.tail, u);
}

void MatchTable::remove_unexpected(Queues& q, Unexpected* u) {
  unlink<&Unexpected::next, &Unexpected::prev>(q.unexp_head, q.unexp_tail, u);
  Queues::Chain& c = q.by_src[static_cast<size_t>(u->hdr.src_slot)];
  unlink<&Unexpected::src_next, &Unexpected::src_prev>(c.head, c.tail, u);
}

}  // namespace ftmpi::p2p

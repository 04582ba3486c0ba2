#include "rte/proto/event_log_messages.hpp"

#include "rte/proto/codec_util.hpp"

namespace ftmpi::rte::proto {
namespace {

// Smallest encoded batch: u32 incarnation, u64 batch, u32 length.
constexpr size_t kMinBatch = 16;

void put_batches(Encoder& e, const std::vector<DetBatch>& v) {
  e.u32(static_cast<uint32_t>(v.size()));
  for (const DetBatch& b : v) {
    e.u32(b.incarnation);
    e.u64(b.batch);
    e.str(b.data);
  }
}

// Batches must be non-empty, numbered from 1 and strictly ascending.
bool get_batches(Decoder& d, std::vector<DetBatch>& v) {
  uint32_t n;
  if (!get_count(d, kMinBatch, n)) return false;
  v.assign(n, DetBatch{});
  for (size_t i = 0; i < v.size(); ++i) {
    DetBatch& b = v[i];
    b.incarnation = d.u32();
    b.batch = d.u64();
    b.data = d.str(kMaxDetBatch);
    if (!d.ok() || b.batch == 0 || b.data.empty()) return false;
    if (i > 0 && (b.incarnation < v[i - 1].incarnation ||
                  (b.incarnation == v[i - 1].incarnation && b.batch <= v[i - 1].batch)))
      return false;
  }
  return true;
}

}  // namespace

void DetRepl::encode(Encoder& e) const {
  e.i32(slot);
  put_batches(e, batches);
}
bool DetRepl::decode(Decoder& d) {
  slot = d.i32();
  return get_batches(d, batches) && slot >= 0 && !batches.empty();
}

void DetReplAck::encode(Encoder& e) const {
  e.i32(slot);
  e.u32(incarnation);
  e.u64(batch);
}
bool DetReplAck::decode(Decoder& d) {
  slot = d.i32();
  incarnation = d.u32();
  batch = d.u64();
  return d.ok() && slot >= 0 && batch > 0;
}

void DetWant::encode(Encoder& e) const {
  e.i32(slot);
  e.i32(to_host);
  e.u32(request);
}
bool DetWant::decode(Decoder& d) {
  slot = d.i32();
  to_host = d.i32();
  request = d.u32();
  return d.ok() && slot >= 0 && to_host >= 0;
}

void DetHandover::encode(Encoder& e) const {
  e.i32(slot);
  e.i32(to_host);
  e.i32(from_host);
  e.u32(request);
  e.u8(last ? 1 : 0);
  put_batches(e, batches);
}
bool DetHandover::decode(Decoder& d) {
  slot = d.i32();
  to_host = d.i32();
  from_host = d.i32();
  request = d.u32();
  uint8_t l = d.u8();
  last = l == 1;
  return get_batches(d, batches) && slot >= 0 && to_host >= 0 && from_host >= 0 && l <= 1;
}

void ProcRestartedDown::encode(Encoder& e) const {
  put_card(e, card);
  put_cards(e, table);
  e.u64(last_event_seq);
}
bool ProcRestartedDown::decode(Decoder& d) {
  card = get_card(d);
  if (!get_cards(d, table) || !card.id.valid() || card.host < 0) return false;
  last_event_seq = d.u64();
  if (static_cast<size_t>(card.id.slot) >= table.size()) return false;
  for (size_t i = 0; i < table.size(); ++i)
    if (table[i].id.slot != static_cast<int32_t>(i)) return false;
  return table[static_cast<size_t>(card.id.slot)] == card;
}

}  // namespace ftmpi::rte::proto

#include "rte/proto/codec_util.hpp"

namespace ftmpi::rte::proto {

void put_proc(Encoder& e, const ProcId& p) {
  e.i32(p.slot);
  e.u32(p.incarnation);
}

ProcId get_proc(Decoder& d) {
  ProcId p;
  p.slot = d.i32();
  p.incarnation = d.u32();
  return p;
}

void put_card(Encoder& e, const Card& c) {
  put_proc(e, c.id);
  e.i32(c.host);
  e.i32(c.pid);
  e.str(c.tcp_addr);
  e.u16(c.tcp_port);
}

Card get_card(Decoder& d) {
  Card c;
  c.id = get_proc(d);
  c.host = d.i32();
  c.pid = d.i32();
  c.tcp_addr = d.str(kMaxName);
  c.tcp_port = d.u16();
  return c;
}

bool get_count(Decoder& d, size_t min_elem, uint32_t& n) {
  n = d.u32();
  if (!d.ok() || n > d.remaining() / min_elem) {
    d.set_failed();
    return false;
  }
  return true;
}

void put_modes(Encoder& e, const Modes& m) {
  e.u8(static_cast<uint8_t>(m.comm));
  e.u8(static_cast<uint8_t>(m.msg));
  e.u8(static_cast<uint8_t>(m.coll));
  e.u8(static_cast<uint8_t>(m.recovery));
  e.u8(static_cast<uint8_t>(m.transparent));
}

bool get_modes(Decoder& d, Modes& m) {
  uint8_t raw[kModesWireSize];
  for (uint8_t& b : raw) b = d.u8();
  return d.ok() && modes_from_wire(raw, m);
}

void put_cards(Encoder& e, const std::vector<Card>& v) {
  e.u32(static_cast<uint32_t>(v.size()));
  for (const Card& c : v) put_card(e, c);
}

bool get_cards(Decoder& d, std::vector<Card>& v) {
  uint32_t n;
  if (!get_count(d, 22, n)) return false;  // 22 bytes: the smallest encoded card
  v.clear();
  v.reserve(n);
  for (uint32_t i = 0; i < n && d.ok(); ++i) v.push_back(get_card(d));
  return d.ok();
}

void put_i32s(Encoder& e, const std::vector<int32_t>& v) {
  e.u32(static_cast<uint32_t>(v.size()));
  for (int32_t x : v) e.i32(x);
}

bool get_i32s(Decoder& d, std::vector<int32_t>& v) {
  uint32_t n;
  if (!get_count(d, 4, n)) return false;
  v.resize(n);
  for (auto& x : v) x = d.i32();
  return d.ok();
}

void put_strs(Encoder& e, const std::vector<std::string>& v) {
  e.u32(static_cast<uint32_t>(v.size()));
  for (const auto& s : v) e.str(s);
}

bool get_strs(Decoder& d, std::vector<std::string>& v) {
  uint32_t n;
  if (!get_count(d, 4, n)) return false;
  v.clear();
  v.reserve(n);
  for (uint32_t i = 0; i < n && d.ok(); ++i) v.push_back(d.str());
  return d.ok();
}

void put_procs(Encoder& e, const std::vector<ProcId>& v) {
  e.u32(static_cast<uint32_t>(v.size()));
  for (const auto& p : v) put_proc(e, p);
}

bool get_procs(Decoder& d, std::vector<ProcId>& v) {
  uint32_t n;
  if (!get_count(d, 8, n)) return false;
  v.resize(n);
  for (auto& p : v) p = get_proc(d);
  return d.ok();
}

void put_recovery(Encoder& e, const RecoveryResult& r) {
  e.u32(r.epoch);
  put_cards(e, r.cards);
  put_procs(e, r.failed);
  e.u64(r.last_event_seq);
}

bool get_recovery(Decoder& d, RecoveryResult& r) {
  r.epoch = d.u32();
  if (!get_cards(d, r.cards) || !get_procs(d, r.failed)) return false;
  r.last_event_seq = d.u64();
  if (!d.ok() || r.cards.empty()) return false;
  for (size_t i = 0; i < r.cards.size(); ++i)
    if (r.cards[i].id.slot != static_cast<int32_t>(i)) return false;
  for (const ProcId& p : r.failed)
    if (p.slot < 0 || static_cast<size_t>(p.slot) >= r.cards.size()) return false;
  return true;
}

}  // namespace ftmpi::rte::proto

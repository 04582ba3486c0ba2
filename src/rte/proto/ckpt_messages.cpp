#include "rte/proto/ckpt_messages.hpp"

#include "rte/proto/codec_util.hpp"

namespace ftmpi::rte::proto {
namespace {

void put_u64s(Encoder& e, const std::vector<uint64_t>& v) {
  e.u32(static_cast<uint32_t>(v.size()));
  for (uint64_t x : v) e.u64(x);
}

bool get_u64s(Decoder& d, std::vector<uint64_t>& v) {
  uint32_t n;
  if (!get_count(d, 8, n)) return false;
  v.assign(n, 0);
  for (uint64_t& x : v) x = d.u64();
  return d.ok();
}

void put_facts(Encoder& e, const CkptFacts& f) {
  e.u64(f.number);
  e.u8(f.ok);
  e.i32(f.image_pid);
  e.u64(f.pause_ns);
  e.u64(f.resident);
  e.u64(f.dets_acked);
  e.u64(f.log_bytes);
  put_u64s(e, f.received);
  e.str(f.why);
  e.u8(f.store);
  e.u64(f.stored_bytes);
  e.u64(f.store_ns);
  e.str(f.stored_at);
  e.str(f.store_error);
}

bool get_facts(Decoder& d, CkptFacts& f) {
  f.number = d.u64();
  f.ok = d.u8();
  f.image_pid = d.i32();
  f.pause_ns = d.u64();
  f.resident = d.u64();
  f.dets_acked = d.u64();
  f.log_bytes = d.u64();
  if (!get_u64s(d, f.received)) return false;
  f.why = d.str(kMaxName);
  f.store = d.u8();
  f.stored_bytes = d.u64();
  f.store_ns = d.u64();
  f.stored_at = d.str(kMaxName);
  f.store_error = d.str(kMaxName);
  // A taken checkpoint has a frozen child, except with the memory store.
  return d.ok() && f.store <= CkptFacts::kStoreMemory && f.number > 0 && f.ok <= 1 &&
         (f.ok == 0 || (f.store == CkptFacts::kStoreMemory ? f.image_pid == 0 : f.image_pid > 0));
}

void put_figures(Encoder& e, const LogFigures& f) {
  e.u64(f.log_bytes);
  e.u64(f.reclaimed);
  e.u64(f.sent);
  e.u64(f.received);
  put_u64s(e, f.held_for);
}

bool get_figures(Decoder& d, LogFigures& f) {
  f.log_bytes = d.u64();
  f.reclaimed = d.u64();
  f.sent = d.u64();
  f.received = d.u64();
  return get_u64s(d, f.held_for);
}

}  // namespace

void CkptOrder::encode(Encoder& e) const {
  e.i32(slot);
  e.u64(number);
  e.u8(collect);
}
bool CkptOrder::decode(Decoder& d) {
  slot = d.i32();
  number = d.u64();
  collect = d.u8();
  return d.ok() && slot >= 0 && number > 0 && collect <= 1;
}

void CkptDone::encode(Encoder& e) const { put_facts(e, facts); }
bool CkptDone::decode(Decoder& d) { return get_facts(d, facts); }

void CkptStored::encode(Encoder& e) const {
  e.i32(slot);
  e.u64(number);
  e.u8(store);
  e.u8(ok);
  e.u64(bytes);
  e.u64(ns);
  e.str(where);
  e.str(error);
}
bool CkptStored::decode(Decoder& d) {
  slot = d.i32();
  number = d.u64();
  store = d.u8();
  ok = d.u8();
  bytes = d.u64();
  ns = d.u64();
  where = d.str(kMaxName);
  error = d.str(kMaxName);
  return d.ok() && slot >= 0 && number > 0 && ok <= 1 && store >= CkptFacts::kStoreBuddy &&
         store <= CkptFacts::kStoreDisk;
}

void LogStats::encode(Encoder& e) const { put_figures(e, figures); }
bool LogStats::decode(Decoder& d) { return get_figures(d, figures); }

void CkptNote::encode(Encoder& e) const {
  put_proc(e, who);
  put_facts(e, facts);
  e.u64(wall_ns);
}
bool CkptNote::decode(Decoder& d) {
  who = get_proc(d);
  if (!get_facts(d, facts)) return false;
  wall_ns = d.u64();
  return d.ok() && who.valid();
}

void LogNote::encode(Encoder& e) const {
  put_proc(e, who);
  put_figures(e, figures);
}
bool LogNote::decode(Decoder& d) {
  who = get_proc(d);
  return get_figures(d, figures) && who.valid();
}

void CkptWoken::encode(Encoder& e) const {
  put_proc(e, who);
  put_proc(e, image_of);
  e.u64(number);
  e.i32(pid);
  e.u64(wake_ns);
  e.u64(skipped);
  e.u64(wall_ns);
  e.u8(store);
}
bool CkptWoken::decode(Decoder& d) {
  who = get_proc(d);
  image_of = get_proc(d);
  number = d.u64();
  pid = d.i32();
  wake_ns = d.u64();
  skipped = d.u64();
  wall_ns = d.u64();
  store = d.u8();
  return d.ok() && who.valid() && image_of.valid() && image_of.slot == who.slot && number > 0 && pid > 0 &&
         store <= CkptFacts::kStoreMemory;
}

void CkptTaken::encode(Encoder& e) const {
  put_proc(e, who);
  e.u64(number);
}
bool CkptTaken::decode(Decoder& d) {
  who = get_proc(d);
  number = d.u64();
  return d.ok() && who.valid() && number > 0;
}

StoreSetting parse_store_setting(const std::string& value) {
  StoreSetting st;
  if (value == "buddy") {
    st.kind = CkptFacts::kStoreBuddy;
  } else if (value.rfind("disk:", 0) == 0 && value.size() > 5) {
    st.kind = CkptFacts::kStoreDisk;
    st.dir = value.substr(5);
  } else if (value.rfind("memory:", 0) == 0 && value.size() > 7) {
    st.kind = CkptFacts::kStoreMemory;
    st.dir = value.substr(7);
  }
  return st;
}

}  // namespace ftmpi::rte::proto

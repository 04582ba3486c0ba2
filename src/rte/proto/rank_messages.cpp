#include "rte/proto/rank_messages.hpp"

#include <cstring>

#include "rte/proto/codec_util.hpp"

namespace ftmpi::rte::proto {

void RankHello::encode(Encoder& e) const {
  e.u16(version);
  e.i32(pid);
}
bool RankHello::decode(Decoder& d) {
  version = d.u16();
  pid = d.i32();
  return d.ok();
}

void CardMsg::encode(Encoder& e) const { put_card(e, card); }
bool CardMsg::decode(Decoder& d) {
  card = get_card(d);
  return d.ok();
}

void AbortRequest::encode(Encoder& e) const {
  e.i32(code);
  e.str(message);
}
bool AbortRequest::decode(Decoder& d) {
  code = d.i32();
  message = d.str(64 * 1024);
  return d.ok();
}

void Boot::encode(Encoder& e) const {
  e.u16(version);
  put_proc(e, self);
  e.i32(world_size);
  e.i32(host);
  e.str(hostname);
  put_i32s(e, local_slots);
  e.i32(local_index);
  e.i32(shm_fd);
  e.u64(shm_size);
  put_i32s(e, doorbell_fds);
  e.i32(det_fd);
  e.raw(secret.data(), secret.size());
  e.str(tcp_bind_addr);
  e.u32(epoch);
  e.u8(restarted ? 1 : 0);
  put_modes(e, modes);
}

bool Boot::decode(Decoder& d) {
  version = d.u16();
  self = get_proc(d);
  world_size = d.i32();
  host = d.i32();
  hostname = d.str(kMaxName);
  if (!get_i32s(d, local_slots)) return false;
  local_index = d.i32();
  shm_fd = d.i32();
  shm_size = d.u64();
  if (!get_i32s(d, doorbell_fds)) return false;
  det_fd = d.i32();
  d.raw(secret.data(), secret.size());
  tcp_bind_addr = d.str(kMaxName);
  epoch = d.u32();
  uint8_t r = d.u8();
  if (!get_modes(d, modes) || r > 1) return false;
  restarted = r == 1;
  return world_size >= 1 && self.slot >= 0 && self.slot < world_size && local_index >= 0 &&
         static_cast<size_t>(local_index) < local_slots.size() &&
         doorbell_fds.size() == local_slots.size() && local_slots[local_index] == self.slot;
}

void DetLog::encode(Encoder& e) const {
  e.u64(batch);
  e.str(data);
}
bool DetLog::decode(Decoder& d) {
  batch = d.u64();
  data = d.str(kMaxDetBatch);
  return d.ok() && batch > 0 && !data.empty();
}

void append_det_log_frame(std::vector<uint8_t>& out, uint64_t batch, const void* data, size_t len) {
  // Frame length, type, batch, data length (little-endian), then the data:
  // one resize and one copy instead of an Encoder insert per field.
  constexpr size_t kHead = 4 + 2 + 8 + 4;
  const size_t start = out.size();
  out.resize(start + kHead + len);
  uint8_t* p = out.data() + start;
  auto put = [&p](uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i) *p++ = static_cast<uint8_t>(v >> (8 * i));
  };
  put(kHead - 4 + len, 4);
  put(static_cast<uint16_t>(DetLog::kType), 2);
  put(batch, 8);
  put(len, 4);
  if (len) std::memcpy(p, data, len);
}

void ReplayReport::encode(Encoder& e) const {
  e.u8(phase);
  e.u64(determinants);
  e.u64(messages);
  e.u64(suppressed);
}
bool ReplayReport::decode(Decoder& d) {
  phase = d.u8();
  determinants = d.u64();
  messages = d.u64();
  suppressed = d.u64();
  return d.ok() && (phase == kStart || phase == kCaughtUp);
}

void DetData::encode(Encoder& e) const {
  e.u8(last ? 1 : 0);
  e.str(data);
}
bool DetData::decode(Decoder& d) {
  uint8_t l = d.u8();
  data = d.str(kMaxDetBatch);
  last = l == 1;
  return d.ok() && l <= 1;
}

void ProcFailed::encode(Encoder& e) const {
  put_proc(e, who);
  e.u64(event_seq);
}
bool ProcFailed::decode(Decoder& d) {
  who = get_proc(d);
  event_seq = d.u64();
  return d.ok() && who.valid();
}

}  // namespace ftmpi::rte::proto

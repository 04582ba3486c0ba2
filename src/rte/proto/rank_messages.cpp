#include "rte/proto/rank_messages.hpp"

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
  e.raw(secret.data(), secret.size());
  e.str(tcp_bind_addr);
  e.u32(epoch);
  e.u8(restarted ? 1 : 0);
  e.u8(static_cast<uint8_t>(modes.comm));
  e.u8(static_cast<uint8_t>(modes.msg));
  e.u8(static_cast<uint8_t>(modes.coll));
  e.u8(static_cast<uint8_t>(modes.recovery));
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
  d.raw(secret.data(), secret.size());
  tcp_bind_addr = d.str(kMaxName);
  epoch = d.u32();
  uint8_t r = d.u8();
  uint8_t raw_modes[4] = {d.u8(), d.u8(), d.u8(), d.u8()};
  if (!d.ok() || r > 1 || !modes_from_wire(raw_modes, modes)) return false;
  restarted = r == 1;
  return world_size >= 1 && self.slot >= 0 && self.slot < world_size && local_index >= 0 &&
         static_cast<size_t>(local_index) < local_slots.size() &&
         doorbell_fds.size() == local_slots.size() && local_slots[local_index] == self.slot;
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

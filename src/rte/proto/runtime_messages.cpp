#include "rte/proto/runtime_messages.hpp"

#include "rte/proto/codec_util.hpp"

namespace ftmpi::rte::proto {
namespace {

void put_exit(Encoder& e, const ExitInfo& x) {
  e.u8(x.how);
  e.i32(x.value);
}

bool get_exit(Decoder& d, ExitInfo& x) {
  x.how = d.u8();
  x.value = d.i32();
  return d.ok() && x.how <= ExitInfo::kLost;
}

bool get_end(Decoder& d, EndKind& k) {
  uint8_t v = d.u8();
  if (!d.ok() || v > static_cast<uint8_t>(EndKind::kTerminated)) return false;
  k = static_cast<EndKind>(v);
  return true;
}

void put_failure(Encoder& e, const ProcFailure& f) {
  e.u64(f.seq);
  put_proc(e, f.who);
  e.i32(f.host);
  e.i32(f.pid);
  put_exit(e, f.exit);
}

bool get_failure(Decoder& d, ProcFailure& f) {
  f.seq = d.u64();
  f.who = get_proc(d);
  f.host = d.i32();
  f.pid = d.i32();
  return get_exit(d, f.exit) && f.who.valid();
}

bool get_stream(Decoder& d, uint8_t& s) {
  s = d.u8();
  return d.ok() && (s == Io::kStdout || s == Io::kStderr);
}

bool get_bool(Decoder& d, bool& b) {
  uint8_t v = d.u8();
  b = v == 1;
  return d.ok() && v <= 1;
}

}  // namespace

void DaemonHello::encode(Encoder& e) const {
  e.u16(version);
  e.i32(host);
  e.i32(pid);
  e.u16(peer_port);
  e.str(addr);
  e.u16(ckpt_port);
}
bool DaemonHello::decode(Decoder& d) {
  version = d.u16();
  host = d.i32();
  pid = d.i32();
  peer_port = d.u16();
  addr = d.str(kMaxName);
  ckpt_port = d.u16();
  return d.ok() && host >= 0;
}

void Io::encode(Encoder& e) const {
  e.i32(slot);
  e.u8(stream);
  e.str(data);
}
bool Io::decode(Decoder& d) {
  slot = d.i32();
  if (!get_stream(d, stream)) return false;
  data = d.str(kIoChunk);
  return d.ok();
}

void IoEof::encode(Encoder& e) const {
  e.i32(slot);
  e.u8(stream);
}
bool IoEof::decode(Decoder& d) {
  slot = d.i32();
  return get_stream(d, stream);
}

template <MsgType T>
void ProcEndMsg<T>::encode(Encoder& e) const {
  put_proc(e, who);
  e.i32(pid);
  put_exit(e, exit);
  e.u8(static_cast<uint8_t>(end));
  e.u8(started ? 1 : 0);
  e.u8(in_fence ? 1 : 0);
}
template <MsgType T>
bool ProcEndMsg<T>::decode(Decoder& d) {
  who = get_proc(d);
  pid = d.i32();
  return get_exit(d, exit) && get_end(d, end) && get_bool(d, started) && get_bool(d, in_fence) && who.valid();
}
template struct ProcEndMsg<MsgType::kRankExit>;
template struct ProcEndMsg<MsgType::kProcExit>;

void StdinCredit::encode(Encoder& e) const { e.u32(bytes); }
bool StdinCredit::decode(Decoder& d) {
  bytes = d.u32();
  return d.ok();
}

void FailureReport::encode(Encoder& e) const {
  put_failure(e, failure);
  e.u8(job_continues ? 1 : 0);
  e.u64(wall_ns);
  e.u8(next);
}
bool FailureReport::decode(Decoder& d) {
  if (!get_failure(d, failure) || !get_bool(d, job_continues)) return false;
  wall_ns = d.u64();
  next = d.u8();
  return d.ok() && next <= kFinished;
}

void AbortReport::encode(Encoder& e) const {
  put_proc(e, who);
  e.i32(host);
  e.i32(pid);
  e.i32(code);
  e.str(message);
}
bool AbortReport::decode(Decoder& d) {
  who = get_proc(d);
  host = d.i32();
  pid = d.i32();
  code = d.i32();
  message = d.str(64 * 1024);
  return d.ok() && who.valid();
}

void JobStart::encode(Encoder& e) const {
  e.i32(world_size);
  put_modes(e, modes);
  e.i32(leader);
  e.u32(static_cast<uint32_t>(hosts.size()));
  for (const HostEntry& h : hosts) {
    e.str(h.name);
    e.str(h.addr);
    e.u16(h.peer_port);
    put_i32s(e, h.slots);
    e.u16(h.ckpt_port);
  }
  e.str(program);
  put_strs(e, args);
  e.str(cwd);
  e.u64(shm_size);
  e.u32(grace_ms);
  e.i32(stdin_slot);
  e.u32(epoch);
  e.u32(max_respawn);
  e.u8(trace ? 1 : 0);
  e.u32(heartbeat_ms);
  e.u32(heartbeat_timeout_ms);
  e.u32(tree_fanout);
  put_strs(e, env);
}

bool JobStart::decode(Decoder& d) {
  world_size = d.i32();
  if (!get_modes(d, modes)) return false;
  leader = d.i32();
  uint32_t n;
  if (!get_count(d, 16, n)) return false;  // 16 bytes: smallest encoded host entry
  hosts.assign(n, HostEntry{});
  for (HostEntry& h : hosts) {
    h.name = d.str(kMaxName);
    h.addr = d.str(kMaxName);
    h.peer_port = d.u16();
    if (!get_i32s(d, h.slots)) return false;
    h.ckpt_port = d.u16();
  }
  program = d.str(kMaxName);
  if (!get_strs(d, args)) return false;
  cwd = d.str(kMaxName);
  shm_size = d.u64();
  grace_ms = d.u32();
  stdin_slot = d.i32();
  epoch = d.u32();
  max_respawn = d.u32();
  if (!get_bool(d, trace)) return false;
  heartbeat_ms = d.u32();
  heartbeat_timeout_ms = d.u32();
  tree_fanout = d.u32();
  if (!get_strs(d, env) || heartbeat_ms == 0 || heartbeat_timeout_ms <= heartbeat_ms || tree_fanout == 0 ||
      world_size < 1 || hosts.empty() || leader < 0 ||
      leader >= static_cast<int32_t>(hosts.size()) || program.empty() ||
      stdin_slot < -1 || stdin_slot >= world_size)
    return false;
  // Every slot must be placed on exactly one host.
  std::vector<bool> seen(static_cast<size_t>(world_size), false);
  size_t placed = 0;
  for (const HostEntry& h : hosts) {
    for (int32_t s : h.slots) {
      if (s < 0 || s >= world_size || seen[static_cast<size_t>(s)]) return false;
      seen[static_cast<size_t>(s)] = true;
      ++placed;
    }
  }
  return placed == static_cast<size_t>(world_size);
}

void Stdin::encode(Encoder& e) const { e.str(data); }
bool Stdin::decode(Decoder& d) {
  data = d.str(kIoChunk);
  return d.ok();
}

void Terminate::encode(Encoder& e) const {
  e.i32(exit_code);
  e.u8(immediate ? 1 : 0);
}
bool Terminate::decode(Decoder& d) {
  exit_code = d.i32();
  return get_bool(d, immediate);
}

void PeerHello::encode(Encoder& e) const {
  e.u16(version);
  e.i32(host);
  e.u32(term);
  e.u64(last_bseq);
}
bool PeerHello::decode(Decoder& d) {
  version = d.u16();
  host = d.i32();
  term = d.u32();
  last_bseq = d.u64();
  return d.ok() && host >= 0;
}


void AbortUp::encode(Encoder& e) const {
  put_proc(e, who);
  e.i32(pid);
  e.i32(code);
  e.str(message);
}
bool AbortUp::decode(Decoder& d) {
  who = get_proc(d);
  pid = d.i32();
  code = d.i32();
  message = d.str(64 * 1024);
  return d.ok() && who.valid();
}

void SuspectUp::encode(Encoder& e) const {
  put_proc(e, reporter);
  put_proc(e, suspect);
}
bool SuspectUp::decode(Decoder& d) {
  reporter = get_proc(d);
  suspect = get_proc(d);
  return d.ok() && suspect.valid();
}

void EventDown::encode(Encoder& e) const {
  e.u8(kind);
  put_failure(e, failure);
}
bool EventDown::decode(Decoder& d) {
  kind = d.u8();
  return d.ok() && kind == kProcFailed && get_failure(d, failure);
}

void RankStart::encode(Encoder& e) const {
  put_proc(e, who);
  e.i32(pid);
  e.u64(wall_ns);
}
bool RankStart::decode(Decoder& d) {
  who = get_proc(d);
  pid = d.i32();
  wall_ns = d.u64();
  return d.ok() && who.valid();
}

void Trace::encode(Encoder& e) const {
  e.u8(kind);
  put_proc(e, who);
  e.i32(pid);
  e.u64(seq);
  e.u32(count);
  e.u64(wall_ns);
}
bool Trace::decode(Decoder& d) {
  kind = d.u8();
  who = get_proc(d);
  pid = d.i32();
  seq = d.u64();
  count = d.u32();
  wall_ns = d.u64();
  return d.ok() && kind >= kDetected && kind <= kReleased && who.slot >= -1;
}

void InjectResult::encode(Encoder& e) const {
  e.u32(request_id);
  e.u8(ok ? 1 : 0);
  put_proc(e, who);
  e.i32(pid);
  e.str(message);
  e.u64(wall_ns);
}
bool InjectResult::decode(Decoder& d) {
  request_id = d.u32();
  if (!get_bool(d, ok)) return false;
  who = get_proc(d);
  pid = d.i32();
  message = d.str(kMaxName);
  wall_ns = d.u64();
  return d.ok() && who.slot >= -1;
}

void RecoveryReport::encode(Encoder& e) const {
  e.u8(kind);
  e.u32(epoch);
  e.u32(alive);
  put_procs(e, failed);
  put_procs(e, respawned);
  e.u64(last_event_seq);
  e.u64(duration_ns);
  e.u64(wall_ns);
}
bool RecoveryReport::decode(Decoder& d) {
  kind = d.u8();
  epoch = d.u32();
  alive = d.u32();
  if (!get_procs(d, failed) || !get_procs(d, respawned)) return false;
  last_event_seq = d.u64();
  duration_ns = d.u64();
  wall_ns = d.u64();
  return d.ok() && (kind == kBegin || kind == kDone);
}

void JobFailedReport::encode(Encoder& e) const {
  e.i32(exit_code);
  e.str(message);
}
bool JobFailedReport::decode(Decoder& d) {
  exit_code = d.i32();
  message = d.str(kMaxName);
  return d.ok();
}

void InjectKill::encode(Encoder& e) const {
  e.u32(request_id);
  e.i32(slot);
  e.i32(signal);
}
bool InjectKill::decode(Decoder& d) {
  request_id = d.u32();
  slot = d.i32();
  signal = d.i32();
  return d.ok() && slot >= -1 && signal > 0 && signal < 65;
}

void KillRequest::encode(Encoder& e) const { put_i32s(e, slots); }
bool KillRequest::decode(Decoder& d) {
  if (!get_i32s(d, slots) || slots.empty()) return false;
  for (int32_t s : slots)
    if (s < 0) return false;
  return true;
}

void KillReply::encode(Encoder& e) const {
  e.u8(ok ? 1 : 0);
  e.str(message);
}
bool KillReply::decode(Decoder& d) {
  if (!get_bool(d, ok)) return false;
  message = d.str(kMaxName);
  return d.ok();
}

void Respawn::encode(Encoder& e) const {
  put_proc(e, who);
  e.i32(host);
}
bool Respawn::decode(Decoder& d) {
  who = get_proc(d);
  host = d.i32();
  return d.ok() && who.valid() && who.incarnation > 0 && host >= 0;
}

}  // namespace ftmpi::rte::proto

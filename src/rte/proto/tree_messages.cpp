#include "rte/proto/tree_messages.hpp"

#include "rte/proto/codec_util.hpp"

namespace ftmpi::rte::proto {

void HostSuspect::encode(Encoder& e) const {
  e.i32(host);
  e.str(why);
}
bool HostSuspect::decode(Decoder& d) {
  host = d.i32();
  why = d.str(kMaxName);
  return d.ok() && host >= 0;
}

void View::encode(Encoder& e) const {
  e.u32(term);
  e.i32(leader);
  put_i32s(e, lost);
}
bool View::decode(Decoder& d) {
  term = d.u32();
  leader = d.i32();
  if (!get_i32s(d, lost) || leader < 0) return false;
  for (size_t i = 0; i < lost.size(); ++i) {
    if (lost[i] < 0 || lost[i] == leader || (i > 0 && lost[i] <= lost[i - 1])) return false;
  }
  return true;
}

void Up::encode(Encoder& e) const {
  e.i32(origin);
  e.bytes(frame.data(), frame.size());
}
bool Up::decode(Decoder& d) {
  origin = d.i32();
  frame = d.bytes(kMaxFrame);
  return d.ok() && origin >= 0 && frame.size() >= kFrameHeader;
}

void Down::encode(Encoder& e) const {
  e.u32(term);
  e.u64(bseq);
  e.bytes(frame.data(), frame.size());
}
bool Down::decode(Decoder& d) {
  term = d.u32();
  bseq = d.u64();
  frame = d.bytes(kMaxFrame);
  return d.ok() && frame.size() >= kFrameHeader;
}

void HostSync::encode(Encoder& e) const {
  e.u32(term);
  e.u32(epoch);
  put_cards(e, cards);
  put_procs(e, fenced);
  put_procs(e, asked);
  e.u32(static_cast<uint32_t>(ended.size()));
  for (const ProcExit& x : ended) x.encode(e);
}
bool HostSync::decode(Decoder& d) {
  term = d.u32();
  epoch = d.u32();
  if (!get_cards(d, cards) || !get_procs(d, fenced) || !get_procs(d, asked)) return false;
  uint32_t n;
  if (!get_count(d, 19, n)) return false;  // 19 bytes: one encoded ProcExit
  ended.assign(n, ProcExit{});
  for (ProcExit& x : ended)
    if (!x.decode(d)) return false;
  return d.ok();
}

}  // namespace ftmpi::rte::proto

// Point-to-point protocol headers, carried as the "header" part of transport
// frames (spec/wire-p2p.md, wire version kWireVersion). Native byte order: frames never leave a
// homogeneous job (the TCP transport still frames lengths little-endian).
//
//   EAGER  match header + payload            message fits the eager limit
//   EAGER_SHORT short header + payload        a standard EAGER without request
//                                            id or checksum (one cache line
//                                            on shm for up to 8 bytes)
//   RTS    match header + RtsInfo [+ iovs]   large message: "come and get it"
//   CTS    CtlHdr                            receiver matched an RTS; send DATA
//   DATA   CtlHdr + payload at offset        pipelined bytes of a matched RTS
//   FIN    CtlHdr                            receiver copied the data itself (CMA)
//   ACK    CtlHdr                            synchronous send was matched
//   CANCEL CtlHdr (sreq: message, rreq: waiter, offset: context id)
//                                            drop the message if still unmatched
//   CANCEL_REPLY CtlHdr, flags bit0 = dropped (cancel.cpp)
//   CONTROL ControlHdr + payload             upper-layer protocol frame (control.cpp):
//                                            no matching, no epochs, no purges
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ftmpi::p2p {

// spec/wire-p2p.md's version of these layouts. 2: MatchHdr carries the
// channel sequence number (48 -> 56 bytes); 3: a module checksum (64 bytes);
// 4: EAGER_SHORT (40 bytes); 5: EAGER_SHORT with a module on too; 6: a
// CANCEL names its message by sequence number.
inline constexpr uint32_t kWireVersion = 6;

enum class MsgType : uint8_t {
  kEager = 1,
  kRts = 2,
  kCts = 3,
  kData = 4,
  kFin = 5,
  kAck = 6,
  kCancel = 7,      // sender asks to withdraw an unmatched message
  kCancelReply = 8, // receiver's answer: flags bit0 = withdrawn
  kControl = 9,     // a frame for a registered control handler
  kEagerShort = 10, // EAGER with sreq, sum and flags 0 and len = payload length
};

inline constexpr uint8_t kFlagSync = 1;  // EAGER/RTS: acknowledge when matched

struct MatchHdr {
  MsgType type;
  uint8_t flags;
  uint16_t reserved;
  int32_t tag;
  uint64_t ctx;
  int32_t src_slot;
  uint32_t src_inc;
  uint32_t epoch;
  uint32_t dst_inc;  // the incarnation the sender meant (spec/ft-semantics.md §6)
  uint64_t len;   // message size in bytes (packed)
  uint64_t sreq;  // sender's request id (RTS and synchronous EAGER)
  // Channel sequence number: per ordered pair of slots, counted from 1 by the
  // sender in the order its sends start (self included). Matching does not
  // need it (frames of a pair arrive in order); a module does (module_seam.hpp).
  uint64_t seq;
  // A module's checksum of the message (payload and envelope), 0 without
  // one: a receiver compares the copy a restarted sender sends again with
  // the one it accepted (spec/transparent-mode.md §2).
  uint64_t sum;
};
static_assert(sizeof(MatchHdr) == 64);

// An EAGER that nothing answers (standard mode, no request id) and whose
// module checksum, if any, the receiver computes from the payload
// (kShortSummed): the MatchHdr without sreq and sum, and without len (the
// payload's length). 40 bytes, so that with the shm record header (16) and
// 8 payload bytes it fills one cache line. The receiver expands it into the
// MatchHdr it stands for (expand_short) before anything looks at it.
struct ShortHdr {
  MsgType type;  // kEagerShort
  uint8_t reserved1;
  uint16_t reserved2;
  int32_t tag;
  uint64_t ctx;
  int32_t src_slot;
  uint32_t src_inc;
  uint32_t epoch;
  uint32_t dst_inc;
  uint64_t seq;
};
static_assert(sizeof(ShortHdr) == 40);

inline ShortHdr shorten(const MatchHdr& h) {
  ShortHdr s{};
  s.type = MsgType::kEagerShort;
  s.tag = h.tag;
  s.ctx = h.ctx;
  s.src_slot = h.src_slot;
  s.src_inc = h.src_inc;
  s.epoch = h.epoch;
  s.dst_inc = h.dst_inc;
  s.seq = h.seq;
  return s;
}

// With a module on, an EAGER goes short only with a payload of at most this
// many bytes whose module sum the receiver can compute from the bytes
// (ModuleSeam::checksum): with the 16-byte shm record header, one line.
inline constexpr uint64_t kShortSummed = 8;
inline bool short_with_module(bool sum_of_bytes, uint64_t len) { return sum_of_bytes && len <= kShortSummed; }

inline MatchHdr expand_short(const ShortHdr& s, uint64_t payload_len) {
  MatchHdr h{};
  h.type = MsgType::kEager;
  h.tag = s.tag;
  h.ctx = s.ctx;
  h.src_slot = s.src_slot;
  h.src_inc = s.src_inc;
  h.epoch = s.epoch;
  h.dst_inc = s.dst_inc;
  h.len = payload_len;
  h.seq = s.seq;
  return h;
}

// One (address, length) pair of an RTS's iovec list.
struct RtsIov {
  uint64_t addr;
  uint64_t len;
};
static_assert(sizeof(RtsIov) == 16);

// Follows MatchHdr in an RTS. niov > 0: the sender's data is readable with
// process_vm_readv at these addresses (niov RtsIov follow).
struct RtsInfo {
  int32_t pid;
  uint32_t niov;
};

// The whole header of an RTS as the sender lays it out; only the first
// niov entries of `iov` travel (rts_hdr_bytes).
inline constexpr size_t kMaxRtsIov = 64;
struct RtsHdr {
  MatchHdr match;
  RtsInfo info;
  RtsIov iov[kMaxRtsIov];
};
static_assert(offsetof(RtsHdr, info) == 64 && offsetof(RtsHdr, iov) == 72);
inline constexpr size_t rts_hdr_bytes(size_t niov) { return offsetof(RtsHdr, iov) + niov * sizeof(RtsIov); }

// Entry i of the iovec list that follows RtsInfo in a received RTS (`iovs`
// need not be aligned: TCP frames are not).
inline RtsIov rts_iov(const uint8_t* iovs, size_t i) {
  RtsIov v;
  std::memcpy(&v, iovs + i * sizeof v, sizeof v);
  return v;
}

struct CtlHdr {
  MsgType type;
  uint8_t flags;
  uint16_t reserved;
  uint32_t dst_inc;  // the incarnation the sender meant
  uint64_t sreq;
  uint64_t rreq;
  uint64_t offset;  // DATA: where this piece goes in the packed stream
};
static_assert(sizeof(CtlHdr) == 32);

// Header of a CONTROL frame; the handler's bytes are the frame's payload.
struct ControlHdr {
  MsgType type;     // kControl
  uint8_t handler;  // id given to Engine::set_control_handler
  uint16_t reserved;
  uint32_t src_inc;  // the sender's incarnation
  uint32_t dst_inc;  // the incarnation the sender meant
  uint32_t len;      // payload bytes
};
static_assert(sizeof(ControlHdr) == 16);

}  // namespace ftmpi::p2p

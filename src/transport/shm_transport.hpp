// Shared-memory transport between the ranks of one host. The daemon creates
// one memfd per host (inherited, never named: nothing can be left in
// /dev/shm) and one eventfd doorbell per local rank. The segment holds a
// control block per local rank and one SPSC ring per ordered pair.
//
// Sleeping: a receiver about to block sets its `sleeping` word, re-checks its
// rings, and only then waits on its doorbell; a sender rings the doorbell
// only when that word is set, so an awake receiver costs senders no syscall.
//
// Spare indices (slot < 0 in local_slots) are for ranks moved to this host
// later (REBUILD after a lost host). A rank publishes its slot and pid in its
// control block at init; the others learn who took a spare from there
// (claim(), or the first frame in its ring).
#pragma once
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "base/err.hpp"
#include "transport/shm_ring.hpp"
#include "transport/transport.hpp"

namespace ftmpi::transport {

struct ShmConfig {
  int memfd = -1;
  int my_local = 0;
  std::vector<int32_t> local_slots;  // slot of each local index, < 0: spare
  std::vector<int> doorbells;        // eventfd of each local index
  uint64_t ring_bytes = 0;           // 0: choose from the number of local ranks
};

// Segment bytes before the array of RankCtl (one per local index).
inline constexpr uint64_t kShmCtlArea = 4096;

struct alignas(64) RankCtl {
  std::atomic<uint32_t> sleeping;
  std::atomic<int32_t> pid;   // 0: never used (a spare); published after slot
  std::atomic<int32_t> slot;
};

class ShmTransport final : public Transport {
 public:
  ShmTransport() = default;
  ~ShmTransport() override;
  ShmTransport(const ShmTransport&) = delete;
  ShmTransport& operator=(const ShmTransport&) = delete;

  static uint64_t default_ring_bytes(size_t nlocal);
  static uint64_t segment_size(size_t nlocal, uint64_t ring_bytes);

  Err init(const ShmConfig& cfg);
  void shutdown();
  // Drops every reference to the segment and the doorbells without
  // unmapping or closing anything: in a woken checkpoint image they are
  // gone already, and their numbers may belong to new descriptors.
  void forget();
  bool active() const { return base_ != nullptr; }
  int nlocal() const { return static_cast<int>(slots_.size()); }
  int my_local() const { return me_; }
  int32_t slot_of(int local) const { return slots_[static_cast<size_t>(local)]; }
  pid_t pid_of(int local) const { return ctl(local)->pid.load(std::memory_order_relaxed); }
  uint64_t ring_bytes() const { return active() ? ring_bytes_ : 0; }
  uint64_t max_payload(size_t hlen) const override {
    return writers_.empty() ? 0 : ring_bytes_ / 2 - kRecHdr - align8(hlen);
  }

  // Transport, peers named by local index. send() reserves, copies header
  // and payload into the ring and commits; a full ring refuses the frame
  // and marks us waiting (the reader will ring our doorbell once it frees
  // space). Nothing is ever queued inside this process (drained() is always
  // true), and there is no connection to close: the rings belong to the
  // host's segment and outlive processes; the next process that claims the
  // index uses them, and frames its predecessor left there carry the old
  // incarnation, which the engine drops.
  bool send(int peer, const void* hdr, size_t hlen, const Payload& p) override;
  uint64_t room(int peer, size_t hlen, uint64_t want) override;
  bool drained(int) const override { return true; }
  void disconnect(int) override {}

  // The same in two steps, for a writer that fills the record itself:
  // reserve() returns the record (header at hdr_ptr, payload at
  // payload_ptr) or nullptr when the ring is full.
  uint8_t* reserve(int peer, size_t hlen, size_t plen);
  static uint8_t* hdr_ptr(uint8_t* rec) { return rec + kRecHdr; }
  static uint8_t* payload_ptr(uint8_t* rec, size_t hlen) { return rec + kRecHdr + align8(hlen); }
  void commit(int peer, uint8_t* rec, size_t hlen, size_t plen);

  // Delivers every queued frame to the sink; returns how many.
  int poll(Sink& sink) override;
  // Sleep protocol: returns false if frames are already waiting (do not sleep).
  bool prepare_sleep();
  void end_sleep();
  int doorbell_fd() const { return doorbells_.empty() ? -1 : doorbells_[static_cast<size_t>(me_)]; }
  // Local ranks not asleep in the kernel right now (including me).
  int awake_count() const;
  // The local index of process (slot, pid) if it runs in this segment (a
  // spare it took, or its own index), else -1.
  int claim(int32_t slot, int32_t pid);
  // Local indices of the host's own ranks and of spares taken so far.
  int ranks_in_use() const;

 private:
  RankCtl* ctl(int local) const {
    return reinterpret_cast<RankCtl*>(base_ + kShmCtlArea + static_cast<size_t>(local) * sizeof(RankCtl));
  }
  uint8_t* reserve_record(int peer, size_t hlen, size_t plen);
  void commit_record(int peer, uint8_t* rec, size_t hlen, size_t plen);
  RingCtl* ring_ctl(int from, int to) const;
  uint8_t* ring_data(int from, int to) const;
  RingWriter& writer(int peer) { return writers_[static_cast<size_t>(peer)]; }
  void ring_doorbell(int peer);

  uint8_t* base_ = nullptr;
  size_t size_ = 0;
  uint64_t ring_bytes_ = 0;
  int me_ = 0;
  std::vector<int32_t> slots_;
  std::vector<int> doorbells_;
  std::vector<RingWriter> writers_;  // index: destination local index
  std::vector<RingReader> readers_;  // index: source local index
  std::vector<int> peers_;           // local indices other than me, polling order
};

}  // namespace ftmpi::transport

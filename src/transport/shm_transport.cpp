#include "transport/shm_transport.hpp"

#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.hpp"
#include "base/params.hpp"

namespace ftmpi::transport {
namespace {
constexpr uint64_t kRingBlock = sizeof(RingCtl);

uint64_t rings_offset(size_t nlocal) {
  return (kShmCtlArea + nlocal * sizeof(RankCtl) + 4095) & ~uint64_t{4095};
}
}  // namespace

ShmTransport::~ShmTransport() { shutdown(); }

uint64_t ShmTransport::default_ring_bytes(size_t nlocal) {
  uint64_t want = params::get_size("FTMPI_SHM_RING", 0);
  if (want == 0) want = nlocal <= 4 ? (256u << 10) : nlocal <= 16 ? (64u << 10) : (32u << 10);
  uint64_t p = 4096;
  while (p < want) p <<= 1;
  return p;
}

uint64_t ShmTransport::segment_size(size_t nlocal, uint64_t ring_bytes) {
  return rings_offset(nlocal) + nlocal * nlocal * (kRingBlock + ring_bytes);
}

RingCtl* ShmTransport::ring_ctl(int from, int to) const {
  size_t n = slots_.size();
  size_t idx = static_cast<size_t>(from) * n + static_cast<size_t>(to);
  return reinterpret_cast<RingCtl*>(base_ + rings_offset(n) + idx * (kRingBlock + ring_bytes_));
}

uint8_t* ShmTransport::ring_data(int from, int to) const {
  return reinterpret_cast<uint8_t*>(ring_ctl(from, to)) + kRingBlock;
}

Err ShmTransport::init(const ShmConfig& cfg) {
  slots_ = cfg.local_slots;
  doorbells_ = cfg.doorbells;
  me_ = cfg.my_local;
  size_t n = slots_.size();
  if (n < 2 || cfg.memfd < 0) return Err::kOk;  // nobody to talk to through memory
  if (doorbells_.size() != n) return Err::kIntern;
  ring_bytes_ = cfg.ring_bytes ? cfg.ring_bytes : default_ring_bytes(n);
  size_ = segment_size(n, ring_bytes_);
  struct stat st{};
  if (fstat(cfg.memfd, &st) != 0) return Err::kIntern;
  // Every local rank computes the same size; growing a memfd to the same
  // length concurrently is harmless, and fresh pages read as zero.
  if (static_cast<uint64_t>(st.st_size) < size_ && ftruncate(cfg.memfd, static_cast<off_t>(size_)) != 0) {
    FTMPI_LOG(kError, "shm", "cannot size shared segment to %zu bytes: %s", size_, strerror(errno));
    return Err::kIntern;
  }
  void* p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED, cfg.memfd, 0);
  if (p == MAP_FAILED) {
    FTMPI_LOG(kError, "shm", "mmap of %zu bytes failed: %s", size_, strerror(errno));
    return Err::kIntern;
  }
  base_ = static_cast<uint8_t*>(p);
  ctl(me_)->slot.store(slots_[static_cast<size_t>(me_)], std::memory_order_relaxed);
  ctl(me_)->sleeping.store(0, std::memory_order_relaxed);
  ctl(me_)->pid.store(static_cast<int32_t>(getpid()), std::memory_order_release);
  writers_.resize(n);
  readers_.resize(n);
  for (int peer = 0; peer < static_cast<int>(n); ++peer) {
    if (peer == me_) continue;
    writers_[static_cast<size_t>(peer)].attach(ring_ctl(me_, peer), ring_data(me_, peer), ring_bytes_);
    readers_[static_cast<size_t>(peer)].attach(ring_ctl(peer, me_), ring_data(peer, me_), ring_bytes_);
    peers_.push_back(peer);
  }
  return Err::kOk;
}

void ShmTransport::shutdown() {
  // An exited rank uses no CPU: count it as asleep for awake_count().
  if (base_) ctl(me_)->sleeping.store(1, std::memory_order_relaxed);
  if (base_) munmap(base_, size_);
  base_ = nullptr;
  writers_.clear();
  readers_.clear();
  peers_.clear();
}

void ShmTransport::forget() {
  base_ = nullptr;
  writers_.clear();
  readers_.clear();
  peers_.clear();
  doorbells_.clear();
}

void ShmTransport::ring_doorbell(int peer) {
  uint64_t one = 1;
  ssize_t rc = ::write(doorbells_[static_cast<size_t>(peer)], &one, sizeof one);
  (void)rc;  // EAGAIN means the counter is already non-zero: the peer will wake
}

// Shared by reserve()/commit() and by send(), which does both in one call
// (the small-message path: one call per frame, these inlined into it).
inline uint8_t* ShmTransport::reserve_record(int peer, size_t hlen, size_t plen) {
  RingWriter& w = writer(peer);
  uint64_t rec = RingWriter::record_size(hlen, plen);
  uint8_t* p = w.reserve(rec);
  if (!p) {
    w.mark_waiting();
    // The reader may have freed space between our check and the mark.
    p = w.reserve(rec);
  }
  return p;
}

inline void ShmTransport::commit_record(int peer, uint8_t* rec, size_t hlen, size_t plen) {
  writer(peer).publish(rec, static_cast<uint32_t>(plen), static_cast<uint16_t>(hlen));
  std::atomic_thread_fence(std::memory_order_seq_cst);
  RankCtl* c = ctl(peer);
  if (c->sleeping.load(std::memory_order_relaxed) && c->sleeping.exchange(0, std::memory_order_acq_rel))
    ring_doorbell(peer);
}

uint8_t* ShmTransport::reserve(int peer, size_t hlen, size_t plen) { return reserve_record(peer, hlen, plen); }

void ShmTransport::commit(int peer, uint8_t* rec, size_t hlen, size_t plen) { commit_record(peer, rec, hlen, plen); }

bool ShmTransport::send(int peer, const void* hdr, size_t hlen, const Payload& p) {
  uint8_t* rec = reserve_record(peer, hlen, p.len);
  if (!rec) return false;
  std::memcpy(hdr_ptr(rec), hdr, hlen);
  p.write_to(payload_ptr(rec, hlen));
  commit_record(peer, rec, hlen, p.len);
  return true;
}

uint64_t ShmTransport::room(int peer, size_t hlen, uint64_t want) {
  RingWriter& w = writer(peer);
  uint64_t free = w.known_payload(hlen, want);
  if (free < want) {
    w.mark_waiting();
    // The reader may have freed space between our look and the mark.
    free = w.writable_payload(hlen);
  }
  return free < want ? free : want;
}

int ShmTransport::poll(Sink& sink) {
  int n = 0;
  for (int peer : peers_) {
    RingReader& r = readers_[static_cast<size_t>(peer)];
    if (!r.nonempty()) continue;
    bool wake = false;
    int32_t& slot = slots_[static_cast<size_t>(peer)];
    // A spare taken by a rank moved here: it published its slot before
    // writing anything.
    if (slot < 0 && ctl(peer)->pid.load(std::memory_order_acquire) != 0)
      slot = ctl(peer)->slot.load(std::memory_order_relaxed);
    n += r.drain(
        [&](const uint8_t* hdr, size_t hlen, const uint8_t* payload, size_t plen) {
          sink.on_frame(slot, hdr, hlen, payload, plen);
        },
        wake);
    if (wake) ring_doorbell(peer);
  }
  return n;
}

bool ShmTransport::prepare_sleep() {
  if (!base_) return true;
  ctl(me_)->sleeping.store(1, std::memory_order_seq_cst);
  for (int peer : peers_) {
    if (readers_[static_cast<size_t>(peer)].nonempty()) {
      ctl(me_)->sleeping.store(0, std::memory_order_relaxed);
      return false;
    }
  }
  return true;
}

void ShmTransport::end_sleep() {
  if (!base_) return;
  ctl(me_)->sleeping.store(0, std::memory_order_relaxed);
  uint64_t v;
  ssize_t rc = ::read(doorbell_fd(), &v, sizeof v);  // reset the counter (non-blocking fd)
  (void)rc;
}

int ShmTransport::awake_count() const {
  if (!base_) return 1;
  int awake = 0;
  for (int i = 0; i < nlocal(); ++i)
    awake += ctl(i)->pid.load(std::memory_order_relaxed) != 0 && ctl(i)->sleeping.load(std::memory_order_relaxed) == 0;
  return awake;
}

int ShmTransport::claim(int32_t slot, int32_t pid) {
  if (!base_) return -1;
  for (int i = 0; i < nlocal(); ++i) {
    if (ctl(i)->pid.load(std::memory_order_acquire) != pid || ctl(i)->slot.load(std::memory_order_relaxed) != slot)
      continue;
    slots_[static_cast<size_t>(i)] = slot;
    return i;
  }
  return -1;
}

int ShmTransport::ranks_in_use() const {
  int n = 0;
  for (int32_t s : slots_) n += s >= 0;
  return n;
}

}  // namespace ftmpi::transport

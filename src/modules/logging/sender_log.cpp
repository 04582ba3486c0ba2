#include "modules/logging/sender_log.hpp"

#include <sys/mman.h>

#include <algorithm>

#include "modules/logging/checksum.hpp"

namespace ftmpi::logging {

namespace {
constexpr uint64_t kChunkBytes = 64ull << 20;
constexpr uint64_t kAlign = 64;  // cache line: entries never share one
}  // namespace

SenderLog::~SenderLog() {
  for (Chunk& c : chunks_)
    if (c.base) munmap(c.base, c.size);
}

SenderLog::Channel& SenderLog::chan(int32_t dst) {
  if (static_cast<size_t>(dst) >= chans_.size()) chans_.resize(static_cast<size_t>(dst) + 1);
  auto& c = chans_[static_cast<size_t>(dst)];
  if (!c) c = std::make_unique<Channel>();
  return *c;
}

uint8_t* SenderLog::carve(uint64_t len, uint32_t* chunk) {
  uint64_t need = (len + kAlign - 1) & ~(kAlign - 1);
  if (need == 0) need = kAlign;
  if (chunks_.empty() || chunks_.back().base == nullptr || chunks_.back().size - chunks_.back().used < need) {
    uint64_t size = need > kChunkBytes ? need : kChunkBytes;
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    madvise(p, size, MADV_HUGEPAGE);
    chunks_.push_back(Chunk{static_cast<uint8_t*>(p), size, 0, 0});
    mapped_ += size;
  }
  Chunk& c = chunks_.back();
  uint8_t* at = c.base + c.used;
  c.used += need;
  *chunk = static_cast<uint32_t>(chunks_.size() - 1);
  return at;
}

uint8_t* SenderLog::reserve(int32_t dst, const Envelope& env) {
  if (dst < 0 || bytes_ + env.len > limit_) return nullptr;
  staged_ = LogEntry{};
  staged_.env = env;
  staged_.data = carve(env.len, &staged_.chunk);
  if (!staged_.data) return nullptr;
  reserved_ = true;
  return staged_.data;
}

const LogEntry* SenderLog::commit(int32_t dst, uint64_t payload_hash) {
  return commit(dst, next_seq(dst), payload_hash);
}

const LogEntry* SenderLog::commit(int32_t dst, uint64_t seq, uint64_t payload_hash) {
  if (!reserved_) return nullptr;
  Channel& ch = chan(dst);
  if (seq < ch.next) return nullptr;
  reserved_ = false;
  staged_.seq = seq;
  ch.next = seq + 1;
  staged_.checksum = envelope_checksum(payload_hash, staged_.env.ctx, staged_.env.tag, staged_.env.len);
  chunks_[staged_.chunk].live += staged_.env.len;
  bytes_ += staged_.env.len;
  ++count_;
  ch.entries.push_back(staged_);
  return &ch.entries.back();
}

const LogEntry* SenderLog::append(int32_t dst, const Envelope& env, const void* data) {
  uint8_t* to = reserve(dst, env);
  if (!to) return nullptr;
  Hasher h;
  h.update(to, data, env.len);
  return commit(dst, h.digest());
}

uint64_t SenderLog::next_seq(int32_t dst) const {
  if (dst < 0 || static_cast<size_t>(dst) >= chans_.size() || !chans_[static_cast<size_t>(dst)]) return 1;
  return chans_[static_cast<size_t>(dst)]->next;
}

const LogEntry* SenderLog::find(int32_t dst, uint64_t seq) const {
  if (dst < 0 || static_cast<size_t>(dst) >= chans_.size() || !chans_[static_cast<size_t>(dst)]) return nullptr;
  const auto& q = chans_[static_cast<size_t>(dst)]->entries;
  if (q.empty() || seq < q.front().seq || seq > q.back().seq) return nullptr;
  // Entries are in increasing order, nearly always consecutive.
  const uint64_t guess = seq - q.front().seq;
  if (guess < q.size() && q[guess].seq == seq) return &q[guess];
  auto it = std::lower_bound(q.begin(), q.end(), seq, [](const LogEntry& e, uint64_t s) { return e.seq < s; });
  return it != q.end() && it->seq == seq ? &*it : nullptr;
}

void SenderLog::release(const LogEntry& e) {
  Chunk& c = chunks_[e.chunk];
  c.live -= e.env.len;
  bytes_ -= e.env.len;
  --count_;
  // A chunk nobody uses any more goes back to the kernel, unless it is the
  // one appends are filling.
  if (c.live == 0 && e.chunk + 1 != chunks_.size() && c.base) {
    munmap(c.base, c.size);
    mapped_ -= c.size;
    c.base = nullptr;
  }
}

void SenderLog::drop_before(int32_t dst, uint64_t seq) {
  if (dst < 0 || static_cast<size_t>(dst) >= chans_.size() || !chans_[static_cast<size_t>(dst)]) return;
  auto& q = chans_[static_cast<size_t>(dst)]->entries;
  while (!q.empty() && q.front().seq < seq) {
    release(q.front());
    q.pop_front();
  }
}

}  // namespace ftmpi::logging

#include "modules/logging/sender_log.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>

#include "modules/logging/checksum.hpp"

namespace ftmpi::logging {

namespace {
constexpr uint64_t kChunkBytes = 64ull << 20;
// Entries are packed on 16 bytes; a large payload starts on a line.
constexpr uint64_t kAlign = 16;
constexpr uint64_t kLine = 64;
static_assert(kLogEntryBytes % kAlign == 0 && kLogLineFrom % kLine == 0);
// Below this a payload is copied and hashed in one inline step.
constexpr uint64_t kShort = Hasher::kShortBytes;
// From this size on, the pages a payload lands on are populated by one
// madvise(MADV_POPULATE_WRITE) before the copy instead of one page fault
// each: first touch of log memory is what bounds large messages, and on the
// VMs measured one call for 4 MiB filled fresh pages 1.7x faster than the
// faults (bench/transparent/first_touch.c). Nothing is populated beyond
// such a payload: that would stall its send for pages the next entries may
// never need.
constexpr uint64_t kPopulateFrom = 256 << 10;
// Entries from kLogLineFrom bytes on find their pages populated this far
// ahead, one call per 64 pages instead of a fault per page (1.45x faster
// per fresh page on the VMs measured; the call stalls one send for about
// 90 us): 4 KiB ping-pong 3.5 -> 2.8 us, 4-64 KiB streaming 1.3x. Smaller
// ones keep faulting: at a page per 50 messages, zeroing 256 KiB ahead of
// them measured slower (8 B ping-pong 0.51 -> 0.55 us).
constexpr uint64_t kAhead = 256 << 10;
constexpr uint64_t kPage = 4096;
// populate_ahead: how far beyond the fill point, and how much per call
// (about 90 us of fresh pages here: a message coming meanwhile waits no
// longer than a wake-up from sleep would make it).
constexpr uint64_t kIdleAhead = 16ull << 20;
constexpr uint64_t kIdlePiece = 256 << 10;

[[gnu::noinline]] uint64_t copy_long(uint8_t* dst, const void* src, uint64_t n) {
  Hasher h;
  h.update(dst, src, static_cast<size_t>(n));
  return h.digest();
}

uint64_t footprint(uint64_t len) {
  const uint64_t body = len < kShort ? kShort : len;  // copy_short writes 32 bytes
  // A large entry also ends on a line, so the next one starts on a line.
  const uint64_t unit = len >= kLogLineFrom ? kLine : kAlign;
  return LogEntry::payload_offset(len) + ((body + unit - 1) & ~(unit - 1));
}
}  // namespace

SenderLog::~SenderLog() {
  for (Chunk& c : chunks_)
    if (c.base) munmap(c.base, c.size);
  if (spare_.base) munmap(spare_.base, spare_.size);
}

[[gnu::always_inline]] inline SenderLog::Channel& SenderLog::chan(int32_t dst) {
  if (static_cast<size_t>(dst) >= chans_.size()) [[unlikely]]
    chans_.resize(static_cast<size_t>(dst) + 1);
  return chans_[static_cast<size_t>(dst)];
}

bool SenderLog::new_chunk(uint64_t need) {
  // The chunk appends were filling may have been emptied meanwhile.
  if (!chunks_.empty() && chunks_.back().base && chunks_.back().live == 0) retire(chunks_.back());
  if (spare_.base && spare_.size >= need) {
    chunks_.push_back(spare_);
    spare_ = Chunk{};
    return true;
  }
  Chunk c = map_chunk(need > kChunkBytes ? need : kChunkBytes);
  if (!c.base) return false;
  chunks_.push_back(c);
  return true;
}

SenderLog::Chunk SenderLog::map_chunk(uint64_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return Chunk{};
  // No MADV_HUGEPAGE: on the VMs this runs on (free page reporting), a
  // huge page comes from memory the host has to back first, and logging
  // into fresh huge pages measured 2-5x slower than into small pages.
  mapped_ += size;
  return Chunk{static_cast<uint8_t*>(p), size, 0, 0};
}

void SenderLog::populate(uint8_t* at, uint64_t n) {
  // The range widened to whole pages (populating a page already present,
  // the previous entry's last one, changes nothing in it). A chunk is a
  // mapping of whole pages, so the range stays inside it.
  const auto lo = reinterpret_cast<uintptr_t>(at) & ~(kPage - 1);
  const auto hi = (reinterpret_cast<uintptr_t>(at) + n + kPage - 1) & ~(kPage - 1);
  // A refusal (a kernel before 5.14, memory short) leaves the pages to the
  // copy's faults, as without the call.
  madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);
}

bool SenderLog::populate_ahead() {
  // Nothing logged yet: nothing says this process sends.
  if (chunks_.empty() || !chunks_.back().base) return false;
  Chunk& c = chunks_.back();
  const uint64_t from = std::max(c.populated, c.used);
  if (from < std::min(c.size, c.used + kIdleAhead)) {
    populate_to(c, from, std::min(c.size, from + kIdlePiece), false);
    return true;
  }
  // The current chunk ends before the bound: the next one is the spare.
  if (c.size - c.used >= kIdleAhead) return false;
  if (!spare_.base) {
    spare_ = map_chunk(kChunkBytes);
    if (!spare_.base) return false;
  }
  const uint64_t want = std::min(spare_.size, kIdleAhead - (c.size - c.used));
  if (spare_.populated >= want) return false;
  populate_to(spare_, spare_.populated, std::min(want, spare_.populated + kIdlePiece), false);
  return true;
}

[[gnu::noinline]] void SenderLog::populate_to(Chunk& c, uint64_t from, uint64_t end, bool ahead) {
  if (end <= c.populated) return;
  // Below `populated` pages are present (populated, or written by the
  // entries before this one).
  const uint64_t lo = std::max(c.populated, from);
  const uint64_t to = ahead ? std::min(c.size, std::max(end, c.populated + kAhead)) : end;
  populate(c.base + lo, to - lo);
  c.populated = std::min(c.size, (to + kPage - 1) & ~(kPage - 1));
}

[[gnu::always_inline]] inline LogEntry* SenderLog::carve(const Envelope& env) {
  const uint64_t need = footprint(env.len);
  // A large entry starts on a line (the small ones before it end on 16).
  const uint64_t pad = env.len >= kLogLineFrom ? kLine - kAlign : 0;
  if (chunks_.empty() || chunks_.back().size - chunks_.back().used < need + pad) [[unlikely]] {
    if (!new_chunk(need + pad)) return nullptr;
  }
  Chunk& c = chunks_.back();
  if (pad) c.used = (c.used + kLine - 1) & ~(kLine - 1);
  uint8_t* at = c.base + c.used;
  c.used += need;
  if (env.len >= kLogLineFrom) [[unlikely]]
    populate_to(c, c.used - need, c.used, env.len < kPopulateFrom);
  ++c.live;
  return new (at) LogEntry{0, env, 0, static_cast<uint32_t>(chunks_.size() - 1)};
}

[[gnu::always_inline]] inline void SenderLog::link(Channel& ch, LogEntry* e, uint64_t seq, uint64_t payload_hash) {
  e->seq = seq;
  e->checksum = envelope_checksum(payload_hash, e->env.ctx, e->env.tag, e->env.len);
  ch.next = seq + 1;
  ch.index.push_back(e);
  ch.bytes += e->env.len;
  bytes_ += e->env.len;
  ++count_;
}

const LogEntry* SenderLog::append(int32_t dst, uint64_t seq, const Envelope& env, const void* data) {
  if (dst < 0 || env.len > limit_ - bytes_) return nullptr;
  Channel& ch = chan(dst);
  if (seq < ch.next) return nullptr;
  LogEntry* e = carve(env);
  if (!e) return nullptr;
  uint64_t hash;
  if (env.len < kShort) {
    hash = Hasher::copy_short(e->data(), data, static_cast<size_t>(env.len));
  } else {
    hash = copy_long(e->data(), data, env.len);
  }
  link(ch, e, seq, hash);
  return e;
}

uint8_t* SenderLog::reserve(int32_t dst, const Envelope& env) {
  if (dst < 0 || env.len > limit_ - bytes_) return nullptr;
  if (staged_) {  // an earlier reservation nobody committed: its room is lost
    --chunks_[staged_->chunk].live;
    staged_ = nullptr;
  }
  staged_ = carve(env);
  return staged_ ? staged_->data() : nullptr;
}

const LogEntry* SenderLog::commit(int32_t dst, uint64_t seq, uint64_t payload_hash) {
  if (!staged_ || dst < 0) return nullptr;
  Channel& ch = chan(dst);
  if (seq < ch.next) return nullptr;
  LogEntry* e = staged_;
  staged_ = nullptr;
  link(ch, e, seq, payload_hash);
  return e;
}

const LogEntry* SenderLog::find(int32_t dst, uint64_t seq) const {
  if (dst < 0 || static_cast<size_t>(dst) >= chans_.size()) return nullptr;
  const Channel& c = chans_[static_cast<size_t>(dst)];
  if (c.head == c.index.size()) return nullptr;
  const uint64_t first = c.index[c.head]->seq;
  if (seq < first || seq > c.index.back()->seq) return nullptr;
  // Entries are in increasing order, nearly always consecutive.
  const uint64_t guess = c.head + (seq - first);
  if (guess < c.index.size() && c.index[guess]->seq == seq) return c.index[guess];
  auto it = std::lower_bound(c.index.begin() + static_cast<std::ptrdiff_t>(c.head), c.index.end(), seq,
                             [](const LogEntry* e, uint64_t s) { return e->seq < s; });
  return it != c.index.end() && (*it)->seq == seq ? *it : nullptr;
}

void SenderLog::release(const LogEntry& e) {
  const uint32_t at = e.chunk;
  Chunk& c = chunks_[at];
  bytes_ -= e.env.len;
  --count_;
  // Not the one appends are filling (new_chunk retires that one).
  if (--c.live == 0 && at + 1 != chunks_.size() && c.base) retire(c);
}

void SenderLog::unused_pages(std::vector<std::pair<uint64_t, uint64_t>>& out) const {
  out.clear();
  // One bit per page of each chunk that holds a live entry.
  std::vector<std::vector<uint64_t>> held(chunks_.size());
  auto mark = [&](const LogEntry* e) {
    const Chunk& c = chunks_[e->chunk];
    std::vector<uint64_t>& bits = held[e->chunk];
    if (bits.empty()) bits.assign((c.size + 64 * kPage - 1) / (64 * kPage), 0);
    const uint64_t at = static_cast<uint64_t>(reinterpret_cast<const uint8_t*>(e) - c.base);
    const uint64_t last = (at + footprint(e->env.len) - 1) / kPage;
    for (uint64_t p = at / kPage; p <= last; ++p) bits[p / 64] |= 1ull << (p % 64);
  };
  for (const Channel& ch : chans_)
    for (size_t i = ch.head; i < ch.index.size(); ++i) mark(ch.index[i]);
  if (staged_) mark(staged_);
  auto add = [&out](uint64_t lo, uint64_t hi) {
    if (!out.empty() && out.back().second == lo) out.back().second = hi;
    else out.emplace_back(lo, hi);
  };
  for (size_t i = 0; i < chunks_.size(); ++i) {
    const Chunk& c = chunks_[i];
    if (!c.base) continue;
    const auto base = reinterpret_cast<uint64_t>(c.base);
    const uint64_t pages = c.size / kPage;
    for (uint64_t p = 0; p < pages; ++p)
      if (held[i].empty() || !(held[i][p / 64] >> (p % 64) & 1)) add(base + p * kPage, base + (p + 1) * kPage);
  }
  if (spare_.base) add(reinterpret_cast<uint64_t>(spare_.base), reinterpret_cast<uint64_t>(spare_.base) + spare_.size);
  std::sort(out.begin(), out.end());
  // Chunks the kernel placed side by side make one range.
  size_t n = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (n > 0 && out[n - 1].second == out[i].first) out[n - 1].second = out[i].second;
    else out[n++] = out[i];
  }
  out.resize(n);
}

void SenderLog::retire(Chunk& c) {
  // A chunk nobody uses any more is kept populated as the spare (the next
  // new chunk: no page faults), or goes back to the kernel.
  if (!spare_.base && c.size == kChunkBytes) {
    spare_ = Chunk{c.base, c.size, 0, 0, c.populated};
  } else {
    munmap(c.base, c.size);
    mapped_ -= c.size;
  }
  c.base = nullptr;
}

uint64_t SenderLog::drop_before(int32_t dst, uint64_t seq) {
  if (dst < 0 || static_cast<size_t>(dst) >= chans_.size()) return 0;
  Channel& c = chans_[static_cast<size_t>(dst)];
  const uint64_t before = bytes_;
  while (c.head < c.index.size() && c.index[c.head]->seq < seq) {
    c.bytes -= c.index[c.head]->env.len;
    release(*c.index[c.head++]);
  }
  // Forget the dropped pointers once they are most of the index.
  if (c.head > 1024 && c.head * 2 > c.index.size()) {
    c.index.erase(c.index.begin(), c.index.begin() + static_cast<std::ptrdiff_t>(c.head));
    c.head = 0;
  }
  return before - bytes_;
}

}  // namespace ftmpi::logging

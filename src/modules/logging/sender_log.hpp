// The sender-based payload log (DESIGN §8): a copy of every message this
// process sent, per destination slot (channel), in send order, numbered by
// the channel's sequence numbers (1, 2, ...). A restarted receiver gets the
// entries it has not consumed from here; part 2's garbage collection drops
// what a receiver's checkpoint made useless (drop_before).
//
// Entries (header and payload side by side) live in large arena chunks,
// not one allocation each: a small message costs a pointer bump and one
// call that copies and hashes its bytes, and 80 bytes of arena (a 48-byte
// header and at least 32 payload bytes, packed on 16 bytes: on VMs that
// hand freed memory back to their host, every fresh arena page costs a
// host fault, so the log's bytes per message are its cost per message). First touch of log memory is the
// cost of large messages: a chunk garbage collection emptied is kept,
// already populated, as the next chunk (one spare) instead of going back to
// the kernel. Memory is accounted per payload byte against a limit
// (FTMPI_LOG_LIMIT); appends refuse past it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

namespace ftmpi::logging {

// Where a message went and how it matches there; the sender is this process.
struct Envelope {
  uint64_t ctx = 0;
  int32_t tag = 0;
  uint8_t flags = 0;  // p2p match-header flags (synchronous)
  uint64_t len = 0;   // payload bytes (packed)
};

// Arena bytes before a payload: the entry, or (from kLineFrom payload bytes
// on) a whole cache line, so that a large copy starts line-aligned.
inline constexpr uint64_t kLogEntryBytes = 48;
inline constexpr uint64_t kLogLineFrom = 256;

struct LogEntry {
  uint64_t seq = 0;
  Envelope env;
  uint64_t checksum = 0;  // envelope_checksum of the payload
  uint32_t chunk = 0;     // arena chunk holding entry and data

  // The env.len payload bytes, in the arena right after the entry.
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(this) + payload_offset(env.len); }
  uint8_t* data() { return reinterpret_cast<uint8_t*>(this) + payload_offset(env.len); }
  static constexpr uint64_t payload_offset(uint64_t len) { return len >= kLogLineFrom ? 64 : kLogEntryBytes; }
};
static_assert(sizeof(LogEntry) <= kLogEntryBytes);

class SenderLog {
 public:
  explicit SenderLog(uint64_t limit_bytes) : limit_(limit_bytes) {}
  ~SenderLog();
  SenderLog(const SenderLog&) = delete;
  SenderLog& operator=(const SenderLog&) = delete;

  // Copies `env.len` bytes from `data` (hashing them on the way) as message
  // `seq` of the channel (numbers only grow; p2p may skip one it withdrew
  // before it left). nullptr when the copy would pass the limit or seq does
  // not grow; nothing is logged then and the caller ends the job.
  const LogEntry* append(int32_t dst, uint64_t seq, const Envelope& env, const void* data);
  // The same as the channel's next message.
  const LogEntry* append(int32_t dst, const Envelope& env, const void* data) {
    return append(dst, next_seq(dst), env, data);
  }
  // Appends a payload assembled by the caller in pieces: reserve, write the
  // bytes, then commit with their hash (Hasher over the same bytes: the
  // checksum equals append's). Same rules.
  uint8_t* reserve(int32_t dst, const Envelope& env);
  const LogEntry* commit(int32_t dst, uint64_t payload_hash) { return commit(dst, next_seq(dst), payload_hash); }
  const LogEntry* commit(int32_t dst, uint64_t seq, uint64_t payload_hash);

  // Sequence number the next append to dst gets.
  uint64_t next_seq(int32_t dst) const {
    return dst >= 0 && static_cast<size_t>(dst) < chans_.size() ? chans_[static_cast<size_t>(dst)].next : 1;
  }
  // The entry with this sequence number, if still logged.
  const LogEntry* find(int32_t dst, uint64_t seq) const;
  // Entries of dst with sequence number >= from, in order.
  template <typename Fn>
  void for_each_from(int32_t dst, uint64_t from, Fn&& fn) const {
    if (dst < 0 || static_cast<size_t>(dst) >= chans_.size()) return;
    const Channel& c = chans_[static_cast<size_t>(dst)];
    for (size_t i = c.head; i < c.index.size(); ++i)
      if (c.index[i]->seq >= from) fn(*c.index[i]);
  }
  // Garbage collection: forgets dst's entries with sequence number < seq
  // and returns their payload bytes. A chunk left empty becomes the spare
  // (or is unmapped), so the arena shrinks with the log.
  uint64_t drop_before(int32_t dst, uint64_t seq);

  // Populates one piece of the pages the next appends will take, up to a
  // bound ahead of the fill point (the spare chunk when the current one
  // ends first): the process does it while it has nothing else to do, so
  // a later send does not pay the first touch (on the VMs measured, the
  // zeroing and host faults of fresh log pages were most of transparent
  // mode's cost on a solver). false: nothing left to populate.
  bool populate_ahead();

  uint64_t bytes() const { return bytes_; }        // payload bytes logged
  // Payload bytes logged for dst (what its restart would be sent again).
  uint64_t bytes_for(int32_t dst) const {
    return dst >= 0 && static_cast<size_t>(dst) < chans_.size() ? chans_[static_cast<size_t>(dst)].bytes : 0;
  }
  uint64_t limit() const { return limit_; }
  uint64_t entries() const { return count_; }
  uint64_t mapped() const { return mapped_; }      // arena bytes mapped (spare chunk included)
  // The arena's pages that hold no logged entry, as sorted address ranges
  // [start, end): the spare, the unfilled end of the chunk being filled, and
  // pages whose every entry was dropped. Nothing reads them again before
  // an append writes them, so a checkpoint image leaves them out. A chunk
  // is freed only when all its entries are dropped: one receiver that has
  // not checkpointed yet keeps every chunk alive, its few entries spread
  // over chunks of dead ones (CG at np 8: 500 MiB mapped for under 1 MiB
  // logged, docs/benchmarks.md).
  void unused_pages(std::vector<std::pair<uint64_t, uint64_t>>& out) const;

 private:
  struct Channel {
    uint64_t next = 1;
    // In sequence order from index[head]; a deque for the reason
    // InChannels keeps its checksums in one (fresh memory per message).
    std::deque<LogEntry*> index;
    size_t head = 0;               // entries before it were dropped
    uint64_t bytes = 0;            // payload bytes of the entries from head on
  };
  struct Chunk {
    uint8_t* base = nullptr;
    uint64_t size = 0;
    uint64_t used = 0;
    uint64_t live = 0;  // entries still logged in it
    uint64_t populated = 0;  // bytes from base whose pages are known present
  };
  Channel& chan(int32_t dst);
  LogEntry* carve(const Envelope& env);
  bool new_chunk(uint64_t need);
  Chunk map_chunk(uint64_t size);  // a fresh anonymous chunk (base null: refused), counted in mapped_
  static void populate(uint8_t* at, uint64_t n);
  static void populate_to(Chunk& c, uint64_t from, uint64_t end, bool ahead);
  void link(Channel& ch, LogEntry* e, uint64_t seq, uint64_t payload_hash);
  void release(const LogEntry& e);
  void retire(Chunk& c);

  uint64_t limit_;
  uint64_t bytes_ = 0;
  uint64_t count_ = 0;
  uint64_t mapped_ = 0;
  std::vector<Channel> chans_;
  std::vector<Chunk> chunks_;  // appends fill the last one
  Chunk spare_;                // an emptied chunk kept populated for reuse
  LogEntry* staged_ = nullptr;  // reserved, not committed
};

}  // namespace ftmpi::logging

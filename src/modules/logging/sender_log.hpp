// The sender-based payload log (DESIGN §8): a copy of every message this
// process sent, per destination slot (channel), in send order, numbered by
// the channel's sequence numbers (1, 2, ...). A restarted receiver gets the
// entries it has not consumed from here; part 2's garbage collection drops
// what a receiver's checkpoint made useless (drop_before).
//
// Payloads live in large arena chunks (transparent huge pages where the
// kernel gives them), not one allocation each: a 4 MiB message then costs
// two page faults instead of a thousand. Memory is accounted per payload
// byte against a limit (FTMPI_LOG_LIMIT); append refuses past it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

namespace ftmpi::logging {

// Where a message went and how it matches there; the sender is this process.
struct Envelope {
  uint64_t ctx = 0;
  int32_t tag = 0;
  uint8_t flags = 0;  // p2p match-header flags (synchronous)
  uint64_t len = 0;   // payload bytes (packed)
};

struct LogEntry {
  uint64_t seq = 0;
  Envelope env;
  uint64_t checksum = 0;  // envelope_checksum of the payload
  uint8_t* data = nullptr;  // env.len bytes in the arena
  uint32_t chunk = 0;       // arena chunk holding data
};

class SenderLog {
 public:
  explicit SenderLog(uint64_t limit_bytes) : limit_(limit_bytes) {}
  ~SenderLog();
  SenderLog(const SenderLog&) = delete;
  SenderLog& operator=(const SenderLog&) = delete;

  // Copies `env.len` bytes from `data` (hashing them on the way) as the
  // channel's next message. nullptr when the copy would pass the limit;
  // nothing is logged then and the caller ends the job.
  const LogEntry* append(int32_t dst, const Envelope& env, const void* data);
  // Appends a payload assembled by the caller in pieces: reserve, write the
  // bytes, then commit with their checksum. Same limit rule. commit with a
  // sequence number: the one p2p gave the message (numbers only grow; p2p
  // may skip one it withdrew before it left); null if it does not grow.
  uint8_t* reserve(int32_t dst, const Envelope& env);
  const LogEntry* commit(int32_t dst, uint64_t payload_hash);
  const LogEntry* commit(int32_t dst, uint64_t seq, uint64_t payload_hash);

  // Sequence number the next append to dst gets.
  uint64_t next_seq(int32_t dst) const;
  // The entry with this sequence number, if still logged.
  const LogEntry* find(int32_t dst, uint64_t seq) const;
  // Entries of dst with sequence number >= from, in order.
  template <typename Fn>
  void for_each_from(int32_t dst, uint64_t from, Fn&& fn) const {
    if (dst < 0 || static_cast<size_t>(dst) >= chans_.size()) return;
    if (!chans_[static_cast<size_t>(dst)]) return;
    for (const LogEntry& e : chans_[static_cast<size_t>(dst)]->entries)
      if (e.seq >= from) fn(e);
  }
  // Garbage collection: forgets dst's entries with sequence number < seq.
  void drop_before(int32_t dst, uint64_t seq);

  uint64_t bytes() const { return bytes_; }        // payload bytes logged
  uint64_t limit() const { return limit_; }
  uint64_t entries() const { return count_; }
  uint64_t mapped() const { return mapped_; }      // arena bytes mapped

 private:
  struct Channel {
    uint64_t next = 1;
    std::deque<LogEntry> entries;
  };
  struct Chunk {
    uint8_t* base = nullptr;
    uint64_t size = 0;
    uint64_t used = 0;
    uint64_t live = 0;  // payload bytes of entries still logged
  };
  Channel& chan(int32_t dst);
  uint8_t* carve(uint64_t len, uint32_t* chunk);
  void release(const LogEntry& e);

  uint64_t limit_;
  uint64_t bytes_ = 0;
  uint64_t count_ = 0;
  uint64_t mapped_ = 0;
  std::vector<std::unique_ptr<Channel>> chans_;  // entries never move: callers keep pointers
  std::vector<Chunk> chunks_;
  bool reserved_ = false;
  LogEntry staged_;
};

}  // namespace ftmpi::logging

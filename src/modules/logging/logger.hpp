// The protocol of pessimistic sender-based message logging for one process
// (DESIGN §8, spec/transparent-mode.md), independent of how bytes move: p2p
// and the runtime are reached through `Wire`, so the whole protocol runs in
// unit tests with several Loggers wired to each other.
//
// Send side: every message to another process is logged (sequence number,
// payload copy) before it leaves; it leaves at once unless determinants are
// unacknowledged (pessimism) or its destination is dead and has not asked
// for its messages yet; those wait in the channel's queue, in order. A
// restarted process suppresses the sends its peers already have (checksums
// compared: a difference is a divergence).
//
// Receive side: a message is accepted once per sequence number; a later
// copy is a duplicate and dropped.
//
// Restart: the new incarnation loads its determinants (Outcomes), says
// HELLO to every peer and waits (ready()) until each has answered HAVE;
// peers then resend their log for it.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "modules/logging/channels.hpp"
#include "modules/logging/outcomes.hpp"
#include "modules/logging/sender_log.hpp"

namespace ftmpi::logging {

class Wire {
 public:
  virtual ~Wire() = default;
  // A control frame to the current incarnation of `slot` (false: not sent,
  // the slot is dead; its next incarnation will say HELLO).
  virtual bool send_frame(int32_t slot, const std::vector<uint8_t>& bytes) = 0;
  // Puts a logged message on the wire to `slot` with its sequence number.
  // sync_req: the synchronous send request waiting for its match, 0 if none.
  virtual void transmit(int32_t slot, const LogEntry& e, uint64_t sync_req) = 0;
  // One batch of determinants to the event logger; its acknowledgement
  // comes back through Logger::on_batch_acked, in order.
  virtual void log_determinants(const std::vector<uint8_t>& batch) = 0;
  virtual size_t max_frame_bytes() const = 0;
  // Ends the job with this one-line message.
  [[noreturn]] virtual void fatal(const std::string& msg) = 0;
};

struct LoggerStats {
  uint64_t resent = 0;       // logged messages put on the wire again for a restarted peer
  uint64_t suppressed = 0;   // replayed sends a peer already had
  uint64_t duplicates = 0;   // arrivals dropped by sequence number
  uint64_t held = 0;         // sends that waited (pessimism or a dead peer)
  uint64_t batches = 0;      // determinant batches sent
};

class Logger {
 public:
  Logger(Wire& wire, int32_t self_slot, int32_t world_size, uint64_t log_limit);

  // --- restart (a new incarnation, in MPI_Init) ---
  // The concatenated determinant batches of this slot (from the runtime).
  void start_replay(const std::vector<uint8_t>& dets);
  // Every live peer answered HELLO: sends may start.
  bool ready() const;
  bool replaying() const { return replay_; }
  // Replay done: determinants exhausted and every peer's holdings passed.
  // True once, when it happens (the caller reports it).
  bool take_caught_up();

  // --- send side ---
  enum class SendAction : uint8_t { kSent, kQueued, kSuppressed };
  // Logs `env.len` bytes handed over in pieces: reserve, copy/hash, commit.
  uint8_t* reserve(int32_t dst, const Envelope& env);
  // The logged entry (null: the log limit was hit; fatal() already ran).
  const LogEntry* commit(int32_t dst, uint64_t payload_hash);
  // Decides what happens to the entry just committed (see class comment).
  // transmit_now: when kSent, the caller sends it itself (its own request,
  // the fast path) instead of Wire::transmit.
  SendAction route(int32_t dst, const LogEntry& e, uint64_t sync_req, bool caller_transmits);
  // A synchronous send was matched (its request no longer waits).
  void sync_done(uint64_t sync_req);

  // --- receive side ---
  // false: a duplicate, drop it.
  bool accept(int32_t src, uint64_t seq, uint64_t checksum);
  Outcomes& outcomes() { return outcomes_; }
  // Before any send: flush recorded determinants (they must be acked first).
  void flush_determinants();
  void on_batch_acked();

  // --- runtime events ---
  void on_peer_failed(int32_t slot);
  void on_frame(int32_t from, const uint8_t* p, size_t n);

  const SenderLog& log() const { return log_; }
  const InChannels& inbound() const { return in_; }
  const LoggerStats& stats() const { return stats_; }
  void check_divergence();  // fatal() if the replay diverged

 private:
  struct Queued {
    uint64_t seq;
    uint64_t sync_req;
  };
  struct Out {
    bool down = false;              // dead, waiting for its next incarnation's HELLO
    uint64_t sent_upto = 0;         // highest seq handed to the wire (or suppressed)
    std::deque<Queued> queue;       // logged, not on the wire yet (seq > sent_upto)
  };
  Out& out(int32_t dst) { return out_[static_cast<size_t>(dst)]; }
  void drain();
  void drain(int32_t dst);
  void on_hello(int32_t from, const uint8_t* p, size_t n);
  void on_have(int32_t from, const uint8_t* p, size_t n);
  uint64_t sync_req_of(int32_t dst, uint64_t seq) const;
  [[noreturn]] void diverged(const std::string& what);

  Wire& wire_;
  int32_t self_;
  SenderLog log_;
  InChannels in_;
  Outcomes outcomes_;
  PeerHoldings have_;
  std::vector<Out> out_;
  std::vector<bool> hello_answered_;  // restarted: peer's HAVE complete
  struct SyncWait {
    int32_t dst;
    uint64_t seq;
    uint64_t req;
  };
  std::vector<SyncWait> sync_waits_;  // synchronous sends not matched yet
  bool replay_ = false;
  bool caught_up_reported_ = false;
  LoggerStats stats_;
};

}  // namespace ftmpi::logging

// The protocol of pessimistic sender-based message logging for one process
// (DESIGN §8, spec/transparent-mode.md), independent of how bytes move: p2p
// and the runtime are reached through `Wire`, so the whole protocol runs in
// unit tests with several Loggers wired to each other.
//
// Send side: every message to another process is logged (sequence number,
// payload copy, checksum) before it leaves. Pessimism: while determinants
// are not acknowledged by the event logger, sends are held (the caller
// keeps them queued) and the determinants go out as one batch; the ack
// releases them.
//
// Receive side: a message is accepted once per sequence number; a later
// copy is a duplicate (a restarted sender re-executing) and is dropped,
// after its checksum was compared with the accepted one's: a difference
// means the sender's replay diverged.
//
// Restart: survivors hear of the new incarnation (peer_back), queue again
// every message they logged for it and tell it how far that goes (RESENT).
// The new incarnation replays its determinants (Outcomes) and has caught up
// once they are exhausted, it received every peer's messages up to there
// and it sent each peer again what that peer had accepted from its slot.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "modules/logging/channels.hpp"
#include "modules/logging/frames.hpp"
#include "modules/logging/outcomes.hpp"
#include "modules/logging/sender_log.hpp"

namespace ftmpi::logging {

class Wire {
 public:
  virtual ~Wire() = default;
  // A control frame to the current incarnation of `slot` (false: not sent).
  virtual bool send_frame(int32_t slot, const std::vector<uint8_t>& bytes) = 0;
  // Queues a logged message for the current incarnation of `slot` again,
  // with its sequence number (false: the sender has it queued itself).
  virtual bool inject(int32_t slot, const LogEntry& e) = 0;
  // One batch of determinants to the event logger. true: the logger holds
  // it already (stable at once); false: its acknowledgement comes back
  // through Logger::on_batch_acked, in order.
  virtual bool log_determinants(const std::vector<uint8_t>& batch) = 0;
  // Ends the job with this one-line message.
  [[noreturn]] virtual void fatal(const std::string& msg) = 0;
};

struct LoggerStats {
  uint64_t resent = 0;      // logged messages queued again for restarted peers
  uint64_t duplicates = 0;  // arrivals dropped by sequence number
  uint64_t held = 0;        // sends held by pessimism
  uint64_t batches = 0;     // determinant batches sent
};

class Logger {
 public:
  Logger(Wire& wire, int32_t self_slot, int32_t world_size, uint64_t log_limit);

  // --- restart (a new incarnation, in MPI_Init) ---
  // The concatenated determinant batches of this slot (from the runtime).
  void start_replay(const std::vector<uint8_t>& dets);
  bool replaying() const { return replay_; }
  // A checkpoint image resumes as the next incarnation (resume.cpp): of the
  // fetched determinants it replays those of events it had not seen at the
  // checkpoint (numbered at or after its counters) and those of the
  // wildcard receives and cancels still open in it (`open_matches`,
  // `open_cancels`: numbered before, decided after). What it heard of its
  // peers' restarts and MPI_Finalize is forgotten: they tell it again.
  void resume_replay(const std::vector<uint8_t>& dets, const std::set<uint64_t>& open_matches,
                     const std::set<uint64_t>& open_cancels);
  // Replay done: determinants exhausted, every peer's logged messages
  // received, and every message a peer had accepted from this slot sent
  // again. True once, when it happens (the caller reports it).
  bool take_caught_up() { return replay_ && caught_up(); }
  // Every peer's RESENT is in and this incarnation sent each peer again
  // what that peer had accepted from its slot: past the dead incarnation's
  // last send.
  bool sent_again() const;
  // May a nonblocking collective's later round start now (Outcomes)? In a
  // replay, one the log does not place waits until sent_again(): the dead
  // incarnation started it after its last send (pessimism flushes a start
  // before the next send), and started earlier, where the replay finds its
  // input already there (re-sent logs arrive at once), its sends would
  // take the numbers of sends the peers have (mpi23.nbc np 8 with
  // checkpoints: a divergence).
  bool round_may_start(uint64_t sched, uint32_t round) {
    if (replay_ && !outcomes_.rounds_logged() && !sent_again()) return false;
    return outcomes_.round_may_start(sched, round);
  }

  // --- send side ---
  // Logs `env.len` bytes handed over in pieces: reserve, copy and hash,
  // then commit with the sequence number the message carries (the
  // channel's next one). Past the log limit fatal() ends the job.
  uint8_t* reserve(int32_t dst, const Envelope& env);
  const LogEntry* commit(int32_t dst, uint64_t seq, uint64_t payload_hash);
  // The same for a payload in one piece, copied and hashed in one pass.
  const LogEntry* append(int32_t dst, uint64_t seq, const Envelope& env, const void* data) {
    if (const LogEntry* e = log_.append(dst, seq, env, data)) return e;
    append_failed(dst, seq);
  }
  // May the logged message go now? false: hold it (determinants were
  // flushed; on_batch_acked says when held sends may go).
  bool may_send() { return outcomes_.may_send() || hold(); }

  // --- receive side ---
  // false: a duplicate, drop it.
  bool accept(int32_t src, uint64_t seq, uint64_t checksum) {
    if (in_.arrive(src, seq, checksum) == InChannels::Verdict::kAccept) return true;
    duplicate(src, seq, checksum);
    return false;
  }
  Outcomes& outcomes() { return outcomes_; }
  const Outcomes& outcomes() const { return outcomes_; }
  void flush_determinants();
  // true: every flushed batch is acknowledged, held sends may go (even if
  // determinants were recorded since: the next send flushes those).
  bool on_batch_acked();

  // --- peers ---
  void on_peer_failed(int32_t slot);
  // Slot's next incarnation runs: queue our log for it again, but for the
  // messages the user's cancel withdrew (never delivered: `withdrawn`), and
  // tell it the last one it will get (RESENT; again, lower, if that one is
  // withdrawn later).
  void peer_back(int32_t slot);
  void withdrawn(int32_t dst, uint64_t seq);
  void on_frame(int32_t from, const uint8_t* p, size_t n);
  // MPI_Finalize: tell every peer we are done; all_done() once every
  // process's current incarnation has said so (a death clears its word).
  void announce_done();
  bool all_done() const;

  // --- garbage collection (spec/checkpoint-protocol.md §5) ---
  // The runtime holds a checkpoint of this process whose image accepted
  // `received[s]` messages from each slot s and had sent it `sent[s]`: tell
  // each peer it may drop those from its log, and the checksums of these
  // from its receiving end (COLLECT). Only ever called for a complete
  // checkpoint.
  void checkpoint_kept(const std::vector<uint64_t>& received, const std::vector<uint64_t>& sent);
  // Payload bytes dropped from our log at the receivers' word, ever.
  uint64_t reclaimed() const { return reclaimed_; }

  const SenderLog& log() const { return log_; }
  // Idle time: fresh pages for the log's next entries (SenderLog::populate_ahead).
  bool prepare_log() { return log_.populate_ahead(); }
  const InChannels& inbound() const { return in_; }
  const LoggerStats& stats() const { return stats_; }
  // Messages the peers said they resent to this incarnation.
  uint64_t resent_to_me() const;
  void check_divergence() {  // fatal() if the replay diverged
    if (outcomes_.diverged()) diverged(outcomes_.divergence());
  }

 private:
  [[noreturn]] void diverged(const std::string& what);
  [[noreturn]] void log_full();
  [[noreturn]] void lost_count(int32_t dst, uint64_t seq);
  [[noreturn]] void append_failed(int32_t dst, uint64_t seq);
  bool caught_up();
  void duplicate(int32_t src, uint64_t seq, uint64_t checksum);  // fatal() if it differs
  bool hold();  // flushes determinants; false: the send waits for their ack

  Wire& wire_;
  int32_t self_;
  SenderLog log_;
  InChannels in_;
  Outcomes outcomes_;
  // Per slot, how far the messages it resent to us go (-1: not told yet).
  std::vector<int64_t> resent_upto_;
  // Per slot, how far it accepted our slot's messages (RESENT): a replay
  // has caught up once it sent them again.
  std::vector<uint64_t> seen_;
  std::vector<uint64_t> had_;  // per slot: messages a resumed image had received (not replayed)
  std::vector<bool> done_;  // per slot: its current incarnation is in MPI_Finalize
  std::vector<std::set<uint64_t>> withdrawn_;  // per destination slot
  // Per slot: the last message we told its restarted incarnation to wait
  // for (RESENT), 0: none.
  std::vector<uint64_t> announced_;
  // The highest logged message below `below` to `dst` not withdrawn (0: none).
  uint64_t last_to_deliver(int32_t dst, uint64_t below) const;
  std::vector<Collect> collect_;  // per slot: the last COLLECT we sent it
  uint64_t reclaimed_ = 0;
  bool replay_ = false;
  LoggerStats stats_;
  std::vector<uint8_t> batch_;  // the batch being flushed
};

}  // namespace ftmpi::logging

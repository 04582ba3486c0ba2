// The non-deterministic outcomes of one process (DESIGN §8): recorded as
// determinants while the process runs live, forced from the fetched
// determinants while a restarted incarnation replays. Every event kind has
// its own counter, advanced identically in both modes, so a replay that
// reaches the same event asks for the same determinant.
//
// Polls (Test family, Iprobe) record only failures, merged into runs of
// consecutive failing calls (kPolls). During a replay a poll call inside a
// logged run fails; one outside every run succeeded in the dead incarnation
// if any determinant is still ahead of it (a failure would have been logged
// before that later determinant), so the caller must block until it
// succeeds; once the log is exhausted polls are live again.
//
// A send withdrawn by the user's cancel (kWithdrawn), before it left or by
// its receiver, is logged so that a replay withholds it: sent again, it
// would reach a receiver that may hold later messages of the channel (its
// number skipped, or its withdrawal forgotten by a restart) or be replaying
// itself, as something the dead incarnation never delivered.
//
// Rounds of nonblocking collectives after their first start from the
// progress engine when their messages have arrived: where their sends fall
// among the process's other sends, and so their channel sequence numbers,
// depends on timing. Each such round is logged (kRound) with the number of
// sends numbered before it; a replay starts it exactly there, and a send
// that would take its number first waits (may_number false) until it did.
//
// Pessimism: the determinants recorded since the last flush, and the batches
// the event logger has not acknowledged yet, forbid sending (may_send());
// the caller flushes them as one batch (take_batch) and waits for the ack.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "modules/logging/determinant.hpp"

namespace ftmpi::logging {

enum class PollVerdict : uint8_t {
  kLive,     // decide as usual and record
  kFail,     // report "not yet" without looking
  kSucceed,  // the dead incarnation succeeded here: block until it does
};

class Outcomes {
 public:
  // A restarted incarnation: the determinants of its slot, as fetched.
  void load(std::vector<Determinant> dets);
  // How many events of kind k this process has numbered so far.
  uint64_t counter(DetKind k) const { return counter_[static_cast<size_t>(k)]; }
  // Determinants not yet replayed (0: live).
  size_t to_replay() const { return remaining_; }
  bool replaying() const { return remaining_ > 0; }
  uint64_t replayed() const { return replayed_; }
  // Set when a replay met an event its log contradicts; the message says
  // which (the caller ends the job with it).
  bool diverged() const { return !divergence_.empty(); }
  const std::string& divergence() const { return divergence_; }

  // Wildcard receives are numbered in the order they are posted
  // (a later one may match first: their determinants are keyed by that
  // number, not by the order of matching). next_wildcard() numbers one.
  uint64_t next_wildcard() { return counter_[static_cast<size_t>(DetKind::kMatch)]++; }
  struct Forced {
    int32_t slot;
    uint64_t seq;
  };
  // Replay: the message wildcard #i matched in the dead incarnation.
  std::optional<Forced> forced_match(uint64_t i) const;
  // Wildcard #i matched (slot, seq): recorded live, checked against the log
  // in a replay (false: diverged).
  bool matched(uint64_t i, int32_t slot, uint64_t seq);

  // Successful wildcard probes, numbered in their own order (a probe that
  // finds nothing logs nothing; p2p may look many times for one probe).
  std::optional<Forced> forced_probe() const;
  bool probed(int32_t slot, uint64_t seq);

  PollVerdict poll_verdict() const;
  void polled(bool success);

  std::optional<std::vector<int32_t>> forced_completion() const;
  bool completed(const std::vector<int32_t>& which);

  // Clock values: the logged one in a replay, else `live` (recorded).
  double wtime(double live) { return clock(DetKind::kWtime, live); }
  double wtick(double live) { return clock(DetKind::kWtick, live); }

  // MPI_Cancel calls are numbered in call order; the outcome (did the
  // operation end cancelled) is known when the request completes, perhaps
  // after a later cancel's. Replay: the logged outcome of cancel #i, which
  // the caller forces.
  uint64_t next_cancel() { return counter_[static_cast<size_t>(DetKind::kCancel)]++; }
  std::optional<bool> forced_cancel(uint64_t i) const;
  // Cancel #i's request completed, cancelled or not: recorded live, checked
  // against the log in a replay (false: diverged).
  bool cancel_outcome(uint64_t i, bool cancelled);

  // Sends the user's cancel withdrew (never delivered), by (receiver slot,
  // sequence number); may be told twice. Recorded live (numbered in the
  // order first told); a replay knows them from the send on.
  void withdrew(int32_t slot, uint64_t seq);
  // Replay: was this send withdrawn in the dead incarnation? Then it is
  // withheld (never sent) until its cancel comes again.
  bool withhold(int32_t slot, uint64_t seq);
  // A resumed image: this message, sent before the checkpoint, was withdrawn
  // after it (a logged determinant no send will replay): known, so that its
  // cancel, made again, does not record it twice.
  void withdrawn_before(int32_t slot, uint64_t seq) { withdrawn_.emplace(slot, seq); }

  // A send is about to take its channel sequence number (every send, to
  // this process too, in the order numbered). false: a replay must first
  // start a round the dead incarnation started before this send; ask again
  // after round_started().
  bool may_number() {
    if (!would_number()) return false;
    ++numbered_;
    return true;
  }
  // Round `round` (not the first) of schedule `sched` has its input and
  // would start its sends: recorded live (true); in a replay true only if
  // it is the next logged round and as many sends were numbered as then.
  // Its sends follow, then round_started().
  bool round_may_start(uint64_t sched, uint32_t round);
  void round_started() { in_round_ = false; }
  // A replay has logged round starts left to force.
  bool rounds_logged() const { return head(DetKind::kRound) != nullptr; }
  uint64_t numbered() const { return numbered_; }
  // Nonblocking collective schedules started and ended: a replay whose
  // next logged round is due before the next send while its schedule was
  // never started or has ended (or passed that round) waits for a round that
  // cannot come; that is a divergence, reported instead of a hang.
  void schedule_started(uint64_t sched) { schedules_ = sched + 1; }
  void schedule_ended(uint64_t sched);
  // A send was refused its number (may_number false): diverge if the round
  // it waits for cannot come. Only then: before the program's next send a
  // due round's schedule may still be about to start.
  void check_round_comes();

  // Pessimism and batching.
  bool has_unflushed() const { return !pending_.empty() || run_count_ > 0; }
  // may_number() would answer true (and changes nothing).
  bool would_number() const {
    return in_round_ || queue_[static_cast<size_t>(DetKind::kRound)].empty() || !round_due();
  }
  bool may_send() const { return !has_unflushed() && unacked_ == 0; }
  // Encodes everything recorded since the last flush as one batch (false:
  // nothing to flush). The caller hands it to the event logger.
  bool take_batch(std::vector<uint8_t>& out);
  void batch_sent() { ++unacked_; }
  void batch_acked() {
    if (unacked_ > 0) --unacked_;
  }
  uint64_t unacked() const { return unacked_; }
  uint64_t recorded() const { return recorded_; }

 private:
  const Determinant* head(DetKind k) const;
  void consume(DetKind k);
  void record(Determinant d);
  // The next event of e.kind (its index is set here): recorded live; in a
  // replay compared with the logged one (false: diverged) or, `forced`,
  // replaced by it.
  bool replay_or_record(Determinant& e, bool forced);
  // The same for a keyed kind, e.index set by the caller.
  bool replay_or_record_keyed(const Determinant& e);
  std::optional<Determinant> logged(DetKind k, uint64_t i) const;
  void close_run();
  void diverge(const std::string& what);
  double clock(DetKind k, double live);
  bool round_due() const;  // the next logged round starts before the next send

  uint64_t numbered_ = 0;  // sends numbered so far (both modes)
  bool in_round_ = false;  // a round's sends are being started
  uint64_t schedules_ = 0;  // nonblocking collectives started (both modes)
  // Replay, while logged rounds remain: the schedules that ended.
  std::set<uint64_t> ended_;

  // Replay: one queue per kind, in logged order, except the kinds whose
  // outcomes may be logged out of their numbering order (kMatch, kCancel):
  // those by index.
  static bool keyed(DetKind k) { return k == DetKind::kMatch || k == DetKind::kCancel || k == DetKind::kWithdrawn; }
  std::deque<Determinant> queue_[kDetKinds];
  std::map<uint64_t, Determinant> by_index_[kDetKinds];
  size_t remaining_ = 0;
  uint64_t replayed_ = 0;
  std::string divergence_;

  // Withdrawn sends recorded or replayed (a second word about one is ignored).
  std::set<std::pair<int32_t, uint64_t>> withdrawn_;

  // Event counters (both modes).
  uint64_t counter_[kDetKinds] = {};

  // Live recording.
  std::vector<Determinant> pending_;
  uint64_t run_start_ = 0;
  uint64_t run_count_ = 0;
  uint64_t unacked_ = 0;
  uint64_t recorded_ = 0;
};

}  // namespace ftmpi::logging

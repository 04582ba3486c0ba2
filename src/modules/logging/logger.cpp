#include "modules/logging/logger.hpp"

#include <algorithm>
#include <cstdlib>

#include "base/log.hpp"
#include "modules/logging/frames.hpp"

namespace ftmpi::logging {

namespace {
const char* const kNotDeterministic = "the program is not deterministic apart from MPI";
}

Logger::Logger(Wire& wire, int32_t self_slot, int32_t world_size, uint64_t log_limit)
    : wire_(wire),
      self_(self_slot),
      log_(log_limit),
      resent_upto_(static_cast<size_t>(world_size), -1),
      seen_(static_cast<size_t>(world_size), 0),
      done_(static_cast<size_t>(world_size), false),
      withdrawn_(static_cast<size_t>(world_size)),
      announced_(static_cast<size_t>(world_size), 0),
      collect_(static_cast<size_t>(world_size)) {}

void Logger::diverged(const std::string& what) {
  wire_.fatal("rank " + std::to_string(self_) + ": replay diverged (" + what + "): " + kNotDeterministic);
  std::abort();  // fatal() does not return
}

void Logger::start_replay(const std::vector<uint8_t>& bytes) {
  std::vector<Determinant> dets;
  if (!ok(decode_batches(bytes.data(), bytes.size(), dets)))
    wire_.fatal("rank " + std::to_string(self_) + ": the determinants fetched from the event logger are corrupt");
  for (const Determinant& d : dets) FTMPI_LOG(kDebug, "logging", "to replay: %s", describe(d).c_str());
  outcomes_.load(std::move(dets));
  replay_ = true;
  for (size_t s = 0; s < resent_upto_.size(); ++s) {
    if (static_cast<int32_t>(s) == self_) continue;
    // Another restarted process waits for our word too; we have nothing.
    wire_.send_frame(static_cast<int32_t>(s), encode(Resent{0, 0}));
  }
}

bool Logger::sent_again() const {
  for (size_t s = 0; s < resent_upto_.size(); ++s) {
    if (static_cast<int32_t>(s) == self_) continue;
    if (resent_upto_[s] < 0 || log_.next_seq(static_cast<int32_t>(s)) <= seen_[s]) return false;
  }
  return true;
}

bool Logger::caught_up() {
  // Not past all the dead incarnation showed its peers yet, it may have
  // matched a message the replay has still to match, and a CANCEL of that
  // message (deferred until now) must find it matched. sent_again() also
  // says every peer's RESENT is in.
  if (outcomes_.replaying() || !sent_again()) return false;
  for (size_t s = 0; s < resent_upto_.size(); ++s)
    if (static_cast<int32_t>(s) != self_ && in_.received(static_cast<int32_t>(s)) < static_cast<uint64_t>(resent_upto_[s]))
      return false;
  replay_ = false;
  return true;
}

uint64_t Logger::resent_to_me() const {
  uint64_t n = 0;
  for (size_t s = 0; s < resent_upto_.size(); ++s) {
    const uint64_t u = resent_upto_[s] > 0 ? static_cast<uint64_t>(resent_upto_[s]) : 0;
    const uint64_t had = s < had_.size() ? had_[s] : 0;
    n += u > had ? u - had : 0;
  }
  return n;
}

void Logger::log_full() {
  wire_.fatal("rank " + std::to_string(self_) + ": the sender log passed its limit of " +
              std::to_string(log_.limit()) + " bytes (FTMPI_LOG_LIMIT) with " + std::to_string(log_.bytes()) +
              " bytes logged; raise it");
  std::abort();  // fatal() does not return
}

void Logger::lost_count(int32_t dst, uint64_t seq) {
  wire_.fatal("rank " + std::to_string(self_) + ": message " + std::to_string(seq) + " to rank " +
              std::to_string(dst) + " comes after " + std::to_string(log_.next_seq(dst) - 1) +
              " on its channel (message logging lost count)");
  std::abort();
}

uint8_t* Logger::reserve(int32_t dst, const Envelope& env) {
  uint8_t* p = log_.reserve(dst, env);
  if (!p) log_full();
  return p;
}

const LogEntry* Logger::commit(int32_t dst, uint64_t seq, uint64_t payload_hash) {
  const LogEntry* e = log_.commit(dst, seq, payload_hash);
  if (!e) lost_count(dst, seq);
  return e;
}

void Logger::append_failed(int32_t dst, uint64_t seq) {
  if (seq < log_.next_seq(dst)) lost_count(dst, seq);
  log_full();
}

bool Logger::hold() {
  flush_determinants();
  if (outcomes_.may_send()) return true;  // the event logger had them at once
  ++stats_.held;
  return false;
}

void Logger::flush_determinants() {
  batch_.clear();  // keeps its room: a wildcard ping-pong flushes at every send
  if (!outcomes_.take_batch(batch_)) return;
  outcomes_.batch_sent();
  ++stats_.batches;
  if (wire_.log_determinants(batch_)) outcomes_.batch_acked();
}

bool Logger::on_batch_acked() {
  outcomes_.batch_acked();
  // Every held send started before the last flush (a send started with
  // determinants unflushed flushes them): once every flushed batch is
  // acknowledged they may all go, whatever was recorded since. Waiting for
  // may_send() instead kept them forever behind a Test loop that records a
  // failed poll on every call (and sends nothing that would flush it).
  return outcomes_.unacked() == 0;
}

void Logger::duplicate(int32_t src, uint64_t seq, uint64_t checksum) {
  ++stats_.duplicates;
  if (in_.duplicate_differs(src, seq, checksum))
    wire_.fatal("rank " + std::to_string(src) + ": replay diverged (its message " + std::to_string(seq) +
                " to rank " + std::to_string(self_) + " differs from the one its dead incarnation sent): " +
                kNotDeterministic);
}

void Logger::on_peer_failed(int32_t slot) {
  if (slot < 0 || static_cast<size_t>(slot) >= resent_upto_.size() || slot == self_) return;
  // Its next incarnation has nothing for us: a replay does not wait for
  // its word (it sends RESENT{0} when it starts).
  resent_upto_[static_cast<size_t>(slot)] = 0;
  seen_[static_cast<size_t>(slot)] = 0;
  done_[static_cast<size_t>(slot)] = false;  // its next incarnation will say it again
}

void Logger::announce_done() {
  done_[static_cast<size_t>(self_)] = true;
  for (size_t s = 0; s < done_.size(); ++s)
    if (static_cast<int32_t>(s) != self_) wire_.send_frame(static_cast<int32_t>(s), encode_done());
}

bool Logger::all_done() const {
  return std::all_of(done_.begin(), done_.end(), [](bool d) { return d; });
}

void Logger::peer_back(int32_t slot) {
  if (slot < 0 || static_cast<size_t>(slot) >= resent_upto_.size() || slot == self_) return;
  // Part 1 has no checkpoints: the new incarnation starts from the
  // program's start and needs everything we ever sent it.
  const auto& gone = withdrawn_[static_cast<size_t>(slot)];
  log_.for_each_from(slot, 1, [&](const LogEntry& e) {
    if (!gone.count(e.seq) && wire_.inject(slot, e)) ++stats_.resent;
  });
  // A withdrawn message never arrives: a replay waiting for it as the last
  // one would never catch up.
  announced_[static_cast<size_t>(slot)] = last_to_deliver(slot, log_.next_seq(slot));
  wire_.send_frame(slot, encode(Resent{announced_[static_cast<size_t>(slot)], in_.received(slot)}));
  // Already in MPI_Finalize: the new incarnation must hear it too.
  if (done_[static_cast<size_t>(self_)]) wire_.send_frame(slot, encode_done());
  // Its new log for us holds again what our checkpoint already accepted
  // (a restart from the start re-logs it all).
  const Collect& last = collect_[static_cast<size_t>(slot)];
  if (last.upto > 0 || last.sent > 0) wire_.send_frame(slot, encode(last));
}

void Logger::checkpoint_kept(const std::vector<uint64_t>& received, const std::vector<uint64_t>& sent) {
  for (size_t s = 0; s < received.size() && s < sent.size() && s < collect_.size(); ++s) {
    Collect& c = collect_[s];
    if (static_cast<int32_t>(s) == self_ || (received[s] <= c.upto && sent[s] <= c.sent)) continue;
    c.upto = std::max(c.upto, received[s]);
    c.sent = std::max(c.sent, sent[s]);
    wire_.send_frame(static_cast<int32_t>(s), encode(c));
  }
}

void Logger::withdrawn(int32_t dst, uint64_t seq) {
  if (dst < 0 || static_cast<size_t>(dst) >= withdrawn_.size()) return;
  const size_t d = static_cast<size_t>(dst);
  withdrawn_[d].insert(seq);
  // The last message announced to a restarted peer was withdrawn before it
  // left (still queued here): tell it how far it must wait now.
  if (seq != 0 && seq == announced_[d]) {
    announced_[d] = last_to_deliver(dst, seq);
    wire_.send_frame(dst, encode(Resent{announced_[d], in_.received(dst)}));
  }
}

uint64_t Logger::last_to_deliver(int32_t dst, uint64_t below) const {
  const auto& gone = withdrawn_[static_cast<size_t>(dst)];
  uint64_t last = 0;
  log_.for_each_from(dst, 1, [&](const LogEntry& e) {
    if (e.seq < below && !gone.count(e.seq)) last = e.seq;
  });
  return last;
}

void Logger::on_frame(int32_t from, const uint8_t* p, size_t n) {
  if (from < 0 || static_cast<size_t>(from) >= resent_upto_.size()) return;
  if (frame_kind(p, n) == static_cast<uint8_t>(FrameKind::kDone)) {
    done_[static_cast<size_t>(from)] = true;
    return;
  }
  if (frame_kind(p, n) == static_cast<uint8_t>(FrameKind::kCollect)) {
    Collect c;
    // Its checkpoint holds our messages up to there: a restart of `from`
    // begins at that image, never before it (the runtime ends the job
    // rather than restart it from the start once this happened).
    if (!decode(p, n, c)) return;
    if (c.upto > 0) reclaimed_ += log_.drop_before(from, c.upto + 1);
    in_.forget_through(from, c.sent);
    return;
  }
  Resent r;
  if (!decode(p, n, r)) return;
  // Kept even before start_replay(): peers may answer our restart before
  // MPI_Init got that far.
  resent_upto_[static_cast<size_t>(from)] = static_cast<int64_t>(r.upto);
  seen_[static_cast<size_t>(from)] = r.seen;
}

}  // namespace ftmpi::logging

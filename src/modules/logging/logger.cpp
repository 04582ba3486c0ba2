#include "modules/logging/logger.hpp"

#include <algorithm>
#include <cstdlib>

#include "modules/logging/frames.hpp"

namespace ftmpi::logging {

Logger::Logger(Wire& wire, int32_t self_slot, int32_t world_size, uint64_t log_limit)
    : wire_(wire),
      self_(self_slot),
      log_(log_limit),
      out_(static_cast<size_t>(world_size)),
      hello_answered_(static_cast<size_t>(world_size), false) {}

void Logger::diverged(const std::string& what) {
  wire_.fatal("rank " + std::to_string(self_) + ": replay diverged (" + what +
              "): the program is not deterministic apart from MPI");
  std::abort();  // fatal() does not return
}

void Logger::check_divergence() {
  if (outcomes_.diverged()) diverged(outcomes_.divergence());
}

void Logger::start_replay(const std::vector<uint8_t>& bytes) {
  std::vector<Determinant> dets;
  if (!ok(decode_batches(bytes.data(), bytes.size(), dets)))
    wire_.fatal("rank " + std::to_string(self_) + ": the determinants fetched from the event logger are corrupt");
  outcomes_.load(std::move(dets));
  replay_ = true;
  for (int32_t s = 0; s < static_cast<int32_t>(out_.size()); ++s) {
    if (s == self_) continue;
    if (!wire_.send_frame(s, encode(Hello{1}))) out(s).down = true;
  }
}

bool Logger::ready() const {
  if (!replay_) return true;
  for (size_t s = 0; s < out_.size(); ++s)
    if (static_cast<int32_t>(s) != self_ && !out_[s].down && !hello_answered_[s]) return false;
  return true;
}

bool Logger::take_caught_up() {
  if (!replay_ || caught_up_reported_ || outcomes_.replaying()) return false;
  std::vector<uint64_t> next(out_.size());
  for (size_t s = 0; s < out_.size(); ++s) next[s] = log_.next_seq(static_cast<int32_t>(s));
  if (!have_.passed_all(next)) return false;
  caught_up_reported_ = true;
  replay_ = false;
  return true;
}

uint8_t* Logger::reserve(int32_t dst, const Envelope& env) {
  uint8_t* p = log_.reserve(dst, env);
  if (!p)
    wire_.fatal("rank " + std::to_string(self_) + ": the sender log passed its limit of " +
                std::to_string(log_.limit()) + " bytes (FTMPI_LOG_LIMIT) with " + std::to_string(log_.bytes()) +
                " bytes logged; raise it or enable checkpoints");
  return p;
}

const LogEntry* Logger::commit(int32_t dst, uint64_t payload_hash) { return log_.commit(dst, payload_hash); }

Logger::SendAction Logger::route(int32_t dst, const LogEntry& e, uint64_t sync_req, bool caller_transmits) {
  Out& o = out(dst);
  if (replay_) {
    switch (have_.on_send(dst, e.seq, e.checksum)) {
      case PeerHoldings::Verdict::kDiverged:
        diverged("message " + std::to_string(e.seq) + " to rank " + std::to_string(dst) +
                 " differs from the one its dead incarnation sent");
      case PeerHoldings::Verdict::kSuppress:
        o.sent_upto = std::max(o.sent_upto, e.seq);
        ++stats_.suppressed;
        return SendAction::kSuppressed;
      case PeerHoldings::Verdict::kTransmit: break;
    }
  }
  if (sync_req) sync_waits_.push_back(SyncWait{dst, e.seq, sync_req});
  if (o.down || !o.queue.empty() || !outcomes_.may_send()) {
    flush_determinants();
    o.queue.push_back(Queued{e.seq, sync_req});
    ++stats_.held;
    return SendAction::kQueued;
  }
  o.sent_upto = e.seq;
  if (!caller_transmits) wire_.transmit(dst, e, sync_req);
  return SendAction::kSent;
}

void Logger::sync_done(uint64_t sync_req) {
  auto it = std::find_if(sync_waits_.begin(), sync_waits_.end(), [&](const SyncWait& w) { return w.req == sync_req; });
  if (it != sync_waits_.end()) sync_waits_.erase(it);
}

uint64_t Logger::sync_req_of(int32_t dst, uint64_t seq) const {
  for (const SyncWait& w : sync_waits_)
    if (w.dst == dst && w.seq == seq) return w.req;
  return 0;
}

void Logger::flush_determinants() {
  std::vector<uint8_t> batch;
  if (!outcomes_.take_batch(batch)) return;
  outcomes_.batch_sent();
  ++stats_.batches;
  wire_.log_determinants(batch);
}

void Logger::on_batch_acked() {
  outcomes_.batch_acked();
  drain();
}

void Logger::drain() {
  for (int32_t s = 0; s < static_cast<int32_t>(out_.size()); ++s) drain(s);
}

void Logger::drain(int32_t dst) {
  Out& o = out(dst);
  while (!o.down && !o.queue.empty() && outcomes_.may_send()) {
    Queued q = o.queue.front();
    o.queue.pop_front();
    o.sent_upto = q.seq;
    if (const LogEntry* e = log_.find(dst, q.seq)) wire_.transmit(dst, *e, q.sync_req);
  }
}

bool Logger::accept(int32_t src, uint64_t seq, uint64_t checksum) {
  switch (in_.arrive(src, seq, checksum)) {
    case InChannels::Verdict::kAccept: return true;
    case InChannels::Verdict::kDuplicate:
      ++stats_.duplicates;
      if (in_.duplicate_differs(src, seq, checksum))
        wire_.fatal("rank " + std::to_string(src) + ": replay diverged (message " + std::to_string(seq) + " to rank " +
                    std::to_string(self_) +
                    " differs from the one its dead incarnation sent): the program is not deterministic apart from MPI");
      return false;
    case InChannels::Verdict::kGap: break;
  }
  wire_.fatal("rank " + std::to_string(self_) + ": message " + std::to_string(seq) + " from rank " +
              std::to_string(src) + " arrived after " + std::to_string(in_.received(src)) +
              " (message logging lost a message)");
  std::abort();
}

void Logger::on_peer_failed(int32_t slot) {
  if (slot < 0 || static_cast<size_t>(slot) >= out_.size() || slot == self_) return;
  out(slot).down = true;
  hello_answered_[static_cast<size_t>(slot)] = false;
  have_.reset(slot);
}

void Logger::on_frame(int32_t from, const uint8_t* p, size_t n) {
  if (from < 0 || static_cast<size_t>(from) >= out_.size()) return;
  switch (static_cast<FrameKind>(frame_kind(p, n))) {
    case FrameKind::kHello: on_hello(from, p, n); break;
    case FrameKind::kHave: on_have(from, p, n); break;
  }
}

void Logger::on_hello(int32_t from, const uint8_t* p, size_t n) {
  Hello h;
  if (!decode(p, n, h)) return;
  // What we have of its messages, so that its replay sends only the rest.
  const std::vector<uint64_t>& sums = in_.checksums(from);
  size_t cap = std::max<size_t>(1, have_capacity(wire_.max_frame_bytes()));
  size_t i = 0;
  do {
    Have reply;
    reply.first = i + 1;
    size_t k = std::min(cap, sums.size() - i);
    reply.sums.assign(sums.begin() + static_cast<std::ptrdiff_t>(i), sums.begin() + static_cast<std::ptrdiff_t>(i + k));
    i += k;
    reply.last = i == sums.size();
    wire_.send_frame(from, encode(reply));
  } while (i < sums.size());
  // Its new incarnation has nothing of ours past h.from - 1: everything we
  // had put on the wire goes again, then whatever waited.
  Out& o = out(from);
  o.down = false;
  for (uint64_t s = h.from; s <= o.sent_upto; ++s) {
    if (const LogEntry* e = log_.find(from, s)) {
      wire_.transmit(from, *e, sync_req_of(from, s));
      ++stats_.resent;
    }
  }
  drain(from);
  // A restarted peer never got our own HELLO (we sent it to its dead
  // incarnation) if we still miss its answer.
  if (replay_ && !hello_answered_[static_cast<size_t>(from)]) wire_.send_frame(from, encode(Hello{1}));
}

void Logger::on_have(int32_t from, const uint8_t* p, size_t n) {
  Have h;
  if (!decode(p, n, h)) return;
  if (h.first == 1) have_.reset(from);  // a fresh answer replaces an older one
  if (h.first != have_.held(from) + 1) return;
  have_.add(from, h.sums.data(), h.sums.size());
  if (h.last) {
    have_.set_complete(from);
    hello_answered_[static_cast<size_t>(from)] = true;
  }
}

}  // namespace ftmpi::logging

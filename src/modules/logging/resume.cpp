// A checkpoint image running again as its slot's next incarnation
// (spec/checkpoint-protocol.md §5): the replay starts from the image's own
// counters instead of the program's start.
#include <algorithm>
#include <set>

#include "base/clock.hpp"
#include "base/log.hpp"
#include "modules/logging/frames.hpp"
#include "modules/logging/module.hpp"

namespace ftmpi::logging {

void Logger::resume_replay(const std::vector<uint8_t>& bytes, const std::set<uint64_t>& open_matches,
                           const std::set<uint64_t>& open_cancels) {
  std::vector<Determinant> all;
  if (!ok(decode_batches(bytes.data(), bytes.size(), all)))
    wire_.fatal("rank " + std::to_string(self_) + ": the determinants fetched from the event logger are corrupt");
  std::vector<Determinant> ahead;
  for (Determinant& d : all) {
    // At the checkpoint every determinant was acknowledged and no poll run
    // was open: a determinant numbered below the counter describes an event
    // the image already went through, except a wildcard receive or a cancel
    // that was open then (numbered when posted, decided later).
    const bool later = d.index >= outcomes_.counter(d.kind);
    const bool open = (d.kind == DetKind::kMatch && open_matches.count(d.index)) ||
                      (d.kind == DetKind::kCancel && open_cancels.count(d.index));
    // A withdrawal, after the checkpoint, of a message the image had sent
    // already: no replayed send meets it (a send consumes its withdrawal),
    // so it would keep the replay from ever catching up, and the CANCELs a
    // replay defers until then waited for ever (p2p_cancel with checkpoints
    // every 10 ms). The image's cancel, still open, withdraws it again.
    if (later && d.kind == DetKind::kWithdrawn && d.seq < log_.next_seq(d.slot)) {
      outcomes_.withdrawn_before(d.slot, d.seq);
      continue;
    }
    if (later || open) FTMPI_LOG(kDebug, "logging", "to replay: %s", describe(d).c_str());
    if (later || open) ahead.push_back(std::move(d));
  }
  FTMPI_LOG(kDebug, "logging", "resume: %zu of %zu determinants are after the checkpoint", ahead.size(), all.size());
  outcomes_.load(std::move(ahead));
  replay_ = true;
  std::fill(resent_upto_.begin(), resent_upto_.end(), -1);
  std::fill(seen_.begin(), seen_.end(), 0);
  had_.assign(resent_upto_.size(), 0);
  for (size_t s = 0; s < had_.size(); ++s) had_[s] = in_.received(static_cast<int32_t>(s));
  std::fill(done_.begin(), done_.end(), false);
  for (size_t s = 0; s < resent_upto_.size(); ++s) {
    if (static_cast<int32_t>(s) == self_) continue;
    // A peer restarting too waits for our word; RESENT{upto} follows from
    // peer_back once our log is queued for it.
    wire_.send_frame(static_cast<int32_t>(s), encode(Resent{0, in_.received(static_cast<int32_t>(s))}));
  }
}

void Module::resume_replay() {
  replay_start_ns_ = now_ns();
  // A test's kill point belongs to the first incarnation only.
  kill_at_send_ = 0;
  std::vector<uint8_t> dets;
  if (!ok(client_.fetch_determinants(dets))) fatal("cannot fetch this process's determinants from the runtime");
  std::set<uint64_t> matches, cancels;
  for (const Wild& w : wild_) matches.insert(w.index);
  for (const auto& [req, i] : cancels_) cancels.insert(i);
  logger_.resume_replay(dets, matches, cancels);
  // The image's open wildcard receives were posted live, from any source:
  // the ones the dead incarnation matched take its match now (they took
  // whatever came first: p2p.order_wildcards diverged after restores from
  // the memory store). By (context, tag) in posting order, as on_matched
  // pairs them.
  engine_.force_open_wildcards([&](const p2p::Request* r, int32_t* slot, uint64_t* seq) {
    auto it = std::find_if(wild_.begin(), wild_.end(),
                           [&](const Wild& w) { return !w.forced && w.ctx == r->ctx && w.tag == r->tag; });
    if (it == wild_.end()) return false;
    auto f = logger_.outcomes().forced_match(it->index);
    if (!f) return false;
    it->forced = true;
    it->slot = f->slot;
    it->seq = f->seq;
    *slot = f->slot;
    *seq = f->seq;
    return true;
  });
  rte::ReplayStats st;
  st.determinants = logger_.outcomes().to_replay();
  client_.report_replay(rte::ReplayPhase::kStart, st);
  FTMPI_LOG(kInfo, "logging", "replay from a checkpoint starts: %llu determinants",
            static_cast<unsigned long long>(st.determinants));
  after_event();
}

}  // namespace ftmpi::logging

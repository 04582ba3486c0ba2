#include "modules/logging/module.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

#include "base/clock.hpp"
#include "base/log.hpp"
#include "base/params.hpp"
#include "dtype/padding.hpp"
#include "modules/logging/checksum.hpp"

namespace ftmpi::logging {

namespace {
// Packing into the log in pieces of this size keeps each piece in cache
// for the hash that follows it.
constexpr uint64_t kHashPiece = 64 << 10;
constexpr int kDivergedExit = 1;
}  // namespace

Module::Module(p2p::Engine& engine, rte::Client& client, uint64_t log_limit)
    : engine_(engine), client_(client), logger_(*this, engine.self().slot, engine.world_size(), log_limit) {
  engine_.set_control_handler(kControlId, this);
  engine_.set_module(this);
  if (engine_.self().incarnation == 0) kill_at_send_ = kill_point(engine_.self().slot);
}

// Tests: FTMPI_INJECT_SEND_KILL=slot:n[,slot:n...] makes the first incarnation
// of `slot` SIGKILL itself as it logs its n-th message, so a kill lands while a
// short program runs, wherever the scheduler puts it (a timed --inject can fall
// before the program starts or after it ends). n = "finalize": it dies in
// MPI_Finalize once every process got there, after a pause that lets the
// others enter the runtime's fence (kFinalizeKill).
uint64_t Module::kill_point(int32_t slot) {
  std::string spec = params::get_str("FTMPI_INJECT_SEND_KILL", "");
  for (size_t at = 0; at < spec.size();) {
    size_t end = spec.find(',', at);
    if (end == std::string::npos) end = spec.size();
    std::string item = spec.substr(at, end - at);
    size_t colon = item.find(':');
    if (colon != std::string::npos && item.compare(colon + 1, std::string::npos, "finalize") == 0) {
      if (std::strtol(item.c_str(), nullptr, 10) == slot) return kFinalizeKill;
      at = end + 1;
      continue;
    }
    char* e1 = nullptr;
    char* e2 = nullptr;
    long s = colon == std::string::npos ? -1 : std::strtol(item.c_str(), &e1, 10);
    unsigned long long n = colon == std::string::npos ? 0 : std::strtoull(item.c_str() + colon + 1, &e2, 10);
    if (colon == std::string::npos || e1 != item.c_str() + colon || !e2 || *e2 != '\0' || n == 0)
      FTMPI_LOG(kWarn, "logging", "FTMPI_INJECT_SEND_KILL: cannot parse '%s' (expected slot:n)", item.c_str());
    else if (s == slot)
      return n;
    at = end + 1;
  }
  return 0;
}

Module::~Module() {
  engine_.set_module(nullptr);
  engine_.set_control_handler(kControlId, nullptr);
}

void Module::start_replay() {
  replay_start_ns_ = now_ns();
  std::vector<uint8_t> dets;
  if (!ok(client_.fetch_determinants(dets))) fatal("cannot fetch this process's determinants from the runtime");
  logger_.start_replay(dets);
  rte::ReplayStats st;
  st.determinants = logger_.outcomes().to_replay();
  client_.report_replay(rte::ReplayPhase::kStart, st);
  FTMPI_LOG(kInfo, "logging", "replay starts: %llu determinants",
            static_cast<unsigned long long>(st.determinants));
  after_event();
}

void Module::report_caught_up() {
  rte::ReplayStats st;
  st.determinants = logger_.outcomes().replayed();
  st.messages = logger_.resent_to_me();
  st.suppressed = 0;
  client_.report_replay(rte::ReplayPhase::kCaughtUp, st);
  FTMPI_LOG(kInfo, "logging", "caught up after %.1f ms", static_cast<double>(now_ns() - replay_start_ns_) / 1e6);
}

double Module::wtime(double live) {
  settle_probe(true);
  double v = logger_.outcomes().wtime(live);
  after_event();
  return v;
}

double Module::wtick(double live) {
  settle_probe(true);
  double v = logger_.outcomes().wtick(live);
  after_event();
  return v;
}

void Module::cancel(p2p::Request* r) {
  settle_probe(true);
  Outcomes& o = logger_.outcomes();
  uint64_t i = o.next_cancel();
  cancels_[r] = i;
  std::optional<bool> forced = o.forced_cancel(i);
  // A cancel to oneself has a deterministic outcome: no forcing needed.
  bool remote = r->peer_slot >= 0 && r->peer_slot != engine_.self().slot;
  // It lost in the dead incarnation: the operation completes normally (its
  // message comes from the sender's log, or its receiver has it), so no
  // cancel is made. It won: a receive that has not matched is withdrawn
  // here too, and a send's receiver answers as it did (spec §5); a replay
  // where that cannot happen diverges when the request completes.
  if (!forced || !remote || *forced) engine_.cancel(r);
  if (forced && remote)
    FTMPI_LOG(kInfo, "logging", "cancel #%llu replayed: forced %s", static_cast<unsigned long long>(i),
              *forced ? "cancelled" : "not cancelled");
  after_event();
}

void Module::on_withdrawn(int32_t dst_slot, uint64_t seq) {
  logger_.withdrawn(dst_slot, seq);
  // A replay withholds it, whether it left or not (spec §5): sent again, it
  // would reach a receiver that may hold later messages on its channel (a
  // number skipped) or be replaying, and whose CANCEL would wait for that
  // replay to catch up, which may need this very sender's later messages.
  logger_.outcomes().withdrew(dst_slot, seq);
}

void Module::finalize() {
  settle_probe(true);
  logger_.flush_determinants();
  engine_.wait_until([&] { return logger_.outcomes().may_send(); });
  after_event();
  // Our log may still be needed: wait, serving restarts, until every
  // process is here (spec/transparent-mode.md §5).
  logger_.announce_done();
  engine_.wait_until([&] { return logger_.all_done(); });
  after_event();
  if (kill_at_send_ == kFinalizeKill) {
    FTMPI_LOG(kInfo, "logging", "FTMPI_INJECT_SEND_KILL: dies in MPI_Finalize");
    usleep(300000);
    raise(SIGKILL);
    pause();
  }
}

bool Module::ready_for_checkpoint() {
  if (logger_.replaying() || logger_.outcomes().replaying()) return false;
  settle_probe(true);
  if (logger_.outcomes().may_send()) return true;
  logger_.flush_determinants();
  return false;
}

void Module::on_determinants_acked(uint64_t batch) {
  // Acks come in order; each covers its batch and every earlier one. A
  // Logger batch is acknowledged with the last runtime batch it took.
  bool go = false;
  while (!batch_ends_.empty() && batch_ends_.front() <= batch) {
    batch_ends_.pop_front();
    go = logger_.on_batch_acked();
  }
  if (go) engine_.release_held();
}

bool Module::round_may_start(uint64_t sched, uint32_t round) {
  Outcomes& o = logger_.outcomes();
  const size_t ahead = o.to_replay();
  if (!logger_.round_may_start(sched, round)) return false;
  if (o.to_replay() < ahead)
    FTMPI_LOG(kInfo, "logging", "nonblocking collective round replayed: schedule %llu round %u after %llu sends",
              static_cast<unsigned long long>(sched), round, static_cast<unsigned long long>(o.numbered()));
  after_event();
  return true;
}

bool Module::sends_go() const {
  // on_send's kHold and kWithhold, and what settle_probe would record first.
  const Outcomes& o = logger_.outcomes();
  return !probe_found_ && !o.replaying() && o.may_send() && o.would_number();
}

p2p::SendVerdict Module::on_send(p2p::Envelope& e, p2p::TypedBuffer& data) {
  settle_probe(true);
  if (e.dst_slot == engine_.self().slot) return p2p::SendVerdict::kGo;  // a replay re-creates it
  if (kill_at_send_ != 0 && ++sends_seen_ == kill_at_send_) {
    FTMPI_LOG(kInfo, "logging", "FTMPI_INJECT_SEND_KILL: dies at its message %llu",
              static_cast<unsigned long long>(kill_at_send_));
    raise(SIGKILL);
    pause();
  }
  Envelope env;
  env.ctx = e.ctx;
  env.tag = e.tag;
  env.flags = e.sync ? 1 : 0;
  env.len = e.len;
  const LogEntry* le;
  // Bytes that hold no value (x87 long double) are cleared in the log copy
  // before the hash: a replay computing the same values may leave other
  // bytes there, and its re-sent copies must not look divergent.
  const bool padded = e.len > 0 && data.type()->padded();
  if (const uint8_t* src = data.contig(); (src && !padded) || e.len == 0) {
    le = logger_.append(e.dst_slot, e.seq, env, src);
  } else {
    uint8_t* to = logger_.reserve(e.dst_slot, env);
    Hasher h;
    for (uint64_t off = 0; off < e.len; off += kHashPiece) {
      size_t n = static_cast<size_t>(std::min(kHashPiece, e.len - off));
      data.pack(off, to + off, n);
      if (padded) dtype::clear_padding(*data.type(), off, to + off, n);
      h.update(nullptr, to + off, n);
    }
    le = logger_.commit(e.dst_slot, e.seq, h.digest());
  }
  e.sum = le->checksum;
  e.sum_of_bytes = !padded;
  // The dead incarnation's cancel withdrew it: it must not reach the
  // receiver, which may have later messages; the replayed cancel ends it.
  if (logger_.outcomes().replaying() && logger_.outcomes().withhold(e.dst_slot, e.seq)) {
    logger_.withdrawn(e.dst_slot, e.seq);
    FTMPI_LOG(kDebug, "logging", "message %llu to rank %d withheld: withdrawn in the dead incarnation",
              static_cast<unsigned long long>(e.seq), e.dst_slot);
    return p2p::SendVerdict::kWithhold;
  }
  return logger_.may_send() ? p2p::SendVerdict::kGo : p2p::SendVerdict::kHold;
}

uint64_t Module::checksum(const p2p::Envelope& e, const uint8_t* payload) {
  return message_checksum(payload, e.len, e.ctx, e.tag);
}

p2p::ArrivalVerdict Module::on_arrival(const p2p::Envelope& e) {
  return logger_.accept(e.src_slot, e.seq, e.sum) ? p2p::ArrivalVerdict::kAccept : p2p::ArrivalVerdict::kDuplicate;
}

bool Module::force_source(uint64_t ctx, int tag, bool probe, int32_t* src_slot, uint64_t* seq) {
  Outcomes& o = logger_.outcomes();
  if (probe) {
    // p2p may look many times for one probe: nothing is numbered here.
    auto f = o.forced_probe();
    if (!f) return false;
    *src_slot = f->slot;
    *seq = f->seq;
    return true;
  }
  settle_probe(true);
  Wild w{ctx, tag, o.next_wildcard(), false, -1, 0};
  if (auto f = o.forced_match(w.index)) {
    w.forced = true;
    w.slot = f->slot;
    w.seq = f->seq;
  }
  wild_.push_back(w);
  if (!w.forced) return false;
  FTMPI_LOG(kDebug, "logging", "wildcard #%llu forced to rank %d message %llu", static_cast<unsigned long long>(w.index),
            w.slot, static_cast<unsigned long long>(w.seq));
  *src_slot = w.slot;
  *seq = w.seq;
  return true;
}

void Module::on_matched(const p2p::Envelope& e, const p2p::Request* r, bool probe) {
  if (probe) {  // a wildcard probe found e
    settle_probe(true);
    probe_found_ = true;
    probe_slot_ = e.src_slot;
    probe_seq_ = e.seq;
    return;
  }
  if (!r || r->peer_rank != p2p::kAnySource) return;
  // Which posted wildcard receive this is: a forced one by its message, the
  // others by (context, tag) in posting order (MPI's matching order).
  auto it = std::find_if(wild_.begin(), wild_.end(), [&](const Wild& w) {
    return w.forced ? (w.slot == e.src_slot && w.seq == e.seq && r->want_seq == e.seq)
                    : (w.ctx == r->ctx && w.tag == r->tag && r->want_seq == 0);
  });
  if (it == wild_.end()) fatal("a wildcard receive matched that message logging never saw posted");
  uint64_t index = it->index;
  wild_.erase(it);
  logger_.outcomes().matched(index, e.src_slot, e.seq);
  // Inside a transport poll: no abort from here unless diverged.
  logger_.check_divergence();
}

void Module::settle_found(bool reported) {
  probe_found_ = false;
  if (reported) logger_.outcomes().probed(probe_slot_, probe_seq_);
}

void Module::on_delivered(const p2p::Request* r) {
  settle_probe(true);  // a blocking Probe's find counts
  // Every completion passes here; cancels are rare, so skip the lookup
  // (a hash and a bucket walk) when none is outstanding.
  if (auto it = !r || cancels_.empty() ? cancels_.end() : cancels_.find(r); it != cancels_.end()) {
    logger_.outcomes().cancel_outcome(it->second, r->cancelled);
    cancels_.erase(it);
  }
  after_event();
}

void Module::on_poll(p2p::PollKind kind, uint8_t* pick, size_t n) {
  Outcomes& o = logger_.outcomes();
  if (kind == p2p::PollKind::kIprobe) {
    // What the probe found counts only if the call reports it.
    PollVerdict v = o.poll_verdict();
    if (v == PollVerdict::kFail) pick[0] = 0;
    if (v == PollVerdict::kSucceed) pick[0] = 1;
    o.polled(pick[0] != 0);
    settle_probe(pick[0] != 0);
    after_event();
    return;
  }
  settle_probe(true);
  bool any = std::any_of(pick, pick + n, [](uint8_t b) { return b != 0; });
  const bool waits = kind == p2p::PollKind::kWaitany || kind == p2p::PollKind::kWaitsome;
  if (!waits) {
    PollVerdict v = o.poll_verdict();
    if (v == PollVerdict::kFail) {
      std::fill(pick, pick + n, 0);
      any = false;
    } else if (v == PollVerdict::kSucceed && !any) {
      any = true;  // the set comes below (Test, Testall: every request)
      if (kind == p2p::PollKind::kTest || kind == p2p::PollKind::kTestall) std::fill(pick, pick + n, 1);
    }
    o.polled(any);
  }
  // Which requests completed, where MPI lets the call choose.
  const bool chooses = kind == p2p::PollKind::kTestany || kind == p2p::PollKind::kTestsome ||
                       kind == p2p::PollKind::kWaitany || kind == p2p::PollKind::kWaitsome;
  if (chooses && any) {
    std::vector<int32_t> which;
    if (auto f = o.forced_completion()) {
      which = *f;
      std::fill(pick, pick + n, 0);
      for (int32_t i : which)
        if (i >= 0 && static_cast<size_t>(i) < n) pick[i] = 1;
    } else {
      for (size_t i = 0; i < n; ++i)
        if (pick[i]) which.push_back(static_cast<int32_t>(i));
    }
    o.completed(which);
  }
  after_event();
}

p2p::FailurePolicy Module::on_failure(ProcId who) {
  logger_.on_peer_failed(who.slot);
  return p2p::FailurePolicy::kHide;
}

void Module::on_peer_back(ProcId who) {
  uint64_t before = logger_.stats().resent;
  logger_.peer_back(who.slot);
  FTMPI_LOG(kDebug, "logging", "rank %d back as incarnation %u: %llu logged messages queued again", who.slot,
            who.incarnation, static_cast<unsigned long long>(logger_.stats().resent - before));
}

void Module::on_control(ProcId from, const uint8_t* data, size_t len) {
  logger_.on_frame(from.slot, data, len);
  // A RESENT may be the last thing a replay waited for, and the program may
  // be blocked on peers that wait for it: report the catch-up now, not at
  // the next application event (which may never come). Deferred cancels
  // wait for that event (answer_cancels): this runs inside a transport poll.
  after_event();
}

bool Module::send_frame(int32_t slot, const std::vector<uint8_t>& bytes) {
  if (slot < 0 || slot >= engine_.world_size()) return false;
  return engine_.send_control(engine_.cards()[static_cast<size_t>(slot)].id, kControlId, bytes.data(), bytes.size());
}

bool Module::inject(int32_t slot, const LogEntry& e) {
  p2p::Envelope env;
  env.src_slot = engine_.self().slot;
  env.src_inc = engine_.self().incarnation;
  env.dst_slot = slot;
  env.ctx = e.env.ctx;
  env.tag = e.env.tag;
  env.len = e.env.len;
  env.seq = e.seq;
  env.sum = e.checksum;
  env.sync = (e.env.flags & 1) != 0;
  return engine_.inject(slot, env, e.data(), e.env.len);
}

bool Module::log_determinants(const std::vector<uint8_t>& batch) {
  bool stable = false;
  for (size_t off = 0; off < batch.size();) {
    // The runtime takes batches of a bounded size; a bigger one goes in
    // pieces (the fetch concatenates them back in order). A piece after
    // one that waits for its ack waits too (the runtime stages none
    // behind a DET_LOG in flight), so the last piece speaks for all.
    size_t n = std::min(batch.size() - off, rte::kMaxDeterminantBatch);
    uint64_t id = client_.log_determinants(batch.data() + off, n, stable);
    if (id == 0) fatal("the runtime refused a determinant batch (is the job in transparent mode?)");
    off += n;
    if (off == batch.size() && !stable) batch_ends_.push_back(id);
  }
  return stable;
}

void Module::fatal(const std::string& msg) { client_.abort(kDivergedExit, msg); }

}  // namespace ftmpi::logging

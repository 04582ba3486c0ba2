// Uniform agreement over control frames (spec/ft-collectives.md §3).
//
// Roles, by team index: the coordinator is the first member this process
// believes alive. Index 0 coordinates from votes; any later coordinator
// (its predecessors died, and one of them may have sent a decision to some
// members before dying) first QUERYs every live member and adopts any
// decision one reports, else decides ABORT. A member that answered a QUERY
// of coordinator c without knowing the decision ignores decisions from
// coordinators ranked before c.
//
// The handler answers VOTEs and QUERYs for calls this process already left,
// from a small log per (context, epoch): see log_ below for its bound.
//
// Recovery rounds (spec/ft-collectives.md §3.6): a process joining one never
// enters another call of its epoch, and waits in the round until every live
// process joins it. A member still waiting in the agreement of a call that
// process never entered (it failed a point-to-point call, or recovered by
// MPI_Comm_dup, before reaching the collective) would wait for its vote
// forever. So the first coordinator, once it knows of a failure, ASKs every
// member whose vote is missing; a process whose epoch is closed
// (Engine::close_epoch) answers for every call of it that it never entered
// as a member voting fail would ("abandons" it): ABORT is certain without
// its vote.
#include "coll/ft/agreement.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "base/log.hpp"
#include "coll/ft/inject.hpp"
#include "coll/state.hpp"
#include "coll/wait.hpp"

namespace ftmpi::coll::ft {
namespace {

constexpr uint8_t kHandlerId = 1;  // p2p control handler id of the agreement
enum Kind : uint8_t { kVote = 1, kDecision = 2, kQuery = 3, kReply = 4, kAsk = 5 };
// Decisions, and votes as the decision a member's outcome implies (kCommit =
// ok). kAbortFailed: aborted because a process failed (a member's run was
// stopped by a failure it knows of, or a coordinator saw a member die);
// kAbort: for a member's local error only (e.g. a size mismatch). Both are
// ABORT to every caller; kAbortFailed also makes a member wait until it
// has heard of the failure itself before it returns (see run()).
constexpr uint8_t kCommit = 0, kAbort = 1, kAbortFailed = 2;
constexpr uint8_t kNone = 0xff;  // REPLY: no decision known
// The index an abandoned call's answers carry (a process that never entered
// the call does not know its index): ABORT is then the only possible
// decision, so no promise needs to reject it.
constexpr int32_t kAnyIndex = INT32_MAX;

struct Msg {
  uint8_t kind;
  uint8_t value;  // VOTE: kCommit (ok), kAbort or kAbortFailed; DECISION: one of those; REPLY: also kNone
  uint16_t reserved;
  int32_t index;  // DECISION: sender's team index (kAnyIndex: abandoned); QUERY: the querier's; REPLY: the querier answered
  uint64_t ctx;
  uint32_t epoch;
  uint32_t seq;
};
static_assert(sizeof(Msg) == 24);

struct Key {
  uint64_t ctx;
  uint32_t epoch;
  uint32_t seq;
  auto operator<=>(const Key&) const = default;
};

// What this process knows about one call it has not delivered yet.
struct Round {
  std::map<int32_t, uint8_t> votes;    // by sender slot
  std::vector<ProcId> voters;          // answered with the decision when it is delivered here
  std::map<int32_t, uint8_t> replies;  // by sender slot, answers to my QUERY
  int32_t querier = -1;                // my index once I QUERYed
  int32_t promise = 0;                 // ignore decisions of coordinators ranked below
  int decision = -1;                   // accepted, not delivered yet
  bool entered = false;                // this process runs the call (run())
  std::vector<ProcId> askers;          // first coordinator waiting for my vote (kAsk), before I entered
};

struct Logged {
  uint32_t seq;
  uint8_t decision;
  int32_t my_index;
  std::vector<ProcId> members;
};

class Agreement final : public p2p::ControlHandler {
 public:
  Err run(const Team& t, Err local);
  void on_control(ProcId from, const uint8_t* data, size_t len) override;
  void on_finalize() override;
  void on_epoch_closed(uint32_t epoch) override;
  void attach(p2p::Engine& eng) { eng_ = &eng; }

 private:
  // A member that waited for a decision is never more than one call ahead
  // of a live member still deciding (a coordinator waits for every live
  // member's vote or reply), so two entries per (context, epoch) would do.
  // A member that votes fail returns at once (run()), and may run ahead
  // through further calls it refuses at entry before a recovery starts a new
  // epoch: 64 entries leave room for that (spec/ft-collectives.md §3.4).
  static constexpr size_t kLogDepth = 64;

  const Logged* logged(const Key& k) const;
  bool too_old(const Key& k) const;
  void send(ProcId to, Kind kind, uint8_t value, int32_t index, const Key& k);
  void deliver(const Key& k, uint8_t decision, int32_t me, std::vector<ProcId> members);
  void abandon(const Key& k);
  bool entered(const Key& k) const;

  p2p::Engine* eng_ = nullptr;
  std::map<Key, Round> rounds_;
  std::map<std::pair<uint64_t, uint32_t>, std::deque<Logged>> log_;
};

Agreement& agreement(State& st) {
  std::unique_ptr<p2p::ControlHandler>& slot = st.agreement_slot();
  if (!slot) {
    auto a = std::make_unique<Agreement>();
    a->attach(st.engine());
    st.engine().set_control_handler(kHandlerId, a.get());
    slot = std::move(a);
  }
  return static_cast<Agreement&>(*slot);
}

const Logged* Agreement::logged(const Key& k) const {
  auto it = log_.find({k.ctx, k.epoch});
  if (it == log_.end()) return nullptr;
  for (const Logged& l : it->second)
    if (l.seq == k.seq) return &l;
  return nullptr;
}

bool Agreement::too_old(const Key& k) const {
  auto it = log_.find({k.ctx, k.epoch});
  return it != log_.end() && !it->second.empty() && k.seq < it->second.front().seq;
}

void Agreement::send(ProcId to, Kind kind, uint8_t value, int32_t index, const Key& k) {
  Msg m{kind, value, 0, index, k.ctx, k.epoch, k.seq};
  eng_->send_control(to, kHandlerId, &m, sizeof m);  // false: `to` is dead, nothing to tell
}

void Agreement::on_control(ProcId from, const uint8_t* data, size_t len) {
  if (len != sizeof(Msg)) return;
  Msg m;
  std::memcpy(&m, data, sizeof m);
  const Key k{m.ctx, m.epoch, m.seq};
  const Logged* l = logged(k);
  if (!l && !too_old(k) && eng_->epoch_closed(k.epoch) && !entered(k)) {
    // A call of a closed epoch not decided here: never entered, since a
    // process leaves every call before it joins a recovery round (entered()
    // guards the run() that is still using its round should that change).
    abandon(k);
    l = logged(k);
  }
  FTMPI_LOG(kDebug, "coll", "agreement: kind %d value %d index %d from slot %d for seq %u (%s)", m.kind, m.value,
            m.index, from.slot, m.seq, l ? "decided here" : "open");
  switch (m.kind) {
    case kVote:
      // Sent to me as (new) coordinator: if I already know, say so.
      if (l) send(from, kDecision, l->decision, l->my_index, k);
      else if (!too_old(k)) {
        Round& r = rounds_[k];
        r.votes[from.slot] = m.value;
        r.voters.push_back(from);
      }
      break;
    case kDecision:
      if (!l && !too_old(k)) {
        Round& r = rounds_[k];
        if (m.index >= r.promise && r.decision < 0) r.decision = m.value;
      }
      break;
    case kQuery:
      if (l) {
        send(from, kReply, l->decision, m.index, k);
      } else {
        // Not decided here: promise to ignore every coordinator before the
        // querier, so the querier's choice cannot be contradicted later.
        Round& r = rounds_[k];
        r.promise = std::max(r.promise, m.index);
        send(from, kReply, r.decision >= 0 ? static_cast<uint8_t>(r.decision) : kNone, m.index, k);
      }
      break;
    case kAsk:
      // The first coordinator waits for my vote. Decided here: tell it.
      // Not entered yet: keep the question; I vote when I enter the call,
      // or answer when my epoch closes first (on_epoch_closed).
      if (l) {
        send(from, kDecision, l->decision, l->my_index, k);
      } else if (!too_old(k)) {
        Round& r = rounds_[k];
        if (!r.entered) r.askers.push_back(from);
      }
      break;
    case kReply:
      if (!l) {
        auto it = rounds_.find(k);
        if (it != rounds_.end() && it->second.querier == m.index) it->second.replies[from.slot] = m.value;
      }
      break;
    default:
      break;
  }
}

// MPI_Finalize: a member still waiting may see this process as its next
// coordinator after the one it voted to died; past the fence nothing is
// answered, so repeat the last decision of every context to every member.
// Calls others asked or voted about here that this process never entered
// (it saw a failure in another call and went on to finalize) are abandoned
// as at the close of an epoch: it will enter none now.
void Agreement::on_finalize() {
  std::vector<Key> open;
  for (const auto& [k, r] : rounds_)
    if (!r.entered) open.push_back(k);
  for (const Key& k : open) abandon(k);
  for (auto& [ctx_epoch, entries] : log_) {
    // The last call this process took part in (abandoned ones have no members).
    auto last = std::find_if(entries.rbegin(), entries.rend(), [](const Logged& e) { return !e.members.empty(); });
    if (last == entries.rend()) continue;
    const Logged& l = *last;
    const Key k{ctx_epoch.first, ctx_epoch.second, l.seq};
    for (size_t i = 0; i < l.members.size(); ++i)
      if (static_cast<int32_t>(i) != l.my_index && eng_->alive(l.members[i]))
        send(l.members[i], kDecision, l.decision, l.my_index, k);
  }
}

// Joining a recovery round: every call of the closed epoch that others
// asked or voted about here, and that this process never entered, is
// abandoned now; later messages about such calls are answered on arrival
// (on_control).
bool Agreement::entered(const Key& k) const {
  auto it = rounds_.find(k);
  return it != rounds_.end() && it->second.entered;
}

void Agreement::on_epoch_closed(uint32_t epoch) {
  std::vector<Key> open;
  for (const auto& [k, r] : rounds_)
    if (k.epoch <= epoch && !r.entered) open.push_back(k);
  for (const Key& k : open) abandon(k);
}

// A call this process will never enter: it answers as a member that voted
// fail would. COMMIT needs its ok vote, so ABORT is certain and the answers
// need no index (kAnyIndex). Kept votes get the decision (deliver), a
// waiting first coordinator the vote.
void Agreement::abandon(const Key& k) {
  std::vector<ProcId> askers;
  if (auto it = rounds_.find(k); it != rounds_.end()) askers = std::move(it->second.askers);
  FTMPI_LOG(kDebug, "coll", "agreement ctx %#llx epoch %u seq %u: abandoned (epoch closed, call never entered)",
            static_cast<unsigned long long>(k.ctx), k.epoch, k.seq);
  deliver(k, kAbortFailed, kAnyIndex, {});
  for (const ProcId& p : askers) send(p, kVote, kAbortFailed, kAnyIndex, k);
}

void Agreement::deliver(const Key& k, uint8_t decision, int32_t me, std::vector<ProcId> members) {
  std::deque<Logged>& q = log_[{k.ctx, k.epoch}];
  q.push_back(Logged{k.seq, decision, me, std::move(members)});
  if (q.size() > kLogDepth) q.pop_front();
  // Members that took me for their coordinator (theirs died) wait for this.
  auto it = rounds_.find(k);
  if (it == rounds_.end()) return;
  for (const ProcId& p : it->second.voters) send(p, kDecision, decision, me, k);
  rounds_.erase(it);
}

Err Agreement::run(const Team& t, Err local) {
  p2p::Engine& eng = t.engine();
  eng_ = &eng;
  const Key k{t.comm().coll_ctx(), eng.epoch(), t.call_seq()};
  const int n = t.size(), me = t.me();
  std::vector<ProcId> procs(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) procs[static_cast<size_t>(i)] = t.proc_of(i);
  auto alive = [&](int i) { return i == me || eng.alive(procs[static_cast<size_t>(i)]); };
  auto first_alive = [&] {
    int i = 0;
    while (!alive(i)) ++i;  // stops at me at the latest
    return i;
  };
  Round& r = rounds_[k];  // map nodes stay put while other rounds come and go
  r.entered = true;
  r.askers.clear();  // I vote now, to the coordinator (the asker, while it lives)
  // A run stopped by a failure this process knows of (a notice interrupted
  // the engine, or a member is known dead) says so in its vote; so does a
  // refused call (coll::refused), refused because of a known failure.
  const bool failure_known_at_vote = eng.interrupted() || t.member_dead();
  const uint8_t vote = ok(local) ? kCommit : failure_known_at_vote ? kAbortFailed : kAbort;
  // An abort caused by a failure returns only once this process has heard of
  // the failure too (perfect detector: every survivor hears of every death;
  // in modes MANUAL and AUTO every notice interrupts the engine). A member
  // that got ABORT from a coordinator which saw the death first would
  // otherwise return before its own notice: in mode AUTO it would not
  // recover inside this call (the controller knows of no failure yet), but
  // fail its next call and recover there, one call behind every other
  // survivor; in MANUAL and IGNORE its next collective would run where the
  // others refuse it. The handler keeps answering meanwhile.
  auto finish = [&](uint8_t d) {
    if (d == kAbortFailed)
      wait_for(eng, t.state().wait_budget(), [&] { return eng.interrupted() || t.member_dead(); });
    return d == kCommit ? Err::kOk : Err::kOther;
  };

  maybe_die(Phase::kVote, t);
  int coord = first_alive();
  if (vote != kCommit) {
    // No coordinator can decide COMMIT without my ok: ABORT is certain, so
    // tell the coordinator (or, coordinating, everyone) and return at once.
    // A member that waits for a decision therefore never waits for one that
    // refused the call at its entry (api: coll::refused).
    for (int i = 0; i < n; ++i)
      if (i != me && alive(i) && (coord == me || i == coord))
        send(procs[static_cast<size_t>(i)], coord == me ? kDecision : kVote, vote, me, k);
    deliver(k, vote, me, std::move(procs));
    return finish(vote);
  }
  if (coord == me) r.votes[procs[static_cast<size_t>(me)].slot] = vote;
  else send(procs[static_cast<size_t>(coord)], kVote, vote, me, k);

  int decided = -1;
  bool queried = false, asked = false;
  auto decide = [&]() -> bool {
    if (r.decision >= 0) {
      decided = r.decision;
      return true;
    }
    const int c = first_alive();
    if (c != coord) {
      coord = c;
      FTMPI_LOG(kDebug, "coll", "agreement seq %u: coordinator is now %d", k.seq, coord);
      if (coord != me) send(procs[static_cast<size_t>(coord)], kVote, vote, me, k);
    }
    if (coord != me) return false;
    uint8_t d = kCommit;
    if (me == 0) {
      // First coordinator: every member's vote, or its death. Knowing of a
      // failure, ask the members whose vote is missing once: one may have
      // joined the recovery round without entering this call (see top).
      if (!asked && (eng.interrupted() || t.member_dead())) {
        asked = true;
        for (int i = 1; i < n; ++i)
          if (alive(i) && !r.votes.count(procs[static_cast<size_t>(i)].slot))
            send(procs[static_cast<size_t>(i)], kAsk, 0, me, k);
      }
      bool death = false;
      for (int i = 0; i < n; ++i) {
        if (!alive(i)) {
          death = true;
          continue;
        }
        auto v = r.votes.find(procs[static_cast<size_t>(i)].slot);
        if (v == r.votes.end()) return false;
        d = std::max(d, v->second);  // kCommit < kAbort < kAbortFailed
      }
      if (death) d = kAbortFailed;
    } else {
      // A predecessor died, maybe half-way through sending its decision.
      if (!queried) {
        queried = true;
        r.querier = me;
        r.promise = std::max(r.promise, me);
        for (int i = 0; i < n; ++i)
          if (i != me && alive(i)) send(procs[static_cast<size_t>(i)], kQuery, 0, me, k);
      }
      d = kAbortFailed;  // nobody knows a decision: a member died
      bool adopted = false;
      for (int i = 0; i < n; ++i) {
        if (i == me) continue;
        auto rep = r.replies.find(procs[static_cast<size_t>(i)].slot);
        if (rep == r.replies.end()) {
          if (alive(i)) return false;
          continue;
        }
        if (rep->second != kNone && !adopted) {
          d = rep->second;
          adopted = true;
        }
      }
    }
    maybe_die(Phase::kCoord, t);
    const int half = (n - 1 + 1) / 2;
    int sent = 0;
    for (int i = 0; i < n; ++i) {
      if (i == me || !alive(i)) continue;
      send(procs[static_cast<size_t>(i)], kDecision, d, me, k);
      if (++sent == half) maybe_die(Phase::kCommit, t);
    }
    decided = d;
    return true;
  };
  wait_for(eng, t.state().wait_budget(), decide);
  if (coord != me) maybe_die(Phase::kCommit, t);
  FTMPI_LOG(kDebug, "coll", "agreement ctx %#llx seq %u: %s (coordinator %d)", static_cast<unsigned long long>(k.ctx),
            k.seq, decided == kCommit ? "commit" : decided == kAbort ? "abort" : "abort (failure)", coord);
  deliver(k, static_cast<uint8_t>(decided), me, std::move(procs));
  return finish(static_cast<uint8_t>(decided));
}

}  // namespace

Err agree(const Team& t, Err local) { return agreement(t.state()).run(t, local); }

void attach(State& st) { (void)agreement(st); }

}  // namespace ftmpi::coll::ft

// The participants of one collective call. Algorithms never work on
// "ranks 0..n-1 of the communicator": they work on team indices 0..size()-1,
// and map an index to the communicator rank it stands for with rank_of()
// (to address peers and to place blocks in user buffers that the MPI
// standard lays out by communicator rank). The root is a team index too.
//
// The constructor without a member list gives every rank of the
// communicator, in order; src/api builds the team of every call
// (api::team_of), leaving the blank ranks of BLANK mode out, so algorithms
// never address a blank. `Members` is that mapping alone, for the internal
// byte collectives (internal.cpp), which number no calls.
//
// A team reaches the collective layer's per-process state (call numbers,
// scratch memory, the agreement) through its coll::State (state.hpp).
//
// Fault tolerance (spec/ft-collectives.md): a run gives up (kOther) as soon
// as a member is known dead or the engine was interrupted by a failure
// notice (gave_up()); an atomic team runs every collective through the
// uniform agreement of src/coll/ft.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "comm/model/communicator.hpp"
#include "p2p/engine.hpp"

namespace ftmpi::coll {

// Asked while a collective waits: true makes it stop and return kOther.
class Watch {
 public:
  virtual ~Watch() = default;
  virtual bool give_up() const = 0;
};

class State;

// Team indices <-> communicator ranks.
class Members {
 public:
  // Every rank of `c` in rank order (no list is allocated).
  explicit Members(const comm::Communicator& c) : size_(c.size()), me_(c.rank()) {}
  // The ranks listed in `members`, strictly increasing, must include c.rank().
  Members(const comm::Communicator& c, std::vector<int> members);
  // Every rank of `c` but the blanks of BLANK mode: a blank acts as
  // MPI_PROC_NULL, so an algorithm that relayed data through one would lose
  // what it routed there (spec/ft-collectives.md §4). No list without blanks.
  static Members live(const comm::Communicator& c);

  int size() const { return size_; }
  int me() const { return me_; }
  int rank_of(int index) const { return members_.empty() ? index : members_[static_cast<size_t>(index)]; }
  // The team index of communicator rank `rank`, or -1 when it takes no part.
  int index_of(int rank) const;

 private:
  std::vector<int> members_;  // empty: the identity
  int size_;
  int me_;
};

class Team : public Members {
 public:
  Team(State& st, comm::Communicator& c, const Watch* watch = nullptr) : Team(st, c, Members(c), watch) {}
  Team(State& st, comm::Communicator& c, std::vector<int> members, const Watch* watch = nullptr)
      : Team(st, c, Members(c, std::move(members)), watch) {}
  Team(State& st, comm::Communicator& c, Members members, const Watch* watch = nullptr);
  static Team live(State& st, comm::Communicator& c) { return Team(st, c, Members::live(c)); }

  State& state() const { return *st_; }
  p2p::Engine& engine() const { return *eng_; }
  // FTMPI_COLL_MODE_ATOMIC: results land in temporary buffers and reach the
  // user's only if every member agrees to commit (src/coll/ft/atomic.cpp).
  bool atomic() const { return atomic_; }
  void set_atomic(bool on) { atomic_ = on; }
  // The process behind team index i (a member is never blank).
  ProcId proc_of(int index) const { return comm_->group().at(rank_of(index)); }
  // True when a member is known dead (cheap: rescans only after a notice).
  bool member_dead() const;
  // A run must stop: a member died, a failure notice interrupted the engine
  // (recovery modes MANUAL and AUTO), or the Watch says so.
  bool gave_up() const { return eng_->interrupted() || member_dead() || (watch_ && watch_->give_up()); }
  comm::Communicator& comm() const { return *comm_; }
  const Watch* watch() const { return watch_; }

  // Numbers this collective call: every member draws the same number,
  // because members call collectives on a communicator in the same order.
  // The number goes into every tag of the call (Xfer), so a message left
  // over by a run that stopped half-way can never match a later call.
  // Counted per communicator context and job epoch (a recovery starts a
  // new epoch, and restarted processes count from zero with everyone),
  // in State::next_call.
  void begin_call() const;
  uint32_t call_seq() const { return seq_; }

 private:
  State* st_;
  p2p::Engine* eng_;
  comm::Communicator* comm_;
  const Watch* watch_;
  mutable uint32_t seq_ = 0;
  bool atomic_ = false;
  mutable uint64_t seen_failures_ = ~uint64_t{0};  // engine failure count at the last scan
  mutable bool dead_ = false;
};

}  // namespace ftmpi::coll

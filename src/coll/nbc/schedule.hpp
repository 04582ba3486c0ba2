// Nonblocking collectives (MPI-3.1 §5.12) as schedules: a collective call
// becomes a list of rounds, each a set of sends and receives to team
// members followed by local steps (typed copies, reductions). The rounds
// run one after the other; the sends and receives of one round are all in
// flight together.
//
// Progress (no thread): the NbcEngine is the p2p engine's progress hook, so
// every pass of the engine (any MPI call that progresses, every blocking
// wait) advances every active schedule as far as its requests allow. A
// schedule whose round is done starts the next one at once in the same
// pass, if the engine lets it (p2p::Engine::round_may_start: in transparent
// mode a replay starts it where the dead incarnation did among the
// process's other sends, spec/transparent-mode.md §3; a round without a
// send needs no such word).
//
// Matching: each call draws the communicator's next collective sequence
// number at its start (Team::begin_call), shared with the blocking
// collectives, so every message of a call has a tag of its own
// (tags.hpp, algorithm id kNonblocking). Every algorithm sends at most one
// message per call from one member to another, so that tag suffices and
// rounds need no step number. Members start their
// collectives on a communicator in the same order (MPI-3.1 §5.12), so they
// draw the same numbers.
//
// Failures (spec/ft-collectives.md §7): a schedule stops with kOther as
// soon as one of its requests fails or a member of its team is known dead;
// its requests in flight are abandoned (p2p::Engine::abandon) and its
// buffers stay alive until the engine has released them. The user's
// request then completes with MPI_ERR_OTHER. A process failure elsewhere
// (not in the team) does not stop it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/err.hpp"
#include "coll/reduce_op.hpp"
#include "coll/team.hpp"
#include "dtype/datatype.hpp"
#include "p2p/engine.hpp"

namespace ftmpi::coll::nbc {

// One send or receive of a round: `count` items of `type` at `buf`, to or
// from team index `peer`.
struct Transfer {
  bool is_recv;
  int peer;
  void* buf;
  size_t count;
  dtype::TypeRef type;
};

struct Round {
  std::vector<Transfer> transfers;
  // Run in order once every transfer of the round completed.
  std::vector<std::function<void()>> local;
};

class Schedule {
 public:
  // `team` is copied; `user` is the request the caller hands to the user
  // (kind kColl): completed when the schedule ends.
  Schedule(const Team& team, p2p::Request* user);
  // This process's schedules are numbered from 0 in start order (NbcEngine).
  void set_number(uint64_t n) { number_ = n; }
  ~Schedule();
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  const Team& team() const { return team_; }
  int me() const { return team_.me(); }
  int size() const { return team_.size(); }

  // Building (before start): rounds are appended in order.
  Round& round();  // a new round
  Round& last() { return rounds_.back(); }
  // Uninitialised memory owned by the schedule (and by the engine's
  // graveyard if the schedule stops while requests still use it).
  uint8_t* scratch(size_t bytes);
  // Origin of temporary room for `count` items of t, in t's layout.
  void* temp_items(const dtype::Type& t, size_t count);
  // Keeps an op (with its user function) alive as long as the schedule.
  template <typename T>
  T* keep(std::unique_ptr<T> obj) {
    T* raw = obj.get();
    kept_.push_back(std::shared_ptr<void>(std::move(obj)));
    return raw;
  }

  // Advances; true once finished (the user request is then complete).
  bool poll();
  // Stops at once with `e` (the user request completes with it).
  void stop(Err e);
  bool done() const { return done_; }
  Err result() const { return result_; }
  // After a stop: does a request it abandoned still live (and so may still
  // use its memory)?
  bool abandoned_live(const p2p::Engine& eng) const;
  const p2p::Request* user() const { return user_; }

 private:
  // false: the engine said not yet (the round starts at a later poll).
  bool start_round();
  bool round_done(Err* e);
  void finish(Err e);

  Team team_;
  p2p::Request* user_;
  uint32_t seq_ = 0;
  uint64_t number_ = 0;
  std::vector<Round> rounds_;
  size_t cur_ = 0;
  bool started_ = false;
  bool waiting_start_ = false;  // round cur_ has its input, its start was refused
  bool done_ = false;
  Err result_ = Err::kOk;
  std::vector<p2p::Request*> inflight_;
  std::vector<uint64_t> abandoned_;  // ids
  std::vector<std::unique_ptr<uint8_t[]>> scratch_;
  std::vector<std::shared_ptr<void>> kept_;
  friend class NbcEngine;
};

// The active schedules of this process; the p2p engine's progress hook
// while there are any (an idle process's progress passes do not call it).
class NbcEngine final : public p2p::ProgressHook {
 public:
  explicit NbcEngine(p2p::Engine& eng) : eng_(eng) {}
  ~NbcEngine() override;
  // Starts `s` (posts its first round) and keeps it until it ends.
  void start(std::unique_ptr<Schedule> s);
  int poll() override;
  // Stops the active schedule of user request `user` with `e` (a blocking
  // call that gives up); no-op if it has ended.
  void stop(const p2p::Request* user, Err e);
  size_t active() const { return active_.size(); }

 private:
  // A finished schedule goes, or waits in stopped_ while requests it
  // abandoned are alive.
  void park(std::unique_ptr<Schedule> s);
  void hook_while_busy();

  p2p::Engine& eng_;
  std::vector<std::unique_ptr<Schedule>> active_;
  std::vector<std::unique_ptr<Schedule>> stopped_;
  uint64_t started_ = 0;  // schedules started by this process
  bool polling_ = false;  // a schedule's step may progress the engine again
};

}  // namespace ftmpi::coll::nbc

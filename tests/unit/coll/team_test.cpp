// Teams: the identity over a communicator and explicit member lists (what
// BLANK mode will build), with index <-> rank mapping; call numbers kept in
// the collective layer's State, per communicator context and per State.
#include <gtest/gtest.h>

#include "coll/state.hpp"
#include "coll/team.hpp"

namespace ftmpi::coll {
namespace {

comm::Communicator make_comm(int size, int me, uint64_t ctx = 1000) {
  std::vector<ProcId> procs;
  for (int i = 0; i < size; ++i) procs.push_back(ProcId{i, 0});
  return comm::Communicator(ctx, comm::Group::make(std::move(procs)), me);
}

TEST(Team, IdentityCoversTheCommunicator) {
  p2p::Engine eng;
  State st(eng);
  comm::Communicator c = make_comm(6, 4);
  Team t(st, c);
  EXPECT_EQ(t.size(), 6);
  EXPECT_EQ(t.me(), 4);
  EXPECT_EQ(t.rank_of(5), 5);
  EXPECT_EQ(t.index_of(3), 3);
  EXPECT_EQ(t.index_of(6), -1);
  EXPECT_EQ(t.index_of(-1), -1);
  EXPECT_EQ(t.watch(), nullptr);
}

class Always final : public Watch {
 public:
  bool give_up() const override { return true; }
};

TEST(Team, MemberListSkipsRanks) {
  p2p::Engine eng;
  State st(eng);
  comm::Communicator c = make_comm(8, 5);
  Always w;
  Team t(st, c, {0, 2, 5, 7}, &w);
  EXPECT_EQ(t.size(), 4);
  EXPECT_EQ(t.me(), 2);
  EXPECT_EQ(t.rank_of(3), 7);
  EXPECT_EQ(t.index_of(5), 2);
  EXPECT_EQ(t.index_of(4), -1);
  EXPECT_TRUE(t.watch()->give_up());
}

// The tags of a call are built from its number: communicators draw from
// counters of their own, and every team on the same communicator (the api
// builds one per call) continues the same count.
TEST(Team, CallNumbersArePerCommunicator) {
  p2p::Engine eng;
  State st(eng);
  comm::Communicator a = make_comm(4, 1, 1000), b = make_comm(4, 1, 2000);
  std::vector<uint32_t> seen;
  auto call = [&](comm::Communicator& c) {
    Team t(st, c);
    t.begin_call();
    seen.push_back(t.call_seq());
  };
  call(a);
  call(a);
  call(b);
  call(a);
  call(b);
  call(b);
  call(a);
  EXPECT_EQ(seen, (std::vector<uint32_t>{0, 1, 0, 2, 1, 2, 3}));
}

// Call numbers live in the State the Runtime owns, not in the process: a
// new State (a new Runtime, e.g. after a restart) numbers from zero.
TEST(Team, CallNumbersBelongToTheirState) {
  p2p::Engine eng;
  comm::Communicator c = make_comm(2, 0);
  State first(eng);
  for (int i = 0; i < 5; ++i) Team(first, c).begin_call();
  State second(eng);
  Team t(second, c);
  t.begin_call();
  EXPECT_EQ(t.call_seq(), 0u);
  Team u(first, c);
  u.begin_call();
  EXPECT_EQ(u.call_seq(), 5u);
}

}  // namespace
}  // namespace ftmpi::coll

// Teams: the identity over a communicator and explicit member lists (what
// BLANK mode will build), with index <-> rank mapping.
#include <gtest/gtest.h>

#include "coll/team.hpp"

namespace ftmpi::coll {
namespace {

comm::Communicator make_comm(int size, int me) {
  std::vector<ProcId> procs;
  for (int i = 0; i < size; ++i) procs.push_back(ProcId{i, 0});
  return comm::Communicator(1000, comm::Group::make(std::move(procs)), me);
}

TEST(Team, IdentityCoversTheCommunicator) {
  p2p::Engine eng;
  comm::Communicator c = make_comm(6, 4);
  Team t(eng, c);
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
  comm::Communicator c = make_comm(8, 5);
  Always w;
  Team t(eng, c, {0, 2, 5, 7}, &w);
  EXPECT_EQ(t.size(), 4);
  EXPECT_EQ(t.me(), 2);
  EXPECT_EQ(t.rank_of(3), 7);
  EXPECT_EQ(t.index_of(5), 2);
  EXPECT_EQ(t.index_of(4), -1);
  EXPECT_TRUE(t.watch()->give_up());
}

}  // namespace
}  // namespace ftmpi::coll

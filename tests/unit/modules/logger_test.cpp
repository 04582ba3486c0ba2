// The logging protocol between several processes, each a Logger, wired
// through an in-memory network with FIFO channels and an event logger.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>

#include "modules/logging/checksum.hpp"
#include "modules/logging/logger.hpp"

namespace ftmpi::logging {
namespace {

struct Fatal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Msg {
  int32_t src;
  uint64_t seq;
  uint64_t checksum;
  std::string payload;
};

struct Net;

struct Proc : Wire {
  Net* net;
  int32_t slot;
  std::unique_ptr<Logger> lg;
  std::deque<Msg> delivered;           // accepted messages, in order
  std::deque<std::pair<int32_t, Msg>> held;  // sends held by pessimism
  std::vector<uint8_t> stored;         // this slot's determinants at the event logger
  size_t unacked_batches = 0;
  bool staged = false;  // the event logger holds a batch as it is written (a staging area)
  Proc(Net* n, int32_t s, int32_t size) : net(n), slot(s), lg(std::make_unique<Logger>(*this, s, size, 1 << 20)) {}
  bool send_frame(int32_t to, const std::vector<uint8_t>& bytes) override;
  bool inject(int32_t to, const LogEntry& e) override;
  bool log_determinants(const std::vector<uint8_t>& b) override {
    stored.insert(stored.end(), b.begin(), b.end());
    if (!staged) ++unacked_batches;
    return staged;
  }
  [[noreturn]] void fatal(const std::string& m) override { throw Fatal(m); }

  // The application's send as the engine glue does it.
  bool send(int32_t to, const std::string& payload, int32_t tag = 0) {
    Envelope env;
    env.ctx = 1;
    env.tag = tag;
    env.len = payload.size();
    uint8_t* p = lg->reserve(to, env);
    Hasher h;
    h.update(p, payload.data(), payload.size());
    const LogEntry* e = lg->commit(to, lg->log().next_seq(to), h.digest());
    Msg m{slot, e->seq, e->checksum, payload};
    if (!held.empty() || !lg->may_send()) {
      held.emplace_back(to, m);
      return false;
    }
    put(to, m);
    return true;
  }
  void put(int32_t to, const Msg& m);
  void ack_all() {
    while (unacked_batches > 0) {
      --unacked_batches;
      if (lg->on_batch_acked())
        while (!held.empty()) {
          put(held.front().first, held.front().second);
          held.pop_front();
        }
    }
  }
};

struct Net {
  std::vector<std::unique_ptr<Proc>> procs;
  std::deque<std::pair<int32_t, Msg>> wire;  // (destination, message), FIFO
  std::deque<std::tuple<int32_t, int32_t, std::vector<uint8_t>>> frames;
  explicit Net(int n) {
    for (int i = 0; i < n; ++i) procs.push_back(std::make_unique<Proc>(this, i, n));
  }
  Proc& operator[](int i) { return *procs[static_cast<size_t>(i)]; }
  void run() {
    while (!wire.empty() || !frames.empty()) {
      while (!frames.empty()) {
        auto [from, to, bytes] = frames.front();
        frames.pop_front();
        (*this)[to].lg->on_frame(from, bytes.data(), bytes.size());
      }
      if (!wire.empty()) {
        auto [to, m] = wire.front();
        wire.pop_front();
        if ((*this)[to].lg->accept(m.src, m.seq, m.checksum)) (*this)[to].delivered.push_back(m);
      }
    }
  }
  // Slot s dies (its traffic in flight is lost) and its next incarnation starts.
  Proc& restart(std::initializer_list<int32_t> slots) {
    for (int32_t s : slots) {
      std::erase_if(wire, [&](auto& x) { return x.first == s || x.second.src == s; });
      std::erase_if(frames, [&](auto& x) { return std::get<0>(x) == s || std::get<1>(x) == s; });
      for (auto& p : procs)
        if (p->slot != s) p->lg->on_peer_failed(s);
    }
    for (int32_t s : slots) {
      std::vector<uint8_t> dets = (*this)[s].stored;
      procs[static_cast<size_t>(s)] = std::make_unique<Proc>(this, s, static_cast<int32_t>(procs.size()));
      (*this)[s].stored = dets;
      (*this)[s].lg->start_replay(dets);
    }
    for (int32_t s : slots)
      for (auto& p : procs)
        if (p->slot != s) p->lg->peer_back(s);
    return (*this)[*slots.begin()];
  }
};

bool Proc::send_frame(int32_t to, const std::vector<uint8_t>& bytes) {
  net->frames.emplace_back(slot, to, bytes);
  return true;
}

bool Proc::inject(int32_t to, const LogEntry& e) {
  put(to, Msg{slot, e.seq, e.checksum, std::string(reinterpret_cast<const char*>(e.data()), e.env.len)});
  return true;
}

void Proc::put(int32_t to, const Msg& m) { net->wire.emplace_back(to, m); }

std::string payloads(const std::deque<Msg>& d, int32_t src) {
  std::string s;
  for (const Msg& m : d)
    if (m.src == src) s += m.payload + ",";
  return s;
}

TEST(Logger, RestartedReceiverGetsEverythingAgainInOrder) {
  Net net(3);
  net[0].send(1, "a");
  net[2].send(1, "x");
  net[0].send(1, "b");
  net.run();
  EXPECT_EQ(payloads(net[1].delivered, 0), "a,b,");
  Proc& b = net.restart({1});
  EXPECT_TRUE(b.lg->replaying());
  net.run();
  EXPECT_EQ(payloads(b.delivered, 0), "a,b,");
  EXPECT_EQ(payloads(b.delivered, 2), "x,");
  EXPECT_EQ(net[0].lg->stats().resent, 2u);
  EXPECT_EQ(b.lg->resent_to_me(), 3u);
  EXPECT_TRUE(b.lg->take_caught_up());  // no determinants, every message back
  EXPECT_FALSE(b.lg->take_caught_up());  // reported once
  net[0].send(1, "c");
  net.run();
  EXPECT_EQ(payloads(b.delivered, 0), "a,b,c,");
}

// Garbage collection (spec/checkpoint-protocol.md §5): a receiver whose
// checkpoint the runtime holds tells each sender what the image accepted;
// the senders drop exactly that, and a later restart of the receiver from
// that image gets only what came after.
TEST(Logger, ACheckpointKeptLetsTheSendersDropWhatItsImageAccepted) {
  Net net(3);
  net[0].send(1, "a");
  net[0].send(1, "b");
  net[2].send(1, "x");
  net[0].send(2, "to2");
  net.run();
  net[1].send(2, "y1");
  net[1].send(2, "y2");
  net.run();
  // The image of rank 1 accepted 2 from rank 0 and 1 from rank 2, and had
  // sent rank 2 two messages.
  const std::vector<uint64_t> image{net[1].lg->inbound().received(0), 0, net[1].lg->inbound().received(2)};
  const std::vector<uint64_t> sent{0, 0, net[1].lg->log().next_seq(2) - 1};
  net[0].send(1, "c");  // after the image
  net[1].send(2, "y3");
  net.run();
  EXPECT_EQ(net[0].lg->log().bytes(), 6u);
  EXPECT_EQ(net[2].lg->inbound().held(1), 3u);
  net[1].lg->checkpoint_kept(image, sent);
  net.run();
  EXPECT_EQ(net[0].lg->reclaimed(), 2u) << "a and b";
  EXPECT_EQ(net[2].lg->reclaimed(), 1u);
  EXPECT_EQ(net[0].lg->log().find(1, 3)->data()[0], 'c') << "what the image did not accept stays";
  EXPECT_NE(net[0].lg->log().find(2, 1), nullptr) << "another receiver's messages stay";
  EXPECT_EQ(net[1].lg->reclaimed(), 0u);
  // Rank 2 no longer needs the checksums of what the image had sent it.
  EXPECT_EQ(net[2].lg->inbound().held(1), 1u) << "only y3's";
  EXPECT_EQ(net[2].lg->inbound().received(1), 3u);
  EXPECT_NE(net[2].lg->inbound().checksum(1, 3), 0u);
  // An older image's word (smaller numbers) changes nothing.
  net[1].lg->checkpoint_kept({1, 0, 0}, {0, 0, 1});
  net.run();
  EXPECT_EQ(net[0].lg->reclaimed(), 2u);
  EXPECT_EQ(net.frames.size(), 0u);
  // Rank 1 restarts from that image (its own state is not modelled here):
  // the senders queue again only what follows it.
  const uint64_t before = net[0].lg->stats().resent;
  net[0].lg->peer_back(1);
  EXPECT_EQ(net[0].lg->stats().resent - before, 1u) << "only c";
}

TEST(Logger, AMessageTheUserCancelledIsNotSentAgain) {
  Net net(2);
  net[0].send(1, "a");
  net[0].send(1, "gone");
  net[0].send(1, "b");
  net.run();
  // The receiver's program never got "gone": the sender's cancel withdrew it.
  net[0].lg->withdrawn(1, 2);
  Proc& b = net.restart({1});
  net.run();
  EXPECT_EQ(payloads(b.delivered, 0), "a,b,");
  EXPECT_EQ(net[0].lg->stats().resent, 2u);
  EXPECT_TRUE(b.lg->take_caught_up());  // a skipped number is not waited for
}

TEST(Logger, ReplayedSendsArriveAsDuplicatesAndAreDropped) {
  Net net(2);
  net[1].send(0, "m1");
  net[1].send(0, "m2");
  net.run();
  Proc& b = net.restart({1});
  net.run();
  b.send(0, "m1");
  b.send(0, "m2");
  b.send(0, "m3");
  net.run();
  EXPECT_EQ(payloads(net[0].delivered, 1), "m1,m2,m3,");
  EXPECT_EQ(net[0].lg->stats().duplicates, 2u);
}

TEST(Logger, ReplayThatSendsSomethingElseIsADivergenceNamingTheRank) {
  Net net(2);
  net[1].send(0, "seed=42");
  net.run();
  Proc& b = net.restart({1});
  net.run();
  b.send(0, "seed=43");
  try {
    net.run();
    FAIL() << "no divergence detected";
  } catch (const Fatal& f) {
    std::string m = f.what();
    EXPECT_NE(m.find("rank 1: replay diverged"), std::string::npos) << m;
    EXPECT_NE(m.find("not deterministic apart from MPI"), std::string::npos) << m;
  }
}

TEST(Logger, ForcedOutcomeThatCannotBeMetIsADivergence) {
  Net net(3);
  auto& o = net[0].lg->outcomes();
  o.matched(o.next_wildcard(), 2, 1);
  net[0].lg->flush_determinants();
  net[0].ack_all();
  Proc& a = net.restart({0});
  auto& r = a.lg->outcomes();
  r.matched(r.next_wildcard(), 1, 1);  // took another sender
  try {
    a.lg->check_divergence();
    FAIL();
  } catch (const Fatal& f) {
    EXPECT_NE(std::string(f.what()).find("rank 0: replay diverged (match #0: slot 1 seq 1 where the log says match #0: slot 2 seq 1)"), std::string::npos) << f.what();
  }
}

TEST(Logger, PessimismHoldsSendsUntilDeterminantsAreAcked) {
  Net net(2);
  auto& o = net[0].lg->outcomes();
  o.matched(o.next_wildcard(), 1, 1);
  EXPECT_FALSE(net[0].send(1, "after-any"));
  EXPECT_EQ(net[0].unacked_batches, 1u);
  net.run();
  EXPECT_TRUE(net[1].delivered.empty());
  net[0].ack_all();
  net.run();
  EXPECT_EQ(payloads(net[1].delivered, 0), "after-any,");
  EXPECT_TRUE(net[0].send(1, "n"));  // named traffic alone never waits
}

// A staged batch is stable as soon as it is written: the send that flushed
// it goes at once, and a restart replays it like an acknowledged one.
TEST(Logger, ABatchStableAsWrittenHoldsNoSend) {
  Net net(2);
  net[0].staged = true;
  auto& o = net[0].lg->outcomes();
  o.matched(o.next_wildcard(), 1, 1);
  EXPECT_TRUE(net[0].send(1, "after-any"));
  EXPECT_EQ(net[0].unacked_batches, 0u);
  EXPECT_EQ(net[0].lg->stats().held, 0u);
  EXPECT_EQ(net[0].lg->stats().batches, 1u);
  EXPECT_TRUE(net[0].lg->outcomes().may_send());
  net.run();
  EXPECT_EQ(payloads(net[1].delivered, 0), "after-any,");
  Proc& a = net.restart({0});
  EXPECT_TRUE(a.lg->outcomes().replaying());
}

// A checkpoint image resumed as the next incarnation: a withdrawal its dead
// original logged after the checkpoint, of a message the image had sent
// before it, is met by no replayed send; waiting for it, the replay never
// caught up (and deferred the peer's CANCELs for ever).
TEST(Logger, AResumedImageDoesNotWaitForTheWithdrawalOfAMessageItHadSent) {
  Net dead(2);
  dead[0].send(1, "a");
  dead[0].send(1, "b");
  dead[0].lg->outcomes().withdrew(1, 2);  // after the checkpoint: its cancel won
  dead[0].lg->outcomes().withdrew(1, 3);  // a later send's, withdrawn too
  dead[0].lg->flush_determinants();
  Net image(2);  // the image: both sent, nothing withdrawn yet
  image[0].send(1, "a");
  image[0].send(1, "b");
  image[0].lg->resume_replay(dead[0].stored, {}, {});
  EXPECT_EQ(image[0].lg->outcomes().to_replay(), 1u) << "only the withdrawal of a send still to come";
  EXPECT_TRUE(image[0].lg->outcomes().withhold(1, 3));
  EXPECT_FALSE(image[0].lg->outcomes().replaying());
}

// A held send waits for the determinants recorded before it, not for those
// recorded after: a process polling in a Test loop records a failed poll on
// every call, and its held send (a nonblocking collective's forward) must go
// at the ack of the batch it flushed. Before: held until may_send(), i.e.
// forever while the loop polls (mpi23.nbc hung under kills at np 8 and 16).
TEST(Logger, HeldSendsGoAtTheAckOfTheirBatchWhateverWasRecordedSince) {
  Net net(2);
  auto& o = net[0].lg->outcomes();
  o.matched(o.next_wildcard(), 1, 1);
  EXPECT_FALSE(net[0].send(1, "forward"));
  EXPECT_EQ(net[0].unacked_batches, 1u);
  o.polled(false);  // the Test loop goes on
  o.polled(false);
  net[0].ack_all();
  net.run();
  EXPECT_EQ(payloads(net[1].delivered, 0), "forward,");
  EXPECT_FALSE(net[0].send(1, "next"));  // the failed polls precede it: flushed, held
  EXPECT_EQ(net[0].unacked_batches, 1u);
  net[0].ack_all();
  net.run();
  EXPECT_EQ(payloads(net[1].delivered, 0), "forward,next,");
}

TEST(Logger, ALastMessageTheUserCancelledIsNotWaitedFor) {
  Net net(2);
  net[0].send(1, "a");
  net[0].send(1, "gone");
  net.run();
  net[0].lg->withdrawn(1, 2);
  Proc& b = net.restart({1});
  net.run();
  EXPECT_EQ(payloads(b.delivered, 0), "a,");
  EXPECT_TRUE(b.lg->take_caught_up());  // RESENT says 1, not 2
}

TEST(Logger, AMessageWithdrawnAfterTheRestartBeforeItLeftIsNotWaitedFor) {
  Net net(2);
  net[0].send(1, "a");
  net[0].send(1, "b");
  net.run();
  Proc& b = net.restart({1});
  // "b" was still queued at the sender (the engine sends it itself) and the
  // user's cancel took it out before it left.
  std::erase_if(net.wire, [](auto& x) { return x.second.payload == "b"; });
  net[0].lg->withdrawn(1, 2);
  net.run();
  EXPECT_EQ(payloads(b.delivered, 0), "a,");
  EXPECT_TRUE(b.lg->take_caught_up());  // a second RESENT lowered it to 1
}

TEST(Logger, RestartedProcessReplaysItsDeterminantsThenCatchesUp) {
  Net net(3);
  auto& o = net[0].lg->outcomes();
  o.matched(o.next_wildcard(), 2, 1);
  o.wtime(3.25);
  net[0].send(1, "x");  // flushes the batch
  net[0].ack_all();
  net[2].send(0, "y");
  net.run();
  Proc& a = net.restart({0});
  net.run();
  Outcomes& r = a.lg->outcomes();
  uint64_t w = r.next_wildcard();
  ASSERT_TRUE(r.forced_match(w));
  EXPECT_EQ(r.forced_match(w)->slot, 2);
  EXPECT_FALSE(a.lg->take_caught_up());
  EXPECT_TRUE(r.matched(w, 2, 1));
  EXPECT_EQ(r.wtime(99.0), 3.25);
  // Rank 1 had accepted "x" from the dead incarnation: not caught up before
  // the replay sent it again (a CANCEL deferred until then must find what
  // the dead incarnation had matched matched again).
  EXPECT_FALSE(a.lg->take_caught_up());
  a.send(1, "x");
  EXPECT_TRUE(a.lg->take_caught_up());
  net.run();
  EXPECT_EQ(net[1].lg->stats().duplicates, 1u);
}

// A round the log does not place came after the dead incarnation's last
// send: the replay starts it only once it sent again what the peers have
// (before, its input there at once, it took the number of a message rank 1
// had from the dead incarnation: a false divergence in mpi23.nbc).
TEST(Logger, AnUnloggedRoundWaitsUntilTheReplayIsPastTheLastSend) {
  Net net(2);
  net[0].send(1, "a");
  net[0].send(1, "b");
  net.run();
  Proc& a = net.restart({0});
  net.run();
  EXPECT_FALSE(a.lg->round_may_start(0, 1));
  a.send(1, "a");
  EXPECT_FALSE(a.lg->round_may_start(0, 1));
  a.send(1, "b");
  EXPECT_TRUE(a.lg->round_may_start(0, 1));
  a.lg->outcomes().round_started();
  EXPECT_TRUE(net[1].lg->round_may_start(0, 1));  // a survivor is never held
}

TEST(Logger, TwoRestartedPeersExchangeEverything) {
  Net net(3);
  net[0].send(1, "p");
  net[1].send(0, "q");
  net[2].send(0, "r");
  net.run();
  net.restart({0, 1});
  Proc& a = net[0];
  Proc& b = net[1];
  net.run();
  EXPECT_EQ(payloads(a.delivered, 2), "r,");
  EXPECT_TRUE(a.delivered.size() == 1 && b.delivered.empty());
  EXPECT_TRUE(a.lg->take_caught_up());
  a.send(1, "p");
  b.send(0, "q");
  net.run();
  EXPECT_EQ(payloads(b.delivered, 0), "p,");
  EXPECT_EQ(payloads(a.delivered, 1), "q,");
}

TEST(Logger, NobodyLeavesBeforeEveryCurrentIncarnationIsDone) {
  Net net(3);
  net[0].lg->announce_done();
  net[1].lg->announce_done();
  net.run();
  EXPECT_FALSE(net[0].lg->all_done());
  Proc& c = net.restart({1});  // died after saying DONE: its word goes with it
  net[2].lg->announce_done();
  net.run();
  EXPECT_FALSE(net[0].lg->all_done());
  EXPECT_FALSE(net[2].lg->all_done());
  c.lg->announce_done();
  net.run();
  EXPECT_TRUE(net[0].lg->all_done());
  EXPECT_TRUE(net[2].lg->all_done());
  EXPECT_TRUE(c.lg->all_done());
}

TEST(Logger, LimitEndsTheJobWithAClearMessage) {
  struct Small : Wire {
    bool send_frame(int32_t, const std::vector<uint8_t>&) override { return true; }
    bool inject(int32_t, const LogEntry&) override { return true; }
    bool log_determinants(const std::vector<uint8_t>&) override { return false; }
    [[noreturn]] void fatal(const std::string& m) override { throw Fatal(m); }
  } w;
  Logger lg(w, 0, 2, 100);
  Envelope env;
  env.len = 80;
  ASSERT_NE(lg.reserve(1, env), nullptr);
  lg.commit(1, 1, 0);
  try {
    lg.reserve(1, env);
    FAIL();
  } catch (const Fatal& f) {
    EXPECT_NE(std::string(f.what()).find("FTMPI_LOG_LIMIT"), std::string::npos);
  }
  ASSERT_NE(lg.reserve(1, Envelope{}), nullptr);
  EXPECT_THROW(lg.commit(1, 1, 0), Fatal);  // numbers only grow
  // The one-piece path (contiguous payloads) refuses the same way.
  std::vector<uint8_t> bytes(80, 3);
  try {
    lg.append(1, 2, env, bytes.data());
    FAIL();
  } catch (const Fatal& f) {
    EXPECT_NE(std::string(f.what()).find("FTMPI_LOG_LIMIT"), std::string::npos);
  }
  env.len = 20;
  ASSERT_NE(lg.append(1, 2, env, bytes.data()), nullptr);
  EXPECT_EQ(lg.log().bytes(), 100u);
  try {
    lg.append(1, 2, Envelope{}, nullptr);
    FAIL();
  } catch (const Fatal& f) {
    EXPECT_NE(std::string(f.what()).find("lost count"), std::string::npos);
  }
}

}  // namespace
}  // namespace ftmpi::logging

// The logging protocol between several processes, each a Logger, wired
// through an in-memory network with FIFO channels and an event logger.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <algorithm>
#include <tuple>
#include <memory>
#include <stdexcept>
#include <string>

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
  std::deque<Msg> delivered;  // accepted messages, in order
  std::vector<uint8_t> stored;  // this slot's determinants at the event logger
  size_t unacked_batches = 0;
  Proc(Net* n, int32_t s, int32_t size) : net(n), slot(s), lg(std::make_unique<Logger>(*this, s, size, 1 << 20)) {}
  bool send_frame(int32_t to, const std::vector<uint8_t>& bytes) override;
  void transmit(int32_t to, const LogEntry& e, uint64_t) override;
  void log_determinants(const std::vector<uint8_t>& b) override {
    stored.insert(stored.end(), b.begin(), b.end());
    ++unacked_batches;
  }
  size_t max_frame_bytes() const override { return 40; }  // tiny: HAVE takes several frames
  [[noreturn]] void fatal(const std::string& m) override { throw Fatal(m); }

  // The application's send: log, route, transmit if the caller should.
  Logger::SendAction send(int32_t to, const std::string& payload, int32_t tag = 0) {
    Envelope env;
    env.ctx = 1;
    env.tag = tag;
    env.len = payload.size();
    uint8_t* p = lg->reserve(to, env);
    Hasher h;
    h.update(p, payload.data(), payload.size());
    const LogEntry* e = lg->commit(to, h.digest());
    auto a = lg->route(to, *e, 0, true);
    if (a == Logger::SendAction::kSent) transmit(to, *e, 0);
    return a;
  }
  void ack_all() {
    while (unacked_batches > 0) {
      --unacked_batches;
      lg->on_batch_acked();
    }
  }
};

struct Net {
  std::vector<std::unique_ptr<Proc>> procs;
  std::deque<std::pair<int32_t, Msg>> wire;  // (destination, message), FIFO
  std::deque<std::tuple<int32_t, int32_t, std::vector<uint8_t>>> frames;
  std::vector<bool> dead;
  explicit Net(int n) : dead(static_cast<size_t>(n), false) {
    for (int i = 0; i < n; ++i) procs.push_back(std::make_unique<Proc>(this, i, n));
  }
  Proc& operator[](int i) { return *procs[static_cast<size_t>(i)]; }
  void run() {
    while (!wire.empty() || !frames.empty()) {
      while (!frames.empty()) {
        auto [from, to, bytes] = frames.front();
        frames.pop_front();
        if (!dead[static_cast<size_t>(to)]) (*this)[to].lg->on_frame(from, bytes.data(), bytes.size());
      }
      if (!wire.empty()) {
        auto [to, m] = wire.front();
        wire.pop_front();
        if (dead[static_cast<size_t>(to)]) continue;
        if ((*this)[to].lg->accept(m.src, m.seq, m.checksum)) (*this)[to].delivered.push_back(m);
      }
    }
  }
  // Kills slot s (in-flight traffic to it is lost) and starts its next incarnation.
  Proc& restart(int32_t s) {
    std::vector<uint8_t> dets = (*this)[s].stored;
    auto it = std::remove_if(wire.begin(), wire.end(), [&](auto& x) { return x.first == s || x.second.src == s; });
    wire.erase(it, wire.end());
    auto ft = std::remove_if(frames.begin(), frames.end(), [&](auto& x) { return std::get<1>(x) == s; });
    frames.erase(ft, frames.end());
    for (auto& p : procs)
      if (p->slot != s) p->lg->on_peer_failed(s);
    procs[static_cast<size_t>(s)] = std::make_unique<Proc>(this, s, static_cast<int32_t>(procs.size()));
    (*this)[s].stored = dets;
    (*this)[s].lg->start_replay(dets);
    return (*this)[s];
  }
};

bool Proc::send_frame(int32_t to, const std::vector<uint8_t>& bytes) {
  if (net->dead[static_cast<size_t>(to)]) return false;
  net->frames.emplace_back(slot, to, bytes);
  return true;
}

void Proc::transmit(int32_t to, const LogEntry& e, uint64_t) {
  net->wire.emplace_back(to, Msg{slot, e.seq, e.checksum, std::string(reinterpret_cast<char*>(e.data), e.env.len)});
}

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
  Proc& b = net.restart(1);
  EXPECT_FALSE(b.lg->ready());  // waits for both HAVE answers
  net.run();
  EXPECT_TRUE(b.lg->ready());
  EXPECT_EQ(payloads(b.delivered, 0), "a,b,");
  EXPECT_EQ(payloads(b.delivered, 2), "x,");
  EXPECT_EQ(net[0].lg->stats().resent, 2u);
  // Sends to it after the restart follow the resent ones.
  net[0].send(1, "c");
  net.run();
  EXPECT_EQ(payloads(b.delivered, 0), "a,b,c,");
}

TEST(Logger, SendsToADeadPeerWaitForItsHello) {
  Net net(2);
  net[0].send(1, "a");
  net.run();
  net.dead[1] = true;
  net[0].lg->on_peer_failed(1);
  EXPECT_EQ(net[0].send(1, "b"), Logger::SendAction::kQueued);
  net.run();
  net.dead[1] = false;
  Proc& b = net.restart(1);
  net.run();
  EXPECT_EQ(payloads(b.delivered, 0), "a,b,");
}

TEST(Logger, ReplaySuppressesWhatPeersHaveAndSendsTheRest) {
  Net net(2);
  net[1].send(0, "m1");
  net[1].send(0, "m2");
  net.run();
  Proc& b = net.restart(1);
  net.run();
  ASSERT_TRUE(b.lg->ready());
  EXPECT_EQ(b.send(0, "m1"), Logger::SendAction::kSuppressed);
  EXPECT_FALSE(b.lg->take_caught_up());  // rank 0 has m2 too
  EXPECT_EQ(b.send(0, "m2"), Logger::SendAction::kSuppressed);
  EXPECT_TRUE(b.lg->take_caught_up());
  EXPECT_FALSE(b.lg->take_caught_up());  // reported once
  EXPECT_EQ(b.send(0, "m3"), Logger::SendAction::kSent);
  net.run();
  EXPECT_EQ(payloads(net[0].delivered, 1), "m1,m2,m3,");
  EXPECT_EQ(b.lg->stats().suppressed, 2u);
}

TEST(Logger, ReplayThatSendsSomethingElseIsADivergenceNamingTheRank) {
  Net net(2);
  net[1].send(0, "seed=42");
  net.run();
  Proc& b = net.restart(1);
  net.run();
  try {
    b.send(0, "seed=43");
    FAIL() << "no divergence detected";
  } catch (const Fatal& f) {
    std::string m = f.what();
    EXPECT_NE(m.find("rank 1: replay diverged"), std::string::npos) << m;
    EXPECT_NE(m.find("not deterministic apart from MPI"), std::string::npos) << m;
  }
}

TEST(Logger, DuplicateThatDiffersIsCaughtByTheReceiver) {
  Net net(2);
  net[1].send(0, "v1");
  net.run();
  EXPECT_THROW(net[0].lg->accept(1, 1, 12345), Fatal);
  EXPECT_FALSE(net[0].lg->accept(1, 1, net[0].delivered[0].checksum));  // same copy: dropped quietly
  EXPECT_EQ(net[0].lg->stats().duplicates, 2u);
}

TEST(Logger, PessimismHoldsSendsUntilDeterminantsAreAcked) {
  Net net(2);
  net[0].lg->outcomes().matched(1, 1);
  EXPECT_EQ(net[0].send(1, "after-any"), Logger::SendAction::kQueued);
  EXPECT_EQ(net[0].unacked_batches, 1u);
  net.run();
  EXPECT_TRUE(net[1].delivered.empty());
  net[0].ack_all();
  net.run();
  EXPECT_EQ(payloads(net[1].delivered, 0), "after-any,");
  // Named traffic alone never waits.
  EXPECT_EQ(net[0].send(1, "n"), Logger::SendAction::kSent);
}

TEST(Logger, RestartedProcessReplaysItsDeterminants) {
  Net net(3);
  net[0].lg->outcomes().matched(2, 1);
  net[0].lg->outcomes().wtime(3.25);
  net[0].send(1, "x");  // flushes the batch
  net[0].ack_all();
  net.run();
  Proc& a = net.restart(0);
  net.run();
  Outcomes& o = a.lg->outcomes();
  ASSERT_TRUE(o.forced_match());
  EXPECT_EQ(o.forced_match()->slot, 2);
  EXPECT_TRUE(o.matched(2, 1));
  EXPECT_EQ(o.wtime(99.0), 3.25);
  EXPECT_FALSE(o.replaying());
  EXPECT_EQ(a.send(1, "x"), Logger::SendAction::kSuppressed);
  EXPECT_TRUE(a.lg->take_caught_up());
}

TEST(Logger, TwoRestartedPeersExchangeEverything) {
  Net net(3);
  net[0].send(1, "p");
  net[1].send(0, "q");
  net[2].send(0, "r");
  net.run();
  net.dead[0] = net.dead[1] = true;
  for (int s : {0, 1}) net[2].lg->on_peer_failed(s);
  net.dead[0] = false;
  Proc& a = net.restart(0);
  net.dead[1] = false;
  Proc& b = net.restart(1);
  net.run();
  EXPECT_TRUE(a.lg->ready());
  EXPECT_TRUE(b.lg->ready());
  EXPECT_EQ(payloads(a.delivered, 2), "r,");
  // Both replay: what they send now is new to the other incarnation.
  EXPECT_EQ(a.send(1, "p"), Logger::SendAction::kSent);
  EXPECT_EQ(b.send(0, "q"), Logger::SendAction::kSent);
  net.run();
  EXPECT_EQ(payloads(b.delivered, 0), "p,");
  EXPECT_EQ(payloads(a.delivered, 1), "q,");
}

TEST(Logger, LimitEndsTheJobWithAClearMessage) {
  struct Small : Wire {
    bool send_frame(int32_t, const std::vector<uint8_t>&) override { return true; }
    void transmit(int32_t, const LogEntry&, uint64_t) override {}
    void log_determinants(const std::vector<uint8_t>&) override {}
    size_t max_frame_bytes() const override { return 1024; }
    [[noreturn]] void fatal(const std::string& m) override { throw Fatal(m); }
  } w;
  Logger lg(w, 0, 2, 100);
  Envelope env;
  env.len = 80;
  ASSERT_NE(lg.reserve(1, env), nullptr);
  lg.commit(1, 0);
  try {
    lg.reserve(1, env);
    FAIL();
  } catch (const Fatal& f) {
    EXPECT_NE(std::string(f.what()).find("FTMPI_LOG_LIMIT"), std::string::npos);
  }
}

}  // namespace
}  // namespace ftmpi::logging

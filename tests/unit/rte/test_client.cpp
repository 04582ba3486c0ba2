// rte::Client against a scripted daemon: the test forks, the child is the rank
// (FTMPI_CTRL_FD = its end of a socketpair) and reports through its exit
// status, the parent plays the daemon with the real protocol messages.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>

#include "rte/client/client.hpp"
#include "rte/proto/rank_messages.hpp"
#include "rte/proto/stream_channel.hpp"

namespace ftmpi::rte {
namespace {

using proto::Frame;

struct Recorder : EventSink {
  std::vector<std::pair<ProcId, uint64_t>> failed;
  std::vector<Card> restarted;
  std::vector<uint64_t> acked;
  void on_proc_restarted(ProcId id, const Card& c) override {
    if (id == c.id) restarted.push_back(c);
  }
  void on_determinants_acked(uint64_t batch) override { acked.push_back(batch); }
  int aborted = -1;
  void on_proc_failed(ProcId who, uint64_t seq) override { failed.emplace_back(who, seq); }
  void on_job_abort(int code) override { aborted = code; }
  std::vector<RecoveryResult> rounds;
  void on_recovery_done(const RecoveryResult& r) override { rounds.push_back(r); }
};

// Runs `rank` in a child with a control channel; returns the daemon side.
struct RankProcess {
  pid_t pid = -1;
  std::unique_ptr<proto::StreamChannel> daemon;
  int shm = -1, bell0 = -1, bell1 = -1;

  explicit RankProcess(const std::function<int()>& rank) {
    int sv[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    shm = memfd_create("test-shm", 0);
    EXPECT_EQ(ftruncate(shm, 8192), 0);
    bell0 = eventfd(0, EFD_NONBLOCK);
    bell1 = eventfd(0, EFD_NONBLOCK);
    pid = fork();
    if (pid == 0) {
      ::close(sv[0]);
      setenv("FTMPI_CTRL_FD", std::to_string(sv[1]).c_str(), 1);
      _exit(rank());
    }
    ::close(sv[1]);
    daemon = std::make_unique<proto::StreamChannel>(sv[0]);
  }
  ~RankProcess() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    for (int f : {shm, bell0, bell1}) ::close(f);
  }
  bool recv(Frame& f, int timeout_ms = 5000) {
    for (int waited = 0; waited < timeout_ms; waited += 10) {
      if (daemon->next(f) == proto::FrameReader::Next::kFrame) return true;
      pollfd p{daemon->fd(), POLLIN, 0};
      ::poll(&p, 1, 10);
      auto io = daemon->read_available();  // may bring the last frames and EOF together
      if (daemon->next(f) == proto::FrameReader::Next::kFrame) return true;
      if (io != proto::StreamChannel::Io::kOk) return false;
    }
    return false;
  }
  template <typename M>
  M expect(int line) {
    Frame f;
    M m;
    EXPECT_TRUE(recv(f)) << "line " << line;
    EXPECT_TRUE(proto::parse(f, m)) << "line " << line << ": got " << proto::msg_name(f.type);
    return m;
  }
  template <typename M>
  void send(const M& m) {
    daemon->send(m);
    EXPECT_EQ(daemon->flush(), proto::StreamChannel::Io::kOk);
  }
  proto::Boot boot() const {
    proto::Boot b;
    b.self = ProcId{1, 0};
    b.world_size = 3;
    b.host = 0;
    b.hostname = "testhost";
    b.local_slots = {0, 1};
    b.local_index = 1;
    b.shm_fd = shm;
    b.shm_size = 8192;
    b.doorbell_fds = {bell0, bell1};
    b.secret = auth::make_secret();
    b.tcp_bind_addr = "127.0.0.9";
    b.epoch = 3;
    b.modes.comm = CommMode::kBlank;
    return b;
  }
  int wait_status() {
    int status = 0;
    waitpid(pid, &status, 0);
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

#define EXPECT_MSG(rp, Type) (rp).expect<proto::Type>(__LINE__)

proto::CardTable table_of(int n, int dead_slot, uint32_t incarnation = 0) {
  proto::CardTable t;
  for (int s = 0; s < n; ++s) {
    Card c;
    c.id = ProcId{s, incarnation};
    c.host = s == dead_slot ? -1 : 0;
    c.pid = 100 + s;
    t.cards.push_back(c);
  }
  return t;
}

// Polls until `done` or about 5 s passed.
template <typename Done>
void poll_until(Client& c, Recorder& r, Done done) {
  for (int i = 0; i < 500 && !done(); ++i) {
    if (!c.has_pending_events()) {
      pollfd p{c.fd(), POLLIN, 0};
      ::poll(&p, 1, 10);
    }
    c.poll(r);
  }
}

TEST(RteClient, SingletonWithoutControlChannel) {
  unsetenv("FTMPI_CTRL_FD");
  unsetenv("FTMPI_COMM_MODE");
  Client c;
  BootInfo b;
  ASSERT_EQ(c.init(b), Err::kOk);
  EXPECT_TRUE(b.singleton);
  EXPECT_EQ(b.world_size, 1);
  EXPECT_EQ(b.self, (ProcId{0, 0}));
  EXPECT_EQ(b.local_slots, std::vector<int32_t>{0});
  EXPECT_EQ(b.shm_fd, -1);
  EXPECT_EQ(b.modes, Modes{});
  EXPECT_EQ(c.fd(), -1);
  std::vector<Card> all;
  Card mine;
  mine.tcp_port = 99;
  ASSERT_EQ(c.exchange_cards(mine, all), Err::kOk);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].pid, getpid());
  EXPECT_EQ(all[0].tcp_port, 99);
  EXPECT_EQ(c.finalize(), Err::kOk);

  setenv("FTMPI_COMM_MODE", "shrink", 1);
  Client c2;
  ASSERT_EQ(c2.init(b), Err::kOk);
  EXPECT_EQ(b.modes.comm, CommMode::kShrink);
  setenv("FTMPI_COMM_MODE", "nonsense", 1);
  Client c3;
  EXPECT_EQ(c3.init(b), Err::kArg);
  unsetenv("FTMPI_COMM_MODE");
}

TEST(RteClient, RejectsAControlFdThatIsNoSocket) {
  setenv("FTMPI_CTRL_FD", "0x", 1);
  Client c;
  BootInfo b;
  EXPECT_EQ(c.init(b), Err::kIntern);
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  setenv("FTMPI_CTRL_FD", std::to_string(p[0]).c_str(), 1);
  Client d;
  EXPECT_EQ(d.init(b), Err::kIntern);
  ::close(p[0]);
  ::close(p[1]);
  unsetenv("FTMPI_CTRL_FD");
}

TEST(RteClient, BootExchangeNoticesAndFence) {
  RankProcess rp([] {
    Client c;
    BootInfo b;
    if (c.init(b) != Err::kOk) return 10;
    if (b.singleton || b.self != (ProcId{1, 0}) || b.world_size != 3 || b.hostname != "testhost" ||
        b.local_index != 1 || b.doorbell_fds.size() != 2 || b.shm_size != 8192 ||
        b.tcp_bind_addr != "127.0.0.9" || b.epoch != 3 || b.modes.comm != CommMode::kBlank)
      return 11;
    if (std::getenv("FTMPI_CTRL_FD")) return 12;
    Card mine;
    mine.tcp_port = 777;
    std::vector<Card> all;
    if (c.exchange_cards(mine, all) != Err::kOk || all.size() != 3 || all[2].host != -1) return 13;
    // A notice arrived while exchange_cards() blocked: kept for poll().
    if (!c.has_pending_events()) return 14;
    Recorder r;
    for (int i = 0; i < 500 && r.failed.size() < 2; ++i) {
      pollfd p{c.fd(), POLLIN, 0};
      ::poll(&p, 1, 10);
      c.poll(r);
    }
    if (r.failed.size() != 2 || r.failed[0] != std::make_pair(ProcId{2, 0}, uint64_t{1}) ||
        r.failed[1] != std::make_pair(ProcId{0, 0}, uint64_t{2}))
      return 15;
    if (c.finalize() != Err::kOk) return 16;
    c.report_suspect(ProcId{0, 0});
    return 0;
  });
  auto hello = EXPECT_MSG(rp, RankHello);
  EXPECT_EQ(hello.version, proto::kProtocolVersion);
  EXPECT_EQ(hello.pid, rp.pid);
  rp.send(rp.boot());
  auto card = EXPECT_MSG(rp, CardMsg);
  EXPECT_EQ(card.card.id, (ProcId{1, 0})) << "the client fills in who it is";
  EXPECT_EQ(card.card.pid, rp.pid);
  EXPECT_EQ(card.card.tcp_port, 777);
  rp.send(proto::ProcFailed{ProcId{2, 0}, 1});
  proto::CardTable table;
  for (int s = 0; s < 3; ++s) {
    Card c;
    c.id = ProcId{s, 0};
    c.host = s == 2 ? -1 : 0;
    table.cards.push_back(c);
  }
  rp.send(table);
  rp.send(proto::ProcFailed{ProcId{0, 0}, 2});
  EXPECT_MSG(rp, FenceEnter);
  rp.send(proto::FenceDone{});
  auto s = EXPECT_MSG(rp, Suspect);
  EXPECT_EQ(s.who, (ProcId{0, 0}));
  EXPECT_EQ(rp.wait_status(), 0);
}

TEST(RteClient, ExitsWhenTheDaemonGoesAwayDuringExchange) {
  RankProcess rp([] {
    Client c;
    BootInfo b;
    if (c.init(b) != Err::kOk) return 10;
    std::vector<Card> all;
    c.exchange_cards(Card{}, all);
    return 20;  // must not get here
  });
  EXPECT_MSG(rp, RankHello);
  rp.send(rp.boot());
  EXPECT_MSG(rp, CardMsg);
  rp.daemon->close();
  EXPECT_EQ(rp.wait_status(), 1);
}

TEST(RteClient, ExitsWhenTheDaemonGoesAwayWhileIdle) {
  RankProcess rp([] {
    Client c;
    BootInfo b;
    if (c.init(b) != Err::kOk) return 10;
    Recorder r;
    for (;;) {
      pollfd p{c.fd(), POLLIN, 0};
      ::poll(&p, 1, -1);
      c.poll(r);
    }
  });
  EXPECT_MSG(rp, RankHello);
  rp.send(rp.boot());
  usleep(50000);
  rp.daemon->close();
  EXPECT_EQ(rp.wait_status(), 1);
}

TEST(RteClient, ExitsOnAMalformedFrame) {
  RankProcess rp([] {
    Client c;
    BootInfo b;
    c.init(b);
    return 20;
  });
  EXPECT_MSG(rp, RankHello);
  uint8_t junk[6] = {1, 0, 0, 0, 0x81, 0x01};  // length 1: below the minimum
  ASSERT_EQ(::write(rp.daemon->fd(), junk, sizeof junk), 6);
  EXPECT_EQ(rp.wait_status(), 1);
}

TEST(RteClient, AbortReachesTheDaemonAndEndsWithTheCode) {
  RankProcess rp([] {
    Client c;
    BootInfo b;
    if (c.init(b) != Err::kOk) return 10;
    c.abort(7, "giving up");
  });
  EXPECT_MSG(rp, RankHello);
  rp.send(rp.boot());
  auto a = EXPECT_MSG(rp, AbortRequest);
  EXPECT_EQ(a.code, 7);
  EXPECT_EQ(a.message, "giving up");
  rp.send(proto::JobAbort{7});
  EXPECT_EQ(rp.wait_status(), 7);
}

}  // namespace
}  // namespace ftmpi::rte

namespace ftmpi::rte {
namespace {

TEST(RteClient, RecoveryRoundNoticesComeFirstThenTheResult) {
  RankProcess rp([] {
    Client c;
    BootInfo b;
    if (c.init(b) != Err::kOk) return 10;
    if (c.request_recovery(0) != Err::kIntern) return 11;  // not before the card exchange
    std::vector<Card> all;
    if (c.exchange_cards(Card{}, all) != Err::kOk) return 12;
    Recorder r;
    poll_until(c, r, [&] { return r.failed.size() == 1; });
    if (r.failed.size() != 1) return 13;
    if (c.request_recovery(1) != Err::kOk || !c.recovery_requested()) return 14;
    if (c.request_recovery(1) != Err::kOk) return 15;  // outstanding: nothing more is sent
    poll_until(c, r, [&] { return !r.rounds.empty(); });
    if (r.rounds.size() != 1 || r.failed.size() != 2 || c.recovery_requested()) return 16;
    const RecoveryResult& x = r.rounds[0];
    if (x.epoch != 4 || x.last_event_seq != 2 || x.failed != std::vector<ProcId>{{2, 0}, {0, 0}} ||
        x.cards.size() != 3 || x.cards[0].host != -1 || x.cards[2].id != (ProcId{2, 1}))
      return 17;
    if (!c.restart_result().cards.empty()) return 18;  // only for respawned processes
    if (c.request_recovery(2) != Err::kOk) return 19;  // the next round
    poll_until(c, r, [&] { return r.rounds.size() == 2; });
    if (r.rounds.size() != 2 || r.rounds[1].epoch != 5 || !r.rounds[1].failed.empty()) return 20;
    return c.finalize() == Err::kOk ? 0 : 21;
  });
  EXPECT_MSG(rp, RankHello);
  rp.send(rp.boot());
  EXPECT_MSG(rp, CardMsg);
  rp.send(table_of(3, -1));
  rp.send(proto::ProcFailed{ProcId{2, 0}, 1});
  auto req = EXPECT_MSG(rp, RecoverReq);
  EXPECT_EQ(req.known_event_seq, 1u);
  // A failure during the round reaches the process before the round's end.
  rp.send(proto::ProcFailed{ProcId{0, 0}, 2});
  proto::RecoverDone done;
  done.result.epoch = 4;
  done.result.cards = table_of(3, 0).cards;
  done.result.cards[2].id = ProcId{2, 1};  // respawned
  done.result.failed = {ProcId{2, 0}, ProcId{0, 0}};
  done.result.last_event_seq = 2;
  rp.send(done);
  auto req2 = EXPECT_MSG(rp, RecoverReq);  // not a duplicate of the first
  EXPECT_EQ(req2.known_event_seq, 2u);
  done.result.epoch = 5;
  done.result.failed.clear();
  rp.send(done);
  EXPECT_MSG(rp, FenceEnter);
  rp.send(proto::FenceDone{});
  EXPECT_EQ(rp.wait_status(), 0);
}

TEST(RteClient, RespawnedProcessJoinsThroughItsRound) {
  RankProcess rp([] {
    Client c;
    BootInfo b;
    if (c.init(b) != Err::kOk || !b.restarted || b.self != (ProcId{1, 2})) return 10;
    std::vector<Card> all;
    if (c.exchange_cards(Card{}, all) != Err::kOk) return 11;
    const RecoveryResult& x = c.restart_result();
    if (x.epoch != 7 || x.failed != std::vector<ProcId>{{1, 1}} || x.last_event_seq != 9) return 12;
    if (all != x.cards || all.size() != 3 || all[1].id != (ProcId{1, 2})) return 13;
    Recorder r;
    c.poll(r);
    if (!r.rounds.empty() || !r.failed.empty()) return 14;  // the round is not delivered twice
    return c.finalize() == Err::kOk ? 0 : 15;
  });
  EXPECT_MSG(rp, RankHello);
  proto::Boot b = rp.boot();
  b.self = ProcId{1, 2};
  b.restarted = true;
  b.modes.comm = CommMode::kRebuild;
  rp.send(b);
  auto card = EXPECT_MSG(rp, CardMsg);
  EXPECT_EQ(card.card.id, (ProcId{1, 2}));
  proto::RecoverDone done;
  done.result.epoch = 7;
  done.result.cards = table_of(3, -1).cards;
  done.result.cards[1].id = ProcId{1, 2};
  done.result.failed = {ProcId{1, 1}};
  done.result.last_event_seq = 9;
  rp.send(done);
  EXPECT_MSG(rp, FenceEnter);
  rp.send(proto::FenceDone{});
  EXPECT_EQ(rp.wait_status(), 0);
}

TEST(RteClient, NoRoundsInAbortOrIgnoreMode) {
  for (auto [comm, rec] : {std::pair{CommMode::kAbort, RecoveryMode::kManual},
                           std::pair{CommMode::kShrink, RecoveryMode::kIgnore}}) {
    RankProcess rp([comm = comm, rec = rec] {
      Client c;
      BootInfo b;
      if (c.init(b) != Err::kOk || b.modes.comm != comm || b.modes.recovery != rec) return 10;
      std::vector<Card> all;
      if (c.exchange_cards(Card{}, all) != Err::kOk) return 11;
      if (c.request_recovery(0) != Err::kArg || c.recovery_requested()) return 12;
      return c.finalize() == Err::kOk ? 0 : 13;
    });
    EXPECT_MSG(rp, RankHello);
    proto::Boot b = rp.boot();
    b.modes.comm = comm;
    b.modes.recovery = rec;
    rp.send(b);
    EXPECT_MSG(rp, CardMsg);
    rp.send(table_of(3, -1));
    EXPECT_MSG(rp, FenceEnter);  // and no RECOVER_REQ before it
    rp.send(proto::FenceDone{});
    EXPECT_EQ(rp.wait_status(), 0);
  }
}

TEST(RteClient, SingletonRoundCompletesAtOnce) {
  unsetenv("FTMPI_CTRL_FD");
  setenv("FTMPI_COMM_MODE", "rebuild", 1);
  Client c;
  BootInfo b;
  ASSERT_EQ(c.init(b), Err::kOk);
  unsetenv("FTMPI_COMM_MODE");
  std::vector<Card> all;
  Card mine;
  mine.tcp_port = 5;
  ASSERT_EQ(c.exchange_cards(mine, all), Err::kOk);
  ASSERT_EQ(c.request_recovery(0), Err::kOk);
  EXPECT_TRUE(c.has_pending_events());
  Recorder r;
  c.poll(r);
  ASSERT_EQ(r.rounds.size(), 1u);
  EXPECT_EQ(r.rounds[0].epoch, 1u);
  ASSERT_EQ(r.rounds[0].cards.size(), 1u);
  EXPECT_EQ(r.rounds[0].cards[0].tcp_port, 5);
  EXPECT_TRUE(r.rounds[0].failed.empty());
  ASSERT_EQ(c.request_recovery(0), Err::kOk);
  c.poll(r);
  ASSERT_EQ(r.rounds.size(), 2u);
  EXPECT_EQ(r.rounds[1].epoch, 2u);
}

TEST(RteClient, TransparentRestartLogFetchAndFence) {
  RankProcess rp([] {
    Client c;
    BootInfo b;
    if (c.init(b) != Err::kOk || !b.restarted || !b.modes.transparent_mode()) return 10;
    std::vector<Card> all;
    // A restarted process in transparent mode: CARD_TABLE answers its card.
    if (c.exchange_cards(Card{}, all) != Err::kOk || all.size() != 3 || all[1].id != (ProcId{1, 2})) return 11;
    if (!c.restart_result().cards.empty()) return 12;
    std::vector<uint8_t> got;
    if (c.fetch_determinants(got) != Err::kOk) return 13;
    if (got.size() != 60003 || got.front() != 'y' || got.back() != 'z') return 14;
    std::vector<uint8_t> big(proto::kMaxDetBatch + 1, 'b');
    bool stable = true;
    if (c.log_determinants("", 0, stable) != 0 || c.log_determinants(big.data(), big.size(), stable) != 0) return 15;
    // No staging area in this BOOT: both go as DET_LOG and wait for DET_ACK.
    if (c.log_determinants("ab", 2, stable) != 1 || stable || c.log_determinants("c", 1, stable) != 2 || stable)
      return 16;
    c.report_replay(ReplayPhase::kCaughtUp, ReplayStats{5, 6, 7});
    Recorder r;
    poll_until(c, r, [&] { return r.acked.size() == 2 && r.restarted.size() == 1; });
    if (r.acked != std::vector<uint64_t>{1, 2} || c.determinants_acked() != 2) return 17;
    if (r.restarted.size() != 1 || r.restarted[0].id != (ProcId{2, 1})) return 18;
    if (c.finalize_begin() != Err::kOk || c.fence_done()) return 19;
    poll_until(c, r, [&] { return c.fence_done(); });
    if (!c.fence_done() || c.finalize() != Err::kOk) return 20;
    return 0;
  });
  EXPECT_MSG(rp, RankHello);
  proto::Boot b = rp.boot();
  b.self = ProcId{1, 2};
  b.restarted = true;
  b.modes = Modes{};
  b.modes.transparent = Transparent::kPessimist;
  rp.send(b);
  EXPECT_MSG(rp, CardMsg);
  proto::CardTable t = table_of(3, 2);
  t.cards[1].id = ProcId{1, 2};
  rp.send(t);
  EXPECT_MSG(rp, DetFetch);
  // (Pieces the socketpair takes at once: the scripted daemon does not retry a partial write.)
  rp.send(proto::DetData{false, std::string(60000, 'y')});
  rp.send(proto::DetData{true, "xyz"});
  auto l1 = EXPECT_MSG(rp, DetLog);
  auto l2 = EXPECT_MSG(rp, DetLog);
  EXPECT_EQ(l1.batch, 1u);
  EXPECT_EQ(l1.data, "ab");
  EXPECT_EQ(l2.batch, 2u);
  auto rep = EXPECT_MSG(rp, ReplayReport);
  EXPECT_EQ(rep.phase, proto::ReplayReport::kCaughtUp);
  EXPECT_EQ(rep.suppressed, 7u);
  rp.send(proto::DetAck{1});
  rp.send(proto::DetAck{2});
  Card c2;
  c2.id = ProcId{2, 1};
  c2.host = 0;
  c2.pid = 5;
  rp.send(proto::ProcRestarted{c2});
  EXPECT_MSG(rp, FenceEnter);
  rp.send(proto::FenceDone{});
  EXPECT_EQ(rp.wait_status(), 0);
}

}  // namespace
}  // namespace ftmpi::rte

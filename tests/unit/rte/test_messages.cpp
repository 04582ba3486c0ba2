// Every control message survives encode/decode unchanged, and decoding
// rejects wrong types, truncation, trailing bytes and out-of-range fields.
#include <gtest/gtest.h>

#include <type_traits>

#include "rte/proto/event_log_messages.hpp"
#include "rte/proto/frame.hpp"
#include "rte/proto/rank_messages.hpp"
#include "rte/proto/runtime_messages.hpp"
#include "rte/proto/tree_messages.hpp"

namespace ftmpi::rte::proto {
namespace {

Card sample_card(int32_t slot) {
  Card c;
  c.id = ProcId{slot, 3};
  c.host = 1;
  c.pid = 4000 + slot;
  c.tcp_addr = "127.0.0.2";
  c.tcp_port = static_cast<uint16_t>(20000 + slot);
  return c;
}

ProcFailure sample_failure() {
  ProcFailure f;
  f.seq = 7;
  f.who = ProcId{5, 2};
  f.host = 1;
  f.pid = 4242;
  f.exit = ExitInfo{ExitInfo::kSignaled, 9};
  return f;
}

// Round trip through a frame, then check every shorter payload fails and a
// trailing byte fails.
template <typename M>
void check_round_trip(const M& m) {
  std::vector<uint8_t> bytes = make_frame(m);
  Frame f;
  ASSERT_TRUE(split_frame(bytes, f));
  EXPECT_EQ(f.type, static_cast<uint16_t>(M::kType));
  M back;
  ASSERT_TRUE(parse(f, back)) << msg_name(f.type);
  EXPECT_TRUE(back == m) << msg_name(f.type);
  for (size_t n = 0; n < f.payload.size(); ++n) {
    Frame cut{f.type, std::vector<uint8_t>(f.payload.begin(), f.payload.begin() + static_cast<ptrdiff_t>(n))};
    M x;
    EXPECT_FALSE(parse(cut, x)) << msg_name(f.type) << " accepted " << n << " of " << f.payload.size() << " bytes";
  }
  Frame longer = f;
  longer.payload.push_back(0);
  M y;
  EXPECT_FALSE(parse(longer, y)) << msg_name(f.type) << " accepted a trailing byte";
}

RecoveryResult sample_recovery() {
  RecoveryResult r;
  r.epoch = 3;
  r.cards = {sample_card(0), Card{ProcId{1, 2}, -1, 0, "", 0}, sample_card(2)};
  r.failed = {ProcId{1, 1}, ProcId{1, 2}};
  r.last_event_seq = 9;
  return r;
}

Boot sample_boot() {
  Boot b;
  b.self = ProcId{2, 1};
  b.world_size = 8;
  b.host = 1;
  b.hostname = "node-b";
  b.local_slots = {1, 2, 5};
  b.local_index = 1;
  b.shm_fd = 7;
  b.shm_size = 5u << 20;
  b.doorbell_fds = {8, 9, 10};
  b.det_fd = 11;
  for (size_t i = 0; i < b.secret.size(); ++i) b.secret[i] = static_cast<uint8_t>(i * 7 + 1);
  b.tcp_bind_addr = "127.0.0.3";
  b.epoch = 4;
  b.restarted = true;
  b.modes = Modes{CommMode::kShrink, MsgMode::kCont, CollMode::kAtomic, RecoveryMode::kIgnore};
  return b;
}

JobStart sample_job() {
  JobStart j;
  j.world_size = 5;
  j.modes = Modes{CommMode::kBlank, MsgMode::kReset, CollMode::kAtomic, RecoveryMode::kAuto, Transparent::kPessimist};
  j.leader = 1;
  j.hosts = {HostEntry{"a", "127.0.0.2", 4001, {0, 1, 2}, 0}, HostEntry{"b", "127.0.0.3", 4002, {3, 4}, 0}};
  j.program = "/bin/prog";
  j.args = {"-x", "", "two words"};
  j.cwd = "/tmp";
  j.shm_size = 123456;
  j.grace_ms = 250;
  j.stdin_slot = 0;
  j.epoch = 2;
  j.max_respawn = 3;
  j.trace = true;
  return j;
}

TEST(RteMessages, RankLinkRoundTrips) {
  check_round_trip(RankHello{kProtocolVersion, 1234});
  check_round_trip(CardMsg{sample_card(3)});
  check_round_trip(FenceEnter{});
  check_round_trip(AbortRequest{17, "out of cheese"});
  check_round_trip(Suspect{ProcId{4, 1}});
  check_round_trip(sample_boot());
  check_round_trip(CardTable{{sample_card(0), sample_card(1), Card{ProcId{2, 0}, -1, 0, "", 0}}});
  check_round_trip(FenceDone{});
  check_round_trip(ProcFailed{ProcId{6, 0}, 99});
  check_round_trip(JobAbort{130});
  check_round_trip(RecoverReq{17});
  check_round_trip(RecoverDone{sample_recovery()});
  check_round_trip(DetLog{7, std::string("d\0e\xff", 4)});
  check_round_trip(DetFetch{});
  check_round_trip(ReplayReport{ReplayReport::kCaughtUp, 10, 20, 3});
  check_round_trip(DetAck{7});
  check_round_trip(DetData{false, std::string(1000, 'x')});
  check_round_trip(DetData{true, ""});
  check_round_trip(ProcRestarted{sample_card(2)});
}

TEST(RteMessages, DetLogFramedInPlaceIsMakeFrame) {
  const std::string data("d\0e\xff", 4);
  std::vector<uint8_t> out{9};  // appended after what is there
  append_det_log_frame(out, 7, data.data(), data.size());
  std::vector<uint8_t> want{9};
  append_frame(want, DetLog{7, data});
  EXPECT_EQ(out, want);
}

TEST(RteMessages, RuntimeLinkRoundTrips) {
  check_round_trip(DaemonHello{kProtocolVersion, 2, 777, 40000, "10.99.0.3", 40001});
  check_round_trip(Io{3, Io::kStderr, std::string("a\0b\n", 4)});
  check_round_trip(IoEof{3, Io::kStdout});
  check_round_trip(RankExit{ProcId{1, 0}, 55, ExitInfo{ExitInfo::kExited, 7}, EndKind::kFailure, true});
  check_round_trip(RankStart{ProcId{1, 2}, 56, 1700000000123456789ull});
  check_round_trip(Trace{Trace::kNotified, ProcId{4, 1}, 77, 5, 3, 123});
  check_round_trip(Trace{Trace::kReleased, ProcId{}, 0, 5, 7, 124});
  check_round_trip(InjectResult{9, true, ProcId{2, 1}, 555, "", 99});
  check_round_trip(InjectResult{10, false, ProcId{-1, 0}, 0, "rank 2 is not running on this host", 98});
  check_round_trip(InitReport{42});
  check_round_trip(RecoveryReport{RecoveryReport::kDone, 2, 7, {ProcId{1, 0}}, {ProcId{1, 1}}, 4, 12345, 6789});
  check_round_trip(JobFailedReport{1, "every process of the job has died"});
  check_round_trip(InjectKill{3, 5, 9});
  check_round_trip(InjectKill{4, -1, 9});
  check_round_trip(KillRequest{{3}});
  check_round_trip(KillRequest{{1, 4, 0}});
  check_round_trip(KillReply{true, "killed rank 3"});
  check_round_trip(RecoverUp{{ProcId{0, 0}, ProcId{5, 3}}});
  check_round_trip(Respawn{ProcId{5, 4}, 1});
  check_round_trip(RecoverDoneDown{sample_recovery()});
  check_round_trip(StdinCredit{65536});
  check_round_trip(DaemonDone{});
  check_round_trip(FailureReport{sample_failure(), true, 1700000000000000000ull, FailureReport::kFinished});
  check_round_trip(AbortReport{ProcId{2, 0}, 1, 99, -3, "bye"});
  check_round_trip(sample_job());
  check_round_trip(Stdin{"input\n"});
  check_round_trip(StdinEof{});
  check_round_trip(Terminate{130, true});
  check_round_trip(Shutdown{});
  check_round_trip(PeerHello{kProtocolVersion, 3});
  check_round_trip(CardsUp{{sample_card(1), sample_card(4)}});
  check_round_trip(FenceUp{{ProcId{1, 0}, ProcId{4, 2}}});
  check_round_trip(ProcExit{ProcId{4, 0}, 66, ExitInfo{ExitInfo::kLost, 0}, EndKind::kTerminated});
  check_round_trip(AbortUp{ProcId{0, 0}, 12, 5, "why"});
  check_round_trip(SuspectUp{ProcId{0, 0}, ProcId{1, 0}});
  check_round_trip(CardTableDown{{sample_card(0)}});
  check_round_trip(FenceDown{});
  check_round_trip(EventDown{EventDown::kProcFailed, sample_failure()});
  check_round_trip(EndJob{42});
  check_round_trip(CheckProc{ProcId{3, 1}});
  check_round_trip(DetRepl{2, {DetBatch{0, 1, "x"}, DetBatch{0, 2, std::string("\0y", 2)}, DetBatch{1, 1, "z"}}});
  check_round_trip(DetReplAck{2, 1, 9});
  check_round_trip(DetWant{3, 1, 77});
  check_round_trip(DetHandover{3, 1, 0, 77, false, {DetBatch{2, 5, "q"}}});
  check_round_trip(DetHandover{3, 1, 2, 78, true, {}});
  check_round_trip(ReplayUp{ProcId{1, 2}, 2, 10, 20, 3, 99});
  check_round_trip(ReplayNote{ProcId{1, 2}, 1, 10, 0, 0, 98});
  check_round_trip(
      ProcRestartedDown{sample_card(1), {sample_card(0), sample_card(1), Card{ProcId{2, 1}, -1, 0, "", 0}}, 7});
}

TEST(RteMessages, EventLogMessagesRejectImpossibleContent) {
  auto rejects = [](const auto& m) {
    Frame f;
    EXPECT_TRUE(split_frame(make_frame(m), f));
    std::decay_t<decltype(m)> back;
    return !parse(f, back);
  };
  EXPECT_TRUE(rejects(DetRepl{2, {}})) << "nothing to replicate";
  EXPECT_TRUE(rejects(DetRepl{2, {DetBatch{0, 2, "a"}, DetBatch{0, 1, "b"}}})) << "out of order";
  EXPECT_TRUE(rejects(DetRepl{2, {DetBatch{0, 1, "a"}, DetBatch{0, 1, "b"}}})) << "repeated";
  EXPECT_TRUE(rejects(DetRepl{2, {DetBatch{0, 0, "a"}}})) << "batch 0";
  EXPECT_TRUE(rejects(DetRepl{2, {DetBatch{0, 1, ""}}})) << "empty batch";
  EXPECT_TRUE(rejects(DetReplAck{-1, 0, 1}));
  EXPECT_TRUE(rejects(DetWant{1, -2, 0}));
  EXPECT_TRUE(rejects(ReplayUp{ProcId{1, 0}, 3, 0, 0, 0, 0})) << "phase";
  // The new incarnation's card must be in the table, at its slot.
  EXPECT_TRUE(rejects(ProcRestartedDown{sample_card(1), {sample_card(0), sample_card(0)}}));
  EXPECT_TRUE(rejects(ProcRestartedDown{sample_card(5), {sample_card(0)}}));
  EXPECT_TRUE(rejects(ProcRestarted{Card{ProcId{1, 1}, -1, 0, "", 0}})) << "a restarted process can be reached";
}

TEST(RteMessages, WrongTypeIsRejected) {
  Frame f;
  ASSERT_TRUE(split_frame(make_frame(JobAbort{1}), f));
  EndJob e;  // same payload layout, different type
  EXPECT_FALSE(parse(f, e));
}

template <typename M, typename Mutate>
bool accepts_after(const M& m, size_t offset, Mutate mutate) {
  Frame f;
  EXPECT_TRUE(split_frame(make_frame(m), f));
  mutate(f.payload[offset]);
  M back;
  return parse(f, back);
}

TEST(RteMessages, OutOfRangeFieldsAreRejected) {
  // Boot: modes are the last five bytes; restarted precedes them.
  Boot b = sample_boot();
  size_t n = make_frame(b).size() - kFrameHeader;
  EXPECT_FALSE(accepts_after(b, n - 5, [](uint8_t& x) { x = 4; }));   // comm mode
  EXPECT_FALSE(accepts_after(b, n - 4, [](uint8_t& x) { x = 2; }));   // msg mode
  EXPECT_FALSE(accepts_after(b, n - 2, [](uint8_t& x) { x = 3; }));   // recovery mode
  EXPECT_FALSE(accepts_after(b, n - 1, [](uint8_t& x) { x = 2; }));   // transparent protocol
  EXPECT_FALSE(accepts_after(b, n - 6, [](uint8_t& x) { x = 2; }));   // restarted flag
  EXPECT_FALSE(accepts_after(DetLog{1, "x"}, 0, [](uint8_t& x) { x = 0; }));  // batch 0
  EXPECT_FALSE(accepts_after(ReplayReport{}, 0, [](uint8_t& x) { x = 3; }));  // phase
  EXPECT_FALSE(accepts_after(DetData{true, "x"}, 0, [](uint8_t& x) { x = 2; }));  // last flag
  EXPECT_FALSE(accepts_after(Io{1, Io::kStdout, "x"}, 4, [](uint8_t& x) { x = 3; }));  // stream
  EXPECT_FALSE(accepts_after(Terminate{1, false}, 4, [](uint8_t& x) { x = 2; }));      // bool
  // An impossible element count must fail without allocating for it.
  EXPECT_FALSE(accepts_after(CardTable{{sample_card(0)}}, 3, [](uint8_t& x) { x = 0x7f; }));
  // Boot whose local_slots[local_index] is not its own slot.
  Boot lie = sample_boot();
  lie.local_index = 0;
  Frame f;
  ASSERT_TRUE(split_frame(make_frame(lie), f));
  Boot back;
  EXPECT_FALSE(parse(f, back));
}

TEST(RteMessages, RecoveryMessagesRejectImpossibleContent) {
  auto rejects = [](const auto& m) {
    Frame f;
    EXPECT_TRUE(split_frame(make_frame(m), f));
    std::decay_t<decltype(m)> back;
    return !parse(f, back);
  };
  RecoverDone out_of_order{sample_recovery()};
  std::swap(out_of_order.result.cards[0], out_of_order.result.cards[2]);
  EXPECT_TRUE(rejects(out_of_order)) << "cards must be indexed by slot";
  RecoverDone stranger{sample_recovery()};
  stranger.result.failed.push_back(ProcId{3, 0});
  EXPECT_TRUE(rejects(stranger)) << "a failed slot outside the table";
  RecoverDone empty{sample_recovery()};
  empty.result.cards.clear();
  empty.result.failed.clear();
  EXPECT_TRUE(rejects(empty));
  EXPECT_TRUE(rejects(Respawn{ProcId{5, 0}, 1})) << "a respawn is incarnation 1 or later";
  EXPECT_TRUE(rejects(Respawn{ProcId{5, 1}, -1}));
  EXPECT_TRUE(rejects(InjectKill{1, -2, 9}));
  EXPECT_TRUE(rejects(InjectKill{1, 0, 0}));
  EXPECT_TRUE(rejects(KillRequest{{-1}}));
  EXPECT_TRUE(rejects(KillRequest{{2, -1}}));
  EXPECT_TRUE(rejects(KillRequest{})) << "no rank";
  EXPECT_TRUE(rejects(Trace{0, ProcId{1, 0}, 0, 0, 0, 0}));
  EXPECT_TRUE(rejects(RecoveryReport{3, 1, 1, {}, {}, 0, 0, 0}));
}

TEST(RteMessages, JobStartMustPlaceEverySlotOnce) {
  JobStart j = sample_job();
  j.hosts[1].slots = {3, 3};  // slot 4 missing, 3 twice
  Frame f;
  ASSERT_TRUE(split_frame(make_frame(j), f));
  JobStart back;
  EXPECT_FALSE(parse(f, back));
  j = sample_job();
  j.hosts[0].slots.push_back(5);  // beyond world_size
  ASSERT_TRUE(split_frame(make_frame(j), f));
  EXPECT_FALSE(parse(f, back));
  j = sample_job();
  j.leader = 2;  // no such host
  ASSERT_TRUE(split_frame(make_frame(j), f));
  EXPECT_FALSE(parse(f, back));
}

TEST(RteMessages, ModeNamesRoundTrip) {
  for (CommMode m : {CommMode::kAbort, CommMode::kRebuild, CommMode::kBlank, CommMode::kShrink}) {
    CommMode back;
    ASSERT_TRUE(parse_mode(mode_name(m), back));
    EXPECT_EQ(back, m);
  }
  MsgMode mm;
  EXPECT_TRUE(parse_mode("cont", mm));
  EXPECT_EQ(mm, MsgMode::kCont);
  CollMode cm;
  EXPECT_TRUE(parse_mode("atomic", cm));
  EXPECT_EQ(cm, CollMode::kAtomic);
  RecoveryMode rm;
  EXPECT_TRUE(parse_mode("ignore", rm));
  EXPECT_EQ(rm, RecoveryMode::kIgnore);
  EXPECT_FALSE(parse_mode("ABORT", mm));
  EXPECT_FALSE(parse_mode("", cm));
}

}  // namespace
}  // namespace ftmpi::rte::proto

namespace ftmpi::rte::proto {

TEST(RteMessages, TreeMessagesRoundTrip) {
  check_round_trip(HostSuspect{3, "parent silent for 812 ms"});
  check_round_trip(View{4, 1, {0, 2, 5}});
  check_round_trip(Up{2, make_frame(FenceUp{{ProcId{4, 1}}})});
  check_round_trip(Down{3, 17, make_frame(FenceDown{})});
  check_round_trip(PeerWelcome{99});
  check_round_trip(PeerHello{kProtocolVersion, 5, 2, 40});
  HostSync s;
  s.term = 2;
  s.epoch = 1;
  s.fenced = {ProcId{1, 0}};
  s.asked = {ProcId{0, 2}};
  s.ended = {ProcExit{ProcId{3, 0}, 77, ExitInfo{ExitInfo::kExited, 0}, EndKind::kNormal, true}};
  check_round_trip(s);
}

TEST(RteMessages, ViewsThatCannotBeRightAreRefused) {
  auto refused = [](const View& v) {
    Frame f;
    EXPECT_TRUE(split_frame(make_frame(v), f));
    View back;
    return !parse(f, back);
  };
  EXPECT_TRUE(refused(View{1, 2, {2}})) << "the leader cannot be lost";
  EXPECT_TRUE(refused(View{1, 0, {3, 1}})) << "lost hosts ascend";
  EXPECT_TRUE(refused(View{1, 0, {1, 1}})) << "no duplicates";
  EXPECT_TRUE(refused(View{1, -1, {}}));
  EXPECT_FALSE(refused(View{1, 0, {1, 3}}));
}

}  // namespace ftmpi::rte::proto

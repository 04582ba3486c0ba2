// ftmpirun's pure pieces for fault tolerance: --inject specs and random
// choices, the FT options, timeline lines, contact files and kill targets,
// round and summary lines.
#include <gtest/gtest.h>

#include <map>

#include "rte/launcher/contact.hpp"
#include "rte/launcher/inject.hpp"
#include "rte/launcher/options.hpp"
#include "rte/launcher/outcome.hpp"
#include "rte/launcher/timeline.hpp"

namespace ftmpi::rte {
namespace {

InjectSpec spec_of(const std::string& text) {
  InjectSpec s;
  std::string err;
  EXPECT_TRUE(parse_inject(text, s, err)) << text << ": " << err;
  return s;
}

std::string error_of(const std::string& text) {
  InjectSpec s;
  std::string err;
  EXPECT_FALSE(parse_inject(text, s, err)) << text;
  return err;
}

TEST(RteInject, Specs) {
  InjectSpec a = spec_of("kill rank=3 at=2.5s");
  EXPECT_EQ(a.target, InjectSpec::Target::kRank);
  EXPECT_EQ(a.rank, 3);
  EXPECT_EQ(a.at_ms, 2500u);
  EXPECT_EQ(a.every_ms, 0u);
  EXPECT_EQ(a.count, 1);
  EXPECT_EQ(a.text, "kill rank=3 at=2.5s");
  InjectSpec b = spec_of("kill random every=1s count=5");
  EXPECT_EQ(b.target, InjectSpec::Target::kRandom);
  EXPECT_EQ(b.every_ms, 1000u);
  EXPECT_EQ(b.at_ms, 1000u) << "without at, the first kill comes after one period";
  EXPECT_EQ(b.count, 5);
  EXPECT_EQ(inject_time_ms(b, 0), 1000u);
  EXPECT_EQ(inject_time_ms(b, 4), 5000u);
  InjectSpec c = spec_of("kill   host=h2   at=300ms");
  EXPECT_EQ(c.target, InjectSpec::Target::kHost);
  EXPECT_EQ(c.host, "h2");
  EXPECT_EQ(c.at_ms, 300u);
  EXPECT_EQ(spec_of("kill rank=0").at_ms, 0u);
  EXPECT_EQ(spec_of("kill rank=1 at=2").at_ms, 2000u);
  InjectSpec d = spec_of("kill rank=1 at=0.5s every=250ms count=3");
  EXPECT_EQ(inject_time_ms(d, 2), 1000u);
}

TEST(RteInject, BadSpecsSayWhy) {
  EXPECT_NE(error_of("").find("must start with 'kill'"), std::string::npos);
  EXPECT_NE(error_of("kill").find("no target"), std::string::npos);
  EXPECT_NE(error_of("kill rank=-1").find("rank must be a number"), std::string::npos);
  EXPECT_NE(error_of("kill rank=1 at=-2s").find("bad time '-2s'"), std::string::npos);
  EXPECT_NE(error_of("kill rank=1 at=1h").find("bad time"), std::string::npos);
  EXPECT_NE(error_of("kill rank=1 at=1s at=2s").find("'at' given twice"), std::string::npos);
  EXPECT_NE(error_of("kill random every=0s").find("bad period"), std::string::npos);
  EXPECT_NE(error_of("kill random count=0 every=1s").find("count must be a positive number"), std::string::npos);
  EXPECT_NE(error_of("kill random count=2").find("count=2 needs every="), std::string::npos);
  EXPECT_NE(error_of("kill host=a count=2 every=1s").find("only once"), std::string::npos);
  EXPECT_NE(error_of("kill rank=1 host=a").find("more than one target"), std::string::npos);
  EXPECT_NE(error_of("kill rank=1 speed=3").find("unknown key 'speed'"), std::string::npos);
  EXPECT_NE(error_of("kill rank").find("expected key=value"), std::string::npos);
  EXPECT_EQ(error_of("kill rank=x").rfind("--inject 'kill rank=x': ", 0), 0u) << "names the spec";
}

TEST(RteInject, RandomPicksAreRepeatableAndNeverTheLastLiveRank) {
  std::vector<int32_t> live = {0, 2, 3, 5, 7};
  InjectRandom a(42), b(42), c(43);
  std::vector<int32_t> pa, pb, pc;
  for (int i = 0; i < 20; ++i) {
    pa.push_back(a.pick(live));
    pb.push_back(b.pick(live));
    pc.push_back(c.pick(live));
  }
  EXPECT_EQ(pa, pb);
  EXPECT_NE(pa, pc);
  for (int32_t x : pa) EXPECT_NE(std::find(live.begin(), live.end(), x), live.end());
  InjectRandom d(0);  // a zero seed still works
  EXPECT_NE(d.next(), 0u);
  EXPECT_EQ(a.pick({4}), -1);
  EXPECT_EQ(a.pick({}), -1);
  // Over many draws every live rank comes up.
  std::map<int32_t, int> seen;
  for (int i = 0; i < 500; ++i) ++seen[a.pick(live)];
  EXPECT_EQ(seen.size(), live.size());
}

ParseOutcome parse(std::vector<std::string> args) {
  return parse_command_line(args, [](const char*) -> const char* { return nullptr; });
}

TEST(RteOptions, FaultToleranceOptions) {
  ParseOutcome p = parse({"-np", "4", "--inject", "kill rank=1 at=1s", "--inject=kill random every=2s count=2",
                          "--inject-seed", "99", "--timeline=/tmp/t.jsonl", "--summary", "prog", "x"});
  ASSERT_TRUE(p.ok) << p.error;
  ASSERT_EQ(p.opts.injects.size(), 2u);
  EXPECT_EQ(p.opts.injects[0].rank, 1);
  EXPECT_EQ(p.opts.injects[1].count, 2);
  EXPECT_TRUE(p.opts.inject_seed_set);
  EXPECT_EQ(p.opts.inject_seed, 99u);
  EXPECT_EQ(p.opts.timeline, "/tmp/t.jsonl");
  EXPECT_TRUE(p.opts.summary);
  EXPECT_EQ(p.opts.program, "prog");
  ParseOutcome bad = parse({"--inject", "kill rank=one", "prog"});
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.error, "--inject 'kill rank=one': rank must be a number, not 'one'");
  EXPECT_FALSE(parse({"--inject-seed", "-3", "prog"}).ok);
  EXPECT_FALSE(parse({"--timeline", "prog"}).ok) << "then there is no program";
  ParseOutcome k = parse({"--kill", "1234:3"});
  ASSERT_TRUE(k.ok) << "--kill needs no program";
  EXPECT_EQ(k.opts.kill_target, "1234:3");
  ParseOutcome j = parse({"--jobs"});
  ASSERT_TRUE(j.ok);
  EXPECT_TRUE(j.opts.list_jobs);
}

TEST(RteTimeline, LinesAreJson) {
  TimelineEvent e("death");
  e.add("rank", int32_t{3}).add("pid", uint64_t{4242}).add("host", "n\"1\\").add("failed", std::vector<int64_t>{1, 5});
  e.add("ms", 1.5).add("empty", std::vector<int64_t>{}).add("ctl", std::string("a\nb\x01"));
  EXPECT_EQ(e.format(5'250'000'123ull, 2'000'000'000ull),
            "{\"t\":3.250000,\"wall\":5.250000,\"event\":\"death\",\"rank\":3,\"pid\":4242,\"host\":\"n\\\"1\\\\\","
            "\"failed\":[1,5],\"ms\":1.500000,\"empty\":[],\"ctl\":\"a\\nb\\u0001\"}");
  // A daemon's stamp may be a little earlier than the launcher's start.
  EXPECT_EQ(TimelineEvent("x").format(1'999'000'000ull, 2'000'000'000ull),
            "{\"t\":-0.001000,\"wall\":1.999000,\"event\":\"x\"}");
}

TEST(RteContact, FileTextRoundTripsAndRejectsDamage) {
  Contact c;
  c.launcher_pid = 4321;
  c.addr = "127.0.0.1";
  c.port = 40123;
  for (size_t i = 0; i < c.secret.size(); ++i) c.secret[i] = static_cast<uint8_t>(i * 5);
  c.np = 8;
  c.program = "/path/with space/prog";
  c.started = 1795316562;
  Contact back;
  ASSERT_TRUE(parse_contact(format_contact(c), back));
  EXPECT_EQ(back.launcher_pid, 4321);
  EXPECT_EQ(back.addr, "127.0.0.1");
  EXPECT_EQ(back.port, 40123);
  EXPECT_EQ(back.secret, c.secret);
  EXPECT_EQ(back.np, 8);
  EXPECT_EQ(back.program, "/path/with space/prog");
  EXPECT_EQ(back.started, 1795316562);
  std::string text = format_contact(c);
  EXPECT_FALSE(parse_contact("ftmpi-contact 2\n" + text.substr(text.find('\n') + 1), back)) << "version";
  EXPECT_FALSE(parse_contact(text + "extra line\n", back));
  std::string no_secret = text;
  no_secret.erase(no_secret.find("secret "), no_secret.find('\n', no_secret.find("secret ")) - no_secret.find("secret ") + 1);
  EXPECT_FALSE(parse_contact(no_secret, back));
  std::string short_secret = text;
  short_secret.replace(short_secret.find("secret ") + 7, 2, "");
  EXPECT_FALSE(parse_contact(short_secret, back));
}

TEST(RteContact, KillTargets) {
  pid_t job = -1;
  std::vector<int32_t> ranks;
  std::string err;
  ASSERT_TRUE(parse_kill_target("1234:3", job, ranks, err)) << err;
  EXPECT_EQ(job, 1234);
  EXPECT_EQ(ranks, std::vector<int32_t>{3});
  ASSERT_TRUE(parse_kill_target("7", job, ranks, err)) << err;
  EXPECT_EQ(job, 0) << "the only running job";
  EXPECT_EQ(ranks, std::vector<int32_t>{7});
  for (const char* bad : {"", "12:", ":3", "0:3", "12:-1", "a:1", "1:2:3", "3 ", "1234567890"}) {
    err.clear();
    EXPECT_FALSE(parse_kill_target(bad, job, ranks, err)) << bad;
    EXPECT_EQ(err, "--kill takes JOB:RANK[,RANK...] (or RANK[,RANK...] when one job runs), not '" +
                       std::string(bad) + "'");
  }
}

TEST(RteContact, KillTargetsWithSeveralRanks) {
  pid_t job = -1;
  std::vector<int32_t> ranks;
  std::string err;
  ASSERT_TRUE(parse_kill_target("1234:1,4", job, ranks, err)) << err;
  EXPECT_EQ(job, 1234);
  EXPECT_EQ(ranks, (std::vector<int32_t>{1, 4})) << "in the order given";
  ASSERT_TRUE(parse_kill_target("5,0,2", job, ranks, err)) << err;
  EXPECT_EQ(job, 0);
  EXPECT_EQ(ranks, (std::vector<int32_t>{5, 0, 2}));
  for (const char* bad : {"12:1,", "12:,1", "1,,2", ",", "12:1;2", "1,-2", "12:1,x"}) {
    err.clear();
    EXPECT_FALSE(parse_kill_target(bad, job, ranks, err)) << bad;
    EXPECT_EQ(err.rfind("--kill takes JOB:RANK[,RANK...]", 0), 0u) << bad << ": " << err;
  }
  EXPECT_FALSE(parse_kill_target("12:3,1,3", job, ranks, err));
  EXPECT_EQ(err, "--kill names rank 3 twice");
  EXPECT_FALSE(parse_kill_target("0,00", job, ranks, err)) << "the same rank spelt twice";
  EXPECT_EQ(err, "--kill names rank 0 twice");
}

TEST(RteOutcome, RoundAndSummaryLines) {
  proto::RecoveryReport r;
  r.kind = proto::RecoveryReport::kBegin;
  r.epoch = 2;
  r.failed = {ProcId{3, 0}, ProcId{5, 1}};
  EXPECT_EQ(JobOutcome::round_line(r, 2, 8),
            "ftmpirun: recovery round 2 started (epoch 1 -> 2; failed so far: 3.0 5.1)");
  r.kind = proto::RecoveryReport::kDone;
  r.alive = 8;
  r.respawned = {ProcId{3, 1}, ProcId{5, 2}};
  r.duration_ns = 12'340'000;
  EXPECT_EQ(JobOutcome::round_line(r, 2, 8),
            "ftmpirun: recovery round 2 done in 12.3 ms: epoch 2, 8 of 8 ranks alive; failed: 3.0 5.1; "
            "respawned: 3.1 5.2");
  r.respawned.clear();
  EXPECT_NE(JobOutcome::round_line(r, 2, 8).find("respawned: none"), std::string::npos);

  JobOutcome ok;
  EXPECT_EQ(ok.summary_line(false), "");
  EXPECT_EQ(ok.summary_line(true), "ftmpirun: job ended normally after 0 failures in 0 recovery rounds (0 ms recovering)");
  proto::ProcFailure f;
  f.who = ProcId{1, 0};
  f.exit = proto::ExitInfo{proto::ExitInfo::kSignaled, 9};
  ok.on_failure(f, "h", true);
  ok.on_round_done(7'600'000);
  ok.on_rank_exit(proto::RankExit{ProcId{0, 0}, 10, proto::ExitInfo{}, proto::EndKind::kNormal, true});
  EXPECT_EQ(ok.summary_line(false), "ftmpirun: job survived 1 failure in 1 recovery round (8 ms recovering)");
  EXPECT_EQ(ok.failures(), 1);
  EXPECT_EQ(ok.rounds(), 1);

  JobOutcome gave_up;
  gave_up.on_failure(f, "h", true);
  gave_up.on_job_failed(proto::JobFailedReport{1, "every process of the job has died; nothing is left to recover"});
  EXPECT_EQ(gave_up.exit_status(), 1);
  ASSERT_EQ(gave_up.final_lines().size(), 1u);
  EXPECT_EQ(gave_up.final_lines()[0], "ftmpirun: every process of the job has died; nothing is left to recover");
  EXPECT_EQ(gave_up.summary_line(false), "") << "a failed job does not claim to have survived";
  EXPECT_EQ(gave_up.summary_line(true),
            "ftmpirun: job ended with status 1 after 1 failure in 0 recovery rounds (0 ms recovering)");
}

TEST(RteOutcome, TransparentModeLines) {
  proto::ProcFailure f;
  f.who = ProcId{2, 1};
  f.pid = 77;
  f.exit = proto::ExitInfo{proto::ExitInfo::kSignaled, 9};
  EXPECT_EQ(JobOutcome::failure_line(f, "h1", true, 0, true),
            "ftmpirun: rank 2 (pid 77 on h1) died: killed by signal 9 (incarnation 1); restarting it");
  EXPECT_EQ(JobOutcome::failure_line(f, "h1", true, 0, true, proto::FailureReport::kFinished),
            "ftmpirun: rank 2 (pid 77 on h1) died: killed by signal 9 (incarnation 1); not restarted: its program had "
            "finished (it died in MPI_Finalize)");
  EXPECT_EQ(JobOutcome::failure_line(f, "h1", true, 0, true, proto::FailureReport::kNoRestart),
            "ftmpirun: rank 2 (pid 77 on h1) died: killed by signal 9 (incarnation 1); not restarted");
  EXPECT_EQ(JobOutcome::caught_up_line(ProcId{2, 2}, 812'400'000, 40, 12, 5),
            "ftmpirun: rank 2 caught up after 812 ms (incarnation 2: 40 determinants and 12 messages replayed, "
            "5 re-sends suppressed)");
  JobOutcome t;
  t.set_transparent(true);
  EXPECT_EQ(t.summary_line(true), "ftmpirun: job ended normally after 0 failures (0 replays caught up, 0 ms replaying)");
  t.on_failure(f, "h1", true);
  t.on_failure(f, "h1", true);
  t.on_replay_done(300'000'000);
  t.on_replay_done(530'000'000);
  t.on_rank_exit(proto::RankExit{ProcId{0, 0}, 10, proto::ExitInfo{}, proto::EndKind::kNormal, true});
  EXPECT_EQ(t.summary_line(false), "ftmpirun: job survived 2 failures (2 replays caught up, 830 ms replaying)");
  EXPECT_EQ(t.replays(), 2);
}

}  // namespace
}  // namespace ftmpi::rte

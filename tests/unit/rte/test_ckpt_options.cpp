// ftmpirun's checkpoint options (src/rte/launcher/ckpt_options.hpp).
#include <gtest/gtest.h>

#include <map>

#include "rte/launcher/options.hpp"

namespace ftmpi::rte {
namespace {

ParseOutcome parse(std::vector<std::string> args) {
  return parse_command_line(args, [](const char*) -> const char* { return nullptr; });
}

TEST(CkptOptions, DurationsAndSizes) {
  uint64_t v = 0;
  ASSERT_TRUE(parse_ckpt_duration("30s", v));
  EXPECT_EQ(v, 30'000'000'000u);
  ASSERT_TRUE(parse_ckpt_duration("500ms", v));
  EXPECT_EQ(v, 500'000'000u);
  ASSERT_TRUE(parse_ckpt_duration("2h", v));
  EXPECT_EQ(v, 7200'000'000'000u);
  ASSERT_TRUE(parse_ckpt_duration("1.5m", v));
  EXPECT_EQ(v, 90'000'000'000u);
  ASSERT_TRUE(parse_ckpt_duration("2", v));
  EXPECT_EQ(v, 2'000'000'000u);
  EXPECT_FALSE(parse_ckpt_duration("", v));
  EXPECT_FALSE(parse_ckpt_duration("s", v));
  EXPECT_FALSE(parse_ckpt_duration("-1s", v));
  EXPECT_FALSE(parse_ckpt_duration("3 s", v));
  EXPECT_FALSE(parse_ckpt_duration("1e3s", v));
  ASSERT_TRUE(parse_ckpt_bytes("64m", v));
  EXPECT_EQ(v, 64u << 20);
  ASSERT_TRUE(parse_ckpt_bytes("1g", v));
  EXPECT_EQ(v, 1u << 30);
  EXPECT_FALSE(parse_ckpt_bytes("1x", v));
}

TEST(CkptOptions, AcceptedForms) {
  ParseOutcome p = parse({"--ft-transparent", "--ckpt-interval=1s", "--ckpt-policy", "adaptive", "--ckpt-store=local",
                          "--ckpt-max-concurrent=2", "--ckpt-log-trigger=8m", "prog", "--ckpt-interval=x"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_TRUE(p.opts.ckpt.on);
  EXPECT_EQ(p.opts.ckpt.interval_ns, 1'000'000'000u);
  EXPECT_EQ(p.opts.ckpt.policy, CkptPolicy::kAdaptive);
  EXPECT_EQ(p.opts.ckpt.store, CkptStore::kLocal);
  EXPECT_EQ(p.opts.ckpt.max_concurrent, 2);
  EXPECT_EQ(p.opts.ckpt.log_trigger, 8u << 20);
  EXPECT_TRUE(p.opts.ckpt.gc) << "garbage collection is on by default";
  EXPECT_EQ(p.opts.program, "prog");
  EXPECT_EQ(p.opts.args, std::vector<std::string>{"--ckpt-interval=x"});  // the program's own
  ParseOutcome a = parse({"--ft-transparent", "--ckpt-interval", "auto", "--mtbf=2h", "prog"});
  ASSERT_TRUE(a.ok) << a.error;
  EXPECT_TRUE(a.opts.ckpt.interval_auto);
  EXPECT_EQ(a.opts.ckpt.mtbf_ns, 7200'000'000'000u);
  CkptScheduleConfig c = schedule_config(a.opts.ckpt);
  EXPECT_TRUE(c.interval_auto);
  EXPECT_EQ(c.mtbf_ns, 7200'000'000'000u);
  ParseOutcome off = parse({"--ft-transparent", "--ckpt-interval=1s", "--ckpt-gc=off", "prog"});
  ASSERT_TRUE(off.ok) << off.error;
  EXPECT_FALSE(off.opts.ckpt.gc);
  ParseOutcome none = parse({"--ft-transparent", "prog"});
  ASSERT_TRUE(none.ok);
  EXPECT_FALSE(none.opts.ckpt.on);
}

TEST(CkptOptions, BadValuesGetOneLine) {
  const std::map<std::vector<std::string>, std::string> cases = {
      {{"--ckpt-interval=1s", "prog"}, "--ckpt-interval needs --ft-transparent (checkpoints serve transparent mode)"},
      {{"--ft-transparent", "--ckpt-interval=soon", "prog"},
       "--ckpt-interval=soon is not an interval; expected e.g. 30s, 500ms, 2m or auto"},
      {{"--ft-transparent", "--ckpt-interval=auto", "prog"},
       "--ckpt-interval=auto needs --mtbf (the mean time between failures)"},
      {{"--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=tape", "prog"},
       "--ckpt-store=tape is not a store; expected local, buddy or disk:DIR"},
      {{"--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=disk:", "prog"},
       "--ckpt-store=disk: is not a store; expected local, buddy or disk:DIR"},
      {{"--ft-transparent", "--ckpt-interval=1s", "--ckpt-policy=fifo", "prog"},
       "--ckpt-policy=fifo is not a policy; expected round-robin or adaptive"},
      {{"--ft-transparent", "--ckpt-interval=1s", "--mtbf=0s", "prog"},
       "--mtbf=0s is not a duration of at least 1s; expected e.g. 2h, 45m or 90s"},
      {{"--ft-transparent", "--ckpt-policy=adaptive", "prog"},
       "--ckpt-policy needs --ckpt-interval or --ckpt-log-trigger (when to checkpoint)"},
      {{"--ft-transparent", "--mtbf=2h", "prog"}, "--mtbf needs --ckpt-interval=auto"},
      {{"--ft-transparent", "--ckpt-interval"}, "--ckpt-interval needs a value"},
      {{"--ft-transparent", "--ckpt-max-concurrent=0", "--ckpt-interval=1s", "prog"},
       "--ckpt-max-concurrent needs a positive number"},
      {{"--ft-transparent", "--ckpt-intervals=1s", "prog"}, "unknown option '--ckpt-intervals=1s'"},
      {{"--ft-transparent", "--ckpt-interval=1s", "--ckpt-gc=maybe", "prog"}, "--ckpt-gc=maybe is not on or off"},
      {{"--ft-transparent", "--ckpt-gc=on", "prog"},
       "--ckpt-gc needs --ckpt-interval or --ckpt-log-trigger (when to checkpoint)"},
  };
  for (const auto& [args, msg] : cases) {
    ParseOutcome p = parse(args);
    EXPECT_FALSE(p.ok) << args[1];
    EXPECT_EQ(p.error, msg);
  }
}

TEST(CkptOptions, StoresThatNeedImageCaptureAreRefused) {
  ParseOutcome b = parse({"--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=buddy", "prog"});
  EXPECT_FALSE(b.ok);
  EXPECT_NE(b.error.find("--ckpt-store=buddy is not available in this build"), std::string::npos);
  EXPECT_NE(b.error.find("capture_self"), std::string::npos);
  ParseOutcome d = parse({"--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=disk:/tmp/x", "prog"});
  EXPECT_FALSE(d.ok);
  EXPECT_NE(d.error.find("--ckpt-store=disk:/tmp/x is not available in this build"), std::string::npos);
  EXPECT_EQ(d.error.find('\n'), std::string::npos);
}

TEST(CkptOptions, HugePagesForACheapFork) {
  CkptOptions on;
  on.on = true;
  EXPECT_EQ(ckpt_tunables(on, nullptr, false), "GLIBC_TUNABLES=glibc.malloc.hugetlb=1");
  EXPECT_EQ(ckpt_tunables(on, "glibc.malloc.arena_max=2", false),
            "GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  EXPECT_EQ(ckpt_tunables(on, "glibc.malloc.hugetlb=0", false), "");  // the user decided
  EXPECT_EQ(ckpt_tunables(on, nullptr, true), "");                    // FTMPI_CKPT_HUGEPAGES=0
  EXPECT_EQ(ckpt_tunables(CkptOptions{}, nullptr, false), "");        // no checkpoints
}

}  // namespace
}  // namespace ftmpi::rte

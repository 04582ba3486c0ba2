// ftmpirun's checkpoint options (src/rte/launcher/ckpt_options.hpp).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
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
  EXPECT_EQ(a.opts.ckpt.max_concurrent, 2) << "two processes checkpoint at once by default";
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
       "--ckpt-store=tape is not a store; expected local, memory, buddy or disk:DIR"},
      {{"--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=disk:", "prog"},
       "--ckpt-store=disk: is not a store; expected local, memory, buddy or disk:DIR"},
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

TEST(CkptOptions, BuddyAndDiskStores) {
  ParseOutcome b = parse({"--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=buddy", "prog"});
  ASSERT_TRUE(b.ok) << b.error;
  EXPECT_EQ(b.opts.ckpt.store, CkptStore::kBuddy);
  EXPECT_EQ(ckpt_store_env(b.opts.ckpt), "FTMPI_CKPT_STORE=buddy");
  // A missing directory is created with its parents; a relative one is made absolute.
  char tmpl[] = "/tmp/ckpt-opts-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string base = tmpl;
  ParseOutcome d = parse({"--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=disk:" + base + "/a/b/", "--ckpt-keep",
                          "prog"});
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_EQ(d.opts.ckpt.disk_dir, base + "/a/b");
  EXPECT_TRUE(d.opts.ckpt.keep);
  EXPECT_EQ(ckpt_store_env(d.opts.ckpt), "FTMPI_CKPT_STORE=disk:" + base + "/a/b");
  struct stat st {};
  EXPECT_EQ(stat((base + "/a/b").c_str(), &st), 0);
  // Not a directory, not writable: one line each, before anything starts.
  const std::string file = base + "/file";
  FILE* f = fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fclose(f);
  ParseOutcome nd = parse({"--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=disk:" + file, "prog"});
  EXPECT_FALSE(nd.ok);
  EXPECT_EQ(nd.error.find('\n'), std::string::npos);
  EXPECT_NE(nd.error.find("--ckpt-store=disk:" + file + ": "), std::string::npos) << nd.error;
  ParseOutcome under = parse({"--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=disk:" + file + "/x", "prog"});
  EXPECT_FALSE(under.ok);
  EXPECT_NE(under.error.find("cannot create the directory"), std::string::npos) << under.error;
  if (geteuid() != 0) {
    ASSERT_EQ(chmod((base + "/a").c_str(), 0500), 0);
    ParseOutcome ro = parse({"--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=disk:" + base + "/a", "prog"});
    EXPECT_FALSE(ro.ok);
    EXPECT_NE(ro.error.find("not writable"), std::string::npos) << ro.error;
    chmod((base + "/a").c_str(), 0700);
  }
  // The memory store: the host's shared memory, and never kept.
  ParseOutcome m = parse({"--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=memory", "prog"});
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.opts.ckpt.store, CkptStore::kMemory);
  EXPECT_EQ(ckpt_store_env(m.opts.ckpt),
            std::string("FTMPI_CKPT_STORE=memory:") + kMemoryStoreDir + "-" + std::to_string(getuid()));
  ParseOutcome mk = parse({"--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=memory", "--ckpt-keep", "prog"});
  EXPECT_FALSE(mk.ok);
  // --ckpt-keep only makes sense for disk images.
  ParseOutcome k = parse({"--ft-transparent", "--ckpt-interval=1s", "--ckpt-keep", "prog"});
  EXPECT_FALSE(k.ok);
  EXPECT_EQ(k.error, "--ckpt-keep needs --ckpt-store=disk:DIR (only disk images outlive the job)");
  EXPECT_EQ(system(("rm -rf " + base).c_str()), 0);
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
  CkptOptions memory = on;
  memory.store = CkptStore::kMemory;
  EXPECT_EQ(ckpt_tunables(memory, nullptr, false), "");  // no fork at all
}

}  // namespace
}  // namespace ftmpi::rte

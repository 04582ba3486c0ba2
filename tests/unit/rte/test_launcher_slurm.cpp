// ftmpirun inside a Slurm allocation: reading the node list and task counts,
// and the srun command line that starts the daemons.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "rte/launcher/slurm_alloc.hpp"
#include "rte/launcher/srun_agent.hpp"

namespace ftmpi::rte {
namespace {

std::vector<std::string> hostlist(const std::string& s) {
  std::vector<std::string> out;
  std::string err;
  EXPECT_TRUE(expand_slurm_hostlist(s, out, err)) << s << ": " << err;
  return out;
}

bool bad_hostlist(const std::string& s) {
  std::vector<std::string> out;
  std::string err;
  bool ok = expand_slurm_hostlist(s, out, err);
  return !ok && !err.empty();
}

TEST(SlurmAlloc, HostLists) {
  using V = std::vector<std::string>;
  EXPECT_EQ(hostlist("vm"), V{"vm"});
  EXPECT_EQ(hostlist("a,b"), (V{"a", "b"}));
  EXPECT_EQ(hostlist("n[1-3]"), (V{"n1", "n2", "n3"}));
  EXPECT_EQ(hostlist("n[08-11,20]"), (V{"n08", "n09", "n10", "n11", "n20"}));
  EXPECT_EQ(hostlist("gpu[1-2]-ib,login"), (V{"gpu1-ib", "gpu2-ib", "login"}));
  EXPECT_EQ(hostlist("x[7],y[001-002]"), (V{"x7", "y001", "y002"}));
  EXPECT_TRUE(bad_hostlist(""));
  EXPECT_TRUE(bad_hostlist("n[1-"));
  EXPECT_TRUE(bad_hostlist("n[3-1]"));
  EXPECT_TRUE(bad_hostlist("n[a-b]"));
  EXPECT_TRUE(bad_hostlist("n]1["));
  EXPECT_TRUE(bad_hostlist("r[1-2]c[1-2]"));  // Slurm never prints two groups in one name
}

TEST(SlurmAlloc, Counts) {
  std::vector<int> out;
  std::string err;
  ASSERT_TRUE(expand_slurm_counts("2(x3),1", out, err)) << err;
  EXPECT_EQ(out, (std::vector<int>{2, 2, 2, 1}));
  ASSERT_TRUE(expand_slurm_counts("8", out, err));
  EXPECT_EQ(out, std::vector<int>{8});
  for (const char* bad : {"", "0", "2(x0)", "2(x3", "x", "1,,2", "-1"}) {
    EXPECT_FALSE(expand_slurm_counts(bad, out, err)) << bad;
    EXPECT_NE(err.find("task counts"), std::string::npos);
  }
}

SlurmAllocation read(std::map<std::string, std::string> env, bool expect_ok = true) {
  SlurmAllocation a;
  std::string err;
  bool ok = read_slurm_allocation(
      [&env](const char* n) -> const char* {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
      },
      a, err);
  EXPECT_EQ(ok, expect_ok) << err;
  return a;
}

TEST(SlurmAlloc, FromEnvironment) {
  EXPECT_FALSE(read({}).inside);
  SlurmAllocation a = read({{"SLURM_JOB_ID", "42"}, {"SLURM_JOB_NODELIST", "n[1-3]"}, {"SLURM_TASKS_PER_NODE", "2(x2),4"},
                            {"SLURM_JOB_CPUS_PER_NODE", "16(x3)"}});
  ASSERT_TRUE(a.inside);
  EXPECT_EQ(a.job_id, "42");
  // Tasks win over CPUs: the allocation asked for tasks.
  EXPECT_EQ(a.hosts, (std::vector<HostSpec>{{"n1", 2}, {"n2", 2}, {"n3", 4}}));
  a = read({{"SLURM_JOB_ID", "7"}, {"SLURM_JOB_NODELIST", "a,b"}, {"SLURM_JOB_CPUS_PER_NODE", "4,8"}});
  EXPECT_EQ(a.hosts, (std::vector<HostSpec>{{"a", 4}, {"b", 8}}));
  a = read({{"SLURM_JOB_ID", "7"}, {"SLURM_NODELIST", "solo"}});
  EXPECT_EQ(a.hosts, (std::vector<HostSpec>{{"solo", 1}}));
  read({{"SLURM_JOB_ID", "7"}}, false);                                           // no node list
  read({{"SLURM_JOB_ID", "7"}, {"SLURM_JOB_NODELIST", "a,b"}, {"SLURM_TASKS_PER_NODE", "3"}}, false);  // 2 nodes, 1 count
}

TEST(SrunAgent, OneStepOneTaskPerNodeThatSurvivesATaskDeath) {
  DaemonLaunch a, b;
  a.host = 0;
  a.host_name = "n1";
  b.host = 1;
  b.host_name = "n2";
  a.bind_addr = "auto";
  b.bind_addr = "auto";
  a.launcher_addr = b.launcher_addr = "10.0.0.5";
  a.launcher_port = b.launcher_port = 4711;
  a.job_id = b.job_id = "99";
  std::vector<std::string> argv = srun_daemon_argv("/usr/bin/srun", "/opt/ftmpi/bin/ftmpid", {a, b});
  auto has = [&](const std::string& s) { return std::find(argv.begin(), argv.end(), s) != argv.end(); };
  EXPECT_EQ(argv.front(), "/usr/bin/srun");
  for (const char* opt : {"--nodes=2", "--ntasks=2", "--ntasks-per-node=1", "--nodelist=n1,n2", "--kill-on-bad-exit=0",
                          "--no-kill", "--input=all", "--mpi=none"})
    EXPECT_TRUE(has(opt)) << opt;
  auto daemon = std::find(argv.begin(), argv.end(), "/opt/ftmpi/bin/ftmpid");
  ASSERT_NE(daemon, argv.end());
  std::vector<std::string> tail(daemon + 1, argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"--launcher", "10.0.0.5:4711", "--host-by-node", "n1,n2", "--bind", "auto",
                                            "--job", "99"}));
  // Different bind addresses cannot share one command line: each daemon picks its own.
  a.bind_addr = "127.0.0.1";
  b.bind_addr = "127.0.0.1";
  argv = srun_daemon_argv("srun", "ftmpid", {a, b});
  EXPECT_TRUE(has("127.0.0.1"));
  b.bind_addr = "127.0.0.2";
  argv = srun_daemon_argv("srun", "ftmpid", {a, b});
  EXPECT_TRUE(has("auto"));
}

}  // namespace
}  // namespace ftmpi::rte

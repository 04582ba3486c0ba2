// ftmpirun's pure pieces: command line, host lists and hostfiles, placement,
// output tagging, and how the job's exit status and reason lines come about.
#include <gtest/gtest.h>

#include <map>

#include "rte/launcher/hosts.hpp"
#include "rte/launcher/options.hpp"
#include "rte/launcher/outcome.hpp"
#include "rte/launcher/output.hpp"

namespace ftmpi::rte {
namespace {

ParseOutcome parse(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
  return parse_command_line(args, [env](const char* n) -> const char* {
    auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

TEST(RteOptions, ProcessCountSpellings) {
  for (auto flag : {"-np", "-n", "-c", "--np"}) {
    ParseOutcome p = parse({flag, "6", "prog"});
    ASSERT_TRUE(p.ok) << flag << ": " << p.error;
    EXPECT_EQ(p.opts.np, 6);
  }
  EXPECT_EQ(parse({"--np=3", "prog"}).opts.np, 3);
  EXPECT_EQ(parse({"prog"}).opts.np, 0);  // not given
  EXPECT_FALSE(parse({"-np", "0", "prog"}).ok);
  EXPECT_FALSE(parse({"-np", "-2", "prog"}).ok);
  EXPECT_FALSE(parse({"-np", "4x", "prog"}).ok);
  ParseOutcome missing = parse({"-np"});
  EXPECT_FALSE(missing.ok);
  EXPECT_EQ(missing.error, "-np needs a number of processes");
}

TEST(RteOptions, ProgramAndItsArgumentsAreLeftAlone) {
  ParseOutcome p = parse({"-np", "2", "--tag-output", "prog", "-np", "9", "--tag-output"});
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.opts.program, "prog");
  EXPECT_EQ(p.opts.args, (std::vector<std::string>{"-np", "9", "--tag-output"}));
  EXPECT_TRUE(p.opts.tag_output);
  p = parse({"-n", "2", "--", "-weird-name", "x"});
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.opts.program, "-weird-name");
  EXPECT_EQ(p.opts.args, (std::vector<std::string>{"x"}));
  EXPECT_EQ(parse({"-n", "2"}).error, "no program to run");
  EXPECT_EQ(parse({"--frobnicate", "prog"}).error, "unknown option '--frobnicate'");
  EXPECT_TRUE(parse({"--help"}).opts.help);
}

TEST(RteOptions, ModesDefaultsOptionsAndEnvironment) {
  ParseOutcome p = parse({"prog"});
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.opts.modes, Modes{});
  EXPECT_EQ(p.opts.modes.comm, CommMode::kAbort);
  EXPECT_EQ(p.opts.modes.msg, MsgMode::kReset);
  EXPECT_EQ(p.opts.modes.coll, CollMode::kNonAtomic);
  EXPECT_EQ(p.opts.modes.recovery, RecoveryMode::kManual);

  p = parse({"--ft-comm-mode=rebuild", "--ft-msg-mode", "cont", "--ft-coll-mode=atomic",
             "--ft-recovery-mode=ignore", "prog"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.opts.modes, (Modes{CommMode::kRebuild, MsgMode::kCont, CollMode::kAtomic, RecoveryMode::kIgnore}));

  p = parse({"prog"}, {{"FTMPI_COMM_MODE", "shrink"}, {"FTMPI_RECOVERY_MODE", "auto"}});
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.opts.modes.comm, CommMode::kShrink);
  EXPECT_EQ(p.opts.modes.recovery, RecoveryMode::kAuto);

  p = parse({"--ft-comm-mode", "blank", "prog"}, {{"FTMPI_COMM_MODE", "shrink"}});
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.opts.modes.comm, CommMode::kBlank) << "the option wins over the environment";
  // An empty variable counts as unset.
  EXPECT_TRUE(parse({"prog"}, {{"FTMPI_MSG_MODE", ""}}).ok);
}

TEST(RteOptions, BadModesAreClearErrors) {
  ParseOutcome p = parse({"--ft-comm-mode=sideways", "prog"});
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "--ft-comm-mode=sideways is not a mode; expected abort, rebuild, blank or shrink");
  p = parse({"prog"}, {{"FTMPI_COLL_MODE", "mostly"}});
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "FTMPI_COLL_MODE=mostly is not a mode; expected atomic or nonatomic");
  p = parse({"--ft-msg-mode"});
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "--ft-msg-mode needs a value: reset or cont");
  // A bad variable is an error even when the option would override it.
  EXPECT_FALSE(parse({"--ft-recovery-mode=auto", "prog"}, {{"FTMPI_RECOVERY_MODE", "x"}}).ok);
}

TEST(RteOptions, TransparentMode) {
  ParseOutcome p = parse({"--ft-transparent", "prog"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.opts.modes.transparent, Transparent::kPessimist);
  EXPECT_EQ(p.opts.program, "prog") << "the bare option takes no value";
  p = parse({"--ft-transparent=pessimist", "prog"});
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.opts.modes.transparent, Transparent::kPessimist);
  for (const char* v : {"1", "pessimist"}) {
    p = parse({"prog"}, {{"FTMPI_TRANSPARENT", v}});
    ASSERT_TRUE(p.ok) << v;
    EXPECT_EQ(p.opts.modes.transparent, Transparent::kPessimist) << v;
  }
  EXPECT_EQ(parse({"prog"}).opts.modes.transparent, Transparent::kNone);
  p = parse({"--ft-transparent=optimist", "prog"});
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "--ft-transparent=optimist is not a protocol; expected pessimist");
  p = parse({"prog"}, {{"FTMPI_TRANSPARENT", "yes"}});
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "FTMPI_TRANSPARENT=yes is not a protocol; expected pessimist (or 1)");
  // Refused with any FT-MPI mode setting, option or variable, in one line.
  p = parse({"--ft-transparent", "--ft-comm-mode=rebuild", "prog"});
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error,
            "--ft-transparent and --ft-comm-mode=rebuild exclude each other: transparent mode hides failures, "
            "the FT-MPI modes report them");
  p = parse({"--ft-recovery-mode=auto", "prog"}, {{"FTMPI_TRANSPARENT", "1"}});
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error.find('\n'), std::string::npos);
  EXPECT_NE(p.error.find("FTMPI_TRANSPARENT=1 and --ft-recovery-mode=auto"), std::string::npos) << p.error;
  EXPECT_FALSE(parse({"--ft-transparent", "prog"}, {{"FTMPI_MSG_MODE", "cont"}}).ok);
}

TEST(RteOptions, HostsAndHostfile) {
  ParseOutcome p = parse({"--host", "a,b:3", "-H", "c", "prog"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.opts.hosts, (std::vector<HostSpec>{{"a", 0}, {"b", 3}, {"c", 0}}));
  p = parse({"--hostfile=hosts.txt", "prog"});
  ASSERT_TRUE(p.ok);
  EXPECT_EQ(p.opts.hostfile, "hosts.txt");
  EXPECT_EQ(parse({"--host", "a", "--hostfile", "f", "prog"}).error, "use either --host or --hostfile, not both");
  EXPECT_FALSE(parse({"--host", "a:0", "prog"}).ok);
  EXPECT_EQ(resolve_np(parse({"prog"}).opts, {}), 1);
  EXPECT_EQ(resolve_np(parse({"prog"}).opts, {{"a", 0}, {"b", 3}}), 4);
  EXPECT_EQ(resolve_np(parse({"-np", "2", "prog"}).opts, {{"a", 8}}), 2);
}

TEST(RteHosts, HostList) {
  std::vector<HostSpec> h;
  std::string err;
  ASSERT_TRUE(parse_host_list("n1,n2:4,,10.0.0.1", h, err));
  EXPECT_EQ(h, (std::vector<HostSpec>{{"n1", 0}, {"n2", 4}, {"10.0.0.1", 0}}));
  h.clear();
  EXPECT_FALSE(parse_host_list("", h, err));
  EXPECT_EQ(err, "empty host list");
  EXPECT_FALSE(parse_host_list("n1:x", h, err));
  EXPECT_FALSE(parse_host_list("bad name", h, err));
  EXPECT_FALSE(parse_host_list(":3", h, err));
}

TEST(RteHosts, HostfileText) {
  std::vector<HostSpec> h;
  std::string err;
  ASSERT_TRUE(parse_hostfile_text("# cluster\n\nn1\nn2 slots=2   # two cores\n  n3:3\n", h, err)) << err;
  EXPECT_EQ(h, (std::vector<HostSpec>{{"n1", 0}, {"n2", 2}, {"n3", 3}}));
  h.clear();
  EXPECT_FALSE(parse_hostfile_text("n1\nn2 cores=2\n", h, err));
  EXPECT_EQ(err, "line 2: cannot understand 'cores=2'");
  h.clear();
  EXPECT_FALSE(parse_hostfile_text("n1 slots=0\n", h, err));
  h.clear();
  EXPECT_FALSE(parse_hostfile_text("n1:2 slots=2\n", h, err));
  h.clear();
  EXPECT_FALSE(parse_hostfile_text("# nothing\n", h, err));
  EXPECT_EQ(err, "no hosts in the hostfile");
}

TEST(RteHosts, Placement) {
  using V = std::vector<int32_t>;
  auto p = place_ranks({}, 3, "me");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], (PlacedHost{"me", V{0, 1, 2}}));

  p = place_ranks({{"a", 2}, {"b", 2}}, 4, "me");
  EXPECT_EQ(p, (std::vector<PlacedHost>{{"a", V{0, 1}}, {"b", V{2, 3}}}));

  // Fewer ranks than slots: later hosts stay empty and are left out.
  p = place_ranks({{"a", 2}, {"b", 2}}, 2, "me");
  EXPECT_EQ(p, (std::vector<PlacedHost>{{"a", V{0, 1}}}));

  // Beyond the slots: round-robin, still contiguous per host.
  p = place_ranks({{"a", 0}, {"b", 0}}, 5, "me");
  EXPECT_EQ(p, (std::vector<PlacedHost>{{"a", V{0, 1, 2}}, {"b", V{3, 4}}}));

  // Repeated names add up.
  p = place_ranks({{"a", 1}, {"b", 1}, {"a", 2}}, 4, "me");
  EXPECT_EQ(p, (std::vector<PlacedHost>{{"a", V{0, 1, 2}}, {"b", V{3}}}));
}

TEST(RteHosts, LocalHosts) {
  EXPECT_TRUE(is_local_host("localhost", "node7.example.org"));
  EXPECT_TRUE(is_local_host("node7.example.org", "node7.example.org"));
  EXPECT_TRUE(is_local_host("node7", "node7.example.org"));
  EXPECT_TRUE(is_local_host("127.0.0.5", "node7"));
  EXPECT_FALSE(is_local_host("node8", "node7.example.org"));
  EXPECT_FALSE(is_local_host("10.0.0.1", "node7"));
  EXPECT_EQ(local_bind_address("127.0.0.5"), "127.0.0.5");
  EXPECT_EQ(local_bind_address("localhost"), "127.0.0.1");
}

struct Captured {
  std::string out, err;
  OutputRouter::Writer writer() {
    return [this](int stream, const std::string& b) { (stream == 2 ? err : out) += b; };
  }
};

TEST(RteOutput, TaggedLinesArePrefixedAndReassembled) {
  Captured c;
  OutputRouter r(true, c.writer());
  r.data(0, 1, "hel");
  r.data(1, 1, "one\ntw");
  r.data(0, 1, "lo\nwor");
  r.data(1, 2, "oops\n");
  EXPECT_EQ(c.out, "[1] one\n[0] hello\n");
  EXPECT_EQ(c.err, "[1] oops\n");
  EXPECT_TRUE(r.has_partial());
  r.flush_partial();  // no effect when tagging
  EXPECT_EQ(c.out, "[1] one\n[0] hello\n");
  r.eof(0, 1);
  EXPECT_EQ(c.out, "[1] one\n[0] hello\n[0] wor\n");
  r.flush_all();
  EXPECT_EQ(c.out, "[1] one\n[0] hello\n[0] wor\n[1] tw\n");
  EXPECT_FALSE(r.has_partial());
}

TEST(RteOutput, UntaggedKeepsLinesWholeAndFlushesPartials) {
  Captured c;
  OutputRouter r(false, c.writer());
  r.data(0, 1, "rank 0 li");
  r.data(1, 1, "rank 1 line\n");
  r.data(0, 1, "ne\nprompt> ");
  EXPECT_EQ(c.out, "rank 1 line\nrank 0 line\n");
  r.flush_partial();
  EXPECT_EQ(c.out, "rank 1 line\nrank 0 line\nprompt> ");
  r.data(0, 1, "tail");
  r.eof(0, 1);
  EXPECT_EQ(c.out, "rank 1 line\nrank 0 line\nprompt> tail") << "no newline added when untagged";
}

proto::ProcFailure failure(int slot, proto::ExitInfo e) {
  proto::ProcFailure f;
  f.seq = 1;
  f.who = ProcId{slot, 0};
  f.pid = 4242;
  f.host = 0;
  f.exit = e;
  return f;
}

proto::RankExit normal_exit(int slot, proto::ExitInfo e) {
  return proto::RankExit{ProcId{slot, 0}, 100 + slot, e, proto::EndKind::kNormal};
}

TEST(RteOutcome, ReasonLines) {
  using proto::ExitInfo;
  EXPECT_EQ(JobOutcome::failure_line(failure(3, {ExitInfo::kSignaled, 9}), "host0", false),
            "ftmpirun: rank 3 (pid 4242 on host0) was killed by signal 9 (SIGKILL)");
  EXPECT_EQ(JobOutcome::failure_line(failure(3, {ExitInfo::kExited, 7}), "host0", false),
            "ftmpirun: rank 3 (pid 4242 on host0) exited with status 7 before MPI_Finalize");
  EXPECT_EQ(JobOutcome::failure_line(failure(3, {ExitInfo::kSignaled, 9}), "host0", true),
            "ftmpirun: rank 3 (pid 4242 on host0) died: killed by signal 9 in epoch 0; survivors notified");
  EXPECT_EQ(JobOutcome::failure_line(failure(1, {ExitInfo::kExited, 0}), "h", true, 3),
            "ftmpirun: rank 1 (pid 4242 on h) died: exited with status 0 before MPI_Finalize in epoch 3; "
            "survivors notified");
  proto::ProcFailure again = failure(2, {ExitInfo::kLost, 0});
  again.who.incarnation = 2;
  EXPECT_EQ(JobOutcome::failure_line(again, "h", true, 1),
            "ftmpirun: rank 2 (pid 4242 on h) died: lost with its daemon (incarnation 2) in epoch 1; survivors notified");
  proto::AbortReport a{ProcId{2, 0}, 0, 77, 5, "bad input"};
  EXPECT_EQ(JobOutcome::abort_line(a, "h"), "ftmpirun: rank 2 (pid 77 on h) called MPI_Abort with code 5: bad input");
}

TEST(RteOutcome, ExitStatus) {
  using proto::ExitInfo;
  {
    JobOutcome o;
    for (int s = 0; s < 4; ++s) o.on_rank_exit(normal_exit(s, {ExitInfo::kExited, 0}));
    EXPECT_EQ(o.exit_status(), 0);
    EXPECT_TRUE(o.final_lines().empty());
  }
  {  // non-zero after finalize: the job takes the lowest such rank's status, no reason line
    JobOutcome o;
    o.on_rank_exit(normal_exit(3, {ExitInfo::kExited, 4}));
    o.on_rank_exit(normal_exit(1, {ExitInfo::kExited, 9}));
    o.on_rank_exit(normal_exit(0, {ExitInfo::kExited, 0}));
    EXPECT_EQ(o.exit_status(), 9);
    EXPECT_TRUE(o.final_lines().empty());
  }
  {  // abort mode failure: its status, one reason line; later causes do not change it
    JobOutcome o;
    o.on_failure(failure(2, {ExitInfo::kSignaled, 9}), "h", false);
    o.on_signal(2);
    o.on_failure(failure(3, {ExitInfo::kExited, 5}), "h", false);
    EXPECT_EQ(o.exit_status(), 137);
    ASSERT_EQ(o.final_lines().size(), 1u);
    EXPECT_NE(o.final_lines()[0].find("rank 2"), std::string::npos);
  }
  {  // an early exit 0 is still a failure
    JobOutcome o;
    o.on_failure(failure(0, {ExitInfo::kExited, 0}), "h", false);
    EXPECT_EQ(o.exit_status(), 1);
  }
  {  // MPI_Abort
    JobOutcome o;
    o.on_abort(proto::AbortReport{ProcId{1, 0}, 0, 5, 42, ""}, "h");
    EXPECT_EQ(o.exit_status(), 42);
    JobOutcome z;
    z.on_abort(proto::AbortReport{ProcId{1, 0}, 0, 5, 256, ""}, "h");
    EXPECT_EQ(z.exit_status(), 1) << "a code that truncates to 0 must not look like success";
  }
  {  // signals
    JobOutcome o;
    o.on_signal(2);
    EXPECT_EQ(o.exit_status(), 130);
    JobOutcome t;
    t.on_signal(15);
    EXPECT_EQ(t.exit_status(), 143);
  }
  {  // FT modes: survivors decide; nobody surviving is a failure
    JobOutcome o;
    o.on_failure(failure(1, {ExitInfo::kSignaled, 9}), "h", true);
    o.on_rank_exit(normal_exit(0, {ExitInfo::kExited, 0}));
    EXPECT_EQ(o.exit_status(), 0);
    EXPECT_TRUE(o.final_lines().empty());
    JobOutcome all_dead;
    all_dead.on_failure(failure(0, {ExitInfo::kSignaled, 9}), "h", true);
    EXPECT_EQ(all_dead.exit_status(), 1);
  }
  {
    JobOutcome o;
    o.on_daemon_lost("h2", "connection closed by peer");
    EXPECT_EQ(o.exit_status(), 1);
    ASSERT_EQ(o.final_lines().size(), 1u);
    EXPECT_EQ(o.final_lines()[0], "ftmpirun: lost the daemon on h2 (connection closed by peer); its ranks are gone");
  }
}

TEST(RteOptions, MultiHostOptions) {
  ParseOutcome p = parse({"--launch-agent", "ip netns exec", "-x", "OMP_NUM_THREADS", "-x", "A=1=2",
                          "--heartbeat-ms=50", "--heartbeat-timeout-ms", "300", "prog", "-x"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.opts.launch_agent, "ip netns exec");
  EXPECT_EQ(p.opts.export_env, (std::vector<std::string>{"OMP_NUM_THREADS", "A=1=2"}));
  EXPECT_EQ(p.opts.heartbeat_ms, 50);
  EXPECT_EQ(p.opts.heartbeat_timeout_ms, 300);
  EXPECT_EQ(p.opts.args, (std::vector<std::string>{"-x"})) << "options after the program are its own";
  EXPECT_EQ(parse({"prog"}).opts.launch_agent, "ssh");
  EXPECT_FALSE(parse({"-x", "1BAD-NAME", "prog"}).ok);
  EXPECT_FALSE(parse({"-x", "=v", "prog"}).ok);
  EXPECT_FALSE(parse({"--launch-agent", " ", "prog"}).ok);
  EXPECT_FALSE(parse({"--heartbeat-ms", "0", "prog"}).ok);
  ParseOutcome bad = parse({"--heartbeat-ms", "500", "--heartbeat-timeout-ms", "500", "prog"});
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("must be larger"), std::string::npos);
}

TEST(RteHosts, SourceAddressTowardsAHost) {
  EXPECT_EQ(source_address_towards("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(source_address_towards("no such host name.invalid"), "");
}

}  // namespace
}  // namespace ftmpi::rte

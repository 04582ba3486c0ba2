"""Runtime side of transparent mode (issue 16), independent of the logging
module: rte_tlog (tests/rte/rte_tlog.cpp) logs determinant batches through
rte::Client, kills itself (or is killed), and each restarted incarnation
checks what the event logger gives back. Here we check that the job ends
well, that every output line appears exactly once, the launcher's lines,
the timeline, and no process left behind.

    rte_tlog_cases.py CASE --ftmpirun PATH --tlog PATH
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rte_jobs import Failure, expect, expect_code, run, run_case  # noqa: E402

SUMMARY = re.compile(r"^ftmpirun: job survived (\d+) failures? \((\d+) replays? caught up, \d+ ms replaying\)$", re.M)


def tlog_run(ctx, np, app_args, launcher=(), env=None, timeout=90, ending=False):
    """Runs rte_tlog under --ft-transparent; returns (job, trace lines).
    `ending`: the job is ended by the runtime (survivors hear JOB_ABORT)."""
    with tempfile.NamedTemporaryFile("r", suffix=".trace", delete=False) as t:
        path = t.name
    try:
        prog = [ctx.tlog, *app_args, f"trace={path}", "--marker", "MARKER"]
        j = run(ctx, ["-np", str(np), "--ft-transparent", *launcher], program=prog, env=env, timeout=timeout)
        with open(path) as f:
            trace = [line.split() for line in f]
    finally:
        os.unlink(path)
    errors = re.findall(r"APP ERROR: (.*)$", j.out, re.M)
    if ending:
        errors = [e for e in errors if not e.startswith("job aborted")]
    expect(not errors, f"a process found a wrong answer from the runtime: {errors}")
    return j, trace


def expect_output_once(j, np, batches):
    """Each rank's lines 'rank R rec 1..N' and its final line, each exactly once and in order."""
    for r in range(np):
        recs = [int(g) for g in re.findall(rf"^rank {r} rec (\d+)$", j.out, re.M)]
        expect(recs == list(range(1, batches + 1)), f"rank {r} printed records {recs}, expected 1..{batches} once")
        finals = re.findall(rf"^rank {r} final records (\d+)$", j.out, re.M)
        expect(finals == [str(batches)], f"rank {r} final lines {finals}")
    expect(len(j.out.splitlines()) == np * (batches + 1), "stray output lines:\n" + j.out)


def fetched(trace, slot):
    """{incarnation: records fetched} from the trace."""
    return {int(t[1]): int(t[3]) for t in trace if t[2] == "fetched" and int(t[0]) == slot}


def expect_nothing_lost(trace, slot):
    """Each incarnation fetched at least every record its predecessors had acknowledged."""
    got = fetched(trace, slot)
    for inc, m in got.items():
        acked = [int(t[3]) for t in trace if t[2] == "acked" and int(t[0]) == slot and int(t[1]) < inc]
        expect(m >= max(acked, default=0), f"rank {slot} incarnation {inc} fetched {m} records, "
                                            f"but {max(acked)} were acknowledged")
    return got


def expect_restart_lines(j, slot, incarnations, host=r"\S+"):
    for inc in range(1, incarnations + 1):
        expect(re.search(rf"^ftmpirun: restarting rank {slot} as incarnation {inc} on {host}$", j.err, re.M),
               f"no restart line for rank {slot} incarnation {inc}")
        expect(re.search(rf"^ftmpirun: rank {slot} caught up after \d+ ms \(incarnation {inc}: \d+ determinants",
                         j.err, re.M), f"no caught-up line for rank {slot} incarnation {inc}")
    fails = re.findall(rf"^ftmpirun: rank {slot} \(pid \d+ on \S+\) died: .*; restarting it$", j.err, re.M)
    expect(len(fails) == incarnations, f"rank {slot}: {len(fails)} failure lines, expected {incarnations}")


def expect_summary(j, failures):
    expect_summary_counts(j, failures, failures)


def expect_summary_counts(j, failures, replays):
    m = SUMMARY.search(j.err)
    expect(m, "no transparent summary line")
    expect(int(m.group(1)) == failures and int(m.group(2)) == replays,
           f"summary: {m.group(0)}, expected {failures} failures and {replays} replays")


def self_kills(ctx, np, victims, after, times=1, batches=12, launcher=()):
    j, trace = tlog_run(ctx, np, [f"batches={batches}", f"victims={','.join(map(str, victims))}", f"after={after}",
                                  f"times={times}"], launcher=launcher)
    expect_code(j, 0)
    expect_output_once(j, np, batches)
    for v in victims:
        got = fetched(trace, v)
        want = {inc: after * inc for inc in range(1, times + 1)}
        expect(got == want, f"rank {v} fetched {got}, expected {want} (exactly what was acknowledged)")
        expect_restart_lines(j, v, times)
    expect_summary(j, len(victims) * times)
    expect("recovery round" not in j.err, "a recovery round in transparent mode")
    return j, trace


def case_tlog_restart_np4(ctx):
    j, trace = self_kills(ctx, 4, [1], after=4)
    # Survivors that were still running when rank 1 came back heard of it in order
    # (rte_tlog checks PROC_FAILED before PROC_RESTARTED itself).
    finals = [t for t in trace if t[2] == "final"]
    expect(sorted(int(t[0]) for t in finals) == [0, 1, 2, 3], f"final trace lines {finals}")
    for t in finals:
        expect(int(t[4]) >= int(t[5]), f"rank {t[0]} heard of more restarts than failures: {t}")
        # One host: batches go into the daemon's staging area, stable as written.
        expect(int(t[6]) > 0, f"rank {t[0]} staged no batch on a single host: {t}")


def case_tlog_rank0_three_times(ctx):
    # The same slot (rank 0, stdin's rank) dies three times; each incarnation fetches all before it.
    self_kills(ctx, 4, [0], after=3, times=3)


def case_tlog_two_at_once_np8(ctx):
    # Two slots die at the same point of their run (within a millisecond or so), twice each.
    self_kills(ctx, 8, [2, 5], after=4, times=2)


def case_tlog_kill_in_replay(ctx):
    # Incarnation 1 of rank 3 dies in the middle of its replay (after fetching
    # and printing half of what it replays); incarnation 2 fetches the same.
    j, trace = tlog_run(ctx, 4, ["batches=12", "victims=3", "after=6", "replay_kill=1"])
    expect_code(j, 0)
    expect_output_once(j, 4, 12)
    got = fetched(trace, 3)
    expect(got == {1: 6, 2: 6}, f"rank 3 fetched {got}, expected 6 records in incarnations 1 and 2")
    expect(re.search(r"^ftmpirun: rank 3 caught up after \d+ ms \(incarnation 2: ", j.err, re.M), "no caught-up line")
    expect(not re.search(r"caught up .*\(incarnation 1: ", j.err), "incarnation 1 never caught up")
    expect_summary_counts(j, 2, 1)


def case_tlog_kill_in_fence(ctx):
    # Rank 2 dies inside its finalize fence while the others still compute: it is
    # restarted (its sender log died with it), fetches all it logged, and the
    # others, waiting in the fence without blocking, hear of the failure and
    # the restart before the fence completes.
    j, trace = tlog_run(ctx, 4, ["batches=8", "victims=2", "fence_kill=1", "linger=400"])
    expect_code(j, 0)
    expect_output_once(j, 4, 8)
    expect(fetched(trace, 2) == {1: 8}, f"rank 2 fetched {fetched(trace, 2)}, expected 8 records")
    expect_restart_lines(j, 2, 1)
    expect("not respawned" not in j.err, "the launcher says the rank was not restarted")
    finals = {int(t[0]): t for t in trace if t[2] == "final"}
    expect(sorted(finals) == [0, 1, 2, 3], f"final lines {finals}")
    for r in (0, 1, 3):
        expect(finals[r][4:6] == ["1", "1"], f"rank {r} saw failures/restarts {finals[r][4:6]}, expected 1/1")
    expect_summary(j, 1)


def case_tlog_exit_ends_the_job(ctx):
    # A process that exits by itself before MPI_Finalize is not restarted (its
    # replay would exit again): the job ends with its status, as in abort mode.
    j, trace = tlog_run(ctx, 4, ["batches=30", "victims=1", "after=3", "exit=4"], ending=True)
    expect_code(j, 4)
    expect(re.search(r"^ftmpirun: rank 1 \(pid \d+ on \S+\) exited with status 4 before MPI_Finalize$", j.err, re.M),
           "no reason line")
    expect("restarting" not in j.err, "restarted a process that exited by itself")
    expect(not fetched(trace, 1), "an incarnation 1 ran")


def case_tlog_two_hosts(ctx):
    # Batches are replicated to the other host's daemon before they are acknowledged.
    j, trace = self_kills(ctx, 4, [1, 3], after=4, launcher=["--host", "127.0.0.2:2,127.0.0.3:2"])
    # With a buddy host no batch is stable before its replica is.
    for t in (t for t in trace if t[2] == "final"):
        expect(int(t[6]) == 0, f"rank {t[0]} staged batches with a buddy host: {t}")


def case_tlog_leader_ranks_two_hosts(ctx):
    # The leader daemon's ranks replicate to its first child.
    self_kills(ctx, 4, [0], after=5, times=2, launcher=["--host", "127.0.0.2:2,127.0.0.3:2"])


def case_tlog_injected_kill(ctx):
    # Killed from outside while logging (batches may be outstanding): the next
    # incarnation gets records 1..M, whole and in order, and output stays once.
    batches = 40
    j, trace = tlog_run(ctx, 4, [f"batches={batches}", "check=prefix", "gap=20"],
                        launcher=["--inject", "kill rank=2 at=0.3s", "--inject", "kill rank=0 at=0.5s"])
    expect_code(j, 0)
    expect_output_once(j, 4, batches)
    for r in (0, 2):
        expect(1 in expect_nothing_lost(trace, r), f"rank {r} did not restart")
        expect_restart_lines(j, r, 1)
    expect_summary(j, 2)


def case_tlog_random_kills_np8(ctx):
    # Six seeded random kills 150 ms apart (a slot may die again, also while
    # it replays); every restarted incarnation gets all that was acknowledged.
    batches = 50
    j, trace = tlog_run(ctx, 8, [f"batches={batches}", "check=prefix", "gap=20"],
                        launcher=["--inject", "kill random at=0.2s every=150ms count=6", "--inject-seed", "3"])
    expect_code(j, 0)
    expect_output_once(j, 8, batches)
    restarted = sorted({int(t[0]) for t in trace if t[2] == "fetched"})
    for r in restarted:
        expect_nothing_lost(trace, r)
    kills = len(re.findall(r"^ftmpirun: rank \d+ \(pid \d+ on \S+\) died: killed by signal 9.*; restarting it$",
                           j.err, re.M))
    expect(kills == 6, f"{kills} kills, expected 6")
    expect_summary(j, 6)


def host_lost(ctx, np, hosts, lost, moved, to, env=None):
    """Host `lost` of `hosts` dies while rte_tlog runs: ranks `moved` restart on
    `to` and fetch all their acknowledged log; output stays once."""
    batches = 40
    j, trace = tlog_run(ctx, np, [f"batches={batches}", "check=prefix", "gap=20"],
                        launcher=["--host", hosts, "--inject", f"kill host={lost} at=0.4s"], env=env)
    expect_code(j, 0)
    expect_output_once(j, np, batches)
    for r in moved:
        got = expect_nothing_lost(trace, r)
        expect(1 in got and got[1] > 0, f"rank {r} fetched {got}: its log was lost with its host")
        expect_restart_lines(j, r, 1, host=re.escape(to))
    return j


def case_tlog_host_lost(ctx):
    # Three local "hosts" in a chain (fanout 1): 127.0.0.3's buddy is 127.0.0.2
    # and it is the buddy of 127.0.0.4. Losing it: its ranks move to 127.0.0.4
    # and get their log from 127.0.0.2 (through the leader); 127.0.0.4's log
    # goes to its new buddy. Nothing acknowledged is lost, output stays once.
    j = host_lost(ctx, 6, "127.0.0.2:2,127.0.0.3:2,127.0.0.4:2", "127.0.0.3", (2, 3), "127.0.0.4",
                  env={"FTMPI_TREE_FANOUT": "1"})
    expect_summary(j, 2)


def case_tlog_leader_host_lost(ctx):
    # The leader's host goes: the next daemon leads, the leader's ranks move and
    # fetch their log from its buddy (its first child).
    host_lost(ctx, 4, "127.0.0.2:2,127.0.0.3:2", "127.0.0.2", (0, 1), "127.0.0.3")


def case_tlog_timeline(ctx):
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", delete=False) as t:
        path = t.name
    try:
        j, _ = tlog_run(ctx, 3, ["batches=8", "victims=2", "after=3"], launcher=["--timeline", path])
        expect_code(j, 0)
        with open(path) as f:
            events = [json.loads(line) for line in f]
    finally:
        os.unlink(path)
    by = {}
    for e in events:
        by.setdefault(e["event"], []).append(e)
    expect(by["job_start"][0]["transparent"] == "pessimist", "job_start lacks the transparent mode")
    expect([e["rank"] for e in by.get("restart", [])] == [2], f"restart events {by.get('restart')}")
    start, end = by.get("replay_start", []), by.get("replay_end", [])
    expect(len(start) == 1 and len(end) == 1, "one replay_start and one replay_end expected")
    expect(start[0]["rank"] == 2 and start[0]["incarnation"] == 1 and start[0]["determinants"] == 3, f"{start}")
    expect(end[0]["determinants"] == 3 and "messages" in end[0] and "suppressed" in end[0], f"{end}")
    expect(end[0]["since_failure_ms"] > 0, "caught up 0 ms after the failure")
    expect(by["death"][0]["t"] <= by["restart"][0]["t"] <= start[0]["t"] <= end[0]["t"], "timeline order")
    expect(by["job_end"][0]["replays"] == 1, f"job_end {by['job_end']}")
    expect("recovery_begin" not in by, "a recovery round in transparent mode")


def case_tlog_refused_with_ft_modes(ctx):
    for args, env in ((["--ft-transparent", "--ft-comm-mode=rebuild"], {}),
                      (["--ft-recovery-mode=auto"], {"FTMPI_TRANSPARENT": "1"}),
                      (["--ft-transparent"], {"FTMPI_MSG_MODE": "cont"})):
        p = subprocess.run([ctx.ftmpirun, "-np", "2", *args, ctx.tlog], capture_output=True, text=True, timeout=30,
                           env={**os.environ, **env})
        expect(p.returncode == 2, f"{args} {env}: exit {p.returncode}, expected 2")
        lines = p.stderr.strip().splitlines()
        # One line saying why (then the usual pointer to --help).
        expect("exclude each other" in lines[0] and not any("exclude" in x for x in lines[1:]),
               f"{args} {env}: stderr {p.stderr!r}")
    p = subprocess.run([ctx.ftmpirun, "--ft-transparent=optimist", ctx.tlog], capture_output=True, text=True,
                       timeout=30)
    expect(p.returncode == 2 and "not a protocol" in p.stderr, f"bad protocol: {p.stderr!r}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--ftmpirun", required=True)
    ap.add_argument("--tlog", required=True)
    ctx = ap.parse_args()
    fn = globals().get("case_" + ctx.case)
    return run_case(ctx, fn)


if __name__ == "__main__":
    sys.exit(main())

"""Transparent mode's event logger across real hosts (network namespaces; issue 16).

    netns_tlog_cases.py FTMPIRUN RTE_TLOG CASE [TM_CASES]

rte_tlog (tests/rte/rte_tlog.cpp) logs determinant batches through
rte::Client and prints a line per acknowledged batch. A whole host is lost
while it runs; its ranks restart on the next live host and must fetch every
batch their dead incarnation had acknowledged (from the replica on the lost
host's buddy), while the hosts whose buddy was lost re-replicate. Every output
line appears once. tlog_mpi_hosts does the same with a real MPI program
under the logging module (tests/mpi/transparent/tm_cases). Exit 77 (skip)
where namespaces cannot be created.
"""
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns_cases  # noqa: E402
from netns_cases import HB, Failure, Job, addr, expect, hostlist, lost_line  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi", "transparent"))
from run_traced import check_trace, read_trace  # noqa: E402

BATCHES = 60


def tlog_job(cl, hosts, np, trace, env=None):
    args = HB + ["--host", hosts, "-np", str(np), "--ft-transparent", TLOG, f"batches={BATCHES}", "check=prefix",
                 "gap=25", f"trace={trace}"]
    return Job(cl, 0, args, env=env)


def check(j, trace_path, np, moved, to_host):
    j.finish(timeout=80)
    with open(trace_path) as f:
        trace = [line.split() for line in f]
    if j.code != 0 or "APP ERROR" in j.out:
        j.dump()
        raise Failure(f"exit {j.code}")
    for r in range(np):
        recs = [int(g) for g in re.findall(rf"^rank {r} rec (\d+)$", j.out, re.M)]
        expect(recs == list(range(1, BATCHES + 1)), f"rank {r} printed {recs}, expected 1..{BATCHES} once each")
    for r in moved:
        got = {int(t[1]): int(t[3]) for t in trace if t[2] == "fetched" and int(t[0]) == r}
        acked = max([int(t[3]) for t in trace if t[2] == "acked" and int(t[0]) == r and int(t[1]) == 0], default=0)
        expect(1 in got, f"rank {r} did not restart")
        expect(acked > 0 and got[1] >= acked,
               f"rank {r} fetched {got[1]} records but its lost incarnation had {acked} acknowledged")
        expect(re.search(rf"^ftmpirun: restarting rank {r} as incarnation 1 on {re.escape(addr(to_host))}$", j.err,
                         re.M), f"rank {r} not restarted on {addr(to_host)}")
        expect(re.search(rf"^ftmpirun: rank {r} caught up after \d+ ms", j.err, re.M), f"rank {r} never caught up")
        print(f"rank {r}: {acked} acknowledged before the loss, {got[1]} fetched after it")


def lose_host(cl, lose, lost_pattern, moved, to_host, after_rank, env=None):
    """rte_tlog on h1..h3 (6 ranks); once `after_rank` acknowledged 15 batches,
    `lose()` breaks a host; ranks `moved` must restart on `to_host` with their log."""
    fd, path = tempfile.mkstemp(suffix=".trace")
    os.close(fd)
    try:
        j = tlog_job(cl, hostlist(1, 3), 6, path, env=env)
        j.wait_line("out", rf"^rank {after_rank} rec 15$")
        lose()
        j.wait_line("err", lost_pattern)
        check(j, path, 6, moved=moved, to_host=to_host)
    finally:
        os.unlink(path)


def case_tlog_buddy_host(cl):
    """Chain h1 -> h2 -> h3 (fanout 1): h2 holds the replicas of h1 and h3 and is lost.
    Its ranks (2, 3) move to h3 and fetch their log from h1 (h2's buddy); h3 and h1
    re-replicate to their new buddies."""
    lose_host(cl, lambda: cl.kill_host(2), lost_line(addr(2)), (2, 3), 3, after_rank=2, env={"FTMPI_TREE_FANOUT": "1"})


def case_tlog_leader_silent(cl):
    """The leader's host goes silent (link down): its ranks move to the next host,
    which holds their replica (the root's first child)."""
    lose_host(cl, lambda: cl.link_down(1), lost_line(addr(1)) + r".*leads now", (0, 1), 2, after_rank=0)


def wait_decisions(j, path, rank, count, timeout=60):
    """Until `rank` traced `count` decisions (any incarnation)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        incs = read_trace(path).get(rank, [])
        if incs and max(len(d) for _, d in incs) >= count:
            return
        if j.p.poll() is not None:
            break
        time.sleep(0.1)
    j.dump()
    raise Failure(f"rank {rank} never traced {count} decisions")


def case_tlog_mpi_hosts(cl):
    """A real MPI program under message logging (tm_cases anysource: rank 0 on
    h1 takes every message with MPI_ANY_SOURCE, one determinant each) on a
    fanout-1 chain h1 -> h2 -> h3. h2, the buddy holding h1's event-log
    replica, is lost first: its ranks restart on h3 and h1 re-replicates. Then
    h1 itself is lost with rank 0: rank 0 restarts on h3 with the determinants
    of that new replica and must replay every decision its dead incarnation
    made; the result is that of a consistent run, printed once."""
    fd, path = tempfile.mkstemp(suffix=".trace")
    os.close(fd)
    try:
        args = HB + ["--host", hostlist(1, 3), "-np", "6", "--ft-transparent", TM_CASES, "anysource", path, "1500"]
        j = Job(cl, 0, args, env={"FTMPI_TREE_FANOUT": "1"})
        wait_decisions(j, path, 0, 200)
        cl.kill_host(2)
        j.wait_line("err", lost_line(addr(2)))
        for r in (2, 3):
            j.wait_line("err", rf"^ftmpirun: rank {r} caught up after \d+ ms", timeout=60)
        before = max(len(d) for _, d in read_trace(path)[0])
        wait_decisions(j, path, 0, before + 200)
        cl.kill_host(1)
        j.wait_line("err", lost_line(addr(1)))
        j.finish(timeout=120)
        if j.code != 0 or "CHECK FAILED" in j.out + j.err:
            j.dump()
            raise Failure(f"exit {j.code}")
        expect(len(re.findall(r"^anysource: ok ", j.out, re.M)) == 1, "no single result line from rank 0")
        for r in (0, 1, 2, 3):
            expect(re.search(rf"^ftmpirun: restarting rank {r} as incarnation 1 on {re.escape(addr(3))}$", j.err,
                             re.M), f"rank {r} not restarted on {addr(3)}")
            expect(re.search(rf"^ftmpirun: rank {r} caught up after \d+ ms", j.err, re.M), f"rank {r} never caught up")
        failures = check_trace("anysource", path, j.out, 2)
        incs = read_trace(path)[0]
        expect(len(incs) == 2, f"rank 0 traced from {len(incs)} processes, expected 2")
        print(f"rank 0: {len(incs[0][1])} decisions before h1 was lost, all made again by its replay")
        expect(not failures, "; ".join(failures))
    finally:
        os.unlink(path)


CASES = {
    "tlog_buddy_host": (4, case_tlog_buddy_host),
    "tlog_leader_silent": (4, case_tlog_leader_silent),
    "tlog_mpi_hosts": (4, case_tlog_mpi_hosts),
}


def main():
    global TLOG, TM_CASES
    netns_cases.FTMPIRUN, TLOG, name = sys.argv[1], sys.argv[2], sys.argv[3]
    TM_CASES = sys.argv[4] if len(sys.argv) > 4 else None
    return netns_cases.run_case(CASES, name)


if __name__ == "__main__":
    sys.exit(main())

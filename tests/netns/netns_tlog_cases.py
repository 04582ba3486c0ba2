"""Transparent mode's event logger across real hosts (network namespaces; issue 16).

    netns_tlog_cases.py FTMPIRUN RTE_TLOG CASE

rte_tlog (tests/rte/rte_tlog.cpp) logs determinant batches through
rte::Client and prints a line per acknowledged batch. A whole host is lost
while it runs; its ranks restart on the next live host and must fetch every
batch their dead incarnation had acknowledged (from the replica on the lost
host's buddy), while the hosts whose buddy was lost re-replicate. Every output
line appears once. Exit 77 (skip) where namespaces cannot be created.
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns_cases  # noqa: E402
from netns_cases import HB, Failure, Job, addr, expect, hostlist, lost_line  # noqa: E402
from netns_hosts import SKIP, Cluster  # noqa: E402

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


def case_tlog_buddy_host(cl):
    """Chain h1 -> h2 -> h3 (fanout 1): h2 holds the replicas of h1 and h3 and is lost.
    Its ranks (2, 3) move to h3 and fetch their log from h1 (h2's buddy); h3 and h1
    re-replicate to their new buddies."""
    with tempfile.NamedTemporaryFile("r", suffix=".trace", delete=False) as t:
        path = t.name
    try:
        j = tlog_job(cl, hostlist(1, 3), 6, path, env={"FTMPI_TREE_FANOUT": "1"})
        j.wait_line("out", r"^rank 2 rec 15$")
        cl.kill_host(2)
        j.wait_line("err", lost_line(addr(2)))
        check(j, path, 6, moved=(2, 3), to_host=3)
    finally:
        os.unlink(path)


def case_tlog_leader_silent(cl):
    """The leader's host goes silent (link down): its ranks move to the next host,
    which holds their replica (the root's first child)."""
    with tempfile.NamedTemporaryFile("r", suffix=".trace", delete=False) as t:
        path = t.name
    try:
        j = tlog_job(cl, hostlist(1, 3), 6, path)
        j.wait_line("out", r"^rank 0 rec 15$")
        cl.link_down(1)
        j.wait_line("err", lost_line(addr(1)) + r".*leads now")
        check(j, path, 6, moved=(0, 1), to_host=2)
    finally:
        os.unlink(path)


CASES = {
    "tlog_buddy_host": (4, case_tlog_buddy_host),
    "tlog_leader_silent": (4, case_tlog_leader_silent),
}


def main():
    global TLOG
    netns_cases.FTMPIRUN, TLOG, name = sys.argv[1], sys.argv[2], sys.argv[3]
    ok, why = Cluster.permitted()
    if not ok:
        print(f"SKIP: {why}")
        return SKIP
    hosts, fn = CASES[name]
    with Cluster(name, hosts) as cl:
        try:
            fn(cl)
        except Failure as e:
            print(f"FAIL ({name}): {e}")
            return 1
    print(f"ok ({name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

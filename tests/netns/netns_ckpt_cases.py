"""Checkpoint stores across real hosts (network namespaces; issue 17,
spec/checkpoint-protocol.md §2a, §5a).

    netns_ckpt_cases.py FTMPIRUN CKPT_SOLVER CASE

ckpt_buddy_host: the iterative solver (tests/mpi/ckpt) on h1..h3, two ranks
per host, checkpoints every 2 s into the buddy store. Each image goes to
the next host's daemon; once both ranks of h2 have one there, h2 is lost as
a whole (every process killed, no word). Its ranks are adopted by h3, which
holds their images and starts their restorers from its memory; the job ends
with the failure-free result. Exit 77 (skip) where namespaces cannot be
created.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netns_cases  # noqa: E402
from netns_cases import Failure, Job, addr, expect, hostlist, lost_line  # noqa: E402

# 2 MiB per rank every 2 s: six ranks on this machine's two cores pay about
# 0.1 ms per 4 KiB page written again after each checkpoint's fork, and the
# images stream while they compute; 16 MiB every 700 ms never caught up and
# starved the daemons' heartbeats.
SOLVER_ARGS = ["2", "4000"]
# The other cases' 500 ms heartbeat timeout declared live hosts lost while
# their ranks' frozen copies streamed images at load 14 (a daemon waits its
# turn behind every compute and copy process of its host); a lost host is
# still seen within 3 s.
HB = ["--heartbeat-ms", "200", "--heartbeat-timeout-ms", "3000"]


def case_ckpt_buddy_host(cl):
    ref = Job(cl, 0, HB + ["--host", hostlist(1, 3), "-np", "6", SOLVER] + SOLVER_ARGS).finish(timeout=150)
    if ref.code != 0:
        ref.dump()
        raise Failure(f"the failure-free run exited {ref.code}")
    args = HB + ["--host", hostlist(1, 3), "-np", "6", "--ft-transparent", "--summary", "--ckpt-interval=2s",
                 "--ckpt-store=buddy", SOLVER] + SOLVER_ARGS
    j = Job(cl, 0, args, env={"FTMPI_DEBUG": "2"})
    # Ranks 2 and 3 live on h2; their images go to h3.
    for r in (2, 3):
        j.wait_line("err", rf"^ftmpirun: checkpoint \d+ of rank {r}: .*, buddy {re.escape(addr(3))}: [\d.]+ MiB in "
                    rf"[\d.]+ ms \(\d+ MiB/s\)$", timeout=90)
    cl.kill_host(2)
    j.wait_line("err", lost_line(addr(2)))
    j.finish(timeout=200)
    if j.code != 0 or j.out != ref.out:
        j.dump()
        raise Failure(f"exit {j.code}; stdout {'equals' if j.out == ref.out else 'differs from'} the failure-free run")
    try:
        check_restored(j)
    except Failure:
        j.dump()
        raise
    rates = [float(m.group(1)) for m in re.finditer(r", buddy [\d.]+: [\d.]+ MiB in [\d.]+ ms \((\d+) MiB/s\)$",
                                                    j.err, re.M)]
    expect(rates, "no buddy transfer figures")
    expect(re.search(r"; \d+ stored \([\d.]+ MiB in [\d.]+ ms \(\d+ MiB/s\)\), 0 not;", j.err),
           "no stored totals in the summary")
    rates.sort()
    print(f"{len(rates)} buddy images, median {rates[len(rates) // 2]:.0f} MiB/s; h2's ranks restored on h3")


def check_restored(j):
    for r in (2, 3):
        expect(re.search(rf"^ftmpirun: restarting rank {r} as incarnation \d+ on {re.escape(addr(3))}$", j.err, re.M),
               f"rank {r} was not restarted on h3")
        expect(re.search(rf"^ftmpirun: rank {r} restarts from checkpoint \d+ \(buddy image", j.err, re.M),
               f"rank {r} was not restored from h3's buddy memory")
    expect(not re.search(r"did not come back from stored image", j.err), "a restored process did not resume")


CASES = {
    "ckpt_buddy_host": (4, case_ckpt_buddy_host),
}


def main():
    global SOLVER
    netns_cases.FTMPIRUN, SOLVER, name = sys.argv[1], sys.argv[2], sys.argv[3]
    return netns_cases.run_case(CASES, name)


if __name__ == "__main__":
    sys.exit(main())

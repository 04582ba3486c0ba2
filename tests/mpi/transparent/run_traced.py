#!/usr/bin/env python3
"""Runs a tm_cases job (through tests/tools/run_job.py) with a fresh trace
file, then checks the trace: every rank's incarnations made the same
decisions (a dead incarnation's traced decisions were logged, so its replay
must make them again), and the result the job printed is the one the final
incarnations' decisions give.

  run_traced.py --case C [--min-incarnations N] -- RUN_JOB_OPTIONS -- mpirun ... tm_cases C @TRACE@ ITER
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

M64 = (1 << 64) - 1


def read_trace(path):
    """rank -> list of (pid, {k: decision}) in order of first appearance."""
    by_rank = collections.defaultdict(collections.OrderedDict)
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 4:
                continue  # a line cut by a kill
            rank, pid, k, d = int(parts[0]), int(parts[1]), int(parts[2]), parts[3]
            by_rank[rank].setdefault(pid, {})[k] = d
    return {r: list(v.items()) for r, v in by_rank.items()}


def expected_result(case, decisions):
    ks = sorted(decisions)
    h = 1
    if case == "anysource":
        for k in ks:
            h = (h * 31 + int(decisions[k])) & M64
        return f"hash={h}"
    if case == "iprobe":
        for k in ks:
            src, polls = decisions[k].split("/")
            h = (h * 31 + int(src) * 1000003 + int(polls)) & M64
        return f"hash={h}"
    if case == "harvest":
        for k in ks:
            for i in decisions[k].split(":")[1].split(","):
                if i:
                    h = (h * 31 + int(i)) & M64
        return f"hash={h}"
    if case == "wtime":
        return f"{sum(1 for k in ks if decisions[k] == '1')} iterations"
    return None


def check_trace(case, path, out, min_incarnations):
    """The failures found in trace `path` of a job that printed `out`: every
    incarnation of a rank made the decisions of the final one, the final ones
    are numbered 0..n-1, rank 0's printed result is the one they give, and
    some rank traced from `min_incarnations` processes."""
    ranks = read_trace(path)
    failures = []
    most = 0
    for rank, incs in sorted(ranks.items()):
        most = max(most, len(incs))
        final_pid, final = incs[-1]
        if sorted(final) != list(range(len(final))):
            failures.append(f"rank {rank}: the final incarnation's decisions are not numbered 0..n-1")
        for pid, dec in incs[:-1]:
            for k, d in sorted(dec.items()):
                if final.get(k) != d:
                    failures.append(f"rank {rank}: decision {k} was {d} in process {pid}, "
                                    f"{final.get(k)} in its replay (process {final_pid})")
                    break
        print(f"trace: rank {rank}: {len(incs)} incarnation(s), {len(final)} decisions, "
              f"{sum(len(d) for _, d in incs[:-1])} replayed and compared")
        if rank == 0:
            want = expected_result(case, final)
            if want and want not in out:
                failures.append(f"the job printed no '{want}' (the final incarnation's decisions give it)")
    if most < min_incarnations:
        failures.append(f"no rank traced from {min_incarnations} processes: the kill missed the run")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", required=True)
    ap.add_argument("--min-incarnations", type=int, default=2,
                    help="some rank must have traced from at least this many processes")
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:split])
    rest = argv[split + 1:]
    fd, trace = tempfile.mkstemp(prefix="ftmpi-trace-")
    os.close(fd)
    try:
        cmd = [sys.executable, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "run_job.py")]
        cmd += [x.replace("@TRACE@", trace) for x in rest]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
        sys.stdout.write(out)
        sys.stderr.write(err)
        if p.returncode != 0:
            print("FAIL: the job did not end as expected")
            return 1
        failures = check_trace(a.case, trace, out, a.min_incarnations)
        for f in failures:
            print("FAIL: " + f)
        return 1 if failures else 0
    finally:
        os.unlink(trace)
        # tm_cases cancel_death's marker, left behind by a run that failed
        if os.path.exists(trace + ".died"):
            os.unlink(trace + ".died")


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Cost of FTMPI_COLL_MODE_ATOMIC (spec/ft-collectives.md §3): the same
coll_bench.c runs with ftmpi in non-atomic and atomic mode, interleaved
--repeat times; the table shows the medians in microseconds per call and
atomic / non-atomic.

  bench/coll/atomic.py [--build DIR] [--np 4,8] [--repeat 5] [--target 0.2]
                       [--ops bcast,allreduce] [--sizes 8,65536,1048576]

Targets (issue 7): atomic <= 2x non-atomic at 8 B, <= 1.2x at 1 MiB. Not a
test: the machine has 2 cores and is shared.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def run(build, exe, np_, mode, args, nice):
    launch = [os.path.join(build, "bin", "mpirun"), "-np", str(np_), f"--ft-coll-mode={mode}", exe]
    prefix = ["nice", "-n", str(nice)] if nice else []
    try:
        p = subprocess.run(prefix + launch + args, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        print(f"{mode} np={np_} timed out", file=sys.stderr)
        return {}
    if p.returncode != 0:
        print(f"{mode} np={np_} failed:\n{p.stdout}\n{p.stderr}", file=sys.stderr)
        return {}
    res = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 3:
            res[(f[0], int(f[1]))] = float(f[2])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--np", default="4,8")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--target", default="0.2", help="seconds per case and run")
    ap.add_argument("--ops", default="bcast,allreduce")
    ap.add_argument("--sizes", default="8,65536,1048576")
    ap.add_argument("--nice", type=int, default=0)
    a = ap.parse_args()
    args = [a.target, a.ops, a.sizes, "imb"]
    order = {op: i for i, op in enumerate(a.ops.split(","))}
    modes = ["nonatomic", "atomic"]
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "coll_bench")
        subprocess.run([os.path.join(a.build, "bin", "mpicc"), "-O2", "-o", exe, os.path.join(HERE, "coll_bench.c")],
                       check=True)
        for np_ in [int(x) for x in a.np.split(",")]:
            samples = {m: {} for m in modes}
            for _ in range(a.repeat):
                for m in modes:
                    for k, v in run(a.build, exe, np_, m, args, a.nice).items():
                        samples[m].setdefault(k, []).append(v)
            print(f"\n## np={np_}: median of {a.repeat} runs, microseconds per call\n")
            print("| op | bytes | nonatomic | atomic | atomic / nonatomic |")
            print("|---|---|---|---|---|")
            keys = sorted({k for s in samples.values() for k in s}, key=lambda k: (order.get(k[0], 99), k[1]))
            for k in keys:
                med = {m: statistics.median(samples[m][k]) for m in modes if k in samples[m]}
                ratio = f"{med['atomic'] / med['nonatomic']:.2f}" if len(med) == 2 and med["nonatomic"] > 0 else "-"
                cells = [f"{med[m]:.1f}" if m in med else "-" for m in modes]
                print(f"| {k[0]} | {k[1]} | " + " | ".join(cells) + f" | {ratio} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

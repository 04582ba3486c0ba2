#!/usr/bin/env python3
"""MPI_Iallreduce latency and overlap: ftmpi against Debian's Open MPI and
MPICH, nbc_bench.c built unchanged with each library's own mpicc. Every
(library, np) job runs --repeat times, interleaved so that background load
hits all libraries alike; the 1-minute load average is read before every job.
Prints one table per np: medians of the runs, and the load range seen.

  bench/coll/nbc_run.py [--build DIR] [--np 2,4,8] [--repeat 5] [--nice -10]

Not a test: numbers depend on the machine and its load.
"""
import argparse
import os
import statistics
import sys
import tempfile

from run import ROOT, impls, job


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run(name, cc, launch, extra_env, np_, tmp, nice):
    res = {}
    for line in job("nbc_bench.c", name, cc, launch, extra_env, np_, [], tmp, nice).splitlines():
        f = line.split()
        if len(f) == 4:
            res[int(f[0])] = tuple(float(x) for x in f[1:])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--np", default="2,4,8")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="", help="comma list of libraries to run")
    ap.add_argument("--nice", type=int, default=0)
    a = ap.parse_args()
    libs = impls(a.build, set(filter(None, a.only.split(","))))
    names = [n for n, *_ in libs]
    with tempfile.TemporaryDirectory() as tmp:
        for np_ in [int(x) for x in a.np.split(",")]:
            samples = {n: {} for n in names}
            loads = []
            for _ in range(a.repeat):
                for name, cc, launch, env in libs:
                    loads.append(load1())
                    for size, vals in run(name, cc, launch, env, np_, tmp, a.nice).items():
                        samples[name].setdefault(size, []).append(vals)
            print(f"\n## Iallreduce np={np_}: median of {a.repeat} interleaved runs, nice {a.nice},"
                  f" load average {min(loads):.1f}-{max(loads):.1f}\n")
            print("| bytes | " + " | ".join(f"{n} us | {n} overlap % | {n} overlap+Test %" for n in names) + " |")
            print("|---|" + "---|---|---|" * len(names))
            for size in sorted({s for v in samples.values() for s in v}):
                cells = []
                for n in names:
                    runs = samples[n].get(size, [])
                    for i in range(3):
                        cells.append(f"{statistics.median(r[i] for r in runs):.1f}" if runs else "-")
                print(f"| {size} | " + " | ".join(cells) + " |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

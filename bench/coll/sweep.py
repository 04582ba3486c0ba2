#!/usr/bin/env python3
"""Compares ftmpi's algorithms for one collective, to fill the tuning table
(src/coll/tuning_table.cpp): every algorithm is forced in turn with
FTMPI_COLL, the runs are interleaved --repeat times, and the table shows the
median time per call (coll_bench.c, method imb) for each size and np.

  bench/coll/sweep.py --coll allreduce --algos recursive_doubling,rabenseifner,ring,linear
                      [--np 2,4,8] [--sizes 8,1024,65536,1048576] [--repeat 5] [--nice -10]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--coll", required=True)
    ap.add_argument("--algos", required=True)
    ap.add_argument("--np", default="2,4,8")
    ap.add_argument("--sizes", default="8,1024,65536,1048576")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--target", default="0.05")
    ap.add_argument("--nice", type=int, default=0)
    ap.add_argument("--env", action="append", default=[], help="extra VAR=value")
    a = ap.parse_args()
    algos = a.algos.split(",")
    extra = dict(kv.split("=", 1) for kv in a.env)
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "coll_bench")
        subprocess.run([os.path.join(a.build, "bin", "mpicc"), "-O2", "-o", exe, os.path.join(HERE, "coll_bench.c")],
                       check=True)
        for np_ in [int(x) for x in a.np.split(",")]:
            samples = {}
            for _ in range(a.repeat):
                for algo in algos:
                    env = dict(os.environ, FTMPI_COLL=f"{a.coll}:{algo}", **extra)
                    cmd = ([ "nice", "-n", str(a.nice)] if a.nice else []) + [
                        os.path.join(a.build, "bin", "mpirun"), "-np", str(np_), exe, a.target, a.coll, a.sizes]
                    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
                    for line in p.stdout.splitlines():
                        f = line.split()
                        if len(f) == 3:
                            samples.setdefault((algo, int(f[1])), []).append(float(f[2]))
            sizes = sorted({k[1] for k in samples})
            print(f"\n## {a.coll}, np={np_}: median of {a.repeat} runs, microseconds per call\n")
            print("| bytes | " + " | ".join(algos) + " |")
            print("|" + "---|" * (len(algos) + 1))
            for s in sizes:
                cells = []
                for algo in algos:
                    v = samples.get((algo, s))
                    cells.append(f"{statistics.median(v):.1f}" if v else "-")
                print(f"| {s} | " + " | ".join(cells) + " |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

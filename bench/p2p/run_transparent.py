#!/usr/bin/env python3
"""Fault-free cost of transparent mode (issue 16): the same ftmpi build and
the same pingpong.c, without and with --ft-transparent, runs interleaved;
medians per point and the ratio. Named and MPI_ANY_SOURCE ping-pong.

  bench/p2p/run_transparent.py [--build DIR] [--np 2] [--runs 5] [--target 0.1] [--max-bytes 4194304]

Transparent mode keeps every message sent in the sender's memory: the
streaming points log gigabytes, so FTMPI_LOG_LIMIT is raised for the run.
Not a test; see docs/benchmarks.md.
"""
import argparse
import os
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def run(build, exe, np_, target, max_bytes, transparent, any_src):
    cmd = [os.path.join(build, "bin", "mpirun"), "-np", str(np_)]
    if transparent:
        cmd.append("--ft-transparent")
    cmd += [exe, str(target), str(max_bytes)] + (["any"] if any_src else [])
    env = dict(os.environ, FTMPI_LOG_LIMIT="16g")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env=env)
    if p.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    res = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[0] in ("lat", "bw"):
            res[(f[0], int(f[1]))] = float(f[2])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--target", default="0.1")
    ap.add_argument("--max-bytes", type=int, default=4 << 20)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "pingpong")
        subprocess.run([os.path.join(a.build, "bin", "mpicc"), "-O2", "-o", exe, os.path.join(HERE, "pingpong.c")],
                       check=True)
        for any_src in (False, True):
            runs = {False: [], True: []}
            for _ in range(a.runs):
                for tm in (False, True):
                    runs[tm].append(run(a.build, exe, a.np, a.target, a.max_bytes, tm, any_src))
            keys = sorted({k for r in runs[False] for k in r}, key=lambda k: (k[0] != "lat", k[1]))
            kind = "MPI_ANY_SOURCE" if any_src else "named"
            print(f"\n## np={a.np}, {kind} receives, medians of {a.runs} interleaved runs\n")
            print("| metric | bytes | plain | transparent | transparent/plain |")
            print("|---|---|---|---|---|")
            for k in keys:
                if any_src and k[0] == "bw":
                    continue  # the streaming part has no wildcard
                p = statistics.median(r[k] for r in runs[False] if k in r)
                t = statistics.median(r[k] for r in runs[True] if k in r)
                unit = "us" if k[0] == "lat" else "MB/s"
                print(f"| {k[0]} ({unit}) | {k[1]} | {p:.2f} | {t:.2f} | {t / p:.2f} |")


if __name__ == "__main__":
    main()

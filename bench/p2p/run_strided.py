#!/usr/bin/env python3
"""Strided-vector benchmark (strided.c): MPI_Pack / MPI_Unpack of every other
double of an 8 MiB array, and sending it between two ranks (vector type on
both sides; vector on one side and contiguous on the other; contiguous as a
reference), for ftmpi, Debian's Open MPI and MPICH, built from the same source
with each library's mpicc and run alternately, `--runs` times each. Each
program reports the median time of its iterations; the table shows the median
over the runs, and each library's spread (min..max of the runs) below it,
because the machine is shared and single runs are noisy.

  bench/p2p/run_strided.py [--build DIR] [--runs 5] [--target SECONDS]

Not a test: numbers depend on the machine; ratios < 1 mean ftmpi is faster.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
METRICS = [
    ("pack", "MPI_Pack, 4 MiB of data"),
    ("unpack", "MPI_Unpack, 4 MiB of data"),
    ("vec_vec", "send vector -> recv vector"),
    ("vec_contig", "send vector -> recv contiguous"),
    ("contig", "contiguous -> contiguous (reference)"),
]


def impls(build):
    env_ompi = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    out = [("ftmpi", os.path.join(build, "bin", "mpicc"), [os.path.join(build, "bin", "mpirun"), "-np", "2"], {})]
    if shutil.which("mpicc.openmpi") and shutil.which("mpirun.openmpi"):
        out.append(("openmpi", "mpicc.openmpi",
                    ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", "2"],
                    env_ompi))
    if shutil.which("mpicc.mpich") and shutil.which("mpiexec.mpich"):
        out.append(("mpich", "mpicc.mpich", ["mpiexec.mpich", "-n", "2"], {}))
    return out


def run_once(name, exe, launch, extra_env, target):
    env = dict(os.environ, **extra_env)
    p = subprocess.run(launch + [exe, str(target)], env=env, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        print(f"{name} failed:\n{p.stdout}\n{p.stderr}", file=sys.stderr)
        return {}
    res = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] in dict(METRICS):
            res[f[0]] = float(f[1])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--target", default="0.3")
    a = ap.parse_args()
    libs = impls(a.build)
    runs = {name: [] for name, *_ in libs}
    with tempfile.TemporaryDirectory() as tmp:
        exes = {}
        for name, cc, _, _ in libs:
            exes[name] = os.path.join(tmp, "strided_" + name)
            subprocess.run([cc, "-O2", "-o", exes[name], os.path.join(HERE, "strided.c")], check=True)
        for _ in range(a.runs):  # interleaved, so that load changes hit every library alike
            for name, _, launch, env in libs:
                r = run_once(name, exes[name], launch, env, a.target)
                if r:
                    runs[name].append(r)
    names = [n for n, *_ in libs if runs[n]]
    med = {n: {m: statistics.median(r[m] for r in runs[n]) for m, _ in METRICS} for n in names}
    others = names[1:]
    print(f"\n## strided vector: every other double of 8 MiB, 2 ranks, median of {a.runs} runs (ms)\n")
    print("| operation | " + " | ".join(names) + " | " + " | ".join(f"ftmpi/{n}" for n in others) +
          " | ftmpi/best |")
    print("|---|" + "---:|" * (len(names) + len(others) + 1))
    for m, label in METRICS:
        vals = [med[n][m] for n in names]
        cells = [f"{v:.3f}" for v in vals]
        ratios = [f"{vals[0] / v:.2f}" if v > 0 else "-" for v in vals[1:]]
        best = min(vals[1:]) if len(vals) > 1 else None
        ratios.append(f"{vals[0] / best:.2f}" if best else "-")
        print(f"| {label} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    print("\nspread over the runs (min..max ms):")
    for m, label in METRICS:
        print(f"  {m:10s} " + "   ".join(
            f"{n} {min(r[m] for r in runs[n]):.3f}..{max(r[m] for r in runs[n]):.3f}" for n in names))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""MPI_Comm_dup and MPI_Comm_split latency: ftmpi side by side with Debian's
Open MPI and MPICH, the same source (comm_bench.c) built with each library's
own mpicc. The machine is shared, so every library's job is run --repeat
times (interleaved) and the median of each metric is reported, with ratios.

  bench/comm/run.py [--build DIR] [--np 8[,2,...]] [--repeat 5] [--calls 200] [--reps 7] [--used 4000]

Not a test: numbers depend on the machine and its load.
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
METRICS = [("dup", "us"), ("dup_free", "us"), ("split", "us"), ("split_free", "us"),
           ("rss_per_used_comm", "bytes"), ("calls_per_rep", "n"), ("used_comms", "n")]


def impls(build):
    env_ompi = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    out = [("ftmpi", os.path.join(build, "bin", "mpicc"), [os.path.join(build, "bin", "mpirun"), "-np"], {})]
    if shutil.which("mpicc.openmpi") and shutil.which("mpirun.openmpi"):
        out.append(("openmpi", "mpicc.openmpi",
                    ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np"],
                    env_ompi))
    if shutil.which("mpicc.mpich") and shutil.which("mpiexec.mpich"):
        out.append(("mpich", "mpicc.mpich", ["mpiexec.mpich", "-n"], {}))
    return out


def run_once(name, cc, launch, extra_env, np_, args, tmp):
    exe = os.path.join(tmp, "comm_bench_" + name)
    if not os.path.exists(exe):
        subprocess.run([cc, "-O2", "-o", exe, os.path.join(HERE, "comm_bench.c")], check=True)
    env = dict(os.environ, **extra_env)
    p = subprocess.run(launch + [str(np_), exe] + args, env=env, capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        print(f"{name} np={np_} failed:\n{p.stdout}\n{p.stderr}", file=sys.stderr)
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
    ap.add_argument("--np", default="8", help="process counts, comma-separated")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--calls", default="200")
    ap.add_argument("--reps", default="7")
    ap.add_argument("--used", default="4000", help="communicators used once for the memory metric")
    a = ap.parse_args()
    libs = impls(a.build)
    names = [n for n, *_ in libs]
    with tempfile.TemporaryDirectory() as tmp:
        for np_ in [int(x) for x in a.np.split(",")]:
            samples = {n: {m: [] for m, _ in METRICS} for n in names}
            for _ in range(a.repeat):
                for name, cc, launch, env in libs:
                    for m, v in run_once(name, cc, launch, env, np_, [a.calls, a.reps, a.used], tmp).items():
                        samples[name][m].append(v)
            table(np_, a, names, samples)
    print("\nlower is better; a ratio below 1 means ftmpi is faster (or grows less). calls_per_rep and\n"
          "used_comms are the sample sizes each library got (capped by time for slow ones).")


def table(np_, a, names, samples):
    print(f"\n## np={np_}: median of {a.repeat} runs, each the median of {a.reps} repetitions of "
          f"up to {a.calls} calls (slowest rank)\n")
    print("| metric | " + " | ".join(names) + " | " + " | ".join(f"ftmpi/{n}" for n in names[1:]) + " |")
    print("|" + "---|" * (2 * len(names)))
    for m, unit in METRICS:
        vals = [statistics.median(samples[n][m]) if samples[n][m] else None for n in names]
        cells = [f"{v:.2f}" if v is not None else "-" for v in vals]
        ratios = ["-" if unit == "n" or vals[0] is None or v is None or v == 0 else f"{vals[0] / v:.3g}"
                  for v in vals[1:]]
        print(f"| {m} ({unit}) | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Collective latencies: ftmpi against Debian's Open MPI and MPICH, the same
source (coll_bench.c) built with each library's own mpicc. Every (library,
np) job runs --repeat times, interleaved so that background load hits all
libraries alike; the table shows the median of the runs in microseconds and
ftmpi's time divided by the better peer's.

  bench/coll/run.py [--build DIR] [--np 2,4,8] [--repeat 5] [--target 0.2]
                    [--ops barrier,bcast,...] [--sizes 8,65536,1048576]
                    [--env FTMPI_COLL=...]

Targets (issue 5): ratio <= 1 at np 2 and 4; <= 0.5 at np 8 (ranks outnumber
the 2 cores). Not a test: numbers depend on the machine and its load.
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


def impls(build, only):
    env_ompi = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    out = [("ftmpi", os.path.join(build, "bin", "mpicc"), [os.path.join(build, "bin", "mpirun"), "-np"], {})]
    if shutil.which("mpicc.openmpi") and shutil.which("mpirun.openmpi"):
        out.append(("openmpi", "mpicc.openmpi", ["mpirun.openmpi", "--oversubscribe", "--bind-to", "none", "-np"],
                    env_ompi))
    if shutil.which("mpicc.mpich") and shutil.which("mpiexec.mpich"):
        out.append(("mpich", "mpicc.mpich", ["mpiexec.mpich", "-n"], {}))
    return [i for i in out if not only or i[0] in only]


def job(source, name, cc, launch, extra_env, np_, args, tmp, nice):
    """Builds `source` with the library's mpicc (once) and runs it: its stdout, or "" on failure."""
    exe = os.path.join(tmp, os.path.splitext(source)[0] + "_" + name)
    if not os.path.exists(exe):
        subprocess.run([cc, "-O2", "-o", exe, os.path.join(HERE, source)], check=True)
    env = dict(os.environ, **extra_env)
    try:
        prefix = ["nice", "-n", str(nice)] if nice else []
        p = subprocess.run(prefix + launch + [str(np_), exe] + args, env=env, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        print(f"{name} np={np_} timed out", file=sys.stderr)
        return ""
    if p.returncode != 0:
        print(f"{name} np={np_} failed:\n{p.stdout}\n{p.stderr}", file=sys.stderr)
        return ""
    return p.stdout


def run(name, cc, launch, extra_env, np_, args, tmp, nice):
    out = job("coll_bench.c", name, cc, launch, extra_env, np_, args, tmp, nice)
    res = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3:
            res[(f[0], int(f[1]))] = float(f[2])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--np", default="2,4,8")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--target", default="0.2", help="seconds per case and run")
    ap.add_argument("--ops", default="barrier,bcast,reduce,allreduce,allgather,alltoall")
    ap.add_argument("--sizes", default="8,65536,1048576")
    ap.add_argument("--only", default="", help="comma list of libraries to run")
    ap.add_argument("--method", default="imb", choices=["imb", "osu"], help="see coll_bench.c")
    ap.add_argument("--nice", type=int, default=0,
                    help="run every job at this niceness (e.g. -10 on a machine busy with other work)")
    ap.add_argument("--env", action="append", default=[], help="VAR=value for the ftmpi runs")
    a = ap.parse_args()
    libs = impls(a.build, set(filter(None, a.only.split(","))))
    ft_env = dict(kv.split("=", 1) for kv in a.env)
    args = [a.target, a.ops, a.sizes, a.method]
    order = {op: i for i, op in enumerate(a.ops.split(","))}
    with tempfile.TemporaryDirectory() as tmp:
        for np_ in [int(x) for x in a.np.split(",")]:
            samples = {name: {} for name, *_ in libs}
            for _ in range(a.repeat):
                for name, cc, launch, env in libs:
                    e = dict(env, **ft_env) if name == "ftmpi" else env
                    for k, v in run(name, cc, launch, e, np_, args, tmp, a.nice).items():
                        samples[name].setdefault(k, []).append(v)
            names = [n for n, *_ in libs]
            print(f"\n## np={np_}: median of {a.repeat} runs, microseconds per call, method {a.method},"
                  f" nice {a.nice} (ratio = ftmpi / better peer)\n")
            print("| op | bytes | " + " | ".join(names) + " | ratio |")
            print("|" + "---|" * (len(names) + 3))
            keys = sorted({k for s in samples.values() for k in s}, key=lambda k: (order.get(k[0], 99), k[1]))
            for k in keys:
                med = {n: statistics.median(samples[n][k]) for n in names if k in samples[n]}
                peers = [v for n, v in med.items() if n != "ftmpi"]
                ratio = "-"
                if "ftmpi" in med and peers and min(peers) > 0:
                    ratio = f"{med['ftmpi'] / min(peers):.2f}"
                cells = [f"{med[n]:.1f}" if n in med else "-" for n in names]
                print(f"| {k[0]} | {k[1]} | " + " | ".join(cells) + f" | {ratio} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

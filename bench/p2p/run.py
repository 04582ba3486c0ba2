#!/usr/bin/env python3
"""Ping-pong latency and bandwidth: ftmpi side by side with Debian's Open MPI
and MPICH, the same source (pingpong.c) built with each library's own mpicc,
in one run. Prints one table per process count with ratios.

  bench/p2p/run.py [--build DIR] [--np 2,8] [--target SECONDS]

Not a test: numbers depend on the machine; see docs/benchmarks.md.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def impls(build):
    env_ompi = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    out = [("ftmpi", os.path.join(build, "bin", "mpicc"), [os.path.join(build, "bin", "mpirun"), "-np"], {})]
    if shutil.which("mpicc.openmpi") and shutil.which("mpirun.openmpi"):
        out.append(("openmpi", "mpicc.openmpi", ["mpirun.openmpi", "--oversubscribe", "--bind-to", "none", "-np"],
                    env_ompi))
    if shutil.which("mpicc.mpich") and shutil.which("mpiexec.mpich"):
        out.append(("mpich", "mpicc.mpich", ["mpiexec.mpich", "-n"], {}))
    return out


def run(name, cc, launch, extra_env, np_, target, tmp):
    exe = os.path.join(tmp, "pingpong_" + name)
    if not os.path.exists(exe):
        subprocess.run([cc, "-O2", "-o", exe, os.path.join(HERE, "pingpong.c")], check=True)
    env = dict(os.environ, **extra_env)
    p = subprocess.run(launch + [str(np_), exe, str(target)], env=env, capture_output=True, text=True,
                       timeout=1800)
    if p.returncode != 0:
        print(f"{name} np={np_} failed:\n{p.stdout}\n{p.stderr}", file=sys.stderr)
        return {}
    res = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[0] in ("lat", "bw"):
            res[(f[0], int(f[1]))] = float(f[2])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--np", default="2,8")
    ap.add_argument("--target", default="0.3")
    a = ap.parse_args()
    libs = impls(a.build)
    with tempfile.TemporaryDirectory() as tmp:
        for np_ in [int(x) for x in a.np.split(",")]:
            results = {name: run(name, cc, launch, env, np_, a.target, tmp) for name, cc, launch, env in libs}
            names = [n for n, *_ in libs]
            print(f"\n## np={np_} (ranks 2.. wait in MPI_Recv)\n")
            hdr = "| metric | bytes | " + " | ".join(names) + " | " + " | ".join(f"ftmpi/{n}" for n in names[1:]) + " |"
            print(hdr)
            print("|" + "---|" * (2 + 2 * len(names) - 1))
            keys = sorted({k for r in results.values() for k in r}, key=lambda k: (k[0] != "lat", k[1]))
            for k in keys:
                vals = [results[n].get(k) for n in names]
                cells = [f"{v:.2f}" if v is not None else "-" for v in vals]
                ratios = []
                for v in vals[1:]:
                    if vals[0] is None or v is None or v == 0:
                        ratios.append("-")
                    else:
                        ratios.append(f"{vals[0] / v:.2f}")
                unit = "us" if k[0] == "lat" else "MB/s"
                print(f"| {k[0]} ({unit}) | {k[1]} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    print("\nlatency: lower is better (ratio < 1 means ftmpi is faster); bandwidth: higher is better.")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Start-up time of a hello job (MPI_Init, barrier, MPI_Finalize) through each
way of running, on a throw-away single-node Slurm (tests/slurm/slurm_cluster.py):

  mpirun        ftmpirun -np N ./hello, no Slurm
  alloc         ftmpirun ./hello inside an existing `salloc -n N` (daemons by srun)
  direct        srun --mpi=pmix -n N ./hello inside the same allocation
  salloc+mpirun `salloc -n N ftmpirun ./hello` (allocation included)
  srun alone    `srun --mpi=pmix -n N ./hello` (allocation included)
  srun pmix true  a step of N shells in the allocation: Slurm's own share

    startup.py BUILD_DIR [--np 8] [--reps 10]

Prints median and min wall time in ms per way, and `uptime` before and after
(the machine is shared: compare figures taken together only).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "slurm"))
from slurm_cluster import SlurmCluster  # noqa: E402


def timed(argv, env):
    t0 = time.monotonic()
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    dt = (time.monotonic() - t0) * 1000
    if r.returncode != 0 or "hello from" not in r.stdout:
        sys.exit(f"{' '.join(argv)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--np", type=int, default=8)
    ap.add_argument("--reps", type=int, default=10)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    mpirun = os.path.join(build, "bin", "ftmpirun")
    with tempfile.TemporaryDirectory() as tmp:
        hello = os.path.join(tmp, "hello")
        subprocess.run([os.path.join(build, "bin", "mpicc"), "-O2", "-o", hello, os.path.join(HERE, "hello.c")],
                       check=True)
        print("uptime before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
        with SlurmCluster() as c:
            n = str(a.np)
            # The in-allocation ways run in one allocation held by a sleeping salloc.
            holder = subprocess.Popen(["salloc", "-n", n, "--no-shell"], env=c.env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True)
            job = None
            for line in holder.stdout:
                if "Granted job allocation" in line:
                    job = line.split()[-1]
                    break
            if not job:
                sys.exit("salloc --no-shell gave no allocation")
            inside = dict(c.env)
            inside.update({"SLURM_JOB_ID": job, "SLURM_JOB_NODELIST": c.nodes[0], "SLURM_TASKS_PER_NODE": n,
                           "SLURM_NTASKS": n})
            ways = {
                "mpirun": ([mpirun, "-np", n, hello], c.env),
                "alloc": ([mpirun, hello], inside),
                "direct": (["srun", "--jobid=" + job, "--mpi=pmix", "-n", n, hello], c.env),
                "salloc+mpirun": (["salloc", "-n", n, mpirun, hello], c.env),
                "srun alone": (["srun", "--mpi=pmix", "-n", n, hello], c.env),
                # Slurm's own share: a step of a program that is not MPI.
                "srun pmix true": (["srun", "--jobid=" + job, "--mpi=pmix", "-n", n, "sh", "-c", "echo hello from"], c.env),
            }
            times = {w: [] for w in ways}
            for _ in range(a.reps):
                for w, (argv, env) in ways.items():
                    times[w].append(timed(argv, env))
            subprocess.run(["scancel", job], env=c.env)
            holder.wait(timeout=30)
        print("uptime after: ", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"hello at np {a.np}, {a.reps} runs each (ms): median / min")
    for w, t in times.items():
        print(f"  {w:15s} {statistics.median(t):7.0f} / {min(t):5.0f}")


if __name__ == "__main__":
    main()

"""Running under Slurm (issue 20), on a throw-away single-node Slurm that each
case brings up and tears down (slurm_cluster.py). Exit 77 (CTest skip) with
the reason when Slurm cannot run here.

  alloc          ftmpirun inside `salloc -n N`: hosts and slots from the
                 allocation, daemons in one srun step; p2p ring and
                 collectives at np 4 and 8
  alloc_rebuild  the same, REBUILD with a rank that SIGKILLs itself
  direct         srun --mpi=pmix -n N without ftmpid: ring and collectives at
                 np 4 and 8, shared memory between the ranks, and over TCP
  direct_refuse  FT and transparent modes refused at MPI_Init with one line
  direct_abort   comm mode ABORT: a killed rank and an MPI_Abort end the job
"""
import argparse
import re
import subprocess
import sys
import time

from slurm_cluster import SlurmCluster, Unavailable

SKIP = 77


class Failed(Exception):
    pass


def run(c, argv, env_extra=None, timeout=120):
    env = dict(c.env)
    env.update(env_extra or {})
    t0 = time.monotonic()
    try:
        r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        raise Failed(f"timed out after {timeout} s: {' '.join(argv)}\n{e.stdout}\n{e.stderr}")
    r.seconds = time.monotonic() - t0
    return r


def expect(cond, what, r):
    if not cond:
        raise Failed(f"{what}\n--- exit {r.returncode}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}")


def check_ok(r, pattern, count=1):
    expect(r.returncode == 0, "job failed", r)
    found = len(re.findall(pattern, r.stdout, re.M))
    expect(found == count, f"expected {count} line(s) matching {pattern!r}, got {found}", r)


def case_alloc(c, a):
    for np in (4, 8):
        # The daemons run in job step 0 of the allocation, on its node: the
        # ranks they fork inherit the step's variables.
        r = run(c, ["salloc", "-n", str(np), a.ftmpirun, "sh", "-c", 'echo "step=$SLURM_STEP_ID node=$SLURMD_NODENAME"'])
        check_ok(r, r"^step=0 node=" + re.escape(c.nodes[0]) + "$", np)
        r = run(c, ["salloc", "-n", str(np), a.ftmpirun, a.ring])
        check_ok(r, rf"ring: 1000 laps over {np} ranks ok")
        r = run(c, ["salloc", "-n", str(np), a.ftmpirun, a.coll, "100000"])
        check_ok(r, rf"coll_basic: np {np}, \d+ size/root cases checked")
    # --host inside the allocation: the hosts the user named, still through srun.
    r = run(c, ["salloc", "-n", "8", a.ftmpirun, "--host", c.nodes[0] + ":3", a.ring])
    check_ok(r, r"ring: 1000 laps over 3 ranks ok")
    # A host outside the allocation is started by the usual agents, not srun.
    r = run(c, ["salloc", "-n", "2", a.ftmpirun, "--host", "127.0.0.7:2", "sh", "-c", 'echo "step=$SLURM_STEP_ID"'])
    check_ok(r, r"^step=$", 2)


def case_alloc_rebuild(c, a):
    r = run(c, ["salloc", "-n", "8", a.ftmpirun, "--ft-comm-mode=rebuild", a.ft, "3"])
    check_ok(r, r"ft_recovery: ok \(6 iterations, 1 recoveries, final size 8\)")
    expect(re.search(r"rank 3 \(pid \d+ on .*\) died: killed by signal 9", r.stderr), "no death line", r)
    expect(re.search(r"respawning rank 3 as incarnation 1", r.stderr), "no respawn line", r)
    expect("job survived 1 failure in 1 recovery round" in r.stderr, "no summary line", r)


def case_direct(c, a):
    for np in (4, 8):
        r = run(c, ["srun", "--mpi=pmix", "-n", str(np), a.ring], {"FTMPI_DEBUG": "3"})
        check_ok(r, rf"ring: 1000 laps over {np} ranks ok")
        # Booted through PMIx, with the host's segment handed round: shm between all.
        up = re.findall(rf"engine up: slot \d+, {np} local ranks \(shm on\)", r.stderr)
        expect(len(up) == np, f"expected {np} ranks with shared memory", r)
        r = run(c, ["srun", "--mpi=pmix", "-n", str(np), a.coll, "100000"])
        check_ok(r, rf"coll_basic: np {np}, \d+ size/root cases checked")
        r = run(c, ["srun", "--mpi=pmix", "-n", str(np), a.coll, "30000"], {"FTMPI_TRANSPORT": "tcp"})
        check_ok(r, rf"coll_basic: np {np}, \d+ size/root cases checked")


def case_direct_refuse(c, a):
    for env, what in (({"FTMPI_COMM_MODE": "rebuild"}, "comm mode rebuild"),
                      ({"FTMPI_COMM_MODE": "shrink"}, "comm mode shrink"),
                      ({"FTMPI_TRANSPARENT": "1"}, "transparent mode")):
        r = run(c, ["srun", "--mpi=pmix", "-n", "4", a.ring], env)
        expect(r.returncode != 0, "an FT mode was accepted under direct launch", r)
        lines = [l for l in r.stderr.splitlines() if l.startswith("ftmpi:")]
        expect(len(lines) == 1 and what in lines[0] and "ftmpirun inside" in lines[0],
               "expected one line refusing " + what, r)
        expect("ring:" not in r.stdout, "the program ran", r)


def case_direct_abort(c, a):
    # Rank 2 SIGKILLs itself while the others are blocked: the job ends.
    r = run(c, ["srun", "--mpi=pmix", "-n", "4", a.failures, "kill"], timeout=60)
    expect(r.returncode != 0, "the job did not fail", r)
    expect("rank 2 ended before MPI_Finalize; ending the job" in r.stderr, "no line naming rank 2", r)
    expect(r.seconds < 30, f"took {r.seconds:.1f} s to end", r)
    r = run(c, ["srun", "--mpi=pmix", "-n", "4", a.failures, "abort"], timeout=60)
    expect(r.returncode == 7, "MPI_Abort(7) did not end the job with 7", r)
    expect("called MPI_Abort with code 7" in r.stderr, "no MPI_Abort line", r)


CASES = {n[5:]: f for n, f in globals().items() if n.startswith("case_")}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("case", choices=sorted(CASES))
    p.add_argument("--ftmpirun", required=True)
    p.add_argument("--ring", required=True)
    p.add_argument("--coll", required=True)
    p.add_argument("--ft", required=True)
    p.add_argument("--failures", required=True)
    a = p.parse_args()
    try:
        with SlurmCluster() as c:
            CASES[a.case](c, a)
    except Unavailable as e:
        print(f"SKIP: Slurm cannot run here: {e}")
        return SKIP
    except Failed as e:
        print(f"FAIL {a.case}: {e}")
        return 1
    print(f"ok {a.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

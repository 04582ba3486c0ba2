"""Running under Slurm (issue 20), on a throw-away Slurm that each case
brings up and tears down (slurm_cluster.py): two simulated nodes for
ftmpirun in an allocation, one node for direct launch (Slurm's mpi/pmix
cannot run two simulated nodes on one machine). Exit 77 (CTest skip) with
the reason when Slurm cannot run here.

  alloc          ftmpirun inside `salloc -N 2`: hosts and slots from the
                 allocation, daemons in one srun step (one per node); p2p
                 ring and collectives at np 4 and 8 across both nodes
  alloc_rebuild  the same, REBUILD with a rank on the second node that
                 SIGKILLs itself
  alloc_lost_node  REBUILD while the second node's daemon is killed: the step
                 goes on, its rank is respawned on the first node
  direct         srun --mpi=pmix -n N without ftmpid: ring and collectives at
                 np 4 and 8, shared memory between the ranks, and over TCP
  direct_refuse  FT and transparent modes refused at MPI_Init with one line
  direct_abort   comm mode ABORT: a killed rank and an MPI_Abort end the job
"""
import argparse
import os
import re
import subprocess
import sys
import time

from slurm_cluster import SlurmCluster, Unavailable

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from sanitizer_reports import SanitizerLog  # noqa: E402

SKIP = 77


class Failed(Exception):
    pass


def run(c, argv, env_extra=None, timeout=120):
    env = dict(c.env)
    env.update(env_extra or {})
    if argv[:2] == ["srun", "--mpi=pmix"]:
        # libpmix has no frame pointers: LeakSanitizer's stacks of its
        # allocations end in it unless it unwinds slowly, and only full
        # stacks tell its own leaks (tests/tools/lsan_third_party.supp)
        # from ftmpi's.
        env["ASAN_OPTIONS"] = "fast_unwind_on_malloc=0"
    t0 = time.monotonic()
    # A sanitizer report from any process of the job (the launcher, the
    # daemons srun starts, the ranks) fails the case; the ranks started by the
    # daemons get the option through -x (tests/tools/sanitizer_reports.py).
    with SanitizerLog() as san:
        at = next((i for i, x in enumerate(argv) if os.path.basename(x) == "ftmpirun"), None)
        if at is not None:
            argv = argv[:at + 1] + ["-x", "ASAN_OPTIONS"] + argv[at + 1:]
        try:
            r = subprocess.run(argv, env=san.env(env), capture_output=True, text=True, timeout=timeout,
                               stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as e:
            raise Failed(f"timed out after {timeout} s: {' '.join(argv)}\n{e.stdout}\n{e.stderr}\n" +
                         "\n".join(san.failures()))
        reports = san.failures(r.stdout, r.stderr)
    r.seconds = time.monotonic() - t0
    expect(not reports, "; ".join(reports), r)
    return r


def expect(cond, what, r):
    if not cond:
        raise Failed(f"{what}\n--- exit {r.returncode}\n--- stdout\n{r.stdout}\n--- stderr\n{r.stderr}")


def check_ok(r, pattern, count=1):
    expect(r.returncode == 0, "job failed", r)
    found = len(re.findall(pattern, r.stdout, re.M))
    expect(found == count, f"expected {count} line(s) matching {pattern!r}, got {found}", r)


def alloc(c, per_node):
    return ["salloc", "-N", str(len(c.nodes)), f"--ntasks-per-node={per_node}"]


def case_alloc(c, a):
    for per_node in (2, 4):
        np = per_node * len(c.nodes)
        # The daemons run in job step 0 of the allocation, one per node: the
        # ranks they fork inherit the step's variables.
        r = run(c, alloc(c, per_node) + [a.ftmpirun, "sh", "-c", 'echo "step=$SLURM_STEP_ID node=$SLURMD_NODENAME"'])
        for n in c.nodes:
            check_ok(r, r"^step=0 node=" + re.escape(n) + "$", per_node)
        r = run(c, alloc(c, per_node) + [a.ftmpirun, a.ring])
        check_ok(r, rf"ring: 1000 laps over {np} ranks ok")
        r = run(c, alloc(c, per_node) + [a.ftmpirun, a.coll, "100000"])
        check_ok(r, rf"coll_basic: np {np}, \d+ size/root cases checked")
    # --host inside the allocation: the hosts the user named, still through srun.
    r = run(c, alloc(c, 4) + [a.ftmpirun, "--host", c.nodes[-1] + ":3", "sh", "-c", 'echo "node=$SLURMD_NODENAME"'])
    check_ok(r, r"^node=" + re.escape(c.nodes[-1]) + "$", 3)
    # A host outside the allocation is started by the usual agents, not srun.
    r = run(c, alloc(c, 1) + [a.ftmpirun, "--host", "127.0.0.7:2", "sh", "-c", 'echo "step=$SLURM_STEP_ID"'])
    check_ok(r, r"^step=$", 2)


def case_alloc_rebuild(c, a):
    victim = 6  # with 4 ranks per node: on the second node
    r = run(c, alloc(c, 4) + [a.ftmpirun, "--ft-comm-mode=rebuild", a.ft, str(victim)])
    check_ok(r, r"ft_recovery: ok \(6 iterations, 1 recoveries, final size 8\)")
    node = re.escape(c.nodes[-1])
    expect(re.search(rf"rank {victim} \(pid \d+ on {node}\) died: killed by signal 9", r.stderr), "no death line", r)
    expect(re.search(rf"respawning rank {victim} as incarnation 1 on {node}", r.stderr), "no respawn line", r)
    expect("job survived 1 failure in 1 recovery round" in r.stderr, "no summary line", r)


def case_alloc_lost_node(c, a):
    lost, keeper = c.nodes[-1], c.nodes[0]
    r = run(c, alloc(c, 2) + [a.ftmpirun, "--ft-comm-mode=rebuild", "--heartbeat-timeout-ms", "3000",
                               "--inject", f"kill host={lost} at=1s", a.app, "60", "40"])
    check_ok(r, r"netns_app: ok 60 iterations, 1 recoveries, size 4")
    expect(re.search(rf"lost host {lost} ", r.stderr), "no lost-host line", r)
    for rank in (2, 3):
        expect(re.search(rf"respawning rank {rank} as incarnation 1 on {keeper}", r.stderr),
               f"rank {rank} not respawned on {keeper}", r)


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
    p.add_argument("--app", required=True)
    a = p.parse_args()
    try:
        with SlurmCluster(nodes=2 if a.case.startswith("alloc") else 1) as c:
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

#!/usr/bin/env python3
"""cg_checksum time to solution at np 8 with 0, 1 and 3 failures, with and
without checkpoints, against restarting the whole job on every failure.

  python3 bench/examples/run_cg_bench.py [--build build] [--n 96] [--reps 5]

Time to solution is what the program reports ("converged ... in T s"): from
the end of MPI_Init (of the original processes) to convergence, recoveries
included, without the final check (rank 0's one-process reference solve).
Every run must print PASSED; a run that does not is reported and left out.

Restarting from scratch is modelled, not run: with the failures at the same
times t_1 < ... < t_f after the start, each failure throws away the work done
since the last (re)start, so the job ends at t_f plus a whole failure-free
run without checkpoints, plus one job launch per failure (measured here as the
wall time of an empty 8-process job).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

KILLS = {0: [], 1: [(1.5, 3)], 3: [(1.0, 3), (2.0, 5), (3.0, 1)]}


def run(ftmpirun, prog, n, K, kills, timeout=300):
    cmd = [ftmpirun, "-np", "8", "--ft-comm-mode=rebuild"]
    for t, r in kills:
        cmd += ["--inject", f"kill rank={r} at={t}s"]
    cmd += [prog, "-n", str(n), "-K", str(K), "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    m = re.search(r"converged in (\d+) iterations .* in ([0-9.]+) s: (\d+) recoveries.* (\d+) iterations redone, "
                  r"(\d+) checkpoints taking ([0-9.]+) s", p.stdout)
    survived = re.search(r"job survived (\d+) failure", p.stderr)
    ok = p.returncode == 0 and "PASSED" in p.stdout and m and (int(survived.group(1)) if survived else 0) == len(kills)
    if not ok:
        sys.stderr.write(f"run failed or incomplete: {' '.join(cmd)}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}\n")
        return None
    # The program's own recovery lines: MPI_Comm_dup returned -> rolled back (ms).
    rec = [float(x) for x in re.findall(r"^cg: recovery \d+: .*\(([0-9.]+) ms\)$", p.stdout, re.M)]
    return {"t": float(m.group(2)), "iters": int(m.group(1)), "redone": int(m.group(4)),
            "ckpts": int(m.group(5)), "t_ckpt": float(m.group(6)), "restore_ms": sum(rec) / len(rec) if rec else 0.0}


def launch_time(ftmpirun, reps):
    times = []
    for _ in range(reps):
        t0 = time.time()
        subprocess.run([ftmpirun, "-np", "8", "true"], capture_output=True, check=True)
        times.append(time.time() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--n", type=int, default=96)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--K", default="10,0", help="checkpoint intervals to measure (0: none)")
    a = ap.parse_args()
    ftmpirun = os.path.join(a.build, "bin", "ftmpirun")
    prog = os.path.join(a.build, "examples", "cg_checksum")
    Ks = [int(k) for k in a.K.split(",")]
    results = {}
    # Interleave configurations so that load changes on the shared machine
    # spread over all of them.
    for rep in range(a.reps):
        for K in Ks:
            for nf in (0, 1, 3):
                r = run(ftmpirun, prog, a.n, K, KILLS[nf])
                if r:
                    results.setdefault((K, nf), []).append(r)
                    print(f"rep {rep} K={K} failures={nf}: {r['t']:.2f} s, {r['redone']} iterations redone, "
                          f"{r['ckpts']} checkpoints {r['t_ckpt']:.2f} s", flush=True)
    launch = launch_time(ftmpirun, a.reps)

    def med(K, nf, key="t"):
        v = [r[key] for r in results.get((K, nf), [])]
        return (statistics.median(v), min(v), max(v), len(v)) if v else None

    print(f"\n{a.n}^3 unknowns, np 8 (7 solvers + 1 checksum rank), REBUILD, medians of {a.reps} "
          f"(min-max); empty 8-process job launch: {launch:.2f} s\n")
    print("| checkpoints | failures | time to solution (s) | iterations redone | checkpoint time (s) | restore (ms) |")
    print("|---|---|---|---|---|---|")
    for K in Ks:
        for nf in (0, 1, 3):
            m = med(K, nf)
            if not m:
                continue
            red = med(K, nf, "redone")
            ck = med(K, nf, "t_ckpt")
            rs = med(K, nf, "restore_ms")
            print(f"| {'every %d' % K if K else 'none'} | {nf} | {m[0]:.2f} ({m[1]:.2f}-{m[2]:.2f}, n={m[3]}) "
                  f"| {red[0]:.0f} | {ck[0]:.2f} | {rs[0]:.0f} |")
    base = med(0, 0) if 0 in Ks else None
    if base:
        print("\nRestart from scratch (model: t_last_failure + failure-free run without checkpoints + one launch "
              "per failure):\n")
        for nf in (1, 3):
            if KILLS[nf]:
                t_last = KILLS[nf][-1][0]
                print(f"- {nf} failure(s): {t_last:.1f} + {base[0]:.2f} + {nf} x {launch:.2f} = "
                      f"{t_last + base[0] + nf * launch:.2f} s")
        if 10 in Ks and med(10, 0):
            ov = med(10, 0)[0] / base[0] - 1
            print(f"\nCheckpoint overhead without failures (every 10 vs none): {100 * ov:+.0f} %")


if __name__ == "__main__":
    main()

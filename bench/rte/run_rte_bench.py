#!/usr/bin/env python3
"""Runtime fault-tolerance timings (bench_rte_ft through the real ftmpirun).

    run_rte_bench.py BUILD_DIR [--reps N] [--np 4,8,16]

For each comm mode (rebuild, shrink, blank), np and 1 or 3 victims it runs
the job N times and reports, in milliseconds:
  notify   SIGKILL -> a survivor holds the notice of every victim
           (mean over survivors and runs; max: the slowest survivor of any run)
  round    SIGKILL -> a survivor holds the round's result (same statistics)
  leader   the leader's own round time (first request -> completion), from
           ftmpirun's "recovery round ... done in X ms" line
"""
import argparse
import re
import statistics
import subprocess
import sys


def one_run(build, mode, np, victims):
    cmd = [f"{build}/bin/ftmpirun", "-np", str(np), f"--ft-comm-mode={mode}",
           f"{build}/bench/rte/bench_rte_ft", str(victims)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    t0 = int(re.search(r"^kill (\d+)$", p.stdout, re.M).group(1))
    notify, rnd = [], []
    for m in re.finditer(r"^survivor \d+ notified (\d+) recovered (\d+) epoch (\d+)$", p.stdout, re.M):
        notify.append((int(m.group(1)) - t0) / 1e6)
        rnd.append((int(m.group(2)) - t0) / 1e6)
    expected = np - victims
    if len(notify) != expected:
        sys.exit(f"{len(notify)} survivors reported, expected {expected}:\n{p.stdout}")
    leader = [float(x) for x in re.findall(r"recovery round \d+ done in ([\d.]+) ms", p.stderr)]
    return notify, rnd, leader


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--np", default="4,8,16")
    args = ap.parse_args()
    print(f"{'mode':8} {'np':>3} {'fail':>4} | {'notify mean':>11} {'max':>7} | {'round mean':>10} {'max':>7} | "
          f"{'leader mean':>11} {'max':>7}   (ms, {args.reps} runs)")
    for mode in ("rebuild", "shrink", "blank"):
        for np in [int(x) for x in args.np.split(",")]:
            for victims in (1, 3):
                notify, rnd, leader = [], [], []
                for _ in range(args.reps):
                    a, b, c = one_run(args.build, mode, np, victims)
                    notify += a
                    rnd += b
                    leader += c
                print(f"{mode:8} {np:3} {victims:4} | {statistics.mean(notify):11.2f} {max(notify):7.2f} | "
                      f"{statistics.mean(rnd):10.2f} {max(rnd):7.2f} | {statistics.mean(leader):11.2f} "
                      f"{max(leader):7.2f}", flush=True)


if __name__ == "__main__":
    main()

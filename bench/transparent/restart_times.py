#!/usr/bin/env python3
"""Restart figures of transparent mode (issue 16), on the CG example
(examples/cg_checksum) at np 8 under --ft-transparent:

  1. kill to caught-up: one rank is killed after it has run S seconds (S = 5
     and 30 by default); the time from the kill (the launcher's "injected"
     timeline event) to the end of that rank's replay ("replay_end"), and the
     launcher's own "caught up after X ms" figure (from the failure report);
  2. a kill every P seconds (5 by default) during a run of about R seconds
     (60), against the fault-free run of the same solve: time to solution of
     both, their ratio, and the replay time the launcher summed up.

  bench/transparent/restart_times.py [--build DIR] [--n N] [--np 8] [--at 5,30] [--every 5] [--run-for 60]

The grid size --n is chosen so that the solve outlasts the latest kill
(the script says when it does not). Each run's load average is printed with
it: on a shared machine wall-clock figures are only as good as the load.
Not a test; figures go to docs/benchmarks.md.
"""
import argparse
import json
import os
import re
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run(a, inject, seed=1):
    """One job; returns (seconds, timeline events, stderr, load before, load after)."""
    fd, tl = tempfile.mkstemp(suffix=".jsonl")
    os.close(fd)
    cmd = [os.path.join(a.build, "bin", "ftmpirun"), "-np", str(a.np), "--ft-transparent", "--summary",
           "--timeline", tl, "--inject-seed", str(seed)]
    for spec in inject:
        cmd += ["--inject", spec]
    cmd += [os.path.join(a.build, "examples", "cg_checksum"), "-n", str(a.n), "-q"]
    l0 = load()
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=3600,
                       env=dict(os.environ, FTMPI_LOG_LIMIT="8g"))
    secs = time.monotonic() - t0
    with open(tl) as f:
        events = [json.loads(line) for line in f if line.strip()]
    os.unlink(tl)
    if p.returncode != 0 or not re.search(r"check against the failure-free solve .*: PASSED", p.stdout):
        raise SystemExit(f"failed: {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    return secs, events, p.stderr, l0, load()


def kill_to_caught_up(events):
    """[(rank, seconds from its kill to its replay's end)] in kill order."""
    out = []
    for e in events:
        if e["event"] != "injected" or not e.get("ok"):
            continue
        end = next((x for x in events if x["event"] == "replay_end" and x.get("rank") == e["rank"]
                    and x["wall"] > e["wall"]), None)
        out.append((e["rank"], end["wall"] - e["wall"] if end else None))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--n", type=int, default=150, help="grid points per side of the CG solve")
    ap.add_argument("--np", type=int, default=8)
    ap.add_argument("--rank", type=int, default=3, help="the rank killed in part 1")
    ap.add_argument("--at", default="5,30", help="part 1: seconds the killed rank has run")
    ap.add_argument("--every", type=float, default=5.0)
    ap.add_argument("--run-for", type=float, default=60.0)
    a = ap.parse_args()

    base, _, _, l0, l1 = run(a, [])
    print(f"fault-free: {base:.1f} s (load {l0:.1f} -> {l1:.1f}), n {a.n}, np {a.np}")
    for s in (float(x) for x in a.at.split(",")):
        if s >= base:
            print(f"kill at {s:g} s: the solve lasts {base:.1f} s, raise --n")
            continue
        secs, events, err, l0, l1 = run(a, [f"kill rank={a.rank} at={s:g}s"])
        m = re.search(rf"rank {a.rank} caught up after (\d+) ms", err)
        for rank, d in kill_to_caught_up(events):
            print(f"kill at {s:g} s: rank {rank} caught up {d * 1e3:.0f} ms after its kill"
                  f" (launcher: {m.group(1) if m else '?'} ms from the failure report);"
                  f" job {secs:.1f} s against {base:.1f} s (load {l0:.1f} -> {l1:.1f})")
    count = int(a.run_for // a.every) - 1
    if base < a.run_for:
        print(f"note: the fault-free solve lasts {base:.1f} s, under --run-for {a.run_for:g}: kills past its end miss")
    secs, events, err, l0, l1 = run(a, [f"kill random at={a.every:g}s every={a.every:g}s count={count}"], seed=5)
    ups = kill_to_caught_up(events)
    m = re.search(r"job survived (\d+) failures? \((\d+) replays? caught up, (\d+) ms replaying\)", err)
    print(f"a kill every {a.every:g} s ({len(ups)} made): {secs:.1f} s against {base:.1f} s fault-free = "
          f"{secs / base:.2f}x; {m.group(0) if m else 'no summary'}; kill to caught-up "
          + ", ".join(f"r{r} {d * 1e3:.0f} ms" if d else f"r{r} ?" for r, d in ups) + f" (load {l0:.1f} -> {l1:.1f})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Runs one example program under ftmpirun with failures, and checks the end.

Failures come from the launcher in one of two ways:
  - `--inject` specs passed through `--launcher` (times count from the end of
    MPI_Init; `kill random` picks with the launcher's seeded generator);
  - `--random-kills N --seed S`: this script waits until the program prints
    `--kill-after` (e.g. the master's "farm starts"), then SIGKILLs N ranks
    drawn from `--kill-ranks` at seeded random offsets within `--kill-window`
    through `ftmpirun --kill JOB:RANK`, as a user would from another terminal.
    `--burst` sends the second kill 5-30 ms after the first, while the
    survivors are recovering (a failure during recovery);
  - `--kill-at RANK@SECONDS` (repeatable): the same, at fixed offsets after
    `--kill-after`; kills with the same offset go in one `ftmpirun --kill
    JOB:R1,R2` (simultaneous failures: the launcher sends them in one go;
    two commands would land milliseconds apart, after a fast machine's
    first recovery). A test that needs a state the program reaches
    at its own pace (a first checkpoint) waits for the line that says so
    instead of guessing a time, which a loaded machine makes wrong;
  - `--kill-on RANK@REGEX[@REGEX...]` (repeatable): after those, RANK once
    lines of the program's output printed since the previous kill matched
    each REGEX in turn (a second failure once the first recovery is over and
    a checkpoint followed it, whatever the machine's pace).

The example itself compares its result with a failure-free computation and
exits non-zero on a mismatch. Checked here: the exit status, the program's
verdict line(s) (`--expect-stdout`), that the launcher survived exactly the
failures that were made (`job survived N failures`), that the job ended within
`--timeout` (no hang), that no process of the job is left behind, and that
none reported a sanitizer finding (tests/tools/sanitizer_reports.py).
"""
import argparse
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from run_job import tagged_pids  # noqa: E402
from sanitizer_reports import SanitizerLog  # noqa: E402


def parse_ranks(text):
    ranks = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        ranks.extend(range(int(lo), int(hi or lo) + 1))
    return ranks


def plan_kills(a):
    """[(offset seconds, rank)], reproducible from the seed."""
    rng = random.Random(a.seed)
    ranks = parse_ranks(a.kill_ranks)
    lo, hi = (float(x) for x in a.kill_window.split(","))
    victims = rng.sample(ranks, a.random_kills) if a.distinct else [rng.choice(ranks) for _ in range(a.random_kills)]
    times = sorted(rng.uniform(lo, hi) for _ in range(a.random_kills))
    if a.burst and a.random_kills >= 2:
        times[1] = times[0] + rng.uniform(0.005, 0.030)
        times.sort()
    return list(zip(times, victims))


def fixed_kills(specs):
    """[(offset seconds, rank)] from RANK@SECONDS specs."""
    plan = []
    for spec in specs:
        rank, sep, offset = spec.partition("@")
        if not sep:
            sys.exit(f"example_job.py: --kill-at wants RANK@SECONDS, got '{spec}'")
        plan.append((float(offset), int(rank)))
    return sorted(plan)


def group_by_offset(plan):
    """[(offset, [ranks])]: kills planned for the same instant go together."""
    groups = []
    for offset, rank in plan:
        if groups and groups[-1][0] == offset:
            groups[-1][1].append(rank)
        else:
            groups.append((offset, [rank]))
    return groups


def main():
    with SanitizerLog() as san:
        return run(san)


def run(san):
    ap = argparse.ArgumentParser()
    ap.add_argument("--ftmpirun", required=True)
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--launcher", action="append", default=[], help="an ftmpirun option (repeatable)")
    ap.add_argument("--random-kills", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kill-ranks", default="1-7")
    ap.add_argument("--kill-window", default="0.05,0.5", help="seconds after --kill-after: first,last")
    ap.add_argument("--kill-after", default=None, help="regex of the output line that starts the clock")
    ap.add_argument("--distinct", action="store_true", help="never the same rank twice (BLANK, SHRINK)")
    ap.add_argument("--burst", action="store_true")
    ap.add_argument("--kill-at", action="append", default=[], help="RANK@SECONDS after --kill-after (repeatable)")
    ap.add_argument("--kill-on", action="append", default=[], help="RANK@REGEX[@REGEX...]: after the "
                    "timed kills, kill RANK once stdout lines since the previous kill matched each REGEX in turn")
    ap.add_argument("--expect-failures", default=None, help="N, or 'kills' for as many as were made")
    ap.add_argument("--min-failures", type=int, default=1)
    ap.add_argument("--expect-exit", default="0", help="an exit code, or 'nonzero'")
    ap.add_argument("--expect-stdout", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=90)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    program = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd

    cmd = [a.ftmpirun, "-np", str(a.np)] + a.launcher + program
    plan = plan_kills(a) if a.random_kills else fixed_kills(a.kill_at)
    triggered = []
    for spec in a.kill_on:
        rank, *rxs = spec.split("@")
        if not rxs:
            sys.exit(f"example_job.py: --kill-on wants RANK@REGEX[@REGEX...], got '{spec}'")
        triggered.append((int(rank), [re.compile(rx) for rx in rxs]))
    print("command:", " ".join(cmd))
    if plan:
        print(f"{f'seed {a.seed}: ' if a.random_kills else ''}kills (s after /{a.kill_after}/, rank): "
              + ", ".join(f"({t:.3f}, {r})" for t, r in plan))
    for rank, rxs in triggered:
        print(f"then rank {rank} once the output matches " + ", then ".join(f"/{rx.pattern}/" for rx in rxs))
    sys.stdout.flush()

    tag = uuid.uuid4().hex
    env = san.env(dict(os.environ, FTMPI_TEST_TAG=tag))
    t0 = time.time()
    p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, errors="replace")
    out_lines, err_lines, made = [], [], []
    started = threading.Event()

    def read_out():
        for line in p.stdout:
            out_lines.append(line)
            if a.kill_after and re.search(a.kill_after, line):
                started.set()

    def read_err():
        for line in p.stderr:
            err_lines.append(line)

    readers = [threading.Thread(target=read_out), threading.Thread(target=read_err)]
    for r in readers:
        r.start()
    mark = [0]  # stdout lines printed before the last kill

    def kill(ranks):
        """One `ftmpirun --kill JOB:R1,R2...`: the launcher sends all the kills
        at once (separate commands land milliseconds apart, after a fast
        machine's first recovery)."""
        mark[0] = len(out_lines)
        k = subprocess.run([a.ftmpirun, "--kill", f"{p.pid}:" + ",".join(map(str, ranks))], capture_output=True,
                           text=True)
        lines = (k.stdout + k.stderr).splitlines()
        for rank in ranks:
            done = re.search(rf"^ftmpirun: job \d+: killed rank {rank} \(", k.stdout, re.M) is not None
            # The line about this rank, else what the command said (a refusal is one line for all).
            said = [l for l in lines if re.search(rf"\brank {rank}\b", l)] or lines
            made.append((rank, done, " ".join(said)))

    if plan:
        if not a.kill_after:
            started.set()
        if started.wait(timeout=a.timeout):
            t_start = time.time()
            for offset, ranks in group_by_offset(plan):
                delay = t_start + offset - time.time()
                if delay > 0:
                    time.sleep(delay)
                kill(ranks)
    def lines_seen(rxs):
        """True once lines since the last kill matched each of `rxs` in turn;
        False if the job ended or the time ran out first."""
        i = mark[0]
        for rx in rxs:
            while True:
                while i < len(out_lines) and not rx.search(out_lines[i]):
                    i += 1
                if i < len(out_lines):
                    i += 1
                    break
                if p.poll() is not None or time.time() - t0 > a.timeout:
                    return False
                time.sleep(0.01)
        return True

    for rank, rxs in triggered:
        if lines_seen(rxs):
            kill([rank])
    hang = False
    try:
        p.wait(timeout=max(1.0, a.timeout - (time.time() - t0)))
    except subprocess.TimeoutExpired:
        hang = True
        p.kill()
        for pid in tagged_pids(tag):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        p.wait()
    for r in readers:
        r.join()
    elapsed = time.time() - t0
    out, err = "".join(out_lines), "".join(err_lines)
    sys.stdout.write(out)
    sys.stdout.write(err)
    for rank, ok, text in made:
        print(f"kill rank {rank}: {'done' if ok else 'not made'} ({text})")

    failures = []
    if hang:
        failures.append(f"job did not end within {a.timeout} s (hang)")
    elif a.expect_exit == "nonzero":
        if p.returncode == 0:
            failures.append("expected a non-zero exit status, got 0")
    elif p.returncode != int(a.expect_exit):
        failures.append(f"expected exit status {a.expect_exit}, got {p.returncode}")
    for rx in a.expect_stdout:
        if not re.search(rx, out, re.M):
            failures.append(f"stdout does not match /{rx}/")
    m = re.search(r"job survived (\d+) failures?", err)
    survived = int(m.group(1)) if m else 0
    if a.expect_failures is not None and not hang:
        want = sum(ok for _, ok, _ in made) if a.expect_failures == "kills" else int(a.expect_failures)
        if survived != want:
            failures.append(f"expected the job to survive {want} failures, it reports {survived}")
    if not hang and a.expect_exit == "0" and survived < a.min_failures:
        failures.append(f"only {survived} failures happened (at least {a.min_failures} wanted): the test tested nothing")
    left = []
    for _ in range(40):
        left = tagged_pids(tag)
        if not left:
            break
        time.sleep(0.05)
    if left:
        failures.append(f"processes left behind: {left}")
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    failures += san.failures(out, err)
    for f in failures:
        print("FAIL: " + f)
    print(f"job ended with status {p.returncode} after {elapsed:.2f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

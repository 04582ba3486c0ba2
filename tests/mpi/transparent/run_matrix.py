#!/usr/bin/env python3
"""Runs every MPI test program of tests/mpi that makes no FT call under
--ft-transparent, with one kill and with three kills (fixed seeds, rank 0
included), each with the same checks as its own CTest entry.

  run_matrix.py BUILD_DIR [--filter REGEX] [--plan 1|3] [--repeat N]
                [--ckpt-interval T [--ckpt-store S]] [--log-dir DIR] [--verbose]

The test list comes from `ctest --show-only=json-v1`: every test that runs a
program of BUILD_DIR/tests/mpi through run_job.py and expects exit status 0,
minus the fault-tolerance tests (FT modes, failures, injections). For each,
the launcher gets --ft-transparent and the kills; the figures at the end say
how many runs passed and how many kills hit a running job.

The kill plans are timed from the end of MPI_Init: "1 kill" kills rank 0 at
30 ms, "3 kills" three random ranks 20, 60 and 100 ms in (seed 7). Many of
these programs end sooner. A kill that comes when the program has ended is
not made: ranks already gone are not picked, and the daemon refuses to kill
a rank released from its MPI_Finalize fence (the launcher prints
"injection skipped: rank N has finished MPI_Finalize"): after MPI_Finalize
returned the process is no MPI process any more, nothing can restart it,
and as with any MPI its death would be the job's exit status
(spec/wire-control.md, "Fault injection"). Such kills are counted apart
("skipped"); a kill inside MPI_Finalize, before the fence is done, is made
and must be survived.

Every failing run leaves its command line, exit status, stdout and stderr in
LOG_DIR/<test>.<plan>[.<repeat>].log (default LOG_DIR:
BUILD_DIR/transparent-matrix), so that a failure can be diagnosed after the
matrix ended; the directory is emptied of older logs when the matrix starts.
--plan runs one of the two kill plans only, --repeat runs each N times.
--ckpt-interval (e.g. 10ms) runs every case with checkpoints as well
(--ckpt-store: the launcher's store, default its own): a restart then
begins at the rank's latest checkpoint, and the garbage collection that
follows each one drops what senders and the event logger held before it.
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import time

# Programs that exercise FT-MPI calls or failures themselves, and
# p2p.seam_counts, which installs its own module in place of message
# logging (its failure policy is FT-MPI's: a kill fails its collective).
EXCLUDE = re.compile(r"(^ft\.|\.kill|\.abort|\.exit_early|failure|fatal|errors|pending|examples|"
                     r"\.timeline|\.inject|singleton|signal|stdin|seam_counts)")


def load_tests(build):
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], stdout=subprocess.PIPE,
                         check=True).stdout
    tests = []
    for t in json.loads(out)["tests"]:
        cmd = t.get("command") or []
        if len(cmd) < 3 or not cmd[1].endswith("run_job.py") or "--" not in cmd:
            continue
        name = t["name"]
        if EXCLUDE.search(name) or "--expect-exit" in cmd:
            continue
        sep = cmd.index("--")
        launch = cmd[sep + 1:]
        if not launch or not launch[0].endswith("ftmpirun"):
            continue
        if any(a.startswith("--ft-") or a.startswith("--inject") for a in launch):
            continue
        if "/tests/mpi/" not in " ".join(launch):
            continue
        env = {}
        for p in t.get("properties", []):
            if p["name"] == "ENVIRONMENT":
                for kv in p["value"]:
                    k, _, v = kv.partition("=")
                    env[k] = v
        tests.append((name, cmd, sep, env))
    return tests


def run(cmd, sep, env, kills, seed, ckpt):
    # run_job options, then the launcher with transparent mode and the kills.
    launch = cmd[sep + 1:]
    np_at = launch.index("-np") + 2
    extra = ["--ft-transparent", "--inject-seed", str(seed), "--summary"] + ckpt
    for k in kills:
        extra += ["--inject", k]
    new = cmd[:sep + 1] + launch[:np_at] + extra + launch[np_at:]
    t0 = time.time()
    p = subprocess.run(new, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, **env))
    err = p.stderr.decode(errors="replace")
    died = len(re.findall(r"rank \d+ .*(died|killed)", err))
    skipped = len(re.findall(r"^ftmpirun: injection .*skipped", err, re.M))
    return p.returncode, died, skipped, time.time() - t0, new, p.stdout.decode(errors="replace"), err


def keep_log(log_dir, name, label, rep, status, cmd, out, err):
    """Writes a failing run's command, status and output; returns the path."""
    base = f"{name}.{label.replace(' ', '')}" + (f".{rep}" if rep else "")
    path = os.path.join(log_dir, re.sub(r"[^A-Za-z0-9_.-]", "_", base) + ".log")
    with open(path, "w") as f:
        f.write("command: " + " ".join(shlex.quote(c) for c in cmd) + "\n")
        f.write(f"exit status: {status}\n\n--- stdout ---\n{out}\n--- stderr ---\n{err}")
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--filter", default="")
    ap.add_argument("--plan", choices=["1", "3"], help="run this kill plan only")
    ap.add_argument("--repeat", type=int, default=1, help="run every case N times")
    ap.add_argument("--log-dir", help="where failing runs leave their output (default BUILD_DIR/transparent-matrix)")
    ap.add_argument("--verbose", action="store_true", help="print a failing run's output too")
    ap.add_argument("--ckpt-interval", help="checkpoint every rank this often (the launcher's syntax: 10ms, 1s)")
    ap.add_argument("--ckpt-store", help="the launcher's --ckpt-store (with --ckpt-interval)")
    a = ap.parse_args()
    if a.ckpt_store and not a.ckpt_interval:
        ap.error("--ckpt-store needs --ckpt-interval")
    ckpt = [f"--ckpt-interval={a.ckpt_interval}"] if a.ckpt_interval else []
    if a.ckpt_store:
        ckpt.append(f"--ckpt-store={a.ckpt_store}")
    tests = [t for t in load_tests(a.build) if re.search(a.filter, t[0])]
    plans = {
        "1 kill": (["kill rank=0 at=30ms"], 1),
        "3 kills": (["kill random at=20ms every=40ms count=3"], 7),
    }
    if a.plan:
        plans = {k: v for k, v in plans.items() if k.startswith(a.plan)}
    log_dir = a.log_dir or os.path.join(a.build, "transparent-matrix")
    os.makedirs(log_dir, exist_ok=True)
    for old in os.listdir(log_dir):
        if old.endswith(".log"):
            os.unlink(os.path.join(log_dir, old))
    total = passed = hits = skips = 0
    failed = []
    for name, cmd, sep, env in tests:
        for label, (kills, seed) in plans.items():
            for rep in range(a.repeat):
                status, died, skipped, secs, full, out, err = run(cmd, sep, env, kills, seed, ckpt)
                ok = status == 0
                total += 1
                passed += ok
                hits += died
                skips += skipped
                print(f"{'ok  ' if ok else 'FAIL'} {name:45s} {label:8s} {died} kill(s) hit, {skipped} skipped"
                      f"  {secs:5.1f} s", flush=True)
                if not ok:
                    path = keep_log(log_dir, name, label, rep if a.repeat > 1 else 0, status, full, out, err)
                    failed.append(f"{name} ({label}): {path}")
                    if a.verbose:
                        print(out + err)
    with_ckpt = f", checkpoints: {' '.join(ckpt)}" if ckpt else ""
    print(f"\nmatrix: {passed}/{total} runs passed, {hits} kills hit a running job, {skips} skipped "
          f"(the program had ended), {len(tests)} programs{with_ckpt}")
    for f in failed:
        print("  failed: " + f)
    return 0 if passed == total else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checkpoint tests (spec/checkpoint-protocol.md): runs a program once
without failures and without checkpoints for the reference output, then
again under --ft-transparent with checkpoints and real kills, and checks
that
  - the job exits 0 with exactly the reference stdout;
  - at least --min-ckpts checkpoints were taken, each line well formed,
    and the timeline has one `checkpoint` event per line;
  - the failures were survived (--expect-survived), and no image or rank
    process is left behind;
  - the summary reports the sender-log peak, which must stay under
    --max-log-mib when given.
Prints the pause figures it saw (for the report; never a pass condition).

  run_ckpt.py [options] -- FTMPIRUN -np N PROGRAM ARGS...
Options after the first -- : --ckpt ARG (repeatable, ftmpirun checkpoint
options), --kill SPEC (repeatable --inject). The program gets one more
argument, a marker it must ignore, by which leftover processes are found.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def run(cmd, env, timeout):
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"), time.monotonic() - t0


def fail(msg, out="", err=""):
    print("FAIL:", msg)
    if out:
        print("--- stdout\n" + out[-4000:])
    if err:
        print("--- stderr\n" + err[-8000:])
    sys.exit(1)


def leftovers(marker):
    p = subprocess.run(["pgrep", "-f", marker], stdout=subprocess.PIPE)
    return [x for x in p.stdout.decode().split() if int(x) != os.getpid()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", action="append", default=[])
    ap.add_argument("--kill", action="append", default=[])
    ap.add_argument("--seed", default="1")
    ap.add_argument("--min-ckpts", type=int, default=1)
    ap.add_argument("--expect-survived", type=int, default=None)
    ap.add_argument("--expect-stderr", action="append", default=[])
    ap.add_argument("--max-log-mib", type=float, default=None)
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    launcher, rest = cmd[0], cmd[1:]
    env = dict(os.environ)

    code, ref, err, t_ref = run([launcher] + rest + ["ref-%d" % os.getpid()], env, a.timeout)
    if code != 0:
        fail("the reference run (no failures, no checkpoints) exited %d" % code, ref, err)

    with tempfile.TemporaryDirectory() as tmp:
        tl = os.path.join(tmp, "timeline.jsonl")
        marker = "ckpt-test-%d-%d" % (os.getpid(), int(time.time()))
        args = [launcher, "--ft-transparent", "--summary", "--timeline", tl] + a.ckpt
        for k in a.kill:
            args += ["--inject", k]
        if a.kill:
            args += ["--inject-seed", a.seed]
        args += rest + [marker]  # the program ignores it; pgrep finds ranks and images by it
        code, out, err, t_run = run(args, env, a.timeout)
        if code != 0:
            fail("the run with checkpoints exited %d" % code, out, err)
        if out != ref:
            fail("stdout differs from the failure-free run:\n--- reference\n" + ref, out, err)
        lines = re.findall(r"ftmpirun: checkpoint (\d+) of rank (\d+): ([\d.]+) MiB resident, pause ([\d.]+) ms "
                           r"\((\d+) ms/GiB\), local image pid (\d+)", err)
        if len(lines) < a.min_ckpts:
            fail("%d checkpoints taken, expected at least %d" % (len(lines), a.min_ckpts), out, err)
        events = [json.loads(l) for l in open(tl)]
        ck = [e for e in events if e["event"] == "checkpoint"]
        if len(ck) != len(lines):
            fail("%d checkpoint lines but %d timeline events" % (len(lines), len(ck)), out, err)
        for e in ck:
            if not (e["resident"] > 0 and e["pause_ms"] >= 0 and e["image_pid"] > 0 and e["store"] == "local"):
                fail("bad checkpoint event %r" % e, out, err)
        m = re.search(r"ftmpirun: checkpoints: (\d+) taken, (\d+) not; .*sender logs peaked at ([\d.]+) MiB", err)
        if not m or int(m.group(1)) != len(lines):
            fail("no or wrong checkpoint summary line", out, err)
        if a.expect_survived is not None and not re.search(r"job survived %d failure" % a.expect_survived, err):
            fail("expected 'job survived %d failure(s)'" % a.expect_survived, out, err)
        for rx in a.expect_stderr:
            if not re.search(rx, err):
                fail("stderr does not match %r" % rx, out, err)
        peak = float(m.group(3))
        if a.max_log_mib is not None and peak > a.max_log_mib:
            fail("sender logs peaked at %.1f MiB, over %.1f" % (peak, a.max_log_mib), out, err)
        time.sleep(0.3)
        left = leftovers(marker)
        if left:
            fail("processes left behind: %s" % left, out, err)
        pauses = sorted(float(x[3]) for x in lines)
        per_gib = sorted(int(x[4]) for x in lines)
        print("ok: %d checkpoints (%s not taken), pause median %.2f ms max %.2f ms, median %d ms/GiB; "
              "sender-log peak %.1f MiB; %.1f s against %.1f s failure-free"
              % (len(lines), m.group(2), pauses[len(pauses) // 2], pauses[-1], per_gib[len(per_gib) // 2], peak,
                 t_run, t_ref))


if __name__ == "__main__":
    main()

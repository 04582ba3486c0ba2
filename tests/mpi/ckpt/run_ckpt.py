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
    --max-log-mib when given, and the bytes garbage collection reclaimed,
    at least --min-reclaimed-mib when given (the timeline's sender_log
    events must agree: none above the peak, reclaimed figures present);
  - with --expect-end RX instead: the run with checkpoints ends with a
    non-zero status within the timeout, its stderr matches RX, and nothing
    is left behind (a failure the job cannot survive; no reference run).
Restarts from local images (spec/checkpoint-protocol.md §5):
  --kill-after R@ckpt=N[+image]  SIGKILL rank R once the timeline shows N
                                 checkpoints of it (+image: its latest image
                                 first, so the restart must begin at the start;
                                 +stop-image: SIGSTOP the image first, so that
                                 it cannot answer its wake-up; +corrupt-image:
                                 overwrite bytes in the middle of its latest
                                 stored image file, which a restore refuses)
  --kill-after R,S@ckpt=N        the same for several ranks at once (each with
                                 N checkpoints)
  --kill-after R@woken=K         SIGKILL rank R as soon as it restarted from an
                                 image for the K-th time (inside its replay)
  --expect-wakes N / --expect-from-start N: at least that many restarts of
  each kind; every restart from an image is checked (a later one of the same
  rank from the same checkpoint, the spare its wake-up left, or a newer one;
  messages it skipped > 0, the line printed).
  --sort-output compares stdout line by line in sorted order (ranks print
  concurrently; a line lost or printed twice still fails).
With --store buddy|disk:DIR|memory every checkpoint line and event must also say
the image was stored (bytes, time); --disk-images keep|gone checks DIR
after the job (kept: whole images only, FTMPICKP...FTMPIEND; gone: none of
the job's files left); --expect-restores N needs at least N restores from a
stored image, each one resumed as the next incarnation (its mpirun line and
timeline event; no restorer fell back to the program's start);
--expect-delta-restores N: at least N of them from an incremental image
(spec/checkpoint-image.md §4a: the checkpoint's file is .cN.dBASE.img);
--max-from-start N: at most N restarts from the program's start of a rank
that had completed a checkpoint before (one killed before its first has no
image to come back from).
Machine speed: an argument written @N in the program's arguments (its
iteration count) is scaled up from N until the failure-free reference run
lasts at least --min-seconds, and that count serves both runs: kills that
wait for the Nth checkpoint or come every few seconds then find the program
still running on a fast machine. --max-log-share F bounds each rank's
sender-log peak by F times what it logged in all (its bytes held plus those
garbage collection reclaimed, from its timeline sender_log events): a bound
that holds at any traffic rate, where --max-log-mib holds at one.
Prints the pause, wake-up and store figures it saw (for the report; never a
pass condition). A sanitizer report from any process of either run, a frozen
copy included, fails the case (tests/tools/sanitizer_reports.py).

  run_ckpt.py [options] -- FTMPIRUN -np N PROGRAM ARGS...
Options after the first -- : --ckpt ARG (repeatable, ftmpirun checkpoint
options), --kill SPEC (repeatable --inject). The program gets one more
argument, a marker it must ignore, by which leftover processes are found.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from sanitizer_reports import SanitizerLog  # noqa: E402


def timed_out(cmd, timeout, out, err, tl=None):
    """A run that did not end: what it had done, to tell slow from stuck."""
    ev = timeline(tl) if tl else []
    ck = len([e for e in ev if e["event"] == "checkpoint"])
    last = ev[-1] if ev else None
    err = "".join(l for l in err.splitlines(True) if not re.match(r"ftmpirun: checkpoint \d+ of rank", l))
    fail("%s did not end within %.0f s (load %.1f; %d checkpoints in the timeline, last event %r; "
         "checkpoint lines left out below)" % (os.path.basename(cmd[0]), timeout, os.getloadavg()[0], ck, last),
         out, err)


def run(cmd, env, timeout, tl=None):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        timed_out(cmd, timeout, (e.stdout or b"").decode(errors="replace"), (e.stderr or b"").decode(errors="replace"),
                  tl)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"), time.monotonic() - t0


def calibrate(launcher, rest, env, a, san):
    """The reference run, with an @N argument scaled until it lasts at least
    --min-seconds; returns the arguments used, the run's stdout and time."""
    at = [i for i, x in enumerate(rest) if x.startswith("@")]
    if len(at) > 1 or (at and a.min_seconds is None) or (a.min_seconds is not None and not at):
        raise SystemExit("run_ckpt.py: --min-seconds and exactly one @N argument go together")
    n = int(rest[at[0]][1:]) if at else 0
    while True:
        args = rest[:at[0]] + [str(n)] + rest[at[0] + 1:] if at else rest
        code, ref, err, t = run([launcher] + args + ["ref-%d" % os.getpid()], env, a.timeout)
        sanitizer_check(san, ref, err)
        if code != 0:
            fail("the reference run (no failures, no checkpoints) exited %d" % code, ref, err)
        if not at or t >= a.min_seconds:
            if at:
                print("calibrated: %d iterations, reference run %.1f s" % (n, t))
            return args, ref, t
        if t * 2 > a.timeout:
            fail("the reference run took %.1f s for %d iterations, short of --min-seconds %.1f, and a longer "
                 "one would not fit the timeout" % (t, n, a.min_seconds), ref, err)
        n = int(n * min(16.0, max(1.2, 1.1 * a.min_seconds / max(t, 0.05))))


def check_log_share(a, events, out, err):
    by_rank = {}
    for e in events:
        if e["event"] == "sender_log":
            r = by_rank.setdefault(e["rank"], [0, 0])
            r[0] = max(r[0], e["bytes"])
            r[1] = max(r[1], e["bytes"] + e["reclaimed"])
    if not by_rank:
        fail("no sender_log event to bound the logs by", out, err)
    for rank, (peak, total) in sorted(by_rank.items()):
        if peak > a.max_log_share * total:
            fail("rank %d's sender log peaked at %.1f MiB, over %.2f of the %.1f MiB it logged"
                 % (rank, peak / 1048576, a.max_log_share, total / 1048576), out, err)
    worst = max(p / t for p, t in by_rank.values() if t > 0)
    print("sender logs: peak at most %.2f of what a rank logged" % worst)


def timeline(path):
    try:
        with open(path) as f:
            lines = [l for l in f if l.endswith("\n")]
    except FileNotFoundError:
        return []
    # Read while ftmpirun writes: a line may be caught half written.
    events = []
    for l in lines:
        try:
            events.append(json.loads(l))
        except ValueError:
            pass
    return events


def parse_kill(spec):
    m = re.fullmatch(r"(\d+(?:,\d+)*)@(ckpt|woken)=(\d+)(\+image|\+stop-image|\+corrupt-image)?", spec)
    if not m or (m.group(2) == "woken" and m.group(4)):
        raise SystemExit("bad --kill-after %r" % spec)
    image = {None: None, "+image": signal.SIGKILL, "+stop-image": signal.SIGSTOP,
             "+corrupt-image": "corrupt"}[m.group(4)]
    return {"ranks": [int(x) for x in m.group(1).split(",")], "on": m.group(2), "n": int(m.group(3)),
            "image": image, "done": False}


def corrupt_image(path):
    """Overwrites 4 KiB in the middle of a stored image (its chunk hashes
    no longer match: the restorer refuses it before changing anything)."""
    if not path or not os.path.isfile(path):
        raise SystemExit("+corrupt-image: no stored image file %r" % path)
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.seek(size // 2)
        f.write(b"\xa5" * 4096)


def run_killing(cmd, env, timeout, tl, kills):
    """Runs cmd, firing each kill once its condition shows in the timeline."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        p = subprocess.Popen(cmd, env=env, stdout=fo, stderr=fe)
        fired = []
        while p.poll() is None:
            if time.monotonic() - t0 > timeout:
                p.kill()
                p.wait()
                fo.seek(0)
                fe.seek(0)
                timed_out(cmd, timeout, fo.read().decode(errors="replace"), fe.read().decode(errors="replace"), tl)
            ev = timeline(tl)
            for k in kills:
                if k["done"]:
                    continue
                ready = True
                for r in k["ranks"]:
                    ck = [e for e in ev if e["event"] == "checkpoint" and e["rank"] == r]
                    wk = [e for e in ev if e["event"] == "restart_from_image" and e["rank"] == r]
                    starts = [e for e in ev if e["event"] in ("rank_start", "restart") and e["rank"] == r]
                    ready = ready and starts and (len(ck) if k["on"] == "ckpt" else len(wk)) >= k["n"]
                if not ready:
                    continue
                k["done"] = True
                # Images first, then every rank of the spec at once.
                for r in k["ranks"]:
                    ck = [e for e in ev if e["event"] == "checkpoint" and e["rank"] == r]
                    if k["image"] == "corrupt" and ck:
                        corrupt_image(ck[-1].get("stored_at", ""))
                    elif k["image"] and ck:
                        try:
                            os.kill(ck[-1]["image_pid"], k["image"])
                        except ProcessLookupError:
                            pass
                for r in k["ranks"]:
                    pid = [e for e in ev if e["event"] in ("rank_start", "restart") and e["rank"] == r][-1]["pid"]
                    try:
                        os.kill(pid, signal.SIGKILL)
                        fired.append((r, pid))
                    except ProcessLookupError:
                        pass
            time.sleep(0.005)
        fo.seek(0)
        fe.seek(0)
        return (p.returncode, fo.read().decode(errors="replace"), fe.read().decode(errors="replace"),
                time.monotonic() - t0, fired)


def check_wakes(a, events, out, err):
    images = [e for e in events if e["event"] == "restart_from_image"]
    wakes = [e for e in images if e["store"] == "local"]
    restores = [e for e in images if e["store"] != "local"]
    restarts = [e for e in events if e["event"] == "restart"]
    lines = re.findall(r"ftmpirun: rank (\d+) restarts from checkpoint (\d+) \(local image", err)
    if len(lines) != len(wakes):
        fail("%d restart-from-image lines but %d timeline events" % (len(lines), len(wakes)), out, err)
    stored = re.findall(r"ftmpirun: rank (\d+) restarts from checkpoint (\d+) \((buddy|disk|memory) image", err)
    if len(stored) != len(restores):
        fail("%d restart-from-stored-image lines but %d timeline events" % (len(stored), len(restores)), out, err)
    if a.expect_restores is not None and len(restores) < a.expect_restores:
        fail("%d restores from a stored image, expected at least %d" % (len(restores), a.expect_restores), out, err)
    # A restorer that could not become the next incarnation is started
    # again from the program's start: a restore only counts if it held.
    if a.expect_restores and re.search(r"did not come back from stored image", err):
        fail("a restored process did not resume", out, err)
    # Restores whose image was incremental (spec/checkpoint-image.md §4a):
    # its file, as the checkpoint event names it, is .cN.dBASE.img.
    stored_at = {(e["rank"], e["number"]): e.get("stored_at", "") for e in events if e["event"] == "checkpoint"}
    incremental = {k for k, v in stored_at.items() if re.search(r"\.d\d+\.img$", v)}
    deltas = [e for e in restores if (e["rank"], e["checkpoint"]) in incremental]
    if len(deltas) < a.expect_delta_restores:
        n = len(incremental)
        fail("%d restores from an incremental image, expected at least %d (%d of the %d images were incremental)"
             % (len(deltas), a.expect_delta_restores, n, len(stored_at)), out, err)
    last = {}
    for w in wakes:
        if w["messages_skipped"] <= 0:
            fail("restart from an image that skipped no message: %r" % w, out, err)
        # The same checkpoint again is the spare the last wake-up left.
        if w["rank"] in last and w["checkpoint"] < last[w["rank"]]:
            fail("rank %d restarted from checkpoint %d after %d" % (w["rank"], w["checkpoint"], last[w["rank"]]),
                 out, err)
        last[w["rank"]] = w["checkpoint"]
    if a.max_wakes is not None and len(wakes) > a.max_wakes:
        fail("%d restarts from an image, expected at most %d" % (len(wakes), a.max_wakes), out, err)
    if len(wakes) < a.expect_wakes:
        fail("%d restarts from an image, expected at least %d" % (len(wakes), a.expect_wakes), out, err)
    from_start = len(restarts) - len(images)
    if from_start < a.expect_from_start:
        fail("%d restarts from the start, expected at least %d" % (from_start, a.expect_from_start), out, err)
    # A rank killed before its first checkpoint has no image to come back
    # from (a timed kill on a loaded machine may come that early): only the
    # restarts from the start of a rank that had one count against the limit.
    imaged = {(e["rank"], e["incarnation"]) for e in images}
    had_ckpt, avoidable = set(), 0
    for e in events:
        if e["event"] == "checkpoint":
            had_ckpt.add(e["rank"])
        elif e["event"] == "restart" and (e["rank"], e["incarnation"]) not in imaged and e["rank"] in had_ckpt:
            avoidable += 1
    if a.max_from_start is not None and avoidable > a.max_from_start:
        fail("%d restarts from the start of a rank that had a checkpoint, expected at most %d"
             % (avoidable, a.max_from_start), out, err)
    return wakes


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
    with SanitizerLog() as san:
        try:
            check(san)
        except SystemExit as e:
            if e.code:  # a hang or a wrong result a report may explain
                for f in san.failures():
                    print("FAIL: " + f)
            raise


def sanitizer_check(san, out="", err=""):
    """A report from any process of either run (a frozen copy included)."""
    found = san.failures(out, err)
    if found:
        fail("; ".join(found), out, err)


def check(san):
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", action="append", default=[])
    ap.add_argument("--kill", action="append", default=[])
    ap.add_argument("--seed", default="1")
    ap.add_argument("--min-ckpts", type=int, default=1)
    ap.add_argument("--expect-survived", type=int, default=None)
    ap.add_argument("--expect-stderr", action="append", default=[])
    ap.add_argument("--max-log-mib", type=float, default=None)
    ap.add_argument("--min-reclaimed-mib", type=float, default=None)
    ap.add_argument("--expect-end", default=None)
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--kill-after", action="append", default=[])
    ap.add_argument("--expect-wakes", type=int, default=0)
    ap.add_argument("--max-wakes", type=int, default=None)
    ap.add_argument("--expect-from-start", type=int, default=0)
    ap.add_argument("--sort-output", action="store_true")
    ap.add_argument("--store", default="local")
    ap.add_argument("--disk-images", choices=["keep", "gone"], default=None)
    ap.add_argument("--expect-restores", type=int, default=None)
    ap.add_argument("--max-from-start", type=int, default=None)
    ap.add_argument("--min-seconds", type=float, default=None)
    ap.add_argument("--max-log-share", type=float, default=None)
    ap.add_argument("--expect-delta-restores", type=int, default=0)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    launcher, rest = cmd[0], cmd[1:]
    env = san.env(os.environ)

    ref, t_ref = "", 0.0
    if a.expect_end is None or a.min_seconds is not None:
        rest, ref, t_ref = calibrate(launcher, rest, env, a, san)

    with tempfile.TemporaryDirectory() as tmp:
        tl = os.path.join(tmp, "timeline.jsonl")
        marker = "ckpt-test-%d-%d" % (os.getpid(), int(time.time()))
        store = a.store
        disk_dir = None
        if store.startswith("disk"):
            disk_dir = os.path.join(tmp, "images")  # created by ftmpirun
            store = "disk:" + disk_dir
        elif store == "memory":
            disk_dir = "/dev/shm/ftmpi-ckpt-%d" % os.getuid()  # the user's on this host, shared by their jobs
        if store != "local":
            a.ckpt.append("--ckpt-store=" + store)
        if a.disk_images == "keep":
            a.ckpt.append("--ckpt-keep")
        if a.expect_restores is not None:
            env["FTMPI_DEBUG"] = "2"
        args = [launcher, "--ft-transparent", "--summary", "--timeline", tl] + a.ckpt
        for k in a.kill:
            args += ["--inject", k]
        if a.kill:
            args += ["--inject-seed", a.seed]
        args += rest + [marker]  # the program ignores it; pgrep finds ranks and images by it
        kills = [parse_kill(k) for k in a.kill_after]
        if kills:
            code, out, err, t_run, fired = run_killing(args, env, a.timeout, tl, kills)
            sanitizer_check(san, out, err)
            want = sum(len(k["ranks"]) for k in kills)
            if len(fired) != want:
                fail("only %d of %d kills fired: %r" % (len(fired), want, fired), out, err)
        else:
            code, out, err, t_run = run(args, env, a.timeout, tl)
            sanitizer_check(san, out, err)
        if a.expect_end is not None:
            if code == 0:
                fail("the run with checkpoints exited 0; expected it to end with %r" % a.expect_end, out, err)
            m = re.search(a.expect_end + ".*", err)
            if not m:
                fail("stderr does not match %r" % a.expect_end, out, err)
            time.sleep(0.3)
            left = leftovers(marker)
            if left:
                fail("processes left behind: %s" % left, out, err)
            print("ok: ended with status %d after %.1f s: %s" % (code, t_run, m.group(0)))
            return
        if code != 0:
            fail("the run with checkpoints exited %d" % code, out, err)
        if a.sort_output:
            if sorted(out.splitlines()) != sorted(ref.splitlines()):
                fail("stdout differs (as sorted lines) from the failure-free run:\n--- reference\n" + ref, out, err)
        elif out != ref:
            fail("stdout differs from the failure-free run:\n--- reference\n" + ref, out, err)
        lines = re.findall(r"ftmpirun: checkpoint (\d+) of rank (\d+): ([\d.]+) MiB resident, pause ([\d.]+) ms "
                           r"\((\d+) ms/GiB\)(?:, local image pid (\d+)|, memory:)", err)
        if len(lines) < a.min_ckpts:
            fail("%d checkpoints taken, expected at least %d" % (len(lines), a.min_ckpts), out, err)
        events = [json.loads(l) for l in open(tl)]
        wakes = check_wakes(a, events, out, err)
        # With a store, a checkpoint whose rank is killed or ends while its
        # image is being stored is answered after the launcher closed that
        # order (no line, an event): at most one per failure and per rank.
        ck = [e for e in events if e["event"] == "checkpoint"]
        np_ = int(rest[rest.index("-np") + 1]) if "-np" in rest else 1
        orphans = (a.expect_survived or 0) + np_ if a.store != "local" else 0
        # An order the launcher gave up on ("not taken: no safe point") may
        # still be taken after that: an event, no line.
        given_up = set(re.findall(r"ftmpirun: checkpoint (\d+) of rank (\d+) not taken", err))
        late = sum(1 for e in ck if (str(e["number"]), str(e["rank"])) in given_up)
        if not len(lines) <= len(ck) <= len(lines) + orphans + late:
            fail("%d checkpoint lines but %d timeline events" % (len(lines), len(ck)), out, err)
        kind = store.split(":")[0]
        for e in ck:
            # The memory store has no frozen copy: the rank wrote its image.
            pid_ok = e["image_pid"] == 0 if kind == "memory" else e["image_pid"] > 0
            if not (e["resident"] > 0 and e["pause_ms"] >= 0 and pid_ok and e["store"] == kind):
                fail("bad checkpoint event %r" % e, out, err)
        if kind != "local":
            stored = re.findall(r"ftmpirun: checkpoint \d+ of rank \d+: .*(?:local image pid \d+)?, %s.*: "
                                r"([\d.]+) MiB in ([\d.]+) ms \((\d+) MiB/s\)" % kind, err)
            if len(stored) < a.min_ckpts:
                fail("%d checkpoints stored in %s, expected at least %d" % (len(stored), kind, a.min_ckpts), out, err)
            good = [e for e in ck if "store_error" not in e]
            # A small process's resident set is mostly the transports' shared
            # segment, which no image holds: a quarter of it, or 256 KiB.
            if any(e["stored_bytes"] < min(e["resident"] // 4, 1 << 18) or e["store_ms"] <= 0 for e in good):
                fail("implausible stored sizes or times in %r" % good, out, err)
            if not re.search(r"; (\d+) stored \([\d.]+ MiB in [\d.]+ ms \(\d+ MiB/s\)\), \d+ not", err):
                fail("no stored totals in the summary line", out, err)
            rates = sorted(float(x[0]) / (float(x[1]) / 1000.0) for x in stored if float(x[1]) > 0)
            print("stored: %d images, median %.1f MiB, median rate %.0f MiB/s"
                  % (len(stored), sorted(float(x[0]) for x in stored)[len(stored) // 2], rates[len(rates) // 2]))
        if disk_dir is not None and a.disk_images is not None:
            files = sorted(os.listdir(disk_dir)) if os.path.isdir(disk_dir) else []
            if kind == "memory":  # other jobs' images share the directory: this job's only
                jobs = {os.path.basename(e["stored_at"]).split(".r")[0] + ".r" for e in ck if e.get("stored_at")}
                if not jobs:
                    fail("no checkpoint event says where its image was stored", out, err)
                files = [f for f in files if f.startswith(tuple(jobs)) and (f.endswith(".img") or f.endswith(".tmp"))]
            if a.disk_images == "gone" and files:
                fail("disk images left after a normal end: %s" % files, out, err)
            if a.disk_images == "keep":
                if not files:
                    fail("no disk images kept", out, err)
                for f in files:
                    data = open(os.path.join(disk_dir, f), "rb").read()
                    if not (f.endswith(".img") and data[:8] == b"FTMPICKP" and data[-32:-24] == b"FTMPIEND"):
                        fail("%s is not a whole image" % f, out, err)
                if not re.search(r"checkpoint images kept in " + re.escape(disk_dir), err):
                    fail("no line saying where the images were kept", out, err)
        m = re.search(r"ftmpirun: checkpoints: (\d+) taken, (\d+) not; .*sender logs peaked at ([\d.]+) MiB"
                      r".*, ([\d.]+) MiB reclaimed", err)
        if not m or int(m.group(1)) != len(lines):
            fail("no or wrong checkpoint summary line", out, err)
        if a.expect_survived is not None and not re.search(r"job survived %d failure" % a.expect_survived, err):
            fail("expected 'job survived %d failure(s)'" % a.expect_survived, out, err)
        for rx in a.expect_stderr:
            if not re.search(rx, err):
                fail("stderr does not match %r" % rx, out, err)
        peak = float(m.group(3))
        reclaimed = float(m.group(4))
        if a.max_log_share is not None:
            check_log_share(a, events, out, err)
        if a.max_log_mib is not None and peak > a.max_log_mib:
            fail("sender logs peaked at %.1f MiB, over %.1f" % (peak, a.max_log_mib), out, err)
        if a.min_reclaimed_mib is not None:
            if reclaimed < a.min_reclaimed_mib:
                fail("%.1f MiB reclaimed, expected at least %.1f" % (reclaimed, a.min_reclaimed_mib), out, err)
            sl = [e for e in events if e["event"] == "sender_log"]
            if not sl or max(e["bytes"] for e in sl) > peak * 1048576 + 1048576:
                fail("timeline sender_log events missing or above the summary's peak", out, err)
            if max(e["reclaimed"] for e in sl) <= 0:
                fail("no sender_log event reports reclaimed bytes", out, err)
        time.sleep(0.3)
        left = leftovers(marker)
        if left:
            fail("processes left behind: %s" % left, out, err)
        sanitizer_check(san)  # frozen copies that ended after the launcher
        if wakes:
            ms = sorted(w["wake_ms"] for w in wakes)
            print("wake-ups: %d, death to running again median %.1f ms max %.1f ms (load %s)"
                  % (len(ms), ms[len(ms) // 2], ms[-1], os.getloadavg()[0]))
        pauses = sorted(float(x[3]) for x in lines)
        per_gib = sorted(int(x[4]) for x in lines)
        print("ok: %d checkpoints (%s not taken), pause median %.2f ms max %.2f ms, median %d ms/GiB; "
              "sender-log peak %.1f MiB, %.1f MiB reclaimed; %.1f s against %.1f s failure-free"
              % (len(lines), m.group(2), pauses[len(pauses) // 2], pauses[-1], per_gib[len(per_gib) // 2], peak,
                 reclaimed, t_run, t_ref))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Runs one job through the real launcher and checks how it ended.

Every process of the job inherits FTMPI_TEST_TAG=<unique>; after the launcher
returns, no process carrying that tag may remain (checked through
/proc/*/environ), and /dev/shm must hold no new entries. Exit code, and
optionally stdout/stderr, are checked against expectations. A sanitizer
report from any process of the job fails it (tests/tools/sanitizer_reports.py).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid

from sanitizer_reports import SanitizerLog


def tagged_pids(tag):
    pids = []
    needle = ("FTMPI_TEST_TAG=" + tag).encode()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    pids.append(int(d))
        except OSError:
            pass
    return pids


def signal_when(p, rx, timeout):
    """(stdout, stderr) of `p`, as communicate() gives them, SIGINT sent to it
    as soon as its stdout matches `rx`; TimeoutExpired (with what it read)
    after `timeout` s, `p` killed."""
    bufs = {p.stdout: bytearray(), p.stderr: bytearray()}
    sent = threading.Event()

    def pump(stream):
        while data := stream.read1(65536):
            bufs[stream] += data
            if stream is p.stdout and not sent.is_set() and rx.search(bufs[stream].decode(errors="replace")):
                sent.set()
                p.send_signal(signal.SIGINT)

    threads = [threading.Thread(target=pump, args=(s,), daemon=True) for s in bufs]
    for t in threads:
        t.start()
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise subprocess.TimeoutExpired(p.args, timeout, output=bytes(bufs[p.stdout]), stderr=bytes(bufs[p.stderr]))
    finally:
        for t in threads:
            t.join(5)
    return bytes(bufs[p.stdout]), bytes(bufs[p.stderr])


def main():
    with SanitizerLog() as san:
        return run(san)


def run(san):
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect-exit", default="0", help="an exit code, or 'nonzero'")
    ap.add_argument("--expect-stdout", action="append", default=[], help="regex that must match stdout")
    ap.add_argument("--expect-stderr", action="append", default=[], help="regex that must match stderr")
    ap.add_argument("--reject-stderr", action="append", default=[], help="regex that must not match stderr")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--signal-when", default=None,
                    help="send SIGINT to the launcher once its stdout matches this regex (the job is running)")
    ap.add_argument("--stdin", default=None, help="text fed to the job's stdin")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if a.signal_when is not None and a.stdin is not None:
        ap.error("--signal-when does not take --stdin")
    tag = uuid.uuid4().hex
    env = san.env(dict(os.environ, FTMPI_TEST_TAG=tag))
    shm_before = set(os.listdir("/dev/shm"))
    t0 = time.time()
    p = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE if a.stdin is not None else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        if a.signal_when is not None:
            out, err = signal_when(p, re.compile(a.signal_when, re.M), a.timeout)
        else:
            stdin_bytes = a.stdin.encode().decode("unicode_escape").encode() if a.stdin is not None else None
            out, err = p.communicate(input=stdin_bytes, timeout=a.timeout)
    except subprocess.TimeoutExpired as e:
        if a.signal_when is None:
            p.kill()
            out, err = p.communicate()
        else:
            out, err = e.output, e.stderr
        for pid in tagged_pids(tag):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        sys.stdout.write(out.decode(errors="replace"))
        sys.stderr.write(err.decode(errors="replace"))
        print(f"FAIL: job did not end within {a.timeout} s (hang)")
        for f in san.failures():
            print("FAIL: " + f)
        return 1
    elapsed = time.time() - t0
    out_s, err_s = out.decode(errors="replace"), err.decode(errors="replace")
    sys.stdout.write(out_s)
    sys.stderr.write(err_s)
    failures = []
    if a.expect_exit == "nonzero":
        if p.returncode == 0:
            failures.append("expected a non-zero exit status, got 0")
    elif p.returncode != int(a.expect_exit):
        failures.append(f"expected exit status {a.expect_exit}, got {p.returncode}")
    for rx in a.expect_stdout:
        if not re.search(rx, out_s, re.M):
            failures.append(f"stdout does not match /{rx}/")
    for rx in a.expect_stderr:
        if not re.search(rx, err_s, re.M):
            failures.append(f"stderr does not match /{rx}/")
    for rx in a.reject_stderr:
        if re.search(rx, err_s, re.M):
            failures.append(f"stderr matches forbidden /{rx}/")
    left = []
    for _ in range(40):  # processes may need a moment to be reaped
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
    # ftmpi names nothing in /dev/shm (memfd segments) but the memory store's
    # directory, which a checkpointing job running meanwhile may hold (its
    # tests check that it cleans up). Other MPIs' jobs that happen to run on
    # the machine meanwhile (benchmarks) do: ignore those.
    foreign = ("vader_segment", "psm", "mpich", "sem.mpich", "ompi", "openmpi", "hwloc", "ftmpi-ckpt-")
    new_shm = {n for n in set(os.listdir("/dev/shm")) - shm_before if not n.startswith(foreign)}
    if new_shm:
        failures.append(f"/dev/shm entries left behind: {sorted(new_shm)}")
    failures += san.failures(out_s, err_s)
    for f in failures:
        print("FAIL: " + f)
    print(f"job ended with status {p.returncode} after {elapsed:.2f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

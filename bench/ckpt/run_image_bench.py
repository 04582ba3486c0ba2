#!/usr/bin/env python3
"""Capture and restore time per GiB of resident memory (spec/checkpoint-image.md).

usage: run_image_bench.py BUILD_DIR [MIB ...] [--dir DIR] [--reps N] [--series PCT ...]
Figures are seconds per GiB of image, wall and CPU (user + system) of the
capturing or restored process. Captures ckpt_image_bench with MIB MiB of heap into a file in DIR (fsync'd),
and into a socket read by this script into memory; then restores from the
file and from a socket this script writes the stream into (the way the
buddy checkpoint server serves a restorer on another host), and from a
memfd holding the stream (the way a daemon hands a restorer the buddy image
it holds itself, CheckpointServer::image_memfd). Restore time is from just
before the restorer is started to the resumed process's first instruction
after capture_self returned, exec and checks included, and the restorer's
CPU time (user + system: less sensitive to a loaded machine). Prints the load.

--series PCT: instead, 8 images in a row into DIR as the memory store writes
them (spare files written over), PCT% of the heap written between two, with
incremental images and with whole ones only, interleaved --reps times:
medians of the images after the first two (the spares exist by then) and
their sizes (spec/checkpoint-image.md §4a).
"""
import argparse
import os
import statistics
import socket
import subprocess
import threading
import time


def run(argv, env=None, pass_fds=()):
    """(stdout, CPU seconds of the process: user + system)."""
    p = subprocess.Popen(argv, env=env, pass_fds=pass_fds, stdout=subprocess.PIPE, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit("%s exited %d" % (argv, p.returncode))
    return out, ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("mib", nargs="*", type=int, default=[256, 1024])
    ap.add_argument("--dir", default="/tmp")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--series", type=float, action="append", default=[])
    a = ap.parse_args()
    prog = os.path.join(a.build, "bench", "ckpt", "ckpt_image_bench")
    print("load average before: %s" % open("/proc/loadavg").read().split()[:3])
    if a.series:
        series(a, prog)
        print("load average after: %s" % open("/proc/loadavg").read().split()[:3])
        return
    for mib in a.mib:
        for rep in range(a.reps):
            path = os.path.join(a.dir, "ckpt-bench-%d.img" % os.getpid())
            out, _ = run([prog, str(mib), "file", path])
            cap_file, cpu_cap_file = float(out.split()[1]), float(out.split()[2])
            size = os.path.getsize(path)
            # Capture into a socket drained into memory.
            x, y = socket.socketpair()
            parts = []

            def drain():
                while True:
                    d = x.recv(1 << 22)
                    if not d:
                        return
                    parts.append(d)

            t = threading.Thread(target=drain)
            t.start()
            out, _ = run([prog, str(mib), "fd", str(y.fileno())], pass_fds=(y.fileno(),))
            y.close()
            t.join()
            x.close()
            cap_sock, cpu_cap_sock = float(out.split()[1]), float(out.split()[2])
            stream = b"".join(parts)
            # Restore from the file.
            env = dict(os.environ, FTMPI_CKPT_RESTORE=path)
            t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
            out, cpu_file = run(["setarch", "x86_64", "-R", prog, "0", "fd", "0"], env=env)
            rest_file = float(out.split()[1]) - t0
            # Restore from a socket.
            x, y = socket.socketpair()
            env = dict(os.environ, FTMPI_CKPT_RESTORE=str(y.fileno()))

            def feed():
                x.sendall(stream)
                x.close()

            t = threading.Thread(target=feed)
            t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
            t.start()
            out, cpu_sock = run(["setarch", "x86_64", "-R", prog, "0", "fd", "0"], env=env, pass_fds=(y.fileno(),))
            rest_sock = float(out.split()[1]) - t0
            y.close()
            t.join()
            # Restore from a memfd (buddy memory on the restoring host).
            mfd = os.memfd_create("ckpt-bench", 0)
            os.write(mfd, stream)
            os.lseek(mfd, 0, os.SEEK_SET)
            env = dict(os.environ, FTMPI_CKPT_RESTORE=str(mfd))
            t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
            out, cpu_mem = run(["setarch", "x86_64", "-R", prog, "0", "fd", "0"], env=env, pass_fds=(mfd,))
            rest_mem = float(out.split()[1]) - t0
            os.close(mfd)
            os.unlink(path)
            gib = size / float(1 << 30)
            print("heap %5d MiB image %7.1f MiB | capture file %.2f s/GiB (CPU %.2f) socket %.2f s/GiB (CPU %.2f) | "
                  "restore file %.2f s/GiB (CPU %.2f) socket %.2f s/GiB (CPU %.2f) memfd %.2f s/GiB (CPU %.2f)" %
                  (mib, size / 1048576.0, cap_file / gib, cpu_cap_file / gib, cap_sock / gib, cpu_cap_sock / gib,
                   rest_file / gib, cpu_file / gib, rest_sock / gib, cpu_sock / gib, rest_mem / gib, cpu_mem / gib))
    print("load average after: %s" % open("/proc/loadavg").read().split()[:3])


def series(a, prog):
    print("| heap MiB | written between images | images | time per image (ms) | size (MiB) |")
    print("|---|---|---|---|---|")
    for mib in a.mib:
        for pct in a.series:
            got = {"delta": [], "whole": []}
            for _ in range(a.reps):
                for how in ("delta", "whole"):
                    d = os.path.join(a.dir, "ckpt-series-%d" % os.getpid())
                    out, _ = run([prog, str(mib), "series", d, str(pct), how])
                    os.rmdir(d)
                    for line in out.splitlines()[2:]:  # image N KIND SIZE bytes T s
                        f = line.split()
                        got[how].append((f[2], int(f[3]), float(f[5])))
            for how in ("delta", "whole"):
                kinds = sorted(set(k for k, _, _ in got[how]))
                for k in kinds:
                    rows = [(b, t) for kk, b, t in got[how] if kk == k]
                    print("| %d | %g%% | %s: %d %s | %.1f | %.1f |" % (
                        mib, pct, how, len(rows), k, 1000 * statistics.median(t for _, t in rows),
                        statistics.median(b for b, _ in rows) / 1048576.0))


if __name__ == "__main__":
    main()

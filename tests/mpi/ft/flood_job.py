#!/usr/bin/env python3
"""A flood of silent connections to a rank's TCP port, then a real failure
(issue 14). Runs ft_flood at np 4 in REBUILD mode with FTMPI_TRANSPORT=tcp
under `ulimit -n 1024`; opens --flood connections to rank 1's listening port
that never say anything, SIGKILLs rank 2, and checks:
  - every stranger's connection is closed by the rank within the deadline
    (FTMPI_TCP_AUTH_TIMEOUT_MS, set short here) plus a margin, while the job
    still runs, and rank 1 then holds few descriptors;
  - the job recovers (the respawned rank 2 reaches rank 1 over TCP), ends
    normally when told to stop, and survived exactly one failure.

    flood_job.py --ftmpirun PATH --program PATH [--flood N] [--deadline-ms MS]
"""
import argparse
import os
import re
import resource
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def listening_ports(pid):
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            m = re.fullmatch(r"socket:\[(\d+)\]", os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            continue
        if m:
            inodes.add(m.group(1))
    ports = []
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            parts = line.split()
            if parts[3] == "0A" and parts[9] in inodes:  # LISTEN
                ports.append(int(parts[1].split(":")[1], 16))
    return ports


def ready(s, events):
    """The socket has `events` (or an error or hangup) now."""
    p = select.poll()
    p.register(s, events)
    return bool(p.poll(0))


def closed_by_peer(s):
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True  # reset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ftmpirun", required=True)
    ap.add_argument("--program", required=True)
    ap.add_argument("--flood", type=int, default=1100)
    ap.add_argument("--deadline-ms", type=int, default=3000)
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, a.flood + 512), hard))
    stop_file = tempfile.mktemp(prefix="ft_flood_stop_")
    env = dict(os.environ, FTMPI_TRANSPORT="tcp", FTMPI_TCP_AUTH_TIMEOUT_MS=str(a.deadline_ms))
    cmd = f"ulimit -n 1024 && exec {a.ftmpirun} -np 4 --ft-comm-mode=rebuild {a.program} {stop_file}"
    job = subprocess.Popen(["bash", "-c", cmd], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    strangers = []
    try:
        pids, out = {}, []
        t_end = time.time() + 30
        while len(pids) < 4:
            if time.time() > t_end or job.poll() is not None:
                fail(f"the ranks did not start: {out}")
            line = job.stdout.readline()
            out.append(line)
            m = re.match(r"ready (\d) (\d+)", line)
            if m:
                pids[int(m.group(1))] = int(m.group(2))
        ports = listening_ports(pids[1])
        if len(ports) != 1:
            fail(f"rank 1 listens on {ports}, expected one TCP port")
        t_flood = time.time()
        for _ in range(a.flood):
            s = socket.socket()
            s.setblocking(False)
            try:
                s.connect(("127.0.0.1", ports[0]))
            except BlockingIOError:
                pass
            except OSError as e:
                fail(f"connection {len(strangers)} refused outright: {e}")
            strangers.append(s)
        print(f"{len(strangers)} silent connections to rank 1's port {ports[0]} in {time.time() - t_flood:.2f} s")
        os.kill(pids[2], signal.SIGKILL)
        # Every stranger reached the rank (the kernel completed its handshake)...
        pending = list(strangers)
        t_end = time.time() + 20
        while pending and time.time() < t_end:
            pending = [s for s in pending if not ready(s, select.POLLOUT)]
            if pending:
                time.sleep(0.1)
        if pending:
            fail(f"{len(pending)} strangers never got connected")
        # ... and is closed by the rank within the deadline (plus 2 s).
        limit = t_flood + a.deadline_ms / 1000 + 2.0
        open_ = list(strangers)
        while open_ and time.time() < limit:
            open_ = [s for s in open_ if not (ready(s, select.POLLIN) and closed_by_peer(s))]
            if open_:
                time.sleep(0.1)
        if job.poll() is not None:
            fail("the job ended before the strangers could be checked")
        if open_:
            fail(f"{len(open_)} of {len(strangers)} strangers still connected {limit - t_flood:.1f} s after the flood")
        nfds = len(os.listdir(f"/proc/{pids[1]}/fd"))
        print(f"all strangers closed; rank 1 holds {nfds} descriptors")
        if nfds > 100:
            fail(f"rank 1 still holds {nfds} descriptors")
        time.sleep(0.5)
        open(stop_file, "w").close()
        try:
            o, e = job.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            job.kill()
            o, e = job.communicate()
            sys.stdout.write(o[-3000:] + e[-3000:])
            fail("the job hung after the flood and the failure")
        sys.stdout.write(o[-3000:] + e[-3000:])
        if job.returncode != 0:
            fail(f"exit status {job.returncode}")
        if not re.search(r"ft_flood: ok \(\d+ iterations, 1 recoveries\)", o):
            fail("no verdict with one recovery")
        if "job survived 1 failure" not in e:
            fail("the launcher did not report exactly one survived failure")
        if "did not prove the job secret" not in e:
            fail("rank 1 did not log the refused connections")
    finally:
        for s in strangers:
            s.close()
        if job.poll() is None:
            job.kill()
        if os.path.exists(stop_file):
            os.unlink(stop_file)
    print("PASS")


if __name__ == "__main__":
    main()

"""Multi-host runtime tests on network namespaces (issue 9).

    netns_cases.py FTMPIRUN APP CASE        one case (CTest runs each alone)
    netns_cases.py --client ADDR:PORT...    (inside a namespace) the stranger clients

Hosts are namespaces (netns_hosts.py). Unless a case says otherwise, the
launcher runs on a front-end host h0 that is not in the host list, as on a
cluster, and the job's hosts are h1.. (10.99.0.2..). Detection is made
faster than the defaults through --heartbeat-ms/--heartbeat-timeout-ms.
Each case breaks something while netns_app computes, then checks what the
launcher said, where ranks were respawned, and the application's own
checked result. Exit 77 (skip) where namespaces cannot be created.
"""
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from netns_hosts import SKIP, Cluster, addr  # noqa: E402
from sanitizer_reports import SanitizerLog  # noqa: E402

HB = ["--heartbeat-ms", "100", "--heartbeat-timeout-ms", "500"]


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


class Job:
    """ftmpirun inside host `at`'s namespace; output lines are time-stamped as they come."""

    def __init__(self, cl, at, args, env=None):
        self.t0 = time.monotonic()
        full_env = dict(os.environ)
        full_env.update(env or {})
        # Sanitizer reports of every process of the job go to one directory
        # (tests/tools/sanitizer_reports.py): the ranks get its option through
        # -x, the daemons through the agent (netns_hosts.py).
        self.san = SanitizerLog()
        full_env = self.san.env(full_env)
        self.cmd = cl.cmd(at, [FTMPIRUN, "--launch-agent", cl.agent, "-x", "ASAN_OPTIONS"] + args)
        self.p = subprocess.Popen(self.cmd, env=full_env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, errors="replace")
        self.lines = {"out": [], "err": []}
        self.cv = threading.Condition()
        self.readers = [threading.Thread(target=self.read, args=(s, n), daemon=True)
                        for s, n in ((self.p.stdout, "out"), (self.p.stderr, "err"))]
        for t in self.readers:
            t.start()

    def read(self, stream, name):
        for line in stream:
            with self.cv:
                self.lines[name].append((time.monotonic(), line.rstrip("\n")))
                self.cv.notify_all()

    def wait_line(self, name, pattern, timeout=30):
        """Time stamp of the first line of `name` matching `pattern`."""
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        with self.cv:
            while True:
                for t, line in self.lines[name]:
                    if rx.search(line):
                        return t
                left = deadline - time.monotonic()
                if left <= 0 or (self.p.poll() is not None and not any(r.is_alive() for r in self.readers)):
                    self.dump()
                    raise Failure(f"no {name} line matching {pattern!r}")
                self.cv.wait(min(left, 0.2))

    def finish(self, timeout=60):
        try:
            self.code = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            self.dump()
            reports = self.sanitizer_failures()
            raise Failure(f"the job did not end within {timeout} s" + "".join("; " + r for r in reports))
        for t in self.readers:
            t.join(5)
        self.out = "\n".join(line for _, line in self.lines["out"])
        self.err = "\n".join(line for _, line in self.lines["err"])
        self.elapsed = time.monotonic() - self.t0
        reports = self.sanitizer_failures(self.out, self.err)
        if reports:
            self.dump()
            raise Failure("; ".join(reports))
        return self

    def sanitizer_failures(self, *outputs):
        """The job's sanitizer reports; its report directory is removed."""
        try:
            return self.san.failures(*outputs)
        finally:
            self.san.__exit__(None, None, None)

    def dump(self):
        for name in ("out", "err"):
            for t, line in self.lines[name]:
                print(f"[{name} {t - self.t0:7.3f}] {line}", file=sys.stderr)

    def expect_ok(self, size):
        if self.code != 0 or not re.search(rf"^netns_app: ok \d+ iterations, \d+ recoveries, size {size}$",
                                           self.out, re.M):
            self.dump()
            raise Failure(f"exit {self.code}; no checked result of size {size}")


def hostlist(first, count, slots=2):
    return ",".join(f"{addr(i)}:{slots}" for i in range(first, first + count))


def job_on(cl, hosts, np, extra=(), iters=40, sleep_ms=100, at=0, env=None):
    args = HB + ["--host", hosts, "-np", str(np)] + list(extra) + [APP, str(iters), str(sleep_ms)]
    return Job(cl, at, args, env=env)


def lost_line(host):
    return rf"^ftmpirun: lost host {re.escape(host)} \("


def expect_respawned(j, ranks, host):
    if not all(re.search(rf"^ftmpirun: respawning rank {r} as incarnation \d+ on {re.escape(host)}$", j.err, re.M) for r in ranks):
        j.dump()
    for r in ranks:
        expect(re.search(rf"^ftmpirun: respawning rank {r} as incarnation \d+ on {re.escape(host)}$", j.err, re.M),
               f"rank {r} was not respawned on {host}")


def expect_host_empty(cl, i, within=5.0):
    """Every process of host i ended (the ones the job left there)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not cl.pids(i, "netns_app") and not cl.pids(i, "ftmpid"):
            return
        time.sleep(0.1)
    raise Failure(f"processes left on host {i}: {cl.pids(i)}")


# ---------------------------------------------------------------- cases

def case_three_hosts(cl):
    """mpirun's host is also a compute host; ranks on different hosts talk TCP."""
    # The agent starts daemons with an empty environment (like ssh): FTMPI_* and -x must travel.
    j = job_on(cl, hostlist(0, 3), 6, iters=25, extra=["-x", "NETNS_CHECK_ENV", "-x", "NETNS_X=hello"],
               env={"FTMPI_NETNS_MARK": "fwd", "NETNS_CHECK_ENV": "FTMPI_NETNS_MARK=fwd,NETNS_X=hello"})
    j.wait_line("out", r"^iter 5 ")
    # An established TCP connection between two rank processes on hosts 1 and 2.
    ss = subprocess.run(cl.cmd(1, ["ss", "-Htnp", "state", "established"]), capture_output=True, text=True).stdout
    expect(re.search(rf"{re.escape(addr(1))}:\d+\s+{re.escape(addr(2))}:\d+.*netns_app", ss),
           f"no rank-to-rank TCP connection between {addr(1)} and {addr(2)}:\n{ss}")
    j.finish().expect_ok(6)
    expect(j.err.strip() == "", f"unexpected launcher output: {j.err}")


def case_daemon_kill(cl):
    """A killed daemon (its ranks die with it): detected at once, ranks respawned on the next host."""
    j = job_on(cl, hostlist(1, 3), 6, extra=["--ft-comm-mode=rebuild"])
    j.wait_line("out", r"^iter 5 ")
    t_kill = time.monotonic()
    expect(cl.kill_daemon(2), "no daemon on host 2")
    t_lost = j.wait_line("err", lost_line(addr(2)))
    j.finish().expect_ok(6)
    expect_respawned(j, (2, 3), addr(3))
    print(f"detection of a killed daemon: {1000 * (t_lost - t_kill):.0f} ms")
    expect_host_empty(cl, 2)


def case_link_down(cl):
    """A host whose link goes down is silent: declared lost after the heartbeat timeout."""
    j = job_on(cl, hostlist(1, 3), 6, extra=["--ft-comm-mode=rebuild"])
    j.wait_line("out", r"^iter 5 ")
    t_down = time.monotonic()
    cl.link_down(3)
    t_lost = j.wait_line("err", lost_line(addr(3)) + r"(silent for|reported by)")
    j.finish().expect_ok(6)
    expect_respawned(j, (4, 5), addr(1))  # after the last host comes the first
    print(f"detection of a silent host (link down): {1000 * (t_lost - t_down):.0f} ms")
    expect(0.4 < t_lost - t_down < 2.0, f"detection took {t_lost - t_down:.2f} s with a 0.5 s timeout")
    # The cut-off daemon noticed the launcher's silence and ended its ranks by itself.
    expect_host_empty(cl, 3)


def case_freeze(cl):
    """SIGSTOP of a host's processes; the daemons form a chain (fanout 1), so the
    frozen middle daemon's child must reattach to the leader."""
    j = job_on(cl, hostlist(1, 3), 6, extra=["--ft-comm-mode=rebuild"], env={"FTMPI_TREE_FANOUT": "1"})
    j.wait_line("out", r"^iter 5 ")
    t_stop = time.monotonic()
    cl.freeze(2)
    t_lost = j.wait_line("err", lost_line(addr(2)) + r"(silent|reported)")
    j.finish().expect_ok(6)
    expect_respawned(j, (2, 3), addr(3))
    print(f"detection of a frozen host: {1000 * (t_lost - t_stop):.0f} ms")
    # The launcher killed what it started there; the frozen ranks die with it (SIGKILL).
    expect_host_empty(cl, 2, within=8.0)


def case_leader_host(cl):
    """The leader's host (the first in the list) is lost; the next daemon leads
    with the replicated state; the application sees only that host's ranks die."""
    j = job_on(cl, hostlist(1, 3), 6, extra=["--ft-comm-mode=rebuild"], env={"FTMPI_TREE_FANOUT": "1"})
    j.wait_line("out", r"^iter 5 ")
    cl.kill_host(1)
    j.wait_line("err", lost_line(addr(1)) + r".*the daemon on " + re.escape(addr(2)) + " leads now")
    j.finish().expect_ok(6)
    expect_respawned(j, (0, 1), addr(2))
    expect(len(re.findall(r"^ftmpirun: rank \d .*died", j.err, re.M)) == 2, "other ranks than host 1's died")


def case_leader_silent(cl):
    """The leader's link goes down: silence, not a closed connection."""
    j = job_on(cl, hostlist(1, 3), 6, extra=["--ft-comm-mode=rebuild"])
    j.wait_line("out", r"^iter 5 ")
    cl.link_down(1)
    j.wait_line("err", lost_line(addr(1)) + r".*leads now")
    j.finish().expect_ok(6)
    expect_respawned(j, (0, 1), addr(2))
    expect_host_empty(cl, 1)


def case_partition(cl):
    """The network splits {h0 (mpirun), h1, h2} | {h3, h4}: the launcher's side goes on,
    the other side's daemons end their ranks instead of carrying on as a second job."""
    j = job_on(cl, hostlist(1, 4), 8, extra=["--ft-comm-mode=rebuild"])
    j.wait_line("out", r"^iter 5 ")
    cl.partition([3, 4])
    j.wait_line("err", lost_line(addr(3)))
    j.wait_line("err", lost_line(addr(4)))
    for h in (3, 4):
        expect_host_empty(cl, h, within=3.0)
    j.finish().expect_ok(8)
    expect_respawned(j, (4, 5, 6, 7), addr(1))
    # The cut-off daemons ended their ranks themselves (their stderr is still ours:
    # same machine), instead of electing a leader among themselves.
    for h in (3, 4):
        expect(re.search(rf"^\[ftmpid@{re.escape(addr(h))} error ftmpid\] lost the launcher", j.err, re.M),
               f"the daemon on {addr(h)} did not end on its own")
    expect("leads now" not in j.err, "the leader changed although its side holds the launcher")


def case_strangers(cl):
    """Clients without the secret, and ones sending random bytes, at every listening
    port (launcher, daemons, ranks) while the job runs: refused, job unharmed."""
    j = job_on(cl, hostlist(0, 3), 6, iters=40, env={"FTMPI_DEBUG": "1"})
    j.wait_line("out", r"^iter 3 ")
    targets = []
    for i in range(3):
        ss = subprocess.run(cl.cmd(i, ["ss", "-Htlnp"]), capture_output=True, text=True).stdout
        for line in ss.splitlines():
            m = re.search(r"(\d+\.\d+\.\d+\.\d+):(\d+)\s.*\"(ftmpirun|ftmpid|netns_app)\"", line)
            if m and m.group(1).startswith("10.99."):
                targets.append((m.group(3), f"{m.group(1)}:{m.group(2)}"))
    kinds = {k for k, _ in targets}
    expect(kinds == {"ftmpirun", "ftmpid", "netns_app"} and len(targets) >= 1 + 3 + 6,
           f"listening ports not found: {targets}")
    p = subprocess.run(cl.cmd(0, [sys.executable, os.path.abspath(__file__), "--client"] + [a for _, a in targets]),
                       capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, f"a stranger was not refused:\n{p.stdout}{p.stderr}")
    j.finish(timeout=90).expect_ok(6)
    refusals = len(re.findall(r"rejected .*(prove|handshake|authenticate)", j.err))
    expect(refusals >= 2 * 4, f"only {refusals} refusals logged by the launcher and daemons:\n{j.err}")


# ---------------------------------------------------------------- stranger clients

def stranger(target, payload):
    """Connects, sends `payload`, reads until the peer closes. Returns (bytes read, closed)."""
    host, port = target.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=5)
    s.settimeout(12)
    got = b""
    try:
        s.sendall(payload)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return got, True
            got += chunk
    except (ConnectionResetError, BrokenPipeError):
        return got, True
    except socket.timeout:
        return got, False
    finally:
        s.close()


def client_main(targets):
    bad = []
    rnd = random.Random(9)
    for t in targets:
        # 1: a handshake hello and a wrong proof. 2: random bytes, with a huge frame length up front.
        for name, payload in (("wrong proof", b"FTMPIAU1" + b"\0" * 16 + b"x" * 32),
                              ("random bytes", b"\xff\xff\xff\x7f\x01\x02" + bytes(rnd.randrange(256) for _ in range(8192)))):
            try:
                got, closed = stranger(t, payload)
            except OSError as e:
                bad.append(f"{t} {name}: {e}")
                continue
            # The responder's challenge (at most one handshake message) and nothing else.
            if not closed or len(got) > 56:
                bad.append(f"{t} {name}: closed={closed}, {len(got)} bytes back")
    for b in bad:
        print(b)
    return 1 if bad else 0


CASES = {
    "three_hosts": (3, case_three_hosts),
    "daemon_kill": (4, case_daemon_kill),
    "link_down": (4, case_link_down),
    "freeze": (4, case_freeze),
    "leader_host": (4, case_leader_host),
    "leader_silent": (4, case_leader_silent),
    "partition": (5, case_partition),
    "strangers": (3, case_strangers),
}


def main():
    global FTMPIRUN, APP
    if len(sys.argv) > 1 and sys.argv[1] == "--client":
        return client_main(sys.argv[2:])
    FTMPIRUN, APP, name = sys.argv[1], sys.argv[2], sys.argv[3]
    return run_case(CASES, name)


def run_case(cases, name):
    """Runs case `name` of `cases` ({name: (hosts, fn(cluster))}) on a fresh
    cluster and says how it ended; the exit status (SKIP without namespaces)."""
    ok, why = Cluster.permitted()
    if not ok:
        print(f"SKIP: {why}")
        return SKIP
    hosts, fn = cases[name]
    with Cluster(name, hosts) as cl:
        try:
            fn(cl)
        except Failure as e:
            print(f"FAIL ({name}): {e}")
            return 1
    print(f"ok ({name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

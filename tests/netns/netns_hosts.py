"""Network namespaces as hosts, for the multi-host runtime tests.

A private "switch" namespace holds two bridges (br0, br1); each host is a
namespace with one veth (eth0, fixed MAC 02:99:00:00:00:NN, address
10.99.0.NN/24 with NN = index + 1) whose other end (pI) is a port of br0.
Every test gets its own namespaces (names carry the test's tag and pid), so
tests can run in parallel with identical addresses: nothing is created in
the root namespace. Failures:
  link_down(i)      the host's switch port goes down (silence, no RST)
  freeze(i)         SIGSTOP every process of the host
  kill_host(i)      SIGKILL every process of the host
  kill_daemon(i)    SIGKILL the host's ftmpid only
  partition(group)  the hosts in `group` move to br1: two sides that only
                    hear themselves
Cleanup (always, also for earlier runs of the same test that were killed):
every process in the namespaces is killed, then the namespaces are deleted.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77  # CTest SKIP_RETURN_CODE


def run(*argv, check=True):
    p = subprocess.run(list(argv), capture_output=True, text=True)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {p.stderr.strip()}")
    return p


def addr(i):
    return f"10.99.0.{i + 1}"


class Cluster:
    def __init__(self, tag, n):
        self.tag = re.sub(r"[^a-z0-9]", "", tag.lower())[:10]
        self.base = f"ftn-{self.tag}"
        self.prefix = f"{self.base}-{os.getpid()}"
        self.n = n
        self.sw = f"{self.prefix}-sw"
        self.hosts = [f"{self.prefix}-h{i}" for i in range(n)]
        self.created = []
        self.tmp = tempfile.mkdtemp(prefix=f"{self.base}-")
        self.agent = os.path.join(self.tmp, "netns-agent")

    # ---- life ----
    def __enter__(self):
        self.remove_stale()
        try:
            self.setup()
        except Exception:
            self.cleanup()
            raise
        return self

    def __exit__(self, *exc):
        self.cleanup()
        return False

    @staticmethod
    def permitted():
        """True if this process may create network namespaces."""
        if not shutil_which("ip"):
            return False, "the 'ip' command is missing"
        name = f"ftn-probe-{os.getpid()}"
        p = run("ip", "netns", "add", name, check=False)
        if p.returncode != 0:
            return False, f"'ip netns add' is not permitted here: {p.stderr.strip()}"
        run("ip", "netns", "del", name, check=False)
        p = run("ip", "link", "add", "ftnprobe0", "type", "bridge", check=False)
        if p.returncode == 0:
            run("ip", "link", "del", "ftnprobe0", check=False)
        return True, ""

    def remove_stale(self):
        # Namespaces of an earlier run of this test whose process is gone (killed by a timeout).
        for line in run("ip", "netns", "list", check=False).stdout.splitlines():
            name = line.split()[0] if line.split() else ""
            m = re.match(rf"^{re.escape(self.base)}-(\d+)-", name)
            if m and not os.path.exists(f"/proc/{m.group(1)}"):
                self.kill_ns(name, signal.SIGKILL)
                run("ip", "netns", "del", name, check=False)

    def setup(self):
        self.add_ns(self.sw)
        for br in ("br0", "br1"):
            run("ip", "-n", self.sw, "link", "add", br, "type", "bridge")
            run("ip", "-n", self.sw, "link", "set", br, "up")
        for i, ns in enumerate(self.hosts):
            self.add_ns(ns)
            run("ip", "-n", self.sw, "link", "add", f"p{i}", "type", "veth", "peer", "name", "eth0", "netns", ns)
            run("ip", "-n", self.sw, "link", "set", f"p{i}", "master", "br0", "up")
            run("ip", "-n", ns, "link", "set", "lo", "up")
            run("ip", "-n", ns, "link", "set", "eth0", "address", f"02:99:00:00:00:{i + 1:02x}")
            run("ip", "-n", ns, "addr", "add", f"{addr(i)}/24", "dev", "eth0")
            run("ip", "-n", ns, "link", "set", "eth0", "up")
        with open(self.agent, "w") as f:
            f.write("#!/bin/sh\n# ftmpirun --launch-agent: HOST CMD... runs CMD in that host's namespace\n"
                    "host=$1; shift\n"
                    "case \"$host\" in\n"
                    "  10.99.0.*) n=${host##*.}\n"
                    "    # a fresh environment, as ssh gives: what the job needs must be forwarded\n"
                    "    # (and the sanitizers' options, as ssh's SendEnv would: where the daemon's reports go)\n"
                    "    exec env -i PATH=\"$PATH\" ${ASAN_OPTIONS+ASAN_OPTIONS=\"$ASAN_OPTIONS\"} ip netns exec "
                    + self.prefix + "-h$((n - 1)) \"$@\";;\n"
                    "esac\n"
                    "echo \"netns-agent: unknown host $host\" >&2; exit 1\n")
        os.chmod(self.agent, 0o755)
        # Both directions answer before a test starts (ARP, bridge learning).
        for i in range(self.n):
            self.ping(0, i)

    def add_ns(self, name):
        run("ip", "netns", "add", name)
        self.created.append(name)

    def ping(self, i, j):
        # A refused TCP connection (no ping on every machine) proves the path works.
        probe = ("import socket,sys; s=socket.socket(); s.settimeout(1); "
                 f"sys.exit(0 if s.connect_ex(('{addr(j)}', 9)) in (0, 111) else 1)")
        for _ in range(50):
            if run("ip", "netns", "exec", self.hosts[i], sys.executable, "-c", probe, check=False).returncode == 0:
                return
            time.sleep(0.1)
        raise RuntimeError(f"host {i} cannot reach {addr(j)}")

    def cleanup(self):
        for ns in reversed(self.created):
            self.kill_ns(ns, signal.SIGCONT)
            self.kill_ns(ns, signal.SIGKILL)
        time.sleep(0.05)
        for ns in reversed(self.created):
            run("ip", "netns", "del", ns, check=False)
        self.created = []
        subprocess.run(["rm", "-rf", self.tmp])

    @staticmethod
    def kill_ns(ns, sig):
        for pid in run("ip", "netns", "pids", ns, check=False).stdout.split():
            try:
                os.kill(int(pid), sig)
            except OSError:
                pass

    # ---- use ----
    def cmd(self, i, argv):
        return ["ip", "netns", "exec", self.hosts[i]] + list(argv)

    def pids(self, i, comm=None):
        out = []
        for pid in run("ip", "netns", "pids", self.hosts[i], check=False).stdout.split():
            try:
                name = open(f"/proc/{pid}/comm").read().strip()
            except OSError:
                continue
            if comm is None or name == comm:
                out.append(int(pid))
        return out

    # ---- failures ----
    def link_down(self, i):
        run("ip", "-n", self.sw, "link", "set", f"p{i}", "down")

    def freeze(self, i):
        for pid in self.pids(i):
            os.kill(pid, signal.SIGSTOP)

    def kill_host(self, i):
        self.kill_ns(self.hosts[i], signal.SIGKILL)

    def kill_daemon(self, i):
        pids = self.pids(i, "ftmpid")
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        return pids

    def partition(self, group):
        for i in group:
            run("ip", "-n", self.sw, "link", "set", f"p{i}", "master", "br1")


def shutil_which(prog):
    for d in os.environ.get("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(":") + ["/usr/sbin", "/sbin"]:
        if os.access(os.path.join(d, prog), os.X_OK):
            return True
    return False

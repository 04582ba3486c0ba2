"""A throw-away Slurm cluster on this machine for the tests: munged,
slurmctld and slurmd, each on its own socket, ports and state directory
under a temporary directory, so that it neither needs nor touches a system
Slurm.

nodes=1: one node named after this machine. nodes=N>1: N simulated nodes
n1..nN, one `slurmd -N nI` each on its own port, all on this machine
(NodeHostname = this machine, NodeAddr 127.0.0.1). Debian's slurmd is not
built with multiple-slurmd support, so each slurmd gets its own copy of
slurm.conf (in its own directory, differing only in its spool, pid and log
files; DebugFlags=NO_CONF_HASH). srun and ftmpirun's daemons work across
them; Slurm's own mpi/pmix plugin does not (its step daemons of one host
collide), so direct launch is tested on one node. The node names resolve
nowhere: ftmpirun needs FTMPI_LAUNCHER_ADDR=127.0.0.1 there (`env` has it).

    with SlurmCluster(cpus=16) as c:     # raises Unavailable with a reason
        subprocess.run(["srun", "-n", "4", "hostname"], env=c.env)
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time


class Unavailable(Exception):
    """Slurm cannot run here; the message says why (the test is skipped)."""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _which(name):
    for d in ("/usr/sbin", "/usr/bin", "/sbin", "/bin"):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return shutil.which(name)


class SlurmCluster:
    def __init__(self, cpus=16, nodes=1, timeout=30.0):
        self.cpus = cpus
        self.want_nodes = nodes
        self.timeout = timeout
        self.dir = None
        self.procs = []
        self.env = None
        self.nodes = []

    # ---- setup -------------------------------------------------------
    def __enter__(self):
        if os.geteuid() != 0:
            raise Unavailable("needs root (slurmd runs job steps as their user)")
        tools = {n: _which(n) for n in ("munged", "slurmctld", "slurmd", "srun", "sinfo", "salloc")}
        missing = [n for n, p in tools.items() if not p]
        if missing:
            raise Unavailable("not installed: " + ", ".join(missing) + " (tools/install-deps.sh installs them)")
        self.tools = tools
        self.dir = tempfile.mkdtemp(prefix="ftmpi-slurm-")
        os.chmod(self.dir, 0o700)
        try:
            self._start()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _path(self, *parts):
        return os.path.join(self.dir, *parts)

    def _start(self):
        for d in ("munge", "ctld", "log"):
            os.makedirs(self._path(d), mode=0o700)
        key = self._path("munge", "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        sock = self._path("munge", "munge.socket")
        self._spawn([self.tools["munged"], "-F", "-f", "--socket=" + sock, "--key-file=" + key,
                     "--pid-file=" + self._path("munge", "munged.pid"),
                     "--seed-file=" + self._path("munge", "munged.seed"),
                     "--log-file=" + self._path("log", "munged.log"), "--num-threads=2"], "munged")
        self._wait(lambda: os.path.exists(sock), "munged to create its socket")

        host = socket.gethostname()
        multi = self.want_nodes > 1
        self.nodes = [f"n{i + 1}" for i in range(self.want_nodes)] if multi else [host]
        ctld_port = _free_port()
        node_lines = []
        for n in self.nodes:
            extra = f" NodeHostname={host} Port={_free_port()}" if multi else ""
            node_lines.append(f"NodeName={n}{extra} NodeAddr=127.0.0.1 CPUs={self.cpus} RealMemory=1000 "
                              "State=UNKNOWN")
        common = f"""ClusterName=ftmpitest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
StateSaveLocation={self._path('ctld')}
SlurmctldPidFile={self._path('ctld', 'slurmctld.pid')}
SlurmctldLogFile={self._path('log', 'slurmctld.log')}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
DebugFlags=NO_CONF_HASH
MpiDefault=none
ReturnToService=2
InactiveLimit=0
KillWait=2
MinJobAge=5
Waittime=0
SlurmctldTimeout=30
SlurmdTimeout=60
""" + "\n".join(node_lines) + f"""
PartitionName=test Nodes={",".join(self.nodes)} Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
"""
        # One directory per slurmd: its slurm.conf names its own spool, pid and log files.
        confs = []
        for n in self.nodes:
            d = self._path("node-" + n)
            os.makedirs(os.path.join(d, "spool"), mode=0o700)
            conf = os.path.join(d, "slurm.conf")
            with open(conf, "w") as f:
                f.write(common + f"""SlurmdSpoolDir={d}/spool
SlurmdPidFile={d}/slurmd.pid
SlurmdLogFile={self._path('log', 'slurmd-' + n + '.log')}
""")
            confs.append(conf)
        self.env = dict(os.environ)
        self.env["SLURM_CONF"] = confs[0]
        for k in list(self.env):
            if k.startswith("SLURM_") and k != "SLURM_CONF":
                del self.env[k]  # not inside somebody else's allocation
        if multi:
            self.env["FTMPI_LAUNCHER_ADDR"] = "127.0.0.1"
        self._spawn([self.tools["slurmctld"], "-D", "-i", "-f", confs[0]], "slurmctld")
        for n, conf in zip(self.nodes, confs):
            self._spawn([self.tools["slurmd"], "-D", "-f", conf] + (["-N", n] if multi else []), "slurmd-" + n)

        def idle():
            r = subprocess.run([self.tools["sinfo"], "-h", "-N", "-o", "%N %t"], env=self.env, capture_output=True,
                               text=True, timeout=10)
            states = dict(line.split() for line in r.stdout.splitlines() if line.strip())
            return r.returncode == 0 and all(states.get(n) == "idle" for n in self.nodes)
        self._wait(idle, "the nodes to become idle")

    def _spawn(self, argv, name):
        log = open(self._path("log", name + ".out"), "wb")
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                             env=self.env or os.environ, start_new_session=True)
        log.close()
        self.procs.append((name, p))

    def _wait(self, cond, what):
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            for name, p in self.procs:
                if p.poll() is not None:
                    raise Unavailable(f"{name} exited with {p.returncode} while waiting for {what}: " +
                                      self.log_tail(name))
            try:
                if cond():
                    return
            except (subprocess.TimeoutExpired, OSError):
                pass
            time.sleep(0.2)
        raise Unavailable(f"timed out waiting for {what}: " + self.log_tail("slurmctld") +
                          "".join(self.log_tail("slurmd-" + n) for n in self.nodes))

    def log_tail(self, name, lines=5):
        out = []
        for fn in (name + ".out", name + ".log"):
            try:
                with open(self._path("log", fn), errors="replace") as f:
                    out += f.read().splitlines()[-lines:]
            except OSError:
                pass
        return " | ".join(out)

    # ---- teardown ----------------------------------------------------
    def __exit__(self, *exc):
        if self.env:
            subprocess.run(["scancel", "--full", "-u", "root"], env=self.env, capture_output=True, timeout=10)
        for name, p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.procs = []
        if self.dir and not os.environ.get("FTMPI_KEEP_SLURM_DIR"):
            shutil.rmtree(self.dir, ignore_errors=True)
        return False


if __name__ == "__main__":
    import sys
    with SlurmCluster(nodes=int(sys.argv[1]) if len(sys.argv) > 1 else 1) as c:
        print("nodes:", c.nodes, "conf:", c.env["SLURM_CONF"])
        r = subprocess.run(["srun", "--mpi=pmix", "-n", "4", "sh", "-c", "echo $SLURM_PROCID $PMIX_RANK"],
                           env=c.env, capture_output=True, text=True, timeout=60)
        print(r.returncode, r.stdout, r.stderr)
        r = subprocess.run(["srun", "-N", str(len(c.nodes)), "-n", "4", "sh", "-c", "echo $SLURMD_NODENAME"],
                           env=c.env, capture_output=True, text=True, timeout=60)
        print(r.returncode, sorted(r.stdout.split()), r.stderr)

#!/usr/bin/env python3
"""Multi-host runtime numbers on network namespaces (needs root / CAP_NET_ADMIN).

  bench/netns/run.py [--build DIR] [--reps N] [--target SECONDS] [--only detect|pingpong]

1. Detection time with the default settings (heartbeat 200 ms, timeout
   1000 ms): from the moment a host's link goes down (silent host), or its
   daemon is SIGKILLed, to the launcher's "lost host" line. Three compute
   hosts, mpirun on a front-end host, tests/netns/netns_app running.
2. Ping-pong latency and bandwidth between two namespace hosts (one rank on
   each, so TCP over a veth pair and a bridge): ftmpi against Open MPI's TCP
   transport on the same pair (mpirun.openmpi --mca btl tcp,self, its rsh
   launch agent set to the same ip-netns-exec wrapper), bench/p2p/pingpong.c
   built with each library's mpicc.
Each measurement is repeated; medians are printed. The machine is shared:
see bench/netns/README.md for the method and the figures.
"""
import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "netns"))
from netns_hosts import Cluster, addr  # noqa: E402


def detect_once(build, kind):
    with Cluster("bench" + kind[:4], 4) as cl:
        cmd = cl.cmd(0, [os.path.join(build, "bin", "ftmpirun"), "--launch-agent", cl.agent, "--host",
                         ",".join(addr(i) for i in (1, 2, 3)), "-np", "3", "--ft-comm-mode=rebuild",
                         os.path.join(build, "tests", "mpi", "netns_app"), "200", "50"])
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for line in p.stdout:
            if line.startswith("iter 5 "):
                break
        t0 = time.monotonic()
        if kind == "link_down":
            cl.link_down(3)
        else:
            cl.kill_daemon(3)
        took = None
        for line in p.stderr:
            if re.match(rf"ftmpirun: lost host {re.escape(addr(3))} ", line):
                took = time.monotonic() - t0
                break
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        return took


def pingpong_once(build, lib, exe, target):
    with Cluster("benchpp", 3) as cl:
        hosts = f"{addr(1)},{addr(2)}"
        if lib == "ftmpi":
            argv = [os.path.join(build, "bin", "ftmpirun"), "--launch-agent", cl.agent, "--host", hosts, "-np", "2"]
            env = dict(os.environ)
        else:
            # Open MPI hands its agent one remote shell command (like ssh): run it through sh.
            agent = os.path.join(cl.tmp, "ompi-agent")
            with open(agent, "w") as f:
                # One session directory per host: every namespace has the same host name.
                f.write(f"#!/bin/sh\nhost=$1; shift\nexec {cl.agent} \"$host\" sh -c "
                        f"\"mkdir -p {cl.tmp}/ompi-$host; OMPI_MCA_orte_tmpdir_base={cl.tmp}/ompi-$host; "
                        f"export OMPI_MCA_orte_tmpdir_base; $*\"\n")
            os.chmod(agent, 0o755)
            argv = ["mpirun.openmpi", "--allow-run-as-root", "--mca", "btl", "tcp,self", "--mca", "plm_rsh_agent",
                    agent, "--mca", "btl_tcp_if_include", "10.99.0.0/24", "--mca", "oob_tcp_if_include",
                    "10.99.0.0/24", "--bind-to", "none", "--host", hosts, "-np", "2"]
            env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        p = subprocess.run(cl.cmd(0, argv + [exe, str(target)]), capture_output=True, text=True, env=env,
                           timeout=600)
        if p.returncode != 0:
            print(f"{lib} failed:\n{p.stdout}\n{p.stderr}", file=sys.stderr)
            return {}
        res = {}
        for line in p.stdout.splitlines():
            f = line.split()
            if len(f) == 3 and f[0] in ("lat", "bw"):
                res[(f[0], int(f[1]))] = float(f[2])
        return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--target", default="0.2")
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    ok, why = Cluster.permitted()
    if not ok:
        sys.exit(f"cannot run: {why}")
    if a.only in ("", "detect"):
        print("## detection, default settings (heartbeat 200 ms, timeout 1000 ms)\n")
        print("| failure | median ms | min | max | runs |\n|---|---|---|---|---|")
        for kind in ("link_down", "daemon_kill"):
            v = [t for t in (detect_once(a.build, kind) for _ in range(a.reps)) if t is not None]
            if v:
                ms = [1000 * t for t in v]
                print(f"| {kind} | {statistics.median(ms):.0f} | {min(ms):.0f} | {max(ms):.0f} | {len(ms)} |")
            sys.stdout.flush()
    if a.only in ("", "pingpong"):
        with tempfile.TemporaryDirectory() as tmp:
            libs = [("ftmpi", os.path.join(a.build, "bin", "mpicc"))]
            if subprocess.run(["which", "mpicc.openmpi"], capture_output=True).returncode == 0:
                libs.append(("openmpi", "mpicc.openmpi"))
            runs = {}
            for lib, cc in libs:
                exe = os.path.join(tmp, "pingpong_" + lib)
                subprocess.run([cc, "-O2", "-o", exe, os.path.join(ROOT, "bench", "p2p", "pingpong.c")], check=True)
                runs[lib] = [pingpong_once(a.build, lib, exe, a.target) for _ in range(a.reps)]
            names = [n for n, _ in libs]
            print("\n## ping-pong between two namespace hosts (TCP over veth + bridge), medians of "
                  f"{a.reps} runs\n")
            print("| metric | bytes | " + " | ".join(names) + (" | ftmpi/openmpi |" if len(names) > 1 else " |"))
            print("|---|---|" + "---|" * len(names) + ("---|" if len(names) > 1 else ""))
            keys = sorted({k for rs in runs.values() for r in rs for k in r}, key=lambda k: (k[0] != "lat", k[1]))
            for k in keys:
                med = []
                for n in names:
                    v = [r[k] for r in runs[n] if k in r]
                    med.append(statistics.median(v) if v else None)
                cells = [f"{m:.2f}" if m is not None else "-" for m in med]
                ratio = ""
                if len(med) > 1:
                    ratio = f" | {med[0] / med[1]:.2f}" if med[0] and med[1] else " | -"
                unit = "us" if k[0] == "lat" else "MB/s"
                print(f"| {k[0]} ({unit}) | {k[1]} | " + " | ".join(cells) + ratio + " |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Instructions per MPI_Send and per MPI_Recv of a small message, ftmpi side
by side with Debian's Open MPI and MPICH (each building bench/p2p/arrived.c
with its own mpicc), counted with valgrind --tool=callgrind: the
inclusive count of arrived.c's MPI_Send loop on rank 1 and of its MPI_Recv
loop on rank 0, (hi - lo) messages apart, so that what a first call costs
cancels out. No receive
waits (see arrived.c): the counts are each library's own work per message,
not its polling while a partner is away. Instruction counts do not depend
on the machine's load.

  bench/p2p/instructions.py [--build DIR] [--bytes 8] [--lo 16] [--hi 48] [--runs 3]

Not a test; see docs/benchmarks.md.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from run import impls  # noqa: E402


def call_site(path, fn, calls):
    """Inclusive instructions of the calls to fn from the loop of arrived.c
    (the call site with `calls` calls; the warm-up call is another site)."""
    out = subprocess.run(["callgrind_annotate", "--auto=yes", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) .*=> .*[:\s]" + fn + r" \((\d[\d,]*)x\)", line)
        if m and int(m.group(2).replace(",", "")) == calls:
            return int(m.group(1).replace(",", ""))
    return 0


def count(name, cc, launch, env, exe_dir, n, nbytes):
    exe = os.path.join(exe_dir, "arrived_" + name)
    if not os.path.exists(exe):
        subprocess.run([cc, "-O2", "-g", "-o", exe, os.path.join(HERE, "arrived.c")], check=True)
    out = tempfile.mkdtemp(dir=exe_dir)
    argv = launch + ["2", "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}/cg.%p", exe, str(n), str(nbytes)]
    subprocess.run(argv, env=dict(os.environ, **env), capture_output=True, check=True, timeout=600)
    send = recv = 0
    for f in os.listdir(out):
        path = os.path.join(out, f)
        send = max(send, call_site(path, "PMPI_Send", n))
        recv = max(recv, call_site(path, "PMPI_Recv", n))
    shutil.rmtree(out)
    return send, recv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--bytes", type=int, default=8)
    ap.add_argument("--lo", type=int, default=16)
    ap.add_argument("--hi", type=int, default=48)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        raise SystemExit("valgrind is not installed")
    print(f"| {a.bytes} B, instructions per call | MPI_Send | MPI_Recv | sum |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, cc, launch, env in impls(a.build):
            # The smallest of a few runs: a run may also count work that is
            # not the message's (ftmpi: runtime notices read in the first
            # receives after the sleep).
            lo = [count(name, cc, launch, env, tmp, a.lo, a.bytes) for _ in range(a.runs)]
            hi = [count(name, cc, launch, env, tmp, a.hi, a.bytes) for _ in range(a.runs)]
            s_lo, r_lo = min(x[0] for x in lo), min(x[1] for x in lo)
            s_hi, r_hi = min(x[0] for x in hi), min(x[1] for x in hi)
            s, r = (s_hi - s_lo) / (a.hi - a.lo), (r_hi - r_lo) / (a.hi - a.lo)
            print(f"| {name} | {s:.0f} | {r:.0f} | {s + r:.0f} |", flush=True)


if __name__ == "__main__":
    main()

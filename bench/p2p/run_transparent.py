#!/usr/bin/env python3
"""Fault-free cost of transparent mode (issue 16): the same ftmpi build
without and with --ft-transparent, side by side in the same run.

  bench/p2p/run_transparent.py [--build DIR] [--only pingpong,callgrind,cg,firsttouch]
      [--runs 5] [--target 0.1] [--max-bytes 4194304] [--cg-np 8] [--cg-n 64]

- pingpong: bench/p2p/pingpong.c (named and MPI_ANY_SOURCE ping-pong
  latency, streaming bandwidth), runs interleaved, medians per point and
  the ratio.
- callgrind: bench/p2p/roundtrips.c under valgrind --tool=callgrind, np 2,
  8 B, FTMPI_SPIN_US=0 (no spinning: the count does not depend on timing);
  instructions per round trip, both ranks summed, from the difference
  between 6000 and 2000 round trips (start-up and shutdown cancel out).
  The figure to trust for small messages on a loaded machine.
- cg: examples/cg_checksum at np 8, time to solution as it prints it,
  runs interleaved, medians.
- firsttouch: bench/transparent/first_touch.c, how fast this machine fills
  never-used memory (page faults, populated mappings, huge pages) against
  memory already written: the bound of the sender log's large messages
  until garbage collection recycles its chunks. Not in the default parts.

The load average is printed before and after each part: with other jobs on
the machine wall-clock figures are noise, compare the ratios of one run.
Transparent mode keeps every message sent in the sender's memory: the
streaming points log gigabytes, so FTMPI_LOG_LIMIT is raised for the run.
Not a test; see docs/benchmarks.md.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def load():
    return "load average %.1f %.1f %.1f" % os.getloadavg()


def mpirun(build, np_, transparent, argv, extra_env=None, timeout=1800):
    cmd = [os.path.join(build, "bin", "mpirun"), "-np", str(np_)]
    if transparent:
        cmd.append("--ft-transparent")
    cmd += argv
    env = dict(os.environ, FTMPI_LOG_LIMIT="16g", **(extra_env or {}))
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    if p.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def pingpong(a, tmp):
    exe = os.path.join(tmp, "pingpong")
    subprocess.run([os.path.join(a.build, "bin", "mpicc"), "-O2", "-o", exe, os.path.join(HERE, "pingpong.c")],
                   check=True)
    for any_src in (False, True):
        print(f"\n{load()}")
        runs = {False: [], True: []}
        for _ in range(a.runs):
            for tm in (False, True):
                out = mpirun(a.build, 2, tm, [exe, str(a.target), str(a.max_bytes)] + (["any"] if any_src else []))
                res = {}
                for line in out.splitlines():
                    f = line.split()
                    if len(f) == 3 and f[0] in ("lat", "bw"):
                        res[(f[0], int(f[1]))] = float(f[2])
                runs[tm].append(res)
        keys = sorted({k for r in runs[False] for k in r}, key=lambda k: (k[0] != "lat", k[1]))
        kind = "MPI_ANY_SOURCE" if any_src else "named"
        print(f"\n## np=2, {kind} receives, medians of {a.runs} interleaved runs\n")
        print("| metric | bytes | plain | transparent | transparent/plain |")
        print("|---|---|---|---|---|")
        for k in keys:
            if any_src and k[0] == "bw":
                continue  # the streaming part has no wildcard
            p = statistics.median(r[k] for r in runs[False] if k in r)
            t = statistics.median(r[k] for r in runs[True] if k in r)
            unit = "us" if k[0] == "lat" else "MB/s"
            print(f"| {k[0]} ({unit}) | {k[1]} | {p:.2f} | {t:.2f} | {t / p:.2f} |")
        print(f"\n{load()}")


def instructions(a, tmp, exe, iters, any_src, transparent):
    out_dir = tempfile.mkdtemp(dir=tmp)
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_dir}/cg.%p", exe, str(iters), "8"]
    mpirun(a.build, 2, transparent, argv + (["any"] if any_src else []), {"FTMPI_SPIN_US": "0"})
    total = 0
    for name in os.listdir(out_dir):
        with open(os.path.join(out_dir, name)) as f:
            for line in f:
                if line.startswith("summary:"):
                    total += int(line.split()[1])
                    break
    shutil.rmtree(out_dir)
    return total


def callgrind(a, tmp):
    if not shutil.which("valgrind"):
        print("\ncallgrind: valgrind is not installed; skipped")
        return
    exe = os.path.join(tmp, "roundtrips")
    subprocess.run([os.path.join(a.build, "bin", "mpicc"), "-O2", "-g", "-o", exe,
                    os.path.join(HERE, "roundtrips.c")], check=True)
    lo, hi = 2000, 6000
    print(f"\n## callgrind, np=2, 8 B ping-pong, both ranks, instructions per round trip ({hi}-{lo} round trips)\n")
    print("| receives | plain | transparent | transparent/plain |")
    print("|---|---|---|---|")
    for any_src in (False, True):
        per = {}
        for tm in (False, True):
            per[tm] = (instructions(a, tmp, exe, hi, any_src, tm) - instructions(a, tmp, exe, lo, any_src, tm)) / (hi - lo)
        kind = "MPI_ANY_SOURCE" if any_src else "named"
        print(f"| {kind} | {per[False]:.0f} | {per[True]:.0f} | {per[True] / per[False]:.2f} |")


def cg(a, tmp):
    exe = os.path.join(a.build, "examples", "cg_checksum")
    if not os.path.exists(exe):
        print("\ncg: build/examples/cg_checksum is not built (needs ISA-L); skipped")
        return
    print(f"\n{load()}")
    times = {False: [], True: []}
    for _ in range(a.runs):
        for tm in (False, True):
            out = mpirun(a.build, a.cg_np, tm, [exe, "-n", str(a.cg_n), "-q"])
            m = re.search(r"converged in (\d+) iterations .* in ([0-9.]+) s", out)
            if not m or "PASSED" not in out:
                raise SystemExit(f"cg_checksum: unexpected output\n{out}")
            times[tm].append(float(m.group(2)))
    p = statistics.median(times[False])
    t = statistics.median(times[True])
    print(f"\n## cg_checksum -n {a.cg_n}, np={a.cg_np}, time to solution, medians of {a.runs} interleaved runs\n")
    print("| plain (s) | transparent (s) | transparent/plain |")
    print("|---|---|---|")
    print(f"| {p:.2f} | {t:.2f} | {t / p:.2f} |")
    print(f"\n{load()}")


def firsttouch(a, tmp):
    exe = os.path.join(tmp, "first_touch")
    subprocess.run(["cc", "-O2", "-o", exe, os.path.join(ROOT, "bench", "transparent", "first_touch.c")], check=True)
    print(f"\n{load()}\n\n## filling fresh memory, MB/s per second of CPU time\n")
    print(subprocess.run([exe, "128", "3"], check=True, capture_output=True, text=True).stdout)
    print(load())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--only", default="pingpong,callgrind,cg")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--target", default="0.1")
    ap.add_argument("--max-bytes", type=int, default=4 << 20)
    ap.add_argument("--cg-np", type=int, default=8)
    ap.add_argument("--cg-n", type=int, default=64)
    a = ap.parse_args()
    parts = {"pingpong": pingpong, "callgrind": callgrind, "cg": cg, "firsttouch": firsttouch}
    with tempfile.TemporaryDirectory() as tmp:
        for name in a.only.split(","):
            if name not in parts:
                raise SystemExit(f"--only: unknown part '{name}' (pingpong, callgrind, cg, firsttouch)")
            parts[name](a, tmp)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Cost of checkpoints in transparent mode on a solver (issue 17): the CG
example at np 8 under --ft-transparent, time to solution as it prints it,
in three configurations run interleaved:

- plain: --ft-transparent, no checkpoint (the reference);
- ckpt: the same with --ckpt-interval (target: at most 1.05x plain);
- ckpt+kills: the same with a random kill every --kill-every
  (`kill random at=E every=E`, fixed seed; target: under 1.3x plain).
  Each kill restarts the rank from its latest image;
- library (with --library): the library without transparent mode, no
  sender log at all (what the program costs without the modules).

  bench/ckpt/run_cg_ckpt.py [--build DIR] [--np 8] [--n 128] [--runs 3]
      [--tol T] [--maxit N] [--interval 10s] [--kill-every 45s] [--store local|memory|buddy|disk:DIR]
      [--also-store STORE ...] [--also-args "MPIRUN ARGS" ...] [--also-env VAR=VALUE ...] [--library]

--also-store adds a configuration "ckpt (STORE)": the same checkpoints with
another store, in the same interleaved rounds (e.g. local beside memory:
a frozen fork against an image the rank writes itself). --also-args adds
"ckpt (ARGS)": the ckpt configuration with more mpirun options (e.g.
"--ckpt-max-concurrent=8"). --also-env adds "ckpt (VAR=VALUE)": the ckpt
configuration with that variable in the job's environment (e.g.
FTMPI_CKPT_DELTA=0: every memory-store image whole).

Medians per configuration and the ratios to plain, with the load average
before and after. Each round runs the configurations in another order
(rotated by one), and waits --settle seconds before each run: the plain run
ends with gigabytes of sender log freed, which this VM hands back to its
host over the next seconds, and a run started meanwhile pays a fault to the
host for each fresh page (measured: the configuration right after plain
took 1.3x as long as the same one later in the round). The run must be longer than the kill interval for a kill
to land; the script prints how many failures each run survived. Not a test;
see docs/benchmarks.md.
"""
import argparse
import os
import re
import resource
import shlex
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def load():
    return "load average %.1f %.1f %.1f" % os.getloadavg()


def run(a, extra, env=None):
    exe = os.path.join(a.build, "examples", "cg_checksum")
    # extra None: the library without transparent mode.
    mode = [] if extra is None else ["--ft-transparent"]
    cmd = [os.path.join(a.build, "bin", "mpirun"), "-np", str(a.np)] + mode + ["--summary"] + (extra or [])
    cmd += [exe, "-n", str(a.n), "-q"] + (["-t", a.tol] if a.tol else []) + (["-i", str(a.maxit)] if a.maxit else [])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, env=dict(os.environ, **(env or {})))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # Every rank, daemon and restorer is waited for by its parent: their CPU
    # time reaches us, copy-on-write faults and image writes included. Less
    # at the mercy of the load than the wall time.
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    m = re.search(r"converged in (\d+) iterations .* in ([0-9.]+) s", p.stdout)
    if p.returncode != 0 or not m or "PASSED" not in p.stdout:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}\n{p.stderr}")
    survived = re.search(r"job survived (\d+) failure", p.stderr)
    ckpts = re.search(r"ftmpirun: checkpoints: (\d+) taken", p.stderr)
    return float(m.group(2)), int(survived.group(1)) if survived else 0, int(ckpts.group(1)) if ckpts else 0, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--np", type=int, default=8)
    ap.add_argument("--n", type=int, default=128)
    ap.add_argument("--tol", default="", help="the solver's tolerance (-t; a smaller one runs longer)")
    ap.add_argument("--maxit", type=int, default=0,
                    help="at most this many iterations (-i; with --tol 1e-300 a fixed amount of work)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--interval", default="10s")
    ap.add_argument("--kill-every", default="45s")
    ap.add_argument("--store", default="local")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--also-store", action="append", default=[])
    ap.add_argument("--also-args", action="append", default=[])
    ap.add_argument("--also-env", action="append", default=[])
    ap.add_argument("--settle", type=float, default=15.0)
    ap.add_argument("--library", action="store_true",
                    help="add the library without transparent mode (no sender log) as a configuration")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.build, "examples", "cg_checksum")):
        raise SystemExit("build/examples/cg_checksum is not built (needs ISA-L)")
    ckpt = ["--ckpt-interval=" + a.interval, "--ckpt-store=" + a.store]
    kills = ckpt + ["--inject", f"kill random at={a.kill_every} every={a.kill_every}", "--inject-seed", str(a.seed)]
    configs = [("plain", [], {}), ("ckpt", ckpt, {}), ("ckpt+kills", kills, {})]
    configs += [(f"ckpt ({s})", ["--ckpt-interval=" + a.interval, "--ckpt-store=" + s], {}) for s in a.also_store]
    configs += [(f"ckpt ({x})", ckpt + shlex.split(x), {}) for x in a.also_args]
    configs += [(f"ckpt ({x})", ckpt, dict([x.split("=", 1)])) for x in a.also_env]
    if a.library:
        configs.append(("library", None, {}))
    print(load())
    res = {name: [] for name, _, _ in configs}
    for rnd in range(a.runs):
        for name, extra, env in configs[rnd % len(configs):] + configs[:rnd % len(configs)]:
            time.sleep(a.settle)
            res[name].append(run(a, extra, env))
            t, f, c, cpu = res[name][-1]
            print(f"  {name}: {t:.2f} s, {cpu:.1f} s CPU, {c} checkpoints, {f} failures survived", flush=True)
    base = statistics.median(r[0] for r in res["plain"])
    base_cpu = statistics.median(r[3] for r in res["plain"])
    print(f"\n## cg_checksum -n {a.n}{' -t ' + a.tol if a.tol else ''}{' -i %d' % a.maxit if a.maxit else ''}, np={a.np}, checkpoints every {a.interval} ({a.store} store), "
          f"kills every {a.kill_every}; medians of {a.runs} interleaved runs\n")
    print("| configuration | time to solution (s) | CPU of all processes (s) | checkpoints | failures "
          "| time ratio | CPU ratio |")
    print("|---|---|---|---|---|---|---|")
    for name, _, _ in configs:
        t = statistics.median(r[0] for r in res[name])
        f = statistics.median(r[1] for r in res[name])
        c = statistics.median(r[2] for r in res[name])
        cpu = statistics.median(r[3] for r in res[name])
        print(f"| {name} | {t:.2f} | {cpu:.1f} | {c:g} | {f:g} | {t / base:.2f} | {cpu / base_cpu:.2f} |")
    print(f"\n{load()}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The NAS Parallel Benchmarks 3.4 (MPI) with ftmpi, Open MPI and MPICH.

Unpacks the NPB tarball once per library into a work directory outside the
repository (NPB sources are never committed), builds BT, CG, EP, FT, IS, LU,
MG and SP with each library's own compiler wrappers (ftmpi: build/bin/mpif90
and mpicc; Debian's mpif90.openmpi / mpicc.openmpi and mpif90.mpich /
mpicc.mpich), runs every benchmark at np 4 (BT and SP also at 9) with the
three libraries interleaved in the same session, and prints one table per
class: verification, time and CPU time per library, and ftmpi's time over
each peer's.

Every rank runs under rank.py (unless --shared-session): in a session of its
own, as MPICH's launcher starts its ranks anyway, so that a kernel that
shares the CPU between sessions (autogroup) treats the three libraries alike;
rank.py also reports the rank's user + system CPU time, which the machine's
load changes much less than the wall clock.

  bench/npb/run.py [--build DIR] [--classes S,A] [--benchmarks bt,cg,...]
                   [--repeat 1] [--work DIR] [--libs ftmpi,openmpi,mpich]
                   [--np-list 4,9] [--shared-session]

Exit status 1 when any ftmpi run does not verify (the CI check of class S);
the peers' results are reported, not judged. Not a test of speed: the
machine is shared, so the table starts with the load average.
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
# Next to the clone, or next to the main clone of a git worktree.
DEFAULT_TARBALL = next((p for p in (os.path.normpath(os.path.join(ROOT, up, "shared", "third_party",
                                                                   "npb3.4-mpi.tar.xz"))
                                    for up in ("..", os.path.join("..", "..")))
                        if os.path.exists(p)), None)
BENCHMARKS = ["bt", "cg", "ep", "ft", "is", "lu", "mg", "sp"]
SQUARE = {"bt", "sp"}  # need a square number of processes
# gfortran >= 10 rejects one external called with buffers of different
# types (every mpif.h program does it) unless told to allow it.
FFLAGS = "-O3 -fallow-argument-mismatch"
RANK = os.path.join(HERE, "rank.py")
OMPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
from sanitizer_reports import SanitizerLog  # noqa: E402


def valid_np(bench, np_):
    """BT and SP need a square number of processes, the others run at powers
    of two (EP would take any count; it follows the others so that the
    tables compare the same counts)."""
    if bench in SQUARE:
        return int(round(np_ ** 0.5)) ** 2 == np_
    return np_ > 0 and (np_ & (np_ - 1)) == 0


def libraries(build):
    b = os.path.join(build, "bin")
    return {
        "ftmpi": dict(fc=os.path.join(b, "mpif90"), cc=os.path.join(b, "mpicc"),
                      run=[os.path.join(b, "mpirun"), "-np"], env={}),
        "openmpi": dict(fc="mpif90.openmpi", cc="mpicc.openmpi",
                        run=["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np"],
                        env=OMPI_ENV),
        "mpich": dict(fc="mpif90.mpich", cc="mpicc.mpich", run=["mpiexec.mpich", "-n"], env={}),
    }


def unpack(tarball, dest):
    """dest/NPB3.4-MPI, unpacked once."""
    top = os.path.join(dest, "NPB3.4-MPI")
    if not os.path.isdir(top):
        os.makedirs(dest, exist_ok=True)
        with tarfile.open(tarball) as t:
            t.extractall(dest)
    return top


def configure(top, lib):
    os.makedirs(os.path.join(top, "bin"), exist_ok=True)
    with open(os.path.join(top, "config", "make.def"), "w") as f:
        f.write(f"MPIFC = {lib['fc']}\nFLINK = $(MPIFC)\nFMPI_LIB =\nFMPI_INC =\n"
                f"FFLAGS = {FFLAGS}\nFLINKFLAGS = $(FFLAGS)\n"
                f"MPICC = {lib['cc']}\nCLINK = $(MPICC)\nCMPI_LIB =\nCMPI_INC =\n"
                f"CFLAGS = -O3\nCLINKFLAGS = $(CFLAGS)\nCC = gcc\nBINDIR = ../bin\n"
                f"CONVERTFLAG = -DFORTRAN_REC_SIZE=1\nRAND = randdp\n")


def build(top, bench, cls, log):
    exe = os.path.join(top, "bin", f"{bench}.{cls}.x")
    if os.path.exists(exe):
        return exe
    p = subprocess.run(["make", bench.upper(), f"CLASS={cls}"], cwd=top, capture_output=True, text=True)
    with open(log, "a") as f:
        f.write(p.stdout + p.stderr)
    return exe if p.returncode == 0 and os.path.exists(exe) else None


def run(lib, exe, np_, timeout, sessions):
    """(status, NPB seconds or None, wall seconds, output, CPU seconds of all ranks or None).
    A sanitizer report from any process (an ftmpi built with -DFTMPI_SANITIZE=ON)
    is the status, whatever the benchmark verified."""
    with SanitizerLog() as san:
        r = run_once(lib, exe, np_, timeout, sessions, san.env(dict(os.environ, **lib["env"])))
        reports = san.failures(r[3])
    return (reports[0], None, r[2], r[3], None) if reports else r


def run_once(lib, exe, np_, timeout, sessions, env):
    t0 = time.time()
    # Own session, so that a timeout ends the launcher and every rank (the
    # programs under rank.py die with it).
    prog = [sys.executable, RANK, exe] if sessions else [exe]
    p = subprocess.Popen(lib["run"] + [str(np_)] + prog, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, cwd=os.path.dirname(exe), start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return (f"TIMEOUT {timeout:.0f} s", None, time.time() - t0, "", None)
    verif = re.search(r"Verification\s*=\s*(\w+)", out)
    secs = re.search(r"Time in seconds\s*=\s*([0-9.Ee+-]+)", out)
    status = verif.group(1) if verif else f"exit {p.returncode}"
    cpu = [float(u) + float(s) for u, s in re.findall(r"^NPB-RANK-CPU ([0-9.]+) ([0-9.]+)$", err, re.M)]
    return (status, float(secs.group(1)) if secs else None, time.time() - t0, out + err,
            sum(cpu) if len(cpu) == np_ else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--tarball", default=DEFAULT_TARBALL)
    ap.add_argument("--work", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "ftmpi-npb"),
                    help="where NPB is unpacked and built (outside the repository, or in --build)")
    ap.add_argument("--classes", default="S")
    ap.add_argument("--benchmarks", default=",".join(BENCHMARKS))
    ap.add_argument("--libs", default="ftmpi,openmpi,mpich")
    ap.add_argument("--np-list", default="4,9",
                    help="process counts; each benchmark runs at those it accepts (BT, SP: squares; "
                         "the others: powers of two)")
    ap.add_argument("--repeat", type=int, default=1, help="runs per library (median time reported)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per ftmpi run")
    ap.add_argument("--peer-timeout", type=float, help="seconds per Open MPI / MPICH run (default --timeout); "
                    "MPICH polls, so oversubscribed it can take very long")
    ap.add_argument("--shared-session", action="store_true",
                    help="start the programs directly (each launcher's own session policy: MPICH's ranks get "
                         "one session each, ftmpi's and Open MPI's share one) and report no CPU time")
    a = ap.parse_args()
    if not a.tarball or not os.path.exists(a.tarball):
        sys.exit("run.py: NPB tarball not found (give --tarball npb3.4-mpi.tar.xz)")
    work = os.path.abspath(a.work)
    build_dir = os.path.abspath(a.build)
    inside = lambda path, d: path == d or path.startswith(d + os.sep)
    if inside(work, ROOT) and not inside(work, build_dir):
        sys.exit("run.py: --work must be outside the repository or in the build directory "
                 "(NPB sources are never committed)")
    all_libs = libraries(os.path.abspath(a.build))
    names = [n for n in a.libs.split(",") if n]
    for n in names:
        if n not in all_libs:
            sys.exit(f"run.py: unknown library {n}")
        if shutil.which(all_libs[n]["fc"]) is None:
            sys.exit(f"run.py: {all_libs[n]['fc']} not found" +
                     (" (configure ftmpi with a Fortran compiler)" if n == "ftmpi" else ""))
    tops = {}
    for n in names:
        tops[n] = unpack(a.tarball, os.path.join(work, n))
        configure(tops[n], all_libs[n])
    nps = [int(x) for x in a.np_list.split(",")]
    failed = False
    print(f"# NPB 3.4 MPI; {os.uname().nodename}, {os.cpu_count()} cores; "
          f"uptime at start: {open('/proc/loadavg').read().split()[:3]}")
    for cls in a.classes.split(","):
        rows = []
        for bench in a.benchmarks.split(","):
            exes = {n: build(tops[n], bench, cls, os.path.join(work, f"build-{n}.log")) for n in names}
            for np_ in nps:
                if not valid_np(bench, np_):
                    continue
                results = {n: [] for n in names}
                for _ in range(a.repeat):
                    for n in names:  # interleaved: the libraries share the load
                        if exes[n] is None:
                            results[n].append(("BUILD FAILED", None, 0, "", None))
                            continue
                        limit = a.timeout if n == "ftmpi" or a.peer_timeout is None else a.peer_timeout
                        results[n].append(run(all_libs[n], exes[n], np_, limit, not a.shared_session))
                row = {"bench": bench.upper(), "np": np_, "load": open("/proc/loadavg").read().split()[0]}
                for n in names:
                    st = [r[0] for r in results[n]]
                    times = [r[1] for r in results[n] if r[1] is not None and r[0] == "SUCCESSFUL"]
                    cpus = [r[4] for r in results[n] if r[4] is not None and r[0] == "SUCCESSFUL"]
                    row[n] = ("SUCCESSFUL" if st and all(s == "SUCCESSFUL" for s in st) else
                              next(s for s in st if s != "SUCCESSFUL"), statistics.median(times) if times else None,
                              statistics.median(cpus) if cpus else None)
                    if n == "ftmpi" and row[n][0] != "SUCCESSFUL":
                        failed = True
                        last = results[n][-1][3]
                        print(f"ftmpi {bench}.{cls} np={np_}: {row[n][0]}\n{last[-3000:]}", file=sys.stderr)
                rows.append(row)
                print_row(cls, row, names, header=len(rows) == 1)
                sys.stdout.flush()
    print(f"\nuptime at end: {open('/proc/loadavg').read().split()[:3]}; s = NPB's 'Time in seconds', "
          f"cpu = user + system seconds of all ranks (medians of {a.repeat}); "
          f"ranks {'as each launcher starts them' if a.shared_session else 'in a session each'}; "
          f"ratio = ftmpi / peer (NPB time), below 1 means ftmpi is faster")
    return 1 if failed else 0


def print_row(cls, row, names, header):
    peers = [n for n in names if n != "ftmpi"]
    if header:
        print(f"\n## class {cls}\n")
        print("| benchmark | np | load | " + " | ".join(f"{n} verif | {n} s | {n} cpu" for n in names) +
              "".join(f" | ftmpi/{p}" for p in peers) + " |")
        print("|---|---|---|" + "---|---|---|" * len(names) + "---|" * len(peers))
    cells = [row["bench"], str(row["np"]), row["load"]]
    for n in names:
        st, t, cpu = row[n]
        cells += ["ok" if st == "SUCCESSFUL" else st, f"{t:.3f}" if t is not None else "-",
                  f"{cpu:.2f}" if cpu is not None else "-"]
    for p in peers:
        f, o = row.get("ftmpi", (None, None, None))[1], row[p][1]
        cells.append(f"{f / o:.2f}" if f and o else "-")
    print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())

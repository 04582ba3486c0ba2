#!/usr/bin/env python3
"""Runtime tests: runs rte_probe (which uses only rte::Client) through the real
ftmpirun and checks exit status, output, reason lines and that no process of
the job is left behind.

    rte_cases.py CASE --ftmpirun PATH --probe PATH --app PATH

Cases about recovery rounds, injection, --kill and the timeline are in
rte_ft_cases.py (they run rte_app, a fake fault-tolerant application), cases
about the runtime's own limits in rte_limits_cases.py; the job machinery
shared by all is in rte_jobs.py.

Every job gets a unique `--marker` argument; afterwards `pgrep -f` must find
neither a rank carrying it nor an ftmpid of that launcher (`--job <pid>`).
A case fails by raising Failure; the script then exits 1.
"""
import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rte_ft_cases  # noqa: E402
import rte_limits_cases  # noqa: E402
from rte_jobs import Failure, Job, expect, expect_code, rank_lines, reason, run, run_case  # noqa: E402


# ---------------------------------------------------------------- cases

def cards(ctx, np, launcher=()):
    j = run(ctx, ["-np", str(np), *launcher], ["cards"])
    expect_code(j, 0)
    got = rank_lines(j.out, rf"^rank (?P<r>\d+) of {np}: {np} cards ok, (?P<local>\d+) local$")
    expect(sorted(got) == list(range(np)), f"ranks reporting: {sorted(got)}")
    expect(all(len(v) == 1 for v in got.values()), "a rank reported twice")
    expect("ftmpirun:" not in j.err, "unexpected launcher message")
    return got


def case_cards_np1(ctx):
    cards(ctx, 1)


def case_cards_np4(ctx):
    cards(ctx, 4)


def case_cards_np16(ctx):
    cards(ctx, 16)


def case_two_hosts_np4(ctx):
    # Two "hosts" on this machine: two daemons, the leader link, cards across both.
    got = cards(ctx, 4, ["--host", "127.0.0.2:2,127.0.0.3:2"])
    expect([int(got[r][0].group("local")) for r in range(4)] == [2, 2, 2, 2], "placement 2+2 expected")
    # More ranks than slots: the rest go round-robin, each host keeps a contiguous block.
    got = cards(ctx, 4, ["--host", "127.0.0.2:2,127.0.0.3"])
    expect([int(got[r][0].group("local")) for r in range(4)] == [3, 3, 3, 1], "placement 3+1 expected")
    with tempfile.NamedTemporaryFile("w", suffix=".hosts", delete=False) as f:
        f.write("# test hosts\n127.0.0.2 slots=1\n127.0.0.3:3\n")
    try:
        got = cards(ctx, 4, ["--hostfile", f.name])
        expect([int(got[r][0].group("local")) for r in range(4)] == [1, 3, 3, 3], "placement 1+3 expected")
    finally:
        os.unlink(f.name)


def modes_of(j, np):
    got = rank_lines(j.out, r"^rank (?P<r>\d+) modes (?P<m>.*)$")
    expect(sorted(got) == list(range(np)), "not every rank printed its modes")
    modes = {v[0].group("m") for v in got.values()}
    expect(len(modes) == 1, f"ranks disagree on modes: {modes}")
    return modes.pop()


def case_modes_default(ctx):
    j = run(ctx, ["-np", "2"], ["modes"], env={k: "" for k in
            ("FTMPI_COMM_MODE", "FTMPI_MSG_MODE", "FTMPI_COLL_MODE", "FTMPI_RECOVERY_MODE")})
    expect_code(j, 0)
    m = modes_of(j, 2)
    expect(m == "comm=abort msg=reset coll=nonatomic recovery=manual", f"defaults: {m}")


def case_modes_options(ctx):
    j = run(ctx, ["-n", "3", "--ft-comm-mode=blank", "--ft-msg-mode", "cont", "--ft-coll-mode=atomic",
                  "--ft-recovery-mode", "auto"], ["modes"], env={"FTMPI_COMM_MODE": "shrink"})
    expect_code(j, 0)
    m = modes_of(j, 3)
    expect(m == "comm=blank msg=cont coll=atomic recovery=auto", f"option must win over env: {m}")


def case_modes_env(ctx):
    env = {"FTMPI_COMM_MODE": "rebuild", "FTMPI_MSG_MODE": "cont", "FTMPI_COLL_MODE": "atomic",
           "FTMPI_RECOVERY_MODE": "ignore"}
    j = run(ctx, ["--np", "2"], ["modes"], env=env)
    expect_code(j, 0)
    m = modes_of(j, 2)
    expect(m == "comm=rebuild msg=cont coll=atomic recovery=ignore", f"env modes: {m}")


def case_bad_mode(ctx):
    j = run(ctx, ["-np", "2", "--ft-comm-mode=sideways"], ["cards"])
    expect_code(j, 2)
    expect(re.search(r"--ft-comm-mode=sideways is not a mode; expected abort, rebuild, blank or shrink", j.err),
           "no clear error for a bad option value")
    j = run(ctx, ["-np", "2"], ["cards"], env={"FTMPI_MSG_MODE": "bogus"})
    expect_code(j, 2)
    expect("FTMPI_MSG_MODE=bogus is not a mode; expected reset or cont" in j.err, "no clear error for bad env")
    expect(j.out == "", "a job ran despite a bad mode")


def case_tag_output(ctx):
    j = run(ctx, ["-np", "4", "--tag-output"], ["output", "3"])
    expect_code(j, 0)
    lines = j.out.splitlines()
    expect(len(lines) == 16, f"{len(lines)} stdout lines, expected 4 x (3 + tail)")
    for line in lines:
        m = re.match(r"^\[(\d+)\] rank (\d+) (line \d|tail)$", line)
        expect(m and m.group(1) == m.group(2), f"badly tagged line: {line!r}")
    for r in range(4):
        mine = [l for l in lines if l.startswith(f"[{r}] ")]
        expect(mine == [f"[{r}] rank {r} line {i}" for i in range(3)] + [f"[{r}] rank {r} tail"],
               f"rank {r} lines out of order or missing: {mine}")
        expect(f"[{r}] rank {r} to stderr\n" in j.err, f"rank {r} stderr not tagged")


def case_output_untagged(ctx):
    n = 20000
    j = run(ctx, ["-np", "4"], ["output", str(n)])
    expect_code(j, 0)
    # Whole lines only: a rank's stdio cuts its output in blocks, the launcher re-joins them.
    for line in j.out.splitlines():
        expect(re.fullmatch(r"(rank \d tail)*rank \d (line \d+|tail)", line), f"mixed line {line[:80]!r}")
    for r in range(4):
        got = re.findall(rf"rank {r} line (\d+)\n", j.out)
        expect(len(got) == n and got == [str(i) for i in range(n)], f"rank {r}: {len(got)} of {n} lines")
        expect(j.out.count(f"rank {r} tail") == 1, f"rank {r} partial last line lost")
        expect(f"rank {r} to stderr\n" in j.err, f"rank {r} stderr lost")


def case_stdin_rank0(ctx):
    j = run(ctx, ["-np", "3"], ["stdin"], stdin=b"hello\nworld")
    expect_code(j, 0)
    expect(j.out == "rank 0 read 11 bytes: [hello\nworld]\n", f"stdin did not reach rank 0 intact: {j.out!r}")
    # More than the launcher's 1 MiB credit window, from a pipe.
    data = bytes((i * 7 + 3) % 251 for i in range(3 << 20))
    h = 0
    for b in data:
        h = (h * 31 + b) % (1 << 64)
    j = run(ctx, ["-np", "2"], ["stdin"], stdin=data)
    expect_code(j, 0)
    expect(j.out == f"rank 0 read {len(data)} bytes, hash {h}\n", f"large stdin damaged: {j.out!r}")
    # From a regular file (epoll cannot watch those).
    with tempfile.TemporaryFile() as f:
        f.write(b"from a file\n")
        f.seek(0)
        marker = "rtetest-" + uuid.uuid4().hex
        p = subprocess.run([ctx.ftmpirun, "-np", "2", ctx.probe, "stdin", "--marker", marker], stdin=f,
                           capture_output=True, timeout=60)
    expect(p.returncode == 0 and p.stdout == b"rank 0 read 12 bytes: [from a file\n]\n",
           f"stdin from a file: {p.returncode} {p.stdout!r}")


def case_exit_after_finalize(ctx):
    j = run(ctx, ["-np", "3"], ["exit", "1", "7", "after"])
    expect_code(j, 7)
    expect("ftmpirun:" not in j.err, "an exit after finalize is not a failure")


def case_exit_before_finalize(ctx):
    j = run(ctx, ["-np", "4"], ["exit", "2", "7", "before"])
    expect_code(j, 7)
    reason(j, 2, r"exited with status 7 before MPI_Finalize")
    expect(len(re.findall(r"^ftmpirun:", j.err, re.M)) == 1, "exactly one reason line")


def case_exit_zero_before_finalize(ctx):
    j = run(ctx, ["-np", "3"], ["exit", "0", "0", "before"])
    expect_code(j, 1)
    reason(j, 0, r"exited with status 0 before MPI_Finalize")


def case_non_mpi_program(ctx):
    j = run(ctx, ["-np", "3"], program="/bin/true")
    expect_code(j, 0)
    j = run(ctx, ["-np", "2"], program="/bin/false")
    expect_code(j, 1)
    reason(j, r"\d", r"exited with status 1 before MPI_Finalize")


def case_wrapper_script(ctx):
    # The rank's process is a shell; the MPI process it forks inherits the
    # control channel, and its card must carry its own pid (probe checks it).
    j = run(ctx, ["-np", "3"], program=["sh", "-c", f"{ctx.probe} cards --marker MARKER; exit $?"])
    expect_code(j, 0)
    got = rank_lines(j.out, r"^rank (?P<r>\d+) of 3: 3 cards ok, 3 local$")
    expect(sorted(got) == [0, 1, 2], f"ranks reporting: {sorted(got)}")


def case_exec_failure(ctx):
    # A program that exists on this machine but fails to execute (its
    # interpreter is missing): each rank's start fails.
    with tempfile.NamedTemporaryFile("w", suffix=".notexec", delete=False) as f:
        f.write("#!/nonexistent/interpreter\n")
    os.chmod(f.name, 0o755)
    try:
        j = run(ctx, ["-np", "2"], program=f.name)
        expect_code(j, 127)
        lines = [l for l in j.err.splitlines() if "cannot execute" in l]
        expect(lines, "no exec error")
        for l in lines:
            expect(l == f"ftmpid: cannot execute '{f.name}': No such file or directory",
                   f"exec error line damaged: {l!r}")
        reason(j, r"\d", r"exited with status 127 before MPI_Finalize")
        # In an FT mode the job goes on without them, and with no survivor it failed.
        j = run(ctx, ["-np", "3", "--ft-comm-mode=blank"], program=f.name)
        expect_code(j, 1)
        expect(len(re.findall(r"died: exited with status 127 before MPI_Finalize in epoch 0; survivors notified",
                              j.err)) == 3, "every failed start is reported")
        expect("ftmpirun: every process of the job has died; nothing is left to recover" in j.err,
               "no end-of-job reason")
    finally:
        os.unlink(f.name)


def selfkill(ctx, np, victim):
    j = run(ctx, ["-np", str(np)], ["selfkill", str(victim)])
    expect_code(j, 137)
    reason(j, victim, r"was killed by signal 9 \(SIGKILL\)")
    expect(len(re.findall(r"^ftmpirun:", j.err, re.M)) == 1, "exactly one reason line")
    expect(j.elapsed < 15, f"took {j.elapsed:.1f} s")


def case_selfkill_abort_np4(ctx):
    selfkill(ctx, 4, 2)


def case_selfkill_abort_np16(ctx):
    selfkill(ctx, 16, 11)


def case_abort_code(ctx):
    j = run(ctx, ["-np", "4"], ["abort", "1", "42"])
    expect_code(j, 42)
    reason(j, 1, r"called MPI_Abort with code 42: probe abort")


def signal_job(ctx, sig, np, code, scenario="sleep"):
    j = Job(ctx, ["-np", str(np)], [scenario])
    j.wait_for_stdout_lines(np)
    t = time.time()
    j.p.send_signal(sig)
    j.finish(timeout=30)
    took = time.time() - t
    expect_code(j, code)
    expect(took < 5, f"ending the job took {took:.1f} s")
    j.expect_clean()
    return took


def case_sigint(ctx):
    signal_job(ctx, signal.SIGINT, 8, 130)


def case_sigint_stubborn(ctx):
    # Ranks ignore SIGTERM: they get SIGKILL after the grace period (1 s).
    took = signal_job(ctx, signal.SIGINT, 4, 130, "stubborn")
    expect(took > 0.9, f"ranks were killed after {took:.2f} s, before the grace period ended")


def case_sigint_twice(ctx):
    # A second Ctrl-C does not wait for the grace period.
    j = Job(ctx, ["-np", "4"], ["stubborn"])
    j.wait_for_stdout_lines(4)
    t = time.time()
    j.p.send_signal(signal.SIGINT)
    time.sleep(0.1)
    j.p.send_signal(signal.SIGINT)
    j.finish(timeout=30)
    took = time.time() - t
    expect_code(j, 130)
    expect(took < 0.8, f"the second SIGINT still waited {took:.2f} s")
    expect("ftmpirun: killing the job now" in j.err, "no message for the second SIGINT")
    j.expect_clean()


def case_sigterm(ctx):
    signal_job(ctx, signal.SIGTERM, 4, 143)


def case_launcher_killed(ctx):
    j = Job(ctx, ["-np", "4"], ["sleep"])
    j.wait_for_stdout_lines(4)
    expect(j.leftovers(), "the job's processes are not visible to pgrep")
    j.p.kill()
    j.p.communicate(timeout=10)
    # Daemons notice the lost link and end their ranks (SIGTERM, SIGKILL after 1 s).
    j.expect_clean(within=5.0)


def case_daemon_stopped(ctx):
    # The daemon on the launcher's own host is frozen (SIGSTOP): its link is
    # loopback, so only its process state tells a frozen daemon from a
    # starved one (docs/multi-host.md). It is lost within the heartbeat timeout.
    j = Job(ctx, ["-np", "2"], ["sleep"])
    j.wait_for_stdout_lines(2)
    daemons = subprocess.run(["pgrep", "-f", rf"ftmpid .*--job {j.p.pid}$"], capture_output=True, text=True).stdout.split()
    expect(len(daemons) == 1, f"daemons of the job: {daemons}")
    t = time.time()
    os.kill(int(daemons[0]), signal.SIGSTOP)
    try:
        j.finish(timeout=20)
    finally:
        try:
            os.kill(int(daemons[0]), signal.SIGCONT)
        except ProcessLookupError:
            pass  # the launcher killed it
    took = time.time() - t
    expect(j.code != 0, "the job ended with status 0")
    expect(re.search(r"ftmpirun: lost the daemon on \S+ \(silent for \d+ ms\)", j.err), "no lost-daemon line")
    expect(took < 5.0, f"declared lost after {took:.2f} s")
    j.expect_clean(within=5.0)


def blank(ctx, np, victims):
    j = run(ctx, ["-np", str(np), "--ft-comm-mode=blank"], ["notices", ",".join(map(str, victims))])
    expect_code(j, 0)
    got = rank_lines(j.out, r"^rank (?P<r>\d+) saw (?P<seen>.*)$")
    survivors = [r for r in range(np) if r not in victims]
    expect(sorted(got) == survivors, f"survivors reporting: {sorted(got)}, expected {survivors}")
    orders = {v[0].group("seen") for v in got.values()}
    expect(len(orders) == 1, f"survivors saw different orders: {orders}")
    events = [e.split(":") for e in orders.pop().split()]
    expect([int(s) for s, _ in events] == list(range(1, len(victims) + 1)), f"event seqs {events}")
    expect(sorted(int(w.split(".")[0]) for _, w in events) == sorted(victims), f"victims {events}")
    for v in victims:
        reason(j, v, r"died: killed by signal 9 in epoch 0; survivors notified")


def case_blank_notices_np4(ctx):
    blank(ctx, 4, [1])


def case_blank_notices_np16(ctx):
    blank(ctx, 16, [3, 7, 12])


def case_suspect(ctx):
    j = run(ctx, ["-np", "4", "--ft-comm-mode=blank"], ["suspect"])
    expect_code(j, 0)
    expect("ftmpirun:" not in j.err, "a suspicion of a live rank must change nothing")


def listening_ports(pid):
    r = subprocess.run(["ss", "-Hltnp"], capture_output=True, text=True)
    ports = []
    for line in r.stdout.splitlines():
        if f"pid={pid}," in line:
            ports.append(int(line.split()[3].rsplit(":", 1)[1]))
    return ports


def case_bad_connection(ctx):
    # Strangers connecting to the launcher and to a daemon are refused and logged;
    # the job goes on and ends normally.
    j = Job(ctx, ["-np", "2"], ["nap", "3000"], env={"FTMPI_DEBUG": "1"})
    time.sleep(1.0)
    daemons = subprocess.run(["pgrep", "-f", rf"ftmpid .*--job {j.p.pid}$"], capture_output=True, text=True)
    targets = listening_ports(j.p.pid) + [p for d in daemons.stdout.split() for p in listening_ports(int(d))]
    expect(len(targets) >= 2, f"listening ports of launcher and daemon not found: {targets}")
    for port in targets:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"FTMPIAU1" + b"\0" * 16 + b"x" * 32)  # a hello, then a wrong proof
        s.settimeout(5)
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        s.close()
        expect(len(data) <= 56, "the peer talked beyond the handshake to a stranger")
    j.finish(timeout=30)
    j.expect_clean()
    expect_code(j, 0)
    expect(j.err.count("peer failed to prove the job secret") >= len(targets), "refusals were not logged")


def case_usage_errors(ctx):
    for args, text in ((["-np", "2"], "no program to run"),
                       (["-np", "0", "x"], "must be a positive integer"),
                       (["--bogus", "x"], "unknown option '--bogus'"),
                       (["--heartbeat-ms", "500", "--heartbeat-timeout-ms", "400", "x"], "must be larger"),
                       (["--hostfile", "/nonexistent/hosts", "x"], "cannot read the hostfile"),
                       (["--host", "a", "--hostfile", "f", "x"], "either --host or --hostfile")):
        p = subprocess.run([ctx.ftmpirun] + args, capture_output=True, text=True, timeout=30)
        expect(p.returncode == 2, f"{args}: exit {p.returncode}, expected 2")
        expect(text in p.stderr, f"{args}: stderr {p.stderr!r} lacks {text!r}")
    p = subprocess.run([ctx.ftmpirun, "--help"], capture_output=True, text=True, timeout=30)
    expect(p.returncode == 0 and "--ft-comm-mode" in p.stdout, "--help")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case")
    ap.add_argument("--ftmpirun", required=True)
    ap.add_argument("--probe", required=True)
    ap.add_argument("--app", required=True)
    ctx = ap.parse_args()
    fn = (globals().get("case_" + ctx.case) or getattr(rte_ft_cases, "case_" + ctx.case, None)
          or getattr(rte_limits_cases, "case_" + ctx.case, None))
    return run_case(ctx, fn)


if __name__ == "__main__":
    sys.exit(main())

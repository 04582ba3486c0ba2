"""Runtime cases about the launcher's and daemons' own limits and leftovers
(issue 14): stale contact files, a missing program, long arguments in
messages, the job's descriptor needs, MPIEXEC_TIMEOUT / --timeout and a
leader waiting for daemons that never answer. Run through rte_cases.py.
"""
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from rte_jobs import Job, expect, expect_code, run


def private_runtime_dir():
    """An XDG_RUNTIME_DIR of our own: other jobs of this user stay out of it."""
    d = tempfile.mkdtemp(prefix="ftmpi-rte-")
    os.chmod(d, 0o700)
    return d


def case_stale_contact_files(ctx):
    xdg = private_runtime_dir()
    env = {"XDG_RUNTIME_DIR": xdg}
    cdir = os.path.join(xdg, "ftmpi")
    j = Job(ctx, ["-np", "2"], ["sleep"], env=env)
    j.wait_for_stdout_lines(2)
    killed = os.path.join(cdir, str(j.p.pid))
    expect(os.path.exists(killed), "the running job has no contact file")
    j.p.send_signal(signal.SIGKILL)
    j.p.communicate(timeout=10)
    j.expect_clean(within=5.0)
    expect(os.path.exists(killed), "SIGKILL of mpirun left no file: the case tests nothing")
    # A file whose pid now belongs to a process started after it was written
    # (pid reuse): this test process, with a file dated 1970.
    reused = os.path.join(cdir, str(os.getpid()))
    with open(killed) as f:
        text = f.read()
    text = re.sub(r"^pid \d+$", f"pid {os.getpid()}", text, flags=re.M)
    text = re.sub(r"^started \d+$", "started 1", text, flags=re.M)
    fd = os.open(reused, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, text.encode())
    os.close(fd)
    # A running job's file must stay.
    live = Job(ctx, ["-np", "1"], ["sleep"], env=env)
    live.wait_for_stdout_lines(1)
    # The next mpirun start, whatever it runs, removes the stale files.
    j2 = run(ctx, ["-np", "1"], program="/bin/true", env=env)
    expect_code(j2, 0)
    left = sorted(os.listdir(cdir))
    live.p.send_signal(signal.SIGTERM)
    live.finish(timeout=30)
    live.expect_clean()
    expect(not os.path.exists(killed), f"the secret of the SIGKILLed launcher is still on disk: {left}")
    expect(not os.path.exists(reused), f"a file whose pid was reused is still on disk: {left}")
    expect(left == [str(live.p.pid)], f"the running job's contact file was removed: {left}")
    shutil.rmtree(xdg)


def case_missing_program(ctx):
    for args, prog, why in ((["-np", "4"], "/nonexistent/rte-probe", "No such file or directory"),
                            (["-np", "3", "--ft-comm-mode=blank"], "/nonexistent/rte-probe",
                             "No such file or directory"),
                            (["-np", "2"], "no-such-program-rte-test", "No such file or directory"),
                            (["-np", "2"], "/tmp", "Permission denied")):
        j = run(ctx, args, program=prog)
        expect_code(j, 127)
        lines = [l for l in j.err.splitlines() if l]
        expect(lines == [f"ftmpirun: cannot execute '{prog}': {why}"],
               f"{args} {prog}: expected one line, got {lines!r}")
        expect(j.out == "", "a job ran")


def case_long_arguments(ctx):
    big = "x" * 100_000
    cases = ((["--bogus" + big, "prog"], 2), (["-np", big, "prog"], 2), (["--host", big + ":2", "prog"], 2),
             (["--inject", "kill " + big, "prog"], 2), (["--ft-comm-mode=" + big, "prog"], 2),
             (["--kill", big], 2), (["-np", "1", "/nonexistent/" + big], 127))
    for args, code in cases:
        p = subprocess.run([ctx.ftmpirun] + args, capture_output=True, text=True, timeout=30)
        what = args[0][:20]
        expect(p.returncode == code, f"{what}...: exit {p.returncode}, expected {code}")
        lines = p.stderr.splitlines()
        expect(lines and lines[0].startswith("ftmpirun: "), f"{what}...: no message: {p.stderr[:200]!r}")
        longest = max(len(l) for l in lines)
        expect(longest <= 300, f"{what}...: a {longest}-byte line echoes the argument")
        expect("(cut; 10" in p.stderr, f"{what}...: the message does not say the value was cut")
    p = subprocess.run([ctx.ftmpirun, "-np", "1", "prog"], capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, FTMPI_COMM_MODE=big))
    expect(p.returncode == 2 and max(len(l) for l in p.stderr.splitlines()) <= 300, "a long variable is echoed")


def case_np_over_limits(ctx):
    t0 = time.time()
    j = run(ctx, ["-np", "100000"], ["cards"])
    expect_code(j, 1)
    lines = [l for l in j.err.splitlines() if l]
    expect(len(lines) == 1 and re.fullmatch(
        r"ftmpirun: 100000 ranks on host \S+ need about 500064 open files in its daemon, more than the limit "
        r"of \d+ \(ulimit -n\); use more hosts or fewer ranks per host", lines[0]), f"messages: {lines!r}")
    expect(time.time() - t0 < 20, "the check came late")
    # The same under the usual 1024: 200 ranks do not fit, and nothing starts.
    p = subprocess.run(["bash", "-c", f"ulimit -n 1024 && exec {ctx.ftmpirun} -np 200 {ctx.probe} cards"],
                       capture_output=True, text=True, timeout=60)
    expect(p.returncode == 1 and "200 ranks on host" in p.stderr and "of 1024 (ulimit -n)" in p.stderr,
           f"-np 200 under ulimit -n 1024: {p.returncode} {p.stderr[-300:]!r}")
    expect(p.stdout == "", "ranks started")


def case_timeout(ctx):
    for launcher, env in ((["--timeout", "2"], None), ([], {"MPIEXEC_TIMEOUT": "2"}),
                          (["--timeout=2", "--ft-comm-mode=rebuild"], {"MPIEXEC_TIMEOUT": "600"})):
        j = run(ctx, ["-np", "3", *launcher], ["stubborn"], env=env, timeout=40)
        expect_code(j, 124)
        expect("ftmpirun: the job did not end within its time limit of 2 s (--timeout, MPIEXEC_TIMEOUT); "
               "it was ended" in j.err, f"no timeout message: {j.err[-300:]!r}")
        expect(2 <= j.elapsed < 15, f"ended after {j.elapsed:.1f} s")
    j = run(ctx, ["-np", "2", "--timeout", "30"], ["cards"])
    expect_code(j, 0)
    expect(j.elapsed < 25, "a job within its limit waited for it")
    for args, env in ((["--timeout", "0"], None), (["--timeout", "soon"], None), ([], {"MPIEXEC_TIMEOUT": "-1"})):
        p = subprocess.run([ctx.ftmpirun, "-np", "1", *args, "/bin/true"], capture_output=True, text=True,
                           timeout=30, env=dict(os.environ, **(env or {})))
        expect(p.returncode == 2 and ("--timeout needs" in p.stderr or "MPIEXEC_TIMEOUT=-1 is not" in p.stderr),
               f"{args} {env}: {p.returncode} {p.stderr!r}")


def case_takeover_silent_daemon(ctx):
    # The leader's host is lost; of the two daemons left, the third never
    # sends the new leader its HOST_SYNC (fault knob). The new leader goes on
    # without it after its takeover timeout, and the job recovers and ends.
    from rte_ft_cases import expect_recovered, ft_run, table_of
    j = ft_run(ctx, "blank", 6, ["expect=2"],
               launcher=["--host", "127.0.0.2:2,127.0.0.3:2,127.0.0.4:2", "--inject", "kill host=127.0.0.2 at=0.3s"],
               env={"FTMPI_FAULT_SILENT_SYNC_HOST": "2", "FTMPI_TAKEOVER_TIMEOUT_MS": "2000"}, timeout=60)
    expect_code(j, 0)
    expect(re.search(r"host 2 did not answer the new leader within 2000 ms; going on without it", j.err),
           "the new leader did not say it went on without host 2")
    expect_recovered(j, 6, table_of(6, dead=(0, 1)), epoch=1, covered=2, rounds=1)
    expect(j.elapsed < 30, f"took {j.elapsed:.1f} s")

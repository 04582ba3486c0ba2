"""Shared pieces of the runtime tests: a job run through the real ftmpirun,
expectations, and the check that no process of a job is left behind."""
import os
import re
import signal
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from sanitizer_reports import SanitizerLog  # noqa: E402


class Failure(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


class Job:
    """One ftmpirun run, started in the background."""

    def __init__(self, ctx, launcher_args, probe_args=None, program=None, stdin=None, env=None):
        self.ctx = ctx
        self.marker = "rtetest-" + uuid.uuid4().hex
        if program == "APP":  # the fake FT application; probe_args are its arguments
            prog = [ctx.app] + list(probe_args or []) + ["--marker", self.marker]
        elif isinstance(program, list):  # a full command; MARKER is replaced by the marker
            prog = [a.replace("MARKER", self.marker) for a in program]
        elif program:
            prog = [program]
        else:
            prog = [ctx.probe] + list(probe_args or []) + ["--marker", self.marker]
        self.cmd = [ctx.ftmpirun] + list(launcher_args) + prog
        full_env = dict(os.environ)
        full_env.update(env or {})
        # Under -DFTMPI_SANITIZE=ON a report from any process of the job fails
        # the case: each job gets its own report directory.
        self.san = SanitizerLog()
        full_env = self.san.env(full_env)
        self.stdin_data = stdin
        self.t0 = time.time()
        self.p = subprocess.Popen(self.cmd, env=full_env,
                                  stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.out = self.err = ""
        self.code = None

    def finish(self, timeout=60):
        try:
            out, err = self.p.communicate(input=self.stdin_data, timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, err = self.p.communicate()
            self.kill_leftovers()
            self.show(out, err)
            reports = self.sanitizer_failures()
            raise Failure(f"job did not end within {timeout} s: {' '.join(self.cmd)}" +
                          "".join("; " + r for r in reports))
        self.elapsed = time.time() - self.t0
        self.code = self.p.returncode
        self.show(out, err)
        self.out, self.err = out.decode(errors="replace"), err.decode(errors="replace")
        reports = self.sanitizer_failures(self.out, self.err)
        expect(not reports, "; ".join(reports))
        return self

    def sanitizer_failures(self, *outputs):
        """The job's sanitizer reports (tests/tools/sanitizer_reports.py); its
        report directory is removed."""
        try:
            return self.san.failures(*outputs)
        finally:
            self.san.__exit__(None, None, None)

    @staticmethod
    def show(out, err):
        sys.stdout.write(out.decode(errors="replace")[-4000:])
        sys.stdout.write(err.decode(errors="replace")[-4000:])
        sys.stdout.flush()

    def leftovers(self):
        found = []
        for pattern in (self.marker, rf"ftmpid .*--job {self.p.pid}$"):
            r = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True)
            found += [int(x) for x in r.stdout.split()]
        return found

    def kill_leftovers(self):
        for pid in self.leftovers():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def expect_clean(self, within=2.0):
        """No rank and no daemon of this job may remain."""
        deadline = time.time() + within
        while True:
            left = self.leftovers()
            if not left:
                return
            if time.time() > deadline:
                self.kill_leftovers()
                raise Failure(f"processes left behind: {left}")
            time.sleep(0.05)

    def wait_for_stdout_lines(self, n, timeout=20):
        """Reads stdout until n lines arrived (the job is running by then)."""
        lines = []
        deadline = time.time() + timeout
        os.set_blocking(self.p.stdout.fileno(), False)
        buf = b""
        while len(lines) < n:
            expect(time.time() < deadline, f"only {len(lines)} of {n} ranks reported in time")
            chunk = self.p.stdout.read()
            if chunk:
                buf += chunk
                *lines_b, _ = buf.split(b"\n")
                lines = lines_b
            else:
                time.sleep(0.02)
        os.set_blocking(self.p.stdout.fileno(), True)
        return lines


def run(ctx, launcher_args, probe_args=None, timeout=60, **kw):
    j = Job(ctx, launcher_args, probe_args, **kw).finish(timeout)
    j.expect_clean()
    return j


def expect_code(j, code):
    expect(j.code == code, f"exit status {j.code}, expected {code}")


def rank_lines(out, pattern):
    """{rank: [match,...]} for lines 'rank R ...' matching pattern (with a group 'r')."""
    got = {}
    for m in re.finditer(pattern, out, re.M):
        got.setdefault(int(m.group("r")), []).append(m)
    return got


def reason(j, rank, text):
    rx = rf"^ftmpirun: rank {rank} \(pid (\d+) on \S+\) {text}$"
    m = re.search(rx, j.err, re.M)
    expect(m, f"no reason line /{rx}/")
    expect(int(m.group(1)) > 0, "reason line without a pid")


def run_case(ctx, fn):
    """Runs case `fn(ctx)` (None: unknown) and says how it ended; the exit status."""
    if not fn:
        print(f"unknown case {ctx.case}")
        return 2
    try:
        fn(ctx)
    except Failure as e:
        print(f"FAIL ({ctx.case}): {e}")
        return 1
    print(f"PASS ({ctx.case})")
    return 0

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


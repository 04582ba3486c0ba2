#!/usr/bin/env python3
"""Runs one MPI rank in a session of its own and reports its CPU time.

  rank.py PROGRAM [ARGS...]

run.py puts this between every library's launcher and the benchmark, so
that the ranks of all three libraries are scheduled alike: a kernel with
`sched_autogroup_enabled` shares the CPU between sessions first, and MPICH's
launcher already starts each rank in a session of its own while ftmpi's and
Open MPI's ranks share one; on a busy machine that alone made the same EP run
2.4x faster under MPICH. The rank must fork to get there (a process group
leader, as ftmpi's ranks are, cannot call setsid), so this process waits
for it, passes SIGINT/SIGTERM on, and dies with it: the program gets SIGKILL
if this process goes first (PR_SET_PDEATHSIG).

When the program ends, one line goes to stderr:
  NPB-RANK-CPU <user seconds> <system seconds>
and this process exits with the program's status (128 + signal if killed).
"""
import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: rank.py PROGRAM [ARGS...]")
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            os.execvp(sys.argv[1], sys.argv[1:])
        except OSError as e:
            sys.stderr.write(f"rank.py: cannot run {sys.argv[1]}: {e.strerror}\n")
        os._exit(127)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, lambda sig, _frame: os.kill(pid, sig))
    _, status, ru = os.wait4(pid, 0)  # retried after a forwarded signal (PEP 475)
    sys.stderr.write(f"NPB-RANK-CPU {ru.ru_utime:.3f} {ru.ru_stime:.3f}\n")
    sys.stderr.flush()
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


if __name__ == "__main__":
    sys.exit(main())

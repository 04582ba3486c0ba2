#!/usr/bin/env python3
"""ftmpirun refuses bad checkpoint-store options with one line on stderr and
a non-zero status, before any daemon or rank starts (spec/checkpoint-protocol.md §1).

  bad_store_options.py FTMPIRUN PROGRAM
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from sanitizer_reports import SanitizerLog  # noqa: E402


def main():
    with SanitizerLog() as san:
        os.environ.update(san.env(os.environ))  # every process started below
        failed = check(*sys.argv[1:3])
        for f in san.failures():
            print("FAIL: " + f)
            failed += 1
    if failed:
        sys.exit(1)


def check(launcher, prog):
    with tempfile.TemporaryDirectory() as tmp:
        afile = os.path.join(tmp, "file")
        open(afile, "w").close()
        ro = os.path.join(tmp, "ro")
        os.mkdir(ro, 0o500)
        cases = [
            (["--ckpt-store=disk:" + afile], "--ckpt-store=disk:%s: not a directory" % afile),
            (["--ckpt-store=disk:" + afile + "/sub"], "--ckpt-store=disk:%s/sub: cannot create the directory" % afile),
            (["--ckpt-store=tape"], "--ckpt-store=tape is not a store; expected local, memory, buddy or disk:DIR"),
            (["--ckpt-store=disk:"], "--ckpt-store=disk: is not a store; expected local, memory, buddy or disk:DIR"),
            (["--ckpt-keep"], "--ckpt-keep needs --ckpt-store=disk:DIR"),
            (["--ckpt-store=memory", "--ckpt-keep"], "--ckpt-keep needs --ckpt-store=disk:DIR"),
            (["--ckpt-store=memory:x"], "--ckpt-store=memory:x is not a store"),
        ]
        if os.geteuid() != 0:  # root writes anywhere
            cases.append((["--ckpt-store=disk:" + ro], "--ckpt-store=disk:%s: not writable" % ro))
        failed = 0
        for opts, want in cases:
            args = [launcher, "--ft-transparent", "--ckpt-interval=1s"] + opts + ["-np", "1", prog, "4", "10"]
            p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
            err = p.stderr.decode(errors="replace")
            # The error, then ftmpirun's usual hint for a bad command line.
            lines = [l for l in err.splitlines() if l.strip() and not l.startswith("Run 'ftmpirun --help'")]
            if p.returncode == 0 or len(lines) != 1 or want not in lines[0] or p.stdout:
                print("FAIL: %s -> exit %d, stderr %r" % (" ".join(opts), p.returncode, err))
                failed += 1
        # A missing directory is created, with its parents.
        made = os.path.join(tmp, "a", "b")
        p = subprocess.run([launcher, "--ft-transparent", "--ckpt-interval=1s", "--ckpt-store=disk:" + made, "-np", "1",
                            prog, "4", "10"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        if p.returncode != 0 or not os.path.isdir(made):
            print("FAIL: disk:%s -> exit %d, dir %s; stderr %r" % (made, p.returncode, os.path.isdir(made),
                                                                   p.stderr.decode(errors="replace")))
            failed += 1
        os.chmod(ro, 0o700)
    if not failed:
        print("ok: %d bad store options refused in one line; a missing directory is created" % len(cases))
    return failed


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Process image cases (tests/ckpt/CMakeLists.txt): capture, SIGKILL, restore.

usage: ckpt_cases.py CASE PROGRAM VICTIM VICTIM_FTMPI
PROGRAM captures itself; VICTIM and VICTIM_FTMPI are the two builds (for the
wrong-binary case). Every case asserts the restored output byte for byte
against a run without checkpoint, or the exact refusal. asan_refused loads
AddressSanitizer's runtime from FTMPI_TEST_ASAN_RUNTIME (LD_PRELOAD) when set,
else expects the program built with it.
"""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from sanitizer_reports import SanitizerLog  # noqa: E402

RESTORE_FAILED = 70


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(argv, env=None, pass_fds=(), timeout=90, cwd=None):
    full = dict(os.environ)
    full.pop("FTMPI_CKPT_RESTORE", None)
    full.update(env or {})
    return subprocess.run(argv, env=full, pass_fds=pass_fds, capture_output=True, timeout=timeout,
                          cwd=cwd or os.path.dirname(argv[-1]))


def restore(prog, image_ref, out, pass_fds=()):
    # The restorer: the same binary, address randomisation off from its first
    # instruction (the load-time hook runs before main), image named in the env.
    # Started elsewhere: the image brings its working directory back.
    return run(["setarch", "x86_64", "-R", prog, "plain", out], env={"FTMPI_CKPT_RESTORE": image_ref},
               pass_fds=pass_fds, cwd="/")


def expected(prog, tmp):
    out = os.path.join(tmp, "expected.txt")
    r = run([prog, "plain", out])
    if r.returncode != 0:
        fail("plain run exited %d: %s" % (r.returncode, r.stderr.decode()))
    with open(out, "rb") as f:
        return f.read(), r.stdout


def capture_to_disk(prog, tmp, out, mode="disk"):
    d = os.path.join(tmp, "images")
    r = run([prog, mode, d, out])
    if r.returncode != -signal.SIGKILL:
        fail("capturing run should end by SIGKILL, got %d: %s" % (r.returncode, r.stderr.decode()))
    if b"image saved" not in r.stderr:
        fail("no 'image saved' from the capturing run: %s" % r.stderr.decode())
    names = sorted(os.listdir(d))
    if names != ["victim.r0.c1.img"]:
        fail("disk store holds %s, expected exactly victim.r0.c1.img" % names)
    return os.path.join(d, names[0])


def check_restored(r, out, want_file, want_stdout):
    if r.returncode != 0:
        fail("restored process exited %d: %s" % (r.returncode, r.stderr.decode()))
    if r.stdout != want_stdout.replace(b"victim done", b"victim done (resumed)"):
        fail("restored stdout %r" % r.stdout)
    rel = os.path.join(os.path.dirname(out), "victim-relative.txt")
    if not os.path.exists(rel):
        fail("restored process did not resolve a relative path in its saved working directory")
    os.unlink(rel)
    with open(out, "rb") as f:
        got = f.read()
    if got != want_file:
        fail("restored output differs from the run without checkpoint (%d vs %d bytes)" % (len(got), len(want_file)))


def check_refused(r, words):
    if r.returncode != RESTORE_FAILED:
        fail("restore should be refused with exit %d, got %d: %s" % (RESTORE_FAILED, r.returncode, r.stderr.decode()))
    err = r.stderr.decode()
    if "ftmpi: cannot restore checkpoint image" not in err or not all(w in err for w in words):
        fail("refusal message lacks %s: %r" % (words, err))
    print("refused as expected: " + err.strip())


def delta_case(prog, tmp, out, want_file, want_stdout):
    """Image 2 holds only what changed since image 1 and restores through it;
    a base that is not the one the delta was taken on is refused."""
    d = os.path.join(tmp, "images")
    r = run([prog, "delta", d, out])
    err = r.stderr.decode()
    if r.returncode != -signal.SIGKILL:
        fail("capturing run should end by SIGKILL, got %d: %s" % (r.returncode, err))
    if "image 1 whole" not in err or "image 2 incremental" not in err:
        fail("expected a whole image 1 and an incremental image 2: %s" % err)
    names = sorted(os.listdir(d))
    if names != ["victim.r0.c1.img", "victim.r0.c2.d1.img"]:
        fail("store holds %s, expected the base and the delta" % names)
    base, delta = (os.path.join(d, n) for n in names)
    sizes = os.path.getsize(base), os.path.getsize(delta)
    print("whole image %d bytes, incremental %d bytes" % sizes)
    if sizes[1] * 2 > sizes[0]:
        fail("the incremental image is more than half the whole one")
    check_restored(restore(prog, delta, out), out, want_file, want_stdout)
    # Another whole image under the base's name (a valid one, of the same
    # program): the delta must not build on it.
    other = capture_to_disk(prog, os.path.join(tmp, "other"), os.path.join(tmp, "other.txt"))
    os.replace(other, base)
    check_refused(restore(prog, delta, out), ["base", "victim.r0.c1.img", "not the image it was taken on"])


def main():
    # Every process of the case (capturing, restored, refused) inherits the
    # report directory; a report from any of them fails the case.
    with SanitizerLog() as san:
        os.environ.update(san.env(os.environ))
        try:
            run_case(sys.argv[1])
        finally:
            found = san.failures()
            for f in found:
                print("FAIL: " + f)
            if found:
                sys.exit(1)
    print("PASS " + sys.argv[1])


def run_case(case):
    prog, victim, victim_ftmpi = (os.path.abspath(p) for p in sys.argv[2:5])
    with tempfile.TemporaryDirectory(prefix="ckpt-") as tmp:
        want_file, want_stdout = expected(prog, tmp)
        out = os.path.join(tmp, "out.txt")
        if case == "disk" or case == "twice":
            image = capture_to_disk(prog, tmp, out)
            for _ in range(2 if case == "twice" else 1):
                check_restored(restore(prog, image, out), out, want_file, want_stdout)
        elif case == "heap_edge":
            # The capture itself grows the heap (its metadata): the image's
            # program break must cover every heap page it holds.
            image = capture_to_disk(prog, tmp, out, "edge")
            check_restored(restore(prog, image, out), out, want_file, want_stdout)
        elif case == "delta":
            delta_case(prog, tmp, out, want_file, want_stdout)
        elif case == "generations":
            # A restored process captures again; its image restores too.
            d = os.path.join(tmp, "images")
            r = run([prog, "disk2", d, out])
            if r.returncode != -signal.SIGKILL:
                fail("capturing run should end by SIGKILL, got %d: %s" % (r.returncode, r.stderr.decode()))
            r = restore(prog, os.path.join(d, "victim.r0.c1.img"), out)
            if r.returncode != -signal.SIGKILL or b"image saved" not in r.stderr:
                fail("restored process should capture image 2 and end by SIGKILL, got %d: %s" %
                     (r.returncode, r.stderr.decode()))
            names = sorted(os.listdir(d))
            if names != ["victim.r0.c2.img"]:
                fail("after image 2 the store should hold only it, holds %s" % names)
            check_restored(restore(prog, os.path.join(d, names[0]), out), out, want_file, want_stdout)
        elif case == "socket":
            a, b = socket.socketpair()
            chunks = []

            def drain():
                while True:
                    data = a.recv(1 << 20)
                    if not data:
                        return
                    chunks.append(data)

            t = threading.Thread(target=drain)
            t.start()
            r = run([prog, "fd", str(b.fileno()), out], pass_fds=(b.fileno(),))
            b.close()
            t.join()
            a.close()
            if r.returncode != -signal.SIGKILL:
                fail("capturing run should end by SIGKILL, got %d: %s" % (r.returncode, r.stderr.decode()))
            stream = b"".join(chunks)
            print("image stream: %d bytes" % len(stream))
            a, b = socket.socketpair()

            def feed():
                try:
                    a.sendall(stream)
                except OSError:
                    pass
                a.close()

            t = threading.Thread(target=feed)
            t.start()
            r = restore(prog, str(b.fileno()), out, pass_fds=(b.fileno(),))
            b.close()
            t.join()
            check_restored(r, out, want_file, want_stdout)
        elif case == "corrupt":
            image = capture_to_disk(prog, tmp, out)
            with open(out, "rb") as f:
                before = f.read()
            size = os.path.getsize(image)
            for where, words in ((size // 2, ["corrupt"]), (100, ["corrupt"]), (3, ["bad magic"])):
                bad = os.path.join(tmp, "bad.img")
                with open(image, "rb") as f:
                    data = bytearray(f.read())
                data[where] ^= 0x40
                with open(bad, "wb") as f:
                    f.write(data)
                check_refused(restore(prog, bad, out), words)
                with open(out, "rb") as f:
                    if f.read() != before:
                        fail("a refused restore changed the program's output file")
        elif case == "torn":
            image = capture_to_disk(prog, tmp, out)
            for keep in (os.path.getsize(image) // 2, os.path.getsize(image) - 1, 20):
                torn = os.path.join(tmp, "torn.img")
                with open(image, "rb") as f:
                    data = f.read()[:keep]
                with open(torn, "wb") as f:
                    f.write(data)
                check_refused(restore(prog, torn, out), ["torn"])
        elif case == "wrong_binary":
            image = capture_to_disk(prog, tmp, out)
            other = victim_ftmpi if os.path.samefile(prog, victim) else victim
            check_refused(restore(other, image, out), ["the image was taken from"])
            # Randomised addresses are refused too.
            r = run([prog, "plain", out], env={"FTMPI_CKPT_RESTORE": image})
            check_refused(r, ["address randomisation"])
        elif case == "asan_refused":
            # AddressSanitizer's runtime in the process (built in, or
            # preloaded into the normal build): the capture is refused in one
            # line, and no image is left.
            rt = os.environ.get("FTMPI_TEST_ASAN_RUNTIME")
            d = os.path.join(tmp, "images")
            r = run([prog, "disk", d, out], env={"LD_PRELOAD": rt} if rt else None)
            want = b"the process runs under AddressSanitizer, whose shadow memory an image cannot hold"
            if r.returncode != 5 or want not in r.stderr:
                fail("capture under AddressSanitizer should be refused, got %d: %r" % (r.returncode, r.stderr))
            left = [n for n in os.listdir(d) if n.endswith(".img")] if os.path.isdir(d) else []
            if left:
                fail("a refused capture left images: %s" % left)
            print("refused as expected: " + r.stderr.decode().strip())
        elif case == "threads":
            r = run([prog, "threads", os.path.join(tmp, "images"), out])
            if r.returncode != 5 or b"threads; only a single-threaded process can be captured" not in r.stderr:
                fail("capture with two threads should be refused, got %d: %r" % (r.returncode, r.stderr))
        else:
            fail("unknown case " + case)


if __name__ == "__main__":
    main()

"""Sanitizer reports of every process a test starts (builds configured with
-DFTMPI_SANITIZE=ON; harmless otherwise: the options are then read by nobody).

A report on the job's stderr is not enough: in transparent mode a rank that a
report ends is restarted and the job still exits 0, and a checkpoint's frozen
copy has closed its stdio, so what it reports would go nowhere. Each run
therefore gets a directory that AddressSanitizer writes its reports to
(log_path: one file per reporting process, LeakSanitizer's included), and the
driver fails the case on any file there, or on a report in the output.
UndefinedBehaviorSanitizer linked with AddressSanitizer (GCC 12) writes to
stderr whatever its options say: its reports are found in the output only
(the build stops a process at its first one, -fno-sanitize-recover).

    with SanitizerLog() as san:
        env = san.env(os.environ)
        ... run the job with env ...
        failures += san.failures(err_text)
"""
import os
import shutil
import tempfile

# Every report has one of these ("ERROR: AddressSanitizer: ...", "ERROR:
# LeakSanitizer: ...", "AddressSanitizer:DEADLYSIGNAL", "SUMMARY: ...",
# UBSan's "FILE:LINE:COL: runtime error: ..."); a bare "Sanitizer" would also
# match ftmpi's own line that a capture under AddressSanitizer is refused.
NEEDLES = ("Sanitizer:", "runtime error:")


# LeakSanitizer's reports of allocations a third-party library keeps for
# itself (each entry says why); ftmpi's own leaks are never suppressed.
SUPPRESSIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lsan_third_party.supp")


def _with_option(options, name, value):
    kept = [o for o in (options or "").replace(",", ":").split(":") if o and not o.startswith(name + "=")]
    return ":".join(kept + [name + "=" + value])


class SanitizerLog:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="ftmpi-san-")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)

    def env(self, base):
        """`base` plus the options that send every report to this run's directory."""
        env = dict(base)
        env["ASAN_OPTIONS"] = _with_option(env.get("ASAN_OPTIONS"), "log_path", os.path.join(self.dir, "asan"))
        # print_suppressions=0: a process whose leaks were all suppressed
        # writes no file (it would list the suppressions used).
        lsan = _with_option(env.get("LSAN_OPTIONS"), "suppressions", SUPPRESSIONS)
        env["LSAN_OPTIONS"] = _with_option(lsan, "print_suppressions", "0")
        return env

    def reports(self):
        """The text of every report file written so far, by file name."""
        found = {}
        for name in sorted(os.listdir(self.dir)):
            with open(os.path.join(self.dir, name), errors="replace") as f:
                found[name] = f.read()
        return found

    def failures(self, *outputs):
        """One line per report file or reporting output, each report printed."""
        msgs = []
        for name, text in self.reports().items():
            print(f"--- sanitizer report {name}\n{text[-6000:]}")
            msgs.append(f"sanitizer report from process {name.rsplit('.', 1)[-1]} ({name.split('.')[0]})")
        for out in outputs:
            for needle in NEEDLES:
                if needle in out:
                    msgs.append(f"sanitizer report in the job's output ({needle})")
        return msgs

#!/usr/bin/env python3
"""Checks that libftmpi.so keeps no library state outside the Runtime.

Every writable object of the library (.data, .bss, .tdata, .tbss: globals,
namespace-scope variables, function-local statics) must be on the list
below, each with the reason it may exist. Library state belongs to
api::Runtime (docs/architecture.md, "Where the state lives"), reached
through api::Library, so that a checkpoint finds all of it in one place
and a new Runtime is a clean library. A new static or global fails this
check until it either moves into the Runtime or is added here with a
reason.

    check_state.py path/to/libftmpi.so
"""
import re
import subprocess
import sys

WRITABLE = {".data", ".bss", ".tdata", ".tbss"}

# Demangled name -> why it may live outside the Runtime.
ALLOWED = {
    "ftmpi::api::detail::g_library": "the root: the phase and the pointer to the Runtime",
    "ftmpi::log::(anonymous namespace)::g_identity": "log line prefix, diagnostics only (set at MPI_Init)",
    "ftmpi::log::(anonymous namespace)::g_level": "FTMPI_DEBUG level, diagnostics only",
    "ftmpi::coll::(anonymous namespace)::byte_type()::t": "constant: MPI_BYTE's type reference",
    "ftmpi::comm::ops::(anonymous namespace)::byte_type()::t": "constant: MPI_BYTE's type reference",
    "ftmpi::coll::catalog(ftmpi::coll::CollOp)::all": "constant: the algorithm catalog",
    "ftmpi::dtype::builtin_type(ftmpi::dtype::Builtin)::table": "constant: the builtin datatype objects",
    "ftmpi::logging::InChannels::kNone": "constant: the empty channel record",
    # The process image (src/modules/ckpt/image*) is restored before main(),
    # when no Runtime exists; the image records these objects' addresses.
    "ftmpi::ckpt::g_capture_point": "process image: the registers capture_self saved, at an address the image names",
    "ftmpi::ckpt::g_resume": "process image: what the restorer hands the resumed process (environment, descriptors)",
    "ftmpi::ckpt::(anonymous namespace)::g_restorer_env": "process image: the restorer's environment, read after resume",
}

# Objects the compiler and the C runtime make (not the library's state).
COMPILER = re.compile(r"^(guard variable for |completed\.|DW\.ref\.|__|_GLOBAL_|typeinfo |vtable )")


def writable_objects(lib):
    out = subprocess.run(["objdump", "-t", "-C", lib], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        # address, flags (fixed width), section, size, name
        m = re.match(r"^[0-9a-f]+ (.{7}) (\S+)\s+[0-9a-f]+\s+(.*)$", line)
        if not m or "O" not in m.group(1) or m.group(2) not in WRITABLE:
            continue
        name = m.group(3).strip()
        if not COMPILER.match(name):
            yield m.group(2), name


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    bad = [(sec, name) for sec, name in writable_objects(sys.argv[1]) if name not in ALLOWED]
    for sec, name in bad:
        print(f"check_state: {name} ({sec}) is library state outside the Runtime")
    print(f"check_state: {len(bad)} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

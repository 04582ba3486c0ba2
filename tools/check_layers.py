#!/usr/bin/env python3
"""Fails when a source file includes a header of a module it may not use.

The allowed edges are the table of docs/architecture.md ("Modules and the
direction of dependencies"): a module may include its own headers and those
of the modules listed for it. Only src/api and src/fortran (a binding on
the public C API) may include mpi.h.
"""
import os
import re
import sys

ALLOWED = {
    "base": [],
    "rte": ["base"],
    "dtype": ["base"],
    "transport": ["base"],
    "comm/model": ["base"],
    "p2p": ["comm/model", "transport", "dtype", "rte", "base"],
    "coll": ["p2p", "comm/model", "dtype", "base"],
    "comm/ops": ["coll", "p2p", "comm/model", "dtype", "base"],
    "ftmodes": ["comm/ops", "coll", "p2p", "comm/model", "rte", "dtype", "transport", "base"],
    "modules": ["ftmodes", "comm/ops", "coll", "p2p", "comm/model", "rte", "dtype", "transport", "base"],
    # The Fortran bindings use the public C API (mpi.h) and nothing inside.
    "fortran": [],
    "api": ["modules", "ftmodes", "comm/ops", "coll", "p2p", "comm/model", "rte", "dtype", "transport", "base"],
}
# Files whose path starts with one of these may use only the listed modules
# and files of the same prefix, whatever their folder allows: the process
# image code of the checkpoint service knows nothing of MPI (DESIGN §8).
NARROW = {
    "modules/ckpt/image": ["base"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')


def module_of(rel):
    """Module of a path relative to src/ (longest matching key)."""
    best = None
    for m in ALLOWED:
        if rel == m or rel.startswith(m + "/"):
            if best is None or len(m) > len(best):
                best = m
    return best


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    root = os.path.normpath(sys.argv[1] if len(sys.argv) > 1 else root)
    errors = []
    for dirpath, _, files in os.walk(root):
        for f in files:
            if not f.endswith((".hpp", ".cpp", ".h", ".c")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            mod = module_of(rel)
            if mod is None:
                errors.append(f"{rel}: file is in no known module (add it to tools/check_layers.py)")
                continue
            with open(path, encoding="utf-8", errors="replace") as fh:
                for lineno, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    inc = m.group(1)
                    if inc == "mpi.h" and mod not in ("api", "fortran"):
                        errors.append(f"{rel}:{lineno}: only src/api and src/fortran may include mpi.h")
                        continue
                    target = module_of(inc)
                    narrow = next((p for p in NARROW if rel.startswith(p)), None)
                    if narrow and target is not None and not inc.startswith(narrow) and target not in NARROW[narrow]:
                        errors.append(f"{rel}:{lineno}: '{narrow}*' may use only {NARROW[narrow]}, not '{inc}'")
                        continue
                    if target is None or target == mod:
                        continue
                    if target not in ALLOWED[mod]:
                        errors.append(f"{rel}:{lineno}: module '{mod}' may not include '{inc}' (module '{target}')")
    for e in errors:
        print(e)
    print(f"check_layers: {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Fails when a source file includes a header of a module it may not use.

The allowed edges are the table of docs/architecture.md ("Modules and the
direction of dependencies"): a module may include its own headers and those
of the modules listed for it. Only src/api and src/fortran (a binding on
the public C API) may include mpi.h.

Two checks go further than one file's own #include lines:
- the runtime is five modules, not one: proto < client (linked into the
  library), proto < common < daemon, launcher (the executables);
- no layer above p2p compiles against a transport header, not even through
  another header (p2p/engine.hpp keeps the transports in
  p2p/engine_state.hpp for that): the includes are followed transitively.
"""
import os
import re
import sys

RTE_LIB = ["rte/client", "rte/proto"]  # what the library may use of the runtime
ALLOWED = {
    "base": [],
    "rte/proto": ["base"],
    "rte/client": ["rte/proto", "base"],
    "rte/common": ["rte/proto", "base"],
    "rte/daemon": ["rte/common", "rte/proto", "base"],
    "rte/launcher": ["rte/common", "rte/proto", "base"],
    "dtype": ["base"],
    "transport": ["base"],
    "comm/model": ["base"],
    "p2p": ["comm/model", "transport", "dtype", *RTE_LIB, "base"],
    "coll": ["p2p", "comm/model", "dtype", "base"],
    "comm/ops": ["coll", "p2p", "comm/model", "dtype", "base"],
    "ftmodes": ["comm/ops", "coll", "p2p", "comm/model", *RTE_LIB, "dtype", "base"],
    "modules": ["ftmodes", "comm/ops", "coll", "p2p", "comm/model", *RTE_LIB, "dtype", "base"],
    # Transparent mode: checkpoints build on message logging, never the reverse.
    "modules/logging": ["p2p", "comm/model", *RTE_LIB, "dtype", "base"],
    "modules/ckpt": ["modules/logging", "p2p", "comm/model", *RTE_LIB, "dtype", "base"],
    # The Fortran bindings use the public C API (mpi.h) and nothing inside.
    "fortran": [],
    "api": ["modules", "modules/logging", "modules/ckpt", "ftmodes", "comm/ops", "coll", "p2p", "comm/model", *RTE_LIB, "dtype", "base"],
}
# Files whose path starts with one of these may use only the listed modules
# and files of the same prefix, whatever their folder allows: the process
# image code of the checkpoint service knows nothing of MPI (DESIGN §8).
NARROW = {
    "modules/ckpt/image": ["base"],
}
# Layers that must not reach a transport header even indirectly.
ABOVE_P2P = ["coll", "comm/ops", "ftmodes", "modules", "modules/logging", "modules/ckpt", "api", "fortran"]
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')


def module_of(rel):
    """Module of a path relative to src/ (longest matching key)."""
    best = None
    for m in ALLOWED:
        if rel == m or rel.startswith(m + "/"):
            if best is None or len(m) > len(best):
                best = m
    return best


def includes_of(root, rel):
    """(line number, included path) of each #include line of src/<rel>."""
    out = []
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            m = INCLUDE.match(line)
            if m:
                out.append((lineno, m.group(1)))
    return out


def transport_chain(root, rel, graph):
    """Include chain from src/<rel> to a transport header, or None."""
    seen = {rel}
    todo = [[rel]]
    while todo:
        chain = todo.pop(0)
        for _, inc in graph.get(chain[-1], []):
            if not os.path.isfile(os.path.join(root, inc)) or inc in seen:
                continue
            if module_of(inc) == "transport":
                return chain + [inc]
            seen.add(inc)
            todo.append(chain + [inc])
    return None


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    root = os.path.normpath(sys.argv[1] if len(sys.argv) > 1 else root)
    errors = []
    graph = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if f.endswith((".hpp", ".cpp", ".h", ".c")):
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                graph[rel] = includes_of(root, rel)
    for rel in sorted(graph):
        mod = module_of(rel)
        if mod is None:
            errors.append(f"{rel}: file is in no known module (add it to tools/check_layers.py)")
            continue
        for lineno, inc in graph[rel]:
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
        if mod in ABOVE_P2P:
            chain = transport_chain(root, rel, graph)
            if chain:
                errors.append(f"{rel}: module '{mod}' compiles against a transport header: {' -> '.join(chain)}")
    for e in errors:
        print(e)
    print(f"check_layers: {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Which MPI functions libftmpi implements, and is the public header whole.

Generate the status document:
    gen_function_status.py --lib build/lib/libftmpi.so --out docs/mpi-functions.md
Without --lib every function is listed as missing (before the library exists).

Check (exit status 1 on any finding, each printed on stderr):
    gen_function_status.py --check [--lib PATH] [--out docs/mpi-functions.md]
  - every function of spec/mpi12_functions.txt has an MPI_ and a PMPI_
    prototype in include/mpi.h, and the two have the same signature;
  - with --lib, for spec/mpi23_functions.txt (the MPI-2/3 names): the header
    declares exactly the ones the library implements (a name it lacks must
    not compile), MPI_ and PMPI_ alike;
  - with --lib: the library exports no MPI_/PMPI_/FTMPIX_ symbol that the
    header does not declare (an undeclared entry point is unusable from C);
  - with --out: the document equals what would be generated now.

A function counts as implemented only when the shared library defines both
MPI_x and PMPI_x (read with `nm -D --defined-only`): a missing PMPI_ twin
breaks every profiling tool, so it is not a detail.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LIST = ROOT / "spec" / "mpi12_functions.txt"
DEFAULT_LIST23 = ROOT / "spec" / "mpi23_functions.txt"
DEFAULT_HEADER = ROOT / "include" / "mpi.h"

CHAPTERS = {
    "pt2pt": "Point-to-point communication and derived datatypes (MPI-1.1 ch. 3)",
    "coll": "Collective communication (ch. 4)",
    "context": "Groups, contexts, communicators and attributes (ch. 5)",
    "topo": "Process topologies (ch. 6)",
    "env": "Environmental management (ch. 7)",
    "prof": "Profiling interface (ch. 8)",
}

CHAPTERS23 = {
    "mpi2": "MPI-2 names of MPI-1 functionality, info objects, names, environment",
    "coll": "MPI-2 and MPI-3 blocking collectives (MPI-3.1 ch. 5)",
    "comm": "MPI-3 communicator constructors (MPI-3.1 ch. 6)",
    "nbc": "Nonblocking collectives (MPI-3.1 §5.12)",
}

# Exported C names that belong to the public API and so must be declared.
API_SYMBOL = re.compile(r"^P?(MPI|FTMPIX)_\w+$")


def read_function_list(path, chapters=CHAPTERS):
    """[(chapter, name)] in file order; raises ValueError on a bad line."""
    entries, seen = [], set()
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or parts[0] not in chapters or not parts[1].startswith("MPI_"):
            raise ValueError(f"{path}:{lineno}: expected '<chapter> MPI_<name>', got {raw!r}")
        if parts[1] in seen:
            raise ValueError(f"{path}:{lineno}: {parts[1]} listed twice")
        seen.add(parts[1])
        entries.append((parts[0], parts[1]))
    return entries


def _strip_c_noise(text):
    """Header text without comments, preprocessor lines and brace blocks, so
    that what is left is a sequence of ';'-terminated declarations."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"\\\n", " ", text)
    text = "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#"))
    text = re.sub(r'extern\s*"C"\s*\{', " ", text)
    while True:  # struct bodies (innermost first)
        new = re.sub(r"\{[^{}]*\}", " ", text)
        if new == text:
            break
        text = new
    return text.replace("}", " ")


def read_header_declarations(path):
    """{name: normalised signature} for every function or object the header
    declares with a P?MPI_ / P?FTMPIX_ name (typedefs are types, not symbols)."""
    decls = {}
    # mpi.h includes the rest of the API from its own directory.
    text = re.sub(r'^\s*#\s*include\s+"([^"]+)"', lambda m: (path.parent / m.group(1)).read_text(),
                  path.read_text(), flags=re.M)
    for stmt in _strip_c_noise(text).split(";"):
        stmt = " ".join(stmt.split())
        if not stmt or stmt.startswith("typedef"):
            continue
        m = re.match(r"^(?:extern\s+)?(.+?)\b(P?(?:MPI|FTMPIX)_\w+)\s*\((.*)\)$", stmt)
        if m:
            ret, name, params = m.groups()
            decls[name] = f"{ret.strip()} ({params.strip()})"
            continue
        m = re.match(r"^extern\s+(.+?)\b(P?(?:MPI|FTMPIX)_\w+)(\s*\[[^\]]*\])?$", stmt)
        if m:
            decls[m.group(2)] = m.group(1).strip()
    return decls


def read_library_symbols(lib):
    """Names the shared library defines in its dynamic symbol table."""
    out = subprocess.run(["nm", "-D", "--defined-only", str(lib)],
                         check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 3:
            names.add(fields[2].split("@", 1)[0])
    return names


def status_of(name, symbols):
    has_mpi = name in symbols
    has_pmpi = "P" + name in symbols
    if has_mpi and has_pmpi:
        return "implemented"
    if has_mpi:
        return "missing (no PMPI_ twin)"
    if has_pmpi:
        return "missing (only PMPI_)"
    return "missing"


def render23(entries, symbols):
    """The MPI-2/3 part of the document."""
    rows = [(c, n, status_of(n, symbols)) for c, n in entries]
    done = sum(st == "implemented" for _, _, st in rows)
    out = ["", "# MPI-2 and MPI-3 functions in libftmpi", "",
           "From `spec/mpi23_functions.txt`: the newer calls programs use most. The",
           "header declares exactly the implemented ones; the missing ones do not",
           "compile. `MPI_VERSION` stays 1.2 (one-sided communication, I/O, dynamic",
           "processes and the rest of MPI-2/3 are not provided).", "",
           "Also from MPI-2/3: the MPI-1.2 prototypes take `const` input buffers and",
           "arrays (MPI-3); the datatypes `MPI_AINT`, `MPI_OFFSET`, `MPI_COUNT` (types",
           "`MPI_Aint`, `MPI_Offset`, `MPI_Count`); the `MPI_UNIVERSE_SIZE` (the number",
           "of processes mpirun started) and `MPI_APPNUM` (0) attributes of",
           "`MPI_COMM_WORLD`; `MPI_IN_PLACE`; and the intercommunicator forms of",
           "Barrier, Bcast, Reduce, Allreduce, Gather(v), Scatter(v), Allgather(v),",
           "Alltoall(v/w) and Reduce_scatter(_block) (roots `MPI_ROOT` /",
           "`MPI_PROC_NULL`; Scan and Exscan, and the nonblocking collectives, stay",
           "intracommunicator-only: `MPI_ERR_COMM`). The MPI-2/3 declarations are in",
           "`ftmpi_mpi23.h`, which `mpi.h` includes.", "",
           f"**Total: {done} of {len(rows)} implemented.**"]
    for c, title in CHAPTERS23.items():
        mine = [(n, st) for ch, n, st in rows if ch == c]
        out += ["", f"## {c}: {title}", "", f"{sum(st == 'implemented' for _, st in mine)} of {len(mine)} implemented.",
                "", "| function | status |", "|---|---|"]
        out += [f"| `{n}` | {st} |" for n, st in mine]
    return "\n".join(out) + "\n"


def check_header23(entries, decls, symbols, header):
    problems = []
    for _, name in entries:
        implemented = status_of(name, symbols) == "implemented"
        for n in (name, "P" + name):
            if implemented and n not in decls:
                problems.append(f"{header} has no prototype for {n}")
            if not implemented and n in decls:
                problems.append(f"{header} declares {n}, which the library does not implement")
        if implemented and name in decls and "P" + name in decls and decls[name] != decls["P" + name]:
            problems.append(f"{name} and P{name} differ")
    return problems


def render(entries, symbols):
    by_chapter = {c: [] for c in CHAPTERS}
    for chapter, name in entries:
        by_chapter[chapter].append((name, status_of(name, symbols)))
    done = {c: sum(s == "implemented" for _, s in rows) for c, rows in by_chapter.items()}
    total_done, total = sum(done.values()), len(entries)

    out = [
        "# MPI-1.2 functions in libftmpi",
        "",
        "Generated by `tools/gen_function_status.py` from `spec/mpi12_functions.txt`",
        "and the dynamic symbols of `libftmpi.so`; do not edit by hand. A function",
        "counts as implemented when the library defines both `MPI_x` and `PMPI_x`.",
        "Regenerate after a build with",
        "`python3 tools/gen_function_status.py --lib <build>/lib/libftmpi.so --out docs/mpi-functions.md`;",
        "the CTest test `packaging.function_status` fails while this file is stale.",
        "",
        f"**Total: {total_done} of {total} implemented.**",
        "",
        "| chapter | implemented | functions |",
        "|---|---:|---:|",
    ]
    for c in CHAPTERS:
        out.append(f"| {c} | {done[c]} | {len(by_chapter[c])} |")
    for c, title in CHAPTERS.items():
        out += ["", f"## {c}: {title}", "", f"{done[c]} of {len(by_chapter[c])} implemented.",
                "", "| function | status |", "|---|---|"]
        out += [f"| `{name}` | {status} |" for name, status in by_chapter[c]]
    return "\n".join(out) + "\n"


def check_header(entries, decls, header):
    problems = []
    for _, name in entries:
        pname = "P" + name
        if name not in decls:
            problems.append(f"{header} has no prototype for {name}")
        if pname not in decls:
            problems.append(f"{header} has no prototype for {pname}")
        if name in decls and pname in decls and decls[name] != decls[pname]:
            problems.append(f"{name} and {pname} differ: '{decls[name]}' vs '{decls[pname]}'")
    return problems


def check_library(symbols, decls, header):
    return [f"the library exports {s}, which {header} does not declare"
            for s in sorted(symbols) if API_SYMBOL.match(s) and s not in decls]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--list", type=Path, default=DEFAULT_LIST, help="function list")
    ap.add_argument("--list23", type=Path, default=DEFAULT_LIST23, help="MPI-2/3 function list")
    ap.add_argument("--header", type=Path, default=DEFAULT_HEADER, help="public header")
    ap.add_argument("--lib", type=Path, help="libftmpi.so to inspect")
    ap.add_argument("--out", type=Path, help="status document to write (or compare with --check)")
    ap.add_argument("--check", action="store_true", help="verify instead of writing")
    args = ap.parse_args(argv)

    try:
        entries = read_function_list(args.list)
        entries23 = read_function_list(args.list23, CHAPTERS23)
    except (OSError, ValueError) as e:
        print(f"gen_function_status: {e}", file=sys.stderr)
        return 2
    if args.lib is not None and not args.lib.is_file():
        print(f"gen_function_status: no library at {args.lib}", file=sys.stderr)
        return 2
    symbols = read_library_symbols(args.lib) if args.lib else set()
    text = render(entries, symbols) + render23(entries23, symbols)

    if not args.check:
        if args.out is None:
            sys.stdout.write(text)
        else:
            args.out.write_text(text)
        return 0

    decls = read_header_declarations(args.header)
    problems = check_header(entries, decls, args.header)
    if args.lib:
        problems += check_library(symbols, decls, args.header)
        problems += check_header23(entries23, decls, symbols, args.header)
    if args.out is not None:
        current = args.out.read_text() if args.out.is_file() else ""
        if current != text:
            problems.append(f"{args.out} is stale: regenerate it with "
                            f"tools/gen_function_status.py --lib <libftmpi.so> --out {args.out}")
    for p in problems:
        print(f"gen_function_status: {p}", file=sys.stderr)
    if not problems:
        done = sum(status_of(name, symbols) == "implemented" for _, name in entries)
        print(f"gen_function_status: OK ({len(entries)} functions, {done} implemented)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

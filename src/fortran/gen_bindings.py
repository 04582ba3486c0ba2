#!/usr/bin/env python3
"""Generates the Fortran 77 bindings and mpif.h from the C API (build step).

    gen_bindings.py --functions spec/mpi12_functions.txt --header include/mpi.h
                    --table src/fortran/bindings.txt --out-c bindings.c
                    --out-mpifh mpif.h
    gen_bindings.py --functions spec/mpi12_functions.txt --check-lib libftmpi_fortran.so

bindings.c: for every function of the list that is not `special` in the
table, `mpi_<name>_` (calls MPI_<Name>) and `pmpi_<name>_` (calls
PMPI_<Name>), gfortran's names: lower case, one trailing underscore, every
argument by reference, IERROR last, CHARACTER lengths as hidden size_t
arguments after it. The argument conversions follow from the C prototype and
the table (see bindings.txt).

mpif.h: every integer constant and handle #defined in mpi.h (so the two can
never disagree), the Fortran-only constants (MPI_STATUS_SIZE, the status
indices), the optional Fortran datatypes of the table, the common blocks
behind MPI_BOTTOM / MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE, and the
declarations of the functions and procedures that are not subroutines. It is
valid as fixed and as free source form (statements from column 7, at most 72
columns, `!` comments), so both `include 'mpif.h'` and the `mpi` module use it.
"""
import argparse
import re
import sys
from pathlib import Path

HANDLE_TYPES = {"int", "MPI_Comm", "MPI_Group", "MPI_Datatype", "MPI_Op", "MPI_Errhandler", "MPI_Request"}
PROC_TYPES = {"MPI_User_function", "MPI_Handler_function"}
STATUS_SIZE_INTS = 6  # sizeof(MPI_Status) / sizeof(int); special.c asserts it
STATUS_INDEX = {"MPI_SOURCE": 1, "MPI_TAG": 2, "MPI_ERROR": 3}
# mpif.h names that are not PARAMETERs: common blocks (value = block name).
COMMON = {
    "MPI_BOTTOM": ("FTMPI_BOTTOM", ""),
    "MPI_STATUS_IGNORE": ("FTMPI_STATUS_IGNORE", "(MPI_STATUS_SIZE)"),
    "MPI_STATUSES_IGNORE": ("FTMPI_STATUSES_IGNORE", "(MPI_STATUS_SIZE,1)"),
}


class GenError(Exception):
    pass


def read_functions(path):
    names = []
    for raw in Path(path).read_text().splitlines():
        line = raw.split("#", 1)[0].split()
        if line:
            names.append(line[1])
    return names


def read_table(path):
    params, special, types = {}, set(), []
    for lineno, raw in enumerate(Path(path).read_text().splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] == "param" and len(words) == 4:
            params[(words[1], words[2])] = words[3].split(":")
        elif words[0] == "special" and len(words) > 1:
            special.update(words[1:])
        elif words[0] == "type" and len(words) == 3:
            types.append((words[1], words[2]))
        else:
            raise GenError(f"{path}:{lineno}: cannot read {raw!r}")
    return params, special, types


def c_text(path):
    path = Path(path)
    # mpi.h includes the rest of the API from its own directory.
    text = re.sub(r'^\s*#\s*include\s+"([^"]+)"', lambda m: (path.parent / m.group(1)).read_text(),
                  path.read_text(), flags=re.M)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def read_prototypes(text, wanted):
    """{MPI_Name: (return type, [(type, name)])} for the MPI_ prototypes of
    the functions in `wanted` (others, such as MPI-2 additions, are not
    parsed, so their syntax cannot break this build)."""
    protos = {}
    for m in re.finditer(r"\b(int|double)\s+(MPI_\w+)\s*\(([^;{]*?)\)\s*;", text, flags=re.S):
        ret, name, plist = m.group(1), m.group(2), " ".join(m.group(3).split())
        if name not in wanted:
            continue
        params = []
        if plist not in ("void", ""):
            for p in plist.split(","):
                p = p.strip()
                if p == "...":
                    params.append(("...", ""))
                    continue
                pm = re.fullmatch(r"(?:const\s+)?([A-Za-z_]\w*)\s*(\**)\s*([A-Za-z_]\w*)\s*((?:\[\d*\])*)", p)
                if not pm:
                    raise GenError(f"{name}: cannot parse parameter {p!r}")
                base, stars, pname, dims = pm.groups()
                if dims == "[]":  # an array parameter is a pointer
                    stars, dims = stars + "*", ""
                ctype = base + stars + dims
                params.append((ctype, pname))
        protos[name] = (ret, params)
    return protos


def read_constants(text):
    """[(name, int value)] of the integer #defines, in header order."""
    raw = {}
    order = []
    for m in re.finditer(r"^\s*#\s*define\s+((?:MPI|FTMPI)_?\w*)\s+(.+?)\s*$", text, flags=re.M):
        raw[m.group(1)] = m.group(2)
        order.append(m.group(1))

    def value(expr, depth=0):
        expr = expr.strip()
        cast = re.fullmatch(r"\(\((?:MPI_\w+)\)\s*(.+)\)", expr)
        if cast:
            expr = cast.group(1)
        while re.fullmatch(r"\((.*)\)", expr):
            expr = expr[1:-1].strip()
        if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", expr):
            return int(expr, 0)
        if expr in raw and depth < 4:
            return value(raw[expr], depth + 1)
        return None

    out = []
    for name in order:
        v = value(raw[name])
        if v is not None and name not in COMMON:
            out.append((name, v))
    return out


# ---------------------------------------------------------------- wrappers

class Wrapper:
    """The pieces of one generated function: Fortran parameters, C call
    arguments, code before and after the call."""

    def __init__(self, cname):
        self.cname = cname
        self.fparams = []   # C declarations of the Fortran-side parameters
        self.hidden = []    # hidden CHARACTER lengths
        self.args = []      # C call arguments
        self.pre = []
        self.post = []      # run when the call succeeded (or MPI_ERR_IN_STATUS)
        self.always = []    # run after the call in any case (copy back, free)


def fref(name):
    return f"(*{name})"


def bind_param(w, fname, ctype, pname, kind):
    base = ctype.rstrip("*")
    if kind:
        k = kind[0]
        if k == "index_out":
            w.fparams.append(f"ftmpi_fint *{pname}")
            w.pre.append(f"int c_{pname} = MPI_UNDEFINED;")
            w.args.append(f"&c_{pname}")
            w.post.append(f"*{pname} = c_{pname} >= 0 ? c_{pname} + 1 : c_{pname};")
        elif k == "indices_out":
            n = kind[1]
            w.fparams.append(f"ftmpi_fint *{pname}")
            w.args.append(pname)
            w.post.append(f"if (*{n} != MPI_UNDEFINED) for (int i = 0; i < *{n}; ++i) {pname}[i] += 1;")
        elif k == "statuses":
            alloc, copy = kind[1], kind[2]
            w.fparams.append(f"ftmpi_fint *{pname}")
            w.pre.append(f"MPI_Status *c_{pname} = ftmpi_f_statuses_in({pname}, *{alloc});")
            w.pre.append(f"if (!c_{pname}) {{ *ierror = ftmpi_f_nomem(\"{fname}\"); return; }}")
            w.args.append(f"c_{pname}")
            w.always.append(
                f"ftmpi_f_statuses_out({pname}, c_{pname}, "
                f"(rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *{copy} != MPI_UNDEFINED ? *{copy} : 0);")
        elif k == "aint_array":
            n = kind[1]
            w.fparams.append(f"ftmpi_fint *{pname}")
            w.pre.append(f"MPI_Aint *c_{pname} = ftmpi_f_aints_in({pname}, *{n});")
            w.pre.append(f"if (!c_{pname}) {{ *ierror = ftmpi_f_nomem(\"{fname}\"); return; }}")
            w.args.append(f"c_{pname}")
            w.always.append(f"free(c_{pname});")
        elif k == "aint_out":
            w.fparams.append(f"ftmpi_fint *{pname}")
            w.pre.append(f"MPI_Aint c_{pname} = 0;")
            w.args.append(f"&c_{pname}")
            w.post.append(f"rc = ftmpi_f_aint_out(c_{pname}, {pname}, \"{fname}\");")
        elif k == "string_out":
            size, lenp = kind[1], kind[2]
            w.fparams.append(f"char *{pname}")
            w.hidden.append(f"size_t {pname}_len")
            w.pre.append(f"char c_{pname}[{size} + 1];")
            w.pre.append(f"c_{pname}[0] = '\\0';")
            w.args.append(f"c_{pname}")
            w.post.append(f"ftmpi_f_string_out(c_{pname}, {pname}, {pname}_len, {lenp});")
        else:
            raise GenError(f"{fname}: unknown kind {k!r} for {pname}")
        return
    if ctype == "void*":
        w.fparams.append(f"void *{pname}")
        w.args.append(f"ftmpi_f_buf({pname})")
    elif ctype in HANDLE_TYPES:
        w.fparams.append(f"ftmpi_fint *{pname}")
        w.args.append(fref(pname))
    elif base in HANDLE_TYPES and ctype.count("*") == 1:
        w.fparams.append(f"ftmpi_fint *{pname}")
        w.args.append(pname)
    elif ctype == "int[][3]":
        w.fparams.append(f"ftmpi_fint *{pname}")
        w.args.append(f"(int (*)[3]){pname}")
    elif ctype == "MPI_Aint":
        w.fparams.append(f"ftmpi_fint *{pname}")
        w.args.append(f"(MPI_Aint)*{pname}")
    elif ctype == "MPI_Status*" and pname == "status":
        w.fparams.append(f"ftmpi_fint *{pname}")
        w.pre.append(f"MPI_Status s_{pname};")
        w.pre.append(f"MPI_Status *c_{pname} = ftmpi_f_status_in({pname}, &s_{pname});")
        w.args.append(f"c_{pname}")
        w.always.append(f"ftmpi_f_status_out({pname}, c_{pname});")
    elif base in PROC_TYPES and ctype.count("*") == 1:
        # A Fortran procedure argument is its address; the Fortran callback
        # takes the same arguments by reference as the C one (the handler's
        # extra C arguments are ignored by a two-argument subroutine).
        w.fparams.append(f"void (*{pname})(void)")
        w.args.append(f"({base} *){pname}")
    else:
        raise GenError(f"{fname}: parameter {ctype} {pname} needs a line in bindings.txt")


def gen_wrapper(fname, proto, table):
    ret, params = proto
    if ret != "int":
        raise GenError(f"{fname}: returns {ret}; list it as special")
    w = Wrapper(fname)
    for ctype, pname in params:
        if ctype == "...":
            raise GenError(f"{fname}: variadic; list it as special")
        bind_param(w, fname, ctype, pname, table.get((fname, pname)))
    return w


def emit_wrapper(w, prefix):
    lower = (prefix + w.cname[3:]).lower() + "_"
    cfun = prefix + w.cname[3:]
    params = w.fparams + ["ftmpi_fint *ierror"] + w.hidden
    lines = [f"void {lower}({', '.join(params)}) {{"]
    lines += ["  " + l for l in w.pre]
    lines.append(f"  int rc = {cfun}({', '.join(w.args)});")
    if w.post:
        lines.append("  if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {")
        lines += ["    " + l for l in w.post]
        lines.append("  }")
    lines += ["  " + l for l in w.always]
    lines.append("  *ierror = rc;")
    lines.append("}")
    return "\n".join(lines)


def gen_c(functions, protos, table, special):
    out = ["/* Generated by src/fortran/gen_bindings.py: do not edit. */",
           "#include <stdlib.h>",
           "#include \"fortran/support.h\"",
           ""]
    for fname in functions:
        if fname in special:
            continue
        if fname not in protos:
            raise GenError(f"{fname}: no prototype in mpi.h")
        w = gen_wrapper(fname, protos[fname], table)
        for prefix in ("MPI", "PMPI"):
            out.append(emit_wrapper(w, prefix))
            out.append("")
    return "\n".join(out)


# ------------------------------------------------------------------- mpif.h

def fortran_lines(decl, names, values=None):
    """`INTEGER a, b` / `PARAMETER (a=1, b=2)` split to fit 72 columns."""
    out, cur = [], []
    def flush():
        if cur:
            if values is None:
                out.append(f"      {decl} " + ", ".join(cur))
            else:
                out.append(f"      PARAMETER (" + ", ".join(cur) + ")")
    for n in names:
        item = n if values is None else f"{n}={values[n]}"
        prefix = 6 + len(decl) + 1 if values is None else 6 + 11
        if cur and prefix + len(", ".join(cur + [item])) + (1 if values else 0) > 72:
            flush()
            cur = []
        cur.append(item)
    flush()
    return out


def gen_mpifh(constants, types):
    values = dict(constants)
    names = [n for n, _ in constants]
    for n, v in STATUS_INDEX.items():
        if n in values:
            raise GenError(f"{n} is a C constant and a Fortran status index")
    for fname, ctype in types:
        if ctype not in values:
            raise GenError(f"type {fname}: {ctype} is not a constant of mpi.h")
        values[fname] = values[ctype]
        names.append(fname)
    values["MPI_STATUS_SIZE"] = STATUS_SIZE_INTS
    values.update(STATUS_INDEX)
    # The kind of INTEGER arguments: an MPI-3 name, but CMake's FindMPI
    # declares its test program's IERROR with it before it accepts mpif.h
    # or the module. gfortran's default INTEGER is kind 4.
    values["MPI_INTEGER_KIND"] = 4
    fixed = ["MPI_STATUS_SIZE"] + list(STATUS_INDEX) + ["MPI_INTEGER_KIND"]
    out = ["! ftmpi mpif.h: the MPI-1.2 Fortran constants and declarations.",
           "! Generated by src/fortran/gen_bindings.py from include/mpi.h;",
           "! do not edit. Valid in fixed and in free source form.",
           "!"]
    for group in (fixed, names):
        for i in range(0, len(group), 4):
            chunk = group[i:i + 4]
            out += fortran_lines("INTEGER", chunk)
            out += fortran_lines("PARAMETER", chunk, values)
    out.append("!")
    out.append("! MPI_BOTTOM and the status placeholders are recognised by address.")
    for name, (block, dims) in COMMON.items():
        out.append(f"      INTEGER {name}{dims}")
        out.append(f"      COMMON /{block}/ {name}")
    out.append("!")
    out.append("! Functions, and procedures that are arguments.")
    timers = [p + t for t in ("MPI_WTIME", "MPI_WTICK") for p in ("", "P")]
    out += fortran_lines("DOUBLE PRECISION", timers)
    out += fortran_lines("EXTERNAL", timers)
    out += fortran_lines("EXTERNAL", ["MPI_NULL_COPY_FN", "MPI_NULL_DELETE_FN", "MPI_DUP_FN"])
    for l in out:
        if not l.startswith("!") and len(l) > 72:
            raise GenError(f"mpif.h line longer than 72 columns: {l}")
    return "\n".join(out) + "\n"


def check_lib(functions, lib):
    """Every function of the list is exported as mpi_x_ and pmpi_x_, and the
    procedures and common blocks mpif.h names exist."""
    import subprocess
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    defined = {line.split()[-1] for line in out.splitlines() if line.strip()}
    want = [p + f.lower() + "_" for f in functions for p in ("", "p")]
    want += ["mpi_null_copy_fn_", "mpi_null_delete_fn_", "mpi_dup_fn_"]
    want += [block.lower() + "_" for block, _ in COMMON.values()]
    missing = [w for w in want if w not in defined]
    for m in missing:
        print(f"gen_bindings.py: {lib} does not define {m}", file=sys.stderr)
    print(f"gen_bindings.py: {len(want) - len(missing)} of {len(want)} Fortran symbols defined")
    return 1 if missing else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--functions", required=True)
    ap.add_argument("--header")
    ap.add_argument("--table")
    ap.add_argument("--out-c")
    ap.add_argument("--out-mpifh")
    ap.add_argument("--check-lib", help="instead of generating: check what this library exports")
    a = ap.parse_args()
    if a.check_lib:
        return check_lib(read_functions(a.functions), a.check_lib)
    if not (a.header and a.table and a.out_c and a.out_mpifh):
        ap.error("--header, --table, --out-c and --out-mpifh are needed to generate")
    try:
        functions = read_functions(a.functions)
        table, special, types = read_table(a.table)
        text = c_text(a.header)
        protos = read_prototypes(text, set(functions))
        for fname, pname in table:
            if fname not in protos or pname not in [p for _, p in protos[fname][1]]:
                raise GenError(f"bindings.txt: {fname} has no parameter {pname}")
        for fname in special:
            if fname not in functions:
                raise GenError(f"bindings.txt: special {fname} is not in the function list")
        c = gen_c(functions, protos, table, special)
        h = gen_mpifh(read_constants(text), types)
    except GenError as e:
        print(f"gen_bindings.py: {e}", file=sys.stderr)
        return 1
    for path, content in ((a.out_c, c), (a.out_mpifh, h)):
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists() or p.read_text() != content:
            p.write_text(content)
    return 0


if __name__ == "__main__":
    sys.exit(main())

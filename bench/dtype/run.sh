#!/bin/sh
# Compares our cursor with MPI_Pack of Open MPI and MPICH (if installed) on
# the same cases. Usage: bench/dtype/run.sh <build-dir> [reps]
set -e
build=${1:?usage: run.sh <build-dir> [reps]}
reps=${2:-50}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "== ftmpi cursor"
"$(find "$build" -name bench_dtype_pack -type f | head -1)" "$reps"
if command -v mpicc.openmpi >/dev/null; then
  mpicc.openmpi -O2 "$here/mpi_pack_bench.c" -o "$tmp/ompi"
  echo "== Open MPI MPI_Pack"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$tmp/ompi" "$reps"
fi
if command -v mpicc.mpich >/dev/null; then
  mpicc.mpich -O2 "$here/mpi_pack_bench.c" -o "$tmp/mpich"
  echo "== MPICH MPI_Pack"
  "$tmp/mpich" "$reps" 2>&1 | grep -v '^\[WARNING\] yaksa'
fi

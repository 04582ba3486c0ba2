#!/usr/bin/env bash
# Installs what building and testing ftmpi needs on Debian 12 (as root, or
# through sudo). Open MPI and MPICH are only needed by the benchmarks.
# PMIx (direct launch under srun --mpi=pmix) and Slurm with munge (the tests
# of tests/slurm bring up their own single-node Slurm) are optional for a
# build: without them direct launch is not built and those tests are skipped.
# gfortran is needed only by the Fortran bindings (skipped without it).
set -euo pipefail
pkgs=(build-essential gfortran cmake pkg-config python3 libgtest-dev libgmock-dev libssl-dev libisal-dev
      iproute2 procps libpmix-dev slurmctld slurmd slurm-client munge)
if [ "${1:-}" = "--bench" ]; then
  pkgs+=(openmpi-bin libopenmpi-dev mpich libmpich-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# The test command of README.md: installs dependencies, builds ftmpi in
# build/, and runs the whole CTest suite (unit, multi-process, fault-injection,
# packaging). Extra arguments go to ctest (e.g. -L unit, -R p2p).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j2 --timeout 300 "$@"

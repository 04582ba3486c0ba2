#!/usr/bin/env bash
# The README's demo: installs the dependencies, builds ftmpi in build/, then
# runs examples/cg_checksum (a conjugate-gradient solver that keeps
# Reed-Solomon encoded checkpoints in memory) on 8 processes while ftmpirun
# kills some of them: one at 1 s, two at once at 2 s, then two chosen at
# random (seeded). Each killed rank is restarted, rebuilds its state from the
# others' checkpoints and the solve goes on; at the end the program compares
# its solution and iteration count with a failure-free solve. Then the same
# program and the same kills in transparent mode (--ft-transparent): the
# killed ranks restart from the program's start and replay from the message
# logs, the program never sees a failure. Last, transparent mode with
# checkpoints (every second, images in the host's memory): a killed rank comes
# back from its latest image and replays only what followed it. The exit
# status is 0 only if all three runs passed that check.
#
#   bash tools/demo.sh            (Debian 12; installs packages through apt)
#
# Environment: DEMO_N (grid points per side, default 96), DEMO_SEED (seed of
# the random kills, default 2026), DEMO_SKIP_INSTALL=1 (do not run
# tools/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${DEMO_N:-96}
seed=${DEMO_SEED:-2026}

if [ -t 1 ]; then
  bold=$'\e[1m' red=$'\e[31m' green=$'\e[32m' yellow=$'\e[33m' off=$'\e[0m'
else
  bold="" red="" green="" yellow="" off=""
fi
step() { printf '%s== %s%s\n' "$bold" "$1" "$off"; }

step "1/5 dependencies (tools/install-deps.sh)"
if [ "${DEMO_SKIP_INSTALL:-0}" != 1 ]; then
  bash tools/install-deps.sh
fi

step "2/5 building ftmpi and the example in build/ (log: build/demo-build.log)"
mkdir -p build
t0=$(date +%s)
if ! { cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
       cmake --build build -j"$(nproc)" --target ftmpirun ftmpid cg_checksum; } > build/demo-build.log 2>&1; then
  tail -n 30 build/demo-build.log
  echo "${red}demo: the build failed (whole log: build/demo-build.log)${off}"
  exit 1
fi
echo "built in $(( $(date +%s) - t0 )) s"

kills=(--inject 'kill rank=3 at=1s'
       --inject 'kill rank=1 at=2s' --inject 'kill rank=4 at=2s'
       --inject 'kill random at=3s every=0.6s count=2' --inject-seed "$seed")

# run_cg NAME MODE_OPTION...: one run, its output in build/demo-NAME.log and
# its runtime events in build/demo-NAME-timeline.jsonl; prints the verdict line.
run_cg() {
  local name=$1 log=build/demo-$1.log
  shift
  local cmd=(build/bin/ftmpirun -np 8 "$@" "${kills[@]}"
             --timeline "build/demo-$name-timeline.jsonl" --summary
             build/examples/cg_checksum -n "$n" -K 10 -m 2 -q)
  printf '%s\n\n' "${cmd[*]}"
  # ftmpirun's lines (failures, respawns, recovery rounds, replays) go to
  # stderr; merge them with the program's in the order they come, and colour
  # the story.
  set +e
  "${cmd[@]}" 2>&1 | tee "$log" | sed -u \
    -e "s/^\(ftmpirun: \(injecting\|rank [0-9]* .*died\).*\)$/${red}\1${off}/" \
    -e "s/^\(ftmpirun: \(respawning\|restarting\|recovery round\).*\)$/${yellow}\1${off}/" \
    -e "s/^\(ftmpirun: rank [0-9]* restarts from checkpoint.*\)$/${yellow}\1${off}/" \
    -e "s/^\(ftmpirun: rank [0-9]* caught up.*\)$/${green}\1${off}/" \
    -e "s/^\(cg: recovery .*\)$/${green}\1${off}/" \
    -e "s/^\(.*: PASSED\)$/${green}${bold}\1${off}/" \
    -e "s/^\(.*: FAILED\)$/${red}${bold}\1${off}/"
  local status=${PIPESTATUS[0]}
  set -e
  echo
  local survived
  survived=$(grep -o 'job survived [0-9]* failures\?[^;]*' "$log" | head -n 1 || true)
  if [ "$status" -eq 0 ] && grep -q 'check against the failure-free solve.*: PASSED' "$log"; then
    echo "${green}${bold}$name: PASSED${off} - ${survived:-no failure happened}; same iteration count and solution as" \
         "the failure-free solve (output: $log)"
    return 0
  fi
  echo "${red}${bold}$name: FAILED${off} (ftmpirun exit status $status; output: $log)"
  return 1
}

step "3/5 cg_checksum on 8 processes, REBUILD mode (the program recovers itself), with injected failures"
rebuild=0
run_cg rebuild --ft-comm-mode=rebuild || rebuild=1

echo
step "4/5 the same program and kills in transparent mode (message logging: the program sees no failure)"
transparent=0
run_cg transparent --ft-transparent || transparent=1

echo
step "5/5 transparent mode with checkpoints every second (a killed rank restarts from its latest image in memory)"
ckpt=0
run_cg ckpt --ft-transparent --ckpt-interval=1s --ckpt-store=memory || ckpt=1
echo
if [ "$rebuild" -eq 0 ] && [ "$transparent" -eq 0 ] && [ "$ckpt" -eq 0 ]; then
  echo "${green}${bold}demo: PASSED${off} (all three runs)"
  exit 0
fi
echo "${red}${bold}demo: FAILED${off}"
exit 1

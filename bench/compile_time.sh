#!/usr/bin/env bash
# Compile time of a Brook application, next to the same measured against another revision of
# Brook in the same run.
#
#   bench/compile_time.sh [--demo] [BASE_REVISION]
#
# - The user translation unit: bench/compile/ten_operators.cc (10 operators, the core headers)
#   compiled as a user's Release build compiles it (g++ -std=c++23 -O3 -DNDEBUG), 5 times each
#   against this tree's headers and BASE_REVISION's, alternately; the median wall-clock seconds
#   and the ratio.
# - The lines `#include <brook/brook.h>` preprocesses to, for both.
# - With --demo: the demo's build from scratch as each tree's scripts/demo.sh builds it
#   (Release, no tests, no benchmarks; only the demo's target where that script builds only it;
#   everything installed already), once for each tree, wall-clock.
# BASE_REVISION defaults to HEAD (the last commit: the figures then show what the work tree
# changes). Needs nothing beyond what scripts/test.sh installs.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEMO=0
if [[ "${1:-}" == "--demo" ]]; then
  DEMO=1
  shift
fi
BASE="${1:-HEAD}"
JOBS="${BROOK_JOBS:-$(nproc)}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$WORK/base"
git -C "$ROOT" archive "$BASE" | tar -x -C "$WORK/base"

# Wall-clock seconds of compiling the TU once against the headers under $1.
compile_once() {
  local start end
  start=$(date +%s.%N)
  g++ -std=c++23 -O3 -DNDEBUG -I "$1/include" -c "$ROOT/bench/compile/ten_operators.cc" \
    -o "$WORK/ten_operators.o"
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

median() { printf '%s\n' "$@" | sort -n | sed -n "$(((${#@} + 1) / 2))p"; }

preprocessed_lines() {
  echo '#include <brook/brook.h>' | g++ -std=c++23 -I "$1/include" -E -x c++ - | wc -l
}

# Wall-clock seconds of building the demo from scratch in the tree $1.
demo_seconds() {
  local build="$WORK/demo-build-$2"
  cmake -S "$1" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBROOK_BUILD_TESTS=OFF \
    -DBROOK_BUILD_BENCH=OFF >/dev/null
  local target=()
  if grep -q -- "--target brook_demo" "$1/scripts/demo.sh"; then target=(--target brook_demo); fi
  local start end
  start=$(date +%s.%N)
  cmake --build "$build" -j "$JOBS" "${target[@]}" >/dev/null
  end=$(date +%s.%N)
  rm -rf "$build"
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# Alternately, so that a slower stretch of the machine weighs on both trees alike.
now_times=() before_times=()
for _ in 1 2 3 4 5; do
  now_times+=("$(compile_once "$ROOT")")
  before_times+=("$(compile_once "$WORK/base")")
done
now=$(median "${now_times[@]}")
before=$(median "${before_times[@]}")
printf '%-42s %12s %12s %8s\n' "case" "this tree" "$BASE" "speed-up"
printf '%-42s %12.2f %12.2f %8s\n' "10-operator user TU, seconds (-O3)" "$now" "$before" \
  "$(ratio "$before" "$now")"
lines_now=$(preprocessed_lines "$ROOT")
lines_before=$(preprocessed_lines "$WORK/base")
printf '%-42s %12d %12d %8s\n' "lines of #include <brook/brook.h>" "$lines_now" "$lines_before" \
  "$(ratio "$lines_before" "$lines_now")"
if ((DEMO)); then
  demo_now=$(demo_seconds "$ROOT" now)
  demo_before=$(demo_seconds "$WORK/base" base)
  printf '%-42s %12.1f %12.1f %8s\n' "demo build from scratch, seconds (-j $JOBS)" "$demo_now" \
    "$demo_before" "$(ratio "$demo_before" "$demo_now")"
fi

#!/usr/bin/env bash
# Fuzzes Brook's decoders of untrusted bytes with libFuzzer (docs/testing.md, "Fuzzing").
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   each target (default: all) for SECONDS (default 60)
#
# Builds the fuzz targets (tests/fuzz/<target>.cc) with clang-16, ASan and UBSan in build-fuzz
# (-DBROOK_FUZZ=ON), runs each on its checked-in corpus (tests/fuzz/corpus/<target>/) plus
# what earlier runs found (build-fuzz/corpus/<target>/, where new inputs go), two at a time,
# and prints a table: executions, executions per second, coverage (libFuzzer's cov: edges and
# ft: features) and the corpus at the end. A crash, a leak, a timeout or a broken property
# (FUZZ_CHECK) fails its target: the input is saved in build-fuzz/findings/<target>/, to go into
# tests/fuzz/corpus/<target>/ as a regression test once fixed. Exits 1 if any target failed.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

seconds="${1:-60}"
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2; }
shift $(($# > 0 ? 1 : 0))

brook_install_deps
cd "$BROOK_ROOT"
dir=build-fuzz
brook_build_fuzzers
brook_sanitizer_env

targets=("$@")
if ((${#targets[@]} == 0)); then
  for source in tests/fuzz/*.cc; do
    name="$(basename "$source" .cc)"
    [[ "$name" == replay_main ]] || targets+=("$name")
  done
fi

run_target() {  # <target>: fuzzes it for $seconds, its output in $dir/logs/<target>.log
  local target="$1"
  mkdir -p "$dir/corpus/$target" "$dir/findings/$target" "$dir/logs"
  "$dir/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$dir/findings/$target/" \
    "$dir/corpus/$target" "tests/fuzz/corpus/$target" >"$dir/logs/$target.log" 2>&1
}
export -f run_target
export dir seconds
status=0
printf '%s\n' "${targets[@]}" | xargs -P "$BROOK_JOBS" -I{} bash -c 'run_target {}' || status=1

printf '%-20s %6s %12s %10s %7s %7s %8s  %s\n' target seconds executions 'exec/s' cov ft corpus result
for target in "${targets[@]}"; do
  log="$dir/logs/$target.log"
  stat() { sed -n "s/^stat::$1: *\([0-9]*\).*/\1/p" "$log" | tail -1; }
  last="$(grep -E '^#[0-9]+' "$log" | tail -1 || true)"
  cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
  ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")"
  corpus="$(sed -n 's/.* corp: \([0-9]*\/[0-9]*[a-zA-Z]*\).*/\1/p' <<<"$last")"
  if grep -qE '^==[0-9]+==ERROR|FUZZ_CHECK failed|^SUMMARY: |deadly signal|Test unit written' "$log"; then
    result="FAILED: $(grep -m1 -E 'ERROR|FUZZ_CHECK|SUMMARY|deadly' "$log" | cut -c1-100); input in $dir/findings/$target/"
    status=1
  else
    result=ok
  fi
  printf '%-20s %6s %12s %10s %7s %7s %8s  %s\n' "$target" "$seconds" "$(stat number_of_executed_units)" \
    "$(stat average_exec_per_sec)" "${cov:--}" "${ft:--}" "${corpus:--}" "$result"
done
exit "$status"

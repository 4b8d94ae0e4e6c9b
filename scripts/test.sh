#!/usr/bin/env bash
# Builds Brook and runs the whole test suite (ctest).
#
#   scripts/test.sh              optimised build (-O1) in build-test, plus the format check
#   scripts/test.sh --sanitize   Debug build with clang-16, ASan + UBSan in build-asan, without
#                                bench/, then every fuzz target for $BROOK_FUZZ_SECONDS
#                                (default 10) s (scripts/fuzz.sh: clang-16, ASan + UBSan, in
#                                build-fuzz)
#
# Installs the missing apt packages first (scripts/lib/common.sh). Builds the Kafka Streams twins
# of the examples (tests/conformance/twins, Maven). Before ctest, starts a
# local Apache Kafka broker for the Kafka tests (scripts/kafka.sh, one KRaft node on
# 127.0.0.1:$BROOK_KAFKA_PORT, default 19092) and a PostgreSQL server for the CDC tests
# (scripts/postgres.sh, 127.0.0.1:$BROOK_POSTGRES_PORT, default 15432), exports their addresses
# as BROOK_KAFKA_BOOTSTRAP and BROOK_POSTGRES_DSN, and stops both on exit, whatever happens.
# Exits non-zero if the build, a server's start, any test or the format check fails.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

usage() { echo "usage: $0 [--sanitize]" >&2; exit 2; }
sanitize=false
case "$#:${1:-}" in
  0:) ;;
  1:--sanitize) sanitize=true ;;
  *) usage ;;
esac

# How long each phase took, printed when the script ends (CI's budget is the sum of both halves).
phases=()
phase_start=$SECONDS
phase_done() {
  phases+=("$1 $((SECONDS - phase_start)) s")
  phase_start=$SECONDS
}
print_phases() { ((${#phases[@]})) && echo "test.sh phases: $(IFS=,; echo "${phases[*]}" | sed 's/,/, /g')"; }

brook_install_deps
cd "$BROOK_ROOT"
phase_done "packages"

# Format check (non-sanitize mode only): every tracked *.h/*.cc must be clang-formatted.
# A failure is remembered and reported, but the tests still run.
format_ok=true
if ! $sanitize; then
  unformatted=()
  while IFS= read -r file; do
    [[ -f "$file" ]] || continue  # deleted in the work tree
    "$BROOK_CLANG_FORMAT" --dry-run -Werror "$file" >/dev/null 2>&1 || unformatted+=("$file")
  done < <(git ls-files '*.h' '*.cc')
  if ((${#unformatted[@]})); then
    format_ok=false
    echo "Format check FAILED: run $BROOK_CLANG_FORMAT -i on these files:" >&2
    printf '  %s\n' "${unformatted[@]}" >&2
  else
    echo "Format check passed."
  fi
fi

# Both builds keep line tables only (-g1: backtraces name files and lines), and the plain one
# optimises at -O1: the code generation of the template-heavy tests is most of the build's
# time, and both halves must fit CI's budget. The plain half compiles with g++ (Debian's
# default), the sanitizer half with clang-16: it builds the unoptimised, instrumented code in
# 0.57 of g++'s compile time, and the two compilers between them see more. The benchmarks' smoke
# tests run in the plain build only (they exercise no library code the tests do not).
if $sanitize; then
  dir=build-asan
  brook_build_sanitized_tests
  brook_sanitizer_env
else
  dir=build-test
  brook_configure_tests
  cmake --build "$dir" -j "$BROOK_JOBS"
fi
phase_done "build"

# The Kafka Streams twins of the examples for the conformance tests (tests/conformance), built
# with Maven into the cache once (again only when their sources change).
BROOK_CONFORMANCE_CLASSPATH="$(brook_conformance_classpath)"
export BROOK_CONFORMANCE_CLASSPATH
phase_done "twins"

# A real broker for the Kafka tests and a real PostgreSQL for the CDC tests, both stopped (and
# their data deleted) however this script ends, like the fuzzing build the sanitizer half runs
# beside its tests.
fuzz_build=""
trap '[[ -z "$fuzz_build" ]] || { kill -- -"$fuzz_build" 2>/dev/null || true; }; "$BROOK_ROOT/scripts/kafka.sh" stop || true; "$BROOK_ROOT/scripts/postgres.sh" stop || true; print_phases' EXIT
BROOK_KAFKA_BOOTSTRAP="$("$BROOK_ROOT/scripts/kafka.sh" start | tail -1)"
export BROOK_KAFKA_BOOTSTRAP
echo "Kafka broker at $BROOK_KAFKA_BOOTSTRAP"
BROOK_POSTGRES_DSN="$("$BROOK_ROOT/scripts/postgres.sh" start | tail -1)"
export BROOK_POSTGRES_DSN
echo "PostgreSQL at $BROOK_POSTGRES_DSN"
phase_done "services"

# CI reads ctest's closing lines: leave its output alone. A test that hangs fails after
# 300 s (a test's own TIMEOUT property overrides this) instead of eating CI's time.
# The conformance tests run in the plain half only: they compare the examples' outputs with
# those of Kafka Streams (a JVM, which the sanitizers do not see), and the examples run under
# the sanitizers in DemoTest and KafkaExamplesTest. They took 30 % of the sanitizer half's test
# time, which now goes to fuzzing. Likewise the kill campaigns on Kafka (recovery on a real
# broker, about half a minute each of waiting out session timeouts): the same recovery runs under the
# sanitizers in KafkaScaleTest, and the embedded log's campaigns run in both halves.
# The embedded log's kill campaigns run 6 kill points each there (12 in the plain half): under
# the sanitizers every restart takes several times as long. For the same reason the CDC test of
# one large transaction commits 200 000 rows there (a million in the plain half): still 20 log
# transactions or more; and the CDC test killed mid-snapshot snapshots 60 000 rows (300 000).
exclude=()
if $sanitize; then
  exclude=(--exclude-regex '^(ConformanceTest|KafkaKillCampaignTest)\.')
  export BROOK_CHAOS_KILLS="${BROOK_CHAOS_KILLS:-6}"
  export BROOK_CDC_LARGE_ROWS="${BROOK_CDC_LARGE_ROWS:-200000}"
  export BROOK_CDC_SNAPSHOT_ROWS="${BROOK_CDC_SNAPSHOT_ROWS:-60000}"
fi
# The sanitizer half builds the fuzz targets meanwhile, at the lowest priority: its tests keep
# about 1.6 of the 2 cores busy, and the build takes the rest.
if $sanitize; then
  brook_in_background_idle build-fuzz/build.log brook_build_fuzzers
  fuzz_build=$brook_background_pid
fi
# With two tests at a time, a long test started last ends the run alone: ctest starts the tests
# it knows to be long first. A clean build knows none, so it starts from tests/ctest_costs.txt
# (the tests over 10 s with their seconds: under the sanitizers, or in the plain half for the
# tests only it runs; refresh it from a build's Testing/Temporary/CTestCostData.txt when the
# tests change much).
costs="$dir/Testing/Temporary/CTestCostData.txt"
[[ -f "$costs" ]] || { mkdir -p "$(dirname "$costs")"; cp tests/ctest_costs.txt "$costs"; }
ctest --test-dir "$dir" --output-on-failure -j "$BROOK_JOBS" --timeout 300 "${exclude[@]}" ||
  { phase_done "ctest (failed)"; exit 1; }
phase_done "ctest"

# The plain build replays the fuzz targets' corpora (ctest: fuzz_corpus_*); the sanitizer half
# fuzzes each target briefly, starting from its corpus (scripts/fuzz.sh 600 for a long campaign).
if $sanitize; then
  wait "$fuzz_build" || { cat build-fuzz/build.log >&2; phase_done "fuzz (build failed)"; exit 1; }
  fuzz_build=""
  "$BROOK_ROOT/scripts/fuzz.sh" "${BROOK_FUZZ_SECONDS:-10}"
  phase_done "fuzz"
fi

$format_ok || { echo "test.sh: tests passed but the format check failed (files listed above)" >&2; exit 1; }

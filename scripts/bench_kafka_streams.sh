#!/usr/bin/env bash
# Brook next to Apache Kafka Streams (bench/kafka_streams_bench.cc; results and how to read
# them: docs/performance.md). Builds what is missing, runs every case against a local broker,
# prints the table.
#
#   scripts/bench_kafka_streams.sh [--quick] [--harness PATH] [kafka_streams_bench flags...]
#
#   --quick          20 000 records over 2 000 keys, one run per case (a smoke test)
#   --harness PATH   run this kafka_streams_bench instead of building the Release one
#   other flags      passed on: --records N --keys N --runs N --cases NAME,...
#
# Broker: $BROOK_KAFKA_BOOTSTRAP if set (as scripts/test.sh exports it), else scripts/kafka.sh's
# on 127.0.0.1:$BROOK_KAFKA_PORT (default 19092): a running one is used and left running, one
# started here is stopped on exit.
# Kafka Streams side: bench/kafka_streams/pom.xml, at the Kafka version of tests/kafka/pom.xml
# (the broker's), built by Maven from Maven Central into
# ${XDG_CACHE_HOME:-$HOME/.cache}/brook/bench-kafka-streams (the jar and lib/), once: again only
# when the pom or the Java sources change.
# Brook side: kafka_streams_bench and kafka_streams_brook_app in the Release build dir
# $BROOK_BENCH_BUILD_DIR (default build-bench, relative to the repository).
# Installs the missing apt packages first (scripts/lib/common.sh). Progress goes to stderr.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

KS_DIR="$BROOK_ROOT/bench/kafka_streams"
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/brook/bench-kafka-streams"
BUILD_DIR="${BROOK_BENCH_BUILD_DIR:-build-bench}"  # relative to $BROOK_ROOT

log() { echo "bench_kafka_streams.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

# The Kafka Streams app's classpath, built into $CACHE_DIR unless that holds a build of these
# very sources.
build_kafka_streams_app() {
  brook_maven_jar "$KS_DIR" "$CACHE_DIR" || die "could not build the Kafka Streams app"
}

build_harness() {
  local dir="$BROOK_ROOT/$BUILD_DIR"
  log "building kafka_streams_bench (Release) in $dir"
  mkdir -p "$dir"
  brook_configure "$BUILD_DIR" Release -DBROOK_BUILD_BENCH=ON -DBROOK_BUILD_TESTS=OFF \
    -DBROOK_BUILD_EXAMPLES=OFF >"$dir/configure.log" 2>&1 ||
    { cat "$dir/configure.log" >&2; die "configuring $dir failed"; }
  cmake --build "$dir" --target kafka_streams_bench -j "$BROOK_JOBS" >&2
}

harness=""
args=()
while (($#)); do
  case "$1" in
    --quick) args+=(--records 20000 --keys 2000 --runs 1); shift ;;
    --harness) (($# >= 2)) || die "--harness needs a path"; harness="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done

brook_install_deps >&2
classpath="$(build_kafka_streams_app)"
if [[ -z "$harness" ]]; then
  build_harness
  harness="$BROOK_ROOT/$BUILD_DIR/bench/kafka_streams_bench"
fi

if [[ -z "${BROOK_KAFKA_BOOTSTRAP:-}" ]]; then
  if ! "$BROOK_ROOT/scripts/kafka.sh" status >/dev/null; then
    trap '"$BROOK_ROOT/scripts/kafka.sh" stop || true' EXIT
  fi
  BROOK_KAFKA_BOOTSTRAP="$("$BROOK_ROOT/scripts/kafka.sh" start | tail -1)"
  export BROOK_KAFKA_BOOTSTRAP
fi
log "broker at $BROOK_KAFKA_BOOTSTRAP; $(uptime)"
"$harness" --ks-classpath "$classpath" "${args[@]}"

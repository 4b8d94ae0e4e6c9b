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

kafka_version() {  # the <kafka.version> of a pom
  sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$1"
}

# Builds the Kafka Streams app into $CACHE_DIR unless it holds a build of these very sources;
# prints its classpath.
build_kafka_streams_app() {
  local version broker_version sum
  version="$(kafka_version "$KS_DIR/pom.xml")"
  broker_version="$(kafka_version "$BROOK_ROOT/tests/kafka/pom.xml")"
  [[ "$version" == "$broker_version" ]] ||
    die "bench/kafka_streams/pom.xml has Kafka $version, tests/kafka/pom.xml $broker_version"
  sum="$(cd "$KS_DIR" && find pom.xml src -type f | LC_ALL=C sort | xargs sha256sum | sha256sum)"
  sum="${sum%% *}"
  if [[ "$(cat "$CACHE_DIR/sources.sha256" 2>/dev/null)" != "$sum" ]]; then
    log "building the Kafka Streams $version app with Maven into $CACHE_DIR"
    mkdir -p "$CACHE_DIR"
    local tmp="$CACHE_DIR/build.tmp.$$"
    rm -rf "$tmp"
    mvn -q -B -f "$KS_DIR/pom.xml" -Dbench.build.dir="$tmp" package dependency:copy-dependencies \
      >"$CACHE_DIR/mvn.log" 2>&1 ||
      { cat "$CACHE_DIR/mvn.log" >&2; rm -rf "$tmp"; die "mvn could not build $KS_DIR/pom.xml"; }
    rm -rf "$CACHE_DIR/build"
    mv "$tmp" "$CACHE_DIR/build"
    echo "$sum" >"$CACHE_DIR/sources.sha256"
  fi
  echo "$CACHE_DIR/build/brook-bench-kafka-streams-1.jar:$CACHE_DIR/build/lib/*"
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

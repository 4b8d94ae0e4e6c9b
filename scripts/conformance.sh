#!/usr/bin/env bash
# Conformance with Kafka Streams (tests/conformance/README.md): every example program against its
# Kafka Streams twin on a local broker, and a report table: example, what was compared (describe(),
# each output topic, each store's changelog), equal or different.
#
#   scripts/conformance.sh [GTEST_FILTER]   e.g. 'ConformanceTest.LogRouter*'
#
# Builds what is missing: the conformance tests and the examples in build-test (as scripts/test.sh
# configures it), the twins with Maven into the cache. Broker: $BROOK_KAFKA_BOOTSTRAP if set, else
# scripts/kafka.sh's, started here and stopped on exit. Installs the missing apt packages first
# (scripts/lib/common.sh). Exits non-zero if anything differs or fails.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

(($# <= 1)) || { echo "usage: $0 [GTEST_FILTER]" >&2; exit 2; }
filter="${1:-*}"

brook_install_deps
cd "$BROOK_ROOT"
brook_configure_tests >/dev/null
cmake --build build-test --target brook_conformance_tests -j "$BROOK_JOBS"
BROOK_CONFORMANCE_CLASSPATH="$(brook_conformance_classpath)"
export BROOK_CONFORMANCE_CLASSPATH

if [[ -z "${BROOK_KAFKA_BOOTSTRAP:-}" ]]; then
  trap '"$BROOK_ROOT/scripts/kafka.sh" stop || true' EXIT
  BROOK_KAFKA_BOOTSTRAP="$("$BROOK_ROOT/scripts/kafka.sh" start | tail -1)"
  export BROOK_KAFKA_BOOTSTRAP
fi

report="$(mktemp)"
export BROOK_CONFORMANCE_REPORT="$report"
status=0
build-test/tests/brook_conformance_tests --gtest_filter="$filter" >&2 || status=$?

echo
printf '%-20s %-44s %s\n' example compared result
printf '%-20s %-44s %s\n' ------- -------- ------
while IFS=$'\t' read -r example what result; do
  printf '%-20s %-44s %s\n' "$example" "$what" "$result"
done <"$report"
rm -f "$report"
exit "$status"

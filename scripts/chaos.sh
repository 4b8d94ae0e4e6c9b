#!/usr/bin/env bash
# Random kill -9 campaigns (tests/chaos/): on the embedded log, a count, a windowed count and a
# stream-stream join app killed with SIGKILL at random moments, each under exactly_once_v2 and
# at_least_once; on a local Kafka broker (scripts/kafka.sh, started and stopped here), two
# instances of a count app, one of them killed at a time. Each is then checked exactly (or for
# nothing lost). Prints each campaign's table: kill points by the phase the app was in, what was
# lost and what was written twice. scripts/test.sh runs the same campaigns with 12 kill points
# (embedded) and 3 (Kafka).
#
#   scripts/chaos.sh [--kills N] [--kafka-kills N] [--seed S]
#   scripts/chaos.sh --soak DURATION [--kill-every SECONDS] [--rate RECORDS_PER_SECOND]
#   scripts/chaos.sh --broker-faults
#   scripts/chaos.sh --network-faults [--faults N] [--seed S]
#
# Defaults: 1000 kill points per embedded campaign (about 10 minutes each), 100 per Kafka
# campaign (each kill point waits up to 8 s, and a killed instance's group its session timeout),
# seed 1; 0 skips that backend's campaigns. --soak runs tests/chaos/kafka_soak_test.cc instead:
# two instances of a count app on Kafka under exactly_once_v2, a steady input (default 5000
# records/s), one living throughout while the other is killed and restarted every 60 s;
# DURATION as 1800, 1800s, 30m or 1h. It prints each minute's peak resident memory and open
# descriptors per instance, and fails if the long-lived one's grew in the second half or a
# count is wrong. --broker-faults runs
# tests/chaos/kafka_broker_fault_test.cc on a three-node cluster it starts: each node killed
# and started again under a running exactly-once count app, then the whole cluster down for
# 30 s. --network-faults runs tests/chaos/kafka_network_fault_test.cc on a one-node cluster
# whose application clients go through the test's own TCP proxy: N (default 12) resets, delays
# and black holes at random moments under a running exactly-once count app, then a black hole
# that does not end. Builds what is missing in build-test (as
# scripts/test.sh configures it). Installs the missing apt packages first (scripts/lib/common.sh).
# Exits non-zero if a campaign lost or duplicated anything it must not, or failed.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

usage() {
  echo "usage: $0 [--kills N] [--kafka-kills N] [--seed S]" >&2
  echo "       $0 --soak DURATION [--kill-every SECONDS] [--rate RECORDS_PER_SECOND]" >&2
  echo "       $0 --broker-faults" >&2
  echo "       $0 --network-faults [--faults N] [--seed S]" >&2
  exit 2
}
kills=1000
kafka_kills=100
seed=1
soak_seconds=
broker_faults=false
network_faults=false
faults=12
kill_every=60
rate=5000
number() { [[ $# -ge 2 && "$2" =~ ^[0-9]+$ ]] || usage; }
while (($#)); do
  case "$1" in
    --kills) number "$@"; kills="$2"; shift 2 ;;
    --kafka-kills) number "$@"; kafka_kills="$2"; shift 2 ;;
    --seed) number "$@"; seed="$2"; shift 2 ;;
    --kill-every) number "$@"; kill_every="$2"; shift 2 ;;
    --rate) number "$@"; rate="$2"; shift 2 ;;
    --broker-faults) broker_faults=true; shift ;;
    --network-faults) network_faults=true; shift ;;
    --faults) number "$@"; faults="$2"; shift 2 ;;
    --soak)
      [[ $# -ge 2 && "$2" =~ ^([0-9]+)(s|m|h)?$ ]] || usage
      case "${BASH_REMATCH[2]}" in
        m) soak_seconds=$((BASH_REMATCH[1] * 60)) ;;
        h) soak_seconds=$((BASH_REMATCH[1] * 3600)) ;;
        *) soak_seconds="${BASH_REMATCH[1]}" ;;
      esac
      shift 2 ;;
    *) usage ;;
  esac
done

brook_install_deps
cd "$BROOK_ROOT"
brook_configure_tests >/dev/null
start_kafka() {  # start_kafka [--brokers N]
  trap '"$BROOK_ROOT/scripts/kafka.sh" stop || true' EXIT
  BROOK_KAFKA_BOOTSTRAP="$("$BROOK_ROOT/scripts/kafka.sh" start "$@" | tail -1)"
  export BROOK_KAFKA_BOOTSTRAP
}
if [[ -n "$soak_seconds" ]]; then
  cmake --build build-test --target brook_kafka_soak_test -j "$BROOK_JOBS"
  start_kafka
  BROOK_SOAK_SECONDS="$soak_seconds" BROOK_SOAK_KILL_SECONDS="$kill_every" \
    BROOK_SOAK_RATE="$rate" BROOK_LOG_LEVEL=warn build-test/tests/brook_kafka_soak_test
  exit
fi
if $broker_faults; then
  cmake --build build-test --target brook_kafka_broker_fault_test -j "$BROOK_JOBS"
  start_kafka --brokers 3
  BROOK_LOG_LEVEL=warn build-test/tests/brook_kafka_broker_fault_test
  exit
fi
if $network_faults; then
  cmake --build build-test --target brook_kafka_network_fault_test -j "$BROOK_JOBS"
  # The proxy listens on the broker port + 300 and forwards to its proxied listener (+ 200).
  kafka_port="${BROOK_KAFKA_PORT:-19092}"
  export BROOK_KAFKA_PROXIED_PORT=$((kafka_port + 300)) BROOK_KAFKA_PROXIED_TARGET=$((kafka_port + 200))
  start_kafka
  BROOK_NETWORK_FAULTS="$faults" BROOK_CHAOS_SEED="$seed" BROOK_LOG_LEVEL=warn \
    build-test/tests/brook_kafka_network_fault_test
  exit
fi
cmake --build build-test --target brook_chaos_tests -j "$BROOK_JOBS"
export BROOK_CHAOS_SEED="$seed"
if ((kills > 0)); then
  BROOK_CHAOS_KILLS="$kills" build-test/tests/brook_chaos_tests --gtest_filter='KillCampaignTest.*'
fi
if ((kafka_kills > 0)); then
  start_kafka
  BROOK_KAFKA_CHAOS_KILLS="$kafka_kills" build-test/tests/brook_chaos_tests \
    --gtest_filter='KafkaKillCampaignTest.*'
fi

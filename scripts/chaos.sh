#!/usr/bin/env bash
# Random kill -9 campaigns (tests/chaos/kill_campaign_test.cc): a count, a windowed count and a
# stream-stream join app killed with SIGKILL at random moments, each under exactly_once_v2 and
# at_least_once on the embedded log, then checked exactly (or for nothing lost). Prints each
# campaign's table: kill points by the phase the app was in, what was lost and what was written
# twice. scripts/test.sh runs the same campaigns with 12 kill points.
#
#   scripts/chaos.sh [--kills N] [--seed S]     defaults: 1000 kill points per campaign, seed 1
#
# Builds what is missing in build-test (as scripts/test.sh configures it). Installs the missing
# apt packages first (scripts/lib/common.sh). Exits non-zero if a campaign lost or duplicated
# anything it must not, or failed.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

usage() { echo "usage: $0 [--kills N] [--seed S]" >&2; exit 2; }
kills=1000
seed=1
while (($#)); do
  case "$1" in
    --kills) [[ $# -ge 2 && "$2" =~ ^[0-9]+$ ]] || usage; kills="$2"; shift 2 ;;
    --seed) [[ $# -ge 2 && "$2" =~ ^[0-9]+$ ]] || usage; seed="$2"; shift 2 ;;
    *) usage ;;
  esac
done

brook_install_deps
cd "$BROOK_ROOT"
brook_configure_tests >/dev/null
cmake --build build-test --target brook_chaos_tests crash_app -j "$BROOK_JOBS"
BROOK_CHAOS_KILLS="$kills" BROOK_CHAOS_SEED="$seed" build-test/tests/brook_chaos_tests

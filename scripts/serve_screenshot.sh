#!/usr/bin/env bash
# Takes docs/images/web_page.png: the web page of the book_sales example, two instances on a
# local Kafka broker (scripts/kafka.sh), in headless chromium.
#
#   scripts/serve_screenshot.sh [BUILD_DIR]     (default build-test, already built)
#
# Uses the broker at $BROOK_KAFKA_BOOTSTRAP if set, else starts one (and stops it at the end).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
brook_install_deps
cd "$BROOK_ROOT"
build="${1:-build-test}"
brook="$build/bin/brook"
app="$build/examples/book_sales/book_sales"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
  if [[ -n "${started_broker:-}" ]]; then scripts/kafka.sh stop || true; fi
}
trap cleanup EXIT
if [[ -z "${BROOK_KAFKA_BOOTSTRAP:-}" ]]; then
  BROOK_KAFKA_BOOTSTRAP="$(scripts/kafka.sh start | tail -1)"
  started_broker=1
fi
id="book-sales-screenshot-$$"
for topic in book-sales book-totals; do
  "$brook" topics delete "$topic" --bootstrap-servers "$BROOK_KAFKA_BOOTSTRAP" 2>/dev/null || true
done
"$brook" topics create book-sales --partitions 4 --bootstrap-servers "$BROOK_KAFKA_BOOTSTRAP"
"$brook" topics create book-totals --partitions 4 --config cleanup.policy=compact \
  --bootstrap-servers "$BROOK_KAFKA_BOOTSTRAP"
titles=("Dune" "Emma" "Ulysses" "Beloved" "Middlemarch" "Persuasion" "Solaris" "Kindred" "Hamlet")
for round in 1 2 3; do
  for i in "${!titles[@]}"; do
    printf '%s\t{"copies": %d, "price": %d.5}\n' "${titles[$i]}" $((round + i % 3)) $((8 + i))
  done
done | "$brook" produce book-sales --bootstrap-servers "$BROOK_KAFKA_BOOTSTRAP"
ports=(38401 38402)
for n in 0 1; do
  "$app" --bootstrap-servers "$BROOK_KAFKA_BOOTSTRAP" --application-id "$id" \
    --state-dir "$work/state-$n" --serve "127.0.0.1:${ports[$n]}" --threads 1 \
    --config commit.interval.ms=500 &
  pids+=($!)
done
# Both instances RUNNING, caught up, and each listing both.
for port in "${ports[@]}"; do
  for _ in $(seq 600); do
    if curl -sf "http://127.0.0.1:$port/health" | grep -q '"lag":0' &&
       [[ "$(curl -s "http://127.0.0.1:$port/v1/instances" | grep -o '"server"' | wc -l)" -ge 3 ]]; then
      break
    fi
    sleep 0.1
  done
done
mkdir -p docs/images
chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
  --user-data-dir="$work/chromium" --window-size=1280,1050 --virtual-time-budget=6000 \
  --screenshot="$BROOK_ROOT/docs/images/web_page.png" \
  "http://127.0.0.1:${ports[0]}/#store=book-totals&key=Solaris" 2>/dev/null
echo "wrote docs/images/web_page.png"

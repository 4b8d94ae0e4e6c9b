#!/usr/bin/env bash
# Runs a real Apache Kafka (3.9.1, KRaft mode, loopback only) for development and the
# Kafka tests, from the official jars that Maven resolves from Maven Central.
#
#   scripts/kafka.sh start [--brokers N]   starts 1 (default) or 3 nodes, waits until they
#                                          answer, prints the bootstrap address last, alone
#   scripts/kafka.sh stop                  stops every node and deletes the data
#   scripts/kafka.sh status                "running <address>" (exit 0) or "not running" (1)
#   scripts/kafka.sh kill-node N           SIGKILL to node N of the running cluster (its data
#                                          stays), for fault tests
#   scripts/kafka.sh start-node N [N...]   starts nodes again over their data, all at once (a
#                                          quorum of controllers needs most of them), waits
#                                          until each answers
#
#   bootstrap=$(scripts/kafka.sh start | tail -1)
#
# Each node is a combined broker + controller (node ids 1..N, a quorum of N voters).
# Broker ports: $BROOK_KAFKA_PORT (19092) and up; controller ports: 100 higher.
# With BROOK_KAFKA_PROXIED_PORT=P at start, node N also listens on its broker port + 200 and
# tells the clients that connect there to come back through 127.0.0.1:P+N-1, so that a proxy
# listening there (tests/chaos/tcp_proxy.h) carries all their traffic; clients of the broker
# port connect directly as before.
# Jars: tests/kafka/pom.xml, copied once into ${XDG_CACHE_HOME:-$HOME/.cache}/brook/kafka-3.9.1
# (again when the pom changes). Configs, data, logs, pid files: $BROOK_KAFKA_DIR
# ($BROOK_ROOT/build/kafka). Needs java, mvn and kcat (apt: openjdk-17-jdk-headless, maven,
# kcat). Progress and errors go to stderr; stdout carries the address only.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

KAFKA_VERSION=3.9.1
POM="$BROOK_ROOT/tests/kafka/pom.xml"
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/brook/kafka-$KAFKA_VERSION"
LIB_DIR="$CACHE_DIR/lib"
RUN_DIR="${BROOK_KAFKA_DIR:-$BROOK_ROOT/build/kafka}"
BASE_PORT="${BROOK_KAFKA_PORT:-19092}"
CONTROLLER_OFFSET=100
PROXIED_OFFSET=200
PROXIED_PORT="${BROOK_KAFKA_PROXIED_PORT:-}"
# Any valid Kafka UUID (base64 of 16 bytes: "brook-test-clust"); the data is fresh each start.
CLUSTER_ID=YnJvb2stdGVzdC1jbHVzdA
START_TIMEOUT=90
STOP_TIMEOUT=30

usage() { echo "usage: $0 start [--brokers N] | stop | status | kill-node N | start-node N [N...]" >&2; exit 2; }
log() { echo "kafka.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

broker_port() { echo $((BASE_PORT + $1 - 1)); }
controller_port() { echo $((BASE_PORT + CONTROLLER_OFFSET + $1 - 1)); }
proxied_listener_port() { echo $((BASE_PORT + PROXIED_OFFSET + $1 - 1)); }
node_dir() { echo "$RUN_DIR/node-$1"; }

# The number of nodes of the cluster in the run dir (0 if none was started).
node_count() { cat "$RUN_DIR/brokers" 2>/dev/null || echo 0; }

bootstrap_address() {
  local n="$1" i addrs=()
  for ((i = 1; i <= n; i++)); do addrs+=("127.0.0.1:$(broker_port "$i")"); done
  (IFS=,; echo "${addrs[*]}")
}

# True if node $1 has a live process: the pid of its pid file, not a zombie, running kafka.Kafka
# (or the launchers before it: setsid and nohup name it too). Its command line reads empty
# while one of them execs the next, which on a busy machine the first check can meet: then the
# process's name tells (a kernel thread that took the pid has an empty command line too).
node_alive() {
  local pid state command
  pid="$(cat "$(node_dir "$1")/pid" 2>/dev/null)" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  state="$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null)" || return 1
  [[ -n "$state" && "${state:0:1}" != Z ]] || return 1
  command="$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")"
  [[ "$command" == *" kafka.Kafka "* ]] && return 0
  [[ -z "$command" && "$(cat "/proc/$pid/comm" 2>/dev/null)" =~ ^(setsid|nohup|java)$ ]]
}

all_alive() {
  local n i
  n="$(node_count)"
  ((n > 0)) || return 1
  for ((i = 1; i <= n; i++)); do node_alive "$i" || return 1; done
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

require() {  # require <command> <Debian package>
  command -v "$1" >/dev/null || die "$1 not found; install the Debian package $2 (apt-get install $2)"
}

# Copies the jars of tests/kafka/pom.xml into $LIB_DIR, unless there already from this pom.
resolve_jars() {
  local sum
  sum="$(sha256sum "$POM" | cut -d' ' -f1)"
  if [[ -d "$LIB_DIR" && "$(cat "$CACHE_DIR/pom.sha256" 2>/dev/null)" == "$sum" ]]; then return 0; fi
  require mvn maven
  log "resolving Kafka $KAFKA_VERSION with Maven into $LIB_DIR"
  mkdir -p "$CACHE_DIR"
  local tmp="$CACHE_DIR/lib.tmp.$$"
  rm -rf "$tmp"
  mvn -q -B -f "$POM" dependency:copy-dependencies -DoutputDirectory="$tmp" >"$CACHE_DIR/mvn.log" 2>&1 ||
    { cat "$CACHE_DIR/mvn.log" >&2; rm -rf "$tmp"; die "mvn could not resolve $POM"; }
  rm -rf "$LIB_DIR"
  mv "$tmp" "$LIB_DIR"
  echo "$sum" >"$CACHE_DIR/pom.sha256"
}

write_log4j_config() {
  cat >"$RUN_DIR/log4j.properties" <<'EOF'
# Everything to stdout, which scripts/kafka.sh sends to node-N/server.log.
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.org.apache.kafka.clients=WARN
EOF
}

# write_node_config <node id> <node count>: node-N/server.properties.
write_node_config() {
  local id="$1" n="$2" dir voters="" i
  dir="$(node_dir "$id")"
  for ((i = 1; i <= n; i++)); do voters+="${voters:+,}$i@127.0.0.1:$(controller_port "$i")"; done
  local replicas=$n min_isr=$((n > 1 ? 2 : 1))
  local listeners="PLAINTEXT://127.0.0.1:$(broker_port "$id"),CONTROLLER://127.0.0.1:$(controller_port "$id")"
  local advertised="PLAINTEXT://127.0.0.1:$(broker_port "$id")"
  local protocols="PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
  if [[ -n "$PROXIED_PORT" ]]; then
    listeners+=",PROXIED://127.0.0.1:$(proxied_listener_port "$id")"
    advertised+=",PROXIED://127.0.0.1:$((PROXIED_PORT + id - 1))"
    protocols+=",PROXIED:PLAINTEXT"
  fi
  mkdir -p "$dir"
  cat >"$dir/server.properties" <<EOF
# Written by scripts/kafka.sh: node $id of $n, combined broker + controller, loopback only.
process.roles=broker,controller
node.id=$id
controller.quorum.voters=$voters
listeners=$listeners
advertised.listeners=$advertised
listener.security.protocol.map=$protocols
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data

# For tests: topics are created explicitly, replication follows the cluster size.
auto.create.topics.enable=false
num.partitions=1
default.replication.factor=$replicas
min.insync.replicas=$min_isr
offsets.topic.replication.factor=$replicas
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=$replicas
transaction.state.log.min.isr=$min_isr
transaction.state.log.num.partitions=4
group.initial.rebalance.delay.ms=0
transaction.abort.timed.out.transaction.cleanup.interval.ms=1000
transaction.remove.expired.transaction.cleanup.interval.ms=10000
log.cleaner.backoff.ms=1000
log.retention.check.interval.ms=5000
EOF
}

# Formats node $1's storage and starts it (run_node).
launch_node() {
  local id="$1" dir
  dir="$(node_dir "$id")"
  java -cp "$LIB_DIR/*" -Dlog4j.configuration="file:$RUN_DIR/log4j.properties" \
    kafka.tools.StorageTool format -t "$CLUSTER_ID" -c "$dir/server.properties" >"$dir/format.log" 2>&1 ||
    { cat "$dir/format.log" >&2; die "formatting the storage of node $id failed"; }
  run_node "$id"
}

# Starts node $1 over its storage in the background (its own session, so it outlives this
# script), writing node-N/pid and appending to node-N/server.log.
run_node() {
  local id="$1" dir
  dir="$(node_dir "$id")"
  setsid nohup java -Xmx512m -Xms128m -cp "$LIB_DIR/*" \
    -Dlog4j.configuration="file:$RUN_DIR/log4j.properties" \
    kafka.Kafka "$dir/server.properties" >>"$dir/server.log" 2>&1 </dev/null &
  echo $! >"$dir/pid"
}

# fail_start <node id> <reason>: shows the tail of the node's log, stops everything, fails.
fail_start() {
  log "error: node $1 $2; the end of $(node_dir "$1")/server.log:"
  tail -n 40 "$(node_dir "$1")/server.log" >&2 || true
  stop_nodes
  exit 1
}

# Waits until every node logged "Kafka Server started" and takes connections, then until
# kcat sees all the brokers in the metadata.
wait_ready() {
  local n="$1" deadline=$((SECONDS + START_TIMEOUT)) i
  for ((i = 1; i <= n; i++)); do
    until grep -q "Kafka Server started" "$(node_dir "$i")/server.log" 2>/dev/null &&
      port_open "$(broker_port "$i")"; do
      node_alive "$i" || fail_start "$i" "exited while starting"
      ((SECONDS < deadline)) || fail_start "$i" "did not start within ${START_TIMEOUT} s"
      sleep 0.5
    done
  done
  until kcat -b "$(bootstrap_address "$n")" -L -m 5 2>/dev/null | grep -q "^ $n brokers:"; do
    ((SECONDS < deadline)) || fail_start 1 "started, but kcat did not see $n brokers within ${START_TIMEOUT} s"
    sleep 0.5
  done
}

start() {
  local n="$1"
  if all_alive; then
    (($(node_count) == n)) || die "a $(node_count)-node cluster is running; run $0 stop first"
    bootstrap_address "$n"
    return 0
  fi
  require java openjdk-17-jdk-headless
  require kcat kcat
  resolve_jars
  stop_nodes  # leftovers of a crashed or partial run
  rm -rf "$RUN_DIR"/node-*
  local i
  local port
  for ((i = 1; i <= n; i++)); do
    for port in "$(broker_port "$i")" "$(controller_port "$i")" \
      ${PROXIED_PORT:+"$(proxied_listener_port "$i")"}; do
      if port_open "$port"; then die "port $port is in use (set BROOK_KAFKA_PORT to move)"; fi
    done
  done
  mkdir -p "$RUN_DIR"
  echo "$n" >"$RUN_DIR/brokers"
  write_log4j_config
  for ((i = 1; i <= n; i++)); do write_node_config "$i" "$n"; done
  log "starting $n node(s), logs in $RUN_DIR/node-*/server.log"
  for ((i = 1; i <= n; i++)); do launch_node "$i"; done
  wait_ready "$n"
  bootstrap_address "$n"
}

# SIGTERM to every node, SIGKILL to those still running after $STOP_TIMEOUT s; then deletes
# the nodes' data (configs and logs stay until the next start).
stop_nodes() {
  local n i pids=() pid deadline
  n="$(node_count)"
  for ((i = 1; i <= n; i++)); do
    if node_alive "$i"; then pids+=("$(cat "$(node_dir "$i")/pid")"); fi
  done
  if ((${#pids[@]})); then
    log "stopping ${#pids[@]} node(s)"
    kill -TERM "${pids[@]}" 2>/dev/null || true
    deadline=$((SECONDS + STOP_TIMEOUT))
    for pid in "${pids[@]}"; do
      while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
      if kill -0 "$pid" 2>/dev/null; then
        log "node pid $pid still running after ${STOP_TIMEOUT} s: SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
      fi
    done
  fi
  rm -f "$RUN_DIR"/node-*/pid "$RUN_DIR/brokers"
  rm -rf "$RUN_DIR"/node-*/data
}

# The node number $1, checked against the running cluster.
existing_node() {
  [[ "$1" =~ ^[1-9]$ ]] && (($1 <= $(node_count))) || die "no node $1 (the cluster has $(node_count))"
}

kill_node() {
  existing_node "$1"
  node_alive "$1" || die "node $1 is not running"
  kill -KILL "$(cat "$(node_dir "$1")/pid")"
  while node_alive "$1"; do sleep 0.1; done
  log "node $1 killed"
}

start_nodes() {  # start_nodes N [N...]
  local id deadline=$((SECONDS + START_TIMEOUT))
  local -A marker
  for id in "$@"; do
    existing_node "$id"
    node_alive "$id" && die "node $id is running"
    marker[$id]="$(wc -l <"$(node_dir "$id")/server.log")"  # its earlier runs logged "started" too
  done
  for id in "$@"; do run_node "$id"; done
  for id in "$@"; do
    until tail -n +"$((marker[$id] + 1))" "$(node_dir "$id")/server.log" | grep -q "Kafka Server started" &&
      port_open "$(broker_port "$id")"; do
      node_alive "$id" || die "node $id exited while starting; see $(node_dir "$id")/server.log"
      ((SECONDS < deadline)) || die "node $id did not start within ${START_TIMEOUT} s"
      sleep 0.5
    done
    log "node $id started again"
  done
}

status() {
  if all_alive; then
    echo "running $(bootstrap_address "$(node_count)")"
  else
    echo "not running"
    return 1
  fi
}

cmd="${1:-}"
(($#)) && shift
if [[ "$cmd" == kill-node ]]; then
  (($# == 1)) || usage
  kill_node "$1"
  exit
fi
if [[ "$cmd" == start-node ]]; then
  (($# >= 1)) || usage
  start_nodes "$@"
  exit
fi
brokers=1
while (($#)); do
  case "$1" in
    --brokers) (($# >= 2)) || usage; brokers="$2"; shift 2 ;;
    *) usage ;;
  esac
done
[[ "$brokers" =~ ^[1-9]$ ]] || die "--brokers takes a number from 1 to 9, not '$brokers'"

case "$cmd" in
  start) start "$brokers" ;;
  stop) stop_nodes ;;
  status) status ;;
  *) usage ;;
esac

#!/usr/bin/env bash
# Runs a real PostgreSQL 15 server (Debian's postgresql-15) for development and the CDC tests:
# a fresh cluster on 127.0.0.1:$BROOK_POSTGRES_PORT (default 15432) with wal_level=logical.
#
#   scripts/postgres.sh start     initdb + start, waits until it answers, prints the libpq
#                                 connection string last, alone
#   scripts/postgres.sh restart   stops (fast) and starts the same cluster, keeping its data,
#                                 prints the connection string last (the CDC tests run it)
#   scripts/postgres.sh stop      stops the server and deletes the data
#   scripts/postgres.sh status    "running <dsn>" (exit 0) or "not running" (1)
#
#   dsn=$(scripts/postgres.sh start | tail -1)
#     -> host=127.0.0.1 port=15432 user=brook password=brook dbname=postgres
#
# The superuser is `brook` (password `brook`), scram-sha-256 over TCP and the socket, logical
# and physical replication connections included; at most 20 walsenders and 20 slots.
# `start` on a running server prints its connection string and changes nothing.
# Data, socket, logs: $BROOK_POSTGRES_DIR ($BROOK_ROOT/build/postgres); `stop` deletes the
# data, the logs stay until the next start. restart/stop/status find the server by the same
# two variables, so give them the values `start` had.
#
# PostgreSQL refuses to run as root: as root the server runs as the `postgres` user (which the
# Debian package creates), owning the run dir. If that user cannot reach the default run dir
# (a parent directory it may not traverse), the run dir is /tmp/brook-postgres-$PORT instead.
#
# fsync is off (and full_page_writes): a test server trades durability against an OS crash or
# power cut for speed. A restart, even `pg_ctl stop -m immediate`, loses no committed
# transaction: the kernel still holds every write. Commits stay synchronous, so a walsender
# sees a commit at once (logical decoding reads only flushed WAL).
# Needs the Debian packages postgresql-15 and libpq-dev (the tests' client library).
# Progress and errors go to stderr; stdout carries the connection string only.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

BIN_DIR=/usr/lib/postgresql/15/bin
PORT="${BROOK_POSTGRES_PORT:-15432}"
START_TIMEOUT=60
STOP_TIMEOUT=30
DSN="host=127.0.0.1 port=$PORT user=brook password=brook dbname=postgres"

usage() { echo "usage: $0 start | restart | stop | status" >&2; exit 2; }
log() { echo "postgres.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

[[ "$PORT" =~ ^[1-9][0-9]{0,4}$ ]] && ((PORT < 65536)) || die "BROOK_POSTGRES_PORT is not a port: '$PORT'"

# Runs a command as the server's user: `postgres` when this script runs as root (from /, a
# directory it may read, so that the tools' getcwd() works).
as_owner() {
  if ((EUID == 0)); then (cd / && exec runuser -u postgres -- "$@"); else "$@"; fi
}

# The run dir: $BROOK_POSTGRES_DIR if set (absolute), else build/postgres if the server's user
# can reach it, else /tmp/brook-postgres-$PORT.
run_dir() {
  if [[ -n "${BROOK_POSTGRES_DIR:-}" ]]; then
    realpath -m "$BROOK_POSTGRES_DIR"
    return 0
  fi
  local parent="$BROOK_ROOT/build"
  [[ -d "$parent" ]] || parent="$BROOK_ROOT"  # start creates build/ (mode 755)
  if ((EUID != 0)) || { id postgres >/dev/null 2>&1 && as_owner test -x "$parent"; }; then
    echo "$BROOK_ROOT/build/postgres"
  else
    echo "/tmp/brook-postgres-$PORT"
  fi
}
RUN_DIR="$(run_dir)"
DATA_DIR="$RUN_DIR/data"

require_server() {
  [[ -x "$BIN_DIR/pg_ctl" && -x "$BIN_DIR/initdb" && -x "$BIN_DIR/pg_isready" ]] ||
    die "PostgreSQL 15 not found in $BIN_DIR; install the Debian packages postgresql-15 and libpq-dev (apt-get install postgresql-15 libpq-dev)"
  if ((EUID == 0)); then
    id postgres >/dev/null 2>&1 ||
      die "running as root and there is no user postgres to run the server as (the Debian package postgresql-15 creates it)"
  fi
}

# True if the cluster in $DATA_DIR has a live postmaster.
running() {
  [[ -f "$DATA_DIR/postmaster.pid" && -x "$BIN_DIR/pg_ctl" ]] &&
    as_owner "$BIN_DIR/pg_ctl" status -D "$DATA_DIR" >/dev/null 2>&1
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Starts the cluster in $DATA_DIR and waits until it takes connections: pg_ctl -w waits for
# the postmaster, then a real login (psql, the DSN's password) proves the server answers.
launch() {
  as_owner "$BIN_DIR/pg_ctl" start -D "$DATA_DIR" -l "$RUN_DIR/server.log" -w -t "$START_TIMEOUT" \
    >/dev/null || fail_start "did not start within ${START_TIMEOUT} s"
  local deadline=$((SECONDS + START_TIMEOUT))
  until "$BIN_DIR/psql" -X -q -A -t -c 'SELECT 1' "$DSN" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail_start "took no login within ${START_TIMEOUT} s"
    sleep 0.2
  done
}

# fail_start <reason>: shows the end of the server's log, stops it, fails.
fail_start() {
  log "error: the server $1; the end of $RUN_DIR/server.log:"
  tail -n 30 "$RUN_DIR/server.log" >&2 || true
  stop_server
  exit 1
}

start() {
  if running; then echo "$DSN"; return 0; fi
  require_server
  stop_server  # leftovers of a crashed or partial run
  if port_open "$PORT"; then die "port $PORT is in use (set BROOK_POSTGRES_PORT to move)"; fi
  # The socket's path (<run dir>/.s.PGSQL.<port>) must fit in sun_path (108 bytes).
  ((${#RUN_DIR} <= 80)) || die "the run dir $RUN_DIR is too long for a socket path (set BROOK_POSTGRES_DIR)"
  rm -rf "$RUN_DIR"
  mkdir -p "$RUN_DIR"
  if ((EUID == 0)); then chown postgres: "$RUN_DIR"; fi
  as_owner test -w "$RUN_DIR" ||
    die "the server's user cannot write to $RUN_DIR (a parent it may not traverse? set BROOK_POSTGRES_DIR)"
  local password_file="$RUN_DIR/password"
  as_owner sh -c 'echo brook >"$1"' sh "$password_file"
  log "initdb in $DATA_DIR"
  as_owner "$BIN_DIR/initdb" -D "$DATA_DIR" -U brook --pwfile="$password_file" \
    --auth-local=scram-sha-256 --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 \
    >"$RUN_DIR/initdb.log" 2>&1 || { cat "$RUN_DIR/initdb.log" >&2; die "initdb failed"; }
  rm -f "$password_file"
  as_owner sh -c 'cat >>"$1"' sh "$DATA_DIR/postgresql.conf" <<EOF

# Written by scripts/postgres.sh: loopback only, logical replication for the CDC source.
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$RUN_DIR'
wal_level = logical
max_wal_senders = 20
max_replication_slots = 20
# A test server: no fsync (see scripts/postgres.sh); commits stay synchronous.
fsync = off
full_page_writes = off
EOF
  as_owner sh -c 'cat >"$1"' sh "$DATA_DIR/pg_hba.conf" <<'EOF'
# Written by scripts/postgres.sh: passwords (scram-sha-256) everywhere, loopback only.
# TYPE  DATABASE     USER  ADDRESS       METHOD
local   all          all                 scram-sha-256
host    all          all   127.0.0.1/32  scram-sha-256
# Logical replication connections (replication=database) match the lines above; physical
# ones (pg_basebackup, pg_receivewal) need this one.
local   replication  all                 scram-sha-256
host    replication  all   127.0.0.1/32  scram-sha-256
EOF
  log "starting on 127.0.0.1:$PORT, log in $RUN_DIR/server.log"
  launch
  echo "$DSN"
}

restart() {
  running || die "no server is running in $DATA_DIR (run $0 start)"
  log "restarting the server in $DATA_DIR"
  if ! as_owner "$BIN_DIR/pg_ctl" stop -D "$DATA_DIR" -m fast -w -t "$STOP_TIMEOUT" >/dev/null; then
    log "the server did not stop within ${STOP_TIMEOUT} s: stopping it immediately (WAL recovery)"
    as_owner "$BIN_DIR/pg_ctl" stop -D "$DATA_DIR" -m immediate -w -t "$STOP_TIMEOUT" >/dev/null ||
      die "the server did not stop"
  fi
  launch
  echo "$DSN"
}

# Stops the server: fast (sessions are ended, a shutdown checkpoint), then immediate, then
# SIGKILL to the postmaster, each if the one before did not stop it within $STOP_TIMEOUT s.
stop_server() {
  [[ -f "$DATA_DIR/postmaster.pid" ]] || return 0
  log "stopping the server in $DATA_DIR"
  as_owner "$BIN_DIR/pg_ctl" stop -D "$DATA_DIR" -m fast -w -t "$STOP_TIMEOUT" >/dev/null 2>&1 ||
    as_owner "$BIN_DIR/pg_ctl" stop -D "$DATA_DIR" -m immediate -w -t "$STOP_TIMEOUT" >/dev/null 2>&1 ||
    true
  local pid
  pid="$(head -n 1 "$DATA_DIR/postmaster.pid" 2>/dev/null)" || return 0
  # Only this cluster's postmaster: pg_ctl started it as `.../postgres -D <data dir>`.
  if [[ "$pid" =~ ^[0-9]+$ && "$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")" == *"/postgres -D $DATA_DIR "* ]]; then
    log "postmaster pid $pid still running: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$DATA_DIR/postmaster.pid"
}

status() {
  if running; then
    echo "running $DSN"
  else
    echo "not running"
    return 1
  fi
}

(($# == 1)) || usage
case "$1" in
  start) start ;;
  restart) restart ;;
  stop) stop_server; rm -rf "$DATA_DIR" ;;
  status) status ;;
  *) usage ;;
esac

#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server for the tests and benchmarks: a new cluster in a temporary
# folder, listening on a Unix socket in that folder and on 127.0.0.1 (a free port) only, with
# trust authentication for the `postgres` role (a superuser: tests create a database each), a
# database `shelf_test` with the extensions the catalogue store needs (unaccent, pg_trgm;
# other databases get them from shelf, which creates them on first use). Run as root, the
# server runs as the `postgres` user (PostgreSQL refuses root); otherwise as the calling user.
#
#   test-postgres.sh run COMMAND [ARG…]   start a server, run COMMAND with
#                                         SHELF_TEST_POSTGRES_URL set, stop it (also when
#                                         COMMAND fails or the script is interrupted)
#   test-postgres.sh start [--durable] [--owner PID]
#                                         start a server; prints its folder (the URL is in
#                                         FOLDER/url); --durable keeps fsync on (benchmarks)
#   test-postgres.sh stop FOLDER          stop that server and remove its folder
#
# A server started with `start` also stops when its owner (the process PID, by default the
# script's parent) ends, even by SIGKILL: a watcher outside the caller's process group waits
# for it.
set -euo pipefail

bin=/usr/lib/postgresql/15/bin
database=shelf_test
# Marks a folder as one of ours, so `stop` never removes anything else.
marker=shelf-test-postgres

fail() {
  echo "test-postgres.sh: $*" >&2
  exit 1
}

# Runs a server binary as the user the server runs as.
as_server_user() {
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# A TCP port nobody listens on now (another process may take it before the server binds it:
# `start` retries on that).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Stops the server in $1 (if running) and removes the folder.
stop_server() {
  local folder=$1
  [[ -f "$folder/$marker" ]] || fail "$folder: not a folder made by test-postgres.sh"
  if [[ -f "$folder/data/postmaster.pid" ]]; then
    # Immediate: the cluster is thrown away, so there is nothing to flush.
    (cd "$folder" && as_server_user "$bin/pg_ctl" -D "$folder/data" -m immediate -w stop >/dev/null 2>&1) || true
  fi
  rm -rf -- "$folder"
}

start_server() {
  local durable=$1 owner=$2
  [[ -x "$bin/initdb" ]] || fail "$bin/initdb not found: install Debian's postgresql-15 (scripts/setup.sh)"
  local folder
  folder=$(mktemp -d "${TMPDIR:-/tmp}/shelf-pg.XXXXXX")
  touch "$folder/$marker"
  if [[ $(id -u) -eq 0 ]]; then chown postgres: "$folder"; fi
  # From here on, a failure removes the half-made server: a failed command through the ERR
  # trap, a reported one through `abandon`.
  trap 'stop_server "$folder"' ERR
  abandon() {
    stop_server "$folder"
    fail "$@"
  }

  (cd "$folder" && as_server_user "$bin/initdb" -D "$folder/data" -U postgres -A trust \
    -E UTF8 --locale=C.UTF-8 --no-sync >"$folder/initdb.log" 2>&1) \
    || abandon "initdb failed: $(tail -n 5 "$folder/initdb.log")"

  local settings="-c listen_addresses=127.0.0.1 -k $folder -c shared_buffers=64MB"
  if [[ "$durable" == no ]]; then
    settings+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  fi
  local port attempt started=no
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    if (cd "$folder" && as_server_user "$bin/pg_ctl" -D "$folder/data" -l "$folder/server.log" \
      -o "$settings -p $port" -w -t 60 start >/dev/null 2>&1); then
      started=yes
      break
    fi
    # Only a port someone else took in the meantime is worth another try.
    grep -q "could not bind" "$folder/server.log" 2>/dev/null || break
  done
  [[ "$started" == yes ]] || abandon "the server did not start: $(tail -n 5 "$folder/server.log")"

  local psql=("$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$folder" -p "$port" -U postgres)
  "${psql[@]}" -d postgres -c "CREATE DATABASE $database" >/dev/null
  "${psql[@]}" -d "$database" -c "CREATE EXTENSION unaccent; CREATE EXTENSION pg_trgm" >/dev/null
  echo "postgresql://postgres@127.0.0.1:$port/$database" >"$folder/url"
  trap - ERR

  # The watcher: when the owner ends without calling `stop` (killed), it stops the server.
  # setsid keeps it out of the caller's process group (a Ctrl-C there does not reach it), and
  # its output goes nowhere, so it holds no pipe of the caller's open.
  if [[ -n "$owner" ]]; then
    setsid bash -c 'tail --pid="$1" -f /dev/null; [[ -d "$2" ]] && exec bash "$3" stop "$2"' \
      watcher "$owner" "$folder" "$(realpath "$0")" </dev/null >/dev/null 2>&1 &
  fi
  echo "$folder"
}

command=${1:-}
shift || true
case "$command" in
  start)
    durable=no owner=$PPID
    while [[ $# -gt 0 ]]; do
      case "$1" in
        --durable) durable=yes ;;
        --owner) owner=${2:?--owner needs a process id}; shift ;;
        *) fail "start: unknown option $1" ;;
      esac
      shift
    done
    start_server "$durable" "$owner"
    ;;
  stop)
    [[ $# -eq 1 ]] || fail "usage: test-postgres.sh stop FOLDER"
    stop_server "$1"
    ;;
  run)
    [[ $# -ge 1 ]] || fail "usage: test-postgres.sh run COMMAND [ARG…]"
    folder=$(start_server no "$$")
    trap 'stop_server "$folder"' EXIT
    SHELF_TEST_POSTGRES_URL=$(cat "$folder/url")
    export SHELF_TEST_POSTGRES_URL
    # COMMAND runs in the background so that a signal to this script alone (not to its
    # process group) is handled at once: it is passed on to COMMAND, and once COMMAND has
    # ended the script exits with the signal's status, which runs the EXIT trap above. The
    # subshell restores the SIGINT and SIGQUIT that bash ignores in background commands, and
    # hands COMMAND this script's standard input (fd 3), which bash would replace by /dev/null.
    exec 3<&0
    (
      trap - INT QUIT
      exec "$@" <&3 3<&-
    ) &
    command_pid=$!
    exec 3<&-
    stop_command() {
      kill -s "$1" "$command_pid" 2>/dev/null || true
      wait "$command_pid" || true
      exit "$2"
    }
    trap 'stop_command INT 130' INT
    trap 'stop_command TERM 143' TERM
    trap 'stop_command HUP 129' HUP
    status=0
    wait "$command_pid" || status=$?
    exit "$status"
    ;;
  *)
    fail "usage: test-postgres.sh run COMMAND [ARG…] | start [--durable] [--owner PID] | stop FOLDER"
    ;;
esac

#!/usr/bin/env bash
# Starts a throw-away PostgreSQL + PostGIS on loopback for the test suite (idempotent) and prints
# the connection URL. Data lives in ${CITYTWIN_PG_DIR:-/tmp/citytwin-pg}; port ${CITYTWIN_PG_PORT:-55432}.
# max_connections 300: the suites run in parallel, each server, worker and store with a pool of its
# own; at PostgreSQL's default 100 a test run was refused connections ("too many clients") hundreds
# of times, each refusal a retry with back-off in postgres-nio.
#   Scripts/postgis.sh start   -> prints postgresql://citytwin:citytwin@127.0.0.1:PORT/citytwin
#   Scripts/postgis.sh stop [fast|immediate]   (immediate: no shutdown checkpoint, like a crash;
#                                               the outage tests use both)
#   Scripts/postgis.sh restart [fast|immediate]  (pg_ctl restart; returns once it accepts connections)
set -euo pipefail
dir=${CITYTWIN_PG_DIR:-/tmp/citytwin-pg}
port=${CITYTWIN_PG_PORT:-55432}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
as_pg() { if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "${1:-start}" in
start)
  if [[ ! -f $dir/PG_VERSION ]]; then
    mkdir -p "$dir"
    [[ $(id -u) -eq 0 ]] && chown postgres:postgres "$dir"
    as_pg "$bin/initdb" -D "$dir" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
  fi
  if ! as_pg "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
    as_pg "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w \
      -o "-p $port -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 ${CITYTWIN_PG_OPTIONS:-}" \
      start >/dev/null
  fi
  psql() { PGOPTIONS="-c client_min_messages=warning" "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
  if [[ -z $(psql -d postgres -c "SELECT 1 FROM pg_roles WHERE rolname='citytwin'") ]]; then
    psql -d postgres -c "CREATE ROLE citytwin LOGIN SUPERUSER PASSWORD 'citytwin'"
  fi
  if [[ -z $(psql -d postgres -c "SELECT 1 FROM pg_database WHERE datname='citytwin'") ]]; then
    psql -d postgres -c "CREATE DATABASE citytwin OWNER citytwin"
  fi
  psql -d citytwin -c "CREATE EXTENSION IF NOT EXISTS postgis" >/dev/null
  echo "postgresql://citytwin:citytwin@127.0.0.1:$port/citytwin"
  ;;
stop)
  mode=${2:-fast}
  [[ $mode == fast || $mode == immediate ]] || { echo "usage: $0 stop [fast|immediate]" >&2; exit 2; }
  as_pg "$bin/pg_ctl" -D "$dir" -m "$mode" stop >/dev/null 2>&1 || true
  ;;
restart)
  mode=${2:-fast}
  [[ $mode == fast || $mode == immediate ]] || { echo "usage: $0 restart [fast|immediate]" >&2; exit 2; }
  as_pg "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -m "$mode" -w restart >/dev/null
  ;;
*) echo "usage: $0 start|stop|restart [fast|immediate]" >&2; exit 2 ;;
esac

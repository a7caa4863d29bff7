#!/usr/bin/env bash
# A city deployment on one machine (issue 21): PostgreSQL + PostGIS, two stateless `citytwin serve`
# instances and two `citytwin worker`s on it, and nginx (Debian's) in front as the load balancer.
# Everything lives under one run directory (data, logs, pid files, nginx config); `start` is safe to
# repeat (what runs already is left alone) and `stop` ends only what the run directory's pid files name.
#
#   Scripts/cluster.sh start    -> prints the balancer's URL; `$CITYTWIN_CLUSTER_DIR/cluster.env` says the rest
#   Scripts/cluster.sh stop     (SIGTERM to servers and workers, nginx quits, PostgreSQL stops fast)
#   Scripts/cluster.sh status   (one line per part: running or stopped)
#
# Settings (environment):
#   CITYTWIN_CLUSTER_DIR    run directory                        (default /tmp/citytwin-cluster)
#   CITYTWIN_CLUSTER_PORT   nginx's port; the servers listen on PORT+1 and PORT+2, PostgreSQL on PORT+3
#                                                                 (default 8090)
#   CITYTWIN_PG_PORT        PostgreSQL's port instead of PORT+3
#   CITYTWIN_CLUSTER_LEASE  seconds a silent worker keeps its job before the other takes it over (default 30)
#   CITYTWIN_CLUSTER_GRACE  --shutdown-grace of servers and workers, seconds (default 8)
#   CITYTWIN_BIN            the citytwin binary (default: `swift build --show-bin-path`/citytwin, built if missing)
#   CITYTWIN_TOKEN_SECRET   the token secret all instances share (default: one made once, kept in the run directory)
#   CITYTWIN_CLUSTER_SERVERS  how many `serve` behind nginx, 1 or 2 (default 2; 1 to measure one server behind the same balancer)
#   CITYTWIN_CLUSTER_SERVE_ARGS  more `serve` options, e.g. "--address-rate 0 --token-rate 0" for a load test
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
run=${CITYTWIN_CLUSTER_DIR:-/tmp/citytwin-cluster}
port=${CITYTWIN_CLUSTER_PORT:-8090}
pg_port=${CITYTWIN_PG_PORT:-$((port + 3))}
lease=${CITYTWIN_CLUSTER_LEASE:-30}
grace=${CITYTWIN_CLUSTER_GRACE:-8}
servers=(a b)
case ${CITYTWIN_CLUSTER_SERVERS:-2} in
1) servers=(a) ;;
2) ;;
*) echo "cluster: CITYTWIN_CLUSTER_SERVERS must be 1 or 2, got '${CITYTWIN_CLUSTER_SERVERS}'" >&2; exit 2 ;;
esac
read -r -a serve_args <<<"${CITYTWIN_CLUSTER_SERVE_ARGS:-}"
workers=(1 2)

fail() { echo "cluster: $*" >&2; exit 1; }

# Whether the pid file names a live process.
# Running: the pid answers and is not a zombie (an exited part whose parent has not reaped it yet is down).
alive() {
  [[ -f $1 ]] || return 1
  local pid state
  pid=$(cat "$1")
  kill -0 "$pid" 2>/dev/null || return 1
  state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)
  [[ $state != Z ]]
}

# SIGTERM to the process of a pid file, SIGKILL after the grace period plus a margin.
end() {
  local file=$1
  alive "$file" || { rm -f "$file"; return 0; }
  local pid i; pid=$(cat "$file")
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < (grace + 5) * 10; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  rm -f "$file"
}

# Waits until a URL answers 200 (up to 60 s).
await_health() {
  local i
  for ((i = 0; i < 600; i++)); do
    [[ $(curl -s --noproxy '*' -o /dev/null -w '%{http_code}' -m 2 "$1" || true) == 200 ]] && return 0
    sleep 0.1
  done
  return 1
}

binary() {
  if [[ -n ${CITYTWIN_BIN:-} ]]; then echo "$CITYTWIN_BIN"; return; fi
  export PATH=/opt/swift/usr/bin:$PATH
  local bin; bin=$(swift build --show-bin-path)/citytwin
  [[ -x $bin ]] || swift build --product citytwin >&2
  echo "$bin"
}

start() {
  command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || fail "nginx is missing: Scripts/setup.sh --test installs it (nginx-light)"
  local nginx; nginx=$(command -v nginx || echo /usr/sbin/nginx)
  local citytwin; citytwin=$(binary)
  [[ -x $citytwin ]] || fail "no citytwin binary at $citytwin"
  mkdir -p "$run"/{logs,pids,nginx/temp}
  chmod 0777 "$run/nginx/temp"  # nginx's workers (nobody when started as root) buffer bodies there

  local url
  url=$(CITYTWIN_PG_DIR=$run/pg CITYTWIN_PG_PORT=$pg_port Scripts/postgis.sh start | tail -1)
  [[ $url == postgresql://* ]] || fail "Scripts/postgis.sh start printed '$url'"

  if [[ -z ${CITYTWIN_TOKEN_SECRET:-} ]]; then
    [[ -s $run/token-secret ]] || (umask 077; head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$run/token-secret")
    CITYTWIN_TOKEN_SECRET=$(cat "$run/token-secret")
  fi
  export CITYTWIN_TOKEN_SECRET

  # The servers one after the other: the first creates the schema and the layers, the second finds them.
  local n=1 s p
  for s in "${servers[@]}"; do
    p=$((port + n)); n=$((n + 1))
    if ! alive "$run/pids/serve-$s"; then
      nohup "$citytwin" serve --store "$url" --host 127.0.0.1 --port "$p" --layers "$repo/Layers" \
        --base-url "http://127.0.0.1:$port" --log-level warning --shutdown-grace "$grace" --trust-forwarded-for ${serve_args[@]+"${serve_args[@]}"} \
        >>"$run/logs/serve-$s.log" 2>&1 </dev/null &
      echo $! >"$run/pids/serve-$s"
    fi
    await_health "http://127.0.0.1:$p/health" || fail "serve-$s does not answer on :$p (see $run/logs/serve-$s.log)"
  done

  for w in "${workers[@]}"; do
    alive "$run/pids/worker-$w" && continue
    nohup "$citytwin" worker --store "$url" --name "worker-$w" --lease "$lease" --idle 0.2 --shutdown-grace "$grace" \
      >>"$run/logs/worker-$w.log" 2>&1 </dev/null &
    echo $! >"$run/pids/worker-$w"
  done

  cat >"$run/nginx/nginx.conf" <<CONF
$([[ $(id -u) -eq 0 ]] && echo "user root;")
worker_processes 1;
pid $run/pids/nginx;
error_log $run/logs/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log $run/logs/nginx-access.log;
  client_body_temp_path $run/nginx/temp/body;
  proxy_temp_path $run/nginx/temp/proxy;
  fastcgi_temp_path $run/nginx/temp/fastcgi;
  uwsgi_temp_path $run/nginx/temp/uwsgi;
  scgi_temp_path $run/nginx/temp/scgi;
  client_max_body_size 64m;
  upstream citytwin {
$(for ((k = 1; k <= ${#servers[@]}; k++)); do echo "    server 127.0.0.1:$((port + k)) max_fails=1 fail_timeout=2s;"; done)
    keepalive 32;
  }
  server {
    listen 127.0.0.1:$port;
    location / {
      proxy_pass http://citytwin;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$host:\$server_port;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      proxy_read_timeout 300s;
    }
  }
}
CONF
  if alive "$run/pids/nginx"; then
    "$nginx" -p "$run/nginx" -c "$run/nginx/nginx.conf" -s reload 2>>"$run/logs/nginx-error.log"
  else
    "$nginx" -p "$run/nginx" -c "$run/nginx/nginx.conf" 2>>"$run/logs/nginx-error.log" || fail "nginx did not start (see $run/logs/nginx-error.log)"
  fi
  await_health "http://127.0.0.1:$port/health" || fail "nginx does not answer on :$port (see $run/logs/nginx-error.log)"

  cat >"$run/cluster.env" <<ENV
CITYTWIN_CLUSTER_URL=http://127.0.0.1:$port
CITYTWIN_CLUSTER_SERVE_A=http://127.0.0.1:$((port + 1))
CITYTWIN_CLUSTER_SERVE_B=http://127.0.0.1:$((port + 2))
CITYTWIN_CLUSTER_STORE=$url
CITYTWIN_CLUSTER_LEASE=$lease
CITYTWIN_CLUSTER_BIN=$citytwin
ENV
  echo "http://127.0.0.1:$port"
}

stop() {
  if alive "$run/pids/nginx"; then
    local nginx; nginx=$(command -v nginx || echo /usr/sbin/nginx)
    local pid i; pid=$(cat "$run/pids/nginx")
    "$nginx" -p "$run/nginx" -c "$run/nginx/nginx.conf" -s quit 2>/dev/null || kill -TERM "$pid"
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  for w in "${workers[@]}"; do end "$run/pids/worker-$w"; done
  for s in a b; do end "$run/pids/serve-$s"; done
  [[ -d $run/pg ]] && CITYTWIN_PG_DIR=$run/pg CITYTWIN_PG_PORT=$pg_port Scripts/postgis.sh stop fast
  return 0
}

status() {
  for part in nginx serve-a serve-b worker-1 worker-2; do
    if alive "$run/pids/$part"; then echo "$part: running (pid $(cat "$run/pids/$part"))"; else echo "$part: stopped"; fi
  done
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
*) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac

# Sourced by the scripts that drive the web map in headless Chromium (webmap_check.sh,
# basemap_check.sh): the built binary, a scratch folder removed on exit with the server and
# Chromium they started, a server on a free port until it answers /health, and Chromium with its
# DevTools port. The sourcing script defines `fail` first.
#
#   session_start NAME             chromium is there; $bin (CITYTWIN_BIN, else `swift build`), $work (removed on exit)
#   session_serve ARGS…            `$bin serve ARGS… --port $port`, log $work/server.log, until /health answers
#   session_chromium               headless Chromium (SwiftShader WebGL), DevTools on $devtools
#   session_stop_chromium          ends Chromium (the server runs on)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

session_start() {
  command -v chromium >/dev/null || fail "chromium is not installed (apt-get install chromium)"
  if [[ -n ${CITYTWIN_BIN:-} ]]; then bin=$CITYTWIN_BIN; else
    swift build --product citytwin 2>&1 | grep -E "error|Build complete" || true
    bin=$(swift build --show-bin-path)/citytwin
  fi
  [[ -x $bin ]] || fail "no citytwin binary at $bin"
  work=$(mktemp -d "/tmp/citytwin-$1.XXXXXX")
  server_pid=""; chromium_pid=""
  trap session_cleanup EXIT
}

session_cleanup() {
  session_stop_chromium
  if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}

session_serve() {
  port=$(free_port)
  "$bin" serve "$@" --port "$port" >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log"; fail "the server exited"; }
    sleep 0.2
  done
  curl -sf "http://127.0.0.1:$port/health" >/dev/null || fail "the server did not answer /health"
}

# SwiftShader gives WebGL without a GPU. (`--screenshot --virtual-time-budget` is not used:
# virtual time runs ahead of the Web Workers that decode tiles.)
session_chromium() {
  devtools=$(free_port)
  chromium --headless --no-sandbox --disable-gpu --use-angle=swiftshader --enable-unsafe-swiftshader \
    --hide-scrollbars --no-first-run --disable-extensions --user-data-dir="$work/chromium" --enable-logging=stderr \
    --window-size=1280,860 --remote-debugging-port="$devtools" about:blank >"$work/chromium.log" 2>&1 &
  chromium_pid=$!
}

session_stop_chromium() {
  if [[ -n $chromium_pid ]]; then kill "$chromium_pid" 2>/dev/null || true; wait "$chromium_pid" 2>/dev/null || true; fi
  chromium_pid=""
}

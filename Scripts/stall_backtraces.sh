#!/usr/bin/env bash
# Watches a test transcript; when it has not grown for STALL seconds while the tester still runs,
# writes every thread's backtrace of the test processes under the tester (gdb) to OUT, prints where
# our own code waits, then ends those processes: a hang in CI fails in minutes and names its cause
# instead of only the tests that never ended.
#   Scripts/stall_backtraces.sh TRANSCRIPT TESTER_PID STALL OUT
set -uo pipefail
transcript=$1 tester=$2 stall=$3 out=$4

# The test processes descending from the tester (another test run on the machine is left alone).
test_processes() {
  local pid p
  for pid in $(pgrep -f '^[^ ]*PackageTests\.xctest' || true); do
    p=$pid
    while [[ -n $p && $p -gt 1 ]]; do
      if [[ $p -eq $tester ]]; then echo "$pid"; break; fi
      p=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f2)
    done
  done
}

last=-1 still=0
while kill -0 "$tester" 2>/dev/null; do
  sleep 10
  size=$(stat -c %s "$transcript" 2>/dev/null || echo 0)
  if [[ $size -ne $last ]]; then last=$size still=0; continue; fi
  still=$(( still + 10 ))
  (( still >= stall )) || continue
  pids=$(test_processes)
  : > "$out"
  for pid in $pids; do
    echo "=== process $pid: $(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)" >> "$out"
    timeout 120 gdb -p "$pid" -batch -nx -ex "set pagination off" -ex "thread apply all bt 40" >> "$out" 2>&1 || true
  done
  demangle=$(command -v swift-demangle || true)
  if [[ -n $demangle ]]; then "$demangle" --simplified < "$out" > "$out.tmp" && mv "$out.tmp" "$out"; fi
  echo "test: no output for $stall s; every thread's backtrace is in $out. Per thread, the innermost frame in CityTwin's code:"
  awk '/^Thread /{ if (t && f) print t " | " f; t=$0; f="" }
       / at [^ ]*\/(Sources|Tests)\// && !/\.build\/checkouts/ { if (!f) { sub(/^#[0-9]+ +(0x[0-9a-f]+ in )?/, ""); f=substr($0, 1, 240) } }
       END { if (t && f) print t " | " f }' "$out" \
    | sed -E 's/^Thread [0-9]+ \(Thread 0x[0-9a-f]+ \(LWP [0-9]+\) "?([^"]*)"?\)( \(Exiting\))?:/\1/' | sort | uniq -c | sort -rn | head -40
  echo "test: threads in all: $(grep -c '^Thread ' "$out")"
  # The test processes end (the tester then fails as on a crash) instead of running into the stage's limit.
  [[ -n $pids ]] && kill -TERM $pids 2>/dev/null
  sleep 5
  [[ -n $pids ]] && kill -KILL $pids 2>/dev/null
  exit 0
done

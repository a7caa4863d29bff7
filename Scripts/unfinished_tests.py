#!/usr/bin/env python3
"""Lists the Swift Testing tests and suites a transcript shows started but never ended.

    Scripts/unfinished_tests.py .build/test-output.txt

Scripts/test.sh prints this when `swift test` fails or runs past its time limit, so a hang names
the tests it hangs in.
"""
import re
import sys

started, ended = {}, set()
with open(sys.argv[1], encoding="utf-8", errors="replace") as transcript:
    for line in transcript:
        # Test cases of a parameterised test have no end line of their own; its test has one.
        # Two threads' lines can be glued into one ("◇ Test a(◇ Test b started."): the last start counts.
        line = line[line.rfind("◇ "):] if "◇ " in line else line
        m = re.match(r"◇ (Test|Suite) (?!case passing )(.*) started\.$", line.rstrip("\n"))
        if m:
            started.setdefault(m.group(2), m.group(1))
            continue
        m = re.match(r"[✔✘━] (Test|Suite) (.*?)(?: with \d+ test cases?)? (?:passed|failed) after [0-9.]+ seconds", line) \
            or re.match(r"➜ (Test|Suite) (.*?) skipped", line)
        if m:
            ended.add(m.group(2))
left = [(kind, name) for name, kind in started.items() if name not in ended and name != "run"]
if left:
    print(f"unfinished: {len(left)} of {len(started)} started tests and suites never ended:")
    for kind, name in left:
        print(f"  {kind} {name[:160]}")
else:
    print("unfinished: every started test and suite ended")

#!/usr/bin/env python3
"""What a flood of half-sent anonymous MQTT CONNECTs costs a running `citytwin serve --mqtt-port`
(issue 78 §3; the figures in docs/operations.md, "SensorThings over MQTT").

Opens CONNECTIONS sockets to the broker, one after another; each sends a CONNECT's fixed header
announcing ANNOUNCED bytes and SENT bytes of its body, and is held open. Prints the server's VmRSS
(from /proc/PID/status) before, once every socket has sent, and HOLD seconds later, and how many of
the sockets the server had closed by then. The server must run on this machine (its PID):

    citytwin serve --store district.sqlite --port 8080 --mqtt-port 1883 &
    python3 Scripts/mqtt_flood.py --port 1883 --pid $! --connections 1000 --announced 16777200 --sent 98304
"""

import argparse
import resource
import socket
import time
from pathlib import Path


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise SystemExit(f"no VmRSS for process {pid}")


def remaining_length(n: int) -> bytes:
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def closed_by_peer(s: socket.socket) -> bool:
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True, help="the broker's port (--mqtt-port)")
    p.add_argument("--pid", type=int, required=True, help="the server's process id")
    p.add_argument("--connections", type=int, default=1000)
    p.add_argument("--announced", type=int, default=(16 << 20) - 16, help="the CONNECT's remaining length (default 16 MiB less 16 bytes: under --max-body-bytes)")
    p.add_argument("--sent", type=int, default=96 << 10, help="bytes of its body sent (default 96 KiB)")
    p.add_argument("--hold", type=float, default=2.0, help="seconds to hold the sockets before the last reading")
    a = p.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, a.connections + 64)), hard))

    body = b"\x00\x04MQTT\x04\x02\x00\x3c" + b"A" * max(0, a.sent - 10)
    packet = bytes([0x10]) + remaining_length(a.announced) + body[:a.sent]
    idle = rss_mib(a.pid)
    held, refused = [], 0
    started = time.monotonic()
    for _ in range(a.connections):
        try:
            s = socket.create_connection((a.host, a.port), timeout=10)
        except OSError:
            refused += 1
            continue
        held.append(s)
        try:
            s.sendall(packet)
        except OSError:
            pass                                        # the server closed it at the header
    sent = rss_mib(a.pid)
    elapsed = time.monotonic() - started
    time.sleep(a.hold)
    after = rss_mib(a.pid)
    closed = sum(closed_by_peer(s) for s in held)
    for s in held:
        s.close()
    print(f"{a.connections} connections ({refused} not accepted) in {elapsed:.1f} s, each a CONNECT announcing "
          f"{a.announced} bytes with {a.sent} of them sent")
    print(f"server RSS: idle {idle:.1f} MiB; all sent {sent:.1f} MiB (+{sent - idle:.1f}); "
          f"{a.hold:g} s later {after:.1f} MiB (+{after - idle:.1f}); {closed} of {len(held)} closed by the server by then")


if __name__ == "__main__":
    main()

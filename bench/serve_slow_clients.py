#!/usr/bin/env python3
"""Health probes of `gpuplan serve` while slow clients hold connections.

Opens N connections that each send one head byte a second (a slowloris) and,
meanwhile, times PROBES requests to /api/health, each on a fresh connection.
Prints p50/p99/max latency and how many probes went unanswered within 2 s.
Usage: serve_slow_clients.py PORT [N=50] [PROBES=100]
"""
import socket
import sys
import threading
import time


def probe(port):
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    ok = data.startswith(b"HTTP/1.1 200")
    return ok, (time.monotonic() - t0) * 1000


def main():
    port = int(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    probes = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    slow = [socket.create_connection(("127.0.0.1", port)) for _ in range(n)]
    head = b"POST /api/plan HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 200
    stop = threading.Event()

    def drip():
        for i in range(len(head)):
            if stop.is_set():
                return
            for s in slow:
                try:
                    s.send(head[i:i + 1])
                except OSError:
                    pass
            time.sleep(1)

    t = threading.Thread(target=drip)
    t.start()
    lat, missed = [], 0
    for _ in range(probes):
        try:
            ok, ms = probe(port)
        except OSError:
            ok, ms = False, 2000.0
        missed += 0 if ok and ms < 2000 else 1
        lat.append(ms)
        time.sleep(0.05)
    stop.set()
    t.join()
    for s in slow:
        s.close()
    lat.sort()
    print("health under %d slow clients: %d probes, p50 %.2f ms, p99 %.2f ms, max %.2f ms, "
          "unanswered within 2 s: %d" % (n, probes, lat[len(lat) // 2],
                                          lat[min(len(lat) - 1, int(len(lat) * 0.99))],
                                          lat[-1], missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())

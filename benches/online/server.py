#!/usr/bin/env python3
"""The server of the online benchmark: one HTTP/1.1 server per host on
127.0.0.N:PORT (N = 1…20; Linux routes all of 127.0.0.0/8 to loopback), each answering after
LATENCY seconds (default 0.05): /ok/… 200, /gone/… 404, /moved/X a 301 to /ok/X. Each counts
the requests it serves and the most it served at once; GET /__stats on 127.0.0.1 returns them
all as JSON ({"127.0.0.N": {"requests": R, "max_in_flight": M}}), /__reset zeroes them.
Usage: server.py PORT [LATENCY]"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HOSTS = 20
STATS = {}
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    latency = 0.05

    def log_message(self, *args):
        pass

    def answer(self, body):
        host = self.server.server_address[0]
        if self.path == "/__stats":
            data = json.dumps(STATS, sort_keys=True).encode()
            return self.send(200, data, {"Content-Type": "application/json"}, body)
        if self.path == "/__reset":
            with LOCK:
                for s in STATS.values():
                    s.update(requests=0, in_flight=0, max_in_flight=0)
            return self.send(200, b"reset\n", {}, body)
        with LOCK:
            s = STATS[host]
            s["requests"] += 1
            s["in_flight"] += 1
            s["max_in_flight"] = max(s["max_in_flight"], s["in_flight"])
        time.sleep(self.latency)
        # Out of the count before the answer goes: a client that reads it may ask again at
        # once, and the two must not be counted as in flight together.
        with LOCK:
            s["in_flight"] -= 1
        if self.path.startswith("/ok/"):
            self.send(200, b"<!doctype html><p>ok</p>\n", {"Content-Type": "text/html"}, body)
        elif self.path.startswith("/moved/"):
            self.send(301, b"", {"Location": "/ok/" + self.path[len("/moved/"):]}, body)
        else:
            self.send(404, b"not found\n", {"Content-Type": "text/plain"}, body)

    def send(self, status, data, headers, body):
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if body:
            self.wfile.write(data)

    def do_GET(self):
        self.answer(True)

    def do_HEAD(self):
        self.answer(False)


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client closing a kept-alive connection is no error worth a traceback.
        pass


def main():
    port = int(sys.argv[1])
    Handler.latency = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
    servers = []
    for n in range(1, HOSTS + 1):
        host = f"127.0.0.{n}"
        STATS[host] = {"requests": 0, "in_flight": 0, "max_in_flight": 0}
        server = Server((host, port), Handler)
        servers.append(server)
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"serving on 127.0.0.1-{HOSTS}:{port}", flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()

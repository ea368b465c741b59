#!/usr/bin/env python3
"""The inputs of the memory benchmark of `check`, each one that grows
linearly: N hostile remote pages read for their fragment ids, 40,000 exclude patterns, a cache
file of a million entries, one page with 200,000 broken links. Writes them under DIR, and with
`serve PORT` serves the hostile pages on 127.0.0.1:PORT (8 MiB each: /frames/N, a frameset and
deep nesting, which only a full parse could read; /ids/N, an id every 8 bytes).
Usage: memory.py DIR PORT | memory.py serve PORT"""
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = 8 << 20
PAGES = 96


def hostile(kind):
    if kind == "frames":
        head = b"<!doctype html><frameset><frame src=a></frameset>"
        unit = b"<div><span><a name=x>"
    else:
        head = b"<!doctype html>"
        unit = b"<p id=%d></p>"
    body = bytearray(head)
    i = 0
    while len(body) < PAGE - 64:
        body += unit % i if b"%d" in unit else unit
        i += 1
    return bytes(body)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    pages = {}

    def log_message(self, *args):
        pass

    def do_GET(self):
        kind = self.path.strip("/").split("/")[0]
        data = self.pages.get(kind, b"")
        self.send_response(200 if data else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", "0")
        self.end_headers()


def write_inputs(out, port):
    # 1. Pages linking the hostile pages, each with a fragment (so each is read for its ids).
    site = os.path.join(out, "hostile")
    os.makedirs(site, exist_ok=True)
    links = "\n".join(
        f'<a href="http://127.0.0.1:{port}/{k}/{i}#{i}">x</a>'
        for i in range(PAGES // 2)
        for k in ("frames", "ids")
    )
    with open(os.path.join(site, "index.html"), "w") as f:
        f.write(f"<!doctype html>\n{links}\n")
    # 2. 40,000 exclude patterns in the tree's .linkbaseignore (within its 1 MiB), and a page
    # of 10,000 links matched against them.
    site = os.path.join(out, "excludes")
    os.makedirs(site, exist_ok=True)
    with open(os.path.join(site, ".linkbaseignore"), "w") as f:
        f.write("".join(f"^https?://h{i}\\.ex/\n" for i in range(40_000)))
    with open(os.path.join(site, "index.html"), "w") as f:
        f.write("\n".join(f'<a href="https://h{i * 7}.ex/{i}">x</a>' for i in range(10_000)))
    # 3. A cache of a million entries, 1,000 of them the links of the site (fresh: no request).
    site = os.path.join(out, "cache")
    os.makedirs(site, exist_ok=True)
    now = int(time.time())
    with open(os.path.join(site, "index.html"), "w") as f:
        f.write("\n".join(f'<a href="https://c{i}.example/page">x</a>' for i in range(1_000)))
    with open(os.path.join(site, ".linkbase-cache.json"), "w") as f:
        f.write('{"version": 1, "entries": {')
        for i in range(1_000_000):
            key = f"https://c{i}.example/page"
            entry = {"checked": now, "status": 200,
                     "redirects": [{"status": 301, "to": f"https://c{i}.example/page/"}]}
            f.write(("," if i else "") + json.dumps(key) + ":" + json.dumps(entry))
        f.write("}}\n")
    # 4. One page with 200,000 broken links.
    site = os.path.join(out, "broken")
    os.makedirs(site, exist_ok=True)
    with open(os.path.join(site, "index.html"), "w") as f:
        f.write("\n".join(f'<a href="missing/{i}.html">x</a>' for i in range(200_000)))


def main():
    if sys.argv[1] == "serve":
        Handler.pages = {k: hostile(k) for k in ("frames", "ids")}
        ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
    else:
        write_inputs(sys.argv[1], int(sys.argv[2]))


if __name__ == "__main__":
    main()

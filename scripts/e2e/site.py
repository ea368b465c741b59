#!/usr/bin/env python3
"""A small site for the crawl fixture, served on 127.0.0.1 (stdlib only).

It has what a mirror must survive: `.php` pages and query-string assets (wget keeps the query in
the file name, -E appends .html or .css), a redirect, a <base>, a Content-Location header, a
windows-1251 page whose charset only the Content-Type header gives (with a non-ASCII link), a
stylesheet with url() and @import, and a page reached only by a query-only link.

    python3 scripts/e2e/site.py PORT     # serves until killed
"""
import http.server
import re
import sys

CP1251 = "windows-1251"

PAGES = {
    "/index.php": ("text/html", """<!DOCTYPE html>
<html><head><title>Home</title>
<link rel="stylesheet" href="/style.css?v=1">
<script src="app.js?v=3"></script>
</head><body>
<h1 id="top">Home</h1>
<img src="img/logo.png?w=2" alt="logo">
<a href="sub/page.php?id=1">page 1</a>
<a href="old">moved</a>
<a href="base.html">base</a>
<a href="loc.html">content-location</a>
<a href="enc/cp1251.html">cp1251</a>
<a href="http://127.0.0.1:{port}/plain.html#s">absolute link</a>
</body></html>
"""),
    "/style.css?v=1": ("text/css", """@import url("print.css");
body { background: url(img/bg.png?x=1) }
"""),
    "/print.css": ("text/css", "h1 { color: #333 }\n"),
    "/app.js?v=3": ("application/javascript", "document.title += ' (js)';\n"),
    "/img/logo.png?w=2": ("image/png", None),
    "/img/bg.png?x=1": ("image/png", None),
    "/img/x.png": ("image/png", None),
    "/sub/page.php?id=1": ("text/html", """<!DOCTYPE html>
<html><head><title>Page 1</title><link rel="stylesheet" href="../style.css?v=1"></head><body>
<a href="?id=2">next (query only)</a>
<a href="../index.php#top">home</a>
<img src="/img/logo.png?w=2" alt="">
</body></html>
"""),
    "/sub/page.php?id=2": ("text/html", """<!DOCTYPE html>
<html><head><title>Page 2</title></head><body>
<a href="page.php?id=1">back</a>
</body></html>
"""),
    "/new.html": ("text/html", """<!DOCTYPE html>
<html><head><title>New</title><link rel="stylesheet" href="print.css"></head><body>
<a href="index.php">home</a>
</body></html>
"""),
    "/base.html": ("text/html", """<!DOCTYPE html>
<html><head><base href="/sub/"><title>Base</title></head><body>
<a href="page.php?id=2">page 2 through the base</a>
<img src="../img/x.png" alt="">
</body></html>
"""),
    "/loc.html": ("text/html", """<!DOCTYPE html>
<html><head><title>Content-Location</title></head><body>
<img src="img/x.png" alt="">
<a href="plain.html">plain</a>
</body></html>
"""),
    "/plain.html": ("text/html", """<!DOCTYPE html>
<html><head><title>Plain</title></head><body><p id="s">plain</p>
<a href="index.php">home</a></body></html>
"""),
}
HEADERS = {"/loc.html": [("Content-Location", "/elsewhere/loc.html")]}
CP1251_PAGE = ("<!DOCTYPE html>\n<html><head><title>Кодировка</title></head><body>\n"
               "<a href=\"страница.html\">страница</a>\n"
               "<a href=\"../index.php\">home</a>\n</body></html>\n")
CP1251_TARGET = ("<!DOCTYPE html>\n<html><head><title>Страница</title></head><body>\n"
                 "<a href=\"cp1251.html\">назад</a>\n</body></html>\n")
# A 1x1 transparent PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, ctype, body, extra=()):
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        for k, v in extra:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        port = self.server.server_address[1]
        # `%d1` and `%D1` are one octet (RFC 3986 §2.1): HTTrack requests lower-case escapes.
        path = re.sub(r"%[0-9a-fA-F]{2}", lambda m: m.group(0).upper(), self.path)
        if path in ("/", "/index.html"):
            return self.send(301, None, b"", [("Location", "/index.php")])
        if path == "/old":
            return self.send(301, "text/html", b"<a href=/new.html>moved</a>",
                             [("Location", "/new.html")])
        if path == "/enc/cp1251.html":
            return self.send(200, "text/html; charset=windows-1251", CP1251_PAGE.encode(CP1251))
        if path == "/enc/%D1%81%D1%82%D1%80%D0%B0%D0%BD%D0%B8%D1%86%D0%B0.html":
            return self.send(200, "text/html; charset=windows-1251",
                             CP1251_TARGET.encode(CP1251))
        if path in PAGES:
            ctype, body = PAGES[path]
            data = PNG if body is None else body.replace("{port}", str(port)).encode()
            if ctype.startswith("text/"):
                ctype += "; charset=utf-8"
            return self.send(200, ctype, data, HEADERS.get(path, []))
        if path == "/robots.txt":
            return self.send(200, "text/plain", b"")
        return self.send(404, "text/plain", b"not found")


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8724
    http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()

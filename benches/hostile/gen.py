#!/usr/bin/env python3
"""Hostile inputs (budgets and WARC recovery), written to DIR (default: ./hostile).

  redirects-N.headers   N relative `Location:` hops in a `--headers` file
  heads.warc.gz         one response record whose payload is HTTP/ heads only, gzip
  bomb.warc             a response record with `Content-Encoding: gzip` that inflates ~1000x
  anchors-NM.html       `<a href=a>` repeated, unclosed, N MB

Measure with: /usr/bin/time -v target/release/linkbase base --url http://h/ --headers FILE page.html
"""
import gzip, os, sys, zlib

out = sys.argv[1] if len(sys.argv) > 1 else "hostile"
os.makedirs(out, exist_ok=True)

def w(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)

def record(block, uri="http://h/", kind="response"):
    head = ("WARC/1.1\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Target-URI: %s\r\n"
            "Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
            % (kind, uri, uri, len(block))).encode()
    return head + block + b"\r\n\r\n"

w("page.html", b"<a href=x>x</a>\n")
for n in (4000, 8000):
    hops = "".join("HTTP/1.1 302 Found\r\nLocation: a%d/\r\n\r\n" % i for i in range(n))
    w("redirects-%d.headers" % n, (hops + "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n").encode())

# Every line of the payload is an HTTP/ head with a relative Location: each becomes a hop.
for n in (200_000, 400_000):
    heads = b"HTTP/1.1 301 M\nLocation: a/\n" * n
    payload = heads + b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>"
    w("heads-%d.warc.gz" % n, gzip.compress(record(payload), 9))

# gzip bomb: an unclosed-anchor page (below) of MB megabytes, gzip twice (deflate stops near
# 1000:1; a gzip of a gzip goes further): a few hundred bytes on disk.
for mb in (32, 64):
    inner = gzip.compress(b"<a href=a>" * ((mb << 20) // 10), 9)
    body = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip, gzip\r\n\r\n" + gzip.compress(inner, 9)
    w("bomb-%dM.warc" % mb, record(body))

for mb in (8, 16):
    unit = b"<a href=a>"
    w("anchors-%dM.html" % mb, unit * ((mb << 20) // len(unit)))

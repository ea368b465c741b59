"""Builds small WARC files for the tests, byte by byte from ISO 28500 §4 (no WARC library:
the reader under test must not check itself)."""

import gzip
from pathlib import Path

HTTP = "application/http; msgtype=response"


def record(kind, rid, uri, block, content_type=HTTP, extra=()):
    head = f"WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{rid}>\r\n"
    head += "WARC-Date: 2026-01-02T03:04:05Z\r\n"
    if uri:
        head += f"WARC-Target-URI: {uri}\r\n"
    for name, value in extra:
        head += f"{name}: {value}\r\n"
    head += f"Content-Type: {content_type}\r\nContent-Length: {len(block)}\r\n\r\n"
    return head.encode() + block + b"\r\n\r\n"


def response(rid, uri, head, body):
    return record("response", rid, uri, head.replace("\n", "\r\n").encode() + b"\r\n" + body)


def site(n, host="ex.org"):
    """`n` pages of one host, each linking to the next, to a sibling host and to itself."""
    recs = []
    for i in range(n):
        body = (
            f'<html><a href="p{i + 1}.html">next</a> <a href="http://other.{host}/x">o</a>'
            f' <a href="#top">top</a> <img src="/img/{i}.png"></html>'
        ).encode()
        recs.append(
            response(f"{host}-{i}", f"http://{host}/d/p{i}.html", "HTTP/1.1 200 OK\nContent-Type: text/html\n", body)
        )
    return recs


def mixed():
    """A redirect, Content-Location, <base>, chunked gzip, windows-1252, a revisit, a PNG."""
    page = b'<a href="a.html">a</a>'
    zipped = gzip.compress(b'<link href="s.css"><a href="?q#f">q</a>')
    chunked = b"".join(
        b"%x\r\n" % len(zipped[i : i + 5]) + zipped[i : i + 5] + b"\r\n" for i in range(0, len(zipped), 5)
    ) + b"0\r\n\r\n"
    return [
        record("warcinfo", "w", "", b"software: test\r\n", "application/warc-fields"),
        response("r1", "http://ex.org/old", "HTTP/1.1 301 Moved\nLocation: /new/\nContent-Type: text/html\n", b'<a href="new/">m</a>'),
        response("r2", "http://ex.org/new/", "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Location: /other/\n", page),
        response("r3", "http://ex.org/b.html", "HTTP/1.1 200 OK\nContent-Type: text/html\n", b'<base href="http://cdn.ex.org/r/"><img src="i.png">'),
        response(
            "r4",
            "http://ex.org/z/z.html",
            "HTTP/1.1 200 OK\nContent-Type: text/html\nTransfer-Encoding: chunked\nContent-Encoding: gzip\n",
            chunked,
        ),
        response("r5", "http://ex.org/l.html", "HTTP/1.1 200 OK\nContent-Type: text/html; charset=windows-1252\n", b'<a href="caf\xe9.html">c</a>'),
        record(
            "revisit",
            "r6",
            "http://ex.org/again/",
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n",
            extra=[
                ("WARC-Profile", "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"),
                ("WARC-Refers-To", "<urn:uuid:r2>"),
            ],
        ),
        response("r7", "http://ex.org/x.png", "HTTP/1.1 200 OK\nContent-Type: image/png\n", b"\x89PNG\r\n"),
    ]


def write(path: Path, records, compress=True) -> Path:
    data = b"".join(gzip.compress(r) if compress else r for r in records)
    path.write_bytes(data)
    return path

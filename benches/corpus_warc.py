#!/usr/bin/env python3
"""Writes the benchmark corpus (benches/corpus.sh's list of pages) as a WARC file: one `response`
record per page, target URI from its path (docs.python.org/3.11/…, en.cppreference.com/w/…),
one gzip member per record when OUT ends in .gz. Standard library only.

    bash benches/corpus.sh > /tmp/corpus.txt
    python3 benches/corpus_warc.py /tmp/corpus.txt /tmp/corpus.warc.gz
"""

import gzip
import sys
import uuid


def target(path):
    if "/python3.11/html/" in path:
        return "https://docs.python.org/3.11/" + path.split("/python3.11/html/", 1)[1]
    return "https://en.cppreference.com/w/" + path.split("/doc/html/", 1)[1]


def main(listing, out):
    compress = out.endswith(".gz")
    with open(listing) as names, open(out, "wb") as f:
        for n, line in enumerate(names):
            path = line.strip()
            body = open(path, "rb").read()
            http = (
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                + b"Content-Length: %d\r\n\r\n" % len(body)
            )
            block = http + body
            head = (
                "WARC/1.1\r\nWARC-Type: response\r\n"
                f"WARC-Record-ID: <urn:uuid:{uuid.UUID(int=n + 1)}>\r\n"
                "WARC-Date: 2026-11-25T00:00:00Z\r\n"
                f"WARC-Target-URI: {target(path)}\r\n"
                "Content-Type: application/http; msgtype=response\r\n"
                f"Content-Length: {len(block)}\r\n\r\n"
            ).encode()
            record = head + block + b"\r\n\r\n"
            f.write(gzip.compress(record, 6) if compress else record)


if __name__ == "__main__":
    main(*sys.argv[1:3])

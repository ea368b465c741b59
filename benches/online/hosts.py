#!/usr/bin/env python3
"""A site for the many-hosts benchmark of the online checker: N distinct hosts, one URL each,
every one a loopback address (127.x.y.z, which Linux routes to lo) on port 9, where nothing
listens: each request is refused at once, so the run's CPU is the checker's own (reading
links, scheduling hosts, the verdicts), not the network's. 100 pages of N/100 links.
Usage: hosts.py DIR N"""
import os
import sys


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    urls = [f"http://127.{1 + i // 65536}.{(i // 256) % 256}.{i % 256}:9/" for i in range(n)]
    per = n // 100
    for p in range(100):
        links = "\n".join(f'<a href="{u}">x</a>' for u in urls[p * per:(p + 1) * per])
        with open(os.path.join(out, f"p{p}.html"), "w") as f:
            f.write(f"<!doctype html><meta charset=utf-8>\n{links}\n")


if __name__ == "__main__":
    main()

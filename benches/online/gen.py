#!/usr/bin/env python3
"""The site of the online benchmark: 100 pages holding 2,000 distinct external URLs
over 20 host names (host01.bench.invalid … host20.bench.invalid, 100 URLs each), every page
also linking the next one. Paths say what the server answers: /ok/ 200, /gone/ 404,
/moved/ a 301 to /ok/. Usage: gen.py DIR"""
import os
import sys

HOSTS = 20
PER_HOST = 100
PAGES = 100


def kind(i):
    # One URL in ten is gone, one in ten moved; the rest answer 200.
    return "gone" if i % 10 == 3 else "moved" if i % 10 == 7 else "ok"


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    urls = [
        f"https://host{h:02d}.bench.invalid/{kind(i)}/{i}.html"
        for i in range(PER_HOST)
        for h in range(1, HOSTS + 1)
    ]
    per_page = len(urls) // PAGES
    for p in range(PAGES):
        links = "\n".join(
            f'<li><a href="{u}">{u}</a></li>' for u in urls[p * per_page:(p + 1) * per_page]
        )
        nxt = f'<a href="page{(p + 1) % PAGES}.html">next</a>'
        with open(os.path.join(out, f"page{p}.html"), "w") as f:
            f.write(f"<!doctype html><meta charset=utf-8><title>{p}</title>\n<ul>\n{links}\n</ul>\n{nxt}\n")


if __name__ == "__main__":
    main()

"""linkbase.rewrite against lxml.html's make_links_absolute, same pages, same run.

    target/py-venv/bin/pip install lxml==6.1.3      # the bench only; not a dependency
    target/py-venv/bin/python python/bench/bench_lxml.py [--repeat N] [--threads N]

Pages: the bundled real pages (examples/data, fixtures/html/real-*) and, when installed, every
page of Debian's python3.11-doc (/usr/share/doc/python3.11-doc/html). Both sides do the whole job
on bytes in memory: parse, make every link absolute, serialize. Wall time, best of --repeat runs,
one thread (the comparison), then linkbase alone on --threads threads (the GIL is released).
"""

import argparse
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import lxml.html

import linkbase

REPO = Path(__file__).resolve().parents[2]
PYDOC = Path("/usr/share/doc/python3.11-doc/html")


def pages():
    """(url, bytes) of every page."""
    out = [
        (
            "https://docs.python.org/3.11/tutorial/introduction.html",
            (REPO / "examples/data/python-tutorial-introduction.html").read_bytes(),
        )
    ]
    for case in sorted((REPO / "fixtures/html").glob("real-*")):
        meta = json.loads((case / "meta.json").read_text())
        out.append((meta["url"], (case / "input.html").read_bytes()))
    if PYDOC.is_dir():
        for path in sorted(PYDOC.rglob("*.html")):
            if path.is_file():
                rel = path.relative_to(PYDOC).as_posix()
                out.append((f"https://docs.python.org/3.11/{rel}", path.read_bytes()))
    return out


def with_lxml(url, page):
    doc = lxml.html.document_fromstring(page, base_url=url)
    doc.make_links_absolute(url)  # resolve_base_href=True: it honours <base> (the last one)
    return lxml.html.tostring(doc)


def with_linkbase(url, page):
    return linkbase.rewrite(page, url=url)


def best(fn, work, repeat, threads=1):
    """The best wall time of `repeat` runs of fn(url, page) over `work`, on `threads` threads."""
    times = []
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for _ in range(repeat):
            start = time.perf_counter()
            if threads == 1:
                for url, page in work:
                    fn(url, page)
            else:
                list(pool.map(lambda p: fn(*p), work))
            times.append(time.perf_counter() - start)
    return min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    work = pages()
    mb = sum(len(p) for _, p in work) / 1e6
    print(f"{len(work)} pages, {mb:.1f} MB; best of {args.repeat}")
    lx = best(with_lxml, work, args.repeat)
    lb = best(with_linkbase, work, args.repeat)
    print(f"lxml make_links_absolute + tostring: {lx:.3f} s ({mb / lx:.1f} MB/s)")
    print(f"linkbase.rewrite, 1 thread:          {lb:.3f} s ({mb / lb:.1f} MB/s)")
    print(f"lxml time / linkbase time:           {lx / lb:.2f}")
    if args.threads > 1:
        lt = best(with_linkbase, work, args.repeat, args.threads)
        print(f"linkbase.rewrite, {args.threads} threads:         {lt:.3f} s ({mb / lt:.1f} MB/s)")


if __name__ == "__main__":
    main()

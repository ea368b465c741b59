"""How much of linkbase.links' and linkbase.rewrite's work runs without the GIL, in instructions.

    target/py-venv/bin/python python/bench/gil_share.py [--every N]

Threads can only overlap the work done with the GIL released (inside pyo3's Python::detach: the
library's parse, resolve and records); the rest (making the result objects, freeing them, the
interpreter's loop) runs one thread at a time. Wall time on a shared machine cannot show that
split; instruction counts can: each call is run under valgrind's callgrind over every N-th page
of bench_lxml.py's pages, the Python::detach calls' inclusive instructions are the GIL-free
part, and the run's total minus that of the same loop without the call is the whole. What
Amdahl's law makes of that for 2 threads (the GIL-held part run serially) is printed beside it;
bench_links.py measures the real speed-up when the cores are free.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

LOOP = """
import sys
sys.path.insert(0, {here!r})
import linkbase
from bench_lxml import pages
work = pages()[::{every}]
call = {call}
for url, page in work:
    call(page, url)
"""

CALLS = {
    "none": "lambda page, url: None",
    "links": "lambda page, url: linkbase.links(page, url=url)",
    "rewrite": "lambda page, url: linkbase.rewrite(page, url=url)",
}


def callgrind(name, every, scratch):
    """(total instructions, instructions inside Python::detach) of one run."""
    out = Path(scratch) / f"{name}.out"
    script = LOOP.format(here=str(HERE), every=every, call=CALLS[name])
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", script],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    total = int(re.search(r"^([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", text, re.M).group(1).replace(",", ""))
    detach = 0
    for line in text.splitlines():
        # Every monomorphized Python::detach (demangled: pyo3::marker::Python::detach); none
        # is nested in another.
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+\S*pyo3::marker::Python::detach\b", line)
        if m:
            detach += int(m.group(1).replace(",", ""))
    return total, detach


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=5, help="every N-th page (default 5)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as scratch:
        base, _ = callgrind("none", args.every, scratch)
        for name in ("links", "rewrite"):
            total, free = callgrind(name, args.every, scratch)
            work = total - base
            share = free / work
            # Amdahl's law with the GIL-held part serial.
            amdahl = 1 / ((1 - share) + share / 2)
            print(
                f"linkbase.{name}: {work / 1e6:.0f} M instructions, {share:.1%} without the GIL;"
                f" Amdahl's law for 2 threads: {amdahl:.2f}x faster"
            )


if __name__ == "__main__":
    main()

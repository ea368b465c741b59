#!/usr/bin/env python3
"""Fidelity of `rewrite` on a tree: how many pages come back identical outside attribute values.

    linkbase rewrite SRC --site-url URL -o OUT
    python3 benches/fidelity.py SRC OUT [SRC OUT ...]

Every `name=value` of input and output is masked to `name=V` (values quoted either way, or
unquoted); a page counts as faithful when the rest is byte-identical. Symbolic links are skipped.
"""
import os
import re
import sys

ATTR = re.compile(rb"""([^\s"'<>/=]+)(\s*=\s*)("[^"]*"|'[^']*'|[^\s"'=<>`]+)""")


def mask(b):
    return ATTR.sub(lambda m: m.group(1) + b"=V", b)


def main(args):
    if len(args) < 2 or len(args) % 2:
        sys.exit(__doc__)
    total = same = 0
    others = []
    for src, out in zip(args[::2], args[1::2]):
        for root, _, files in os.walk(src):
            for name in sorted(files):
                if not name.endswith((".html", ".htm")):
                    continue
                path = os.path.join(root, name)
                if os.path.islink(path):
                    continue
                with open(path, "rb") as f:
                    a = f.read()
                with open(os.path.join(out, os.path.relpath(path, src)), "rb") as f:
                    b = f.read()
                total += 1
                if mask(a) == mask(b):
                    same += 1
                else:
                    others.append(path)
    print(f"{total} pages; {same} identical outside attribute values; {len(others)} not")
    for path in others[:20]:
        print("  " + path)


if __name__ == "__main__":
    main(sys.argv[1:])

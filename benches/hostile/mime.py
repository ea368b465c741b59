#!/usr/bin/env python3
"""Hostile MIME messages for linkbase: time and memory must grow linearly.

    python3 benches/hostile/mime.py SHAPE SIZE > FILE
    /usr/bin/time -v target/release/linkbase links FILE > /dev/null

Shapes (SIZE is the count named; each doubles to show linearity):
- parts N: one multipart/related of N image parts, each with its own Content-Location, and an
  HTML root that links to every one of them (a quadratic matcher once matched every link
  against every part).
- cids N: the same with Content-IDs and `cid:` links.
- deep N: N bytes of HTML parts inside multiparts nested 90 levels deep, none of them closed
  (each level's delimiters are searched through everything below it; every link matched).
- dashes N: one multipart of N bytes whose boundary is N / 2500 dashes and whose body is lines
  of one dash more (every byte starts a near-delimiter, a naive search costs N * N / 2500).
- fields N: one part whose heading has N fields (memory: only the first 1,000 are read).
"""

import sys


def parts(n, cid=False):
    out = [
        "MIME-Version: 1.0\r\n",
        'Content-Type: multipart/related; boundary="b"\r\n\r\n',
        "--b\r\nContent-Type: text/html\r\nContent-Location: http://h/index.html\r\n\r\n",
    ]
    for i in range(n):
        out.append(f'<img src="cid:p{i}@h">\r\n' if cid else f'<img src="i/{i}.png">\r\n')
    for i in range(n):
        head = f"Content-ID: <p{i}@h>" if cid else f"Content-Location: http://h/i/{i}.png"
        out.append(f"--b\r\nContent-Type: image/png\r\n{head}\r\n\r\nPNG\r\n")
    out.append("--b--\r\n")
    return "".join(out)


def deep(n, levels=90):
    out = ["MIME-Version: 1.0\r\n"]
    for level in range(levels):
        out.append(f'Content-Type: multipart/mixed; boundary="l{level}"\r\n\r\n--l{level}\r\n')
    out.append("Content-Type: multipart/related; boundary=\"b\"\r\n\r\n")
    line = "--b\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>\r\n"
    out.append(line * max(1, n // len(line)))
    return "".join(out)


def dashes(n):
    # A boundary of k dashes (legal in a header, if not in RFC 2046's 70 characters) and lines of
    # k + 1 dashes: every byte starts a near-delimiter k bytes long, so a naive search costs n * k;
    # k grows with n (n / 2500), so a naive search grows as n squared.
    k = max(8, n // 2500)
    boundary = "-" * k
    out = [
        "MIME-Version: 1.0\r\n",
        f'Content-Type: multipart/mixed; boundary="{boundary}"\r\n\r\n',
        f"--{boundary}\r\nContent-Type: text/html\r\n\r\n<a href=x>x</a>\r\n",
    ]
    near = "-" * (k + 1) + "\r\n"
    out.append(near * max(1, n // len(near)))
    out.append(f"--{boundary}--\r\n")
    return "".join(out)


def fields(n):
    # One part whose heading has N fields of 6 bytes (each cost ~100 bytes of memory when read).
    return (
        "MIME-Version: 1.0\r\n"
        + "X: y\r\n" * n
        + "Content-Type: text/html\r\n\r\n<a href=x>x</a>\r\n"
    )


def main():
    shape, size = sys.argv[1], int(sys.argv[2])
    text = {
        "parts": lambda: parts(size),
        "cids": lambda: parts(size, cid=True),
        "deep": lambda: deep(size),
        "dashes": lambda: dashes(size),
        "fields": lambda: fields(size),
    }[shape]()
    sys.stdout.write(text)


if __name__ == "__main__":
    main()

"""linkbase.links (every link of a page, absolute) on 1 and N threads, beside selectolax and lxml.

    target/py-venv/bin/pip install lxml==6.1.3 selectolax==1.0.2   # the bench only
    target/py-venv/bin/python python/bench/bench_links.py [--repeat N] [--threads N]

Pages: those of bench_lxml.py (the bundled real pages and, when installed, Debian's
python3.11-doc). Each side takes bytes in memory and gives the absolute URL of every link:
linkbase.links(page, url=url) (a dict per link, its base found as RFC 2396 §5.1 says);
selectolax (its Lexbor parser: every href and src, joined with urllib.parse.urljoin against
the first <base href> or the page's URL); lxml.html (document_fromstring, make_links_absolute,
iterlinks). Wall time, best of --repeat runs, for each on 1 thread and on --threads threads
(a ThreadPoolExecutor: what a Python program gains from threads, the GIL included), and
linkbase.rewrite on the same threads for comparison.
"""

import argparse
from urllib.parse import urljoin

import lxml.html
from selectolax.lexbor import LexborHTMLParser

import linkbase
from bench_lxml import best, pages


def with_linkbase(url, page):
    return linkbase.links(page, url=url)


def with_linkbase_rewrite(url, page):
    return linkbase.rewrite(page, url=url)


def with_selectolax(url, page):
    tree = LexborHTMLParser(page)
    base = tree.css_first("base[href]")
    if base is not None:
        base = urljoin(url, base.attributes.get("href") or "")
    else:
        base = url
    out = []
    for node in tree.css("[href], [src]"):
        attrs = node.attributes
        for name in ("href", "src"):
            value = attrs.get(name)
            if value is not None:
                out.append(urljoin(base, value.strip()))
    return out


def with_lxml(url, page):
    doc = lxml.html.document_fromstring(page, base_url=url)
    doc.make_links_absolute(url)
    return [link for _, _, link, _ in doc.iterlinks()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", default="", help="only the sides whose name holds this")
    args = ap.parse_args()
    work = pages()
    mb = sum(len(p) for _, p in work) / 1e6
    n = sum(len(linkbase.links(p, url=u)) for u, p in work)
    print(f"{len(work)} pages, {mb:.1f} MB, {n} links (linkbase's count); best of {args.repeat}")
    sides = [
        ("linkbase.links", with_linkbase),
        ("linkbase.rewrite", with_linkbase_rewrite),
        ("selectolax (lexbor) + urljoin", with_selectolax),
        ("lxml make_links_absolute + iterlinks", with_lxml),
    ]
    one = {}
    for name, fn in sides:
        if args.only not in name:
            continue
        t1 = best(fn, work, args.repeat, 1)
        tn = best(fn, work, args.repeat, args.threads)
        one[name] = t1
        print(
            f"{name:38} 1 thread {t1:.3f} s, {args.threads} threads {tn:.3f} s:"
            f" {t1 / tn:.2f}x faster"
        )
    for name, _ in sides[2:]:
        if name in one and "linkbase.links" in one:
            print(f"{name} time / linkbase.links time (1 thread): {one[name] / one['linkbase.links']:.2f}")


if __name__ == "__main__":
    main()

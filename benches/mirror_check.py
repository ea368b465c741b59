#!/usr/bin/env python3
"""An independent check of an offline mirror made by `linkbase rewrite DIR --relative`,
written with Python's standard library only (html.parser, urllib.parse), sharing no code with
linkbase.

    python3 benches/mirror_check.py OUT SITE_URL

For every page of OUT and every URL in `href`, `src`, `srcset` and `poster` attributes:
- a relative URL must name a file of OUT (a directory: its index.html), and its #fragment an
  `id` (or `<a name>`) of that page (empty and `top` always match);
- an absolute URL under SITE_URL must name a file that OUT does not have (else it should have
  been made relative).
Prints one line per problem and a summary; exits 1 when there are problems.
"""

import os
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urljoin, urlsplit


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls, self.ids, self.base = [], set(), None

    def handle_starttag(self, tag, attrs):
        seen = set()
        for name, value in attrs:
            if name in seen or value is None:
                continue
            seen.add(name)
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            if tag == "base" and name == "href":
                self.base = value
            if name in ("href", "src", "poster"):
                self.urls.append((tag, name, value.strip()))
            if name in ("srcset", "imagesrcset"):
                for candidate in value.split(","):
                    parts = candidate.strip().split()
                    if parts:
                        self.urls.append((tag, name, parts[0]))


def parse(path):
    page = Page()
    with open(path, "rb") as f:
        page.feed(f.read().decode("utf-8", "replace"))
    page.close()
    return page


def main(root, site_url):
    root = os.path.abspath(root)
    if not site_url.endswith("/"):
        site_url += "/"
    pages = {}
    files = set()
    for d, _, names in os.walk(root):
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/")
            files.add(rel)
            if n.endswith((".html", ".htm")):
                pages[rel] = None
    problems, links = [], 0
    for rel in sorted(pages):
        page = parse(os.path.join(root, rel))
        if page.base is not None:
            problems.append(f"{rel}: a <base href={page.base!r}> is left")
        here = "file:///" + rel
        for tag, attr, url in page.urls:
            links += 1
            parts = urlsplit(url)
            if parts.scheme:
                if url.startswith(site_url):
                    target = unquote(urlsplit(url[len(site_url):]).path)
                    if target == "" or target.endswith("/"):
                        target += "index.html"
                    if target in files:
                        problems.append(f"{rel}: <{tag} {attr}> {url}: an internal link left absolute")
                continue
            if url.startswith("//"):
                continue
            resolved = urlsplit(urljoin(here, url))
            target = unquote(resolved.path).lstrip("/")
            if target == "" or target.endswith("/"):
                target += "index.html"
            if target not in files:
                problems.append(f"{rel}: <{tag} {attr}> {url}: no such file {target}")
                continue
            fragment = unquote(resolved.fragment)
            if fragment and fragment.lower() != "top" and target in pages:
                if pages[target] is None:
                    pages[target] = parse(os.path.join(root, target)).ids
                if fragment not in pages[target] and resolved.fragment not in pages[target]:
                    problems.append(f"{rel}: <{tag} {attr}> {url}: no id {fragment!r} in {target}")
    for p in problems:
        print(p)
    print(f"{len(pages)} pages, {links} URLs: {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))

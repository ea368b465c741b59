#!/usr/bin/env python3
"""Check that a page written to disk opens from file:// with everything it loads.

    python3 scripts/check-page.py PAGE.html

Reads PAGE and, recursively, every stylesheet and frame it loads, with the standard library
only (html.parser, a regular expression for CSS), independently of linkbase. Each reference is
resolved against its file's file:// URL (urllib.parse.urljoin, RFC 3986 as browsers do for
file:) and must be:
- a resource the page loads (`src`, `srcset`, `background`, `poster`, `data`, `<link href>`,
  CSS `url()` and `@import`): an existing file on disk, never a `cid:` or any other scheme;
- a hyperlink (`<a href>`, `<area href>`): an existing file when it is relative; an absolute
  link elsewhere (`https:`, `mailto:`) is counted, not followed; a `cid:` is an error.
A fragment (`#x`) alone names the page itself. Prints one line per reference that fails, then a
summary; the exit status is 1 when any failed.
"""
import html.parser
import os
import re
import sys
import urllib.parse
import urllib.request

RESOURCE_ATTRS = {"src", "background", "poster", "data"}
# CSS Syntax: url(…) unquoted or quoted, and @import "…".
CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)|@import\s+(?:"([^"]*)"|'([^']*)')""")


def css_urls(text):
    for m in CSS_URL.finditer(text):
        yield next(g for g in m.groups() if g is not None)


class Page(html.parser.HTMLParser):
    """The references of one HTML file, as (kind, value, where)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs = []
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            where = "<%s %s>" % (tag, name)
            if name == "href":
                # A stylesheet or icon loads with the page; other hrefs are links to follow.
                rel = (dict(attrs).get("rel") or "").lower().split()
                loads = tag == "link" and ("stylesheet" in rel or "icon" in rel)
                self.refs.append(("resource" if loads else "link", value, where))
            elif name in RESOURCE_ATTRS:
                self.refs.append(("resource", value, where))
            elif name in ("srcset", "imagesrcset"):
                for candidate in value.split(","):
                    url = candidate.strip().split()
                    if url:
                        self.refs.append(("resource", url[0], where))
            elif name == "style":
                for url in css_urls(value):
                    self.refs.append(("resource", url, where))
        self.in_style = tag == "style"

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if self.in_style:
            for url in css_urls(data):
                self.refs.append(("resource", url, "<style>"))


def local_file(url):
    """The file a file: URL names, without its query and fragment; None for another scheme."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "file":
        return None
    return urllib.request.url2pathname(parts.path)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    start = os.path.abspath(argv[1])
    todo = [start]
    seen = set()
    checked = external = 0
    failures = []
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        base = urllib.parse.urljoin("file:", urllib.request.pathname2url(path))
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        if path.endswith(".css"):
            refs = [("resource", url, "url()") for url in css_urls(text)]
        else:
            page = Page()
            page.feed(text)
            page.close()
            refs = page.refs
        for kind, value, where in refs:
            value = value.strip()
            if not value or value.startswith("#"):
                continue
            checked += 1
            resolved = urllib.parse.urljoin(base, value)
            target = local_file(resolved)
            shown = "%s: %s %r" % (os.path.relpath(path), where, value)
            if target is None:
                scheme = urllib.parse.urlsplit(resolved).scheme
                if kind == "link" and scheme not in ("cid", "mid", "thismessage", ""):
                    external += 1
                else:
                    failures.append("%s: not a file on disk (%s:)" % (shown, scheme))
                continue
            if not os.path.isfile(target):
                failures.append("%s: no such file %s" % (shown, os.path.relpath(target)))
                continue
            if kind == "resource" and (target.endswith(".css") or target.endswith(".html")):
                todo.append(target)
    for line in failures:
        print(line)
    def n(count, noun):
        return "%d %s%s" % (count, noun, "" if count == 1 else "s")

    print(
        "%s in %s: %d fail, %s to other sites not followed"
        % (n(checked, "reference"), n(len(seen), "file"), len(failures), n(external, "link"))
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

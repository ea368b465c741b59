#!/usr/bin/env python3
"""Does an offline mirror browse from file://? An independent check (stdlib only).

    python3 scripts/mirror-check.py MIRROR_DIR --warc CRAWL.warc.gz [--json]

What a browser does with each page of MIRROR_DIR opened from its file: URL, without a network:
- a page is a file named *.html or *.htm (from disk a browser picks the type by the name);
- every subresource (stylesheets, scripts, images, frames, ...; a loaded stylesheet's url()
  and @import, recursively) is resolved against the page's <base> or file: URL (urljoin, as a
  browser would); it loads when it names an existing file (a file: URL's query is not part of
  the path), and fails otherwise: a missing file, or an http(s) URL (no network offline);
- a link (<a>, <area>) "into the site left absolute whose target was saved" is an http(s) URL
  the crawl saved (a 2xx response in the WARC, or a redirect to one), fragment aside: offline
  it leads nowhere although the mirror has the page; a relative link to no file is broken;
  other http(s) links to a host the crawl saved from are listed apart (their URL was not
  saved as written: e.g. a non-ASCII link encoded in the wrong charset).

Prints a summary line per figure (or one JSON object with --json) and lists each problem; exit
status 1 when anything failed, 0 otherwise.
"""
import argparse
import gzip
import html.parser
import json
import os
import re
import sys
import urllib.parse
import urllib.request

SUBRESOURCE = {
    ("img", "src"), ("script", "src"), ("iframe", "src"), ("frame", "src"),
    ("embed", "src"), ("source", "src"), ("video", "poster"), ("audio", "src"),
    ("input", "src"), ("object", "data"), ("track", "src"),
}
NAVIGATION = {("a", "href"), ("area", "href")}
CSS_URL = re.compile(r"""@import\s+(?:url\(\s*)?["']?([^"')\s;]+)|url\(\s*["']?([^"')\s]+)""")


def saved_urls(warc_path):
    """The URLs a crawl saved: 2xx responses, and redirects that lead to one."""
    opener = gzip.open if warc_path.endswith(".gz") else open
    ok, redirects = set(), {}
    with opener(warc_path, "rb") as f:
        data = f.read()
    pos = 0
    while True:
        start = data.find(b"WARC/", pos)
        if start < 0:
            break
        end = data.find(b"\r\n\r\n", start)
        if end < 0:
            break
        head = data[start:end].decode("utf-8", "replace").split("\r\n")
        fields = {}
        for line in head[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                fields[k.strip().lower()] = v.strip()
        length = int(fields.get("content-length", "0"))
        block = data[end + 4:end + 4 + length]
        pos = end + 4 + length
        if fields.get("warc-type") != "response":
            continue
        uri = fields.get("warc-target-uri", "").strip("<>")
        http_head = block.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        parts = http_head[0].split()
        if len(parts) < 2 or not parts[1].isdigit():
            continue
        status = int(parts[1])
        if 200 <= status < 300:
            ok.add(uri)
        elif 300 <= status < 400:
            for line in http_head[1:]:
                if line.lower().startswith("location:"):
                    redirects[uri] = urllib.parse.urljoin(uri, line.split(":", 1)[1].strip())
    for uri in list(redirects):
        seen, at = set(), uri
        while at in redirects and at not in seen:
            seen.add(at)
            at = redirects[at]
        if at in ok:
            ok.add(uri)
    return ok


def file_path(url):
    """The file a file: URL names (query and fragment are not part of it)."""
    parts = urllib.parse.urlsplit(url)
    return urllib.request.url2pathname(urllib.parse.unquote(parts.path))


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.base = None
        self.subresources = []
        self.stylesheets = []
        self.links = []

    def handle_starttag(self, tag, attrs):
        a = {k: (v or "") for k, v in attrs}
        if tag == "base" and self.base is None and "href" in a:
            self.base = a["href"]
        if tag == "link" and "href" in a:
            rel = a.get("rel", "").lower().split()
            if "stylesheet" in rel:
                self.stylesheets.append(a["href"])
            elif "icon" in rel or "preload" in rel:
                self.subresources.append(a["href"])
        for (t, attr) in SUBRESOURCE:
            if t == tag and a.get(attr, "").strip():
                self.subresources.append(a[attr])
        for (t, attr) in NAVIGATION:
            if t == tag and attr in a:
                self.links.append(a[attr])


def check(mirror, saved):
    mirror = os.path.abspath(mirror)
    result = {"pages": 0, "subresources": 0, "failed": [], "left_absolute": [],
              "broken_links": [], "links": 0, "absolute_into_site": []}
    hosts = {urllib.parse.urlsplit(u).netloc.lower() for u in saved}

    def load(url, where, kind, depth=0):
        result["subresources"] += 1
        url = url.strip()
        scheme = urllib.parse.urlsplit(url).scheme.lower()
        if scheme == "data":
            return
        if scheme != "file":
            result["failed"].append((where, kind, url))
            return
        path = file_path(url)
        if not os.path.isfile(path):
            result["failed"].append((where, kind, url))
            return
        if kind == "stylesheet" and depth < 8:
            with open(path, "rb") as f:
                css = f.read().decode("utf-8", "replace")
            for m in CSS_URL.finditer(css):
                ref = m.group(1) or m.group(2)
                if ref.startswith("#"):
                    continue
                nested = "stylesheet" if m.group(1) else "css url()"
                load(urllib.parse.urljoin(url, ref), os.path.relpath(path, mirror), nested,
                     depth + 1)

    for dirpath, _, files in os.walk(mirror):
        for name in sorted(files):
            if not name.lower().endswith((".html", ".htm")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, mirror)
            result["pages"] += 1
            page = Page()
            with open(path, "rb") as f:
                # Only the URLs matter, and they are ASCII in a mirror fit to browse.
                page.feed(f.read().decode("latin-1"))
            url = "file://" + urllib.request.pathname2url(path)
            base = urllib.parse.urljoin(url, page.base) if page.base is not None else url
            for ref in page.stylesheets:
                load(urllib.parse.urljoin(base, ref), rel, "stylesheet")
            for ref in page.subresources:
                load(urllib.parse.urljoin(base, ref), rel, "subresource")
            for ref in page.links:
                result["links"] += 1
                target = urllib.parse.urljoin(base, ref.strip())
                parts = urllib.parse.urlsplit(target)
                if parts.scheme in ("http", "https"):
                    if urllib.parse.urldefrag(target)[0] in saved:
                        result["left_absolute"].append((rel, target))
                    elif parts.netloc.lower() in hosts:
                        result["absolute_into_site"].append((rel, target))
                elif parts.scheme == "file" and not os.path.exists(file_path(target)):
                    result["broken_links"].append((rel, target))
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mirror")
    ap.add_argument("--warc", required=True, help="the crawl's WARC: which URLs were saved")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    r = check(args.mirror, saved_urls(args.warc))
    if args.json:
        print(json.dumps(r, sort_keys=True))
    else:
        print(f"pages: {r['pages']}")
        print(f"subresources: {r['subresources']}, failed: {len(r['failed'])}")
        for f in r["failed"]:
            print(f"  failed: {f[0]}: {f[1]} {f[2]}")
        print(f"links: {r['links']}, left absolute to a saved page: {len(r['left_absolute'])}, "
              f"broken: {len(r['broken_links'])}")
        for f in r["left_absolute"]:
            print(f"  left absolute: {f[0]}: {f[1]}")
        print(f"other links into the crawled site left absolute (target not saved under that "
              f"URL): {len(r['absolute_into_site'])}")
        for f in r["absolute_into_site"]:
            print(f"  absolute: {f[0]}: {f[1]}")
        for f in r["broken_links"]:
            print(f"  broken: {f[0]}: {f[1]}")
    return 1 if r["failed"] or r["left_absolute"] or r["broken_links"] else 0


if __name__ == "__main__":
    sys.exit(main())

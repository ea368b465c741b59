#!/usr/bin/env python3
"""Write the bundled examples the README and docs/ run, from this script alone.

    python3 scripts/make-examples.py          # (re)write them under examples/
    python3 scripts/make-examples.py --check  # exit 1 when a committed file differs

- examples/site/: a tiny site with planted broken links (a missing page, a missing fragment, a
  missing image), for `check` and `rewrite DIR`.
- examples/crawl.warc.gz: that site as a crawler would have archived it from
  http://example.com/site/ (WARC/1.1, ISO 28500: a warcinfo record, a request and a response
  per page, a 301 redirect, a page served with a Content-Location header, a page with a
  `<base href>`, a revisit of an unchanged page; each record its own gzip member, as
  wget and Heritrix write them). Dates, record IDs and gzip headers are fixed, so the file is the
  same on every run.
- examples/mail/newsletter.eml: an HTML mail with inline images (RFC 2392 `cid:` in `src`, in a
  `background` attribute and in a `<style>` `url()`), a plain-text alternative, a link relative
  to the part's Content-Base (RFC 2110) and a PDF attachment.
- examples/mail/saved-page.mht: a page saved as MHTML (RFC 2557): parts named by
  Content-Location, a stylesheet part whose `url()` names an image part.

Everything here is written for this repository: MIT OR Apache-2.0, as the project. The images
are generated (solid-colour PNGs, W3C PNG Specification: IHDR, IDAT, IEND).
"""
import base64
import gzip
import hashlib
import os
import struct
import sys
import uuid
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
SITE_URL = "http://example.com/site/"
DATE = "2026-01-02T03:04:05Z"


def png(width, height, rgb):
    """A solid-colour 8-bit RGB PNG."""

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    row = b"\x00" + bytes(rgb) * width
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(row * height, 9))
        + chunk(b"IEND", b"")
    )


LOGO = png(48, 16, (0x2B, 0x6C, 0xB0))
BANNER = png(120, 24, (0xE0, 0x8E, 0x2B))
BACKGROUND = png(8, 8, (0xF4, 0xF1, 0xEA))

SITE = {
    "index.html": b"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Example site</title>
<link rel="stylesheet" href="style.css"></head>
<body>
<img src="img/logo.png" alt="logo" width="48" height="16">
<h1 id="top">Example site</h1>
<ul>
<li><a href="about/">About</a></li>
<li><a href="news.html#latest">Latest news</a></li>
<li><a href="contact.html">Contact</a></li>
<li><a href="https://www.rfc-editor.org/rfc/rfc2396">RFC 2396</a></li>
</ul>
</body>
</html>
""",
    "news.html": b"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>News</title>
<link rel="stylesheet" href="style.css"></head>
<body>
<p><a href="./">Home</a> &middot; <a href="about/#team">The team</a></p>
<h2 id="2026">2026</h2>
<p>Nothing yet. <img src="img/banner.png" alt="banner"></p>
</body>
</html>
""",
    "about/index.html": b"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>About</title>
<link rel="stylesheet" href="../style.css"></head>
<body>
<p><a href="../">Home</a> &middot; <a href="/site/news.html">News</a></p>
<h2 id="team">The team</h2>
<img src="../img/logo.png" alt="logo" srcset="../img/logo.png 1x, ../img/logo@2x.png 2x">
</body>
</html>
""",
    "style.css": b"body { background: url(img/bg.png); font-family: sans-serif }\n",
    "img/logo.png": LOGO,
    "img/banner.png": BANNER,
    "img/bg.png": BACKGROUND,
}

CDN_PAGE = b"""<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Assets</title>
<base href="https://cdn.example.com/assets/"></head>
<body><img src="logo.png" alt="logo"> <a href="/site/">Home</a></body>
</html>
"""

CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css", ".png": "image/png"}


def warc_record(kind, uri, block, fields=()):
    """One WARC/1.1 record (ISO 28500:2017 §5), its ID named by its type and URI."""
    record_id = uuid.uuid5(uuid.NAMESPACE_URL, kind + " " + (uri or ""))
    head = [
        "WARC/1.1",
        "WARC-Type: " + kind,
        "WARC-Record-ID: <urn:uuid:%s>" % record_id,
        "WARC-Date: " + DATE,
    ]
    if uri:
        head.append("WARC-Target-URI: " + uri)
    head.extend(fields)
    head.append("WARC-Block-Digest: sha1:" + base64.b32encode(hashlib.sha1(block).digest()).decode())
    head.append("Content-Length: %d" % len(block))
    return ("\r\n".join(head) + "\r\n\r\n").encode() + block + b"\r\n\r\n", record_id


def http_response(status, headers, body, head_only=False):
    """An HTTP/1.1 response; `head_only`: its head alone, as a revisit record holds it."""
    lines = ["HTTP/1.1 " + status] + ["%s: %s" % h for h in headers] + ["Content-Length: %d" % len(body)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + (b"" if head_only else body)


def crawl():
    """The site as a crawl: each record a gzip member with a fixed header (mtime 0)."""
    members = []

    def add(kind, uri, block, fields=()):
        record, record_id = warc_record(kind, uri, block, fields)
        members.append(gzip.compress(record, mtime=0))
        return record_id

    add(
        "warcinfo",
        None,
        b"software: scripts/make-examples.py (linkbase)\r\nformat: WARC File Format 1.1\r\n",
        ["Content-Type: application/warc-fields"],
    )
    # The old address redirects to the site (a 301 is archived, not extracted).
    old = "http://example.com/old"
    add("request", old, b"GET /old HTTP/1.1\r\nHost: example.com\r\n\r\n", ["Content-Type: application/http;msgtype=request"])
    add(
        "response",
        old,
        http_response("301 Moved Permanently", [("Location", "/site/")], b""),
        ["Content-Type: application/http;msgtype=response"],
    )
    pages = {}
    for path in ["index.html", "news.html", "about/index.html", "style.css", "img/logo.png", "img/banner.png", "img/bg.png"]:
        body = SITE[path]
        uri = SITE_URL + ("" if path == "index.html" else "about/" if path == "about/index.html" else path)
        ctype = CONTENT_TYPES[os.path.splitext(path)[1]]
        digest = "sha1:" + base64.b32encode(hashlib.sha1(body).digest()).decode()
        target = uri.split("example.com", 1)[1]
        add("request", uri, ("GET %s HTTP/1.1\r\nHost: example.com\r\n\r\n" % target).encode(), ["Content-Type: application/http;msgtype=request"])
        pages[uri] = add(
            "response",
            uri,
            http_response("200 OK", [("Content-Type", ctype)], body),
            ["Content-Type: application/http;msgtype=response", "WARC-Payload-Digest: " + digest],
        )
        if path == "news.html":
            news_digest = digest
    # Two pages whose base is not their address: the news page served at another URL with a
    # Content-Location header (RFC 2396 §5.1.2), and a page with a <base href> (§5.1.1).
    latest = "http://example.com/latest"
    add("request", latest, b"GET /latest HTTP/1.1\r\nHost: example.com\r\n\r\n", ["Content-Type: application/http;msgtype=request"])
    add(
        "response",
        latest,
        http_response("200 OK", [("Content-Type", CONTENT_TYPES[".html"]), ("Content-Location", "/site/news.html")], SITE["news.html"]),
        ["Content-Type: application/http;msgtype=response"],
    )
    cdn = SITE_URL + "cdn.html"
    add("request", cdn, b"GET /site/cdn.html HTTP/1.1\r\nHost: example.com\r\n\r\n", ["Content-Type: application/http;msgtype=request"])
    add(
        "response",
        cdn,
        http_response("200 OK", [("Content-Type", CONTENT_TYPES[".html"])], CDN_PAGE),
        ["Content-Type: application/http;msgtype=response"],
    )
    # A second visit of the news page found it unchanged (identical-payload-digest profile).
    news = SITE_URL + "news.html"
    add(
        "revisit",
        news + "?from=feed",
        http_response("200 OK", [("Content-Type", CONTENT_TYPES[".html"])], SITE["news.html"], head_only=True),
        [
            "Content-Type: application/http;msgtype=response",
            "WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest",
            "WARC-Refers-To: <urn:uuid:%s>" % pages[news],
            "WARC-Refers-To-Target-URI: " + news,
            "WARC-Refers-To-Date: " + DATE,
            "WARC-Payload-Digest: " + news_digest,
        ],
    )
    return b"".join(members)


def qp_lines(text):
    """Quoted-printable (RFC 2045 §6.7) of ASCII text with `=` and long lines: soft breaks."""
    out = []
    for line in text.split("\n"):
        line = line.replace("=", "=3D")
        while len(line) > 75:
            cut = 75
            while line[cut - 2 : cut].find("=") >= 0 and cut > 70:
                cut -= 1
            out.append(line[:cut] + "=")
            line = line[cut:]
        out.append(line)
    return "\r\n".join(out)


def b64(data):
    text = base64.b64encode(data).decode()
    return "\r\n".join(text[i : i + 76] for i in range(0, len(text), 76))


NEWSLETTER_HTML = """<!doctype html>
<html><head><meta charset="utf-8"><title>Example news, January</title>
<style>.head { background: url(cid:bg.png@example.com) }</style></head>
<body>
<table width="100%" background="cid:bg.png@example.com"><tr><td class="head">
<img src="cid:logo.png@example.com" alt="Example" width="48" height="16">
</td></tr></table>
<h1>January at Example</h1>
<p><img src="cid:banner.png@example.com" alt="banner"></p>
<p>Read it <a href="january.html">on the web</a>, or see <a href="https://example.com/site/news.html#2026">the news page</a>.</p>
</body></html>
"""


def newsletter():
    parts = [
        "From: Example News <news@example.com>",
        "To: reader@example.org",
        "Subject: Example news, January",
        "Date: Fri, 02 Jan 2026 03:04:05 +0000",
        "Message-ID: <january@example.com>",
        "MIME-Version: 1.0",
        'Content-Type: multipart/mixed; boundary="mixed"',
        "",
        "--mixed",
        'Content-Type: multipart/alternative; boundary="alt"',
        "",
        "--alt",
        "Content-Type: text/plain; charset=utf-8",
        "",
        "January at Example. Read it on the web: https://example.com/news/january.html",
        "--alt",
        'Content-Type: multipart/related; boundary="rel"; type="text/html"',
        "",
        "--rel",
        "Content-Type: text/html; charset=utf-8",
        "Content-Transfer-Encoding: quoted-printable",
        "Content-Base: https://example.com/news/",
        "",
        qp_lines(NEWSLETTER_HTML),
    ]
    for cid, name, data in [
        ("logo.png@example.com", "logo.png", LOGO),
        ("banner.png@example.com", "banner.png", BANNER),
        ("bg.png@example.com", "bg.png", BACKGROUND),
    ]:
        parts += [
            "--rel",
            "Content-Type: image/png",
            "Content-Transfer-Encoding: base64",
            "Content-ID: <%s>" % cid,
            'Content-Disposition: inline; filename="%s"' % name,
            "",
            b64(data),
        ]
    parts += [
        "--rel--",
        "--alt--",
        "--mixed",
        'Content-Type: application/pdf; name="programme.pdf"',
        "Content-Transfer-Encoding: base64",
        'Content-Disposition: attachment; filename="programme.pdf"',
        "",
        b64(b"%PDF-1.4\n% a placeholder, not a real document\n%%EOF\n"),
        "--mixed--",
        "",
    ]
    return "\r\n".join(parts).encode()


SAVED_HTML = """<!doctype html>
<html><head><meta charset="utf-8"><title>A post</title>
<link rel="stylesheet" href="../css/blog.css"></head>
<body>
<p><a href="./">All posts</a> &middot; <a href="#comments">Comments</a></p>
<img src="../img/photo.png" alt="photo">
<h2 id="comments">Comments</h2>
</body></html>
"""


def saved_page():
    parts = [
        "From: <Saved by a browser>",
        "Subject: A post",
        "MIME-Version: 1.0",
        'Content-Type: multipart/related; type="text/html"; boundary="page"',
        "",
        "--page",
        "Content-Type: text/html; charset=utf-8",
        "Content-Transfer-Encoding: quoted-printable",
        "Content-Location: http://blog.example.com/2026/post.html",
        "",
        qp_lines(SAVED_HTML),
        "--page",
        "Content-Type: text/css",
        "Content-Location: http://blog.example.com/css/blog.css",
        "",
        "body { background: url(../img/bg.png) }",
        "--page",
        "Content-Type: image/png",
        "Content-Transfer-Encoding: base64",
        "Content-Location: http://blog.example.com/img/photo.png",
        "",
        b64(BANNER),
        "--page",
        "Content-Type: image/png",
        "Content-Transfer-Encoding: base64",
        "Content-Location: http://blog.example.com/img/bg.png",
        "",
        b64(BACKGROUND),
        "--page--",
        "",
    ]
    return "\r\n".join(parts).encode()


def files():
    out = {os.path.join("site", p): b for p, b in SITE.items()}
    out["crawl.warc.gz"] = crawl()
    out[os.path.join("mail", "newsletter.eml")] = newsletter()
    out[os.path.join("mail", "saved-page.mht")] = saved_page()
    return out


def main():
    check = "--check" in sys.argv[1:]
    differ = []
    for rel, data in sorted(files().items()):
        path = os.path.join(ROOT, rel)
        if check:
            try:
                with open(path, "rb") as f:
                    if f.read() == data:
                        continue
            except OSError:
                pass
            differ.append(rel)
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    if differ:
        print("examples differ from scripts/make-examples.py: " + ", ".join(differ), file=sys.stderr)
        print("run: python3 scripts/make-examples.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

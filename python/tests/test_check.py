"""linkbase.check: a site's tree checked as `linkbase check` does it, offline and online (against
a server the test starts on 127.0.0.1)."""

import http.server
import threading

import pytest

import linkbase

# The fields of a `check --format jsonl` record, in order.
FIELDS = [
    "file", "part", "element", "attribute", "original", "resolved", "base", "base_source",
    "same_document", "kind", "rewritten", "diagnostic", "srcdoc_depth", "target_part", "line",
    "column", "verdict", "target",
]


def site(root, external):
    (root / "docs").mkdir()
    (root / "index.html").write_text(
        '<a href="docs/about.html">a</a>\n<a href="gone.html">g</a>\n'
        '<a href="docs/about.html#team">t</a>\n<a href="docs/about.html#nowhere">n</a>\n'
        + "".join(f'<a href="{u}">x</a>\n' for u in external)
    )
    (root / "docs" / "about.html").write_text(
        '<h2 id="team">Team</h2>\n<link rel=stylesheet href="../style.css">\n'
    )
    (root / "style.css").write_text("body { background: url(img.png) }\n")


def verdicts(result):
    return [(r["file"], r["original"], r["verdict"], r["target"]) for r in result["records"]]


def test_offline_records_and_totals(tmp_path):
    site(tmp_path, ["https://elsewhere.example/x"])
    result = linkbase.check(tmp_path, site_url="https://example.org/")
    assert verdicts(result) == [
        ("docs/about.html", "../style.css", "ok", "style.css"),
        ("index.html", "docs/about.html", "ok", "docs/about.html"),
        ("index.html", "gone.html", "missing", "gone.html"),
        ("index.html", "docs/about.html#team", "ok", "docs/about.html"),
        ("index.html", "docs/about.html#nowhere", "missing-fragment", "docs/about.html"),
        ("index.html", "https://elsewhere.example/x", "external", None),
        ("style.css", "img.png", "missing", "img.png"),
    ]
    first = result["records"][0]
    assert list(first) == FIELDS
    assert first["resolved"] == "https://example.org/style.css"
    assert (first["line"], first["column"]) == (2, 28)
    totals = result["totals"]
    assert (totals["pages"], totals["stylesheets"], totals["links"]) == (2, 1, 7)
    assert (totals["internal"], totals["broken"], totals["external"]) == (6, 3, 1)
    assert totals["online"] is False
    assert (result["failed"], result["unreadable"], result["messages"]) == (0, [], [])
    broken = linkbase.check(tmp_path, site_url="https://example.org/", broken_only=True)
    assert [r["original"] for r in broken["records"]] == [
        "gone.html", "docs/about.html#nowhere", "img.png",
    ]


def test_local_and_exclusions(tmp_path):
    site(tmp_path, [])
    result = linkbase.check(tmp_path, local=True, exclude=["gone"], exclude_path=["style.css"])
    assert [(r["original"], r["verdict"]) for r in result["records"]] == [
        ("../style.css", "ok"),
        ("docs/about.html", "ok"),
        ("gone.html", "excluded"),
        ("docs/about.html#team", "ok"),
        ("docs/about.html#nowhere", "missing-fragment"),
    ]
    assert result["totals"]["pages_excluded"] == 1


def test_usage_errors(tmp_path):
    site(tmp_path, [])
    with pytest.raises(linkbase.UsageError, match="site_url"):
        linkbase.check(tmp_path)
    with pytest.raises(linkbase.UsageError, match="one or the other"):
        linkbase.check(tmp_path, site_url="https://example.org/", local=True)
    with pytest.raises(linkbase.UsageError, match="not a directory"):
        linkbase.check(tmp_path / "index.html", site_url="https://example.org/")
    with pytest.raises(linkbase.UsageError, match="--exclude"):
        linkbase.check(tmp_path, site_url="https://example.org/", exclude=["("])


class Handler(http.server.BaseHTTPRequestHandler):
    """/ok is there, anything else is not."""

    def answer(self, body):
        status = 200 if self.path == "/ok" else 404
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "2")
        self.end_headers()
        if body:
            self.wfile.write(b"hi")

    def do_HEAD(self):
        self.answer(False)

    def do_GET(self):
        self.answer(True)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_online(tmp_path, server, monkeypatch):
    for proxy in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(proxy, raising=False)
    site(tmp_path, [f"{server}/ok", f"{server}/nope"])
    # A private address is refused unless allowed, and said.
    refused = linkbase.check(tmp_path, site_url="https://example.org/", online=True)
    external = [r for r in refused["records"] if r["original"].startswith(server)]
    assert [r["verdict"] for r in external] == ["excluded", "excluded"]
    assert refused["totals"]["private_addresses"] == 2
    assert any("excluded" in m and "/ok" in m for m in refused["messages"])
    checked = linkbase.check(
        tmp_path, site_url="https://example.org/", online=True, allow_private=True
    )
    external = [r for r in checked["records"] if r["original"].startswith(server)]
    assert [(r["original"], r["verdict"]) for r in external] == [
        (f"{server}/ok", "ok"),
        (f"{server}/nope", "http-error"),
    ]
    assert [r["online"]["status"] for r in external] == [200, 404]
    assert list(external[0]) == FIELDS + ["online"]
    totals = checked["totals"]
    assert (totals["online"], totals["checked_online"], totals["broken_external"]) == (True, 2, 1)

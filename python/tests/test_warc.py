"""linkbase.read_warc against archives built in the test (tests/warcs.py)."""

import gzip
import io
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import linkbase
import warcs

REPO = Path(__file__).resolve().parents[2]


def cli():
    """The linkbase binary that `cargo test` built (built here if it is missing)."""
    # The newer of the two builds: a stale one would compare against yesterday's CLI.
    built = [REPO / "target" / p / "linkbase" for p in ("debug", "release")]
    built = [exe for exe in built if exe.exists()]
    if built:
        return max(built, key=lambda exe: exe.stat().st_mtime)
    subprocess.run(["cargo", "build", "--quiet", "--bin", "linkbase"], cwd=REPO, check=True)
    return REPO / "target" / "debug" / "linkbase"


def cli_links(path):
    out = subprocess.run([cli(), "links", str(path)], capture_output=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_records_links_and_provenance(tmp_path):
    path = warcs.write(tmp_path / "mixed.warc.gz", warcs.mixed())
    reader = linkbase.read_warc(path)
    records = list(reader)
    assert [r["warc_target_uri"] for r in records] == [
        "http://ex.org/old",
        "http://ex.org/new/",
        "http://ex.org/b.html",
        "http://ex.org/z/z.html",
        "http://ex.org/l.html",
        "http://ex.org/again/",
    ]
    assert reader.counts == {
        "records": 8,
        "html": 6,
        "skipped": 2,
        "past_limit": 0,
        "damaged": 0,
        "revisits": 1,
        "revisits_unresolved": 0,
        "salvaged": 0,
    }
    by_uri = {r["warc_target_uri"]: r for r in records}
    resolved = lambda uri: [(l["resolved"], l["base_source"]) for l in by_uri[uri]["links"]]  # noqa: E731
    assert resolved("http://ex.org/old") == [("http://ex.org/new/", "retrieval-uri")]
    assert resolved("http://ex.org/new/") == [("http://ex.org/other/a.html", "content-location")]
    assert resolved("http://ex.org/b.html")[-1] == ("http://cdn.ex.org/r/i.png", "base-element")
    assert resolved("http://ex.org/z/z.html") == [
        ("http://ex.org/z/s.css", "retrieval-uri"),
        ("http://ex.org/z/?q#f", "retrieval-uri"),
    ]
    assert resolved("http://ex.org/again/") == [("http://ex.org/again/a.html", "retrieval-uri")]
    assert by_uri["http://ex.org/again/"]["revisit_of"] == "<urn:uuid:r2>"
    assert by_uri["http://ex.org/l.html"]["encoding"] == "windows-1252"
    assert by_uri["http://ex.org/new/"]["base"] == "http://ex.org/other/"
    assert by_uri["http://ex.org/new/"]["base_source"] == "content-location"
    assert by_uri["http://ex.org/b.html"]["base"] == "http://cdn.ex.org/r/"
    assert by_uri["http://ex.org/b.html"]["base_source"] == "base-element"
    assert by_uri["http://ex.org/old"]["status"] == 301
    # The media type each record was read as, on it and on its links.
    assert {r["content_type"] for r in records} == {"text/html"}
    assert {l["content_type"] for r in records for l in r["links"]} == {"text/html"}


def test_same_links_as_the_cli(tmp_path):
    path = warcs.write(tmp_path / "mixed.warc", warcs.mixed(), compress=False)
    from_python = [l for r in linkbase.read_warc(str(path)) for l in r["links"]]
    assert from_python == cli_links(path)



def test_arc_files_are_read_like_warc(tmp_path):
    # warcio's example ARC (fixtures/arc/warcio, Apache-2.0), plain and gzip, and as bytes.
    fixtures = REPO / "fixtures" / "arc" / "warcio"
    for name in ("example.arc", "example.arc.gz"):
        records = list(linkbase.read_warc(fixtures / name))
        assert [r["warc_target_uri"] for r in records] == ["http://example.com/"]
        from_python = [l for r in records for l in r["links"]]
        assert from_python == cli_links(fixtures / name)
        data = (fixtures / name).read_bytes()
        assert [l for r in linkbase.read_warc(io.BytesIO(data)) for l in r["links"]] == from_python

def test_file_objects_and_damage(tmp_path):
    data = b"".join(__import__("gzip").compress(r) for r in warcs.mixed())
    cut = data + __import__("gzip").compress(warcs.site(1)[0])[:40]
    reader = linkbase.read_warc(io.BytesIO(cut))
    assert len(list(reader)) == 6
    assert reader.counts["damaged"] == 1
    (offset, _, message), = reader.damaged
    assert offset == len(data)
    assert "truncated" in message


def test_bad_sources_raise_linkbase_errors(tmp_path):
    with pytest.raises(linkbase.ArchiveError):
        linkbase.read_warc(tmp_path / "missing.warc.gz")
    with pytest.raises(TypeError):
        linkbase.read_warc(io.StringIO("WARC/1.1"))
    with pytest.raises(linkbase.UsageError):
        linkbase.read_warc(tmp_path, profile="nope")
    # Not a WARC at all: nothing but damage, no exception.
    junk = tmp_path / "junk.warc"
    junk.write_bytes(os.urandom(5000))
    reader = linkbase.read_warc(junk)
    assert list(reader) == []
    assert reader.counts["damaged"] >= 1


def test_threads(tmp_path):
    paths = [warcs.write(tmp_path / f"s{i}.warc.gz", warcs.site(50, f"h{i}.org")) for i in range(4)]
    count = lambda p: sum(len(r["links"]) for r in linkbase.read_warc(p))  # noqa: E731
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(count, paths)) == [200] * 4


def test_ctrl_c_stops_a_long_walk_between_records(tmp_path):
    """One `next()` that walks many records without an HTML one checks for signals
    between records, so Ctrl-C raises KeyboardInterrupt there instead of after the walk."""
    import _thread
    import gzip
    import signal
    import threading
    import time

    png = warcs.response("img", "http://ex.org/i.png", "HTTP/1.1 200 OK\nContent-Type: image/png\n", b"\x89PNG")
    total = 200_000
    page = warcs.response("p", "http://ex.org/p.html", "HTTP/1.1 200 OK\nContent-Type: text/html\n", b"<a href=x>x</a>")
    path = tmp_path / "many.warc.gz"
    path.write_bytes(gzip.compress(png) * total + gzip.compress(page))
    reader = linkbase.read_warc(path)
    # Python's own Ctrl-C handler (pyspark, run by other tests in this process, installs one).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.05, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            next(reader)
            # Without the check the walk ends first and the interrupt comes here.
            time.sleep(10)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    # Interrupted inside the walk: records remain, and reading goes on from there.
    assert reader.counts["records"] < total
    rest = list(reader)
    assert [r["warc_target_uri"] for r in rest] == ["http://ex.org/p.html"]
    assert reader.counts["records"] == total + 1


def test_a_decode_bomb_is_refused_and_listed_as_failed(tmp_path):
    """A Content-Encoding that inflates past 100 times the stored body (4 MiB at
    least) is not decoded; the record is listed with failed, counted, and the next one read."""
    page = gzip.compress(gzip.compress(b"<a href=a>" * 600_000))
    bomb = warcs.response(
        "bomb", "http://ex.org/bomb", "HTTP/1.1 200 OK\nContent-Type: text/html\nContent-Encoding: gzip, gzip\n", page
    )
    path = warcs.write(tmp_path / "bomb.warc", [bomb] + warcs.site(1), compress=False)
    reader = linkbase.read_warc(path)
    assert [r["warc_target_uri"] for r in reader] == ["http://ex.org/d/p0.html"]
    assert reader.counts["past_limit"] == 1
    assert reader.failed == [
        (
            "<urn:uuid:bomb>",
            0,
            f"Content-Encoding: gzip, gzip inflates its {len(page)} stored bytes past 4194304 bytes "
            "(MAX_DECODE_RATIO: 100 times the stored body, at least 4 MiB)",
        )
    ]


def summary(reader):
    return [(r["warc_record_id"], r["offset"], r["revisit_of"], r["links"]) for r in reader]


@pytest.mark.parametrize("form", ["plain", "members", "one-member"])
def test_ranges_cut_anywhere_give_every_record_once(tmp_path, form):
    """`read_warc(path, start, end)` over ranges that meet gives each record once, the
    cut falling at every byte: inside a gzip member or an uncompressed record, exactly on a
    boundary. The revisit (r6) whose original (r2) lies before the cut is still resolved."""
    records = warcs.mixed() + warcs.site(2)
    path = tmp_path / "cut.warc"
    if form == "one-member":
        path.write_bytes(gzip.compress(b"".join(records)))
    else:
        warcs.write(path, records, compress=form == "members")
    whole = summary(linkbase.read_warc(path))
    assert len(whole) == 8 and whole[5][2] == "<urn:uuid:r2>"
    size = path.stat().st_size
    for cut in range(size + 1):
        got = summary(linkbase.read_warc(path, 0, cut)) + summary(linkbase.read_warc(path, cut))
        assert got == whole, f"cut at {cut}"
    # Many ranges at once, of several widths.
    for width in (97, 300, 1000):
        bounds = list(range(0, size, width)) + [None]
        got = [r for a, b in zip(bounds, bounds[1:]) for r in summary(linkbase.read_warc(path, a, b))]
        assert got == whole, f"width {width}"


def test_ranges_are_counted_apart(tmp_path):
    path = warcs.write(tmp_path / "s.warc.gz", warcs.site(10))
    members = [len(gzip.compress(r)) for r in warcs.site(10)]
    cut = sum(members[:4]) + 5  # inside the fifth member
    first, rest = linkbase.read_warc(path, 0, cut), linkbase.read_warc(path, cut)
    assert len(list(first)) == 5 and len(list(rest)) == 5
    assert first.counts["records"] == 5 and rest.counts["records"] == 5
    assert list(linkbase.read_warc(path, cut, cut + 10)) == []


def test_arrow_batches_are_the_rows(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import linkbase.arrow
    from linkbase.spark import rows_of_warc

    path = warcs.write(tmp_path / "m.warc.gz", warcs.mixed() + warcs.site(20))
    rows = list(rows_of_warc(str(path)))
    batches = list(linkbase.arrow.link_batches(path, batch_rows=7))
    assert [b.num_rows for b in batches] == [7] * (len(rows) // 7) + [len(rows) % 7]
    assert all(b.schema == linkbase.arrow.schema() for b in batches)
    table = pa.Table.from_batches(batches)
    assert table.column_names == [c for c, _ in linkbase.arrow.COLUMNS]
    assert [tuple(r.values()) for r in table.to_pylist()] == rows
    # Nulls (attribute, resolved, diagnostic) are nulls, not empty strings.
    assert table.column("diagnostic").null_count == sum(r[-1] is None for r in rows)
    cut = path.stat().st_size // 2
    halves = [b for s, e in ((0, cut), (cut, None)) for b in linkbase.arrow.link_batches(path, s, e)]
    assert pa.Table.from_batches(halves).to_pylist() == table.to_pylist()


def test_devices_and_files_that_are_not_archives_raise_archive_error(tmp_path):
    """read_warc('/dev/zero') raised a PanicException (or read forever); a file that is neither
    WARC nor ARC by its content or its name was read as one of no records, without a word; a
    text-mode file object gave a raw UnicodeDecodeError."""
    for source in ("/dev/zero", tmp_path):
        with pytest.raises(linkbase.ArchiveError, match="not a regular file"):
            linkbase.read_warc(source)
    page = tmp_path / "page.html"
    page.write_bytes(b"<html><a href=x>x</a></html>")
    with pytest.raises(linkbase.ArchiveError, match="not a WARC or ARC file"):
        linkbase.read_warc(page)
    with pytest.raises(linkbase.ArchiveError, match="not a WARC or ARC file"):
        linkbase.read_warc(io.BytesIO(page.read_bytes()))
    archive = warcs.write(tmp_path / "a.warc.gz", warcs.site(1))
    with open(archive) as text, pytest.raises(TypeError, match="binary mode"):
        linkbase.read_warc(text)
    # By its content, whatever its name.
    renamed = tmp_path / "a.bin"
    renamed.write_bytes(archive.read_bytes())
    assert len(list(linkbase.read_warc(renamed))) == 1

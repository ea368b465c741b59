"""The module reads mbox files and ARC archives as the CLI does, record for record.

mbox: fixtures/mbox/python-mailbox.mbox (written by CPython's mailbox module; see
fixtures/README.md) through links(), bases() and rewrite(), compared with `linkbase links`,
`linkbase base --format jsonl` and `linkbase rewrite` on the same file. ARC: warcio's test ARCs
(fixtures/arc/warcio/, Apache-2.0, LICENSE beside them) through read_warc(), compared with
`linkbase links` and `linkbase base --format jsonl`.
"""

import json
import subprocess
import warnings
from pathlib import Path

import pytest

import linkbase
from test_warc import cli

REPO = Path(__file__).resolve().parents[2]
MBOX = REPO / "fixtures" / "mbox" / "python-mailbox.mbox"
ARCS = sorted(p for p in (REPO / "fixtures" / "arc" / "warcio").iterdir() if ".arc" in p.name)


def run_cli(*args, stdin=b""):
    """The CLI's stdout (bytes) on `args`; exit 0 or 1 (1: damage said on stderr)."""
    out = subprocess.run([cli(), *map(str, args)], input=stdin, capture_output=True)
    assert out.returncode in (0, 1), out.stderr
    return out.stdout


def jsonl(stdout):
    return [json.loads(line) for line in stdout.splitlines()]


def quiet(call, *args, **kwargs):
    """`call`, failing on any warning (the fixtures hold nothing left unread)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return call(*args, **kwargs)


def test_mbox_links_are_the_cli_records():
    data = MBOX.read_bytes()
    records = quiet(linkbase.links, data)
    assert records == jsonl(run_cli("links", MBOX))
    # The message's place and Message-ID, and the media type the part was read as.
    assert [(r["mbox_message"], r["message_id"], r["content_type"]) for r in records] == [
        (0, "<one@example.org>", "text/html")
    ] * len(records)
    assert len(records) >= 2
    # str (the text itself) and bytes-like objects give the same records.
    assert quiet(linkbase.links, data.decode("utf-8")) == records
    assert quiet(linkbase.links, bytearray(data)) == records


def test_mbox_bases_are_the_cli_records():
    data = MBOX.read_bytes()
    bases = quiet(linkbase.bases, data)
    assert bases == jsonl(run_cli("base", "--format", "jsonl", MBOX))
    assert [(b["mbox_message"], b["base"], b["base_source"]) for b in bases] == [
        (0, "http://example.org/news/", "content-location")
    ]


def test_mbox_rewrite_is_the_cli_rewrite_and_reads_back():
    data = MBOX.read_bytes()
    out = quiet(linkbase.rewrite, data)
    assert out == run_cli("rewrite", MBOX)
    assert out != data
    # Read back: still two messages, every link now absolute as written.
    back = quiet(linkbase.links, out)
    assert [(r["mbox_message"], r["original"]) for r in back] == [
        (r["mbox_message"], r["resolved"]) for r in quiet(linkbase.links, data)
    ]


def test_base_of_an_mbox_names_bases():
    with pytest.raises(linkbase.UsageError, match=r"bases\(\) gives every message's records"):
        linkbase.base(MBOX.read_bytes())


MALFORMED = (
    b"From a@example.org Mon Jan  1 00:00:00 2024\n"
    b"MIME-Version: 1.0\nMessage-ID: <m@example.org>\n"
    b"Content-Type: multipart/related; boundary=b\n\nBad--b\n<a href=x>x</a>\n--b--\n"
)


def test_a_malformed_message_in_an_mbox_is_warned_not_silent():
    with pytest.warns(linkbase.LinkbaseWarning) as caught:
        records = linkbase.bases(MALFORMED)
    # The offset is the mbox file's: where the close delimiter line starts.
    at = MALFORMED.index(b"\n--b--") + 1
    assert [str(w.message) for w in caught] == [
        f"message 0: mime-malformed at offset {at}: part 0: multipart without parts (its first "
        "delimiter line is its close delimiter: what comes before it is preamble, not read)"
    ]
    assert [(r["part"], r["mbox_message"], r["message_id"]) for r in records] == [
        ("0", 0, "<m@example.org>")
    ]
    # The record carries the same place.
    assert [(d["code"], d.get("offset")) for d in records[0]["diagnostics"]] == [
        ("mime-malformed", at)
    ]


def test_a_malformed_message_alone_is_warned_too():
    message = MALFORMED.split(b"\n", 1)[1]
    at = message.index(b"\n--b--") + 1
    with pytest.warns(
        linkbase.LinkbaseWarning,
        match=f"^mime-malformed at offset {at}: part 0: multipart without",
    ):
        assert linkbase.links(message) == []


@pytest.mark.parametrize("path", ARCS, ids=lambda p: p.name)
def test_arc_records_are_the_cli_records(path):
    reader = linkbase.read_warc(path)
    records = list(reader)
    links = [link for r in records for link in r["links"]]
    assert links == jsonl(run_cli("links", path))
    # Each record holds every field of the CLI's base record of it, and says where it is.
    bases = jsonl(run_cli("base", "--format", "jsonl", path))
    assert [{k: r[k] for k in b} for r, b in zip(records, bases)] == bases
    assert len(records) == len(bases)
    for r in records:
        assert r["warc_record_id"] is None  # ARC records have no ID
        assert r["content_type"] == "text/html"
        assert isinstance(r["offset"], int)


def test_arc_damage_is_listed():
    reader = linkbase.read_warc(REPO / "fixtures" / "arc" / "warcio" / "bad.arc")
    assert list(reader) == []
    assert reader.damaged == [
        (0, None, "not an ARC record (no URL line); 202 bytes skipped to the next URL line, at offset 202")
    ]


def test_an_arc_given_to_links_names_read_warc():
    with pytest.raises(linkbase.UsageError, match=r"read_warc"):
        linkbase.links((REPO / "fixtures" / "arc" / "warcio" / "example.arc").read_bytes())


CHROME = (
    b"MIME-Version: 1.0\r\nContent-Type: multipart/related; type=\"text/html\"; boundary=\"B\"\r\n\r\n"
    b"--B\r\nContent-Type: text/html\r\nContent-Location: https://ex.org/dir/page.html\r\n\r\n"
    b"<link rel=\"stylesheet\" href=\"cid:css-1@mhtml.blink\"><img src=\"i.png\">\r\n"
    b"--B\r\nContent-Type: text/css\r\nContent-Location: cid:css-1@mhtml.blink\r\n\r\n"
    b"@charset \"utf-8\";\r\nbody { background: url(https://ex.org/bg.png) }\r\n"
    b"--B\r\nContent-Type: text/css; charset=iso-8859-2\r\nContent-Location: https://ex.org/b.css\r\n\r\n"
    b"a { color: red }\r\n--B--\r\n"
)


def test_part_records_say_their_type_and_where_a_stylesheet_encoding_came_from():
    bases = quiet(linkbase.bases, CHROME)
    assert [(b["part"], b["content_type"], b["encoding"], b["encoding_source"]) for b in bases] == [
        ("1", "text/html", "windows-1252", "fallback"),
        ("2", "text/css", "UTF-8", "charset-rule"),
        ("3", "text/css", "ISO-8859-2", "transport"),
    ]
    assert bases == jsonl(run_cli("base", "--format", "jsonl", "-", stdin=CHROME))
    links = quiet(linkbase.links, CHROME)
    # Chrome's stylesheet, labelled by its cid: Content-Location, is the link's target part.
    assert [(l["part"], l["original"], l["target_part"], l["content_type"]) for l in links] == [
        ("1", "cid:css-1@mhtml.blink", "2", "text/html"),
        ("1", "i.png", None, "text/html"),
        ("2", "https://ex.org/bg.png", None, "text/css"),
    ]

"""The Python module against the library's own golden files and the RFC's examples."""

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import linkbase

# Golden cases with links left unresolved warn (LinkbaseWarning); tests/test_documents.py tests that.
pytestmark = pytest.mark.filterwarnings("ignore::linkbase.LinkbaseWarning")

REPO = Path(__file__).resolve().parents[2]
GOLDENS = REPO / "fixtures" / "html"

# RFC 2396 Appendix C, base http://a/b/c/d;p?q: C.1 normal and C.2 abnormal examples, with the
# RFC 2396 profile's choice for leading ".." (kept, §5.2 step 6g) and "" (the current document).
APPENDIX_C_BASE = "http://a/b/c/d;p?q"
APPENDIX_C = [
    ("g:h", "g:h"),
    ("g", "http://a/b/c/g"),
    ("./g", "http://a/b/c/g"),
    ("g/", "http://a/b/c/g/"),
    ("/g", "http://a/g"),
    ("//g", "http://g"),
    ("?y", "http://a/b/c/?y"),
    ("g?y", "http://a/b/c/g?y"),
    ("#s", "http://a/b/c/d;p?q#s"),
    ("g#s", "http://a/b/c/g#s"),
    ("g?y#s", "http://a/b/c/g?y#s"),
    (";x", "http://a/b/c/;x"),
    ("g;x", "http://a/b/c/g;x"),
    ("g;x?y#s", "http://a/b/c/g;x?y#s"),
    (".", "http://a/b/c/"),
    ("./", "http://a/b/c/"),
    ("..", "http://a/b/"),
    ("../", "http://a/b/"),
    ("../g", "http://a/b/g"),
    ("../..", "http://a/"),
    ("../../", "http://a/"),
    ("../../g", "http://a/g"),
    ("", "http://a/b/c/d;p?q"),
    ("../../../g", "http://a/../g"),
    ("../../../../g", "http://a/../../g"),
    ("/./g", "http://a/./g"),
    ("/../g", "http://a/../g"),
    ("g.", "http://a/b/c/g."),
    (".g", "http://a/b/c/.g"),
    ("g..", "http://a/b/c/g.."),
    ("..g", "http://a/b/c/..g"),
    ("./../g", "http://a/b/g"),
    ("./g/.", "http://a/b/c/g/"),
    ("g/./h", "http://a/b/c/g/h"),
    ("g/../h", "http://a/b/c/h"),
    ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
    ("g;x=1/../y", "http://a/b/c/y"),
    ("g?y/./x", "http://a/b/c/g?y/./x"),
    ("g?y/../x", "http://a/b/c/g?y/../x"),
    ("g#s/./x", "http://a/b/c/g#s/./x"),
    ("g#s/../x", "http://a/b/c/g#s/../x"),
    ("http:g", "http:g"),
]


@pytest.mark.parametrize("ref,expected", APPENDIX_C)
def test_resolve_appendix_c(ref, expected):
    assert linkbase.resolve(APPENDIX_C_BASE, ref) == expected


def test_resolve_profiles():
    # RFC 3986 §5.4.1 keeps the base path for "?y" and removes the leading "..".
    assert linkbase.resolve(APPENDIX_C_BASE, "?y", "rfc3986") == "http://a/b/c/d;p?y"
    assert linkbase.resolve(APPENDIX_C_BASE, "../../../g", profile="rfc3986") == "http://a/g"
    # RFC 1808 §5.1: the empty reference is the whole base.
    assert linkbase.resolve(APPENDIX_C_BASE, "", "rfc1808") == "http://a/b/c/d;p?q"
    assert linkbase.resolve("http://a/b", "c d", "whatwg") == "http://a/c%20d"


def test_resolve_unresolvable_is_none():
    # A relative reference against an opaque base (RFC 2396 §3).
    assert linkbase.resolve("mailto:me@example.com", "g") is None


def test_resolve_bad_base():
    with pytest.raises(linkbase.BadBase) as e:
        linkbase.resolve("a/b", "g")
    assert str(e.value) == (
        'base "a/b": base URI "a/b" is not absolute: it has no scheme '
        "(RFC 2396 §5.2 needs an absolute base)"
    )


def test_bad_profile_name():
    for call in (
        lambda: linkbase.resolve("http://a/", "g", "rfc9999"),
        lambda: linkbase.rewrite(b"<a href=x>", profile="RFC 2396"),
        lambda: linkbase.links(b"<a href=x>", profile=""),
        lambda: linkbase.base(b"<a href=x>", profile="html"),
    ):
        with pytest.raises(linkbase.UsageError, match="expected one of rfc2396, rfc1808, rfc3986, whatwg"):
            call()


def test_bad_header_base_name():
    with pytest.raises(linkbase.UsageError) as e:
        linkbase.rewrite(b"<a href=x>", header_base="http")
    assert str(e.value) == 'header_base "http": expected entity or browser'


def test_binary_input():
    with pytest.raises(linkbase.DecodeError) as e:
        linkbase.rewrite(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", url="http://h/")
    assert str(e.value) == "<html>: binary data, not a text document (NUL byte at offset 8)"
    with pytest.raises(linkbase.Error):
        linkbase.links(b"\x00" * 100)


def test_bad_url():
    with pytest.raises(linkbase.BadBase) as e:
        linkbase.links(b"<a href=x>", url="not a url")
    assert "is not absolute: it has no scheme" in str(e.value)
    assert isinstance(e.value, linkbase.Error)


def test_wrong_types_are_type_errors():
    with pytest.raises(TypeError):
        linkbase.rewrite(12)  # bytes-like or str
    with pytest.raises(TypeError):
        linkbase.rewrite(b"<a href=x>", headers=[("Content-Location",)])
    with pytest.raises(TypeError):
        linkbase.rewrite(b"<a href=x>", "http://h/")  # url is keyword-only


def test_first_base_wins_where_lxml_takes_the_last():
    # HTML LS "the document base URL": the first <base href>; lxml's make_links_absolute
    # resolves against the last one (http://o/second/).
    html = b'<base href="http://o/first/"><base href="http://o/second/"><a href="a.html">a</a>'
    out = linkbase.rewrite(html, url="http://h/page.html")
    assert out == (
        b'<base href="http://o/first/"><base href="http://o/second/">'
        b'<a href="http://o/first/a.html">a</a>'
    )
    b = linkbase.base(html, url="http://h/page.html")
    assert b["base"] == "http://o/first/"
    assert b["base_source"] == "base-element"
    assert [d["code"] for d in b["diagnostics"]] == ["duplicate-base"]


def test_rewrite_and_links_exact():
    html = b"<base href=/docs/><a href=x#y>x</a><img srcset='a.png 1x, b.png 2x'>"
    # Only URL values change; quoting is the input's.
    assert linkbase.rewrite(html, url="http://h/p/q") == (
        b"<base href=http://h/docs/><a href=http://h/docs/x#y>x</a>"
        b"<img srcset='http://h/docs/a.png 1x, http://h/docs/b.png 2x'>"
    )
    records = linkbase.links(html, url="http://h/p/q")
    assert [(r["element"], r["attribute"], r["original"], r["resolved"], r["kind"]) for r in records] == [
        ("base", "href", "/docs/", "http://h/docs/", "url"),
        ("a", "href", "x#y", "http://h/docs/x#y", "url"),
        ("img", "srcset", "a.png", "http://h/docs/a.png", "srcset"),
        ("img", "srcset", "b.png", "http://h/docs/b.png", "srcset"),
    ]
    assert records[1] == {
        "part": None,
        "element": "a",
        "attribute": "href",
        "original": "x#y",
        "resolved": "http://h/docs/x#y",
        "base": "http://h/docs/",
        "base_source": "base-element",
        "same_document": False,
        "kind": "url",
        "rewritten": True,
        "diagnostic": None,
        "srcdoc_depth": 0,
        "target_part": None,
        "line": 1,
        "column": 27,
    }


@pytest.mark.parametrize(
    "headers",
    [
        {"Content-Location": "http://c/d/e.html"},
        [("Content-Location", "http://c/d/e.html")],
        (("content-location", "http://c/d/e.html"),),
    ],
    ids=["mapping", "list", "tuple-lowercase"],
)
def test_headers_mapping_or_pairs(headers):
    html = b"<a href=x>x</a>"
    assert linkbase.base(html, url="http://h/p", headers=headers) == {
        "part": None,
        "base": "http://c/d/e.html",
        "base_source": "content-location",
        "encoding": "windows-1252",
        "encoding_source": "fallback",
        "diagnostics": [],
    }
    assert linkbase.rewrite(html, url="http://h/p", headers=headers) == (
        b"<a href=http://c/d/x>x</a>"
    )
    # Under the browser reading, Content-Location is not a base (RFC 7231 §3.1.4.2).
    b = linkbase.base(html, url="http://h/p", headers=headers, header_base="browser")
    assert (b["base"], b["base_source"]) == ("http://h/p", "retrieval-uri")
    assert [d["code"] for d in b["diagnostics"]] == ["header-ignored"]


def test_content_type_charset_from_headers():
    html = "<a href='é.html'>é</a>".encode("iso-8859-1")
    b = linkbase.base(html, headers={"Content-Type": "text/html; charset=iso-8859-1"})
    assert (b["encoding"], b["encoding_source"]) == ("windows-1252", "transport")


# --- The library's golden files: the same bytes and records as `linkbase rewrite/links/base`.

SUPPORTED = {"about", "source", "url", "headers", "header_base", "profile"}


def known_failures():
    """Cases whose `<case>/stream` trial (the default engine, as here) the ledger lists; the one
    ledger format (tests/common/ledger.rs): one trial name per line, `#` comment lines."""
    lines = (GOLDENS / "KNOWN_FAILURES.txt").read_text().splitlines()
    names = {line.strip() for line in lines if line.strip() and not line.strip().startswith("#")}
    return {name.removesuffix("/stream") for name in names if name.endswith("/stream")}


def golden_cases():
    skip = known_failures()
    for case in sorted(GOLDENS.iterdir()):
        meta_path = case / "meta.json"
        if not meta_path.exists() or case.name in skip:
            continue
        meta = json.loads(meta_path.read_text())
        # Options the Python API does not offer (content_base, charset, drop_base, …) are the
        # CLI's; those cases stay with the Rust harness.
        if set(meta) <= SUPPORTED:
            yield pytest.param(case, meta, id=case.name)


def kwargs(meta):
    kw = {}
    if "url" in meta:
        kw["url"] = meta["url"]
    if "headers" in meta:
        kw["headers"] = [tuple(part.strip() for part in h.split(":", 1)) for h in meta["headers"]]
    for key in ("profile", "header_base"):
        if key in meta:
            kw[key] = meta[key]
    return kw


CASES = list(golden_cases())


def test_goldens_found():
    assert len(CASES) >= 60


@pytest.mark.parametrize("case,meta", CASES)
def test_golden(case, meta):
    html = (case / "input.html").read_bytes()
    kw = kwargs(meta)
    assert linkbase.rewrite(html, **kw) == (case / "expected.html").read_bytes()
    expected_links = [json.loads(line) for line in (case / "expected.links.jsonl").read_text().splitlines()]
    got = linkbase.links(html, **kw)
    assert got == expected_links
    # The fields in the CLI's order too (the dicts are made from the records' serde form).
    assert [list(r) for r in got] == [list(r) for r in expected_links]
    expected_base = json.loads((case / "expected.base.json").read_text())
    got_base = linkbase.base(html, **kw)
    assert got_base == expected_base
    assert list(got_base) == list(expected_base)


def test_threads_equal_serial():
    pages = [(case / "input.html").read_bytes() for case, _ in (p.values for p in CASES)]
    pages += [(REPO / "examples" / "data" / "python-tutorial-introduction.html").read_bytes()]
    work = pages * 8
    url = "http://example.com/dir/page.html"

    def rewrite(page):
        # Some inputs are refused without their charset (malformed bytes): the same refusal,
        # with the same message, on every thread.
        try:
            return linkbase.rewrite(page, url=url)
        except linkbase.Error as e:
            return (type(e).__name__, str(e))

    serial = [rewrite(p) for p in work]
    serial_links = [linkbase.links(p, url=url) for p in work]
    with ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(pool.map(rewrite, work))
        threaded_links = list(pool.map(lambda p: linkbase.links(p, url=url), work))
    assert threaded == serial
    assert threaded_links == serial_links


def test_exceptions_are_named_in_the_public_module():
    # Tracebacks say linkbase.DecodeError, and pickling finds the class there.
    import pickle

    assert linkbase.DecodeError.__module__ == "linkbase"
    assert issubclass(linkbase.BadBase, linkbase.Error)
    assert issubclass(linkbase.Error, Exception)
    try:
        linkbase.rewrite(b"\x00")
    except linkbase.DecodeError as e:
        again = pickle.loads(pickle.dumps(e))
        assert type(again) is linkbase.DecodeError
        assert str(again) == str(e)


def test_a_str_that_names_a_file_is_refused_and_a_path_is_read(tmp_path):
    """One rule: a str is the document's text; a str that is a path to an existing file is
    refused with a message pointing to pathlib.Path (it silently gave no links); a Path is the
    file, classified by its content and name as the CLI classifies it."""
    page = tmp_path / "index.html"
    page.write_bytes(b'<a href="x.html">x</a>')
    with pytest.raises(linkbase.UsageError, match=r"pathlib\.Path"):
        linkbase.links(str(page), url="http://h/d/")
    got = linkbase.links(page, url="http://h/d/")
    assert [l["resolved"] for l in got] == ["http://h/d/x.html"]
    assert linkbase.rewrite(page, url="http://h/d/") == b'<a href="http://h/d/x.html">x</a>'
    # Text that merely looks like a name is text.
    assert linkbase.links("no-such-file.html", url="http://h/d/") == []
    # An mbox named .txt is an mbox by its content.
    mbox = tmp_path / "mail.txt"
    mbox.write_bytes(b"From - \nContent-Type: text/html\nContent-Location: http://m/\n\n<a href=y>y</a>\n")
    with pytest.warns(linkbase.LinkbaseWarning, match="read as an mbox"):
        (link,) = linkbase.links(mbox)
    assert (link["resolved"], link["mbox_message"]) == ("http://m/y", 0)


def test_iter_links_gives_the_links_of_links_one_at_a_time(tmp_path):
    """iter_links() is links() one dict at a time (a page of millions of links in the memory of
    the page: BENCHMARKS.md), for a page past the 1 MiB the streaming engine reads twice, a
    message, an mbox; unresolved links are warned at the end, or raise with strict=True."""
    big = b"".join(b'<a href="p%06d.html">x</a><img src="/i/%d.png">\n' % (i, i) for i in range(40000))
    assert len(big) > 1 << 20
    page = b'<base href="/d/"><a href="x.html">x</a>' + big
    got = list(linkbase.iter_links(page, url="http://h/a/"))
    assert got == linkbase.links(page, url="http://h/a/")
    assert len(got) == 80002
    mail = b"From - \nContent-Type: text/html\nContent-Location: http://m/\n\n<a href=y>y</a>\n"
    with pytest.warns(linkbase.LinkbaseWarning):
        assert list(linkbase.iter_links(mail)) == linkbase.links(mail)
    # Stopping early is fine: the rest is read and dropped.
    it = linkbase.iter_links(page, url="http://h/a/")
    assert next(it)["resolved"] == "http://h/d/"
    del it
    with pytest.warns(linkbase.LinkbaseWarning, match="no base"):
        assert [l["original"] for l in linkbase.iter_links(b"<a href=x>")] == ["x"]
    with pytest.raises(linkbase.UnresolvedError):
        list(linkbase.iter_links(b"<a href=x>", strict=True))

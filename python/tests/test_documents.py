"""What the module takes (HTML, MIME messages, bytes-like
objects, str), what it says (warnings, strict=), and how it documents and types itself."""

import doctest
import importlib.metadata
import io
import json
import pydoc
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import linkbase

REPO = Path(__file__).resolve().parents[2]
MHTML = REPO / "fixtures" / "mhtml"
# The layers cli/tests/integration/mhtml.rs gives a fixture (fixture_layers).
FIXTURE_URL = {"url-no-cl": "http://r.example/saved/page.mht"}


def cli():
    """The linkbase binary that `cargo test` built (built here if it is missing)."""
    for profile in ("debug", "release"):
        exe = REPO / "target" / profile / "linkbase"
        if exe.exists():
            return exe
    subprocess.run(["cargo", "build", "--quiet", "--bin", "linkbase"], cwd=REPO, check=True)
    return REPO / "target" / "debug" / "linkbase"


def jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def messages():
    listed = {
        line.strip().removeprefix("fixture/")
        for line in (MHTML / "KNOWN_FAILURES.txt").read_text().splitlines()
        if line.strip() and not line.strip().startswith("#")
    }
    files = sorted(p for p in MHTML.iterdir() if p.suffix in (".eml", ".mht") and p.stem not in listed)
    return [pytest.param(p, id=p.name) for p in files]


MESSAGES = messages()

# --- MIME messages: what `linkbase links/base/rewrite message.eml` gives.


def test_messages_found():
    assert len(MESSAGES) >= 20


@pytest.mark.filterwarnings("ignore::linkbase.LinkbaseWarning")
@pytest.mark.parametrize("path", MESSAGES)
def test_message_goldens(path):
    # The CLI's goldens (fixtures/mhtml/expected): every HTML and CSS part against its own base.
    data = path.read_bytes()
    kw = {"url": FIXTURE_URL[path.stem]} if path.stem in FIXTURE_URL else {}
    expected = MHTML / "expected"
    assert linkbase.links(data, **kw) == jsonl(expected / f"{path.stem}.links.jsonl")
    assert linkbase.bases(data, **kw) == jsonl(expected / f"{path.stem}.base.jsonl")
    assert linkbase.rewrite(data, **kw) == (expected / f"{path.stem}.rewrite{path.suffix}").read_bytes()


def test_eml_links_exact_and_as_the_cli():
    path = MHTML / "content-base-part.eml"
    records = linkbase.links(path.read_bytes())
    # Part 1's Content-Base beats its Content-Location (RFC 2110 §5); the image is part 2.
    assert records == [
        {
            "part": "1",
            "element": "img",
            "attribute": "src",
            "original": "img/a.png",
            "resolved": "http://base.example/docs/img/a.png",
            "base": "http://base.example/docs/",
            "base_source": "content-base",
            "same_document": False,
            "kind": "url",
            "rewritten": True,
            "diagnostic": None,
            "srcdoc_depth": 0,
            "target_part": "2",
            "line": 2,
            "column": 11,
            "root": True,
            "content_type": "text/html",
        },
        {
            "part": "1",
            "element": "a",
            "attribute": "href",
            "original": "page2.html",
            "resolved": "http://base.example/docs/page2.html",
            "base": "http://base.example/docs/",
            "base_source": "content-base",
            "same_document": False,
            "kind": "url",
            "rewritten": True,
            "diagnostic": None,
            "srcdoc_depth": 0,
            "target_part": None,
            "line": 3,
            "column": 10,
            "root": True,
            "content_type": "text/html",
        },
        {
            "part": "1",
            "element": "a",
            "attribute": "href",
            "original": "http://other.example/abs",
            "resolved": "http://other.example/abs",
            "base": "http://base.example/docs/",
            "base_source": "content-base",
            "same_document": False,
            "kind": "url",
            "rewritten": False,
            "diagnostic": None,
            "srcdoc_depth": 0,
            "target_part": None,
            "line": 4,
            "column": 10,
            "root": True,
            "content_type": "text/html",
        },
    ]
    out = subprocess.run([cli(), "links", str(path)], capture_output=True, check=True).stdout
    assert [json.loads(line) for line in out.splitlines()] == records


def test_message_base_is_its_root_part():
    data = (MHTML / "start-root.eml").read_bytes()
    # start= names part 3 (RFC 2387 §3.2); part 2 is HTML too.
    assert linkbase.base(data) == {
        "part": "3",
        "base": "thismessage:/",
        "base_source": "default",
        "encoding": "UTF-8",
        "encoding_source": "transport",
        "diagnostics": [],
        "root": True,
        "content_type": "text/html",
    }
    assert [(b["part"], b["root"]) for b in linkbase.bases(data)] == [("2", False), ("3", True)]


def test_warc_bytes_point_to_read_warc():
    with pytest.raises(linkbase.UsageError) as e:
        linkbase.links(b"WARC/1.1\r\nWARC-Type: warcinfo\r\n\r\n")
    assert str(e.value) == (
        "html: this is a WARC archive, not a document: read its records with "
        "linkbase.read_warc(path) (or read_warc(io.BytesIO(data)) for bytes in memory)"
    )



def test_arc_bytes_point_to_read_warc_and_base_of_an_mbox_to_bases():
    # Never read as one HTML page.
    arc = b"filedesc://a.arc 0.0.0.0 20010101000000 text/plain 70\n1 0 Alexa\n\n"
    with pytest.raises(linkbase.UsageError) as e:
        linkbase.links(arc)
    assert str(e.value) == (
        "html: this is an ARC archive, not a document: read its records with "
        "linkbase.read_warc(path) (it reads ARC as WARC; read_warc(io.BytesIO(data)) for bytes in memory)"
    )
    mbox = b"From a@b.org Mon Jan  1 00:00:00 2001\nFrom: a@b.org\n\n<a href=x>x</a>\n"
    with pytest.raises(linkbase.UsageError) as e:
        linkbase.base(mbox)
    assert str(e.value) == (
        "html: this is an mbox, many messages each with its own base: bases() gives every "
        "message's records (each with mbox_message and message_id)"
    )

# --- bytes-like and str documents.

PAGE = b"<base href=/d/><a href=x>x</a><img src='i.png'>"


def test_bytes_like_inputs_equal_bytes():
    url = "http://h/p"
    want = linkbase.links(PAGE, url=url)
    big = bytearray(b"...." + PAGE + b"....")
    for doc in (bytearray(PAGE), memoryview(PAGE), memoryview(big)[4:-4], PAGE.decode()):
        assert linkbase.links(doc, url=url) == want
        assert linkbase.base(doc, url=url)["base"] == "http://h/d/"
    expected = b"<base href=http://h/d/><a href=http://h/d/x>x</a><img src='http://h/d/i.png'>"
    assert linkbase.rewrite(bytearray(PAGE), url=url) == expected
    assert linkbase.rewrite(memoryview(PAGE), url=url) == expected
    # str in, str out.
    assert linkbase.rewrite(PAGE.decode(), url=url) == expected.decode()


def test_str_is_text_read_as_utf8():
    page = "<meta charset=windows-1252><a href='é.html'>é</a>"
    b = linkbase.base(page, url="http://h/", headers={"Content-Type": "text/html; charset=shift_jis"})
    # The text was decoded already: UTF-8 is its transport charset, above <meta> and headers.
    assert (b["encoding"], b["encoding_source"]) == ("UTF-8", "transport")
    out = linkbase.rewrite(page, url="http://h/")
    assert isinstance(out, str)
    # The text stays text; the URL is percent-encoded as UTF-8 (RFC 3987 §3.1), as from bytes.
    assert out == "<meta charset=windows-1252><a href='http://h/%C3%A9.html'>é</a>"
    # The same text as windows-1252 bytes reads the same.
    assert linkbase.links(page.encode("windows-1252"), url="http://h/") == linkbase.links(page, url="http://h/")


def test_str_message():
    text = (MHTML / "content-base-part.eml").read_text()
    assert linkbase.links(text) == linkbase.links(text.encode())
    assert linkbase.rewrite(text) == (MHTML / "expected" / "content-base-part.rewrite.eml").read_text()


def test_other_types_are_type_errors():
    for bad in (3, None, ["<a href=x>"]):
        with pytest.raises(TypeError) as e:
            linkbase.links(bad)
        assert str(e.value).startswith(
            "html: expected bytes, bytearray, memoryview (any bytes-like object), str (the text) or pathlib.Path (a file), not "
        )
    # A Path is a file (test_linkbase.py): one that does not exist is an OSError naming it.
    with pytest.raises(OSError, match="page.html"):
        linkbase.links(Path("page.html"))
    with pytest.raises(TypeError, match=r"not int$"):
        linkbase.rewrite(3)


def test_bad_url_names_the_parameter():
    with pytest.raises(linkbase.BadBase) as e:
        linkbase.links(b"<a href=x>", url="not a url")
    assert str(e.value) == (
        'url="not a url": base URI "not a url" is not absolute: it has no scheme '
        "(RFC 2396 §5.2 needs an absolute base)"
    )


# --- Links left unresolved: a warning, or with strict=True an error.

NO_BASE = "1 of 1 link left relative or unresolvable (no base); give the document's URL with url= (or a base with headers=)"


def test_strict_raises():
    for call in (linkbase.rewrite, linkbase.links):
        with pytest.raises(linkbase.UnresolvedError) as e:
            call(b"<a href=x>x</a>", strict=True)
        assert str(e.value) == NO_BASE
        assert isinstance(e.value, linkbase.Error)
    with pytest.raises(linkbase.UnresolvedError) as e:
        linkbase.links(b"<a href=x><a href=y><a href=http://a/>", url="mailto:me@example.com", strict=True)
    assert str(e.value) == "2 of 3 links left relative or unresolvable (opaque base)"
    # Resolved everywhere, or same-document only: nothing to raise.
    assert linkbase.rewrite(b"<a href=x>", url="http://h/", strict=True) == b"<a href=http://h/x>"
    assert linkbase.links(b"<a href=#top>", strict=True)[0]["same_document"] is True


def test_default_warns():
    assert issubclass(linkbase.LinkbaseWarning, UserWarning)
    with pytest.warns(linkbase.LinkbaseWarning) as caught:
        out = linkbase.rewrite(b"<a href=x>x</a>")
    assert out == b"<a href=x>x</a>"
    assert [str(w.message) for w in caught] == [NO_BASE]
    # Attributed to the caller's line, not to linkbase.
    assert caught[0].filename == __file__
    with pytest.warns(linkbase.LinkbaseWarning):
        linkbase.links("<a href=x>x</a>")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        linkbase.rewrite(b"<a href=x>x</a>", url="http://h/")
        linkbase.base(b"<a href=x>x</a>")  # base() reports the base; it does not warn
        with pytest.raises(linkbase.LinkbaseWarning):
            linkbase.links(b"<a href=x>x</a>")


# --- Version, documentation, types.


def test_version():
    cargo = (REPO / "python" / "Cargo.toml").read_text()
    version = re.search(r'^version = "([^"]+)"', cargo, re.M).group(1)
    assert linkbase.__version__ == version == importlib.metadata.version("linkbase")


FUNCTIONS = ["base", "bases", "links", "read_warc", "resolve", "rewrite"]


def test_every_public_name_is_documented():
    for name in linkbase.__all__:
        if name in ("__version__", "BaseSource", "EncodingSource"):
            continue  # a str; Literal aliases (documented in linkbase/_types.py)
        obj = getattr(linkbase, name)
        if isinstance(obj, type) or callable(obj):
            assert (obj.__doc__ or "").strip(), name
    for name in FUNCTIONS:
        doc = getattr(linkbase, name).__doc__
        for section in ("Arguments:", "Returns:", "Raises:", "Example:", ">>> "):
            assert section in doc, (name, section)
        text = pydoc.render_doc(getattr(linkbase, name), renderer=pydoc.plaintext)
        assert "Example:" in text, name
    assert "strict=False" in pydoc.render_doc(linkbase.rewrite, renderer=pydoc.plaintext)
    assert ">>> " in linkbase.__doc__ and ">>> " in linkbase.WarcReader.__doc__


def test_docstring_examples_run():
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(linkbase.__doc__, "linkbase", globs={})
    for name in FUNCTIONS + ["WarcReader"]:
        tests += finder.find(getattr(linkbase, name).__doc__, f"linkbase.{name}", globs={})
    assert len(tests) == 8
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for test in tests:
            runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


TYPED = '''
import linkbase

def resolved(page: bytes, url: str) -> list[str]:
    return [r["resolved"] for r in linkbase.links(page, url=url) if r["resolved"] is not None]

text: str = linkbase.rewrite("<a href=x>", url="http://h/")
data: bytes = linkbase.rewrite(bytearray(b"<a href=x>"), url="http://h/")
record: linkbase.BaseRecord = linkbase.base(memoryview(b""))
source: linkbase.BaseSource = record["base_source"]
root: bool = record.get("root", True)
for warc in linkbase.read_warc("crawl.warc.gz"):
    first: linkbase.LinkRecord = warc["links"][0]
version: str = linkbase.__version__
'''


def test_mypy_strict(tmp_path):
    pytest.importorskip("mypy")
    (tmp_path / "example.py").write_text(TYPED)
    (tmp_path / "wrong.py").write_text('import linkbase\nn: int = linkbase.links(b"")[0]["resolved"]\n')
    run = lambda f: subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), f],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    ok = run("example.py")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    wrong = run("wrong.py")
    assert wrong.returncode == 1
    assert 'Incompatible types in assignment (expression has type "str | None", variable has type "int")' in wrong.stdout


def test_package_is_mypy_strict(tmp_path):
    """The package's own Python (linkbase.arrow, linkbase.spark) passes mypy --strict."""
    pytest.importorskip("mypy")
    package = Path(linkbase.__file__).parent
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), str(package)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr

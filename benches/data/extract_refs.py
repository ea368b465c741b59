#!/usr/bin/env python3
"""Regenerates benches/data/refs.txt: the href and src values of a fixed list of pages from two
Debian documentation packages, in document order, duplicates kept, each section headed by the
page's public URL (the base the bench resolves that section against).

Usage: python3 benches/data/extract_refs.py > benches/data/refs.txt

Needs the Debian packages python3.11-doc and cppreference-doc-en-html installed.
"""
import subprocess
import sys
from html.parser import HTMLParser

PY_ROOT = "/usr/share/doc/python3.11/html/"
PY_BASE = "https://docs.python.org/3.11/"
PY_PAGES = [
    "library/os.path.html", "library/re.html", "library/pathlib.html",
    "library/urllib.parse.html", "library/functions.html", "library/collections.html",
    "library/itertools.html", "library/json.html", "library/subprocess.html",
    "library/string.html", "index.html", "tutorial/classes.html", "glossary.html",
    "library/asyncio-task.html",
]
# The offline archive lays pages out as en/<path>.html; the site serves them as /w/<path>.
# Both are three levels deep, so the archive's relative links keep their shape.
CPP_ROOT = "/usr/share/cppreference/doc/html/en/"
CPP_BASE = "https://en.cppreference.com/w/"
CPP_PAGES = [
    "cpp/container/vector", "cpp/container/vector/push_back", "cpp/string/basic_string",
    "cpp/algorithm", "cpp/container", "cpp/memory/unique_ptr", "cpp/memory/shared_ptr",
    "cpp/utility/optional", "cpp/thread/mutex", "cpp/io/basic_ostream", "cpp/header",
    "cpp/language/lambda", "cpp/keyword", "cpp/container/map", "cpp/iterator", "cpp/regex",
    "cpp/chrono", "cpp", "c", "cpp/container/unordered_map", "cpp/algorithm/sort",
    "cpp/language/templates", "cpp/types", "cpp/utility", "cpp/numeric", "cpp/io",
    "cpp/atomic/atomic", "cpp/thread", "cpp/string/basic_string/find", "cpp/language/operators",
]
# RFC 2396 Appendix C: the normal and abnormal examples, against the RFC's own base.
RFC_BASE = "http://a/b/c/d;p?q"
RFC_REFS = [
    "g:h", "g", "./g", "g/", "/g", "//g", "?y", "g?y", "#s", "g#s", "g?y#s", ";x", "g;x",
    "g;x?y#s", ".", "./", "..", "../", "../g", "../..", "../../", "../../g", "",
    "../../../g", "../../../../g", "/./g", "/../g", "g.", ".g", "g..", "..g", "./../g",
    "./g/.", "g/./h", "g/../h", "g;x=1/./y", "g;x=1/../y", "g?y/./x", "g?y/../x", "g#s/./x",
    "g#s/../x", "http:g",
]


class Refs(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.refs = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                # HTML strips leading and trailing ASCII whitespace from URL attributes.
                self.refs.append(value.strip(" \t\n\f\r"))


def refs_of(path):
    p = Refs()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    return p.refs


def version(package):
    out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                         capture_output=True, text=True, check=True)
    return out.stdout


def section(base, refs, out):
    out.append(f"## base: {base}")
    for r in refs:
        if "\n" in r or "\r" in r or r.startswith("##"):
            continue
        out.append(r)


def main():
    out = [
        "## href and src values, in document order with duplicates, extracted by",
        "## benches/data/extract_refs.py from:",
        f"## - Debian package python3.11-doc {version('python3.11-doc')}"
        " (Python documentation, PSF License);",
        f"## - Debian package cppreference-doc-en-html {version('cppreference-doc-en-html')}"
        " (cppreference.com, CC-BY-SA 3.0);",
        "## - RFC 2396 Appendix C (its examples).",
        "## Format: lines starting with '## ' are comments; '## base: URL' starts a section of",
        "## references to resolve against URL (the page's public address); every other line,",
        "## including an empty one, is one reference.",
    ]
    for page in PY_PAGES:
        section(PY_BASE + page, refs_of(PY_ROOT + page), out)
    for page in CPP_PAGES:
        section(CPP_BASE + page, refs_of(CPP_ROOT + page + ".html"), out)
    section(RFC_BASE, RFC_REFS, out)
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()

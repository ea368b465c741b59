"""linkbase: find the base URI of an HTML document (RFC 2396 §5.1) and make every relative
link in it absolute (§5.2), from Python.

The work runs in Rust with the GIL released, so a thread pool uses every core.
"""

from ._native import (
    ArchiveError,
    BadBase,
    DecodeError,
    Error,
    LimitError,
    UnsupportedError,
    UsageError,
    base,
    links,
    read_warc,
    resolve,
    rewrite,
    WarcReader,
)

__all__ = [
    "ArchiveError",
    "BadBase",
    "DecodeError",
    "Error",
    "LimitError",
    "UnsupportedError",
    "UsageError",
    "base",
    "links",
    "read_warc",
    "resolve",
    "rewrite",
    "WarcReader",
]

"""linkbase: find the base URI of an HTML document (RFC 2396 §5.1) and make every relative
link in it absolute (§5.2), from Python.

The work runs in Rust with the GIL released, so a thread pool uses every core.
"""

from ._native import (
    BadBase,
    DecodeError,
    Error,
    LimitError,
    UnsupportedError,
    UsageError,
    base,
    links,
    resolve,
    rewrite,
)

__all__ = [
    "BadBase",
    "DecodeError",
    "Error",
    "LimitError",
    "UnsupportedError",
    "UsageError",
    "base",
    "links",
    "resolve",
    "rewrite",
]

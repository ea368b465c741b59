"""linkbase: find the base URI of a document (RFC 2396 §5.1) and make every relative link in it
absolute (§5.2), from Python.

Documents are HTML or MIME messages (e-mail, MHTML), given as bytes, any bytes-like object, or
str (the text itself); WARC archives are read with read_warc(); a site's tree is checked for
broken links with check(). The work runs in Rust with the
GIL released, so a thread pool uses every core. Every function's help() says what it takes,
returns and raises, with an example.

Example:
    >>> import linkbase
    >>> linkbase.rewrite(b'<a href="x.html">x</a>', url="http://example.com/d/page.html")
    b'<a href="http://example.com/d/x.html">x</a>'
    >>> linkbase.links(b'<a href="x.html">x</a>', url="http://example.com/d/")[0]["resolved"]
    'http://example.com/d/x.html'
"""

from ._native import (
    ArchiveError,
    BadBase,
    DecodeError,
    Error,
    LimitError,
    LinkbaseWarning,
    UnresolvedError,
    UnsupportedError,
    UsageError,
    WarcReader,
    __version__,
    base,
    bases,
    check,
    iter_links,
    links,
    read_warc,
    resolve,
    rewrite,
)
from ._types import BaseRecord, BaseSource, Diagnostic, EncodingSource, LinkRecord, WarcRecord

__all__ = [
    "ArchiveError",
    "BadBase",
    "BaseRecord",
    "BaseSource",
    "DecodeError",
    "Diagnostic",
    "EncodingSource",
    "Error",
    "LimitError",
    "LinkRecord",
    "LinkbaseWarning",
    "UnresolvedError",
    "UnsupportedError",
    "UsageError",
    "WarcReader",
    "WarcRecord",
    "__version__",
    "base",
    "bases",
    "check",
    "iter_links",
    "links",
    "read_warc",
    "resolve",
    "rewrite",
]

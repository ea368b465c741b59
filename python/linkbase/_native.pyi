import os
from typing import Any, BinaryIO, Dict, Iterator, List, Literal, Mapping, Optional, Sequence, Tuple, TypedDict, Union, overload

from ._types import BaseRecord, LinkRecord, WarcRecord

__version__: str

Headers = Union[Mapping[str, str], Sequence[Tuple[str, str]]]
ProfileName = Literal["rfc2396", "rfc1808", "rfc3986", "whatwg"]
HeaderBaseName = Literal["entity", "browser"]
BytesLike = Union[bytes, bytearray, memoryview]
# A document: its bytes (any bytes-like object), or str, the text itself (read as UTF-8), not a path;
# or an os.PathLike (pathlib.Path), which names a file, read whole.
Document = Union[BytesLike, str, "os.PathLike[str]"]

class Error(Exception):
    """Base class of every error linkbase raises."""

class DecodeError(Error):
    """The bytes are not a text document, or not in a usable encoding."""

class LimitError(Error):
    """The document passes a parser bound."""

class BadBase(Error):
    """A base given by the caller (url=, resolve's base) is not a usable URI."""

class UnsupportedError(Error):
    """The document's encoding cannot be written back; a message cannot be read."""

class UsageError(Error):
    """An argument value linkbase does not take (a profile or header_base name; a WARC or ARC file given as a document; an mbox given to base)."""

class ArchiveError(Error):
    """A WARC file cannot be opened or read at all (damage inside it is reported, not raised)."""

class UnresolvedError(Error):
    """strict=True was given and links were left relative or unresolvable."""

class LinkbaseWarning(UserWarning):
    """Links were left relative or unresolvable (for lack of a base, most often)."""

class WarcReader(Iterator[WarcRecord]):
    """The HTML records of a WARC or ARC file, as `read_warc` returns them."""
    def __iter__(self) -> "WarcReader": ...
    def __next__(self) -> WarcRecord: ...
    @property
    def counts(self) -> dict[str, int]:
        """Records read so far: records, html, skipped (past_limit of them past a bound), damaged, revisits."""
    @property
    def damaged(self) -> List[Tuple[int, Optional[str], str]]:
        """Damage met so far: (offset, record id, message)."""
    @property
    def failed(self) -> List[Tuple[str, int, str]]:
        """Records that could not be processed, HTML or past a bound: (record id, offset, message)."""
    def _next_columns(
        self, max_rows: int = 65536, max_bytes: int = 16777216
    ) -> Optional[Tuple[int, List[Tuple[int, List[Optional[bytes]]]]]]:
        """The link table's next rows as Arrow buffers (linkbase.arrow.link_batches wraps them)."""

def read_warc(
    source: Union[str, "os.PathLike[str]", BinaryIO],
    start: int = 0,
    end: Optional[int] = None,
    *,
    profile: ProfileName = "rfc2396",
    header_base: HeaderBaseName = "entity",
) -> WarcReader:
    """The HTML records of a .warc / .warc.gz (those starting in the byte range start..end), one
    WarcRecord each (see help(linkbase.read_warc))."""

def resolve(base: str, ref: str, profile: ProfileName = "rfc2396") -> Optional[str]:
    """`ref` resolved against `base`; None when it cannot be resolved (a relative reference
    against an opaque base). Raises BadBase for an unusable base."""

@overload
def rewrite(
    html: str,
    *,
    url: Optional[str] = None,
    headers: Optional[Headers] = None,
    profile: ProfileName = "rfc2396",
    header_base: HeaderBaseName = "entity",
    strict: bool = False,
) -> str: ...
@overload
def rewrite(
    html: Union[BytesLike, "os.PathLike[str]"],
    *,
    url: Optional[str] = None,
    headers: Optional[Headers] = None,
    profile: ProfileName = "rfc2396",
    header_base: HeaderBaseName = "entity",
    strict: bool = False,
) -> bytes:
    """The document (HTML, a MIME message, or an mbox) with every relative URL made absolute, in its own
    encoding; str in, str out. strict=True raises UnresolvedError when links were left relative,
    else a LinkbaseWarning says so (see help(linkbase.rewrite))."""

def links(
    html: Document,
    *,
    url: Optional[str] = None,
    headers: Optional[Headers] = None,
    profile: ProfileName = "rfc2396",
    header_base: HeaderBaseName = "entity",
    strict: bool = False,
) -> List[LinkRecord]:
    """Every URL occurrence (of every HTML and CSS part of a message, of every message of an mbox): the records of
    `linkbase links` (see help(linkbase.links))."""

def iter_links(
    html: Document,
    *,
    url: Optional[str] = None,
    headers: Optional[Headers] = None,
    profile: ProfileName = "rfc2396",
    header_base: HeaderBaseName = "entity",
    strict: bool = False,
) -> Iterator[LinkRecord]:
    """links(), one dict at a time: for documents too large to hold a dict per link."""

def base(
    html: Document,
    *,
    url: Optional[str] = None,
    headers: Optional[Headers] = None,
    profile: ProfileName = "rfc2396",
    header_base: HeaderBaseName = "entity",
) -> BaseRecord:
    """The document's base (a message's root part's): a record of `linkbase base`."""

def bases(
    html: Document,
    *,
    url: Optional[str] = None,
    headers: Optional[Headers] = None,
    profile: ProfileName = "rfc2396",
    header_base: HeaderBaseName = "entity",
) -> List[BaseRecord]:
    """Every base record: one for HTML, one per HTML or CSS part of a message, of each message of an mbox (`linkbase base`)."""

class CheckResult(TypedDict):
    """What check() returns."""

    records: List[Dict[str, Any]]
    """Every link (or, with broken_only, every broken one): the fields of `check --format jsonl`
    (file, verdict, target, the link's fields; online: what the online check found)."""
    totals: Dict[str, Any]
    """The counts of the summary line: pages, stylesheets, links, internal, external, broken, …"""
    failed: int
    """Files that could not be checked (unreadable pages, names that are not UTF-8)."""
    unreadable: List[Tuple[str, str]]
    """(file, why) of each page that could not be read."""
    messages: List[str]
    """What the CLI says on stderr (a file skipped, a layout detected, a URL refused)."""

def check(
    path: Union[str, "os.PathLike[str]"],
    *,
    site_url: Optional[str] = None,
    local: bool = False,
    online: bool = False,
    allow_private: bool = False,
    exclude: Sequence[str] = ...,
    include: Sequence[str] = ...,
    exclude_path: Sequence[str] = ...,
    remap: Sequence[str] = ...,
    index_files: Optional[Sequence[str]] = None,
    fallback_extensions: Sequence[str] = ...,
    profile: ProfileName = "rfc2396",
    default_charset: Optional[str] = None,
    timeout: str = "20s",
    max_retries: int = 3,
    max_redirects: int = 10,
    accept: str = "200..=299",
    user_agent: Optional[str] = None,
    headers: Sequence[str] = ...,
    broken_only: bool = False,
    jobs: Optional[int] = None,
) -> CheckResult:
    """The site at path checked for broken links, as `linkbase check` does it: the records of
    `check --format jsonl` and the totals (see help(linkbase.check))."""

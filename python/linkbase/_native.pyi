import os
from typing import Any, BinaryIO, Iterator, List, Literal, Mapping, Optional, Sequence, Tuple, Union

Headers = Union[Mapping[str, str], Sequence[Tuple[str, str]]]
ProfileName = Literal["rfc2396", "rfc1808", "rfc3986", "whatwg"]
HeaderBaseName = Literal["entity", "browser"]

class Error(Exception):
    """Base class of every error linkbase raises."""

class DecodeError(Error):
    """The bytes are not a text document, or not in a usable encoding."""

class LimitError(Error):
    """The document passes a parser bound."""

class BadBase(Error):
    """A base given by the caller is not a usable URI."""

class UnsupportedError(Error):
    """The document's encoding cannot be written back."""

class UsageError(Error):
    """An argument value is not one linkbase knows (a profile or header_base name)."""

class ArchiveError(Error):
    """A WARC file cannot be opened or read at all (damage inside it is reported, not raised)."""

class WarcReader(Iterator[dict[str, Any]]):
    """The HTML records of a WARC file, as `read_warc` returns them."""
    def __iter__(self) -> "WarcReader": ...
    def __next__(self) -> dict[str, Any]: ...
    @property
    def counts(self) -> dict[str, int]:
        """Records read so far: records, html, skipped (past_limit of them past a bound), damaged, revisits."""
    @property
    def damaged(self) -> List[Tuple[int, Optional[str], str]]:
        """Damage met so far: (offset, record id, message)."""
    @property
    def failed(self) -> List[Tuple[str, int, str]]:
        """Records that could not be processed, HTML or past a bound: (record id, offset, message)."""

def read_warc(
    source: Union[str, "os.PathLike[str]", BinaryIO],
    *,
    profile: ProfileName = "rfc2396",
    header_base: HeaderBaseName = "entity",
) -> WarcReader:
    """Per HTML record of a .warc / .warc.gz: warc_record_id, warc_target_uri, warc_date, offset,
    status, revisit_of, base (the URI or None), base_source, encoding, diagnostics, and links
    (as `links()`, with the record's fields)."""

def resolve(base: str, ref: str, profile: ProfileName = "rfc2396") -> Optional[str]:
    """`ref` resolved against `base`; None when it cannot be resolved (a relative reference
    against an opaque base). Raises BadBase for an unusable base."""

def rewrite(
    html: bytes,
    *,
    url: Optional[str] = None,
    headers: Optional[Headers] = None,
    profile: ProfileName = "rfc2396",
    header_base: HeaderBaseName = "entity",
) -> bytes:
    """The document with every relative URL made absolute, in its own encoding."""

def links(
    html: bytes,
    *,
    url: Optional[str] = None,
    headers: Optional[Headers] = None,
    profile: ProfileName = "rfc2396",
    header_base: HeaderBaseName = "entity",
) -> list[dict[str, Any]]:
    """Every URL occurrence: the fields of `linkbase links --format jsonl`."""

def base(
    html: bytes,
    *,
    url: Optional[str] = None,
    headers: Optional[Headers] = None,
    profile: ProfileName = "rfc2396",
    header_base: HeaderBaseName = "entity",
) -> dict[str, Any]:
    """The document's base: the fields of `linkbase base --format jsonl`."""

"""The records linkbase returns, as TypedDicts: plain dicts at run time, typed for checkers.

Each has exactly the fields of the CLI's JSON Lines records (`linkbase links`, `linkbase base`).
Keys only some records carry (`root` in MIME messages, `content_type` in messages and archives,
the WARC and mbox fields) are in a `total=False`
subclass, so the classes work on Python 3.9 without `NotRequired`.
"""

from typing import List, Literal, Optional, TypedDict

BaseSource = Literal["base-element", "content-base", "content-location", "retrieval-uri", "default", "none"]
"""Which RFC 2396 §5.1 layer gave the base."""

EncodingSource = Literal["bom", "transport", "meta", "charset-rule", "fallback"]
"""Where the document's encoding came from (HTML LS §13.2.3.2; `charset-rule`: a stylesheet's
@charset rule, CSS Syntax §3.2)."""


class _Diagnostic(TypedDict):
    code: str
    message: str


class Diagnostic(_Diagnostic, total=False):
    """Something left as it was, and why: a stable kebab-case `code` and a `message`; damage to a
    MIME message or an mbox (`mime-malformed`, `part-skipped`, `mime`) also has its byte `offset`
    in the input (and `within`, a byte of the gzip member there, when not 0)."""

    offset: int
    within: int


class _LinkRecord(TypedDict):
    part: Optional[str]
    element: str
    attribute: Optional[str]
    original: str
    resolved: Optional[str]
    base: Optional[str]
    base_source: BaseSource
    same_document: bool
    kind: str
    rewritten: bool
    diagnostic: Optional[str]
    srcdoc_depth: int
    target_part: Optional[str]
    line: Optional[int]
    column: Optional[int]


class LinkRecord(_LinkRecord, total=False):
    """One URL occurrence (a line of `linkbase links`): `resolved` is None when it could not be
    resolved; `root` is present in MIME messages only; the `warc_*` fields in read_warc() only;
    `content_type` (the media type the document was read as) in MIME messages, mbox messages and
    archive records; `mbox_message` (the message's place, from 0) and `message_id` in an mbox."""

    root: bool
    warc_record_id: Optional[str]
    warc_target_uri: Optional[str]
    warc_date: Optional[str]
    truncated: bool
    content_type: str
    mbox_message: int
    message_id: Optional[str]


class _BaseRecord(TypedDict):
    part: Optional[str]
    base: Optional[str]
    base_source: BaseSource
    encoding: str
    encoding_source: EncodingSource
    diagnostics: List[Diagnostic]


class BaseRecord(_BaseRecord, total=False):
    """A document's base and how it was found (a line of `linkbase base`); `root` is present in
    MIME messages only; `content_type`, `mbox_message` and `message_id` as in LinkRecord."""

    root: bool
    content_type: str
    mbox_message: int
    message_id: Optional[str]


class _WarcRecord(_BaseRecord):
    warc_record_id: Optional[str]
    warc_target_uri: Optional[str]
    warc_date: Optional[str]
    content_type: str
    offset: int
    status: Optional[int]
    revisit_of: Optional[str]
    links: List[LinkRecord]


class WarcRecord(_WarcRecord, total=False):
    """One HTML record of a WARC or ARC file, as read_warc() yields it: the fields of the CLI's
    `base` record of it, where it is (offset, status, revisit_of) and its links; `truncated`
    when the record was cut short."""

    truncated: bool

from typing import Any, Literal, Mapping, Optional, Sequence, Tuple, Union

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

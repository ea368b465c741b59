"""The links of WARC files as Arrow record batches (needs pyarrow): the link table of
linkbase.spark, built in Rust column by column, with no Python object per link.

    import linkbase.arrow
    for batch in linkbase.arrow.link_batches("crawl.warc.gz"):
        print(batch.num_rows, batch.schema.names)

The native reader fills Arrow's buffers (validity bitmaps, 32-bit offsets, UTF-8 data) for up
to `batch_rows` links; pyarrow wraps them as arrays without copying (`Array.from_buffers`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Iterator, List, Optional, Tuple, Union

import linkbase

if TYPE_CHECKING:
    from linkbase._native import HeaderBaseName, ProfileName

# (column, Arrow type name) of the link table, in order: the fields of `linkbase links IN.warc`.
COLUMNS: List[Tuple[str, str]] = [
    ("source", "string"),  # the record's WARC-Target-URI
    ("record_id", "string"),  # WARC-Record-ID
    ("date", "string"),  # WARC-Date
    ("element", "string"),
    ("attribute", "string"),
    ("original", "string"),
    ("resolved", "string"),
    ("base", "string"),
    ("base_source", "string"),
    ("kind", "string"),
    ("same_document", "boolean"),
    ("diagnostic", "string"),
]


def schema() -> Any:
    """The link table's pyarrow schema (every field nullable, as Spark's)."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    types = {"string": pa.string(), "boolean": pa.bool_()}
    return pa.schema([pa.field(name, types[t]) for name, t in COLUMNS])


def link_batches(
    source: Union[str, "os.PathLike[str]", BinaryIO],
    start: int = 0,
    end: Optional[int] = None,
    *,
    profile: "ProfileName" = "rfc2396",
    header_base: "HeaderBaseName" = "entity",
    batch_rows: int = 65536,
    done: Optional[Callable[[Any], None]] = None,
) -> Iterator[Any]:
    """pyarrow RecordBatches (schema: `schema()`) of every link of every HTML record of the WARC
    file `source` that starts in the byte range `start..end` (see help(linkbase.read_warc));
    each batch holds up to `batch_rows` links, in record order. `done`, when given, is called
    with the reader (a linkbase.WarcReader) once it has read the range: its `counts`, `damaged`
    and `failed` say what could not be read."""
    import pyarrow as pa  # type: ignore[import-untyped, unused-ignore]

    sch = schema()
    reader = linkbase.read_warc(source, start, end, profile=profile, header_base=header_base)
    while True:
        got = reader._next_columns(batch_rows)
        if got is None:
            if done is not None:
                done(reader)
            return
        rows, columns = got
        arrays = [
            pa.Array.from_buffers(
                field.type,
                rows,
                [None if b is None else pa.py_buffer(b) for b in buffers],
                null_count=nulls,
            )
            for field, (nulls, buffers) in zip(sch, columns)
        ]
        yield pa.RecordBatch.from_arrays(arrays, schema=sch)

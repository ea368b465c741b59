"""linkbase on Spark: the links of WARC files, one row per link, read on the executors.

    from linkbase.spark import links, host_links
    df = links(spark, ["/data/crawl-00000.warc.gz", ...])
    host_links(df).orderBy("count", ascending=False).show()

or from a shell (Parquet out):

    python -m linkbase.spark links --master 'local[2]' crawl-*.warc.gz --output links.parquet

Each WARC file is one task: an executor opens it (a path every executor can read: a local or
shared file system; `hadoop=True` reads any Hadoop file system URI, a whole file per task, through
`SparkContext.binaryFiles`) and `linkbase.read_warc` gives each HTML record's links, resolved
against the base RFC 2396 §5.1 establishes for that record (its `<base>`, the archived
Content-Location, else its WARC-Target-URI). Rows carry exactly the fields of
`linkbase links IN.warc.gz`.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from typing import Iterable, Iterator, List, Optional, Tuple

import linkbase

# (column, type name) of the link table, in order.
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


def schema():
    """The link table's Spark schema."""
    from pyspark.sql.types import BooleanType, StringType, StructField, StructType

    types = {"string": StringType(), "boolean": BooleanType()}
    return StructType([StructField(name, types[t], True) for name, t in COLUMNS])


def rows_of_warc(source, profile: str = "rfc2396", header_base: str = "entity") -> Iterator[tuple]:
    """The link rows of one WARC file (a path or a binary file object), in record order."""
    for record in linkbase.read_warc(source, profile=profile, header_base=header_base):
        for link in record["links"]:
            yield (
                record["warc_target_uri"],
                record["warc_record_id"],
                record["warc_date"],
                link["element"],
                link["attribute"],
                link["original"],
                link["resolved"],
                link["base"],
                link["base_source"],
                link["kind"],
                link["same_document"],
                link["diagnostic"],
            )


def _local(path: str) -> str:
    return path[len("file://"):] if path.startswith("file://") else path


def links(
    spark,
    paths: Iterable[str],
    *,
    profile: str = "rfc2396",
    header_base: str = "entity",
    hadoop: bool = False,
):
    """A DataFrame of every link of every HTML record of the WARC files `paths` (schema:
    `COLUMNS`). One task per file."""
    paths = list(paths)
    if not paths:
        raise ValueError("linkbase.spark.links: no WARC files given")
    sc = spark.sparkContext
    if hadoop:
        files = sc.binaryFiles(",".join(paths), minPartitions=len(paths))
        rdd = files.flatMap(lambda kv: rows_of_warc(io.BytesIO(kv[1]), profile, header_base))
    else:
        rdd = sc.parallelize(paths, len(paths)).flatMap(
            lambda p: rows_of_warc(_local(p), profile, header_base)
        )
    return spark.createDataFrame(rdd, schema())


def host_links(links_df):
    """Host-level link counts, as Common Crawl's host graph has them: one row per (source host,
    target host) pair of resolved http(s) links between different hosts, with its count."""
    from pyspark.sql import functions as F

    host = lambda col: F.lower(F.expr(f"parse_url({col}, 'HOST')"))  # noqa: E731
    edges = (
        links_df.where(F.col("resolved").isNotNull() & ~F.col("same_document"))
        .where(F.col("resolved").rlike("^(?i)https?://"))
        .select(host("source").alias("source_host"), host("resolved").alias("target_host"))
        .where(F.col("source_host").isNotNull() & F.col("target_host").isNotNull())
        .where(F.col("source_host") != F.col("target_host"))
    )
    return edges.groupBy("source_host", "target_host").count()


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m linkbase.spark",
        description="The links of WARC files on Spark, written as Parquet.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("links", help="one row per link of every HTML record")
    p.add_argument("warc", nargs="+", help="WARC files (.warc, .warc.gz)")
    p.add_argument("--output", required=True, help="Parquet directory of the link table")
    p.add_argument("--hosts", help="also write host-level link counts here (Parquet)")
    p.add_argument("--master", help="Spark master (default: spark-submit's, else local[*])")
    p.add_argument("--profile", default="rfc2396", choices=["rfc2396", "rfc1808", "rfc3986", "whatwg"])
    p.add_argument("--header-base", default="entity", choices=["entity", "browser"])
    p.add_argument("--hadoop", action="store_true", help="read the paths as Hadoop file system URIs")
    args = parser.parse_args(argv)

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("linkbase-links")
    if args.master:
        builder = builder.master(args.master)
    if (args.master or "").startswith("local") and "PYSPARK_PYTHON" not in os.environ:
        # Local executors run this interpreter, the one linkbase is installed in (PySpark's
        # default is whatever `python3` is first on PATH).
        os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = builder.getOrCreate()
    try:
        df = links(
            spark, args.warc, profile=args.profile, header_base=args.header_base, hadoop=args.hadoop
        )
        df.write.mode("overwrite").parquet(args.output)
        written = spark.read.parquet(args.output).count()
        print(f"linkbase.spark: {written} links of {len(args.warc)} WARC files -> {args.output}", file=sys.stderr)
        if args.hosts:
            host_links(spark.read.parquet(args.output)).write.mode("overwrite").parquet(args.hosts)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""linkbase on Spark: the links of WARC files, one row per link, read on the executors.

    from linkbase.spark import links, host_links
    df = links(spark, ["/data/crawl-00000.warc.gz", ...])
    host_links(df).orderBy("count", ascending=False).show()

or from a shell (Parquet out):

    python -m linkbase.spark links --master 'local[2]' crawl-*.warc.gz --output links.parquet

A WARC file is cut into byte ranges of `split_size` (128 MiB by default), one task each: an
executor opens the file (a path every executor can read: a local or shared file system) and
reads the records that start in its range (`linkbase.read_warc(path, start, end)`: each end moves
to the next record boundary, so every record is read once). The links of each HTML record,
resolved against the base RFC 2396 §5.1 establishes for that record (its `<base>`, the archived
Content-Location, else its WARC-Target-URI), go to Spark as Arrow record batches built in Rust
(`linkbase.arrow.link_batches`, through `DataFrame.mapInArrow`): no Python object per link.
Rows carry exactly the fields of `linkbase links IN.warc.gz`.

`hadoop=True` reads the paths as Hadoop file system URIs (hdfs://, s3a://, …) through Spark's
`binaryFile` source instead: a whole file per task, held in the task's memory (Common Crawl's
WARC files are about 1 GB each, tens of thousands a crawl: one task per file keeps every core
busy; a few huge files are better copied to a file system the executors mount, then split).

On a cluster (standalone, YARN, Kubernetes alike), ship the native wheel in a packed virtual
environment, as Spark's Python package management guide does (`--py-files` does not carry
native extensions):

    cd python && maturin build --release -o ../dist && cd ..        # on the executors' platform
    python/spark-env.sh dist/linkbase-*.whl linkbase-env.tar.gz      # venv-pack: wheel + pyarrow
    PYSPARK_DRIVER_PYTHON=python PYSPARK_PYTHON=./environment/bin/python \\
    spark-submit --master spark://head:7077 --archives linkbase-env.tar.gz#environment \\
        "$(python -c 'import linkbase.spark as s; print(s.__file__)')" \\
        links /shared/crawl/*.warc.gz --output /shared/links.parquet --hosts /shared/hosts.parquet

(the driver's `python` has linkbase, pyspark, pyarrow and pandas installed: `pip install
pyspark[sql] dist/linkbase-*.whl`; on YARN, `--archives` is the same and so is the rest). From
S3 or HDFS, through Hadoop's file systems (S3A needs the hadoop-aws jar of Spark's Hadoop
version, 3.4.1 for pyspark 4.0, and credentials as S3A takes them: environment variables, an
instance profile, `spark.hadoop.fs.s3a.*` settings; LINKBASE_SPARK is the path printed above):

    spark-submit ... --packages org.apache.hadoop:hadoop-aws:3.4.1 \\
        "$LINKBASE_SPARK" links --hadoop 's3a://my-bucket/crawl/*.warc.gz' \\
        --output s3a://my-bucket/links/ --partition-by kind
    spark-submit ... "$LINKBASE_SPARK" links --hadoop 'hdfs://namenode:8020/crawl/*.warc.gz' \\
        --output hdfs://namenode:8020/links.parquet

(`--output` and `--hosts` are Spark writes: any Hadoop URI does.)
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from typing import Any, Iterable, Iterator, List, Optional, Sequence, Tuple

import linkbase
from linkbase.arrow import COLUMNS

# Spark's own default for splitting files (spark.sql.files.maxPartitionBytes).
SPLIT_SIZE = 128 << 20


def schema() -> Any:
    """The link table's Spark schema."""
    from pyspark.sql.types import BooleanType, StringType, StructField, StructType

    types = {"string": StringType(), "boolean": BooleanType()}
    return StructType([StructField(name, types[t], True) for name, t in COLUMNS])


def rows_of_warc(
    source: Any, profile: str = "rfc2396", header_base: str = "entity", start: int = 0, end: Optional[int] = None
) -> Iterator[Tuple[Any, ...]]:
    """The link rows of one WARC file (a path or a binary file object), or of its records that
    start in `start..end`, in record order, as tuples (the row API; the job uses Arrow)."""
    reader = linkbase.read_warc(source, start, end, profile=profile, header_base=header_base)  # type: ignore[arg-type]
    for record in reader:
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


def ranges(length: Optional[int], split_size: int = SPLIT_SIZE) -> List[Tuple[int, Optional[int]]]:
    """Byte ranges covering a file of `length` bytes, `split_size` each, the last one open
    (`(start, None)`: to the end, whatever the file has become). An unknown length is one range."""
    if length is None or split_size <= 0 or length <= split_size:
        return [(0, None)]
    cuts = list(range(0, length, split_size))
    return [(a, b) for a, b in zip(cuts, cuts[1:])] + [(cuts[-1], None)]


def tasks(paths: Sequence[str], split_size: int = SPLIT_SIZE) -> List[Tuple[str, int, Optional[int]]]:
    """(path, start, end) of every range of every file. The driver only asks each file's size;
    a file it cannot see (a path only the executors have) is one task."""
    out: List[Tuple[str, int, Optional[int]]] = []
    for path in paths:
        try:
            length: Optional[int] = os.path.getsize(_local(path))
        except OSError:
            length = None
        out.extend((path, start, end) for start, end in ranges(length, split_size))
    return out


def links(
    spark: Any,
    paths: Iterable[str],
    *,
    profile: str = "rfc2396",
    header_base: str = "entity",
    hadoop: bool = False,
    split_size: int = SPLIT_SIZE,
) -> Any:
    """A DataFrame of every link of every HTML record of the WARC files `paths` (schema:
    `COLUMNS`). One task per `split_size` bytes of each file (per file with `hadoop`)."""
    paths = list(paths)
    if not paths:
        raise ValueError("linkbase.spark.links: no WARC files given")
    options = {"profile": profile, "header_base": header_base}
    if hadoop:
        files = spark.read.format("binaryFile").load(paths).select("content")

        def whole_files(batches: Iterator[Any]) -> Iterator[Any]:
            from linkbase.arrow import link_batches

            for batch in batches:
                for content in batch.column(0).to_pylist():
                    yield from link_batches(io.BytesIO(content), **options)  # type: ignore[arg-type]

        return files.mapInArrow(whole_files, schema())
    work = tasks(paths, split_size)
    sc = spark.sparkContext
    # One range per partition, so each is a task of its own.
    ranges_df = spark.createDataFrame(
        sc.parallelize(work, len(work)), "path string, start long, end long"
    )

    def read_ranges(batches: Iterator[Any]) -> Iterator[Any]:
        from linkbase.arrow import link_batches

        for batch in batches:
            for path, start, end in zip(*(batch.column(i).to_pylist() for i in range(3))):
                yield from link_batches(_local(path), start, end, **options)  # type: ignore[arg-type]

    return ranges_df.mapInArrow(read_ranges, schema())


def host_links(links_df: Any) -> Any:
    """Host-level link counts, as Common Crawl's host graph has them: one row per (source host,
    target host) pair of resolved http(s) links between different hosts, with its count."""
    from pyspark.sql import functions as F

    def host(col: str) -> Any:
        return F.lower(F.expr(f"parse_url({col}, 'HOST')"))

    edges = (
        links_df.where(F.col("resolved").isNotNull() & ~F.col("same_document"))
        .where(F.col("resolved").rlike("^(?i)https?://"))
        .select(host("source").alias("source_host"), host("resolved").alias("target_host"))
        .where(F.col("source_host").isNotNull() & F.col("target_host").isNotNull())
        .where(F.col("source_host") != F.col("target_host"))
    )
    return edges.groupBy("source_host", "target_host").count()


def _size(text: str) -> int:
    """`134217728`, `128M`, `1G`, `64k` → bytes."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    t = text.strip().lower().removesuffix("b")
    try:
        if t and t[-1] in units:
            return int(float(t[:-1]) * units[t[-1]])
        return int(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected bytes, e.g. 134217728, 128M or 1G") from None


def _columns(text: str) -> List[str]:
    names = [c.strip() for c in text.split(",") if c.strip()]
    known = [c for c, _ in COLUMNS]
    for name in names:
        if name not in known:
            raise argparse.ArgumentTypeError(f"{name!r} is not a column of the link table ({', '.join(known)})")
    if not names:
        raise argparse.ArgumentTypeError("no column given")
    return names


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
    p.add_argument(
        "--hadoop",
        action="store_true",
        help="read the paths as Hadoop file system URIs (hdfs://, s3a://): a whole file per task",
    )
    p.add_argument(
        "--split-size",
        type=_size,
        default=SPLIT_SIZE,
        metavar="BYTES",
        help="cut each file into ranges of this many bytes, a task each (default 128M; 0: a task per file)",
    )
    p.add_argument(
        "--partition-by",
        type=_columns,
        metavar="COLUMN[,COLUMN…]",
        help="write the link table partitioned by these of its columns (a directory per value, as "
        "Spark's partitionBy; low-cardinality ones: kind, base_source, element, date's are exact)",
    )
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
            spark,
            args.warc,
            profile=args.profile,
            header_base=args.header_base,
            hadoop=args.hadoop,
            split_size=args.split_size,
        )
        writer = df.write.mode("overwrite")
        if args.partition_by:
            writer = writer.partitionBy(*args.partition_by)
        writer.parquet(args.output)
        written = spark.read.parquet(args.output).count()
        print(f"linkbase.spark: {written} links of {len(args.warc)} WARC files -> {args.output}", file=sys.stderr)
        if args.hosts:
            host_links(spark.read.parquet(args.output)).write.mode("overwrite").parquet(args.hosts)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

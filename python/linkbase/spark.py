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

`python -m linkbase.spark links` writes the table with pyarrow inside each task
(`write_parquet`: a Parquet file per range, renamed into place when whole), so the links never
cross into the JVM: Spark schedules the ranges and retries them, and that is all (Spark's own
writer reads every Arrow batch into JVM rows and encodes them again in its Parquet writer,
which on two cores cost more CPU than finding the links). So that job is an RDD of the ranges'
numbers on a bare SparkContext: no SQL session, no query planned or compiled. The price: the
output must be a path every executor and the driver share (a local or network file system), and
no Hadoop output committer is involved (a task's file appears whole, by rename, or not at all).
`--writer spark`, `--partition-by` and any hdfs:// or s3a:// output go through Spark's writer,
as `links(...)` does.

When the command starts its own JVM (not under spark-submit), it cuts the JVM's fixed cost, which
is most of a small job's: the driver JVM maps a class-data sharing archive of Spark's classes
(JDK CDS, `-XX:SharedArchiveFile`) that the first run writes as its JVM exits (65 MB after a
run of the pyarrow writer, 140 MB of Spark's, in `$XDG_CACHE_HOME/linkbase`, else
`~/.cache/linkbase`, named by a fingerprint of the JVM and Spark's jars; `--no-class-archive`
goes without), which halves the CPU of starting Spark; with the pyarrow writer the JVM only
schedules, so it also gets `-XX:TieredStopAtLevel=1` (C2 compiles would cost more than they
save). Neither where the user gave JVM options of their own
(PYSPARK_SUBMIT_ARGS, spark-defaults.conf). Under spark-submit, pass them yourself:
`--driver-java-options '-XX:TieredStopAtLevel=1 -XX:SharedArchiveFile=ARCHIVE' --conf
spark.executor.extraJavaOptions=-XX:TieredStopAtLevel=1` (ARCHIVE: one this command wrote, for
the same JVM and Spark; a driver JVM run once with `-XX:ArchiveClassesAtExit=ARCHIVE` writes one).

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
import shutil
import sys
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import linkbase
from linkbase._jvm import launch_options
from linkbase.arrow import COLUMNS

if TYPE_CHECKING:
    from linkbase._native import HeaderBaseName, ProfileName

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


# How many lines of what could not be read a task sends back (the counts are whole).
PROBLEM_LINES = 20


def range_problems(path: str, reader: Any) -> Dict[str, Any]:
    """What the reader of (a range of) `path` could not read, as the CLI counts it: damaged
    stretches, records read past damage, records not read (past a bound, a revisit whose
    original is not in the file, HTML the pipeline refused); and the first lines saying them."""
    counts = reader.counts
    lines = [
        f"{path}: damaged record at offset {offset}" + (f" (record {rid})" if rid else "") + f": {message}"
        for offset, rid, message in reader.damaged
    ]
    lines += [f"{path}: record {rid} at offset {offset} not read: {message}" for rid, offset, message in reader.failed]
    return {
        "damaged": int(counts["damaged"]),
        "salvaged": int(counts["salvaged"]),
        "failed": len(reader.failed),
        "lines": lines[:PROBLEM_LINES],
    }


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def problems_line(problems: Iterable[Dict[str, Any]]) -> Tuple[str, List[str]]:
    """The tasks' `range_problems` summed: what the job says of them (empty when nothing), and
    the lines to say before it."""
    damaged = salvaged = failed = 0
    lines: List[str] = []
    for p in problems:
        damaged += p["damaged"]
        salvaged += p["salvaged"]
        failed += p["failed"]
        lines.extend(p["lines"])
    said = []
    if damaged:
        said.append(f"{_plural(damaged, 'stretch')} of damage".replace("stretchs", "stretches"))
    if salvaged:
        said.append(f"{_plural(salvaged, 'record')} read past damage")
    if failed:
        said.append(f"{_plural(failed, 'record')} not read")
    return ", ".join(said), lines


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
    problems: Any = None,
) -> Any:
    """A DataFrame of every link of every HTML record of the WARC files `paths` (schema:
    `COLUMNS`). One task per `split_size` bytes of each file (per file with `hadoop`).
    `problems`, when given, is a Spark accumulator of lists (`problems_accumulator(sc)`): each
    task adds its `range_problems` once the DataFrame is computed."""
    paths = list(paths)
    if not paths:
        raise ValueError("linkbase.spark.links: no WARC files given")
    options = {"profile": profile, "header_base": header_base}

    def said(path: str) -> Optional[Callable[[Any], None]]:
        if problems is None:
            return None
        return lambda reader: problems.add([range_problems(path, reader)])

    if hadoop:
        files = spark.read.format("binaryFile").load(paths).select("path", "content")

        def whole_files(batches: Iterator[Any]) -> Iterator[Any]:
            from linkbase.arrow import link_batches

            for batch in batches:
                for path, content in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist()):
                    yield from link_batches(io.BytesIO(content), done=said(path), **options)  # type: ignore[arg-type]

        return files.mapInArrow(worker_task(whole_files), schema())
    work = tasks(paths, split_size)

    def read_ranges(batches: Iterator[Any]) -> Iterator[Any]:
        from linkbase.arrow import link_batches

        for batch in batches:
            for i in batch.column(0).to_pylist():
                path, start, end = work[i]
                yield from link_batches(_local(path), start, end, done=said(path), **options)  # type: ignore[arg-type]

    return _task_ids(spark, len(work)).mapInArrow(worker_task(read_ranges), schema())


def problems_accumulator(sc: Any) -> Any:
    """A Spark accumulator of lists, for `links(..., problems=...)`: its value is every task's
    `range_problems`."""
    from pyspark.accumulators import AccumulatorParam

    class Lists(AccumulatorParam):  # type: ignore[misc, type-arg, unused-ignore]
        def zero(self, value: List[Any]) -> List[Any]:
            return []

        def addInPlace(self, a: List[Any], b: List[Any]) -> List[Any]:
            a.extend(b)
            return a

    return sc.accumulator([], Lists())


def worker_task(body: Callable[[Iterator[Any]], Iterator[Any]]) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """`body`, a function for mapInArrow or mapPartitions, with what PySpark's worker does
    between tasks made cheap: measured with py-spy on the corpus WARC, two costs of every task
    that are not the task's.

    The import system's zip finders: before every task PySpark's worker calls
    `importlib.invalidate_caches()` (worker_util.setup_spark_files), and every zipimporter in
    `sys.path_importer_cache` then reads its archive's whole directory again (zipimport in pure
    Python): pyspark.zip's for itself and once more for each of its packages imported, py4j's,
    the spark-core jar's. Measured 0.1 s of CPU per task on an idle core (16 zip finders), a
    quarter of the worker's time on 4 MB ranges. The archives do not change while the worker
    lives, and Python makes a new finder when it next needs one, from zipimport's own cache of
    each archive's directory (`sys.path_importer_cache` is a cache: the import system's
    documentation allows clearing it).

    The collector: the daemon that forks the workers runs `gc.collect()` after every task of a
    reused worker (pyspark/daemon.py), a full collection that walks every tracked object, most
    of them the modules the worker imported (PySpark's, pyarrow's): 30–45 ms a task with
    mapInArrow's imports. After its first task a worker collects once and freezes what is left (`gc.freeze`,
    Python ≥ 3.7: the objects alive then move to a permanent generation that later collections
    skip), so the daemon's collections only walk what later tasks made. Frozen objects are still
    freed when their count drops to zero; only a cycle among them outlives the worker."""

    def task(items: Iterator[Any]) -> Iterator[Any]:
        import gc
        import zipimport

        yield from body(items)
        for path, finder in list(sys.path_importer_cache.items()):
            if isinstance(finder, zipimport.zipimporter):
                del sys.path_importer_cache[path]
        if gc.get_freeze_count() == 0:
            gc.collect()
            gc.freeze()

    return task


def _task_ids(spark: Any, n: int) -> Any:
    """A DataFrame of the numbers 0..n (`id`), one per partition, so each is a task of its own.
    spark.range, not a DataFrame made from Python rows: its partitions come from the JVM, so a
    task starts one Python worker (the one mapInArrow runs), not two."""
    return spark.range(0, n, 1, n)


def _is_local(path: str) -> bool:
    """A path the executors' Python can open itself: no scheme, or file://."""
    return path.startswith("file://") or "://" not in path


def write_parquet(
    spark: Any,
    paths: Iterable[str],
    output: str,
    *,
    profile: str = "rfc2396",
    header_base: str = "entity",
    split_size: int = SPLIT_SIZE,
    problems: Optional[List[Dict[str, Any]]] = None,
) -> int:
    """Writes the link table of the WARC files `paths` to the directory `output` (replaced if it
    exists) as Parquet, and returns its row count (`spark`: a SparkSession or a SparkContext).
    `problems`, when given, gets each task's `range_problems` (what it could not read).
    The same table as `links(...)` written by Spark, but each task writes its own file with
    pyarrow on the executor (`part-NNNNN.parquet`, NNNNN the task's range; `_SUCCESS` when all
    are done): Spark only schedules the ranges, no link passes through the JVM. `output` must be a path every executor and the driver share (a
    local or network file system); for hdfs:// or s3a:// write `links(...)` with Spark's writer.

    A task writes a hidden temporary file (`.part-NNNNN.parquet.<attempt>.tmp`, which Spark and
    pyarrow skip when reading) and renames it into place: a retried or speculative attempt of
    the same range renames the same rows onto the same name, and a failed attempt leaves only a
    hidden file, removed when the job ends."""
    import shutil

    paths = list(paths)
    if not paths:
        raise ValueError("linkbase.spark.write_parquet: no WARC files given")
    if not _is_local(output):
        raise ValueError(f"linkbase.spark.write_parquet: {output!r} is not a file system path; write links(...) with Spark")
    options = {"profile": profile, "header_base": header_base}
    out = os.path.abspath(_local(output))
    if os.path.isdir(out):
        shutil.rmtree(out)
    elif os.path.exists(out):
        os.remove(out)
    os.makedirs(out)
    work = tasks(paths, split_size)

    def write_ranges(ids: Iterator[int]) -> Iterator[Tuple[str, int, List[Dict[str, Any]]]]:
        import uuid

        for i in ids:
            path, start, end = work[i]
            name = f"part-{i:05d}.parquet"
            tmp = os.path.join(out, f".{name}.{uuid.uuid4().hex}.tmp")
            said: List[Dict[str, Any]] = []
            rows = write_range(path, start, end, tmp, problems=said, **options)  # type: ignore[arg-type]
            os.replace(tmp, os.path.join(out, name))
            yield name, rows, said

    # The ranges' numbers as an RDD, one per partition, not a DataFrame (spark.range and
    # mapInArrow): no link reaches Spark, so it has no query to plan, compile (whole-stage
    # code generation) or convert to Arrow; measured, the driver JVM's CPU of a 18-task job
    # that does nothing falls by about 1.1 s (5.1–5.3 s against 6.1–6.5 s).
    sc = getattr(spark, "sparkContext", spark)
    done = sc.parallelize(range(len(work)), len(work)).mapPartitions(worker_task(write_ranges)).collect()
    for name in os.listdir(out):
        if name.endswith(".tmp"):
            os.remove(os.path.join(out, name))
    with open(os.path.join(out, "_SUCCESS"), "w"):
        pass
    if problems is not None:
        problems.extend(p for _, _, said in done for p in said)
    return sum(rows for _, rows, _ in done)


def write_range(
    path: str,
    start: int,
    end: Optional[int],
    target: str,
    *,
    profile: "ProfileName" = "rfc2396",
    header_base: "HeaderBaseName" = "entity",
    problems: Optional[List[Dict[str, Any]]] = None,
) -> int:
    """Writes the link table of the records of `path` that start in `start..end` to the Parquet
    file `target` with pyarrow (Snappy, as Spark's writer; an empty range still writes the
    schema), and returns its row count: a task of `write_parquet` (and of the pool it is
    measured against, python/bench/pool.py). `problems`, when given, gets the range's
    `range_problems`."""
    import pyarrow.parquet as pq  # type: ignore[import-untyped, unused-ignore]

    from linkbase.arrow import link_batches
    from linkbase.arrow import schema as arrow_schema

    rows = 0
    with pq.ParquetWriter(target, arrow_schema(), compression="snappy") as writer:
        done = None if problems is None else (lambda reader: problems.append(range_problems(path, reader)))
        for batch in link_batches(_local(path), start, end, profile=profile, header_base=header_base, done=done):
            writer.write_batch(batch)
            rows += batch.num_rows
    return rows


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
    p.add_argument(
        "--writer",
        choices=["auto", "arrow", "spark"],
        default="auto",
        help="who writes the link table: arrow (pyarrow in each task, a file per range; the output "
        "a path every executor shares), spark (Spark's Parquet writer: any Hadoop URI, "
        "--partition-by); auto (default): arrow when it can",
    )
    p.add_argument(
        "--verbose",
        action="store_true",
        help="let Spark and its JVM log as they do by default (without it, only their errors)",
    )
    p.add_argument(
        "--no-class-archive",
        action="store_true",
        help="start the JVM without the class-data sharing archive of Spark's classes (by default "
        "the first run writes it to $XDG_CACHE_HOME/linkbase, later runs start from it)",
    )
    args = parser.parse_args(argv)
    arrow_ok = _is_local(args.output) and not args.partition_by and not args.hadoop
    if args.writer == "arrow" and not arrow_ok:
        parser.error("--writer arrow needs an --output path the executors share, and neither --partition-by nor --hadoop")
    writer_name = "arrow" if args.writer == "auto" and arrow_ok else args.writer
    # What the job needs, checked before Spark starts (a task would only find out in a worker's
    # traceback, after Spark has started): one line naming what to install.
    needed = missing_modules(["pyspark", "pyarrow"] + ([] if writer_name == "arrow" else ["pandas"]))
    if needed:
        print(
            f"linkbase.spark: {' and '.join(needed)} {'is' if len(needed) == 1 else 'are'} not installed: "
            "pip install 'linkbase[spark]' (pyspark, pyarrow, pandas)",
            file=sys.stderr,
        )
        return 2
    if not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        print("linkbase.spark: Spark needs Java (17 or later): none on PATH and JAVA_HOME is not set", file=sys.stderr)
        return 2

    from pyspark import SparkConf, SparkContext
    from pyspark.sql import SparkSession

    conf = SparkConf().setAppName("linkbase-links")
    if not args.verbose:
        # No progress bar; Spark's log4j at errors and the JVM's own warnings (the class
        # archive's, hundreds of lines as it is written) are quietened in _jvm, where this
        # command starts the JVM. One line stays: the JVM's own notice of the incubator module
        # Spark 4 always adds (--add-modules jdk.incubator.vector), which no option hides.
        conf = conf.set("spark.ui.showConsoleProgress", "false")
    if args.master:
        conf = conf.setMaster(args.master)
    if (args.master or "").startswith("local") and "PYSPARK_PYTHON" not in os.environ:
        # Local executors run this interpreter, the one linkbase is installed in (PySpark's
        # default is whatever `python3` is first on PATH).
        os.environ["PYSPARK_PYTHON"] = sys.executable
    # The JVM this command starts, if it starts one (see the module's help).
    conf, archive = launch_options(
        conf, schedules_only=writer_name == "arrow", class_archive=not args.no_class_archive, quiet=not args.verbose
    )
    # The pyarrow writer only schedules tasks: a SparkContext does, and a SparkSession (its SQL
    # session state) would cost the driver JVM about 1.3 s more CPU (a do-nothing job of 18
    # tasks: 2.5–3.0 s against 3.7–4.4 s), so one is made only to read the table back (--hosts).
    sc = SparkContext.getOrCreate(conf) if writer_name == "arrow" else SparkSession.builder.config(conf=conf).getOrCreate().sparkContext
    problems: List[Dict[str, Any]] = []
    try:
        if writer_name == "arrow":
            written = write_parquet(
                sc,
                args.warc,
                args.output,
                profile=args.profile,
                header_base=args.header_base,
                split_size=args.split_size,
                problems=problems,
            )
        else:
            spark = SparkSession.builder.getOrCreate()
            accumulator = problems_accumulator(spark.sparkContext)
            df = links(
                spark,
                args.warc,
                profile=args.profile,
                header_base=args.header_base,
                hadoop=args.hadoop,
                split_size=args.split_size,
                problems=accumulator,
            )
            writer = df.write.mode("overwrite")
            if args.partition_by:
                writer = writer.partitionBy(*args.partition_by)
            writer.parquet(args.output)
            problems = list(accumulator.value)
            written = spark.read.parquet(args.output).count()
        # What could not be read is said, and makes the exit status 1, as `linkbase links` of
        # the same files does (the table holds every link that could be read).
        summary, lines = problems_line(problems)
        for line in lines:
            print(f"linkbase.spark: {line}", file=sys.stderr)
        tail = f"; {summary}" if summary else ""
        print(
            f"linkbase.spark: {_plural(written, 'link')} of {_plural(len(args.warc), 'WARC file')} -> {args.output}{tail}",
            file=sys.stderr,
        )
        status = 1 if summary else 0
        if args.hosts:
            spark = SparkSession.builder.getOrCreate()
            host_links(spark.read.parquet(args.output)).write.mode("overwrite").parquet(args.hosts)
    finally:
        sc.stop()
        if archive is not None:
            said = archive.finish()
            if said:
                print(f"linkbase.spark: {said}", file=sys.stderr)
    return status


def missing_modules(names: Sequence[str]) -> List[str]:
    """Those of the modules `names` this interpreter cannot import."""
    import importlib

    missing = []
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


if __name__ == "__main__":
    sys.exit(main())

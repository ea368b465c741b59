"""linkbase.spark end to end on WARCs the test builds, in local[2] mode and through spark-submit
on a standalone cluster the test starts (a master and two workers on 127.0.0.1, the executors
running a venv-packed environment shipped with --archives): the link table equals
`linkbase links` on the same files."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import warcs
from test_warc import cli, cli_links

pyspark = pytest.importorskip("pyspark", reason="python/test.sh installs pyspark; run it for this test")

from linkbase import spark as lspark  # noqa: E402


@pytest.fixture(scope="module")
def session():
    import os

    from pyspark.sql import SparkSession

    # The executors run this interpreter, the venv linkbase is installed in (PySpark's default
    # is the first `python3` on PATH).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    s = (
        SparkSession.builder.master("local[2]")
        .appName("linkbase-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    yield s
    s.stop()


def row_of_cli(link):
    return (
        link["warc_target_uri"],
        link["warc_record_id"],
        link["warc_date"],
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


def inputs(tmp_path):
    return [
        warcs.write(tmp_path / "mixed.warc.gz", warcs.mixed()),
        warcs.write(tmp_path / "a.warc.gz", warcs.site(30, "a.org")),
        warcs.write(tmp_path / "b.warc", warcs.site(20, "b.org"), compress=False),
    ]


def cli_table(paths):
    return sorted(row_of_cli(l) for p in paths for l in cli_links(p))


def test_link_table_equals_the_cli(session, tmp_path):
    paths = inputs(tmp_path)
    # Ranges of 4 KB: the two larger files are several tasks.
    df = lspark.links(session, [str(p) for p in paths], split_size=4096)
    assert df.rdd.getNumPartitions() == sum(-(-p.stat().st_size // 4096) for p in paths) > len(paths)
    assert [f.name for f in df.schema.fields] == [c for c, _ in lspark.COLUMNS]
    got = sorted(tuple(r) for r in df.collect())
    want = cli_table(paths)
    assert got == want
    # mixed: 8 links (the <base> href is one); the sites: 4 a page.
    assert len(got) == 8 + 4 * 50

    hosts = {(r.source_host, r.target_host): r["count"] for r in lspark.host_links(df).collect()}
    assert hosts[("a.org", "other.a.org")] == 30
    assert hosts[("b.org", "other.b.org")] == 20
    assert hosts[("ex.org", "cdn.ex.org")] == 2  # the <base href> and the image
    assert all(s != t for s, t in hosts)


def test_tasks_write_parquet_with_pyarrow(session, tmp_path):
    paths = inputs(tmp_path)
    out = tmp_path / "links.parquet"
    out.mkdir()
    (out / "stale.parquet").write_bytes(b"not parquet")  # replaced, as Spark's overwrite does
    written = lspark.write_parquet(session, [str(p) for p in paths], str(out), split_size=4096)
    tasks = sum(-(-p.stat().st_size // 4096) for p in paths)
    # A file per range, empty ones included (they hold the schema), nothing hidden left over.
    assert sorted(f.name for f in out.iterdir()) == ["_SUCCESS"] + [f"part-{i:05d}.parquet" for i in range(tasks)]
    df = session.read.parquet(str(out))
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == [
        (c, "string" if t == "string" else "boolean") for c, t in lspark.COLUMNS
    ]
    want = cli_table(paths)
    assert written == len(want) == 8 + 4 * 50
    assert sorted(tuple(r) for r in df.collect()) == want
    # The same rows as the DataFrame Spark's writer would write.
    assert sorted(tuple(r) for r in lspark.links(session, [str(p) for p in paths], split_size=4096).collect()) == want


def test_hadoop_file_systems_read_whole_files(session, tmp_path):
    paths = inputs(tmp_path)
    df = lspark.links(session, [p.as_uri() for p in paths], hadoop=True)
    assert sorted(tuple(r) for r in df.collect()) == cli_table(paths)


def test_ranges_cover_the_file():
    assert lspark.ranges(10, 4) == [(0, 4), (4, 8), (8, None)]
    assert lspark.ranges(8, 4) == [(0, 4), (4, None)]
    assert lspark.ranges(3, 4) == lspark.ranges(None, 4) == lspark.ranges(10, 0) == [(0, None)]
    assert lspark._size("128M") == 128 << 20 and lspark._size("2k") == 2048 and lspark._size("1gb") == 1 << 30


@pytest.fixture
def unfrozen():
    """worker_task freezes the collector's objects in the process it runs in (this one, here):
    undone before and after the test."""
    import gc

    gc.unfreeze()
    yield
    gc.unfreeze()


def test_worker_task_leaves_no_zip_finders(tmp_path, monkeypatch, unfrozen):
    """PySpark's worker re-reads every zip finder's archive before each task
    (importlib.invalidate_caches): a task through worker_task leaves none, and imports from the
    archive still work after it."""
    import importlib
    import zipfile
    import zipimport

    archive = tmp_path / "lib.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zpkg/__init__.py", "")
        z.writestr("zpkg/one.py", "VALUE = 1\n")
        z.writestr("zpkg/two.py", "VALUE = 2\n")
    monkeypatch.syspath_prepend(str(archive))
    for name in ("zpkg", "zpkg.one", "zpkg.two"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    importlib.import_module("zpkg.one")

    def zip_finders():
        return [p for p, f in sys.path_importer_cache.items() if isinstance(f, zipimport.zipimporter)]

    assert str(archive) in zip_finders()
    assert list(lspark.worker_task(lambda batches: (b * 2 for b in batches))(iter([1, 2]))) == [2, 4]
    assert zip_finders() == []
    importlib.invalidate_caches()
    assert importlib.import_module("zpkg.two").VALUE == 2


def test_worker_task_freezes_the_heap_once(unfrozen, monkeypatch):
    """After a worker's first task its objects are frozen (gc.freeze), so the collection
    PySpark's daemon runs after every task skips them; later tasks freeze nothing more.

    Deterministic: it counts the calls to gc.freeze and asks which objects are frozen, where it
    compared gc.get_freeze_count() before and after a second task. That count is the size of the
    permanent generation, which shrinks whenever a frozen object is freed: by a thread of this
    process (py4j's, the module's Spark session) or by the collector freeing a cycle that held
    one, which under load happened between the two reads, and the test failed."""
    import gc
    import weakref

    class Cycle:
        pass

    freezes = []
    real_freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (freezes.append(1), real_freeze())[1])

    def frozen(obj):
        # gc.get_objects() lists the collector's generations, not the permanent one.
        return not any(o is obj for o in gc.get_objects())

    assert gc.get_freeze_count() == 0
    early = Cycle()
    early.me = early
    assert not frozen(early)
    gc.disable()  # only worker_task collects
    try:
        garbage = Cycle()
        garbage.me = garbage  # a cycle only the collector frees: collected, not frozen
        ref = weakref.ref(garbage)
        del garbage
        assert list(lspark.worker_task(lambda ids: (i + 1 for i in ids))(iter([1]))) == [2]
    finally:
        gc.enable()
    assert ref() is None
    assert freezes == [1]
    assert gc.get_freeze_count() > 0
    assert frozen(early)
    late = Cycle()
    late.me = late
    assert list(lspark.worker_task(lambda ids: iter(ids))(iter([3]))) == [3]
    assert freezes == [1], "a later task freezes nothing more"
    assert not frozen(late)


def test_command_line_writes_parquet(session, tmp_path):
    path = warcs.write(tmp_path / "a.warc.gz", warcs.site(10, "a.org"))
    out, hosts = tmp_path / "links.parquet", tmp_path / "hosts.parquet"
    # From another directory than python/ (whose linkbase/ a stray interpreter could import), and
    # without the fixture's PYSPARK_PYTHON: the command must find its own interpreter.
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"}
    # The class archive goes to the test's own cache directory; the JVMs log what CDS maps.
    cache, logs = tmp_path / "cache", tmp_path / "cds-logs"
    logs.mkdir()
    env.update(XDG_CACHE_HOME=str(cache), JAVA_TOOL_OPTIONS=f"-Xlog:cds=info:file={logs}/%p.log")
    run = subprocess.run(
        cwd=tmp_path,
        env=env,
        args=[sys.executable, "-m", "linkbase.spark", "links", "--master", "local[2]", str(path), "--output", str(out), "--hosts", str(hosts), "--partition-by", "kind,base_source"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "40 links of 1 WARC file ->" in run.stderr
    assert session.read.parquet(str(out)).count() == 40
    assert session.read.parquet(str(hosts)).where("target_host = 'other.a.org'").first()["count"] == 10
    # Partitioned: a directory per value, the columns read back from the directory names.
    assert (out / "kind=url" / "base_source=retrieval-uri").is_dir()
    assert sorted(session.read.parquet(str(out)).columns) == sorted(c for c, _ in lspark.COLUMNS)
    # The first run wrote the class archive as its JVM exited, renamed into place whole.
    (archive,) = (cache / "linkbase").iterdir()
    assert archive.name.startswith("spark-classes-") and archive.suffix == ".jsa"
    assert f"JVM class archive written to {archive} (later runs start faster)" in run.stderr
    assert not any("Mapped dynamic region" in f.read_text() for f in logs.iterdir())
    # Unpartitioned: the tasks write with pyarrow, in a JVM this command started (with C1 only,
    # from the class archive) with a SparkContext alone, the session made for --hosts after.
    plain, plain_hosts = tmp_path / "plain.parquet", tmp_path / "plain-hosts.parquet"
    run = subprocess.run(
        cwd=tmp_path,
        env=env,
        args=[sys.executable, "-m", "linkbase.spark", "links", "--master", "local[2]", str(path), "--output", str(plain), "--hosts", str(plain_hosts)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    # Spark's own logging and the JVM's warnings are quiet by default: the job's lines only.
    # (and the JVM's notice of the JAVA_TOOL_OPTIONS this test gives it, and of Spark's incubator
    # module, which no option hides).
    said = [l for l in run.stderr.splitlines() if not l.startswith(("Picked up JAVA_TOOL_OPTIONS", "WARNING: Using incubator modules"))]
    assert [l.split(":")[0] for l in said] == ["linkbase.spark"], run.stderr[-3000:]
    assert "40 links of 1 WARC file ->" in run.stderr
    assert sorted(f.name for f in plain.iterdir()) == ["_SUCCESS", "part-00000.parquet"]
    assert sorted(tuple(r) for r in session.read.parquet(str(plain)).collect()) == cli_table([path])
    assert sorted(tuple(r) for r in session.read.parquet(str(plain_hosts)).collect()) == sorted(
        tuple(r) for r in session.read.parquet(str(hosts)).collect()
    )
    # The second run's JVM mapped the archive (and wrote none).
    assert "class archive" not in run.stderr
    assert [f.name for f in (cache / "linkbase").iterdir()] == [archive.name]
    mapped = [f for f in logs.iterdir() if f"Opened archive {archive}." in f.read_text()]
    assert len(mapped) == 1 and "Mapped dynamic region" in mapped[0].read_text()
    # --no-class-archive: none mapped.
    for f in logs.iterdir():
        f.unlink()
    run = subprocess.run(
        cwd=tmp_path,
        env=env,
        args=[sys.executable, "-m", "linkbase.spark", "links", "--master", "local[2]", str(path), "--output", str(plain), "--no-class-archive"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert not any("Mapped dynamic region" in f.read_text() for f in logs.iterdir())
    # About 140 MB (a first run of Spark's writer): not left in pytest's kept temporary directories.
    archive.unlink()


def test_damaged_records_are_counted_said_and_make_the_exit_status_1(session, tmp_path):
    """Damage is said and counted by the job, and, as `linkbase links` of the same files, makes
    the exit status 1 (the table still holds every link that could be read): with the pyarrow
    writer and with Spark's (through an accumulator)."""
    import gzip

    data = b"".join(gzip.compress(r) for r in warcs.site(3, "d.org"))
    cut = data + gzip.compress(warcs.site(1, "e.org")[0])[:40]
    path = tmp_path / "damaged.warc.gz"
    path.write_bytes(cut)
    by_cli = subprocess.run([str(cli()), "links", str(path)], capture_output=True, text=True)
    assert by_cli.returncode == 1
    assert len(by_cli.stdout.splitlines()) == 12
    for writer in ("arrow", "spark"):
        out = tmp_path / f"{writer}.parquet"
        run = subprocess.run(
            [sys.executable, "-m", "linkbase.spark", "links", "--master", "local[2]", str(path), "--output", str(out), "--writer", writer, "--no-class-archive"],
            capture_output=True,
            text=True,
        )
        assert run.returncode == 1, run.stderr[-3000:]
        # Spark's logging quiet: the job's lines (and the JVM's incubator notice) only.
        lines = [l for l in run.stderr.splitlines() if not l.startswith("WARNING: Using incubator modules")]
        assert lines[0].startswith(f"linkbase.spark: {path}: damaged record at offset {len(data)}: truncated"), run.stderr
        assert lines[-1] == f"linkbase.spark: 12 links of 1 WARC file -> {out}; 1 stretch of damage", run.stderr
        assert session.read.parquet(str(out)).count() == 12


def test_the_job_without_pyarrow_fails_at_once_naming_it(tmp_path):
    """Without pyarrow every task died in a worker's traceback after Spark had started: the job
    checks what it needs first and says it in one line (exit 2), Spark never started."""
    code = (
        "import sys; sys.modules['pyarrow'] = None; from linkbase.spark import main; "
        f"sys.exit(main(['links', 'x.warc', '--output', {str(tmp_path / 'o')!r}]))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr == (
        "linkbase.spark: pyarrow is not installed: pip install 'linkbase[spark]' (pyspark, pyarrow, pandas)\n"
    )
    assert not (tmp_path / "o").exists()


def test_the_package_declares_the_spark_extra():
    """`pip install 'linkbase[spark]'` brings what the job needs: the wheel python/test.sh built
    declares them (METADATA's Requires-Dist under the `spark` extra)."""
    import zipfile

    wheels = sorted((Path(__file__).resolve().parents[2] / "target" / "wheels").glob("linkbase-*.whl"))
    if not wheels:
        pytest.skip("python/test.sh builds the wheel; run it for this test")
    with zipfile.ZipFile(wheels[-1]) as wheel:
        (metadata,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
        lines = wheel.read(metadata).decode().splitlines()
    extra = sorted(
        l.split(":", 1)[1].split(";")[0].strip().split(">=")[0]
        for l in lines
        if l.startswith("Requires-Dist:") and "extra == 'spark'" in l.replace('"', "'")
    )
    assert extra == ["pandas", "pyarrow", "pyspark"]
    assert "Provides-Extra: spark" in lines


def test_unknown_partition_column_is_refused():
    run = subprocess.run(
        [sys.executable, "-m", "linkbase.spark", "links", "x.warc", "--output", "o", "--partition-by", "host"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    assert "'host' is not a column of the link table" in run.stderr


def test_arrow_writer_is_refused_where_it_cannot_write():
    for extra in (["--output", "s3a://bucket/links"], ["--output", "o", "--partition-by", "kind"], ["--output", "o", "--hadoop"]):
        run = subprocess.run(
            [sys.executable, "-m", "linkbase.spark", "links", "x.warc", "--writer", "arrow", *extra],
            capture_output=True,
            text=True,
        )
        assert run.returncode == 2, extra
        assert "--writer arrow needs an --output path the executors share" in run.stderr


# --- A standalone cluster, as users run one: spark-submit, the environment shipped with
# --archives (python/spark-env.sh packs it; python/test.sh says where in LINKBASE_SPARK_ENV).


def spark_env():
    """The environment Spark's scripts run in: the pip-installed pyspark is SPARK_HOME (its
    scripts would otherwise ask the first `python3` on PATH where it is), this venv first."""
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"}
    env["SPARK_HOME"] = str(Path(pyspark.__file__).parent)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    return env


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    packed = os.environ.get("LINKBASE_SPARK_ENV")
    if not packed or not Path(packed).exists():
        pytest.skip("python/test.sh packs the executors' environment (LINKBASE_SPARK_ENV)")
    home = tmp_path_factory.mktemp("cluster")
    spark_class = Path(sys.executable).parent / "spark-class"
    port, ui = free_port(), free_port()
    url = f"spark://127.0.0.1:{port}"
    env = spark_env()
    daemons = []

    def start(name, *args):
        log = open(home / f"{name}.log", "wb")
        daemons.append(
            subprocess.Popen([str(spark_class), *args], stdout=log, stderr=subprocess.STDOUT, env=env, cwd=home)
        )

    start("master", "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui))
    for i in (1, 2):
        start(
            f"worker{i}",
            "org.apache.spark.deploy.worker.Worker",
            *("--host", "127.0.0.1", "--cores", "1", "--memory", "1g"),
            *("--webui-port", str(free_port()), "--work-dir", str(home / f"work{i}"), url),
        )
    try:
        # The master's JSON page lists the workers that registered.
        deadline = time.monotonic() + 180
        alive = 0
        while alive < 2:
            if time.monotonic() > deadline or any(d.poll() is not None for d in daemons):
                logs = "".join((home / f).read_text(errors="replace")[-2000:] for f in ("master.log", "worker1.log"))
                pytest.fail(f"the standalone cluster did not come up: {logs}")
            time.sleep(1)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=5) as r:
                    alive = json.load(r).get("aliveworkers", 0)
            except OSError:
                pass
        yield url, packed
    finally:
        for d in daemons:
            d.terminate()
        for d in daemons:
            try:
                d.wait(30)
            except subprocess.TimeoutExpired:
                d.kill()


def test_spark_submit_on_a_standalone_cluster(cluster, tmp_path):
    import pyarrow.parquet as pq

    url, packed = cluster
    paths = inputs(tmp_path)
    out, hosts = tmp_path / "links.parquet", tmp_path / "hosts.parquet"
    # Spark's documented way for Python dependencies: the driver runs this venv, the executors
    # the packed one, unpacked as ./environment in their working directories.
    env = spark_env()
    env.update(PYSPARK_DRIVER_PYTHON=sys.executable, PYSPARK_PYTHON="./environment/bin/python")
    run = subprocess.run(
        cwd=tmp_path,
        env=env,
        args=[
            str(Path(sys.executable).parent / "spark-submit"),
            *("--master", url, "--archives", f"{packed}#environment"),
            *("--conf", "spark.executor.memory=512m", "--conf", "spark.ui.enabled=false"),
            *("--conf", "spark.sql.shuffle.partitions=2"),
            lspark.__file__,
            *("links", *map(str, paths), "--split-size", "2k", "--output", str(out), "--hosts", str(hosts)),
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-5000:]
    table = pq.read_table(out)
    assert table.column_names == [c for c, _ in lspark.COLUMNS]
    assert sorted(tuple(r.values()) for r in table.to_pylist()) == cli_table(paths)
    # Several tasks per file, each writing its range's file with pyarrow (the default writer on
    # a path the executors share).
    tasks = sum(-(-p.stat().st_size // 2048) for p in paths)
    assert tasks > len(paths)
    assert sorted(f.name for f in out.glob("part-*")) == [f"part-{i:05d}.parquet" for i in range(tasks)]
    counts = {(r["source_host"], r["target_host"]): r["count"] for r in pq.read_table(hosts).to_pylist()}
    assert counts[("a.org", "other.a.org")] == 30 and counts[("b.org", "other.b.org")] == 20

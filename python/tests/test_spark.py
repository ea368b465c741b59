"""linkbase.spark end to end in local[2] mode on WARCs the test builds: the link table equals
`linkbase links` on the same files."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import warcs
from test_warc import cli_links

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


def test_link_table_equals_the_cli(session, tmp_path):
    paths = [
        warcs.write(tmp_path / "mixed.warc.gz", warcs.mixed()),
        warcs.write(tmp_path / "a.warc.gz", warcs.site(30, "a.org")),
        warcs.write(tmp_path / "b.warc", warcs.site(20, "b.org"), compress=False),
    ]
    df = lspark.links(session, [str(p) for p in paths])
    assert [f.name for f in df.schema.fields] == [c for c, _ in lspark.COLUMNS]
    got = sorted(tuple(r) for r in df.collect())
    want = sorted(row_of_cli(l) for p in paths for l in cli_links(p))
    assert got == want
    # mixed: 8 links (the <base> href is one); the sites: 4 a page.
    assert len(got) == 8 + 4 * 50

    hosts = {(r.source_host, r.target_host): r["count"] for r in lspark.host_links(df).collect()}
    assert hosts[("a.org", "other.a.org")] == 30
    assert hosts[("b.org", "other.b.org")] == 20
    assert hosts[("ex.org", "cdn.ex.org")] == 2  # the <base href> and the image
    assert all(s != t for s, t in hosts)


def test_command_line_writes_parquet(session, tmp_path):
    path = warcs.write(tmp_path / "a.warc.gz", warcs.site(10, "a.org"))
    out, hosts = tmp_path / "links.parquet", tmp_path / "hosts.parquet"
    # From another directory than python/ (whose linkbase/ a stray interpreter could import), and
    # without the fixture's PYSPARK_PYTHON: the command must find its own interpreter.
    env = {k: v for k, v in os.environ.items() if k != "PYSPARK_PYTHON"}
    run = subprocess.run(
        cwd=tmp_path,
        env=env,
        args=[sys.executable, "-m", "linkbase.spark", "links", "--master", "local[2]", str(path), "--output", str(out), "--hosts", str(hosts)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "40 links of 1 WARC files" in run.stderr
    assert session.read.parquet(str(out)).count() == 40
    assert session.read.parquet(str(hosts)).where("target_host = 'other.a.org'").first()["count"] == 10

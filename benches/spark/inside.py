"""Where a Python worker's CPU goes, Spark's against the pool's: the same tasks
(`linkbase.spark.write_range` over the `--split-size` ranges) run by a 2-process pool or by
Spark's Python workers in local[2] (an RDD of the range numbers, as
linkbase.spark.write_parquet runs them; the JVM as `python -m linkbase.spark links` starts
it), each task timed from inside (time.process_time of its process: the task itself, and what
the process had spent before it began). Prints, per worker process: CPU before its
first task (start-up: imports), inside its tasks, and between them (the framework's per-task
work); cputree.py around it gives the processes' totals (what is after the last task). The
tasks run through linkbase.spark.worker_task as the job's do; --as-is runs them without it.

    python benches/spark/inside.py --mode spark --split-size 16M OUT_DIR corpus8.warc.gz
"""

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections import defaultdict

from linkbase.spark import _size, tasks, worker_task, write_range


def timed(task):
    i, path, start, end, out = task
    before = time.process_time()
    rows = write_range(path, start, end, os.path.join(out, f"part-{i:05d}.parquet"))
    after = time.process_time()
    return json.dumps({"pid": os.getpid(), "rows": rows, "before": before, "after": after})


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["pool", "spark"], required=True)
    ap.add_argument("--split-size", type=_size, default="16M")
    ap.add_argument("--as-is", action="store_true", help="spark: without linkbase.spark.worker_task around the tasks")
    ap.add_argument("out")
    ap.add_argument("warc", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    work = [(i, path, s, e, args.out) for i, (path, s, e) in enumerate(tasks(args.warc, args.split_size))]
    if args.mode == "pool":
        with multiprocessing.Pool(2) as pool:
            got = list(pool.imap_unordered(timed, work))
    else:
        from pyspark import SparkConf, SparkContext

        from linkbase._jvm import launch_options

        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        conf, archive = launch_options(SparkConf().setMaster("local[2]").setAppName("inside"), schedules_only=True)
        spark = SparkContext(conf=conf)

        def run(ids):
            for i in ids:
                yield timed(work[i])

        try:
            task = run if args.as_is else worker_task(run)
            # As linkbase.spark.write_parquet schedules its tasks.
            got = spark.parallelize(range(len(work)), len(work)).mapPartitions(task).collect()
        finally:
            spark.stop()
            if archive is not None:
                archive.finish()
    per = defaultdict(list)
    for line in got:
        r = json.loads(line)
        per[r["pid"]].append(r)
    total = defaultdict(float)
    for pid, rs in sorted(per.items()):
        rs.sort(key=lambda r: r["before"])
        start = rs[0]["before"]
        inside = sum(r["after"] - r["before"] for r in rs)
        between = rs[-1]["after"] - start - inside
        total["start-up"] += start
        total["inside tasks"] += inside
        total["between tasks"] += between
        print(f"{args.mode} worker {pid}: {len(rs)} tasks, start-up {start:.2f} s, inside tasks {inside:.2f} s, between {between:.2f} s")
    print(f"{args.mode} workers: " + ", ".join(f"{k} {v:.2f} s" for k, v in total.items()) + f"; {sum(len(v) for v in per.values())} tasks, {sum(r['rows'] for v in per.values() for r in v)} rows")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What Spark's Python workers do besides the job's tasks: `python -m linkbase.spark links` in
local[2] with py-spy attached to PySpark's daemon and the workers it forks, the samples sorted
by where they fell (the task itself, imports compiled from pyspark.zip, the import system's
cache invalidation before each task, the daemon's collection after each task, the rest).

    python3 benches/spark/workers.py --python target/py-venv/bin/python --split-size 16M \\
        OUT_DIR corpus8.warc.gz

Needs py-spy in the interpreter's environment (`pip install py-spy`) and the right to attach to
the processes (root, or ptrace_scope 0). Sampled, not counted: a sample is a moment a thread was
not idle, so on a loaded machine the shares are the figure to read, not the seconds.
"""

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time

RATE = 200


def places(python):
    """(name, test on a sample's stack text) in order, the first match wins. py-spy names a
    frame `function (file:line)`: the daemon's collection is the line of pyspark/daemon.py that
    calls gc.collect(), in a forked worker."""
    code = "import inspect, pyspark.daemon as d; print(*[i + 1 for i, l in enumerate(inspect.getsource(d).splitlines()) if l.strip() == 'gc.collect()'])"
    lines = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    collect = tuple(f"manager (daemon.py:{n})" for n in lines)
    return [
        ("the tasks (linkbase.spark.write_range)", lambda s: "write_range" in s),
        ("importlib.invalidate_caches before a task", lambda s: "invalidate_caches" in s),
        ("the daemon's gc.collect() after a task", lambda s: bool(collect) and s.rstrip().endswith(collect)),
        ("imports compiled from a zip", lambda s: "_compile_source" in s or "zipimporter.get_code" in s),
        ("other imports", lambda s: "_find_and_load" in s),
    ]


def daemon_pid(job, timeout=120.0):
    """The pid of the pyspark.daemon the job's JVM starts (a child of a child of the job)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and job.poll() is None:
        got = subprocess.run(["pgrep", "-f", "-P", ",".join(children(job.pid)) or "0", "pyspark.daemon"], capture_output=True, text=True)
        if got.stdout.strip():
            return int(got.stdout.split()[0])
        time.sleep(0.05)
    return None


def children(pid):
    got = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return got.stdout.split()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="an interpreter with linkbase, pyspark, pyarrow and py-spy")
    ap.add_argument("--split-size", default="16M")
    ap.add_argument("out")
    ap.add_argument("warc", nargs="+")
    args = ap.parse_args()
    spy = os.path.join(os.path.dirname(args.python), "py-spy")
    env = dict(os.environ, PYSPARK_PYTHON=os.path.abspath(args.python))
    job = subprocess.Popen(
        [args.python, "-m", "linkbase.spark", "links", "--master", "local[2]", "--split-size", args.split_size, *args.warc, "--output", args.out],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pid = daemon_pid(job)
    if pid is None:
        job.wait()
        sys.exit("workers.py: the job ended before PySpark's daemon was seen")
    with tempfile.TemporaryDirectory() as scratch:
        raw = os.path.join(scratch, "samples.txt")
        subprocess.run([spy, "record", "--subprocesses", "-r", str(RATE), "-f", "raw", "-o", raw, "-p", str(pid)], check=True, capture_output=True)
        if job.wait() != 0:
            sys.exit(f"workers.py: the job failed ({job.returncode})")
        by_place = collections.Counter()
        tests = places(args.python)
        for line in open(raw):
            stack, n = line.rsplit(" ", 1)
            place = next((name for name, test in tests if test(stack)), "the rest")
            by_place[place] += int(n)
    total = sum(by_place.values())
    for place, n in by_place.most_common():
        print(f"{n / RATE:7.2f} s  {100 * n / total:5.1f} %  {place}")


if __name__ == "__main__":
    main()

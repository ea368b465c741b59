#!/usr/bin/env python3
"""linkbase.spark against its yardsticks, same run, in turn: `linkbase links --format tsv`, the
2-process pyarrow pool (python/bench/pool.py) and the Spark job in local[2] with each of its
writers (pyarrow in the tasks, Spark's Parquet writer), each under cputree.py (wall, and the
user+system CPU of every process started, the JVM and Spark's Python workers included).

    python3 benches/spark/bench.py --python target/py-venv/bin/python --linkbase target/release/linkbase \\
        --repeat 3 --split-size 16M --scratch /tmp/spark27/b corpus8.warc.gz

The corpus: `python3 benches/corpus_warc.py /tmp/corpus.txt corpus.warc.gz` (benches/corpus.sh's
4,954 pages, a gzip member per record), repeated by concatenation (`cat` it 8 times). Prints
min and median per command and the ratios of medians; every run's figures go to
SCRATCH/runs.jsonl. `--only cli,pool,arrow,arrow-nocds,spark,noop,floor` picks commands
(arrow-nocds: the job without the JVM's class archive; noop: the job's read side alone,
benches/spark/noop.py; floor: a Spark job that does nothing, benches/spark/floor.py). The
class archive the job's JVM maps is made before the first measured run (floor.py, once, not
measured), as a user's first run would have made it.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def commands(args):
    py, out = args.python, os.path.join(args.scratch, "out")
    warcs = args.warc
    spark = [py, "-m", "linkbase.spark", "links", "--master", "local[2]", "--split-size", args.split_size, *warcs, "--output", out]
    return {
        "cli": ["sh", "-c", f'exec "$0" links --format tsv "$@" > {out}.tsv', args.linkbase, *warcs],
        "pool": [py, os.path.join(ROOT, "python/bench/pool.py"), "--processes", "2", "--split-size", args.split_size, out, *warcs],
        "arrow": [*spark, "--writer", "arrow"],
        "arrow-nocds": [*spark, "--writer", "arrow", "--no-class-archive"],
        "spark": [*spark, "--writer", "spark"],
        "noop": [py, os.path.join(HERE, "noop.py"), args.split_size, *warcs],
        "floor": [py, os.path.join(HERE, "floor.py")],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", required=True, help="an interpreter with linkbase, pyspark and pyarrow")
    ap.add_argument("--linkbase", required=True, help="the CLI (a release build)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--split-size", default="16M")
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--only", default="cli,pool,arrow,spark")
    ap.add_argument("warc", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.scratch, exist_ok=True)
    runs = os.path.join(args.scratch, "runs.jsonl")
    cmds = commands(args)
    names = args.only.split(",")
    results = {n: [] for n in names}
    env = dict(os.environ, PYSPARK_PYTHON=args.python)
    # The first run of the job writes the JVM's class archive (linkbase._jvm): a cost paid once,
    # not measured here.
    subprocess.run([args.python, os.path.join(HERE, "floor.py")], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for r in range(args.repeat):
        for name in names:
            out = os.path.join(args.scratch, "out")
            shutil.rmtree(out, ignore_errors=True)
            got = subprocess.run(
                [sys.executable, os.path.join(HERE, "cputree.py"), "--label", name, "--json", runs, "--", *cmds[name]],
                env=env,
                stderr=subprocess.PIPE,
                text=True,
            )
            line = got.stderr.strip().splitlines()[-1]
            result = json.loads(line)
            if result["exit"] != 0:
                sys.exit(f"{name} failed:\n{got.stderr[-3000:]}")
            results[name].append(result)
            print(f"run {r + 1} {name}: wall {result['wall']:.1f} s, cpu {result['cpu']:.1f} s {result['processes']}", flush=True)
    print()
    med = {}
    for name in names:
        cpu = [x["cpu"] for x in results[name]]
        wall = [x["wall"] for x in results[name]]
        med[name] = (statistics.median(cpu), statistics.median(wall))
        print(f"{name:11} cpu min {min(cpu):7.1f} median {med[name][0]:7.1f}   wall min {min(wall):7.1f} median {med[name][1]:7.1f}")
    for a in ("arrow", "arrow-nocds", "spark"):
        if a in med and "pool" in med:
            print(f"{a}/pool cpu (medians): {med[a][0] / med['pool'][0]:.2f}x")
        if a in med and "cli" in med:
            print(f"{a}/cli wall (medians): {med[a][1] / med['cli'][1]:.2f}x")


if __name__ == "__main__":
    main()

"""The yardstick of linkbase.spark: the same link table written as Parquet by a plain
pool of worker processes, no Spark. Each worker reads byte ranges of the WARC files (the ranges
linkbase.spark cuts, `--split-size`) and writes a Parquet file per range.

    python python/bench/pool.py --processes 2 --split-size 32M OUT_DIR crawl.warc.gz ...
    python python/bench/pool.py --rows ...   # through read_warc's dicts instead of Arrow batches

--rows builds each batch from the row API (a Python tuple per link), as the first measured pool
did; the default runs the job's own task, linkbase.spark.write_range (Arrow batches
from the native reader straight to Parquet).
"""

import argparse
import multiprocessing
import os
import sys
from typing import Any, List, Optional, Tuple

from linkbase.spark import SPLIT_SIZE, _size, rows_of_warc, tasks, write_range

Task = Tuple[int, str, int, Optional[int], str, bool]


def run(task: Task) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    import linkbase.arrow

    i, path, start, end, out, rows = task
    writer = None
    written = 0
    if rows:
        schema = linkbase.arrow.schema()
        it = rows_of_warc(path, start=start, end=end)
        batches: Any = []
        while True:
            chunk = [r for _, r in zip(range(65536), it)]
            if not chunk:
                break
            batches = [pa.RecordBatch.from_arrays([pa.array(c, f.type) for c, f in zip(zip(*chunk), schema)], schema=schema)]
            for b in batches:
                writer = writer or pq.ParquetWriter(os.path.join(out, f"part-{i:05d}.parquet"), b.schema)
                writer.write_batch(b)
                written += b.num_rows
        if writer is not None:
            writer.close()
    else:
        written = write_range(path, start, end, os.path.join(out, f"part-{i:05d}.parquet"))
    return written


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--processes", type=int, default=2)
    p.add_argument("--split-size", type=_size, default=SPLIT_SIZE)
    p.add_argument("--rows", action="store_true", help="build batches from read_warc's rows")
    p.add_argument("out")
    p.add_argument("warc", nargs="+")
    args = p.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    work = [(i, path, s, e, args.out, args.rows) for i, (path, s, e) in enumerate(tasks(args.warc, args.split_size))]
    with multiprocessing.Pool(args.processes) as pool:
        total = sum(pool.imap_unordered(run, work))
    print(f"pool: {total} links of {len(args.warc)} WARC files in {len(work)} tasks -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

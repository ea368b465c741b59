"""The Spark job's read side alone: linkbase.spark.links(...) written to Spark's `noop` sink, which
takes every row (Arrow batches from the Python workers into JVM rows) and writes nothing. The
Spark writer's run minus this one is what its Parquet writing costs in the JVM.

    python benches/spark/noop.py SPLIT_SIZE WARC...
"""

import os
import sys

from pyspark import SparkConf
from pyspark.sql import SparkSession

from linkbase import spark as lspark
from linkbase._jvm import launch_options

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
# The JVM as `--writer spark` starts it: the class archive, C2 kept (the JVM reads every row).
conf, archive = launch_options(SparkConf().setMaster("local[2]").setAppName("linkbase-noop"), schedules_only=False)
session = SparkSession.builder.config(conf=conf).getOrCreate()
try:
    lspark.links(session, sys.argv[2:], split_size=lspark._size(sys.argv[1])).write.format("noop").mode("overwrite").save()
finally:
    session.stop()
    if archive is not None:
        archive.finish()

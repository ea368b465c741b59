"""The floor of any Spark job that runs Python: the JVM started in local[2] with the options
`python -m linkbase.spark links` gives it (C1 only, and the class archive of Spark's classes unless
--no-class-archive), a SparkContext, and 2 tasks that do nothing (an RDD, as the job's pyarrow
writer schedules its ranges), then stop. What linkbase.spark costs above the 2-process pool can be no
less.

    python benches/spark/floor.py [--no-class-archive]
"""

import os
import sys

from pyspark import SparkConf, SparkContext

from linkbase._jvm import launch_options

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
conf, archive = launch_options(
    SparkConf().setMaster("local[2]").setAppName("linkbase-floor"),
    schedules_only=True,
    class_archive="--no-class-archive" not in sys.argv[1:],
)
# A SparkContext, no session, and two tasks: as the job's pyarrow writer schedules its ranges.
sc = SparkContext(conf=conf)
try:
    sc.parallelize(range(2), 2).mapPartitions(lambda ids: ids).collect()
finally:
    sc.stop()
    if archive is not None:
        archive.finish()

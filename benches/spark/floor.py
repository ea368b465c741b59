"""The floor of any Spark job that runs Python: the JVM started in local[2] with the options
`python -m linkbase.spark links` gives it (C1 only, and the class archive of Spark's classes unless
--no-class-archive), a session, and 2 tasks of mapInArrow that do nothing, then stop. What
linkbase.spark costs above the 2-process pool can be no less.

    python benches/spark/floor.py [--no-class-archive]
"""

import os
import sys

from pyspark.sql import SparkSession

from linkbase._jvm import launch_options

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
builder, archive = launch_options(
    SparkSession.builder.master("local[2]").appName("linkbase-floor"),
    schedules_only=True,
    class_archive="--no-class-archive" not in sys.argv[1:],
)
session = builder.getOrCreate()
try:
    session.range(0, 2, 1, 2).mapInArrow(lambda batches: batches, "id long").collect()
finally:
    session.stop()
    if archive is not None:
        archive.finish()

"""The floor of any Spark job that runs Python: the JVM started in local[2] with the options
`python -m linkbase.spark links` gives it (C1 only), a session, and 2 tasks of mapInArrow that
do nothing, then stop. What linkbase.spark costs above the 2-process pool can be no less.

    python benches/spark/floor.py
"""

import os
import sys

from pyspark.sql import SparkSession

from linkbase.spark import JIT_C1

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
session = (
    SparkSession.builder.master("local[2]")
    .appName("linkbase-floor")
    .config("spark.driver.extraJavaOptions", JIT_C1)
    .config("spark.executor.extraJavaOptions", JIT_C1)
    .getOrCreate()
)
try:
    session.range(0, 2, 1, 2).mapInArrow(lambda batches: batches, "id long").collect()
finally:
    session.stop()

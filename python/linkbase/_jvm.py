"""The JVM `python -m linkbase.spark` starts for itself (not spark-submit's: that one runs
already): the options that cut its fixed cost, and the class-data sharing archive it keeps.

Why: a Spark job that does nothing costs about 13 s of CPU on two cores, most of it the driver
JVM loading and verifying some 10,000 classes from Spark's jars; with the pyarrow writer the
JVM only schedules, so that fixed cost was a third of the job on 1.7 GB of WARC. Class-data
sharing (JDK CDS; the dynamic archive of JEP 350, JDK 13+) maps the classes a previous run
loaded, parsed and verified, instead of loading them again: the first run writes the archive
as its JVM exits (`-XX:ArchiveClassesAtExit`), later runs map it (`-XX:SharedArchiveFile`).
The archive is only valid for the JVM and the class path it was made with, so its name carries
a fingerprint of both (the JVM's files, Spark's jars); a mismatch the fingerprint misses is
caught by the JVM itself, which then runs without the archive (`-Xshare:auto`, the default).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from typing import Any, List, Optional, Tuple

# The JIT's first tier only, for a JVM that only schedules (the pyarrow writer): C2 spends more
# CPU compiling Spark's start-up code than it saves (measured on the corpus WARC: JIT threads
# 7.6 s of a 17 s JVM, 1.7 s with C1 alone).
JIT_C1 = "-XX:TieredStopAtLevel=1"

# How long the command waits for its JVM to write the archive as it exits (65–140 MB: a few
# seconds, tens on a loaded machine). Past it the JVM is left to finish alone and the archive
# is made on a later run.
DUMP_TIMEOUT = 300


def cache_dir() -> str:
    """Where the archives live: $XDG_CACHE_HOME/linkbase, else ~/.cache/linkbase."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "linkbase")


def _java() -> Optional[str]:
    """The java binary Spark's launcher runs (JAVA_HOME's, else the first on PATH), resolved."""
    home = os.environ.get("JAVA_HOME")
    java = os.path.join(home, "bin", "java") if home else shutil.which("java")
    return os.path.realpath(java) if java and os.path.exists(java) else None


def fingerprint() -> Optional[str]:
    """A digest of the JVM (its launcher and libjvm.so) and of Spark's jars (where, and each
    one's name, size, time),
    None when either cannot be found (then no archive is used)."""
    from pyspark.find_spark_home import _find_spark_home  # type: ignore[import-untyped, unused-ignore]

    java = _java()
    if java is None:
        return None
    try:
        jars = os.path.join(str(_find_spark_home()), "jars")  # type: ignore[no-untyped-call, unused-ignore]
        entries = sorted((e.name, e.stat()) for e in os.scandir(jars) if e.name.endswith(".jar"))
    except (OSError, SystemExit):
        # _find_spark_home exits when it finds no Spark.
        return None
    digest = hashlib.sha256(jars.encode())
    jvm_files = [java, os.path.join(os.path.dirname(os.path.dirname(java)), "lib", "server", "libjvm.so")]
    for name, st in [(p, os.stat(p)) for p in jvm_files if os.path.exists(p)] + entries:
        digest.update(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:20]


class ClassArchive:
    """The driver JVM's class archive: mapped when it exists, else written as the JVM exits (to
    a temporary name, renamed into place by `finish` once the JVM is gone, so a reader never
    maps a half-written file)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.exists = os.path.isfile(path)
        self.partial = f"{path}.{os.getpid()}.tmp"

    @classmethod
    def default(cls) -> Optional["ClassArchive"]:
        key = fingerprint()
        if key is None:
            return None
        return cls(os.path.join(cache_dir(), f"spark-classes-{key}.jsa"))

    def java_options(self) -> List[str]:
        if self.exists:
            return [f"-XX:SharedArchiveFile={self.path}"]
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        return [f"-XX:ArchiveClassesAtExit={self.partial}"]

    def finish(self) -> Optional[str]:
        """After the session stopped: when this run writes the archive, ends the JVM (it exits
        when its stdin closes, as when Python exits) and waits for it, then renames the archive
        into place. Returns what to tell the user, if anything."""
        from pyspark import SparkContext

        gateway_process = getattr(SparkContext._gateway, "proc", None)
        if self.exists or gateway_process is None:
            return None
        try:
            if gateway_process.stdin is not None:
                gateway_process.stdin.close()
            gateway_process.wait(DUMP_TIMEOUT)
        except subprocess.TimeoutExpired:
            return f"the JVM class archive was not written within {DUMP_TIMEOUT} s; a later run makes it"
        if not os.path.isfile(self.partial) or os.path.getsize(self.partial) == 0:
            _remove(self.partial)
            return "the JVM wrote no class archive (each run starts Spark's JVM from its jars)"
        os.replace(self.partial, self.path)
        return f"JVM class archive written to {self.path} (later runs start faster)"


def options_given() -> str:
    """The Spark options a JVM started from here would be given besides the builder's: the
    PYSPARK_SUBMIT_ARGS variable and spark-defaults.conf."""
    text = os.environ.get("PYSPARK_SUBMIT_ARGS", "")
    conf_dir = os.environ.get("SPARK_CONF_DIR") or os.path.join(os.environ.get("SPARK_HOME", ""), "conf")
    try:
        with open(os.path.join(conf_dir, "spark-defaults.conf")) as f:
            text += f.read()
    except OSError:
        pass
    return text


# The JVM's unified logging on stdout at errors only: its default shows warnings, and writing a
# class archive warns of every class it skips (hundreds of lines). Other outputs (a file a
# JAVA_TOOL_OPTIONS -Xlog names) are left as they are.
JVM_QUIET = "-Xlog:all=error:stdout"

# Spark's log4j configuration at errors only (its default profile logs INFO and WARN lines).
QUIET_LOG4J = os.path.join(os.path.dirname(os.path.abspath(__file__)), "log4j2-quiet.properties")


def launch_options(
    conf: Any, *, schedules_only: bool, class_archive: bool = True, quiet: bool = False
) -> Tuple[Any, Optional[ClassArchive]]:
    """`conf` (a pyspark.SparkConf, for a SparkContext or `SparkSession.builder.config(conf=…)`)
    with the JVM options of the module's help, and the class archive to `finish` after the
    context stops (None: none in use). Nothing changes when a JVM runs already (spark-submit's,
    or a session's in this process) or where the user gave JVM options of their own."""
    from pyspark import SparkContext

    if "PYSPARK_GATEWAY_PORT" in os.environ or SparkContext._gateway is not None:
        return conf, None
    given = options_given()
    driver_given = "spark.driver.extraJavaOptions" in given or "--driver-java-options" in given
    driver = [JIT_C1] if schedules_only else []
    if quiet:
        driver += [JVM_QUIET, f"-Dlog4j2.configurationFile=file:{QUIET_LOG4J}"]
    archive = ClassArchive.default() if class_archive and not driver_given else None
    if archive is not None:
        driver += archive.java_options()
    if driver and not driver_given:
        conf = conf.set("spark.driver.extraJavaOptions", " ".join(driver))
    if schedules_only and "spark.executor.extraJavaOptions" not in given:
        conf = conf.set("spark.executor.extraJavaOptions", JIT_C1)
    return conf, archive


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass

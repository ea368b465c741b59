#!/usr/bin/env bash
# Builds the Python package (python/) into its own venv and runs its pytest suite. Needs Python 3.9+
# with the venv module and PyPI; everything else it installs itself. Used by .ci/run and the README.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/target/py-venv"

if [ ! -x "$venv/bin/python" ]; then
  if ! python3 -m venv "$venv"; then
    echo "python/test.sh: python3 -m venv failed; on Debian/Ubuntu: apt-get install python3-venv" >&2
    exit 2
  fi
fi
# Pinned, so a new release cannot change what CI runs. pyspark: the Spark tests (tests/test_spark.py,
# local[2] mode and a standalone cluster; needs Java 17+ on PATH, as the machine has), with what its
# Arrow path needs (pyspark[sql]: pyarrow, and pandas, which mapInArrow asks the driver for);
# venv-pack: the executors' environment (python/spark-env.sh); mypy: the stubs and the package
# checked with --strict (tests/test_documents.py). `python -m pip`, not bin/pip: a venv copied from
# another checkout keeps that checkout's path in bin/pip's first line, and would install there.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check maturin==1.16.0 pytest==9.2.0 \
  pyspark==4.0.1 pyarrow==26.0.1 pandas==2.3.3 venv-pack==0.2.0 mypy==2.4.1

cd "$root/python"
echo "== python: cargo fmt --check, clippy"
cargo fmt --all -- --check
cargo clippy --locked --release -- -D warnings

echo "== python: maturin develop --release"
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop --release --locked --quiet

# The wheel users install (the build above, cached), and the environment spark-submit ships to the
# cluster test's executors with it (--archives).
echo "== python: wheel, and the executors' environment (python/spark-env.sh)"
rm -rf "$root/target/wheels"
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin build --release --locked --quiet \
  -i "$venv/bin/python" -o "$root/target/wheels"
wheel=("$root"/target/wheels/linkbase-*.whl)
bash "$root/python/spark-env.sh" "${wheel[0]}" "$root/target/py-spark-env.tar.gz" "$venv/bin/python"

# The wheel is the one file a user needs. An abi3 wheel (one build for CPython
# 3.9+), installed offline (--no-index: nothing from PyPI) into a fresh venv without maturin or
# Rust, imports and rewrites a page.
echo "== python: the wheel installs offline in a fresh venv and rewrites a page"
case "$(basename "${wheel[0]}")" in
  *-abi3-*) ;;
  *) echo "python/test.sh: ${wheel[0]} is not an abi3 wheel" >&2; exit 1 ;;
esac
fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
python3 -m venv "$fresh/venv"
"$fresh/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "${wheel[0]}"
(cd "$fresh" && "$fresh/venv/bin/python" -c '
import linkbase
out = linkbase.rewrite(b"<base href=/docs/><a href=intro.html>Intro</a>", url="http://example.com/guide/")
expected = b"<base href=http://example.com/docs/><a href=http://example.com/docs/intro.html>Intro</a>"
assert out == expected, out
assert linkbase.__file__.startswith("'"$fresh"'/venv/"), linkbase.__file__
print("the wheel (linkbase", linkbase.__version__ + ") rewrites a page from", linkbase.__file__)
')

# pytest: 0 all passed, 1 some failed, 2-4 interrupted/internal/usage error, 5 nothing collected.
# Every one but 0 fails CI, 5 included: a suite that collects nothing tests nothing.
pytest_run() {
  local status=0
  LINKBASE_SPARK_ENV="$root/target/py-spark-env.tar.gz" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "python/test.sh: pytest $* exited with $status" >&2
    exit "$status"
  fi
}
# Run 1: the whole suite. Runs 2 and 3: all but the tests that start Spark's JVM (tests/conftest.py:
# the `jvm` mark), which take most of the time: a flaky test is a defect, and three runs in a row
# show the rest passes run after run, while CI's time grows by a minute, not by the cluster's.
# LINKBASE_PYTEST_RUNS=1 runs the whole suite once.
runs="${LINKBASE_PYTEST_RUNS:-3}"
echo "== python: pytest (run 1 of $runs: everything)"
pytest_run tests
for run in $(seq 2 "$runs"); do
  echo "== python: pytest (run $run of $runs: all but the tests that start Spark)"
  pytest_run -m "not jvm" tests
done

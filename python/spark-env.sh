#!/usr/bin/env bash
# Packs the virtual environment Spark's executors run linkbase.spark in, as Spark's Python
# package management guide ships Python dependencies: a venv holding linkbase's wheel and pyarrow,
# packed with venv-pack, for `spark-submit --archives OUT#environment` with
# PYSPARK_PYTHON=./environment/bin/python. The interpreter is not packed (venv-pack's rule): the
# executors need the same Python at the same path as PYTHON (default: python3).
#
#   python/spark-env.sh target/wheels/linkbase-*.whl linkbase-env.tar.gz [PYTHON]
#
# Needs venv-pack importable by PYTHON's environment (`pip install venv-pack`), and PyPI (or a
# pip cache) for pyarrow. Used by python/test.sh for the standalone-cluster test.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 WHEEL OUT.tar.gz [PYTHON]" >&2
  exit 2
fi
wheel="$1" out="$2" python="${3:-python3}"
# The pyarrow python/test.sh pins (Spark's Arrow path on the executors needs it; pandas only the
# driver).
pyarrow="pyarrow==26.0.1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$python" -m venv "$work/environment"
"$work/environment/bin/python" -m pip install --quiet --disable-pip-version-check "$wheel" "$pyarrow"
# Level 1: the archive is made once per wheel and unpacked once per executor; pyarrow's shared
# libraries compress about as well at 1 as at 6, in a fraction of the time.
"$python" -m venv_pack --quiet --force --compress-level 1 -p "$work/environment" -o "$out"

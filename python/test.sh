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
# Pinned, so a new release cannot change what CI runs. pyspark: the Spark test (tests/test_spark.py,
# local[2] mode; needs Java 17+ on PATH, as the machine has); mypy: the stubs checked with --strict
# (tests/test_documents.py). `python -m pip`, not bin/pip: a venv copied from another checkout keeps
# that checkout's path in bin/pip's first line, and would install there.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check maturin==1.16.0 pytest==9.2.0 pyspark==4.0.1 mypy==2.4.1

cd "$root/python"
echo "== python: cargo fmt --check, clippy"
cargo fmt --all -- --check
cargo clippy --locked --release -- -D warnings

echo "== python: maturin develop --release"
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop --release --locked --quiet

echo "== python: pytest"
status=0
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests || status=$?
# pytest: 0 all passed, 1 some failed, 2-4 interrupted/internal/usage error, 5 nothing collected.
# Every one but 0 fails CI, 5 included: a suite that collects nothing tests nothing.
if [ "$status" -ne 0 ]; then
  echo "python/test.sh: pytest exited with $status" >&2
  exit "$status"
fi

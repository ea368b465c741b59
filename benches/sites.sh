#!/usr/bin/env bash
# The whole-site benchmark: `linkbase check` and `linkbase rewrite -o` on Debian's
# python3.11-doc HTML tree, on one thread and on every core, side by side in the same run with
# peer link checkers on the same tree, each run offline.
#
#   bash benches/sites.sh            # timings (3 runs each, median) and the table
#   bash benches/sites.sh verdicts   # the peers' verdicts against ours (broken links only)
#
# Installs with apt-get what is missing (python3.11-doc, linkchecker, hyperfine; needs root or
# sudo for that). lychee is used when `lychee` is on PATH or LYCHEE names it (it is not packaged
# by Debian: `cargo install --locked lychee`). Results and raw outputs go to $OUT
# (default /tmp/linkbase-sites-bench). Environment: RUNS (default 3), JOBS (default: nproc), LB
# (a linkbase binary; default: build this checkout's).
set -euo pipefail
cd "$(dirname "$0")/.."

TREE=${TREE:-/usr/share/doc/python3.11/html}
SITE_URL=${SITE_URL:-https://docs.python.org/3.11/}
OUT=${OUT:-/tmp/linkbase-sites-bench}
RUNS=${RUNS:-3}
JOBS=${JOBS:-$(nproc)}
LYCHEE=${LYCHEE:-$(command -v lychee || true)}
mode=${1:-time}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
missing=()
for p in python3.11-doc linkchecker hyperfine; do installed "$p" || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  echo "sites.sh: installing ${missing[*]}" >&2
  "${sudo[@]}" apt-get update >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends \
    "${missing[@]}" >&2
fi

# LB names a linkbase binary to time instead of building this checkout's.
if [ -z "${LB:-}" ]; then
  cargo build --release --quiet
  LB=$PWD/target/release/linkbase
fi
mkdir -p "$OUT"
# linkchecker drops root privileges to `nobody`: it must be able to write its output there.
chmod 0777 "$OUT"

pages=$(find "$TREE" -name '*.html' -type f | wc -l)
bytes=$(find "$TREE" -name '*.html' -type f -printf '%s\n' | awk '{s += $1} END {print s}')
echo "tree: $TREE, $pages pages, $bytes bytes of HTML; $(nproc) cores; RUNS=$RUNS" >&2

# linkchecker is timed in its default configuration, as its documentation's command runs it: no fragment
# checks (its AnchorCheck plugin did not finish this tree in 30 minutes, and reports missing
# anchors only as warnings, which --no-warnings hides).
linkchecker_cmd="linkchecker --no-status --no-warnings -o text \
file://$TREE/index.html > $OUT/linkchecker.txt 2> $OUT/linkchecker.err; test \$? -le 1"
linkchecker_csv="linkchecker --no-status -o csv \
file://$TREE/index.html > $OUT/linkchecker.csv 2> $OUT/linkchecker.err; test \$? -le 1"
lychee_cmd="$LYCHEE --offline --include-fragments --index-files index.html --no-progress \
--format json --root-dir $TREE --output $OUT/lychee.json '$TREE/**/*.html' > /dev/null 2>&1; test \$? -le 2"
check_cmd() {
  echo "$LB check $TREE --site-url $SITE_URL --format jsonl -j $1 > $OUT/check.jsonl 2>/dev/null; test \$? -le 1"
}
rewrite_cmd() {
  echo "$LB rewrite $TREE --site-url $SITE_URL -o $OUT/rewritten -j $1 2>/dev/null"
}

if [ "$mode" = verdicts ]; then
  bash -c "$(check_cmd "$JOBS")"
  echo "linkchecker ..." >&2
  bash -c "$linkchecker_csv"
  if [ -n "$LYCHEE" ]; then
    echo "lychee ..." >&2
    bash -c "$lychee_cmd"
  fi
  python3 - "$OUT" "$TREE" <<'PY'
import csv, json, sys, collections, os, urllib.parse
out, tree = sys.argv[1], sys.argv[2]
# Ours: each broken link as (page, target file, fragment).
ours, by_target = collections.Counter(), collections.Counter()
for line in open(f"{out}/check.jsonl"):
    r = json.loads(line)
    if r["verdict"] in ("missing", "missing-fragment", "outside-root"):
        frag = r["resolved"].partition("#")[2]
        ours[(r["file"], r["target"] or r["resolved"], frag)] += 1
        by_target[(r["verdict"], r["target"] or r["resolved"])] += 1
print(f"linkbase: {sum(ours.values())} broken links")
for (verdict, target), n in by_target.most_common():
    print(f"  {n:6}  {verdict:16} {target}")
# LinkChecker: one row per invalid URL (each URL is checked once).
rows = list(csv.reader((l for l in open(f"{out}/linkchecker.csv") if not l.startswith("#")),
                       delimiter=";"))
if rows:
    col = {n: i for i, n in enumerate(rows[0])}
    bad = [r for r in rows[1:] if r[col["valid"]] != "True"]
    print(f"linkchecker: {len(bad)} invalid URLs")
    for r in bad:
        print(f"  {r[col['urlname']]} (first seen on {r[col['parentname']]}): {r[col['result']][:70]}")
# lychee: the same (page, file, fragment) triples, from its error map.
if os.path.exists(f"{out}/lychee.json"):
    j = json.load(open(f"{out}/lychee.json"))
    prefix = "file://" + tree + "/"
    ly = collections.Counter()
    for src, items in (j.get("error_map") or j.get("fail_map") or {}).items():
        page = os.path.relpath(src, tree)
        for it in items:
            url = it["url"]
            path, _, frag = (url[len(prefix):] if url.startswith(prefix) else url).partition("#")
            ly[(page, urllib.parse.unquote(path), frag)] += 1
    print(f"lychee: {j.get('total')} links, {j.get('errors')} errors, {j.get('excludes')} excluded")
    for name, diff in (("only linkbase", ours - ly), ("only lychee", ly - ours)):
        print(f"  broken for {name}: {sum(diff.values())}")
        for k, n in list(diff.items())[:10]:
            print(f"    {n} x {k}")
PY
  exit 0
fi

rm -rf "$OUT/rewritten"
cmds=(
  -n "linkbase check -j1" "$(check_cmd 1)"
  -n "linkbase check -j$JOBS" "$(check_cmd "$JOBS")"
  -n "linkbase rewrite -o -j1" "$(rewrite_cmd 1)"
  -n "linkbase rewrite -o -j$JOBS" "$(rewrite_cmd "$JOBS")"
  -n "linkchecker (10 threads)" "$linkchecker_cmd"
)
if [ -n "$LYCHEE" ]; then
  cmds+=(-n "lychee --offline -T 1" "${lychee_cmd/--offline/--offline --threads 1}")
  cmds+=(-n "lychee --offline" "$lychee_cmd")
fi
# Each rewrite starts from an empty output directory, as a fresh publish would.
# The tree is read once first so every command finds it in the page cache (no warm-up runs:
# one linkchecker run takes minutes).
find "$TREE" -type f -exec cat {} + > /dev/null
hyperfine --runs "$RUNS" --export-json "$OUT/hyperfine.json" \
  --prepare "rm -rf $OUT/rewritten" "${cmds[@]}" >&2

python3 - "$OUT/hyperfine.json" "$pages" "$bytes" <<'PY'
import json, sys, statistics
results = json.load(open(sys.argv[1]))["results"]
pages, size = int(sys.argv[2]), int(sys.argv[3])
print("| command | median wall (s) | min–max (s) | CPU user+sys (s) | pages/s | MB/s |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for r in results:
    med = statistics.median(r["times"])
    print(f"| {r['command']} | {med:.2f} | {min(r['times']):.2f}–{max(r['times']):.2f} "
          f"| {r['user'] + r['system']:.2f} | {pages / med:,.0f} | {size / med / 1e6:.1f} |")
PY

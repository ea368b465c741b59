#!/usr/bin/env bash
# Peak memory (maximum resident set, /usr/bin/time -v) of `check` on the inputs that grow
# linearly (memory.py): 96 hostile remote pages read for their ids, 40,000 exclude patterns,
# a cache of a million entries, one page with 200,000 broken links. The bar: at most
# 256 MB for each.
# Usage: benches/online/memory.sh [BINARY [EXTRA ONLINE FLAGS...]]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${1:-$root/target/release/linkbase}"
shift || true
extra=("$@")
dir="$root/target/bench-memory"
port="${PORT:-18181}"
rm -rf "$dir" && mkdir -p "$dir"
python3 "$here/memory.py" "$dir" "$port"
python3 "$here/memory.py" serve "$port" 2>/dev/null &
server=$!
trap 'kill $server; rm -rf "$dir"' EXIT
sleep 3
peak() {
  local name="$1"; shift
  /usr/bin/time -v -o "$dir/$name.time" "$@" >/dev/null 2>"$dir/$name.err" || true
  local kb wall
  kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/$name.time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$dir/$name.time")
  printf '%-10s %5d MB  %s\n' "$name" "$((kb / 1024))" "$wall"
  tail -n 1 "$dir/$name.err"
}
site=(--site-url https://bench.example/)
peak hostile "$bin" check "$dir/hostile" "${site[@]}" --online --max-retries 0 "${extra[@]}"
peak excludes "$bin" check "$dir/excludes" "${site[@]}"
peak cache "$bin" check "$dir/cache" "${site[@]}" --online --cache "${extra[@]}"
peak broken "$bin" check "$dir/broken" "${site[@]}"

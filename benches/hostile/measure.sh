#!/usr/bin/env bash
# Peak RSS and time of the release CLI on the hostile inputs (budgets, WARC
# recovery): generates them with gen.py into DIR (default: target/hostile), then runs each under
# /usr/bin/time -v. Build first: cargo build --release -p linkbase-cli
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="$root/target/release/linkbase"
dir="${1:-$root/target/hostile}"
python3 "$root/benches/hostile/gen.py" "$dir"
cd "$dir"
run() {
  /usr/bin/time -v "$bin" "$@" >/dev/null 2>time.txt || true
  printf '%-70s %8s KB %6s s  exit %s\n' "$*" \
    "$(sed -n 's/.*Maximum resident set size (kbytes): //p' time.txt)" \
    "$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' time.txt)" \
    "$(sed -n 's/.*Exit status: //p' time.txt)"
}
for n in 4000 8000; do run base --url http://h/ --headers "redirects-$n.headers" page.html; done
for n in 200000 400000; do run base "heads-$n.warc.gz"; done
for mb in 32 64; do run base "bomb-${mb}M.warc"; done
for mb in 8 16; do run base --url http://h/ "anchors-${mb}M.html"; done

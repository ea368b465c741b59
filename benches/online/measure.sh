#!/usr/bin/env bash
# The online benchmark: `linkbase check --online` against lychee on the same
# generated site (gen.py: 2,000 distinct external URLs over 20 host names) and the same local
# server (server.py: a server per host on 127.0.0.1-20, 50 ms per answer, counting requests
# in flight per host). Both tools reach it through --remap: hostNN.bench.invalid becomes
# 127.0.0.NN:PORT, so each name stays a host of its own for the per-host limits.
# Both run with the same limits: 64 requests in flight, 8 per host, no per-host interval; the
# servers are loopback addresses, which linkbase requests only with --allow-private (lychee
# requests private addresses unless told --exclude-private).
# Usage: benches/online/measure.sh [LYCHEE_BINARY]
# (build first: cargo build --release -p linkbase-cli)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$root/target/release/linkbase"
lychee="${1:-lychee}"
dir="$root/target/bench-online"
port="${PORT:-18080}"
rm -rf "$dir" && mkdir -p "$dir"
python3 "$here/gen.py" "$dir/site"
python3 "$here/server.py" "$port" 0.05 &
server=$!
trap 'kill $server' EXIT
until curl -sf "http://127.0.0.1:$port/__stats" >/dev/null 2>&1 ||
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/__stats')" 2>/dev/null; do
  sleep 0.2
done
ours=() theirs=()
for n in $(seq 1 20); do
  h=$(printf '%02d' "$n")
  ours+=(--remap "https://host$h.bench.invalid/ http://127.0.0.$n:$port/")
  theirs+=(--remap "https://host$h\\.bench\\.invalid/ http://127.0.0.$n:$port/")
done
stats() {
  python3 -c "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:$port/$1').read().decode())"
}
timed() {
  local name="$1"; shift
  stats __reset >/dev/null
  /usr/bin/time -f "%e %M" -o "$dir/$name.time" "$@" >"$dir/$name.out" 2>"$dir/$name.err" || true
  stats __stats >"$dir/$name.stats.json"
  read -r secs kb < <(tail -n 1 "$dir/$name.time")
  python3 - "$dir/$name.stats.json" "$name" "$secs" "$kb" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
most = max(s["max_in_flight"] for s in stats.values())
total = sum(s["requests"] for s in stats.values())
print(f"{sys.argv[2]:<10} {float(sys.argv[3]):7.2f} s  {int(sys.argv[4]) // 1024:5d} MB  "
      f"{total:5d} requests  most in flight on one host: {most}")
PY
}
timed linkbase "$bin" check "$dir/site" --site-url https://bench.example/ --online \
  --allow-private --max-concurrency 64 --host-concurrency 8 --format jsonl "${ours[@]}"
timed lychee "$lychee" --no-progress --format json --max-concurrency 64 --host-concurrency 8 \
  --host-request-interval 0s "${theirs[@]}" "$dir"/site/*.html
# The same verdicts: the broken external URLs of each, as the site writes them.
python3 - "$dir/linkbase.out" "$dir/lychee.out" "$port" <<'PY'
import json, re, sys
ours = set()
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["resolved"].startswith("https://host") and r["verdict"] != "ok":
        ours.add(r["resolved"])
def back(url):
    m = re.match(r"http://127\.0\.0\.(\d+):\d+(/.*)", url)
    return f"https://host{int(m.group(1)):02d}.bench.invalid{m.group(2)}" if m else url
report = json.load(open(sys.argv[2]))
theirs = {back(e["url"]) for errors in report.get("error_map", {}).values() for e in errors}
theirs = {u for u in theirs if u.startswith("https://host")}
expected = {u for u in ours | theirs if "/gone/" in u}
print(f"broken: linkbase {len(ours)}, lychee {len(theirs)}, same set: {ours == theirs}, "
      f"all /gone/ and only them: {ours == theirs == expected and len(expected) == 200}")
PY

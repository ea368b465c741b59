#!/usr/bin/env bash
# CPU of `check --online` with 20,000 and 40,000 distinct hosts (hosts.py: one URL per host,
# each refused at once by a loopback address where nothing listens): the scheduler must stay
# linear in hosts (the bar: 40,000 hosts cost at most 2.5× the CPU of 20,000).
# Usage: benches/online/hosts.sh [BINARY [EXTRA FLAGS...]]
# (build first: cargo build --release -p linkbase-cli)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${1:-$root/target/release/linkbase}"
shift || true
extra=("$@")
dir="$root/target/bench-hosts"
for n in 20000 40000; do
  rm -rf "$dir/$n"
  python3 "$here/hosts.py" "$dir/$n" "$n"
  /usr/bin/time -f "%U %S %e %M" -o "$dir/$n.time" \
    "$bin" check "$dir/$n" --site-url https://bench.example/ --online --max-retries 0 \
    --format json "${extra[@]}" >"$dir/$n.out" 2>"$dir/$n.err" || true
  read -r user sys wall kb < <(tail -n 1 "$dir/$n.time")
  printf '%6d hosts: cpu %6.2f s (user %s, sys %s), wall %6.2f s, %4d MB\n' \
    "$n" "$(echo "$user + $sys" | bc)" "$user" "$sys" "$wall" "$((kb / 1024))"
  tail -n 1 "$dir/$n.err"
done
rm -rf "$dir"

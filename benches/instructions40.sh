#!/usr/bin/env bash
# Instructions (callgrind) of `linkbase rewrite` and of lol_html's naive rewrite on the 40 largest
# pages of Debian's python3.11-doc, one process per page; prints each page's counts and the total
# ratio. Build first: cargo build --release -p linkbase-cli && cargo build --release --example
# lol_html_naive. LINKBASE and NAIVE override the binaries; DOCS the tree.
set -euo pipefail
LINKBASE=${LINKBASE:-target/release/linkbase}
NAIVE=${NAIVE:-target/release/examples/lol_html_naive}
DOCS=${DOCS:-/usr/share/doc/python3.11/html}
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
total_l=0; total_n=0
while read -r f; do
  u="https://docs.python.org/3.11/${f#"$DOCS"/}"
  l=$(count "$LINKBASE" rewrite "$f" --url "$u")
  n=$(count "$NAIVE" "$u" "$f")
  echo "$f $l $n"
  total_l=$((total_l + l)); total_n=$((total_n + n))
done < <(find "$DOCS" -name '*.html' -printf '%s %p\n' | sort -rn | head -40 | cut -d' ' -f2)
echo "total $total_l $total_n $(python3 -c "print(round($total_l / $total_n, 3))")"

#!/usr/bin/env bash
# Regenerates fixtures/crawl/: scripts/e2e/site.py served on 127.0.0.1:8724, crawled
# by GNU Wget in two runs over the same deterministic site:
#   wget-k/  `wget -r -p -k -E --warc-file=crawl`: wget's own offline mirror and the WARC;
#   raw/     `wget -r -p -E`: the tree as wget saves it before converting links (our input);
#   httrack/ `httrack URL -O httrack` (when httrack is installed: apt-get install httrack): its
#            project, with its index hts-cache/new.txt (the cache's other files are dropped).
# Needs wget and python3; takes a few seconds. The port is fixed: it is in the URLs of the fixture.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=fixtures/crawl
port=8724
python3 scripts/e2e/site.py "$port" &
server=$!
trap 'kill "$server"' EXIT
for _ in $(seq 50); do
  python3 -c "import socket; socket.create_connection(('127.0.0.1', $port)).close()" 2>/dev/null && break
  sleep 0.1
done
rm -rf "$out/wget-k" "$out/raw" "$out/crawl.warc.gz"
mkdir -p "$out/wget-k" "$out/raw"
(cd "$out/wget-k" && wget -q -r -p -k -E --warc-file=crawl "http://127.0.0.1:$port/index.php" \
  && mv crawl.warc.gz ..)
(cd "$out/raw" && wget -q -r -p -E "http://127.0.0.1:$port/index.php")
wget --version | head -n 1 > "$out/WGET-VERSION"
if command -v httrack >/dev/null; then
  rm -rf "$out/httrack"
  httrack "http://127.0.0.1:$port/index.php" -O "$out/httrack" -q -%v0 >/dev/null 2>&1
  (cd "$out/httrack" && rm -rf hts-cache/new.zip hts-cache/new.lst hts-cache/doit.log \
    hts-log.txt hts-in_progress.lock backblue.gif fade.gif index.html)
  httrack --version 2>/dev/null | head -n 1 > "$out/HTTRACK-VERSION" || true
fi

#!/usr/bin/env bash
# The real-page corpus of the HTML pipeline benchmark: every *.html file of Debian's
# python3.11-doc and cppreference-doc-en-html (about 215 MB in 4,954 files).
#
# Installs the two packages with apt-get when they are missing (after one `apt-get update`),
# then prints the absolute path of every regular *.html file they ship, one per line, in a
# stable order (package by package, sorted bytewise). Everything else goes to stderr, so
#
#   bash benches/corpus.sh > /tmp/corpus.txt
#   cargo run --release --example corpus_stats -- /tmp/corpus.txt
#
# is the whole recipe. Needs root (or sudo) only when something has to be installed.
set -euo pipefail

packages=(python3.11-doc cppreference-doc-en-html)

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

missing=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "corpus.sh: ${missing[*]} missing and not root (no sudo)" >&2
      exit 1
    fi
  fi
  echo "corpus.sh: installing ${missing[*]}" >&2
  "${sudo[@]}" apt-get update >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends \
    "${missing[@]}" >&2
fi

for p in "${packages[@]}"; do
  # dpkg -L lists what the package installed; keep the regular files (not directories, and
  # not symlinks to shared assets) whose name ends in .html.
  dpkg -L "$p" | grep '\.html$' | while IFS= read -r f; do
    if [ -f "$f" ] && [ ! -L "$f" ]; then
      printf '%s\n' "$f"
    fi
  done | LC_ALL=C sort
done

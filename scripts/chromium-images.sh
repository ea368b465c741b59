#!/bin/sh
# Open an extracted page in headless Chromium from file:// and print every image it shows
# (<img>, CSS background images from attributes, <style> and stylesheets) with whether it
# loaded ("the mail opens from file:// with its images"). Not run in CI (Chromium is
# large): `apt-get install chromium`, then
#     sh scripts/chromium-images.sh DIR/message/index.html
# A copy of the page with a probe script appended sits beside it (same directory, so relative
# links resolve alike) and is removed afterwards. Prints the probe's JSON.
set -eu
page=$1
probe="${page%.*}.linkbase-probe.html"
trap 'rm -f "$probe"' EXIT
cat "$page" > "$probe"
cat >> "$probe" <<'JS'
<script>
window.addEventListener('load', async () => {
  const urls = new Set();
  for (const img of document.images) urls.add(img.src);
  for (const el of document.querySelectorAll('*')) {
    for (const m of getComputedStyle(el).backgroundImage.matchAll(/url\("([^"]*)"\)/g)) urls.add(m[1]);
  }
  const images = [];
  for (const u of urls) {
    images.push(await new Promise(done => {
      const i = new Image();
      i.onload = () => done(u + ' loaded ' + i.naturalWidth + 'x' + i.naturalHeight);
      i.onerror = () => done(u + ' FAILED');
      i.src = u;
    }));
  }
  const pre = document.createElement('pre');
  pre.id = 'linkbase-probe';
  pre.textContent = JSON.stringify({images}, null, 1);
  document.body.appendChild(pre);
});
</script>
JS
url="file://$(cd "$(dirname "$probe")" && pwd)/$(basename "$probe")"
chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=5000 --dump-dom "$url" 2>/dev/null \
  | sed -n '/<pre id="linkbase-probe">/,/<\/pre>/p' | sed 's/<[^>]*>//g'

#!/usr/bin/env python3
"""Open every page of an offline mirror in headless Chromium and count failed loads.

    python3 scripts/e2e/chromium-check.py MIRROR_DIR [--chromium chromium]

Each *.html / *.htm page is opened from its file: URL with the network off; the DevTools
protocol (over --remote-debugging-pipe: NUL-separated JSON on fds 3 and 4, stdlib only) reports
every request. A load fails when Chromium says so (Network.loadingFailed: a missing file, or an
http(s) URL offline). Prints per page its failed loads and a total; exit 1 when any failed.
Not run by the test suite (CI has no Chromium); scripts/mirror-check.py is the portable check.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request


class Browser:
    def __init__(self, binary):
        r3, w3 = os.pipe()  # commands: Chromium reads fd 3
        r4, w4 = os.pipe()  # answers: Chromium writes fd 4

        def fds():
            # Through fresh numbers first: a pipe may already be fd 3 or 4 (and close on exec).
            a, b = os.dup(r3), os.dup(w4)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.proc = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", "--no-first-run", "--offline",
             "--proxy-server=127.0.0.1:9", "about:blank"],
            preexec_fn=fds, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r3)
        os.close(w4)
        self.out = os.fdopen(w3, "wb", buffering=0)
        self.inp = os.fdopen(r4, "rb", buffering=0)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.out.write(json.dumps(msg).encode() + b"\0")
        want = self.next_id
        while True:
            m = self.read()
            if m.get("id") == want:
                return m.get("result", {})
            self.events.append(m)

    def read(self):
        while b"\0" not in self.buf:
            chunk = self.inp.read(65536)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def open(self, url, timeout=10.0):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget",
                            {"targetId": target, "flatten": True})["sessionId"]
        self.send("Network.enable", {}, session)
        self.send("Page.enable", {}, session)
        self.events = []
        self.send("Page.navigate", {"url": url}, session)
        failed, requests, loaded = [], {}, False
        deadline = time.time() + timeout
        while time.time() < deadline:
            for m in self.events:
                if m.get("sessionId") != session:
                    continue
                p = m.get("params", {})
                if m.get("method") == "Network.requestWillBeSent":
                    requests[p["requestId"]] = p["request"]["url"]
                elif m.get("method") == "Network.loadingFailed":
                    failed.append((requests.get(p["requestId"], "?"), p.get("errorText")))
                elif m.get("method") == "Page.loadEventFired":
                    loaded = True
            self.events = []
            if loaded:
                break
            self.events.append(self.read())
        # Late failures (after load) are rare for static pages; give them a moment.
        self.send("Runtime.evaluate", {"expression": "1"}, session)
        for m in self.events:
            p = m.get("params", {})
            if m.get("sessionId") == session and m.get("method") == "Network.loadingFailed":
                failed.append((requests.get(p["requestId"], "?"), p.get("errorText")))
        self.send("Target.closeTarget", {"targetId": target})
        return loaded, len(requests), failed

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=30)
        except (OSError, RuntimeError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mirror")
    ap.add_argument("--chromium", default="chromium")
    args = ap.parse_args()
    b = Browser(args.chromium)
    pages = requests_total = 0
    failures = []
    try:
        for dirpath, _, files in sorted(os.walk(os.path.abspath(args.mirror))):
            for name in sorted(files):
                if not name.lower().endswith((".html", ".htm")):
                    continue
                path = os.path.join(dirpath, name)
                url = "file://" + urllib.request.pathname2url(path)
                loaded, n, failed = b.open(url)
                pages += 1
                requests_total += n
                rel = os.path.relpath(path, args.mirror)
                if not loaded:
                    failures.append((rel, url, "the page did not load"))
                for f in failed:
                    # The page's own navigation counts among the requests, not as a failure.
                    failures.append((rel, f[0], f[1]))
    finally:
        b.close()
    for f in failures:
        print(f"  failed: {f[0]}: {f[1]} ({f[2]})")
    print(f"pages: {pages}, requests: {requests_total}, failed loads: {len(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Fail when the source files of a package import each other in a circle: the library (src/),
the command line (cli/src/) and the Python module (python/src/).

Each file is a node; an edge a -> b means a names an item of b through a `crate::`, `super::`
or `self::` path or a child module's name (in a `use` or inline). Declaring a child module
(`mod x;`) is not an edge. A path to an item of the crate root (`crate::Fatal`) is an edge to
the file that defines the item: the root itself when it does, else the module the root
re-exports it from. Strongly connected components of more than one file are printed and make
the exit status 1, unless the circle is listed in module-cycles-known.txt beside this script (a
ledger: one circle a line, its files sorted, `#` comments; a listed circle that is gone fails
too, so the line goes with it). Modules follow the data flow, and no module imports one above
it.
"""
import os
import re
import sys

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# Each package's source directory and its crate root.
PACKAGES = [("src", "lib"), ("cli/src", "main"), ("python/src", "lib")]


def module_files(root):
    """Map module path tuples to files: ('stream', 'scan') -> src/stream/scan.rs."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(dirpath, f), root)
            parts = rel[:-3].split(os.sep)
            if parts[-1] in ("mod", "lib", "main") and (len(parts) > 1 or parts[-1] == ROOT_NAME):
                parts = parts[:-1]
            out[tuple(parts)] = rel
    return out


def strip_comments_and_strings(src):
    """Blank out comments, string literals and character literals in one left-to-right pass."""
    token = re.compile(
        r"//[^\n]*"
        r"|/\*.*?\*/"
        r"|(?<![\w])b?r(?P<hashes>#*)\".*?\"(?P=hashes)"
        r"|(?<![\w])b?\"(?:\\.|[^\"\\])*\""
        # Character literals ('{' would unbalance braces); lifetimes have no closing quote.
        r"|(?<![\w])b?'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^'\\\n])'",
        re.S,
    )
    return token.sub(lambda m: " " if m.group(0).startswith("/") else '""', src)


def expand(tree):
    """Expand a use tree `a::{b, c::{d, e}}` into paths."""
    tree = re.sub(r"\s+", "", tree)
    m = re.match(r"^(.*?)\{(.*)\}$", tree)
    if not m:
        return [tree]
    prefix, inner = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        parts.append(cur)
    out = []
    for p in parts:
        for e in expand(p):
            out.append(prefix + e)
    return out


def strip_test_modules(src):
    """Drop `#[cfg(test)] mod x { ... }` blocks: tests may reach anywhere; the layering is about
    the library's own code (and their `super::` is the file itself)."""
    out = ""
    while True:
        m = re.search(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", src)
        if not m:
            return out + src
        out += src[: m.start()]
        depth, i = 1, m.end()
        while i < len(src) and depth:
            depth += {"{": 1, "}": -1}.get(src[i], 0)
            i += 1
        src = src[i:]


def paths_in(src):
    src = strip_test_modules(strip_comments_and_strings(src))
    paths = []
    for m in re.finditer(r"\buse\s+([^;]*);", src):
        paths += expand(m.group(1))
    for m in re.finditer(r"(?<![\w:])\w+(?:::\w+)+", src):
        paths.append(m.group(0))
    return paths


ROOT_NAME = "lib"


def root_names(root_src):
    """The crate root's own items, and the names it re-exports (name -> path)."""
    src = strip_test_modules(strip_comments_and_strings(root_src))
    defined = set(
        re.findall(
            r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:fn|struct|enum|const|static|type|trait|union)\s+(\w+)",
            src,
            re.M,
        )
    )
    exported = {}
    for m in re.finditer(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]*);", src):
        for path in expand(m.group(1)):
            path = re.sub(r"\s+as\s+\w+$", "", path)
            name = path.split("::")[-1]
            if name not in ("self", "*"):
                exported[name] = path
    return defined, exported


def target(mods, here, path, root=(set(), {})):
    """The file a path names, or None for outside crates."""
    segs = [s for s in re.split(r"::", path) if s]
    if not segs:
        return None
    if segs[0] == "crate":
        base, segs = (), segs[1:]
    elif segs[0] in ("super", "self"):
        base = here
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
    elif here + (segs[0],) in mods:
        # A child module named without a prefix (`use scan::Scanner;` in stream/mod.rs).
        base = here
    else:
        return None
    # An item of the crate root: the root when it defines it, else where it re-exports it from.
    defined, exported = root
    if base == () and segs and (segs[0],) not in mods:
        if segs[0] in defined:
            return ()
        if segs[0] in exported:
            again = exported[segs[0]]
            if not again.startswith(("crate::", "super::", "self::")):
                again = "crate::" + again
            return target(mods, (), again, (defined, {}))
    best = base
    cur = base
    for s in segs:
        cur = cur + (s,)
        if cur in mods:
            best = cur
        else:
            break
    return best


def check(package, root_name):
    """The circles (and the URL rules' imports of an engine) of one package; how many files."""
    global ROOT_NAME
    ROOT_NAME = root_name
    root_dir = os.path.join(REPO, package)
    mods = module_files(root_dir)
    with open(os.path.join(root_dir, root_name + ".rs"), encoding="utf-8") as fh:
        root = root_names(fh.read())
    edges = {m: set() for m in mods}
    for mod, rel in mods.items():
        here = mod
        with open(os.path.join(root_dir, rel), encoding="utf-8") as fh:
            src = fh.read()
        # The file's own inline `mod tests { use super::* }` refers to the file itself.
        for p in paths_in(src):
            t = target(mods, here, p, root)
            if t is not None and t != mod and t in mods:
                edges[mod].add(t)
    # Tarjan's strongly connected components.
    index, low, stack, on, sccs = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            sccs.append(comp)

    sys.setrecursionlimit(10000)
    for v in mods:
        if v not in index:
            visit(v)
    shown = lambda m: os.path.join(package, mods[m])
    cycles = []
    for c in (c for c in sccs if len(c) > 1):
        names = sorted(shown(m) for m in c)
        line = " ".join(names)
        if line in KNOWN:
            FOUND.add(line)
            print("known import cycle among %d files (listed): %s" % (len(names), ", ".join(names)))
            continue
        cycles.append(c)
        print("import cycle among %d files: %s" % (len(names), ", ".join(names)))
        for m in sorted(c, key=shown):
            inside = sorted(shown(t) for t in edges[m] if t in c)
            print("  %s -> %s" % (shown(m), ", ".join(inside)))
    # The URL rules know neither engine (an engine hands in what the rules need).
    layering = [
        (m, t)
        for m in mods
        for t in edges[m]
        if m[:1] == ("rewrite",) and t[:1] == ("engine",)
    ]
    for m, t in sorted(layering, key=lambda e: (mods[e[0]], mods[e[1]])):
        print("the URL rules import an engine: %s -> %s" % (shown(m), shown(t)))
    return bool(cycles or layering), len(mods)


def known():
    """The circles of the ledger, each as its sorted files joined by spaces."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "module-cycles-known.txt")
    lines = set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if line:
                lines.add(" ".join(sorted(line.split())))
    return lines


KNOWN = known()
FOUND = set()


def main():
    failed, counts = False, []
    for package, root_name in PACKAGES:
        bad, n = check(package, root_name)
        failed |= bad
        counts.append("%d in %s" % (n, package))
    for line in sorted(KNOWN - FOUND):
        print("listed in module-cycles-known.txt but not found (remove the line): %s" % line)
        failed = True
    if failed:
        return 1
    print(
        "no import cycle among the files (%s) but those listed; the URL rules import no engine"
        % ", ".join(counts)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs one command and says where its CPU went: wall seconds, the user+system seconds of every
process it started (JVMs and the Python workers Spark forks included), and a breakdown by
process and, inside a JVM, by thread (task threads, JIT compilers, GC, the rest).

    python3 benches/spark/cputree.py [--json OUT.json] [--interval 0.2] -- COMMAND [ARG ...]

Why a harness of its own: Spark's Python workers are forked by a daemon the JVM starts, and a
process that is never waited for by its parent is missing from the rusage `time` reports. This
harness makes itself the child subreaper (Linux prctl PR_SET_CHILD_SUBREAPER), so every orphan
is handed to it and reaped here: the total is getrusage(RUSAGE_CHILDREN) of everything the
command started. The breakdown is sampled from /proc (utime+stime of each process and thread,
every --interval seconds): a thread that ends between two samples loses at most one interval,
counted in its process's "unattributed" share, so the parts add up to the process's own total.
Linux only; standard library only.
"""

import argparse
import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import time
from collections import defaultdict
from typing import Dict, List, Optional, Tuple

PR_SET_CHILD_SUBREAPER = 36
TICK = os.sysconf("SC_CLK_TCK")


def stat(path: str) -> Optional[Tuple[str, int, float, float]]:
    """(comm, ppid, utime+stime seconds, stime seconds) of /proc/…/stat, None if gone."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    comm = text[text.index("(") + 1 : text.rindex(")")]
    fields = text[text.rindex(")") + 2 :].split()
    return comm, int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK, int(fields[12]) / TICK


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return ""


def kind_of_process(comm: str, cmd: str) -> str:
    if comm == "java":
        return "jvm"
    if "pyspark.daemon" in cmd or "pyspark.worker" in cmd:
        return "python-worker"
    if "linkbase.spark" in cmd or "pyspark" in cmd:
        return "python-driver"
    if comm.startswith("python"):
        return "python"
    return comm


def kind_of_thread(comm: str) -> str:
    """A JVM thread by its name (the kernel keeps 15 characters of it)."""
    if "CompilerThre" in comm or comm.startswith("C1 ") or comm.startswith("C2 "):
        return "jit"
    if comm.startswith(("GC Thread", "G1 ", "VM Periodic", "VM Thread")):
        return "gc+vm"
    if comm.startswith("Executor task") or comm.startswith("Executor-") or comm.startswith("Executor "):
        return "task threads"
    if "writer" in comm.lower() or "stdout" in comm.lower() or "stdin" in comm.lower():
        return "python io threads"
    return "other threads"


def ignores_sigchld(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigIgn:"):
                    return bool(int(line.split()[1], 16) & (1 << (signal.SIGCHLD - 1)))
    except OSError:
        pass
    return False


def top_threads(threads: Dict[Tuple[int, int], Tuple[str, float]], names: Dict[Tuple[int, int], str]) -> Dict[str, float]:
    """JVM CPU by thread name (digits dropped, so a pool's threads add up), the 12 largest."""
    total: Dict[str, float] = defaultdict(float)
    for key, (_, cpu) in threads.items():
        total["".join(c for c in names[key] if not c.isdigit()).strip()] += cpu
    return {k: round(v, 2) for k, v in sorted(total.items(), key=lambda kv: -kv[1])[:12]}


def descendants(root: int) -> List[int]:
    """Every process whose parent chain reaches `root`, or that was handed to this harness."""
    me = os.getpid()
    parent: Dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            s = stat(f"/proc/{name}/stat")
            if s:
                parent[int(name)] = s[1]
    out = []
    for pid in parent:
        p = pid
        while p in parent and p not in (root, me, 0, 1):
            p = parent[p]
        if p in (root, me) and pid != me:
            out.append(pid)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--interval", type=float, default=0.2)
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--label", default="")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no command")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    child = subprocess.Popen(command)
    # Last seen per process: (kind, cpu); per JVM thread: (pid, tid) -> (kind, cpu).
    procs: Dict[int, Tuple[str, float]] = {}
    threads: Dict[Tuple[int, int], Tuple[str, float]] = {}
    names: Dict[int, Tuple[str, str]] = {}
    thread_names: Dict[Tuple[int, int], str] = {}
    system_of: Dict[int, float] = {}
    # Whether a process's parent ignores SIGCHLD: such a child is reaped by the kernel and its
    # CPU reaches nobody's RUSAGE_CHILDREN (Spark's pyspark.daemon does this to its workers).
    orphaned_by: Dict[int, bool] = {}
    status = None
    while status is None:
        for pid in descendants(child.pid) + [child.pid]:
            s = stat(f"/proc/{pid}/stat")
            if not s:
                continue
            # Keyed by name too: spark-submit is a shell script that execs the JVM.
            known = names.get(pid)
            kind = known[1] if known and known[0] == s[0] else kind_of_process(s[0], cmdline(pid))
            names[pid] = (s[0], kind)
            procs[pid] = (kind, s[2])
            system_of[pid] = s[3]
            if pid not in orphaned_by and pid != child.pid:
                orphaned_by[pid] = ignores_sigchld(s[1])
            if kind == "jvm":
                try:
                    tids = os.listdir(f"/proc/{pid}/task")
                except OSError:
                    tids = []
                for tid in tids:
                    t = stat(f"/proc/{pid}/task/{tid}/stat")
                    if t:
                        threads[(pid, int(tid))] = (kind_of_thread(t[0]), t[2])
                        thread_names[(pid, int(tid))] = t[0]
        status = child.poll()
        if status is None:
            time.sleep(args.interval)
    # The command is done: whatever it left (daemons, workers) is ours now; end and reap it.
    deadline = time.monotonic() + 30
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            if time.monotonic() > deadline:
                for p in descendants(os.getpid()):
                    os.kill(p, signal.SIGKILL)
            time.sleep(0.05)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    user = after.ru_utime - before.ru_utime
    system = after.ru_stime - before.ru_stime
    # What the kernel reaped unseen by rusage, as last sampled (user and system not told apart).
    lost = sum(cpu for pid, (_, cpu) in procs.items() if orphaned_by.get(pid))

    by_kind: Dict[str, float] = defaultdict(float)
    for kind, cpu in procs.values():
        by_kind[kind] += cpu
    jvm: Dict[str, float] = defaultdict(float)
    for kind, cpu in threads.values():
        jvm[kind] += cpu
    if by_kind.get("jvm"):
        jvm["unattributed"] = by_kind["jvm"] - sum(jvm.values())
    by_kind["unsampled"] = user + system + lost - sum(by_kind.values())
    result = {
        "label": args.label,
        "command": command,
        "exit": status,
        "wall": round(wall, 3),
        "user": round(user, 3),
        "sys": round(system, 3),
        "cpu": round(user + system + lost, 3),
        "auto_reaped": round(lost, 3),
        "processes": {k: round(v, 2) for k, v in sorted(by_kind.items())},
        "jvm_threads": {k: round(v, 2) for k, v in sorted(jvm.items())},
        "top_threads": top_threads(threads, thread_names),
        "pids": {pid: [names[pid][0], kind, round(cpu, 2), round(system_of[pid], 2)] for pid, (kind, cpu) in procs.items() if cpu >= 0.1},
    }
    print(json.dumps(result), file=sys.stderr)
    if args.json:
        with open(args.json, "a") as f:
            f.write(json.dumps(result) + "\n")
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

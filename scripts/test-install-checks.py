#!/usr/bin/env python3
"""The verdicts of scripts/test-install.sh: each compares a whole answer of an installed jompd with the facts the
fixture program recorded about itself (FIXTURES.md) or with gdb's own reading of the runtime, and exits non-zero
with the differences when they are not equal.

  lwps FACTS JSON          `jompd inspect --json`: its OpenMP threads' LWPs are exactly the recorded ones
  gdb-threads FACTS LOG    gdb's log of `ompd threads` (after the GDBTHREADS and KMPTHREADS lines below): one row
                           per recorded thread with gdb's number, the LWP, the gtid, thread number, level, team
                           size, team path and a parallel-work state, and no other row
  deadlock FACTS JSON      `jompd diagnose --json`: exactly one deadlock finding, whose threads' LWPs are exactly
                           the threads the program recorded in its cycle (role=cycle)

The gdb log's truth lines, printed by gdb itself in the same session:
  GDBTHREADS num:lwp ...       every thread gdb knows, by its number
  KMPTHREADS gtid:pthread ...  every non-empty slot of libomp's __kmp_threads[], with its ds_thread (DWARF)
"""
import json
import re
import sys

THREAD_ROW = re.compile(r"^\s*(\*?)\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([-\d.]+)\s+(\S.*)$")
HEADER = re.compile(r"^(\d+) OpenMP threads of (\d+) threads in (\S+)")


def facts_of(path):
    with open(path) as file:
        return dict(line.rstrip("\n").split("=", 1) for line in file if "=" in line)


def threads_of(facts):
    """thread index -> its facts (thread.<k>.*)."""
    threads = {}
    for key, value in facts.items():
        match = re.fullmatch(r"thread\.(\d+)\.(\w+)", key)
        if match:
            threads.setdefault(int(match.group(1)), {})[match.group(2)] = value
    if not threads or len(threads) != int(facts.get("threads", -1)):
        sys.exit("the facts hold %d threads, they say threads=%s" % (len(threads), facts.get("threads")))
    return threads


def lwps(facts_path, json_path):
    want = sorted(int(t["lwp"]) for t in threads_of(facts_of(facts_path)).values())
    with open(json_path) as file:
        got = sorted(t["lwp"] for t in json.load(file)["threads"] if "lwp" in t)
    if want != got:
        sys.exit("the OpenMP threads' LWPs are %s, the program recorded %s" % (got, want))


def pairs(text, label):
    line = next((l for l in text.splitlines() if l.startswith(label + " ")), None)
    if line is None:
        sys.exit("gdb printed no %s line" % label)
    return dict((int(a, 0), int(b, 0)) for a, b in (pair.split(":") for pair in line.split()[1:]))


def gdb_threads(facts_path, log_path):
    threads = threads_of(facts_of(facts_path))
    with open(log_path, errors="replace") as file:
        text = file.read()
    gdb_number = {lwp: number for number, lwp in pairs(text, "GDBTHREADS").items()}
    gtid_of_pthread = {pthread: gtid for gtid, pthread in pairs(text, "KMPTHREADS").items()}
    problems = []
    headers = [m for m in map(HEADER.match, text.splitlines()) if m]
    if len(headers) != 1:
        problems.append("%d `N OpenMP threads of M threads in ...` lines, not one" % len(headers))
    else:
        header = headers[0]
        if (int(header.group(1)), int(header.group(2))) != (len(threads), len(gdb_number)):
            problems.append("the header says %s OpenMP threads of %s; the program recorded %d, gdb knows %d threads"
                            % (header.group(1), header.group(2), len(threads), len(gdb_number)))
        if not header.group(3).startswith("core:"):
            problems.append("the backend is %s, not a core" % header.group(3))
    rows = {}
    for line in text.splitlines():
        row = THREAD_ROW.match(line)
        if row:
            if int(row.group(3)) in rows:
                problems.append("LWP %s has two rows" % row.group(3))
            rows[int(row.group(3))] = row
    recorded = {int(t["lwp"]): t for t in threads.values()}
    if set(rows) != set(recorded):
        problems.append("rows for LWPs %s, the program recorded %s" % (sorted(rows), sorted(recorded)))
    for lwp, thread in sorted(recorded.items()):
        row = rows.get(lwp)
        if row is None:
            continue
        level = int(thread["level"])
        ancestors = [a for a in thread.get("ancestors", "").split(",") if a][:max(0, level - 1)]
        want = {"gdb thread": gdb_number.get(lwp), "gtid": gtid_of_pthread.get(int(thread["pthread"], 16)),
                "thread number": int(thread["thread_num"]), "level": level, "team size": int(thread["team_size"]),
                "team path": ".".join(ancestors) or "-"}
        got = {"gdb thread": int(row.group(2)), "gtid": int(row.group(4)), "thread number": int(row.group(5)),
               "level": int(row.group(6)), "team size": int(row.group(7)), "team path": row.group(8)}
        for field in want:
            if want[field] != got[field]:
                problems.append("LWP %d: %s %s, the truth is %s" % (lwp, field, got[field], want[field]))
        if not row.group(9).startswith("work_parallel"):
            problems.append("LWP %d: state %r, not parallel work" % (lwp, row.group(9)))
    if problems:
        sys.exit("gdb's ompd threads:\n  " + "\n  ".join(problems))


def deadlock(facts_path, json_path):
    threads = threads_of(facts_of(facts_path))
    cycle = sorted(int(t["lwp"]) for t in threads.values() if t.get("role") == "cycle")
    if not cycle:
        sys.exit("the program recorded no thread in a cycle")
    with open(json_path) as file:
        report = json.load(file)
    if report.get("schema") != "jompd-diagnose/1":
        sys.exit("the diagnosis' schema is %r" % report.get("schema"))
    deadlocks = [f for f in report["findings"] if f["kind"] == "deadlock"]
    if len(deadlocks) != 1:
        sys.exit("%d deadlock findings, not one: %s" % (len(deadlocks), [f["summary"] for f in deadlocks]))
    named = sorted(t.get("lwp", -1) for t in deadlocks[0]["threads"])
    if named != cycle:
        sys.exit("the deadlock names LWPs %s, the program's cycle is %s" % (named, cycle))


if __name__ == "__main__":
    checks = {"lwps": lwps, "gdb-threads": gdb_threads, "deadlock": deadlock}
    if len(sys.argv) != 4 or sys.argv[1] not in checks:
        sys.exit("usage: test-install-checks.py lwps|gdb-threads|deadlock FACTS FILE")
    checks[sys.argv[1]](sys.argv[2], sys.argv[3])

#!/usr/bin/env python3
"""Damaged summaries give the right answer or say they are damaged
(docs/summaries.md, "Checksums").

    summary_corrupt_test.py TRACEDIFF

A summary of two runs (two ranks each) is made from real traces, then 200
copies of it are damaged, each one way, chosen by a fixed seed:

- 80 byte flips anywhere in the file (SQLite's pages, header included);
- 60 byte flips inside a packed blob (through SQLite, so the file stays a
  valid database);
- 60 changed values: an op's total or count, a run's totals, a file's
  counts, a name, an iteration (through SQLite).

For each copy, `compare F#a F#b`, `runs F`, `trend F`, the folded stacks
and the roofline (`--stats`) of F#a against F#b must either print
exactly what they print for the undamaged file (exit 0), or fail with exit
1, one line on stderr naming the file and saying "damaged summary", and
nothing on stdout (the instrumented passes, TD_TEST_SUBSET=1, damage 40
copies, every fifth). The only other answer allowed is for a flip of the
schema version (bytes 60-63 of the header): a version above ours is read as
a newer tracediff's file ("use a newer tracediff"), which a flip cannot be
told from.

Also: a summary with schema version -1 or 0 (but tracediff's tables) is a
damaged summary; a run of schema 2 (no checksums) answers, with a note.
"""
import hashlib, os, random, shutil, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as reference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLD = os.path.join(ROOT, "tests", "golden", "traces")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL summary-corrupt %s%s" % (name, ": " + detail if detail else ""))


def run(exe, *args):
    try:
        p = subprocess.run([exe] + list(args), capture_output=True, timeout=60, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None, b"", "no answer in 60 s"
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def commands(path):
    # the stacks and the roofline's inputs (packed since schema 4) too
    return [["compare", path + "#a", path + "#b", "--format", "csv", "-q"],
            ["runs", path, "--format", "csv"],
            ["trend", path, "--format", "csv"],
            ["compare", path + "#a", path + "#b", "--format", "folded", "--side", "control", "-q"],
            ["roofline", path + "#a", path + "#b", "--stats", "--format", "json", "-q"]]


def flip_file(path, rng):
    data = bytearray(open(path, "rb").read())
    at = rng.randrange(len(data))
    data[at] ^= rng.randrange(1, 256)
    open(path, "wb").write(bytes(data))
    return "byte %d of the file" % at, 60 <= at < 64


def flip_blob(path, rng):
    con = sqlite3.connect(path)
    rows = con.execute("SELECT rowid, packed FROM files ORDER BY rowid").fetchall()
    rowid, blob = rows[rng.randrange(len(rows))]
    b = bytearray(blob)
    at = rng.randrange(len(b))
    b[at] ^= rng.randrange(1, 256)
    con.execute("UPDATE files SET packed = ? WHERE rowid = ?", (bytes(b), rowid))
    con.commit()
    con.close()
    return "byte %d of packed blob %d" % (at, rowid), False


VALUE_EDITS = [
    "UPDATE ops SET total_us = total_us * 1.5 + 1 WHERE rowid = {row}",
    "UPDATE ops SET count = count + 1 WHERE rowid = {row}",
    "UPDATE runs SET cpu_us = cpu_us + 100 WHERE run_id = 1",
    "UPDATE runs SET events = events - 1 WHERE run_id = 2",
    "UPDATE files SET events_total = events_total + 1 WHERE rowid = 1",
    "UPDATE files SET sha256 = 'ff' || substr(sha256, 3) WHERE rowid = 2",
    "UPDATE names SET name = name || 'x' WHERE rowid = {row}",
    "UPDATE iterations SET iteration = iteration + 1000 WHERE rowid = 1",
    "DELETE FROM ops WHERE rowid = {row}",
    "UPDATE checksums SET files = files + 1 WHERE run_id = 2",
]


def edit_value(path, rng):
    con = sqlite3.connect(path)
    n = con.execute("SELECT min(count(*), (SELECT count(*) FROM names)) FROM ops").fetchone()[0]
    sql = rng.choice(VALUE_EDITS).format(row=rng.randrange(1, n + 1))
    con.execute(sql)
    con.commit()
    con.close()
    return sql, False


def summary_of_summary(exe, tmp):
    """A summary of a summary keeps every section its input had: each
    command answers from it as from the input (the roofline was dropped)."""
    a, b = os.path.join(tmp, "sos-a.tdsum"), os.path.join(tmp, "sos-b.tdsum")
    for run_name, src in (("a", "hta-two_ranks"), ("b", "hta-trace_diff/test")):
        rc, _, err = run(exe, "summarize", os.path.join(GOLD, src), "-o", a, "--run", run_name,
                         "-q")
        check("summary of summary: summarize %s" % src, rc == 0, err)
        rc, _, err = run(exe, "summarize", a + "#" + run_name, "-o", b, "--run", run_name, "-q")
        check("summary of summary: summarize %s#%s" % (a, run_name), rc == 0, err)
    for cmd in (["roofline", "{}#a", "{}#b", "--stats", "--format", "json", "-q"],
                ["roofline", "{}#a", "{}#b", "-q"],
                ["compare", "{}#a", "{}#b", "--format", "folded", "--side", "test", "-q"],
                ["compare", "{}#a", "{}#b", "--by", "module", "--format", "csv", "-q"],
                ["breakdown", "{}#a", "{}#b", "-q"],
                ["compare", "{}#a", "{}#b", "--format", "csv", "-q"]):
        want = run(exe, *[c.format(a) for c in cmd])
        got = run(exe, *[c.format(b) for c in cmd])
        check("summary of summary: %s" % " ".join(cmd[:1] + cmd[3:]),
              want[0] == 0 and want[1] and got[:2] == want[:2], got[2].strip()[:300])


def ops_total_as_compare(exe, tmp):
    """The SQL ops.total_us of a trace whose durations are not whole
    numbers (--ns) is the total compare gives (bit for bit): CPU groups
    split by stack node used to be added group by group, which can differ
    in the last digit."""
    src = os.path.join(GOLD, "hta-ns_resolution")
    out = os.path.join(tmp, "ns.tdsum")
    rc, _, err = run(exe, "summarize", src, "--ns", "-o", out, "-q")
    check("ops total: summarize --ns", rc == 0, err)
    con = sqlite3.connect(out)
    rows = con.execute("SELECT name, total_us FROM ops_named WHERE iteration = 101 AND "
                       "device = 'cpu'").fetchall()
    con.close()
    rc, csv, err = run(exe, "compare", src, src, "--ns", "--control-iteration", "101",
                       "--test-iteration", "101", "--device", "cpu", "--format", "csv", "-q")
    import csv as csvmod, io
    cli = {r["name"]: float(r["control_total_duration"])
           for r in csvmod.DictReader(io.StringIO(csv.decode()))}
    bad = [(n, t, cli.get(n)) for n, t in rows if cli.get(n) != t]
    check("ops total: every row as compare totals it", rc == 0 and len(rows) > 20 and not bad,
          "%d rows, %r" % (len(rows), bad[:3]))


def main():
    exe = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="td-summary-corrupt.")
    try:
        # The undamaged file and its answers are the expected side: made by
        # the plain build in the instrumented passes (tests/cases.py:
        # expectation_exe), where only the damaged copies' reading is new.
        ref = reference.expectation_exe(exe)
        good = os.path.join(tmp, "good.tdsum")
        for run_name, src in (("a", "hta-two_ranks"), ("b", "hta-trace_diff/test")):
            rc, _, err = run(ref, "summarize", os.path.join(GOLD, src), "-o", good, "--run",
                             run_name, "-q")
            check("summarize %s" % src, rc == 0, err)
        want = [run(ref, *c) for c in commands(good)]
        check("the undamaged file answers", all(w[0] == 0 and w[1] for w in want),
              str([w[2] for w in want]))
        rng = random.Random(20261127)
        kinds = [flip_file] * 80 + [flip_blob] * 60 + [edit_value] * 60
        if reference.instrumented():
            kinds = kinds[::5]  # the instrumented passes: 40 of them, every kind
        same = damaged = 0
        # A copy damaged to the same bytes as an earlier one (the value edits
        # without a row, the same row twice) gets that copy's answers, its
        # path swapped for this one's: the commands read nothing but the file.
        answers = {}
        for i, how in enumerate(kinds):
            bad = os.path.join(tmp, "bad%d.tdsum" % i)
            shutil.copy(good, bad)
            what, version_bytes = how(bad, rng)
            with open(bad, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            for j, (cmd, (wrc, wout, _)) in enumerate(zip(commands(bad), want)):
                if (digest, j) not in answers:
                    rc, out, err = run(exe, *cmd)
                    answers[digest, j] = (rc, out.replace(bad.encode(), b"\0PATH\0"),
                                          err.replace(bad, "\0PATH\0"))
                rc, out, err = answers[digest, j]
                out, err = out.replace(b"\0PATH\0", bad.encode()), err.replace("\0PATH\0", bad)
                lines = err.strip().splitlines()
                if rc == 0 and out == wout:
                    same += 1
                    ok = True
                else:
                    ok = (rc == 1 and out == b"" and len(lines) == 1 and bad in lines[0] and
                          ("damaged summary" in lines[0] or
                           (version_bytes and "use a newer tracediff" in lines[0])))
                    damaged += ok
                check("%s: %s" % (what, cmd[0]), ok,
                      "rc %s, %d bytes out, %r" % (rc, len(out), err.strip()[:300]))
            os.unlink(bad)
        print("%d answers as before, %d 'damaged summary' (%d distinct copies)"
              % (same, damaged, len(answers) // len(want)))
        check("damage was found at all", damaged > len(kinds) // 2, "%d" % damaged)

        # the schema version: -1 and 0 on tracediff's tables are damage
        for v in (-1, 0):
            bad = os.path.join(tmp, "v%d.tdsum" % (v + 1))
            shutil.copy(good, bad)
            con = sqlite3.connect(bad)
            con.execute("PRAGMA user_version = %d" % v)
            con.commit()
            con.close()
            rc, out, err = run(exe, "runs", bad)
            check("user_version %d: damaged summary" % v,
                  rc == 1 and "damaged summary" in err and "version is %d" % v in err, err)

        # a run without checksums (schema 2): it answers, with a note
        old = os.path.join(tmp, "old.tdsum")
        shutil.copy(good, old)
        con = sqlite3.connect(old)
        con.executescript("DROP TABLE checksums; DELETE FROM meta WHERE key = 'checksums_from';"
                          "PRAGMA user_version = 2;")
        con.close()
        rc, out, err = run(exe, *commands(old)[0][:-1])
        check("schema 2: answers as before, with a note",
              rc == 0 and out == want[0][1] and "without checksums" in err, err)
        rc, out, err = run(exe, "summarize", os.path.join(GOLD, "hta-two_ranks"), "-o", old,
                           "--run", "c", "-q")
        rc2, out2, err2 = run(exe, "compare", old + "#a", old + "#c", "--format", "csv")
        check("schema 2 + a new run: the new run is checked, the old is noted",
              rc == 0 and rc2 == 0 and err2.count("without checksums") == 1 and
              "#a)" in err2, err + err2)
        summary_of_summary(exe, tmp)
        ops_total_as_compare(exe, tmp)
    finally:
        shutil.rmtree(tmp)
    print("summary-corrupt: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

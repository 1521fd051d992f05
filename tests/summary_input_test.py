#!/usr/bin/env python3
"""A summary is input (docs/summaries.md, "A summary is input").

    summary_input_test.py TRACEDIFF

A .tdsum may come from anyone. Each case makes a real summary, damages one
thing in it the way a hostile or broken file could, and checks what every
reader then does: one line naming the summary, exit status 1, nothing
written, within seconds; or, where the damage is harmless, the same answer
as before.

- the packed bytes (decoded here from the format in docs/summaries.md, not
  by tracediff): an attribution that names no name of the file, read by
  `compare --by op` (which indexes by it); iterations out of order; a
  compression the format does not have;
- the SQLite schema: `runs` replaced by a view that never ends (readers
  query tables only: views are refused, not run); a trigger left on `runs`
  by someone else: appending a run is refused (the trigger does not fire),
  and so is every reader;
- the runs table: a NULL source (damage, not "out of memory"); NULL names
  and dates in `runs`; rank and iteration lists that are out of order or
  that do not match the files.
"""
import json, os, shutil, sqlite3, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TWO = os.path.join(ROOT, "tests", "golden", "traces", "hta-two_ranks")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL summary-input %s%s" % (name, ": " + detail if detail else ""))


def run(exe, *args, timeout=60):
    try:
        p = subprocess.run([exe] + list(args), capture_output=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return None, b"", "no answer in %d s" % timeout
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


# ---- the packed file, from the layout in docs/summaries.md ----

class Reader:
    def __init__(self, b):
        self.b, self.p = b, 0

    def u(self):
        v = sh = 0
        while True:
            c = self.b[self.p]
            self.p += 1
            v |= (c & 0x7F) << sh
            sh += 7
            if not c & 0x80:
                return v

    def zz(self):
        v = self.u()
        return (v >> 1) ^ -(v & 1)

    def s(self):
        n = self.u()
        self.p += n
        return self.b[self.p - n:self.p]


def put_u(v):
    out = bytearray()
    while True:
        c = v & 0x7F
        v >>= 7
        out.append(c | (0x80 if v else 0))
        if not v:
            return bytes(out)


def zz(v):
    return (v << 1) ^ (v >> 63) if v >= 0 else ((-v) << 1) - 1


def fields(blob):
    """Where the fields of a "TDF5" file lie: {name: (start, end)} of the
    head's varints, the iterations, the first stack node's parent and the
    first gpu group's attribution; the names count, the iterations' deltas
    and the encoding."""
    r = Reader(blob)
    assert blob[:4] == b"TDF5"
    r.p = 4
    at = {}
    r.s()  # path
    if r.u():
        r.s()  # device name
    r.zz()  # rank
    for name in ("has_rank", "compression", "file_bytes", "json_bytes", "events_total",
                 "events_skipped", "rounded", "bom", "steps", "events_cpu", "events_gpu",
                 "events_stream0", "events_no_launch", "events_no_launch0"):
        start = r.p
        r.u()
        at[name] = (start, r.p)
    ncats = r.u()
    for _ in range(ncats):
        r.s()
        r.u()
    start = r.p
    niters = r.u()
    deltas = [r.zz() for _ in range(niters)]
    at["iters"] = (start, r.p)
    nnames = r.u()
    for _ in range(nnames):
        r.s()
    if r.u() == 1:
        r.p += 8 * ncats
    if r.u() == 1:
        for _ in range(nnames):
            r.u()
    has_attr = r.u()
    if r.u():  # the extras: the trace span
        r.p += 16
    if r.u():  # ... and the ops' waits
        for _ in range(r.u()):
            r.u()
            r.p += 16
    if r.u() == 1:  # the breakdown's records (docs/summaries.md)
        whole = r.u()
        for _ in range(r.u()):
            if whole:
                r.u(), r.u(), r.u()
            else:
                r.p += 24
            r.u(), r.u(), r.u()
        nsync = r.u()  # synchronize calls
        r.p += 16 * nsync
        for _ in range(r.u()):  # steps
            r.p += 16
            r.u()
        r.p += 16  # span
    has_stk = r.u()  # the stacks (schema 4)
    if has_stk:
        for i in range(r.u()):
            start = r.p
            r.u()
            if i == 0:
                at["stk_parent"] = (start, r.p)
            r.u()
        r.u()  # cut
    if r.u() == 1:  # the roofline's inputs (schema 4)
        if r.u():
            for _ in range(r.u()):
                r.s()
        for _ in range(r.u()):
            r.u(), r.u(), r.u()
        whole = r.u()
        for _ in range(r.u()):
            r.u(), r.u(), r.u()
            if whole:
                r.u(), r.u()
            else:
                r.p += 16
            r.u(), r.u()
    encoding = r.u()
    ngroups = r.u()
    for _ in range(ngroups):
        r.u(), (flags := r.u()), r.u(), r.u()
        if has_attr and flags & 1 and "op" not in at:
            start = r.p
            r.u()
            at["op"] = (start, r.p)
            r.u(), r.u()
        elif has_attr and flags & 1:
            r.u(), r.u(), r.u()
        if has_attr and has_stk and (flags & 1 or has_stk == 2):
            r.u()  # the stack node (2: of cpu groups too, schema 5)
        if encoding == 2:
            r.zz()
        else:
            break  # only encoding 2 is walked here; the fields above are found
    return at, nnames, deltas, encoding


def splice(blob, span, new):
    return blob[:span[0]] + new + blob[span[1]:]


def set_packed(path, blob, rank=None):
    con = sqlite3.connect(path)
    q = "UPDATE files SET packed = ?" + ("" if rank is None else " WHERE rank = %d" % rank)
    con.execute(q, (blob,))
    con.commit()
    con.close()


def first_packed(path):
    con = sqlite3.connect(path)
    blob = con.execute("SELECT packed FROM files ORDER BY rank LIMIT 1").fetchone()[0]
    con.close()
    return bytes(blob)


def refused(exe, tmp, name, summary, args, want=""):
    """args read summary: exit 1, one line naming it (holding want), no output."""
    out = os.path.join(tmp, "out.svg" if args[0] == "trend" else "out.txt")
    if os.path.exists(out):
        os.unlink(out)
    to = ["-o", out] if args[0] != "runs" else []
    to += ["-q"] if args[0] in ("compare", "info") else []
    rc, _, err = run(exe, *args, *to, timeout=30)
    lines = err.strip().splitlines()
    check(name, rc == 1 and len(lines) == 1 and summary in lines[0] and want in lines[0] and
          not os.path.exists(out), "rc %s: %s" % (rc, err.strip()))


def packed_cases(exe, tmp):
    good = os.path.join(tmp, "packed.tdsum")
    rc, _, err = run(exe, "summarize", TWO, "-o", good, "-q")
    check("summarize two ranks", rc == 0, err)
    blob = first_packed(good)
    at, nnames, deltas, enc = fields(blob)
    check("the fixture has what the cases damage", enc == 2 and "op" in at and len(deltas) >= 2,
          "encoding %d, fields %s, iterations %s" % (enc, sorted(at), deltas))
    if enc != 2 or "op" not in at or len(deltas) < 2:
        return
    # the decoder here read the right bytes: the iterations are the trace's
    rc, out, err = run(exe, "info", os.path.join(TWO, sorted(os.listdir(TWO))[0]), "--format",
                       "json")
    iters = [sum(deltas[:i + 1]) for i in range(len(deltas))]
    check("the packed iterations are the trace's", rc == 0 and json.loads(out)["iterations"] ==
          iters, "%s: %s" % (iters, err))
    rc, base, err = run(exe, "compare", good, good, "--by", "op", "--format", "csv", "-q")
    check("by op from the summary as written", rc == 0 and base, err)

    # an op no name of the file has: compare --by op indexes its rows by it
    for label, op in (("past the names", nnames + 1000), ("just past the names", nnames),
                      ("an unknown reason", 0xFFFFFF00 + 77)):
        bad = os.path.join(tmp, "op.tdsum")
        shutil.copy(good, bad)
        set_packed(bad, splice(blob, at["op"], put_u(op)), 0)
        for by in ("op", "kernel"):
            refused(exe, tmp, "attribution %s, --by %s" % (label, by), bad,
                    ["compare", bad, bad, "--by", by], "damaged summary")

    # a stack node whose parent is not before it (a loop, schema 4)
    if "stk_parent" in at:
        for label, parent in (("itself", 1), ("after it", 3), ("far past", 1 << 40)):
            bad = os.path.join(tmp, "stk.tdsum")
            shutil.copy(good, bad)
            set_packed(bad, splice(blob, at["stk_parent"], put_u(parent)), 0)
            refused(exe, tmp, "stack parent %s" % label, bad,
                    ["compare", bad, bad, "--by", "module"], "damaged summary")
    check("the fixture has stacks", "stk_parent" in at)

    # iterations: ascending and distinct in the model
    rest = deltas[2:]
    for label, new in (("repeated", [deltas[0], 0] + rest), ("descending", [deltas[0], -1] + rest),
                       ("past int64", [deltas[0], (1 << 63) - 1] + rest)):
        bad = os.path.join(tmp, "iters.tdsum")
        shutil.copy(good, bad)
        enc_iters = put_u(len(new)) + b"".join(put_u(zz(v)) for v in new)
        set_packed(bad, splice(blob, at["iters"], enc_iters), 0)
        refused(exe, tmp, "iterations %s" % label, bad, ["compare", bad, bad], "damaged summary")

    for field, value in (("compression", 7), ("has_rank", 2), ("bom", 9)):
        bad = os.path.join(tmp, "head.tdsum")
        shutil.copy(good, bad)
        set_packed(bad, splice(blob, at[field], put_u(value)), 0)
        refused(exe, tmp, "%s %d" % (field, value), bad, ["info", bad], "damaged summary")


def schema_cases(exe, tmp):
    good = os.path.join(tmp, "two.tdsum")
    rc, _, err = run(exe, "summarize", TWO, "-o", good, "--run", "a", "-q")
    check("summarize two ranks", rc == 0, err)
    rc, base, err = run(exe, "compare", good, good, "--format", "csv", "-q")
    check("compare the summary as written", rc == 0 and base, err)

    # runs as a view whose every row waits on a query without end
    view = os.path.join(tmp, "view.tdsum")
    shutil.copy(good, view)
    con = sqlite3.connect(view)
    con.executescript(
        "ALTER TABLE runs RENAME TO runs_t;"
        "CREATE VIEW runs AS SELECT * FROM runs_t WHERE (WITH RECURSIVE c(x) AS "
        "(SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c) > 0;")
    con.close()
    for args in (["compare", view, view], ["runs", view], ["trend", view]):
        refused(exe, tmp, "runs as an endless view: %s" % args[0], view, args)

    # a trigger someone left on runs: appending a run must not set it off
    trig = os.path.join(tmp, "trigger.tdsum")
    shutil.copy(good, trig)
    con = sqlite3.connect(trig)
    con.executescript("CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN "
                      "DELETE FROM files WHERE run_id <> new.run_id; "
                      "UPDATE runs SET source = 'elsewhere' WHERE run_id <> new.run_id; END;")
    con.close()
    before = open(trig, "rb").read()
    rc, _, err = run(exe, "summarize", TWO, "-o", trig, "--run", "b", "-q")
    check("append beside a trigger: refused, naming it, the file untouched",
          rc == 1 and "trigger 'wipe'" in err and "damaged summary" in err and
          open(trig, "rb").read() == before, "rc %d %s" % (rc, err))
    con = sqlite3.connect(trig)
    kept = con.execute("SELECT count(*) FROM files JOIN runs USING (run_id) WHERE name = 'a'"
                       ).fetchone()[0]
    src = con.execute("SELECT source FROM runs WHERE name = 'a'").fetchone()[0]
    con.close()
    check("the trigger did not fire", kept == 2 and src != "elsewhere", "%d files, %s" % (kept, src))
    for args in (["compare", trig, trig], ["runs", trig], ["trend", trig], ["info", trig]):
        refused(exe, tmp, "a trigger in the file: %s" % args[0], trig, args)


def runs_cases(exe, tmp):
    good = os.path.join(tmp, "two.tdsum")
    for label, sql, args, want in (
            ("NULL source", "UPDATE runs SET source = NULL", ["compare", "S", "S"],
             "damaged summary"),
            ("NULL name", "UPDATE runs SET name = NULL", ["compare", "S", "S"], "damaged summary"),
            ("NULL date", "UPDATE runs SET created = NULL", ["runs", "S"], "damaged summary"),
            ("NULL name in runs", "UPDATE runs SET name = NULL", ["runs", "S"], "damaged summary"),
            ("NULL name in trend", "UPDATE runs SET name = NULL", ["trend", "S"],
             "damaged summary"),
            ("ranks out of order", "UPDATE runs SET ranks = '1,0'", ["compare", "S", "S"],
             "damaged summary"),
            ("ranks with a gap", "UPDATE runs SET ranks = '0,1,2'", ["compare", "S", "S"],
             "damaged summary"),
            ("ranks of other files", "UPDATE runs SET ranks = '5,6'", ["compare", "S", "S"],
             "damaged summary"),
            ("iterations too few", "UPDATE runs SET iterations = ''", ["compare", "S", "S"],
             "damaged summary"),
            ("iterations not a list", "UPDATE runs SET iterations = '1;2'", ["compare", "S", "S"],
             "damaged summary"),
            ("rank past int64", "UPDATE runs SET ranks = '0,99999999999999999999'",
             ["compare", "S", "S"], "damaged summary")):
        bad = os.path.join(tmp, "runs.tdsum")
        shutil.copy(good, bad)
        con = sqlite3.connect(bad)
        # NOT NULL is tracediff's own schema; a file from elsewhere need not have it
        con.executescript("DROP VIEW ops_named; CREATE TABLE runs_l AS SELECT * FROM runs; "
                          "DROP TABLE runs; ALTER TABLE runs_l RENAME TO runs;")
        con.execute(sql)
        con.commit()
        con.close()
        refused(exe, tmp, label, bad, [bad if a == "S" else a for a in args], want)


def main():
    exe = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="td-summary-input-")
    try:
        packed_cases(exe, tmp)
        schema_cases(exe, tmp)
        runs_cases(exe, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("summary-input: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

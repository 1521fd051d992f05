#!/usr/bin/env python3
"""Summary tests (docs/summaries.md).

    summary_test.py TRACEDIFF

- every case of tests/golden/cases.json through summaries: each set summarized
  once, then compare --format csv and ops --format json from the summaries
  must match HTA's outputs as the traces' do (golden_test.py), and be
  byte-identical to the same commands on the traces on one case per load key
  and on the subset's (on every case in the instrumented passes, which run
  the subset, and with TD_TEST_FULL=1); so must
  compare --format json, --stats, --per-iteration, --by, --cat on one case
  per load key and on the subset's (tests/cases.py; every case with
  TD_TEST_FULL=1)
  (--hta-strict and --ns cases too, the latter from summaries made with
  --ns); info --format json of each set as well;
- the duration rule: a summary made without --ns compared with --ns (and
  the reverse) is one error naming it and saying to summarize again, exit 1;
  --cat on a summary that lacks its events' categories is refused;
- a file of three runs: runs lists them, H#a against H#b equals the original
  sets, PRAGMA integrity_check says ok, trend writes valid SVG, PNG and PDF;
- a summary of decimal durations (the raw encoding) answers exactly;
- bad input: a newer schema, truncated and non-SQLite files named .tdsum, a
  missing #RUN, selections a summary lacks: one line naming the file, exit 1,
  nothing written;
- a summary of schema 1 (an older tracediff's, tests/data) answers the same
  as the traces, and adding a run raises it to the current schema;
- damaged packed durations: refused by the checksums; in a run written
  without them (schema 2), counts and totals still answer (they are kept
  apart) and anything that needs single events is one clear error;
- a summarize killed inside its append transaction (a test hook pauses it
  there) leaves the earlier runs intact and byte for byte as they were.
"""
import concurrent.futures, hashlib, json, os, re, shutil, signal, sqlite3, subprocess, sys
import tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as reference  # noqa: E402
import golden_test  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLD = os.path.join(ROOT, "tests", "golden")
passed = failed = 0
TD_SCHEMA = 5  # PRAGMA user_version that summarize writes (include/tracediff.h)
# The traces' side of every comparison with a summary's answer: the plain
# build in the instrumented passes (tests/cases.py: expectation_exe), set by
# main(); the summaries' side runs the build under test.
REF = None


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL summary %s%s" % (name, ": " + detail if detail else ""))


def run(exe, *args):
    p = subprocess.run([exe] + list(args), capture_output=True, timeout=600, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def selection(c):
    out = []
    for k in ("control_rank", "test_rank", "control_iteration", "test_iteration"):
        v = c.get(k)
        if v is not None:
            out += ["--" + k.replace("_", "-"), ",".join(map(str, v)) if isinstance(v, list) else str(v)]
    out += ["--device", c.get("device", "all")]
    if c.get("short_names"):
        out.append("--short-names")
    if c.get("hta_strict"):
        out.append("--hta-strict")
    if c.get("ns"):
        out.append("--ns")
    return out


def two_categories_on_a_side(path):
    """Whether some name of a trace file of path has counted events of two
    categories on one side (host: no args.stream, or -1; else gpu): a
    summary keeps no event's own category then, and refuses --cat."""
    import gzip
    files = [os.path.join(path, f) for f in os.listdir(path)] if os.path.isdir(path) else [path]
    for f in files:
        if not f.endswith((".json", ".json.gz")):
            continue
        with (gzip.open if f.endswith(".gz") else open)(f, "rt", encoding="utf-8") as fh:
            d = json.load(fh)
        seen = {}
        for e in (d["traceEvents"] if isinstance(d, dict) else d):
            if not isinstance(e, dict) or "dur" not in e or e.get("cat") in (None, "Trace"):
                continue
            st = (e.get("args") or {}).get("stream", -1) if isinstance(e.get("args"), dict) else -1
            key = (e.get("name"), st != -1)
            if seen.setdefault(key, e["cat"]) != e["cat"]:
                return True
    return False


def more_commands(c):
    """The commands beyond compare and ops that a case's selection allows."""
    cmds = [["compare", "--format", "json"], ["compare", "--stats", "--format", "csv"]]
    cmds += [["compare", "--per-iteration", "--format", "csv"],
             ["ops", "--per-iteration", "--format", "json"]]
    if c.get("device") == "all" and not c.get("short_names"):  # categories kept
        cmds += [["compare", "--no-python", "--format", "csv"],
                 ["compare", "--cat", "kernel,no_such_category", "--format", "csv"]]
    if c.get("device") == "gpu" and not c.get("short_names"):  # attribution kept
        cmds += [["compare", "--by", "op", "--format", "csv"],
                 ["compare", "--by", "class", "--format", "json"]]
    if c.get("control_iteration") == "all":  # several samples a side: both modes
        cmds += [["compare", "--stats", "--samples", "iteration", "--format", "json"],
                 ["compare", "--stats", "--samples", "call", "--format", "csv"]]
    return cmds


def golden(exe, tmp):
    cases = reference.load(os.path.join(GOLD, "cases.json"))
    ref = reference.expectation_exe(exe)  # the traces' side: tests/cases.py
    # Each set summarized under each duration rule its cases use (--ns: the
    # traces' own resolution), keyed (set, ns).
    sets = sorted({(os.path.join(GOLD, c[k]), bool(c.get("ns")))
                   for c in cases for k in ("control", "test")})
    summ = {}
    for i, (s, ns) in enumerate(sets):
        out = os.path.join(tmp, "set%d%s.tdsum" % (i, "ns" if ns else ""))
        rule = ["--ns"] if ns else []
        rc, _, err = run(exe, "summarize", s, "-o", out, *rule)
        if rc == 0:
            summ[s, ns] = out
            a = run(ref, "info", s, "--format", "json", *rule)
            b = run(exe, "info", out, "--format", "json", *rule)
            check("info %s%s" % (os.path.relpath(s, GOLD), " --ns" if ns else ""), a[:2] == b[:2])
            a, b = run(ref, "info", s, *rule), run(exe, "info", out, *rule)
            check("info table %s" % os.path.relpath(s, GOLD),
                  a[0] == b[0] and a[1].replace(s.encode(), b"") ==
                  b[1].replace(out.encode(), b"").replace(s.encode(), b""))
        else:
            summ[s, ns] = s  # its error must then appear the same way

    # compare and ops on every case; the other commands on one case per load
    # key and on the subset's (on every case with TD_TEST_FULL=1)
    every = {c["id"] for c in cases} if reference.full() \
        else reference.loading_representatives(cases)
    if reference.subset_ids() is not None and not reference.full():
        # The instrumented passes: compare and ops still read every summary
        # of the subset; the other commands run once per list of them that
        # a case's selection allows and duration rule (more_commands), on
        # the first case of the subset that asks for it.
        seen = set()
        for c in cases:
            key = (json.dumps(more_commands(c)), bool(c.get("ns")), bool(c.get("hta_strict")))
            if key in seen:
                every.discard(c["id"])
            seen.add(key)

    def one(c):
        ns = bool(c.get("ns"))
        ct, tt = os.path.join(GOLD, c["control"]), os.path.join(GOLD, c["test"])
        res = []
        cmds = [["compare", "--format", "csv"], ["ops", "--format", "json"]]
        if c["id"] in every:
            cmds += more_commands(c)
        base = os.path.join(GOLD, c["id"])
        for cmd in cmds:
            sel = selection(c)
            b = run(exe, cmd[0], summ[ct, ns], summ[tt, ns], *(cmd[1:] + sel + ["-q"]))
            if c["id"] not in every and reference.subset_ids() is None and cmd[:2] in (["compare", "--format"], ["ops", "--format"]) \
                    and not os.path.exists(base + ".error.txt"):
                # The plain pass, beyond the cases that check a way of
                # loading: matched with HTA's outputs as golden_test.py
                # matches the traces' (the same columns, numbers, rows and
                # lists) instead of running the CLI on the traces again.
                ref_file = base + (".csv" if cmd[0] == "compare" else ".ops.json")
                if os.path.exists(ref_file):
                    if b[0] != 0:
                        problem = "exit %d: %s" % (b[0], b[2].strip()[:200])
                    elif cmd[0] == "compare":
                        problem = golden_test.compare_csv(b[1].decode("utf-8", "surrogateescape"),
                                                          ref_file)
                    else:
                        problem = golden_test.compare_ops(b[1], ref_file)
                    res.append(("%s %s (against HTA's output)" % (c["id"], " ".join(cmd)),
                                problem is None, problem or ""))
                    continue
            a = run(ref, cmd[0], ct, tt, *(cmd[1:] + sel + ["-q"]))
            if b[0] == 1 and "each event's category" in b[2]:
                # a summary of a file whose names have two categories on one
                # side refuses --cat: only then
                mixed = [p for p in (ct, tt) if two_categories_on_a_side(p)]
                res.append(("%s %s: refused only for sets of mixed categories" %
                            (c["id"], " ".join(cmd)), bool(mixed), b[2][:200]))
                continue
            res.append(("%s %s" % (c["id"], " ".join(cmd)), a[0] == b[0] and a[1] == b[1],
                        "rc %d/%d %s" % (a[0], b[0], b[2].strip()[:200])))
        return res

    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        for res in ex.map(one, cases):
            for r in res:
                check(*r)
    return summ


def ns_rule(exe, tmp):
    """A summary holds one duration rule: comparing it under the other is one
    clear error naming it and the fix, exit 1; a summary of whole-us traces
    answers both rules; --cat on a summary of a file whose names have two
    categories on one side is refused (its events' own are not kept)."""
    bert = os.path.join(GOLD, "traces", "tracelens-bert_h100")
    whole = os.path.join(GOLD, "traces", "hta-trace_diff", "control")
    for ns in (False, True):
        rule = ["--ns"] if ns else []
        other = [] if ns else ["--ns"]
        out = os.path.join(tmp, "rule%d.tdsum" % ns)
        check("summarize %s" % " ".join(rule), run(exe, "summarize", bert, "-o", out, *rule)[0] == 0)
        rc, o, err = run(exe, "compare", out, out, "--format", "csv", *other)
        lines = err.strip().splitlines()
        want = "summarize the traces again with --ns" if not ns else "made with --ns"
        check("summary made %s --ns, compared %s it: one error, exit 1" %
              ("with" if ns else "without", "without" if ns else "with"),
              rc == 1 and o == b"" and len(lines) == 1 and out in lines[0] and want in lines[0],
              "rc %d %r" % (rc, err))
        rc, o, err = run(exe, "compare", out, bert, "--format", "csv", "-q", *rule)
        rc2, o2, _ = run(REF, "compare", bert, bert, "--format", "csv", "-q", *rule)
        check("summary made %s --ns compared under its rule" % ("with" if ns else "without"),
              rc == rc2 == 0 and o == o2 and o, err)
        w = os.path.join(tmp, "whole%d.tdsum" % ns)
        run(exe, "summarize", whole, "-o", w, *rule)
        a = run(exe, "compare", w, w, "--format", "csv", "-q", *other)
        b = run(REF, "compare", whole, whole, "--format", "csv", "-q", *other)
        check("whole-us summary answers both rules", a[0] == 0 and a[1] == b[1] and a[1], a[2])
    noisy = os.path.join(ROOT, "tests", "data", "noisy", "control")
    m = os.path.join(tmp, "mixed.tdsum")
    run(exe, "summarize", noisy, "-o", m)
    rc, _, err = run(exe, "compare", m, m, "--cat", "cpu_op", "--format", "csv")
    check("--cat on a summary of mixed categories: refused, naming the summary",
          rc == 1 and m in err and "need the trace files" in err, "rc %d %r" % (rc, err))
    rc, o, err = run(exe, "compare", m, m, "--format", "csv", "-q")
    check("the same summary without --cat", rc == 0 and o, err)


def three_runs(exe, tmp):
    h = os.path.join(tmp, "h.tdsum")
    c = os.path.join(GOLD, "traces/hta-trace_diff/control")
    t = os.path.join(GOLD, "traces/hta-trace_diff/test")
    two = os.path.join(GOLD, "traces/hta-two_ranks")
    for name, s in (("a", c), ("b", t), ("c", two)):
        rc, _, err = run(exe, "summarize", s, "-o", h, "--run", name)
        check("append run %s" % name, rc == 0, err)
    rc, out, _ = run(exe, "runs", h, "--format", "json")
    runs = json.loads(out) if rc == 0 else []
    check("runs lists 3", [r["name"] for r in runs] == ["a", "b", "c"], str(runs)[:200])
    check("runs: source hash", sqlite3.connect(h).execute(
        "SELECT sha256 FROM files JOIN runs USING (run_id) WHERE name = 'a'").fetchone()[0] ==
        hashlib.sha256(open(os.path.join(c, "control.json.gz"), "rb").read()).hexdigest())
    for fmt in ("csv", "json"):
        a = run(REF, "compare", c, t, "--format", fmt, "--control-iteration", "all", "-q")
        b = run(exe, "compare", h + "#a", h + "#b", "--format", fmt, "--control-iteration", "all", "-q")
        check("H#a vs H#b %s" % fmt, a[:2] == b[:2])
    rc, out, _ = run(exe, "ops", h + "#a", h + "#b", "--format", "json")
    check("ops from H#a H#b", rc == 0 and out == run(REF, "ops", c, t, "--format", "json")[1])
    ok = subprocess.run(["sqlite3", h, "PRAGMA integrity_check"], capture_output=True, text=True)
    check("integrity_check", ok.stdout.strip() == "ok", ok.stdout + ok.stderr)
    # The same name again: an error unless --replace.
    rc, _, err = run(exe, "summarize", two, "-o", h, "--run", "c")
    check("existing run refused", rc == 2 and "already holds a run named 'c'" in err, err)
    rc, _, err = run(exe, "summarize", two, "-o", h, "--run", "c", "--replace")
    rc2, out, _ = run(exe, "runs", h, "--format", "json")
    check("--replace", rc == 0 and [r["name"] for r in json.loads(out)] == ["a", "b", "c"], err)
    # Report from summaries: the same page, its flame graph and Why section
    # included (summaries keep stacks and shapes: tests/summary_stacks_test.py),
    # but for the note on HTA's rounding: its moved rows need each event's
    # own duration, which a summary does not keep; docs/numbers.md.
    def page(r):
        data = re.sub(rb'<li class="rounding">[^<]*</li>\n', b"", r[1])
        return data.replace(b'<h2>Notes</h2>\n<ul class="notes" id="notes">\n</ul>\n', b"")
    ra = run(REF, "report", c, t, "-o", "-")
    rb = run(exe, "report", h + "#a", h + "#b", "-o", "-")
    check("report identical", ra[0] == 0 and page(ra) == page(rb))
    check("report from summaries: the flame graph drawn from their stacks",
          b'id="td-flame-data"' in rb[1] and b'id="td-flame-data"' in ra[1])
    sel = ["--control-iteration", "all", "--per-iteration", "-q"]
    ra = run(REF, "report", c, t, "-o", "-", *sel)
    rb = run(exe, "report", h + "#a", h + "#b", "-o", "-", *sel)
    check("report --per-iteration identical", ra[0] == 0 and page(ra) == page(rb), rb[2][:200])
    ra = run(REF, "plot", "counts", c, t, "-o", "-", *sel)
    rb = run(exe, "plot", "counts", h + "#a", h + "#b", "-o", "-", *sel)
    check("plot --per-iteration identical", ra[0] == 0 and ra[1] == rb[1], rb[2][:200])
    ra = run(REF, "compare", c, t, "--cat", "kernal")
    rb = run(exe, "compare", h + "#a", h + "#b", "--cat", "kernal")
    check("unknown --cat: the same usage error from summaries",
          ra[0] == 2 and ra == rb and "category kernal (they have: " in ra[2], rb[2][:200])
    # Trend.
    rc, out, err = run(exe, "trend", h, "--format", "json", "--top", "5")
    check("trend json", rc == 0 and len(json.loads(out)["names"]) == 5 if rc == 0 else False, err)
    svg = os.path.join(tmp, "trend.svg")
    rc, _, err = run(exe, "trend", h, "--runs", "a,b", "--top", "8", "-o", svg)
    lint = subprocess.run(["xmllint", "--noout", svg], capture_output=True) if rc == 0 else None
    check("trend svg", rc == 0 and lint is not None and lint.returncode == 0, err)
    # The same chart through cairo: a PNG of the SVG's size, a PDF.
    png, pdf = os.path.join(tmp, "trend.png"), os.path.join(tmp, "trend.pdf")
    rc, _, err = run(exe, "trend", h, "--runs", "a,b", "--top", "8", "-o", png)
    b = open(png, "rb").read() if rc == 0 else b""
    check("trend png", rc == 0 and b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR" and
          (int.from_bytes(b[16:20], "big"), int.from_bytes(b[20:24], "big")) == (960, 540), err)
    rc, _, err = run(exe, "trend", h, "--top", "8", "--device", "gpu", "-o", pdf)
    check("trend pdf", rc == 0 and open(pdf, "rb").read(5) == b"%PDF-", err)
    leftovers = [f for f in os.listdir(tmp) if ".tmp" in f]
    check("trend charts leave no temporary file", not leftovers, repr(leftovers))
    return h


def partial_and_raw(exe, tmp):
    two = os.path.join(GOLD, "traces/hta-two_ranks")
    p = os.path.join(tmp, "part.tdsum")
    rc, _, err = run(exe, "summarize", two, "-o", p, "--rank", "1", "--device", "gpu")
    check("partial summarize", rc == 0, err)
    a = run(REF, "compare", two, two, "--control-rank", "1", "--test-rank", "1", "--device", "gpu", "--format", "csv", "-q")
    b = run(exe, "compare", p, p, "--control-rank", "1", "--test-rank", "1", "--device", "gpu", "--format", "csv", "-q")
    check("partial answers what it keeps", a[:2] == b[:2])
    dec = os.path.join(ROOT, "tests/data/summary_decimal.json")
    d = os.path.join(tmp, "dec.tdsum")
    run(exe, "summarize", dec, "-o", d)
    enc = sqlite3.connect(d).execute("SELECT encoding FROM files").fetchone()[0]
    check("decimal durations use the raw encoding", enc == "raw", enc)
    for sel in ([], ["--short-names"], ["--short-names", "--control-iteration", "all", "--test-iteration", "all"],
                ["--hta-strict", "--short-names", "--device", "gpu"]):
        for fmt in ("csv", "json"):
            a = run(REF, "compare", dec, dec, "--format", fmt, "-q", *sel)
            b = run(exe, "compare", d, d, "--format", fmt, "-q", *sel)
            check("raw encoding %s %s" % (fmt, " ".join(sel)), a[:2] == b[:2])
    return p


def bad_inputs(exe, tmp, h, part):
    good = os.path.join(tmp, "h.tdsum")
    newer = os.path.join(tmp, "newer.tdsum")
    shutil.copy(good, newer)
    con = sqlite3.connect(newer)
    con.execute("PRAGMA user_version = 99")
    con.commit()
    con.close()
    trunc = os.path.join(tmp, "trunc.tdsum")
    open(trunc, "wb").write(open(good, "rb").read()[:3000])
    short = os.path.join(tmp, "short.tdsum")
    open(short, "wb").write(b"SQLite form")
    notsql = os.path.join(tmp, "notsql.tdsum")
    open(notsql, "wb").write(b'{"traceEvents": []}' * 10)
    cases = [
        ("newer schema", [newer + "#a", good + "#b"], newer),
        ("truncated", [trunc, good + "#b"], trunc),
        ("short", [short, good + "#b"], short),
        ("not sqlite", [notsql, good + "#b"], notsql),
        ("missing run", [good + "#nope", good + "#b"], good),
        ("no run named", [good, good + "#b"], good),
        ("iteration not kept", [part, part, "--control-rank", "1", "--test-rank", "1", "--device", "all"], part),
        ("rank not kept", [part, part, "--device", "gpu"], part),
    ]
    for name, args, path in cases:
        out = os.path.join(tmp, "out.csv")
        rc, _, err = run(exe, "compare", *args, "-o", out, "-q")
        lines = err.strip().splitlines()
        check("bad %s" % name, rc == 1 and len(lines) == 1 and path in lines[0] and
              not os.path.exists(out), "rc %d: %s" % (rc, err))
    it = os.path.join(tmp, "iter.tdsum")
    two = os.path.join(GOLD, "traces/hta-two_ranks")
    run(exe, "summarize", two, "-o", it, "--iteration", "all")
    rc, _, err = run(exe, "summarize", two, "-o", os.path.join(tmp, "it2.tdsum"), "--iteration", "9999")
    check("summarize: unknown iteration", rc == 2 and not os.path.exists(os.path.join(tmp, "it2.tdsum")), err)
    rc, out, _ = run(exe, "info", two, "--format", "json")
    iters = json.loads(out)["iterations"]
    one = os.path.join(tmp, "one.tdsum")
    run(exe, "summarize", two, "-o", one, "--iteration", str(iters[-1]))
    rc, _, err = run(exe, "compare", one, one, "-q")  # the default is the lowest: not kept
    check("default iteration not kept", rc == 1 and ("iteration %d was not summarized" % iters[0]) in err, err)
    rc, _, err = run(exe, "runs", notsql)
    check("runs of a non-summary", rc == 1 and notsql in err, err)


def run_names(exe, h):
    rc, out, err = run(exe, "runs", h, "--format", "json")
    return [r["name"] for r in json.loads(out)] if rc == 0 else None, err


def killed(exe, tmp):
    """SIGKILL inside the append transaction: TD_TEST_PAUSE_IN_APPEND makes
    summarize write its uncommitted pages into the summary, create a file and
    wait. The rollback journal beside the summary (and the changed bytes)
    prove the kill landed inside the transaction; the earlier runs must survive, the new one must
    not. Without the kill, removing the file lets the same append commit."""
    h = os.path.join(tmp, "k.tdsum")
    flag = os.path.join(tmp, "k.pause")
    journal = h + "-journal"
    big = os.path.join(GOLD, "traces/hta-trace_diff/control")
    run(exe, "summarize", os.path.join(GOLD, "traces/hta-two_ranks"), "-o", h, "--run", "old")
    run(exe, "summarize", os.path.join(GOLD, "traces/hta-two_ranks"), "-o", h, "--run", "older2")
    before = open(h, "rb").read()

    def paused(name):
        env = dict(os.environ, TD_TEST_PAUSE_IN_APPEND=flag)
        p = subprocess.Popen([exe, "summarize", big, "-o", h, "--run", name], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t0 = time.time()
        while not os.path.exists(flag) and p.poll() is None and time.time() - t0 < 300:
            time.sleep(0.01)
        return p

    p = paused("new")
    inside = os.path.exists(flag) and p.poll() is None and os.path.exists(journal)
    check("killed: the writer paused inside its transaction (journal present)", inside)
    p.send_signal(signal.SIGKILL)
    p.wait()
    os.unlink(flag) if os.path.exists(flag) else None
    check("killed: SIGKILL ended it", p.returncode == -signal.SIGKILL, str(p.returncode))
    check("killed: a hot journal was left", os.path.exists(journal))
    check("killed: the summary holds uncommitted pages", open(h, "rb").read() != before)
    names, err = run_names(exe, h)
    check("killed: the earlier runs survive, the new one is gone", names == ["old", "older2"],
          "%r %s" % (names, err))
    check("killed: the journal was rolled back", not os.path.exists(journal))
    ok = subprocess.run(["sqlite3", h, "PRAGMA integrity_check"], capture_output=True, text=True)
    check("killed: integrity_check ok", ok.stdout.strip() == "ok", ok.stdout + ok.stderr)
    check("killed: the file's bytes are as before", open(h, "rb").read() == before)
    rc, _, _ = run(exe, "compare", h + "#old", h + "#older2", "-q")
    check("killed: the old runs still compare", rc == 0)
    # The same append, let go: it commits (the pause was before COMMIT).
    p = paused("new")
    os.unlink(flag) if os.path.exists(flag) else None
    p.wait()
    names, err = run_names(exe, h)
    check("killed: let go, the append commits", p.returncode == 0 and
          names == ["old", "older2", "new"], "%r %s" % (names, err))


def schema1(exe, tmp):
    """A file written with schema 1 (durations interleaved with the group
    heads, no stored totals): runs h100 and mi300 of the bert pair."""
    import gzip
    v1 = os.path.join(tmp, "v1.tdsum")
    open(v1, "wb").write(gzip.open(os.path.join(ROOT, "tests/data/summary_schema1.tdsum.gz")).read())
    version = lambda: sqlite3.connect(v1).execute("PRAGMA user_version").fetchone()[0]
    check("schema 1 fixture", version() == 1, str(version()))
    h100 = os.path.join(GOLD, "traces/tracelens-bert_h100")
    mi300 = os.path.join(GOLD, "traces/tracelens-bert_mi300")

    def same(label):
        for args in (["compare", "--format", "csv"], ["compare", "--format", "json", "--hta-strict"],
                     ["compare", "--format", "csv", "--stats", "--control-iteration", "all",
                      "--test-iteration", "all", "--short-names"],
                     ["compare", "--format", "csv", "--by", "op", "--device", "gpu"],
                     ["ops", "--format", "json"]):
            a = run(REF, args[0], h100, mi300, "-q", *args[1:])
            b = run(exe, args[0], v1 + "#h100", v1 + "#mi300", "-q", *args[1:])
            check("schema 1 %s: %s" % (label, " ".join(args)), a[0] == 0 and a[:2] == b[:2], b[2])
    same("as written")
    rc, _, err = run(exe, "summarize", h100, "-o", v1, "--run", "new", "-q")
    check("schema 1: a run added", rc == 0 and version() == TD_SCHEMA, "%d %s" % (version(), err))
    same("after a run was added")
    a = run(REF, "compare", h100, mi300, "--format", "csv", "-q")
    b = run(exe, "compare", v1 + "#new", v1 + "#mi300", "--format", "csv", "-q")
    check("schema 1: the new run beside the old", a[:2] == b[:2], b[2])


def damaged_durations(exe, tmp):
    two = os.path.join(GOLD, "traces/hta-two_ranks")
    d = os.path.join(tmp, "damaged.tdsum")
    run(exe, "summarize", two, "-o", d, "-q")
    before = run(exe, "compare", d, d, "--format", "csv", "-q")
    con = sqlite3.connect(d)
    rowid, blob = con.execute("SELECT rowid, packed FROM files WHERE encoding = 'sorted-int' "
                              "ORDER BY rowid LIMIT 1").fetchone()
    blob = bytearray(blob)
    blob[-1] = (blob[-1] + 1) % 0x80  # the last duration changes: no longer its group's total
    con.execute("UPDATE files SET packed = ? WHERE rowid = ?", (bytes(blob), rowid))
    con.commit()
    rc, _, err = run(exe, "compare", d, d, "--format", "csv", "-q")
    check("damaged durations: the checksums refuse the file", rc == 1 and "damaged summary" in err
          and "checksums" in err, "rc %d: %s" % (rc, err))
    # The same damage in a run written without checksums (schema 2): the
    # durations' own check, when they are decoded, is what finds it.
    con.executescript("DROP TABLE checksums; DELETE FROM meta WHERE key = 'checksums_from';"
                      "PRAGMA user_version = 2;")
    con.close()
    after = run(exe, "compare", d, d, "--format", "csv", "-q")
    check("damaged durations: totals still answer", before[0] == 0 and after[:2] == before[:2], after[2])
    for args in (["compare", d, d, "--stats", "--control-iteration", "all", "--test-iteration", "all"],
                 ["info", d]):
        out = os.path.join(tmp, "damaged.txt")
        rc, _, err = run(exe, *args, "-o", out, "-q")
        lines = err.strip().splitlines()
        check("damaged durations: %s" % args[0], rc == 1 and len(lines) == 1 and d in lines[0] and
              "damaged summary" in lines[0] and not os.path.exists(out), "rc %d: %s" % (rc, err))


def main():
    global REF
    exe = os.path.abspath(sys.argv[1])
    REF = reference.expectation_exe(exe)
    tmp = tempfile.mkdtemp(prefix="td-summary-")
    try:
        golden(exe, tmp)
        ns_rule(exe, tmp)
        h = three_runs(exe, tmp)
        part = partial_and_raw(exe, tmp)
        bad_inputs(exe, tmp, h, part)
        schema1(exe, tmp)
        damaged_durations(exe, tmp)
        killed(exe, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("summary: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""What tracediff writes when names and labels are hostile, and how its output
files end (docs/errors.md, "Hostile names" and "Output files").

    output_safety_test.py TRACEDIFF

The sets are a real trace (TraceLens' bert on an H100), its busiest ops and
kernels renamed to hostile text: ESC sequences (CSI, OSC with BEL), U+009B, bidi
overrides and isolates, '|' and newlines, HTML with a script, and CSV formula
starts (= + - @ TAB CR); the test side runs them slower, so that `check` finds
regressions among them. Checks:
- every table (compare, ops, runs, trend, info, explain, check) holds no
  control character, DEL, C1 control or bidi control, but the escapes;
- markdown keeps one row per line and its columns whatever '|' a name holds;
- the HTML report escapes hostile labels and names, the section "Where the
  GPU time moved" included;
- CSV is exact by default and prefixes formula text with --csv-safe only;
- SIGINT, SIGTERM and SIGHUP while a large output is written leave no
  temporary file, and the process dies by the signal;
- a FIFO in a set directory is refused at once, named;
- a full disk (/dev/full, or a file size limit) gives the file and the reason.
"""
import csv, glob, gzip, io, json, os, re, resource, shutil, signal, stat, subprocess, sys
import tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BERT = os.path.join(ROOT, "tests/golden/traces/tracelens-bert_h100")

ESC_NAME = "esc\x1b[2J\x1b]0;pwned\x07title"
HOSTILE = [
    ESC_NAME,
    "csi\u009b31mred",
    "bidi\u202egnp.exe\u2066iso\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d",
    "pipe|name\nsecond line\r",
    "<img src=x onerror=alert(1)>",
    "=HYPERLINK(\"http://x\",\"y\")",
    "+1+2",
    "-3+4",
    "@SUM(A1:A2)",
    "\ttab first",
    "\rcr first",
    "del\x7fname",
]
FORMULA = [n for n in HOSTILE if n[0] in "=+-@\t\r"]
LABEL_C = "<img src=x onerror=alert(1)>|c\n\x1b]0;x\x07"
LABEL_T = "<script>alert(2)</script>\u202et"

# What no table may hold: C0 controls but the line end, DEL, C1 controls,
# bidirectional controls.
BAD = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL output-safety " + name + (": " + str(detail)[:400] if detail else ""))
    return ok


def run(exe, *args, **kw):
    p = subprocess.run([exe, *args], cwd=kw.pop("cwd", ROOT), capture_output=True,
                       timeout=kw.pop("timeout", 120), **kw)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def load(path):
    f = glob.glob(os.path.join(path, "*.json*"))[0]
    with (gzip.open(f, "rt") if f.endswith(".gz") else open(f)) as fh:
        return json.load(fh)


def hostile_sets(tmp):
    """The trace twice, its busiest cpu_ops and kernels renamed."""
    ctl = load(BERT)
    tst = json.loads(json.dumps(ctl))
    counts = {}
    for e in ctl["traceEvents"]:
        if e.get("cat") in ("cpu_op", "kernel") and e.get("ph") == "X":
            counts[e["name"]] = counts.get(e["name"], 0) + 1
    busiest = sorted(counts, key=lambda n: (-counts[n], n))
    ops = [n for n in busiest if not n.startswith("void ")][:len(HOSTILE) - 2]
    kernels = [n for n in busiest if n.startswith("void ")][:2]
    rename = dict(zip(ops + kernels, HOSTILE))
    # A set directory whose name is hostile too: info and compare print it.
    dirs = []
    # The test side runs every other hostile name twice as long, the rest in
    # half the time.
    scale = {new: 2 if i % 2 == 0 else 0.5 for i, new in enumerate(HOSTILE)}
    for side, d, test in (("control\x1b[7m", ctl, False), ("test", tst, True)):
        for e in d["traceEvents"]:
            if e.get("name") in rename:
                e["name"] = rename[e["name"]]
                if test and "dur" in e:
                    e["dur"] = e["dur"] * scale[e["name"]]
        path = os.path.join(tmp, side)
        os.makedirs(path)
        with open(os.path.join(path, "trace.json"), "w") as fh:
            fh.write(json.dumps(d))
        dirs.append(path)
    return dirs, rename


def clean_table(name, out, want=()):
    bad = BAD.search(out)
    check(name + ": no control or bidi character", bad is None,
          bad and repr(out[max(0, bad.start() - 40):bad.end() + 20]))
    for w in want:
        check(name + ": shows " + w, w in out, out[:300])


def tables(exe, c, t, tmp):
    labels = ["--control-label", LABEL_C, "--test-label", LABEL_T]
    rc, out, err = run(exe, "compare", c, t, "--format", "table", *labels)
    check("compare table: exit 0", rc == 0, err)
    clean_table("compare table", out, ["esc\\x1b[2J\\x1b]0;pwned\\x07title", "csi\\x9b31mred",
                                       "bidi\\u202egnp.exe", "pipe|name\\x0asecond line",
                                       "del\\x7fname", "\\x1b]0;x\\x07", "\\u202et"])
    clean_table("compare stderr", err)
    rc, out, err = run(exe, "compare", c, t, "--format", "table", "--by", "op", *labels)
    clean_table("compare --by op table", out)
    rc, out, err = run(exe, "compare", c, t, "--format", "table", "--explain-names",
                       "--normalize-names")
    clean_table("compare --explain-names", out)
    rc, out, err = run(exe, "ops", c, t, "--format", "table")
    check("ops table: exit 0", rc == 0, err)
    clean_table("ops table", out, ["esc\\x1b[2J"])
    rc, out, err = run(exe, "info", c, "--format", "table")
    check("info table: exit 0", rc == 0, err)
    clean_table("info table", out, ["control\\x1b[7m"])
    rc, out, err = run(exe, "explain", c, t, ESC_NAME, "--format", "table", *labels)
    check("explain table: exit 0", rc == 0, err)
    clean_table("explain table", out, ["esc\\x1b[2J"])
    rc, out, err = run(exe, "check", c, t, *labels)
    check("check: regressions found (exit 3)", rc == 3, err)
    # The regressions are some of the hostile names: shown with escapes.
    clean_table("check table", out, ["\\x0dcr first"])
    # runs and trend: run names and names from a summary.
    s = os.path.join(tmp, "h.tdsum")
    for side, run_name in ((c, "base\x1b]0;t\x07\u202e"), (t, "=next|run")):
        rc, _, err = run(exe, "summarize", side, "-o", s, "--run", run_name, "-q")
        check("summarize " + repr(run_name), rc == 0, err)
    rc, out, err = run(exe, "runs", s, "--format", "table")
    check("runs table: exit 0", rc == 0, err)
    clean_table("runs table", out, ["base\\x1b]0;t\\x07\\u202e"])
    rc, out, err = run(exe, "trend", s, "--format", "table")
    check("trend table: exit 0", rc == 0, err)
    clean_table("trend table", out, ["esc\\x1b[2J", "base\\x1b]0;t\\x07\\u202e"])
    return s


def md_cells(line):
    """The cells of a markdown table row: split at '|' not escaped."""
    return re.split(r"(?<!\\)\|", line.strip())[1:-1]


def markdown(exe, c, t):
    labels = ["--control-label", LABEL_C, "--test-label", LABEL_T]
    for what, args in (("compare", ["compare", c, t, "--format", "markdown", *labels]),
                       ("check", ["check", c, t, "--format", "markdown", *labels])):
        rc, out, err = run(exe, *args)
        clean_table(what + " markdown", out)
        rows = [ln for ln in out.split("\n") if ln.startswith("|")]
        widths = {len(md_cells(r)) for r in rows}
        check(what + " markdown: every row has the header's columns", len(widths) == 1 and
              len(rows) > 2, widths)
        names = "\n".join(rows)
        want = "pipe\\|name\\x0asecond line" if what == "compare" else "`\\x0dcr first`"
        check(what + " markdown: the name escaped", want in names, names[:300])
        if what == "compare":
            check("compare markdown: labels escaped in the header",
                  "&lt;" not in rows[0] and "\\|c\\x0a\\x1b]0;x\\x07_counts" in rows[0], rows[0])


def csv_cells(exe, c, t, s):
    base = ["compare", c, t, "--format", "csv"]
    rc, exact, err = run(exe, *base)
    check("csv: exit 0", rc == 0, err)
    rows = list(csv.reader(io.StringIO(exact, newline="")))
    names = {r[0] for r in rows[1:]}
    for n in HOSTILE:
        check("csv by default: exact " + repr(n), n in names, sorted(names)[:5])
    rc, safe, err = run(exe, *base, "--csv-safe", "--control-label", "-ctl")
    srows = list(csv.reader(io.StringIO(safe, newline="")))
    snames = {r[0] for r in srows[1:]}
    for n in FORMULA:
        check("--csv-safe: ' before " + repr(n), "'" + n in snames and n not in snames)
    for n in set(HOSTILE) - set(FORMULA):
        check("--csv-safe: untouched " + repr(n), n in snames)
    check("--csv-safe: exit 0", rc == 0 and srows != [], err)
    check("--csv-safe: a label is text", srows[:1] and srows[0][1] == "'-ctl_counts", srows[:1])
    # Numbers stay numbers, negative ones included; every row otherwise equal.
    neg = [r for r in rows[1:] if r[6].startswith("-")]
    check("csv: some diff_duration negative", neg != [])
    by = {r[0].lstrip("'") if r[0][1:] in FORMULA else r[0]: r[1:] for r in srows[1:]}
    check("--csv-safe: numbers and categories as without it",
          all(by.get(r[0]) == r[1:] for r in rows[1:]))
    rc, out, _ = run(exe, "ops", c, t, "--format", "csv", "--csv-safe")
    check("ops --csv-safe", "unchanged,'=HYPERLINK" in out or "'=HYPERLINK" in out, out[:200])
    rc, out, _ = run(exe, "runs", s, "--format", "csv", "--csv-safe")
    check("runs --csv-safe: run name", "\n'=next|run," in out, out)
    rc, out, _ = run(exe, "runs", s, "--format", "csv")
    check("runs csv: run name exact", "\n=next|run," in out, out)
    rc, out, _ = run(exe, "trend", s, "--format", "csv", "--csv-safe")
    check("trend --csv-safe: names and runs", ",'=next|run," in out and "\n'+1+2," in out,
          out[:200])


def report(exe, c, t, tmp):
    out = os.path.join(tmp, "r.html")
    rc, _, err = run(exe, "report", c, t, "-o", out, "-q", "--control-label", LABEL_C,
                     "--test-label", LABEL_T)
    check("report: exit 0", rc == 0, err)
    with open(out, encoding="utf-8") as f:
        page = f.read()
    check("report: the attribution section is there", 'id="moved-ops"' in page)
    check("report: no raw <img", "<img" not in page)
    check("report: no raw <script>alert", "<script>alert" not in page)
    check("report: labels escaped in the moved tables",
          re.search(r'id="moved-ops"><thead><tr><th>[^<]*</th><th>&lt;img src=x', page) is not None
          and "<th>&lt;script&gt;alert(2)&lt;/script&gt;" in page)
    check("report: no ESC or BEL", "\x1b" not in page and "\x07" not in page)


def spawn_dfl():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


def big_set(tmp):
    """A large set from a real trace: its cpu_ops repeated with a name per
    copy, so that outputs have many rows and take a while."""
    ev = [e for e in load(BERT)["traceEvents"]
          if e.get("cat") == "cpu_op" and e.get("ph") == "X"][:2000]
    path = os.path.join(tmp, "big")
    os.makedirs(path)
    parts = ['{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","ts":0,'
             '"dur":1000000000,"pid":1,"tid":1}']
    for k in range(60):
        for i, e in enumerate(ev):
            parts.append('{"ph":"X","cat":"cpu_op","name":%s,"ts":%d,"dur":%d,"pid":1,"tid":1}'
                         % (json.dumps("%s#%d" % (e["name"], (k * 2000 + i) % 70000)),
                            10 + (k * 2000 + i) * 5, max(1, int(e["dur"]))))
    with open(os.path.join(path, "r.json"), "w") as f:
        f.write('{"traceEvents":[' + ",".join(parts) + "]}")
    return path


def interrupt(exe, name, sig, out, args):
    """Runs the command until its temporary file appears, then sends sig.
    On a busy machine the signal can land after the command renamed its
    temporary file into place (it was then writing nothing): that attempt
    interrupted nothing, so it runs again; if every attempt is that late,
    the output there must be the whole one, as an uninterrupted run writes
    it."""
    late = False
    for attempt in range(5):
        for f in glob.glob(out + "*"):
            os.unlink(f)
        p = subprocess.Popen([exe, *args, "-o", out, "-q"], cwd=ROOT, preexec_fn=spawn_dfl,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sent = False
        deadline = time.time() + 60
        while p.poll() is None and time.time() < deadline:
            if glob.glob(glob.escape(out) + ".tmp*"):
                p.send_signal(sig)
                sent = True
                break
            time.sleep(0.0005)
        rc = p.wait(timeout=60)
        late = sent and os.path.exists(out)
        if sent and not late:
            break
    if not check(name + ": the temporary file was seen", sent, "finished first 5 times"):
        return
    check(name + ": dies by " + sig.name, rc == -sig, rc)
    left = glob.glob(glob.escape(out) + "*")
    if late:
        whole = out + ".whole" + os.path.splitext(out)[1]
        subprocess.run([exe, *args, "-o", whole, "-q"], cwd=ROOT, capture_output=True)
        if out.endswith(".tdsum"):  # a summary: one that opens (it holds the run's time)
            same = subprocess.run([exe, "info", out], capture_output=True).returncode == 0
        else:
            with open(out, "rb") as a, open(whole, "rb") as b:
                same = a.read() == b.read()
        os.unlink(whole)
        check(name + ": no temporary file left; the output, there as the signal came after "
              "its rename in every attempt, is the whole one", left == [out] and same, left)
        return
    check(name + ": no temporary file left, no output", left == [], left)


def signals(exe, tmp):
    big = big_set(tmp)
    sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for sig in sigs:
        interrupt(exe, "summarize " + sig.name, sig, os.path.join(tmp, "s.tdsum"),
                  ["summarize", big])
    interrupt(exe, "compare -o", signal.SIGINT, os.path.join(tmp, "c.csv"),
              ["compare", big, big, "--format", "csv"])
    interrupt(exe, "report -o", signal.SIGTERM, os.path.join(tmp, "r.html"),
              ["report", big, big])


def fifo(exe, c, tmp):
    d = os.path.join(tmp, "fifo_set")
    shutil.copytree(c, d)
    os.mkfifo(os.path.join(d, "waiting.json"))
    for args in (["info", d], ["compare", d, d]):
        try:
            rc, _, err = run(exe, *args, timeout=30)
        except subprocess.TimeoutExpired:
            check(args[0] + " on a set with a FIFO: returns", False, "blocked 30 s")
            continue
        check(args[0] + " on a set with a FIFO: refused, named",
              rc == 1 and "waiting.json: is a FIFO (named pipe), not a trace file" in err, err)


def full_disk(exe, c, t, s, tmp):
    full = "/dev/full"
    if not os.path.exists(full):
        return
    want = "tracediff: /dev/full: cannot write"
    cases = [["check", c, t, "--junit", full], ["check", c, t, "-o", full],
             ["report", c, t, "-o", full], ["compare", c, t, "-o", full],
             ["ops", c, t, "-o", full], ["info", c, "-o", full],
             ["explain", c, t, ESC_NAME, "-o", full], ["runs", s, "-o", full],
             ["trend", s, "-o", full]]
    for args in cases:
        rc, _, err = run(exe, *args, "-q") if args[0] not in ("runs", "trend") else run(exe, *args)
        check(" ".join(a for a in args if a not in (c, t, s)) + ": file and reason",
              rc == 1 and want in err and "No space left on device" in err, err)
    # A chart on a full disk: a file size limit makes the write fail.
    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))
    for args, out in ((["trend", s], "t.svg"), (["plot", "duration", c, t], "p.svg")):
        path = os.path.join(tmp, out)
        p = subprocess.run([exe, *args, "-o", path, "-q"] if args[0] == "plot"
                           else [exe, *args, "-o", path], cwd=ROOT, capture_output=True,
                           preexec_fn=small_files, timeout=120)
        err = p.stderr.decode()
        check(args[0] + " chart past the size limit: file and reason",
              p.returncode == 1 and path in err and "File too large" in err, err)
        check(args[0] + " chart past the size limit: nothing left",
              glob.glob(glob.escape(path) + "*") == [])


def main():
    exe = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="td-outsafe-")
    try:
        (c, t), _ = hostile_sets(tmp)
        s = tables(exe, c, t, tmp)
        markdown(exe, c, t)
        csv_cells(exe, c, t, s)
        report(exe, c, t, tmp)
        fifo(exe, c, tmp)
        full_disk(exe, c, t, s, tmp)
        signals(exe, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("output-safety: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Statistics (compare --stats) and the CI gate (check), through the CLI.

    stats_test.py TRACEDIFF

- SciPy: p-values of real trace pairs against scipy.stats (Welch's
  ttest_ind(equal_var=False) on per-iteration totals that plain `compare`
  prints for one iteration at a time; mannwhitneyu(method='asymptotic') on
  per-call durations found by an independent reading of the traces), with a
  Benjamini-Hochberg written here. Skipped (with a message) when
  /usr/bin/python3 has no SciPy.
- Power and false alarms, A/A: traces made here from one real iteration,
  copied and renumbered, with lognormal noise per call and +-15% injected
  into a fifth of the names.
- check: exit codes, JUnit XML (xmllint), bad input.
"""
import csv, gzip, io, json, math, os, random, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402  (run_once: one process per distinct command)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACES = os.path.join(ROOT, "tests", "golden", "traces")
SYS_PY = "/usr/bin/python3"
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))


def run(exe, *args, env_extra=None):
    env = dict(os.environ, NO_COLOR="1", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    env.update(env_extra or {})
    p = cases.run_once([exe] + list(args), env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def num(s):
    return None if s == "" else float(s)


# ---------------------------------------------------------------------------
# An independent reading of a trace (spec §2-§3), enough for per-call samples.

STEP_RE = re.compile(r"ProfilerStep\s*#\s*(\d+)")


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def load_json(path):
    op = gzip.open if path.endswith(".gz") else open
    floats = []

    def pf(s):
        floats.append(1)
        return float(s)
    with op(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=pf), bool(floats)


def trace_files(path):
    if os.path.isfile(path):
        return [path]
    return sorted(os.path.join(path, f) for f in os.listdir(path)
                  if f.endswith(".json") or f.endswith(".json.gz"))


def read_events(path):
    """Counted events with their iteration (None: none), in file order."""
    doc, _ = load_json(path)
    evs = []
    for idx, e in enumerate(doc["traceEvents"]):
        if not isinstance(e, dict) or "cat" not in e or "dur" not in e or e["cat"] == "Trace":
            continue
        args = e.get("args") or {}
        st = args.get("stream", -1)
        co = args.get("correlation", -1)
        evs.append({"name": e["name"], "cat": e["cat"], "ts": e.get("ts"), "dur": e["dur"],
                    "stream": st if is_int(st) else -1, "corr": co if is_int(co) else -1,
                    "idx": idx})
    if any(not isinstance(e["ts"], int) for e in evs):
        for e in evs:  # spec §2: whole microseconds
            end = math.floor(e["ts"] + e["dur"])
            e["ts"] = math.ceil(e["ts"])
            e["dur"] = end - e["ts"]
    steps = []
    for e in evs:
        if e["name"].startswith("ProfilerStep"):
            m = STEP_RE.search(e["name"])
            if m:
                steps.append((e["ts"], e["dur"], int(m.group(1))))
    host_of = {}
    for e in evs:
        host = e["stream"] < 0 or (e["stream"] == 0 and e["cat"] == "cpu_op")
        e["host"] = host
        if host:
            it = None
            for ts, dur, n in steps:
                if ts <= e["ts"] < ts + dur:
                    it = n
            e["iter"] = it
        if e["corr"] != -1 and not (e["stream"] >= 0 and e["corr"] >= 0) and \
                e["name"] not in ("Event Sync", "Context Sync"):
            host_of[e["corr"]] = e
    for e in evs:
        if not e["host"]:
            h = host_of.get(e["corr"])
            e["iter"] = h["iter"] if h is not None and h["idx"] != 0 else None
    return evs


def call_samples(path):
    """Per name: durations of the calls in any iteration (all iterations selected)."""
    out = {}
    for f in trace_files(path):
        for e in read_events(f):
            if e["iter"] is not None:
                out.setdefault(e["name"], []).append(float(e["dur"]))
    return out


def bh(ps):
    """Benjamini-Hochberg q-values; None stays None."""
    idx = sorted((p, i) for i, p in enumerate(ps) if p is not None)
    m = len(idx)
    q = [None] * len(ps)
    run_min = 1.0
    for k in range(m - 1, -1, -1):
        p, i = idx[k]
        run_min = min(run_min, p * m / (k + 1))
        q[i] = run_min
    return q


def verdict(cn, tn, n0, n1, p, q, cmean, tmean, alpha=0.05, min_change=1.0):
    if cn == 0 and tn > 0:
        return "added"
    if tn == 0 and cn > 0:
        return "removed"
    if n0 < 2 or n1 < 2 or p is None:
        return "n/a"
    if cmean != 0:
        ch = 100 * (tmean - cmean) / cmean
    else:
        ch = math.inf if tmean > cmean else -math.inf if tmean < cmean else 0
    if q <= alpha and ch >= min_change and ch > 0:
        return "slower"
    if q <= alpha and ch <= -min_change and ch < 0:
        return "faster"
    return "noise"


def rel_ok(a, b, tol=1e-6):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= tol * max(abs(b), 1e-300)


# ---------------------------------------------------------------------------
# SciPy cross-checks.

def scipy_check(exe, stats, name, control, test):
    iters_c = iterations(exe, control)
    iters_t = iterations(exe, test)
    sel = ["--control-iteration", "all", "--test-iteration", "all"]
    # iteration mode: samples from plain compare, one iteration at a time
    rc, out, err = run(exe, "compare", control, test, *sel, "--stats", "--samples", "iteration",
                       "--format", "csv", "-q")
    check("%s: compare --stats --samples iteration runs" % name, rc == 0, err)
    rows = csv_rows(out)
    per_c, per_t = {}, {}
    for ic, it in zip(iters_c, iters_t):
        rc, o1, _ = run(cases.expectation_exe(exe), "compare", control, test,
                        "--control-iteration", str(ic),
                        "--test-iteration", str(it), "--format", "csv", "-q")
        for r in csv_rows(o1):
            per_c.setdefault(r["name"], {})[ic] = float(r["control_total_duration"])
            per_t.setdefault(r["name"], {})[it] = float(r["test_total_duration"])
    ps, exp = [], []
    for r in rows:
        a = [per_c.get(r["name"], {}).get(i, 0.0) for i in iters_c]
        b = [per_t.get(r["name"], {}).get(i, 0.0) for i in iters_t]
        if min(a) == max(a) and min(b) == max(b):
            p = 1.0 if a[0] == b[0] else 0.0
        else:
            p = float(stats.ttest_ind(b, a, equal_var=False).pvalue)
        ps.append(p)
        exp.append((a, b))
    compare_rows(name + " iteration", rows, ps, exp, len(iters_c), len(iters_t))
    # call mode: per-call durations read here
    rc, out, err = run(exe, "compare", control, test, *sel, "--stats", "--samples", "call",
                       "--format", "csv", "-q")
    check("%s: compare --stats --samples call runs" % name, rc == 0, err)
    rows = csv_rows(out)
    sc, stt = call_samples(control), call_samples(test)
    ps, exp = [], []
    for r in rows:
        a, b = sc.get(r["name"], []), stt.get(r["name"], [])
        if len(a) < 2 or len(b) < 2:
            p = None
        elif len(set(a + b)) == 1:
            p = 1.0
        else:
            p = float(stats.mannwhitneyu(b, a, method="asymptotic",
                                         alternative="two-sided").pvalue)
        ps.append(p)
        exp.append((a, b))
    compare_rows(name + " call", rows, ps, exp, None, None)


def compare_rows(name, rows, ps, exp, nc, nt):
    qs = bh(ps)
    bad_p, bad_v, bad_n = [], [], []
    for r, p, q, (a, b) in zip(rows, ps, qs, exp):
        n0, n1 = int(r["control_n"]), int(r["test_n"])
        if (n0, n1) != (len(a), len(b)) or (nc is not None and (n0, n1) != (nc, nt)):
            bad_n.append((r["name"], n0, n1, len(a), len(b)))
        if not rel_ok(num(r["p_value"]), p):
            bad_p.append((r["name"], r["p_value"], p))
        cm = sum(a) / len(a) if a else 0.0
        tm = sum(b) / len(b) if b else 0.0
        v = verdict(int(r["control_counts"]), int(r["test_counts"]), len(a), len(b), p, q, cm, tm)
        if v != r["verdict"]:
            bad_v.append((r["name"], r["verdict"], v, r["q_value"], q))
    withp = sum(p is not None for p in ps)
    check("%s: sample counts agree (%d rows)" % (name, len(rows)), not bad_n, bad_n[:3])
    check("%s: p-values agree with SciPy to 1e-6 (%d with p)" % (name, withp),
          not bad_p and withp > 10, bad_p[:3])
    check("%s: verdicts agree" % name, not bad_v, bad_v[:3])


def iterations(exe, path):
    # instrumented in every pass: in the subset's suites info's JSON writer
    # runs here only (line coverage per folder, src/present/info_json.c)
    rc, out, _ = run(exe, "info", path, "--format", "json")
    return json.loads(out)["iterations"]


# ---------------------------------------------------------------------------
# Generated traces: K renumbered copies of one real iteration, with noise.

def base_iteration(path, it):
    """The real trace's events of iteration it, and its metadata events."""
    doc, _ = load_json(path)
    evs = read_events(path)
    keep = {e["idx"] for e in evs if e["iter"] == it}
    raw = doc["traceEvents"]
    body = [raw[i] for i in sorted(keep)]
    meta = [e for e in raw if isinstance(e, dict) and e.get("ph") == "M"]
    other = {k: v for k, v in doc.items() if k != "traceEvents"}
    return other, meta, body


class Copies:
    """One iteration's events written again and again as JSON text, each copy
    shifted by a span, renumbered and with durations of the caller's: the
    bytes json.dumps writes for the copied dicts, without copying them (each
    event is encoded once, with holes for what a copy changes)."""
    HOLE = "\ue000hole\ue000"

    def __init__(self, base):
        self.other, self.meta, self.body = other, meta, body = base
        t0 = min(e["ts"] for e in body)
        self.span = max(e["ts"] + e["dur"] for e in body) - t0 + 10
        self.maxcorr = max([(e.get("args") or {}).get("correlation", 0) for e in body
                            if is_int((e.get("args") or {}).get("correlation", 0))] + [0])
        hole = json.dumps(self.HOLE)
        self.parts = []  # per event: its text split at the holes
        self.holes = []  # per event: what fills each hole, in order
        for e in body:
            e2, fill = dict(e), []
            for k in e2:  # json.dumps writes the keys in this order
                if k == "ts":
                    e2[k] = self.HOLE
                    fill.append(("ts", e["ts"]))
                elif k == "dur":
                    e2[k] = self.HOLE
                    fill.append(("dur", None))
                elif k == "name" and e["name"].startswith("ProfilerStep"):
                    e2[k] = self.HOLE
                    fill.append(("step", None))
                elif k == "args" and isinstance(e[k], dict):
                    a = dict(e[k])
                    for ak in a:
                        if ak in ("correlation", "External id", "external id") and \
                                is_int(a[ak]) and a[ak] > 0:
                            a[ak] = self.HOLE
                            fill.append(("id", e[k][ak]))
                    e2[k] = a
            self.parts.append(json.dumps(e2).split(hole))
            self.holes.append(fill)

    def write(self, out, durs_of_copy):
        """Writes the trace, one copy per item of durs_of_copy: copy c's
        durations, one per event of the iteration, in order."""
        os.makedirs(os.path.dirname(out), exist_ok=True)
        enc = json.encoder.encode_basestring_ascii

        def num(v):  # as json.dumps writes a number
            if type(v) is int:
                return int.__repr__(v)
            return float.__repr__(v) if type(v) is float and math.isfinite(v) else json.dumps(v)
        with open(out, "w") as f:
            doc = dict(self.other)
            doc["traceEvents"] = []
            head = json.dumps(doc)
            f.write(head[:-2])  # ...[ and ]} after the events
            first = True
            for e in self.meta:
                f.write(("" if first else ", ") + json.dumps(e))
                first = False
            for c in range(len(durs_of_copy)):
                durs = durs_of_copy[c]
                shift, idshift = c * self.span, c * (self.maxcorr + 1)
                step = enc("ProfilerStep#%d" % (c + 1))
                buf = []
                for parts, fill, d in zip(self.parts, self.holes, durs):
                    out_ = [parts[0]]
                    for (kind, v), tail in zip(fill, parts[1:]):
                        if kind == "ts":
                            out_.append(num(v + shift))
                        elif kind == "dur":
                            out_.append(num(d))
                        elif kind == "step":
                            out_.append(step)
                        else:
                            out_.append(str(v + idshift))
                        out_.append(tail)
                    buf.append("".join(out_))
                if buf:
                    f.write(("" if first else ", ") + ", ".join(buf))
                    first = False
            f.write(head[-2:])


_COPIES = {}


def copies_of(base):
    """base's Copies, made once per suite (the value keeps base, so its id
    stays its own)."""
    if id(base) not in _COPIES:
        _COPIES[id(base)] = (base, Copies(base))
    return _COPIES[id(base)][1]


def make_trace(base, copies, seed, sigma, inject, out):
    t = copies_of(base)
    rng = random.Random(seed)
    durs = []
    for c in range(copies):
        d = []
        for e in t.body:
            if e["name"].startswith("ProfilerStep"):
                d.append(e["dur"])
            else:
                f = math.exp(rng.gauss(0, sigma)) * inject.get(e["name"], 1.0)
                d.append(e["dur"] * f)
        durs.append(d)
    t.write(out, durs)


def stats_csv(exe, c, t, *extra):
    rc, out, err = run(exe, "compare", c, t, "--control-iteration", "all", "--test-iteration",
                       "all", "--stats", "--format", "csv", "-q", *extra)
    return rc, csv_rows(out), err


def flagged(rows):
    return [r for r in rows if r["verdict"] in ("slower", "faster")]


def generated(exe, tmp):
    src = os.path.join(TRACES, "kineto-resnet50_workers0")
    path = trace_files(src)[0]
    base = base_iteration(path, 7)
    names = sorted({e["name"] for e in base[2] if not e["name"].startswith("ProfilerStep")})
    rng = random.Random(11)
    picked = rng.sample(names, len(names) // 5)
    inject = {n: (1.15 if i % 2 == 0 else 0.85) for i, n in enumerate(picked)}
    K = 8
    ctl = os.path.join(tmp, "control", "c.json")
    tst = os.path.join(tmp, "test", "t.json")
    aa = os.path.join(tmp, "aa", "a.json")
    make_trace(base, K, 1, 0.04, {}, ctl)
    make_trace(base, K, 2, 0.04, inject, tst)
    make_trace(base, K, 3, 0.04, {}, aa)
    d_ctl, d_tst, d_aa = map(os.path.dirname, (ctl, tst, aa))

    # Power and false alarms (default samples: iteration, 8 a side)
    rc, rows, err = stats_csv(exe, d_ctl, d_tst)
    check("generated: compare --stats runs", rc == 0, err)
    check("generated: default samples are per iteration",
          rows and all(r["samples"] == "iteration" and r["control_n"] == str(K) for r in rows))
    by = {r["name"]: r for r in rows}
    found = sum(1 for n, f in inject.items()
                if by.get(n, {}).get("verdict") == ("slower" if f > 1 else "faster"))
    untouched = [r for r in rows if r["name"] not in inject]
    false = [r["name"] for r in flagged(untouched)]
    print("     power: %d of %d injected names found; %d of %d untouched flagged"
          % (found, len(inject), len(false), len(untouched)))
    check("power: >= 75%% of injected names found with the right direction (%d/%d)"
          % (found, len(inject)), found >= 0.75 * len(inject))
    check("false alarms: <= 2%% of untouched names flagged (%d/%d)" % (len(false), len(untouched)),
          len(false) <= 0.02 * len(untouched), false[:5])
    # A/A in both modes: the set with itself, and two noisy copies
    for mode in ("iteration", "call"):
        for label, a, b in (("itself", d_ctl, d_ctl), ("noisy copies", d_ctl, d_aa)):
            rc, rows, err = stats_csv(exe, a, b, "--samples", mode)
            fl = flagged(rows)
            check("A/A %s (%s): nothing flagged at alpha 0.05" % (label, mode),
                  rc == 0 and rows and not fl, [r["name"] for r in fl][:5] or err)
    # check on the injected pair: exit 3, JUnit with one failure per regression
    rc, rows, _ = stats_csv(exe, d_ctl, d_tst)
    regs = [r for r in rows if r["verdict"] == "slower" and float(r["change_pct"]) >= 5]
    junit = os.path.join(tmp, "junit.xml")
    # check folds names by default; the reference here is compare --stats
    sel = ["--control-iteration", "all", "--test-iteration", "all", "--no-normalize-names"]
    rc, out, err = run(exe, "check", d_ctl, d_tst, *sel, "--junit", junit)
    check("check on the injected pair exits 3", rc == 3, (rc, out[:300], err))
    x = subprocess.run(["xmllint", "--noout", junit], capture_output=True)
    check("check: JUnit XML is well-formed (xmllint)", x.returncode == 0, x.stderr[:300])
    xml = open(junit, encoding="utf-8").read() if os.path.exists(junit) else ""
    check("check: one <failure> per regression (%d)" % len(regs),
          regs and xml.count("<failure ") == len(regs), (xml.count("<failure "), len(regs)))
    check("check: one testcase per compared name",
          xml.count("<testcase ") == len(rows), (xml.count("<testcase "), len(rows)))
    rc, out, err = run(exe, "check", d_ctl, d_tst, *sel, "--format", "json")
    j = json.loads(out) if out.strip() else {}
    check("check --format json lists the regressions",
          rc == 3 and j.get("regressions") == len(regs) and len(j.get("rows", [])) == len(regs))
    rc, out, err = run(exe, "check", d_ctl, d_tst, *sel, "--format", "markdown")
    check("check --format markdown: a table of the regressions",
          rc == 3 and out.count("\n| `") == len(regs), out[:300])
    rc, out, err = run(exe, "check", d_ctl, d_tst, *sel, "--max-regression", "1000%")
    check("check --max-regression 1000%: exit 0", rc == 0, (rc, err))
    rc, out, err = run(exe, "check", d_ctl, d_ctl, *sel)
    check("check X X exits 0", rc == 0, (rc, out, err))
    rc, out, err = run(exe, "check", d_ctl, d_tst, *sel, "--min-us", "1e12")
    check("check --min-us above every total: nothing compared, exit 0",
          rc == 0 and "among 0 names" in out, (rc, out))
    # -j and file order do not change the numbers
    sel = sel[:-1]  # compare is HTA-exact already: no --no-normalize-names
    r1 = run(exe, "compare", d_ctl, d_tst, *sel, "--stats", "--format", "csv", "-q", "-j", "1")
    r2 = run(exe, "compare", d_ctl, d_tst, *sel, "--stats", "--format", "csv", "-q", "-j", "2")
    check("--stats output independent of -j", r1 == r2 and r1[0] == 0)


def plain_unchanged(exe):
    c = os.path.join(TRACES, "hta-trace_diff", "control")
    t = os.path.join(TRACES, "hta-trace_diff", "test")
    for fmt in ("csv", "json", "markdown"):
        _, plain, _ = run(exe, "compare", c, t, "--format", fmt, "-q")
        _, st, _ = run(exe, "compare", c, t, "--format", fmt, "-q", "--stats")
        if fmt == "csv":
            a, b = csv_rows(plain), csv_rows(st)
            same = len(a) == len(b) and all(
                all(x[k] == y[k] for k in x) for x, y in zip(a, b))
            check("csv --stats only adds columns, after today's",
                  same and list(b[0].keys())[:len(a[0])] == list(a[0].keys()) and
                  list(b[0].keys())[len(a[0]):] == STATS_COLS)
        elif fmt == "json":
            a = json.loads(plain)
            nan_free = True

            def bad_constant(c):
                nonlocal nan_free
                nan_free = False
                return None
            b = json.loads(st, parse_constant=bad_constant)
            ok = len(a) == len(b) and all(all(x[k] == y[k] for k in x) for x, y in zip(a, b))
            check("json --stats only adds keys; undefined numbers are null",
                  ok and nan_free and any(r["p_value"] is None for r in b))


STATS_COLS = ["samples", "control_n", "test_n", "control_mean", "test_mean", "control_stdev",
              "test_stdev", "control_median", "test_median", "control_min", "control_max",
              "test_min", "test_max", "diff_mean", "change_pct", "ci_low", "ci_high", "p_value",
              "q_value", "verdict", "shift_us", "shift_low", "shift_high", "reason"]


def bad_input(exe):
    c = os.path.join(TRACES, "hta-trace_diff", "control")
    t = os.path.join(TRACES, "hta-trace_diff", "test")
    rc, out, err = run(exe, "compare", c, t, "--stats", "--samples", "iteration", "--format",
                       "csv")
    rows = csv_rows(out)
    warn = [l for l in err.splitlines() if "warning" in l]
    check("--samples iteration with 1 sample a side: n/a rows, exit 0",
          rc == 0 and rows and all(r["verdict"] in ("n/a", "added", "removed") for r in rows)
          and all(r["p_value"] == "" for r in rows), (rc, err))
    check("... and a one-line warning on how to select more iterations",
          len(warn) == 1 and "--control-iteration all" in warn[0], err)
    for cmd, opt, val in (("check", "--max-regression", "five"),
                          ("check", "--max-regression", "-3%"),
                          ("check", "--alpha", "0"), ("check", "--alpha", "1.5"),
                          ("compare", "--alpha", "x"), ("compare", "--min-change", "1%%"),
                          ("check", "--min-change", "nan"), ("check", "--samples", "rank"),
                          ("check", "--min-us", "-1")):
        extra = ["--stats"] if cmd == "compare" else []
        rc, out, err = run(exe, cmd, c, t, *extra, opt, val)
        check("%s %s %s: usage error (exit 2) with a message" % (cmd, opt, val),
              rc == 2 and opt in err and val in err and len(err.splitlines()) == 1, (rc, err))
    rc, out, err = run(exe, "compare", c, t, "--sort", "q")
    check("--sort q without --stats: usage error", rc == 2 and "--stats" in err, err)
    rc, out, err = run(exe, "check", c, "/nonexistent/trace/set")
    check("check on a missing set: exit 1", rc == 1 and "/nonexistent" in err, (rc, err))
    help_text = " ".join(run(exe, "check", "--help")[1].split())
    check("check --help documents the exit codes",
          "3 at least one regression" in help_text and "0 no regression" in help_text)


def main():
    exe = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="td-stats-")
    try:
        plain_unchanged(exe)
        bad_input(exe)
        generated(exe, tmp)
        # The SciPy part runs under the interpreter that has it, which says
        # itself when it has no SciPy (one import of scipy.stats, not two).
        # The instrumented passes (TD_TEST_SUBSET=1) leave the cross-checks
        # against SciPy's numbers to make test: they reach no line of src/
        # that another instrumented check does not (scripts/choose_subset.py
        # unique-lines).
        subset = cases.instrumented()
        p = subprocess.run([SYS_PY, os.path.abspath(__file__), exe, "--scipy-only"],
                           capture_output=True, text=True) \
            if os.path.exists(SYS_PY) and not subset else None
        if subset:
            pass
        elif p is None or NO_SCIPY in p.stdout:
            print("skip SciPy cross-checks: %s has no scipy (apt-get install python3-scipy)"
                  % SYS_PY)
        else:
            sys.stdout.write(p.stdout)
            m = re.search(r"scipy: (\d+) passed, (\d+) failed", p.stdout)
            if not m:
                check("SciPy cross-checks ran", False, p.stderr[-500:])
            else:
                global passed, failed
                passed += int(m.group(1))
                failed += int(m.group(2))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("stats: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


NO_SCIPY = "scipy: not installed"


def scipy_main():
    try:
        from scipy import stats
    except ImportError:
        print(NO_SCIPY)
        return
    exe = os.path.abspath(sys.argv[1])
    T = TRACES
    scipy_check(exe, stats, "hta-trace_diff", os.path.join(T, "hta-trace_diff", "control"),
                os.path.join(T, "hta-trace_diff", "test"))
    scipy_check(exe, stats, "resnet50 workers0/4", os.path.join(T, "kineto-resnet50_workers0"),
                os.path.join(T, "kineto-resnet50_workers4"))
    print("scipy: %d passed, %d failed" % (passed, failed))


if __name__ == "__main__":
    if "--scipy-only" in sys.argv:
        scipy_main()
    else:
        main()

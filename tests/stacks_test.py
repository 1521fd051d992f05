#!/usr/bin/env python3
"""Stacks (docs/stacks.md): compare --format folded, --by module, the depth
cap and the overlap rule.

    stacks_test.py TRACEDIFF

Checks:
  - every folded file follows the format exactly (a strict parser below:
    'frame;frame;...;frame VALUE' lines, VALUE a whole number, no empty
    frame, no control byte, no stack twice, a newline at the end);
  - the sum rule on every shared pair (and each shared set against
    itself): per side, the values add up to the selection's GPU time
    (compare --device gpu) within 1 us per stack;
  - --by module on the tracelens pairs (bert, falconsai; H100 vs MI300):
    module rows on both sides, the outermost modules' inclusive time equal
    to the GPU time under any module, which equals the time attributed to
    an op (their kernels all run inside the model), --exclusive rows adding
    up to the GPU total, instance numbers folded by --normalize-names;
  - hand-made traces: a stack 1,500 frames deep cut to 1,000 with a [...]
    frame and a note; overlapping events nested by the documented rule;
    no module events: a note and rows by top op;
  - usage errors: --format folded without two files or --side;
  - the report's flame section: its tree's self times are the folded
    stacks; a report of summaries says why it has no flame graph.
"""
import json, math, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as reference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The reference cases' copy of the shared traces (scripts/sync_golden.sh).
SHARED = os.environ.get("TD_SHARED_TRACES", os.path.join(ROOT, "tests", "golden", "traces"))
EXE = None
PLAIN = None  # the build that computes expected sides (tests/cases.py: expectation_exe)
CUT = "[\u2026]"
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def run(*args, exe=None):
    p = subprocess.run([exe or EXE] + list(args), capture_output=True, cwd=ROOT)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


LINE = re.compile(r"^([^\n]*) (0|[1-9][0-9]*)$")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# The instrumented passes (TD_TEST_SUBSET=1): the loops over the shared
# pairs run each way once, taking turns from pair to pair (every pair still
# checked); make test runs every way on every pair.
SUBSET = reference.instrumented()


def parse_folded(text, what):
    """A strict reader of Brendan Gregg's folded format: {stack: value}.
    Raises ValueError naming the first line that breaks the format."""
    if text and not text.endswith("\n"):
        raise ValueError("%s: no newline at the end" % what)
    out = {}
    for n, line in enumerate(text.split("\n")[:-1] if text else [], 1):
        m = LINE.match(line)
        if not m:
            raise ValueError("%s: line %d: not 'STACK VALUE': %r" % (what, n, line[:80]))
        stack = m.group(1)
        frames = stack.split(";")
        if any(f == "" for f in frames):
            raise ValueError("%s: line %d: an empty frame" % (what, n))
        if CONTROL.search(stack):
            raise ValueError("%s: line %d: a control byte" % (what, n))
        if stack in out:
            raise ValueError("%s: line %d: stack twice" % (what, n))
        out[stack] = int(m.group(2))
    return out


def shared_once(f):
    """Runs f once per arguments on the shared traces (they never change
    while the suite runs): the checks that need the same output share it."""
    memo = {}

    def g(*args):
        if not all(a.startswith(SHARED) or not a.startswith("/") for a in args):
            return f(*args)
        if args not in memo:
            memo[args] = f(*args)
        return memo[args]
    return g


@shared_once
def folded(control, test, *extra):
    return folded_by(None, control, test, *extra)


@shared_once
def plain_folded(control, test, *extra):
    """folded() by the plain build (TD_PLAIN_EXE): the expected side of the
    instrumented passes' CPU-frame checks (tests/cases.py: expectation_exe)."""
    return folded_by(PLAIN, control, test, *extra)


def folded_by(exe, control, test, *extra):
    with tempfile.TemporaryDirectory(dir=TMP) as d:
        a, b = os.path.join(d, "c.folded"), os.path.join(d, "t.folded")
        rc, out, err = run("compare", control, test, "--format", "folded", "-o", a + "," + b,
                           "-q", *extra, exe=exe)
        if rc != 0:
            raise RuntimeError("folded %s %s: %s" % (control, test, err))
        res = []
        for p in (a, b):
            with open(p, "rb") as f:
                res.append(parse_folded(f.read().decode("utf-8"), p))
        return res


@shared_once
def gpu_totals(control, test, *extra):
    rc, out, err = run("compare", control, test, "--device", "gpu", "--format", "json", "-q", *extra)
    if rc != 0:
        raise RuntimeError("gpu totals: %s" % err)
    rows = json.loads(out)
    return (sum(r["control_total_duration"] for r in rows),
            sum(r["test_total_duration"] for r in rows))


@shared_once
def rows_by(control, test, *extra):
    rc, out, err = run("compare", control, test, "--format", "json", "-q", *extra)
    if rc != 0:
        raise RuntimeError("rows %s: %s" % (extra, err))
    return json.loads(out)


def pairs():
    """The shared pairs; in the instrumented passes (SUBSET) every third of
    them, taking turns with the ways each loop runs: the others reach no
    line of src/ that these do not (scripts/choose_subset.py unique-lines),
    and make test runs every pair every way."""
    out = all_pairs()
    return out[::3] if SUBSET else out


def all_pairs():
    out = []
    for d in sorted(os.listdir(SHARED)):
        p = os.path.join(SHARED, d)
        if not os.path.isdir(p) or d == "profilers":
            continue
        subs = sorted(x for x in os.listdir(p) if os.path.isdir(os.path.join(p, x)))
        if os.path.isdir(os.path.join(p, "control")) and os.path.isdir(os.path.join(p, "test")):
            out.append((os.path.join(p, "control"), os.path.join(p, "test")))
        elif len(subs) == 2:  # base/ and test/
            out.append((os.path.join(p, subs[0]), os.path.join(p, subs[1])))
        else:
            out.append((p, p))
    for a, b in (("tracelens-bert_h100", "tracelens-bert_mi300"),
                 ("tracelens-falconsai_h100", "tracelens-falconsai_mi300"),
                 ("kineto-resnet50_workers0", "kineto-resnet50_workers4")):
        if os.path.isdir(os.path.join(SHARED, a)) and os.path.isdir(os.path.join(SHARED, b)):
            out.append((os.path.join(SHARED, a), os.path.join(SHARED, b)))
    return out


def test_sum_rule():
    ps = pairs()
    check(len(all_pairs()) >= 15, "the shared traces are there (%d pairs)" % len(all_pairs()))
    ways = ((), ("--normalize-names", "--short-names"))
    for i, (c, t) in enumerate(ps):
        name = "%s vs %s" % (os.path.basename(c), os.path.basename(t))
        for extra in (ways[i % 2],) if SUBSET else ways:
            try:
                sides = folded(c, t, *extra)
                tot = gpu_totals(c, t, *extra)
            except (RuntimeError, ValueError) as e:
                check(False, "%s %s: %s" % (name, extra, e))
                continue
            for s in range(2):
                got, want, n = sum(sides[s].values()), tot[s], len(sides[s])
                check(abs(got - want) <= max(n, 1),
                      "%s %s side %d: folded sum %d, GPU time %.3f (%d stacks)"
                      % (name, extra, s, got, want, n))


def test_ns_and_iterations():
    c = os.path.join(SHARED, "hta-trace_diff", "control")
    t = os.path.join(SHARED, "hta-trace_diff", "test")
    for extra in (("--ns",), ("--control-iteration", "all", "--test-iteration", "all")):
        sides = folded(c, t, *extra)
        tot = gpu_totals(c, t, *extra)
        for s in range(2):
            n = len(sides[s])
            check(abs(sum(sides[s].values()) - tot[s]) <= max(n, 1),
                  "hta-trace_diff %s side %d: sum rule" % (extra, s))


def module_pair(a, b):
    c, t = os.path.join(SHARED, a), os.path.join(SHARED, b)
    rows = rows_by(c, t, "--by", "module")
    top = rows_by(c, t, "--by", "top-op")
    gpu = gpu_totals(c, t)
    key = "module"
    mods = [r for r in rows if r[key] != "(unattributed)"]
    check(len(mods) > 5, "%s: module rows (%d)" % (a, len(mods)))
    for s, side in enumerate(("control", "test")):
        present = [r for r in mods if r[side + "_counts"] > 0]
        check(len(present) > 5, "%s: module rows on the %s side" % (a, side))
        roots = sum(r[side + "_total_duration"] for r in mods if "/" not in r[key])
        unmod = sum(r[side + "_total_duration"] for r in rows if r[key] == "(unattributed)")
        attributed = sum(r[side + "_total_duration"] for r in top if r["top_op"] != "(unattributed)")
        check(abs(roots + unmod - gpu[s]) < 1e-6 * max(gpu[s], 1) + 1e-6,
              "%s %s: outermost modules %.3f + no module %.3f = GPU time %.3f"
              % (a, side, roots, unmod, gpu[s]))
        check(abs(roots - attributed) < 1e-6 * max(attributed, 1) + 1e-6,
              "%s %s: outermost modules %.3f = attributed GPU time %.3f" % (a, side, roots, attributed))
        # inclusive: a module holds at least the sum of its direct children
        by_path = {r[key]: r[side + "_total_duration"] for r in mods}
        for p, v in by_path.items():
            kids = sum(w for q, w in by_path.items() if q.startswith(p + "/") and "/" not in q[len(p) + 1:])
            if kids > v + 1e-6:
                check(False, "%s %s: %s holds %.3f < its children's %.3f" % (a, side, p, v, kids))
                break
        else:
            check(True, "")
    ex = rows_by(c, t, "--by", "module", "--exclusive")
    empty = [r[key] for r in ex if not r["control_counts"] and not r["test_counts"]]
    check(not empty, "%s: --exclusive lists no module without events (%s)" % (a, empty[:3]))
    inner = {r[key] for r in ex}
    outer = {p.rsplit("/", 1)[0] for p in inner if "/" in p}
    check(outer - inner, "%s: --exclusive leaves out enclosing modules with no time of their own"
          % a)
    for s, side in enumerate(("control", "test")):
        tot = sum(r[side + "_total_duration"] for r in ex)
        check(abs(tot - gpu[s]) < 1e-6 * max(gpu[s], 1) + 1e-6,
              "%s %s: --exclusive rows add up to the GPU time (%.3f vs %.3f)" % (a, side, tot, gpu[s]))
    norm = rows_by(c, t, "--by", "module", "--normalize-names")
    names = [r[key] for r in norm if r[key] != "(unattributed)"]
    check(all(not re.search(r"_[0-9]+(/|$)", n) for n in names) and any("_*" in n for n in names),
          "%s: --normalize-names folds instance numbers (%s)" % (a, names[:3]))
    check(len(names) < len(mods), "%s: fewer module rows once folded" % a)
    rc, out, err = run("compare", c, t, "--by", "module", "--stats", "--format", "csv", "-q")
    check(rc == 0 and out.startswith("module,") and ",verdict," in out.split("\n")[0],
          "%s: --by module --stats: %s" % (a, err.strip()))
    rc, out, err = run("check", c, t, "--by", "module", "-q")
    check(rc in (0, 3), "%s: check --by module runs: %s" % (a, err.strip()))


def test_modules():
    module_pair("tracelens-bert_h100", "tracelens-bert_mi300")
    module_pair("tracelens-falconsai_h100", "tracelens-falconsai_mi300")


def write_trace(path, events):
    with open(path, "w") as f:
        f.write(json.dumps({"traceEvents": events}))


def ev(cat, name, ts, dur, tid=1, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 100, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def kernel(name, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"stream": 7, "correlation": corr}}


def test_deep_stack():
    depth = 1500
    evs = [ev("python_function", "f%d" % i, i, 10000 - 2 * i) for i in range(depth)]
    evs.append(ev("cuda_runtime", "cudaLaunchKernel", 3000, 5, correlation=1))
    evs.append(ev("cuda_runtime", "cudaLaunchKernel", 4000, 5, correlation=2))
    evs.append(kernel("deep_kernel", 5000, 7, 1))
    evs.append(kernel("deep_kernel2", 5100, 3, 2))
    p = os.path.join(TMP, "deep.json")
    write_trace(p, evs)
    c, t = folded(p, p)
    check(len(c) == 2, "deep: two stacks (%d)" % len(c))
    for stack, v in c.items():
        frames = stack.split(";")
        check(len(frames) == 1001 and frames[999] == CUT and frames[998] == "f998",
              "deep: 999 frames, the cut frame, the kernel (%d frames)" % len(frames))
    check(sorted(c.values()) == [3, 7], "deep: the values (%s)" % sorted(c.values()))
    a, b = os.path.join(TMP, "d1.folded"), os.path.join(TMP, "d2.folded")
    rc, out, err = run("compare", p, p, "--format", "folded", "-o", a + "," + b)
    check(rc == 0 and "2 GPU events with stacks deeper than 1000 frames" in err,
          "deep: a counted note: %r" % err)


def test_overlap():
    # A [0,100]; B [50,150] starts inside A and ends after it: not A's child.
    # C [55,70] inside both: under B (the innermost that holds it whole).
    evs = [ev("python_function", "A", 0, 100), ev("user_annotation", "B", 50, 100),
           ev("cpu_op", "C", 55, 15),
           ev("cuda_runtime", "cudaLaunchKernel", 10, 1, correlation=1),   # in A only
           ev("cuda_runtime", "cudaLaunchKernel", 60, 1, correlation=2),   # in A, B, C
           ev("cuda_runtime", "cudaLaunchKernel", 80, 1, correlation=3),   # in A and B
           ev("cuda_runtime", "cudaLaunchKernel", 120, 1, correlation=4),  # in B only
           ev("cuda_runtime", "cudaLaunchKernel", 99, 2, correlation=5),   # ends after A
           ev("cuda_runtime", "cudaLaunchKernel", 300, 1, correlation=6),  # in nothing
           kernel("k1", 1000, 1, 1), kernel("k2", 1010, 2, 2), kernel("k3", 1020, 4, 3),
           kernel("k4", 1030, 8, 4), kernel("k5", 1040, 16, 5), kernel("k6", 1060, 32, 6),
           kernel("k7", 1100, 64, 99)]  # no launch
    p = os.path.join(TMP, "overlap.json")
    write_trace(p, evs)
    c, _ = folded(p, p)
    want = {"A;k1": 1, "B;C;k2": 2, "B;k3": 4, "B;k4": 8, "B;k5": 16, "k6": 32, "k7": 64}
    check(c == want, "overlap: %s" % c)


def test_no_modules():
    p = os.path.join(TMP, "overlap.json")
    rc, out, err = run("compare", p, p, "--by", "module", "--format", "csv")
    check(rc == 0 and out.startswith("top_op,") and "with_modules=True" in err,
          "no modules: rows by top op and a note (%r)" % err)
    check(err.count("no nn.Module events") == 2, "no modules: a note per side")


def test_usage():
    p = os.path.join(TMP, "overlap.json")
    rc, out, err = run("compare", p, p, "--format", "folded")
    check(rc == 2 and "--side" in err, "folded without files: usage (%d %r)" % (rc, err))
    rc, out, err = run("compare", p, p, "--format", "folded", "--side", "test")
    check(rc == 0 and parse_folded(out, "stdout") == {"A;k1": 1, "B;C;k2": 2, "B;k3": 4, "B;k4": 8,
                                                    "B;k5": 16, "k6": 32, "k7": 64},
          "--side test to stdout")
    rc, out, err = run("compare", p, p, "--side", "test")
    check(rc == 2, "--side without folded: refused")
    bad = os.path.join(TMP, "nope", "x.folded")
    rc, out, err = run("compare", p, p, "--format", "folded", "-o",
                       os.path.join(TMP, "ok.folded") + "," + bad)
    check(rc != 0 and not os.path.exists(os.path.join(TMP, "ok.folded")),
          "folded: neither file when one cannot be written")


def test_flame():
    import xml.etree.ElementTree as ET
    p = os.path.join(TMP, "overlap.json")
    q = os.path.join(TMP, "overlap2.json")
    with open(p) as f:
        evs = json.load(f)["traceEvents"]
    # test: k2 twice as long, k4 half, k1 unchanged, a new stack (new_k under A)
    for e in evs:
        if e["name"] == "k2":
            e["dur"] = 4
        if e["name"] == "k4":
            e["dur"] = 4
    evs.append(ev("cuda_runtime", "cudaLaunchKernel", 20, 1, correlation=50))
    evs.append(kernel("new_k", 2000, 10, 50))
    write_trace(q, evs)
    svg = os.path.join(TMP, "f.svg")
    rc, out, err = run("plot", "flame", p, q, "-o", svg)
    check(rc == 0, "plot flame: %s" % err)
    ns = "{http://www.w3.org/2000/svg}"
    try:
        root = ET.parse(svg).getroot()
    except Exception as e:
        check(False, "flame SVG parses: %s" % e)
        return
    frames = {}
    for g in root.iter(ns + "g"):
        t = g.find(ns + "title").text
        rects = g.findall(ns + "rect")
        frames[t.split("\n")[0]] = (t, rects)
    check(set(frames) >= {"all", "A", "B", "C", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "new_k"},
          "flame: every frame drawn (%s)" % sorted(frames))
    tip, rects = frames["all"]
    check("control: 127.000 us" in tip and "test: 135.000 us" in tip, "flame: root tooltip %r" % tip)
    w_all = float(rects[0].get("width"))
    w_k6 = float(frames["k6"][1][0].get("width"))
    check(abs(w_k6 / w_all - 32 / 135) < 1e-3, "flame: width = test time (%g / %g)" % (w_k6, w_all))
    check(rects[0].get("fill") not in ("#C8C8C8",), "flame: the root changed: coloured")
    red = lambda r: r.get("fill", "").startswith("#FF")
    blue = lambda r: r.get("fill", "").endswith("FF") and not r.get("fill").startswith("#FF")
    check(red(frames["k2"][1][0]) and "change: +100.0%" in frames["k2"][0], "flame: k2 slower: red")
    check(blue(frames["k4"][1][0]) and "change: -50.0%" in frames["k4"][0], "flame: k4 faster: blue")
    check(frames["k1"][1][0].get("fill") == "#C8C8C8", "flame: k1 unchanged: grey")
    check(len(frames["new_k"][1]) == 2 and frames["new_k"][1][1].get("fill") == "url(#hatch)"
          and "change: new" in frames["new_k"][0], "flame: new_k only in test: hatched")
    check(all(len(r) == 1 for n, (t, r) in frames.items() if n != "new_k"),
          "flame: nothing else hatched")
    rc, out, err = run("plot", "flame", p, q, "-o", svg, "--min-change", "200%")
    root = ET.parse(svg).getroot()
    fills = {g.find(ns + "title").text.split("\n")[0]: g.find(ns + "rect").get("fill")
             for g in root.iter(ns + "g")}
    check(fills.get("k2") == "#C8C8C8", "flame --min-change 200%: k2 grey")
    rc, out, err = run("plot", "flame", p, q, "-o", svg, "--side", "control")
    root = ET.parse(svg).getroot()
    names = [g.find(ns + "title").text.split("\n")[0] for g in root.iter(ns + "g")]
    check(rc == 0 and "new_k" not in names and "k1" in names
          and not any(r.get("fill") == "url(#hatch)" for r in root.iter(ns + "rect")),
          "flame --side control: the control side, plain")
    for ext, magic in ((".png", b"\x89PNG"), (".pdf", b"%PDF")):
        out_p = os.path.join(TMP, "f" + ext)
        rc, out, err = run("plot", "flame", p, q, "-o", out_p)
        ok = rc == 0 and open(out_p, "rb").read(4) == magic
        check(ok, "plot flame %s: %s" % (ext, err))
    deep = os.path.join(TMP, "deep.json")
    if os.path.exists(deep):
        rc, out, err = run("plot", "flame", deep, deep, "-o", svg)
        check(rc == 0 and ET.parse(svg).getroot() is not None, "flame of a cut stack: %s" % err)
    rc, out, err = run("plot", "flame", p, q, "-o", os.path.join(TMP, "f.txt"))
    check(rc == 2, "plot flame: a bad extension refused")


def test_report_flame():
    """The report's flame section: its tree of frames holds each folded
    stack's time as the self time of the stack's last frame, the root the
    sides' totals; a report of summaries (no stacks) says why it has none."""
    import html
    p = os.path.join(TMP, "overlap.json")
    q = os.path.join(TMP, "overlap2.json")
    out = os.path.join(TMP, "r.html")
    rc, _, err = run("report", p, q, "-o", out, "-q")
    check(rc == 0, "report: %s" % err)
    page = open(out, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="td-flame-data">(.*?)</script>', page, re.S)
    check(m is not None, "report: the flame section's data")
    if not m:
        return
    check("<" not in m.group(1), "report: no '<' inside the flame data")
    nodes = json.loads(m.group(1))["nodes"]
    path, kids = [None] * len(nodes), [[] for _ in nodes]
    for i, (parent, name, c, t) in enumerate(nodes):
        check(parent < i, "flame data: a parent before its child")
        path[i] = name if parent <= 0 else path[parent] + ";" + name
        if parent >= 0:
            kids[parent].append(i)
    fc, ft = folded(p, q)
    check(nodes[0][1] == "all" and nodes[0][2] == sum(fc.values()) and
          nodes[0][3] == sum(ft.values()), "flame data: the root holds both sides' totals")
    for side, fold in ((2, fc), (3, ft)):
        self_t = {path[i]: nodes[i][side] - sum(nodes[k][side] for k in kids[i])
                  for i in range(1, len(nodes))}
        got = {st: v for st, v in self_t.items() if abs(v) > 1e-9}
        want = {st: v for st, v in fold.items() if v}
        check(got == want, "flame data: self times = the folded stacks (%s vs %s)" % (
            sorted(got.items())[:3], sorted(want.items())[:3]))
    # The grey band follows the report's --min-change (default 1%).
    for extra, want in (((), 1), (("--min-change", "30%"), 30)):
        rc, _, err = run("report", p, q, "-o", out, "-q", *extra)
        page = open(out, encoding="utf-8").read() if rc == 0 else ""
        m = re.search(r'<script type="application/json" id="td-flame-data">(.*?)</script>', page, re.S)
        got = json.loads(m.group(1))["min_change"] if m else None
        check(got == want and ("grey within %d%%" % want) in page,
              "report %s: the flame's grey band is %s%% (%s)" % (extra, want, got))
    # A report of the CPU: the flame graph of the CPU stacks.
    rc, _, err = run("report", p, q, "-o", out, "-q", "--device", "cpu")
    page = open(out, encoding="utf-8").read() if rc == 0 else ""
    m = re.search(r'<script type="application/json" id="td-flame-data">(.*?)</script>', page, re.S)
    if m:
        nodes = json.loads(m.group(1))["nodes"]
        fc, ft = folded(p, q, "--device", "cpu")
        check("CPU time by stack" in page and nodes[0][2] == sum(fc.values()) and
              nodes[0][3] == sum(ft.values()) and any(n[1] == "cudaLaunchKernel" for n in nodes),
              "report --device cpu: the flame graph of the CPU stacks")
    else:
        check(False, "report --device cpu: a flame section (%s)" % err)
    sp = os.path.join(TMP, "o.tdsum")
    rc, _, err = run("summarize", p, "-o", sp, "-q")
    rc, _, err = run("report", sp, sp, "-o", out, "-q")
    page = open(out, encoding="utf-8").read() if rc == 0 else ""
    # summaries keep the stacks (schema 4, docs/summaries.md): the graph is drawn
    check(rc == 0 and 'id="td-flame-data"' in page and 'id="td-flame-none"' not in page,
          "report of summaries: the flame graph from their stacks (%s)" % err[:200])


# --- CPU stacks (--device cpu) -------------------------------------------

@shared_once
def cpu_totals(control, test, *extra):
    rc, out, err = run("compare", control, test, "--device", "cpu", "--format", "json", "-q", *extra)
    if rc != 0:
        raise RuntimeError("cpu totals: %s" % err)
    rows = json.loads(out)
    return (sum(r["control_total_duration"] for r in rows),
            sum(r["test_total_duration"] for r in rows))


FRAME_CATS = ("cpu_op", "Operator", "user_annotation", "python_function")
STEP = re.compile(r"ProfilerStep\s*#\s*(\d+)")


_EVENTS = {}
_STACKS = {}
# frame(): ';' becomes ':', a control byte a space (docs/stacks.md).
FRAME_MAP = {c: " " for c in list(range(0x20)) + [0x7F]}
FRAME_MAP[ord(";")] = ":"


def read_events(path):
    """The events of one trace file, read once per run of the suite."""
    if path not in _EVENTS:
        _EVENTS[path] = _read_events(path)
    return _EVENTS[path]


def _read_events(path):
    import gzip
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:  # bytes: json decodes UTF-8 itself, faster than a text stream
        # json gives a float exactly for a number written with a decimal
        # point or an exponent, an int otherwise: what the rounding rule asks
        doc = json.loads(f.read())
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    return [e for e in evs if isinstance(e, dict)]


def cpu_stacks_of(path, ns):
    if (path, ns) not in _STACKS:
        if not ns and not rounded(path):
            # whole-us timestamps: HTA's rounding changes nothing, the
            # stacks are the --ns ones
            _STACKS[(path, ns)] = cpu_stacks_of(path, True)
        else:
            _STACKS[(path, ns)] = _cpu_stacks_of(path, ns)
    return _STACKS[(path, ns)]


def rounded(path):
    """Whether spec §2's rounding applies to the trace (without --ns): some
    event has no ts or a ts written with a decimal point or an exponent."""
    return any("ts" not in e or isinstance(e["ts"], float) for e in read_events(path))


def _cpu_stacks_of(path, ns):
    """The CPU stacks of one trace, computed here from the JSON (spec §2 and
    docs/stacks.md, independently of tracediff): {stack: total us} of the
    cpu-side counted events (stream -1) in any iteration (every event when
    the trace has no ProfilerStep)."""
    raw = read_events(path)
    rnd = not ns and rounded(path)
    evs = []
    for idx, e in enumerate(raw):
        if "cat" not in e or "dur" not in e or e["cat"] == "Trace":
            continue
        name, cat = e.get("name"), e["cat"]
        if not isinstance(name, str) or not isinstance(cat, str):
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        st = args.get("stream", -1)
        stream = st if isinstance(st, int) and not isinstance(st, bool) else -1
        ts = e.get("ts")
        ts = float(ts) if isinstance(ts, (int, float)) else None
        dur = float(e["dur"])
        if rnd and ts is not None:
            end = math.floor(ts + dur)
            ts = float(math.ceil(ts))
            dur = end - ts
        evs.append({"i": idx, "name": name, "cat": cat, "ts": ts, "dur": dur, "stream": stream,
                    "thr": (repr(e.get("pid")), repr(e.get("tid")))})
    steps = [x for x in evs if x["name"].startswith("ProfilerStep") and STEP.search(x["name"])]
    cpu = [x for x in evs if x["stream"] == -1]
    # Nesting: per thread, a frame event is a parent of x when it holds x
    # whole; the innermost is the latest start, then the longer, then the
    # earlier in the file; at one start and length, frames before others.
    def order(x):
        return (x["ts"], 0 if x["cat"] in FRAME_CATS else 1, -x["dur"], x["i"])
    by_thr = {}
    for x in cpu:
        if x["ts"] is not None:
            by_thr.setdefault(x["thr"], []).append(x)
    for lst in by_thr.values():
        lst.sort(key=order)
        open_ = []  # frames swept so far that may still hold what follows
        for x in lst:
            end = x["ts"] + x["dur"]
            up = None
            for f in reversed(open_):
                if f["ts"] <= x["ts"] and f["ts"] + f["dur"] >= end:
                    up = f
                    break
            x["up"] = up
            if x["cat"] in FRAME_CATS:
                open_ = [f for f in open_ if f["ts"] + f["dur"] >= x["ts"]]
                open_.append(x)

    def frame(n):
        n = n.translate(FRAME_MAP)
        return n or "(no name)"

    def path_of(x):
        # each event's path once: its parent's path, then its own frame
        chain = []
        while x is not None and "path" not in x:
            chain.append(x)
            x = x.get("up")
        p = x["path"] if x is not None else None
        for y in reversed(chain):
            f = frame(y["name"])
            p = f if p is None else p + ";" + f
            y["path"] = p
        return p

    def in_step(x):
        if not steps:
            return True
        return x["ts"] is not None and any(s["ts"] <= x["ts"] < s["ts"] + s["dur"] for s in steps)

    tot = {}
    for x in cpu:
        if in_step(x):
            p = path_of(x)
            tot[p] = tot.get(p, 0.0) + x["dur"]
    return tot


def one_file(d):
    if os.path.isfile(d):
        return d
    fs = [os.path.join(d, f) for f in sorted(os.listdir(d)) if ".json" in f]
    return fs[0] if len(fs) == 1 else None


def test_cpu_sum_rule():
    """--device cpu --format folded: per side, the values add up to compare
    --device cpu's total within half a microsecond per stack, plus the
    stacks HTA's rounding made negative (written as 0); with --ns (nothing
    negative) within half a microsecond per stack."""
    ps = pairs()
    ways = ((), ("--ns",), ("--normalize-names", "--short-names"))
    for i, (c, t) in enumerate(ps):
        name = "%s vs %s" % (os.path.basename(c), os.path.basename(t))
        for extra in (ways[i % 3],) if SUBSET else ways:
            try:
                tot = cpu_totals(c, t, *extra)
                if tot == (0, 0):
                    continue
                sides = folded(c, t, "--device", "cpu", *extra)
            except (RuntimeError, ValueError) as e:
                check(False, "cpu %s %s: %s" % (name, extra, e))
                continue
            for s in range(2):
                got, want, n = sum(sides[s].values()), tot[s], len(sides[s])
                ok = abs(got - want) <= 0.5 * max(n, 1) if "--ns" in extra else got >= want - 0.5 * n
                check(ok and n > 0, "cpu %s %s side %d: folded sum %d, CPU time %.3f (%d stacks)"
                      % (name, extra, s, got, want, n))


def test_cpu_frames():
    """The CPU stacks against the JSON's nesting computed here, stack by
    stack, on every shared pair of single files (every iteration, --ns so
    that the trace's own times nest); and without --ns the same stacks
    hold the same events: the sum rule exactly once the negative stacks
    are counted. In the instrumented passes (TD_TEST_SUBSET=1, with
    TD_PLAIN_EXE) the expected stacks are the plain build's, equal stack
    by stack and value by value: make test holds those to this file's
    nesting, and the JSON walk here cost a third of the suite's CPU."""
    if SUBSET and PLAIN != EXE:
        return cpu_frames_as_plain()
    done = 0
    for c, t in pairs():
        fc, ft = one_file(c), one_file(t)
        if not fc or not ft:
            continue
        name = "%s vs %s" % (os.path.basename(c), os.path.basename(t))
        it = ("--control-iteration", "all", "--test-iteration", "all")
        try:
            sides = folded(c, t, "--device", "cpu", "--ns", *it)
        except (RuntimeError, ValueError) as e:
            if "no ProfilerStep" in str(e) or "iteration" in str(e):
                sides = folded(c, t, "--device", "cpu", "--ns")
            else:
                check(False, "cpu frames %s: %s" % (name, e))
                continue
        for s, path in enumerate((fc, ft)):
            want = {k: v for k, v in cpu_stacks_of(path, True).items()}
            got = sides[s]
            bad = [k for k in set(want) | set(got)
                   if abs(got.get(k, 0) - max(want.get(k, 0.0), 0.0)) > 1 + 1e-6]
            check(not bad and len(got) > 0,
                  "cpu frames %s side %d: %d stacks differ of %d (%s)"
                  % (name, s, len(bad), len(want), [(k[-120:], got.get(k), want.get(k))
                                                    for k in sorted(bad)[:3]]))
            if s == 1 or c == t:
                continue
            # Default durations (spec §2 rounding): the same stacks, and the
            # values are each stack's total, 0 where rounding made it negative.
            rd = cpu_stacks_of(path, False)
            try:
                dflt = folded(c, t, "--device", "cpu", *it)[0]
            except (RuntimeError, ValueError):
                dflt = folded(c, t, "--device", "cpu")[0]
            bad = [k for k in set(rd) | set(dflt) if dflt.get(k, 0) != max(round(rd.get(k, 0)), 0)]
            check(not bad, "cpu frames %s rounded: %d stacks differ (%s)"
                  % (name, len(bad), sorted(bad)[:2]))
        done += 1
    check(done >= (2 if SUBSET else 8), "cpu frames: pairs checked (%d)" % done)


def cpu_frames_as_plain():
    """test_cpu_frames's pairs and selections, each side equal to the plain
    build's folded output."""
    done = 0
    it = ("--control-iteration", "all", "--test-iteration", "all")
    for c, t in pairs():
        if not one_file(c) or not one_file(t):
            continue
        name = "%s vs %s" % (os.path.basename(c), os.path.basename(t))
        for extra in (("--ns",), ()):
            args = ("--device", "cpu") + extra
            try:
                want = plain_folded(c, t, *args, *it)
                got_args = args + it
            except (RuntimeError, ValueError):
                want = plain_folded(c, t, *args)
                got_args = args
            try:
                got = folded(c, t, *got_args)
            except (RuntimeError, ValueError) as e:
                check(False, "cpu frames %s %s: %s" % (name, extra, e))
                continue
            for s in range(2):
                bad = [k for k in set(want[s]) | set(got[s]) if got[s].get(k) != want[s].get(k)]
                check(not bad and len(got[s]) > 0,
                      "cpu frames %s %s side %d: %d stacks differ from the plain build's of %d (%s)"
                      % (name, extra, s, len(bad), len(want[s]), sorted(bad)[:3]))
        done += 1
    check(done >= (2 if SUBSET else 8), "cpu frames: pairs checked (%d)" % done)


def test_cpu_only_pair():
    """hta-cpu_only (a trace without GPU events): CPU stacks, the module
    rows and the flame graph work on it; the GPU stacks are empty."""
    d = os.path.join(SHARED, "hta-cpu_only")
    c, t = folded(d, d, "--device", "cpu")
    tot = cpu_totals(d, d)
    check(len(c) >= 2 and c == t, "cpu_only: stacks (%d)" % len(c))
    check(sum(c.values()) >= tot[0] - 0.5 * len(c) and tot[0] > 0,
          "cpu_only: sum rule (%d vs %.3f)" % (sum(c.values()), tot[0]))
    names = {e.get("name") for e in read_events(one_file(d)) if e.get("cat") != "Trace"}
    check(all(f in names for k in c for f in k.split(";")),
          "cpu_only: every frame is a CPU event of the trace (%s)" % sorted(c))
    g, _ = folded(d, d)
    check(g == {}, "cpu_only: no GPU stacks (%d)" % len(g))
    svg = os.path.join(TMP, "cpu_only.svg")
    rc, out, err = run("plot", "flame", d, d, "--device", "cpu", "-o", svg)
    check(rc == 0 and os.path.getsize(svg) > 1000, "cpu_only: plot flame --device cpu: %s" % err)


def test_cpu_overlap():
    """The CPU stacks follow the GPU stacks' nesting rule, each CPU event
    its own stack (its frames, then itself), valued at its duration."""
    evs = [ev("python_function", "A", 0, 100), ev("user_annotation", "B", 50, 100),
           ev("cpu_op", "C", 55, 15),
           ev("cuda_runtime", "cudaLaunchKernel", 60, 1, correlation=2),  # in A, B, C
           ev("cuda_runtime", "cudaLaunchKernel", 99, 2, correlation=5),  # ends after A
           ev("cpu_op", "D", 300, 4)]                                      # in nothing
    p = os.path.join(TMP, "cpu_overlap.json")
    write_trace(p, evs)
    c, _ = folded(p, p, "--device", "cpu")
    want = {"A": 100, "B": 100, "B;C": 15, "B;C;cudaLaunchKernel": 1, "B;cudaLaunchKernel": 2,
            "D": 4}
    check(c == want, "cpu overlap: %s" % c)


def test_cpu_modules():
    """--by module --device cpu: a module holds its own event's CPU time and
    everything under it; --exclusive rows add up to the CPU total; a trace
    without modules keeps the rows by module, all in (unattributed)."""
    mods = [ev("python_function", "nn.Module: M_0", 0, 100),
            ev("python_function", "nn.Module: L_0", 10, 40),
            ev("cpu_op", "aten::mm", 20, 10),
            ev("python_function", "nn.Module: L_1", 60, 30),
            ev("cpu_op", "aten::add", 65, 5),
            ev("cpu_op", "aten::relu", 200, 7)]
    p = os.path.join(TMP, "cpu_mod.json")
    write_trace(p, mods)
    rows = {r["module"]: r["test_total_duration"]
            for r in rows_by(p, p, "--by", "module", "--device", "cpu")}
    check(rows == {"M_0": 185, "M_0/L_0": 50, "M_0/L_1": 35, "(unattributed)": 7},
          "cpu modules inclusive: %s" % rows)
    ex = {r["module"]: r["test_total_duration"]
          for r in rows_by(p, p, "--by", "module", "--device", "cpu", "--exclusive")}
    check(ex == {"M_0": 100, "M_0/L_0": 50, "M_0/L_1": 35, "(unattributed)": 7},
          "cpu modules exclusive: %s" % ex)
    check(sum(ex.values()) == 192, "cpu modules: exclusive rows add up to the CPU total")
    # A GPU event two modules deep: --exclusive has its innermost module
    # alone (the enclosing one has no time of its own: no row).
    g = [ev("python_function", "nn.Module: Outer_0", 0, 100),
         ev("python_function", "nn.Module: Inner_0", 10, 50),
         ev("cuda_runtime", "cudaLaunchKernel", 20, 1, correlation=1), kernel("k", 200, 5, 1)]
    q = os.path.join(TMP, "gpu_mod.json")
    write_trace(q, g)
    inc = {r["module"]: r["test_total_duration"] for r in rows_by(q, q, "--by", "module")}
    ex = {r["module"]: r["test_total_duration"]
          for r in rows_by(q, q, "--by", "module", "--exclusive")}
    check(inc == {"Outer_0": 5, "Outer_0/Inner_0": 5} and ex == {"Outer_0/Inner_0": 5},
          "--exclusive: no row for a module with no time of its own (%s, %s)" % (inc, ex))
    norm = {r["module"] for r in rows_by(p, p, "--by", "module", "--device", "cpu",
                                         "--normalize-names")}
    check(norm == {"M_*", "M_*/L_*", "(unattributed)"}, "cpu modules folded: %s" % norm)
    q = os.path.join(TMP, "overlap.json")
    rc, out, err = run("compare", q, q, "--by", "module", "--device", "cpu", "--format", "csv")
    check(rc == 0 and out.startswith("module,") and "(unattributed)" in out and
          err.count("no nn.Module events") == 2, "cpu no modules: rows by module, a note (%r)" % err)
    for a, b in (("tracelens-bert_h100", "tracelens-bert_mi300"),):
        c, t = os.path.join(SHARED, a), os.path.join(SHARED, b)
        ex = rows_by(c, t, "--by", "module", "--device", "cpu", "--exclusive")
        tot = cpu_totals(c, t)
        for s, side in enumerate(("control", "test")):
            got = sum(r[side + "_total_duration"] for r in ex)
            check(abs(got - tot[s]) < 1e-6 * max(tot[s], 1) + 1e-6,
                  "%s cpu --exclusive rows = CPU time (%.3f vs %.3f)" % (a, got, tot[s]))
        inc = rows_by(c, t, "--by", "module", "--device", "cpu")
        check(len([r for r in inc if r["control_counts"] and r["test_counts"]]) > 5,
              "%s cpu module rows on both sides" % a)


def test_parser_is_strict():
    for bad in ("a;b 1", "a;;b 1\n", "a;b 1.5\n", "a;b\n", "a 1\na 2\n", "a\tb 1\n", "a;b -1\n"):
        try:
            parse_folded(bad, "bad")
            check(False, "the parser refuses %r" % bad)
        except ValueError:
            check(True, "")


def main():
    global EXE, PLAIN, TMP
    EXE = os.path.abspath(sys.argv[1])
    PLAIN = os.path.abspath(reference.expectation_exe(EXE))
    with tempfile.TemporaryDirectory() as TMP:
        for t in (test_parser_is_strict, test_overlap, test_deep_stack, test_no_modules, test_usage,
                  test_flame, test_report_flame, test_modules, test_ns_and_iterations, test_sum_rule,
                  test_cpu_overlap, test_cpu_modules, test_cpu_only_pair, test_cpu_sum_rule,
                  test_cpu_frames):
            try:
                t()
            except Exception as e:  # a crash is a failure, named
                check(False, "%s: %s: %s" % (t.__name__, type(e).__name__, e))
    print("stacks: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Statistics describe the rows shown, whatever --by (docs/stats.md).

    stats_by_test.py TRACEDIFF

- Invariant, over every reference pair of tests/golden/cases.json (each
  selection of ranks and iterations its cases make) and every
  --by (kernel, op, top-op, annotation, class): in iteration mode
  control_mean x control_n == control_total_duration on every row (and for
  test); in call mode the same (a call sample is one event by kernel or
  class, one op call, top op call or annotation instance by op, top-op or
  annotation, and every call of a row is a sample); a row without a test
  says why (reason), never a silent n/a.
- Call samples by op, top-op and annotation, counted independently from
  the trace's JSON (hta-no_steps): control_n is the number of op calls
  (annotation instances) that launched the row's GPU events.
- From summaries, which keep no op calls, call samples by op say so.
- SciPy: `compare --by op --stats` on the real multi-iteration ResNet-50
  pair against scipy.stats.ttest_ind(equal_var=False) of the per-iteration
  totals that plain `compare --by op` prints for one iteration at a time.
"""
import csv, io, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as reference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "golden")
SYS_PY = "/usr/bin/python3"
BYS = ("kernel", "op", "top-op", "annotation", "class")
MODES = ("iteration", "call")
# The instrumented passes (TD_TEST_SUBSET=1): every --by on every pair of
# the subset, in one sample mode each, taking turns from pair to pair, so that
# every --by runs in both modes over the pairs.
SUBSET = reference.instrumented()
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))


def run(exe, *args):
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8")
    p = subprocess.run([exe] + list(args), capture_output=True, env=env, timeout=600)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def rows_of(text):
    return list(csv.DictReader(io.StringIO(text)))


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def pairs():
    """Every reference pair with each selection of ranks and iterations its
    cases make (names shortened or HTA-strict change which names a row has,
    not how its samples add up: the first case of each such selection
    stands for them). The instrumented passes walk the subset's cases
    (tests/cases.py)."""
    seen, out = set(), []
    for c in reference.load(os.path.join(GOLDEN, "cases.json")):
        if c.get("expect_error") or c.get("error"):
            continue
        key = json.dumps([c["control"], c["test"]] + [str(c.get("%s_%s" % (side, k)))
                         for side in ("control", "test") for k in ("rank", "iteration")])
        if key in seen:
            continue
        seen.add(key)
        out.append(c)
    return out


def selection(c):
    a = []
    for side in ("control", "test"):
        for k in ("rank", "iteration"):
            v = c.get("%s_%s" % (side, k))
            if v is not None:
                v = ",".join(map(str, v)) if isinstance(v, list) else str(v)
                a += ["--%s-%s" % (side, k), v]
    if c.get("short_names"):
        a.append("--short-names")
    if c.get("hta_strict"):
        a.append("--hta-strict")
    return a


def invariant(exe):
    bad, checked, reasons, silent = [], 0, 0, []
    for i, c in enumerate(pairs()):
        ctl, tst = os.path.join(GOLDEN, c["control"]), os.path.join(GOLDEN, c["test"])
        if not (os.path.exists(ctl) and os.path.exists(tst)):
            continue
        for j, by in enumerate(BYS):
            for mode in (MODES[(i + j) % 2],) if SUBSET else MODES:
                args = ["compare", ctl, tst, "--by", by, "--stats", "--samples", mode,
                        "--format", "csv", "-q"] + selection(c)
                rc, out, err = run(exe, *args)
                if rc != 0:
                    # a selection a case refuses (its error is the reference's)
                    continue
                for r in rows_of(out):
                    checked += 1
                    if r["verdict"] == "n/a":
                        reasons += 1
                    if r["verdict"] == "n/a" and not r["reason"]:
                        silent.append((c["control"], by, mode, r[list(r)[0]]))
                    for side in ("control", "test"):
                        n = int(r["%s_n" % side])
                        total = float(r["%s_total_duration" % side])
                        mean = float(r["%s_mean" % side]) if r["%s_mean" % side] else 0.0
                        if n and not close(mean * n, total):
                            bad.append((c["control"], c["test"], by, mode, r[list(r)[0]], side,
                                        mean, n, total))
    check("mean x n == total on every row, every reference pair, every --by, both modes "
          "(%d rows)" % checked, checked > 1000 and not bad, bad[:3])
    check("no silent n/a anywhere (%d rows with a reason)" % reasons, not silent, silent[:3])


def gpu_instances(path):
    """Per op, top op and annotation: the set of calls (instances) that
    launched GPU events, and their GPU time, found from the JSON alone
    (docs/attribution.md's rules; the trace's timestamps are whole µs)."""
    import glob, gzip
    f = glob.glob(os.path.join(path, "*.json*"))[0]
    ev = json.load(gzip.open(f) if f.endswith(".gz") else open(f))["traceEvents"]
    ev = [e for e in ev if e.get("ph") == "X"]
    launch = {}
    for i, e in enumerate(ev):
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launch[e["args"]["correlation"]] = e
    ops = [(i, e) for i, e in enumerate(ev) if e.get("cat") == "cpu_op"]
    anns = [(i, e) for i, e in enumerate(ev) if e.get("cat") == "user_annotation" and
            not e["name"].startswith("ProfilerStep")]

    def around(l, cands, inner):
        cov = [(i, e) for i, e in cands if e["pid"] == l["pid"] and e["tid"] == l["tid"] and
               e["ts"] <= l["ts"] and e["ts"] + e["dur"] >= l["ts"] + l["dur"]]
        if not cov:
            return None
        if inner:
            return max(cov, key=lambda x: (x[1]["ts"], -x[1]["dur"], x[0]))
        return min(cov, key=lambda x: (x[1]["ts"], -x[1]["dur"], x[0]))

    out = {"op": {}, "top-op": {}, "annotation": {}}
    for e in ev:
        stream = e.get("args", {}).get("stream", -1)
        if stream == -1 or e.get("cat") in ("cpu_op", "user_annotation"):
            continue  # not a device event (spec §4)
        l = launch.get(e.get("args", {}).get("correlation"))
        if l is None:
            continue
        for by, cands, inner in (("op", ops, True), ("top-op", ops, False),
                                 ("annotation", anns, True)):
            hit = around(l, cands, inner)
            if hit:
                d = out[by].setdefault(hit[1]["name"], {})
                d[hit[0]] = d.get(hit[0], 0) + e["dur"]
    return out


def call_instances(exe):
    path = os.path.join(ROOT, "tests", "golden", "traces", "hta-no_steps")
    inst = gpu_instances(path)
    for by in ("op", "top-op", "annotation"):
        rc, out, err = run(exe, "compare", path, path, "--by", by, "--stats", "--samples", "call",
                           "--format", "csv", "-q")
        col = by.replace("-", "_")
        rows = [r for r in rows_of(out) if r[col] != "(unattributed)"]
        bad = []
        for r in rows:
            want = inst[by].get(r[col], {})
            vals = sorted(want.values())
            med = (vals[len(vals) // 2] + vals[(len(vals) - 1) // 2]) / 2 if vals else None
            if int(r["control_n"]) != len(want) or \
                    (vals and not close(float(r["control_median"]), med)):
                bad.append((r[col], r["control_n"], len(want), r["control_median"], med))
        check("--by %s --samples call: one sample per %s that launched GPU work, its GPU "
              "time (%d rows, against the JSON)" % (by, "annotation" if by == "annotation"
                                                     else "op call", len(rows)),
              rc == 0 and len(rows) >= 3 and set(r[col] for r in rows) == set(inst[by]) and
              not bad, (rc, err[:200], bad[:3]))


def steady_example(exe):
    """The issue's example: aten::add_'s GPU time, not its CPU time."""
    T = os.path.join(GOLDEN, "traces")
    rc, out, err = run(exe, "compare", os.path.join(T, "kineto-resnet50_workers0"),
                       os.path.join(T, "kineto-resnet50_workers4"), "--by", "op", "--stats",
                       "--control-iteration", "steady", "--test-iteration", "steady",
                       "--format", "csv", "-q", "--include", "^aten::add_$")
    r = rows_of(out)
    ok = len(r) == 1 and r[0]["control_n"] == "5" and \
        close(float(r[0]["control_mean"]) * 5, float(r[0]["control_total_duration"]))
    check("--by op steady: aten::add_'s mean is its GPU time per iteration (total / 5)",
          ok and r[0]["verdict"] in ("noise", "faster", "slower"), r)


def same_everywhere(exe):
    """Summaries and the check give the numbers compare --stats gives."""
    import tempfile
    T = os.path.join(GOLDEN, "traces")
    c, t = os.path.join(T, "kineto-resnet50_workers0"), os.path.join(T, "kineto-resnet50_workers4")
    sel = ["--control-iteration", "all", "--test-iteration", "all"]
    with tempfile.TemporaryDirectory() as tmp:
        sc, stt = os.path.join(tmp, "c.tdsum"), os.path.join(tmp, "t.tdsum")
        ok = run(exe, "summarize", c, "-o", sc, "-q")[0] == 0 and \
            run(exe, "summarize", t, "-o", stt, "-q")[0] == 0
        for by in ("op", "class", "annotation"):
            a = run(exe, "compare", c, t, "--by", by, "--stats", "--format", "csv", "-q", *sel)
            b = run(exe, "compare", sc, stt, "--by", by, "--stats", "--format", "csv", "-q", *sel)
            check("--by %s --stats: the same CSV from summaries as from the traces" % by,
                  ok and a[0] == 0 and a == b, (a[0], b[0], b[2][:200]))
        b = run(exe, "compare", sc, stt, "--by", "op", "--stats", "--samples", "call",
                "--format", "csv", "-q", *sel)
        rs = rows_of(b[1])
        check("--by op --samples call from summaries: every row says why it has no test",
              b[0] == 0 and rs and all(r["verdict"] == "n/a" and
                                       r["reason"] == "no op calls in a summary" for r in rs),
              (b[0], b[2][:200], rs[:1]))
    a = rows_of(run(exe, "compare", c, t, "--by", "op", "--stats", "--format", "csv", "-q",
                    *sel)[1])
    rc, out, err = run(exe, "check", c, t, "--by", "op", "--format", "json", "-q", *sel)
    j = json.loads(out) if out.strip() else {}
    by = {r["op"]: r for r in a}
    bad = [r["name"] for r in j.get("rows", []) if r["name"] in by and
           float(by[r["name"]]["control_mean"]) != r["control_mean"]]
    check("check --by op: the regressions' means are compare --by op --stats's",
          rc in (0, 3) and not bad and j.get("compared", 0) > 0, (rc, bad[:3], err[:200]))


def scipy_main():
    from scipy import stats
    exe = sys.argv[1]
    T = os.path.join(GOLDEN, "traces")
    c, t = os.path.join(T, "kineto-resnet50_workers0"), os.path.join(T, "kineto-resnet50_workers4")
    its = json.loads(run(exe, "info", c, "--format", "json")[1])["iterations"]
    itt = json.loads(run(exe, "info", t, "--format", "json")[1])["iterations"]
    samples = {}
    for side, (path, its_) in enumerate(((c, its), (t, itt))):
        for i in its_:
            rc, out, err = run(exe, "compare", path, path, "--by", "op", "--control-iteration",
                               str(i), "--test-iteration", str(i), "--format", "csv", "-q")
            for r in rows_of(out):
                samples.setdefault(r["op"], ([], []))
            for r in rows_of(out):
                samples[r["op"]][side].append((i, float(r["control_total_duration"])))
    rc, out, err = run(exe, "compare", c, t, "--by", "op", "--stats", "--control-iteration", "all",
                       "--test-iteration", "all", "--format", "csv", "-q")
    rows = rows_of(out)
    check("scipy: compare --by op --stats runs (iteration samples)",
          rc == 0 and rows and all(r["samples"] == "iteration" for r in rows), err)
    bad, withp = [], 0
    for r in rows:
        xs = []
        for side, its_ in ((0, its), (1, itt)):
            got = dict(samples.get(r["op"], ([], []))[side])
            xs.append([got.get(i, 0.0) for i in its_])
        p = stats.ttest_ind(xs[1], xs[0], equal_var=False).pvalue
        mine = float(r["p_value"]) if r["p_value"] else None
        if mine is None or p != p:
            continue
        withp += 1
        if not abs(mine - p) <= 1e-6 * max(p, 1e-300) + 1e-300:
            bad.append((r["op"], mine, p))
        if not close(float(r["control_mean"]), sum(xs[0]) / len(xs[0])):
            bad.append((r["op"], "mean", r["control_mean"], sum(xs[0]) / len(xs[0])))
    check("scipy: --by op p-values agree with ttest_ind(equal_var=False) on per-iteration "
          "totals to 1e-6 (%d rows with p)" % withp, withp >= 10 and not bad, bad[:3])
    print("scipy: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


def main():
    exe = os.path.abspath(sys.argv[1])
    # The instrumented passes (TD_TEST_SUBSET=1): the checks that reach
    # lines of src/ no other instrumented suite runs (statistics from
    # summaries by op, the automatic choice of samples); the invariant over
    # every reference pair and the SciPy cross-check are make test's
    # (scripts/choose_subset.py unique-lines, CONTRIBUTING.md "Sixth round").
    if not SUBSET:
        invariant(exe)
    call_instances(exe)
    steady_example(exe)
    same_everywhere(exe)
    if SUBSET:
        print("stats-by: %d passed, %d failed" % (passed, failed))
        sys.exit(1 if failed else 0)
    has = subprocess.run([SYS_PY, "-c", "import scipy"], capture_output=True).returncode == 0 \
        if os.path.exists(SYS_PY) else False
    if not has:
        print("skip SciPy cross-check: %s has no scipy (apt-get install python3-scipy)" % SYS_PY)
    else:
        p = subprocess.run([SYS_PY, os.path.abspath(__file__), exe, "--scipy-only"],
                           capture_output=True, text=True, timeout=1200)
        print(p.stdout, end="")
        check("SciPy cross-check ran", p.returncode == 0, p.stderr[-500:])
    print("stats-by: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    if "--scipy-only" in sys.argv:
        scipy_main()
    else:
        main()

#!/usr/bin/env python3
"""tracediff compare --match tree (docs/tree-match.md) against TraceLens's
own TraceDiff and the rules of the match.

    tree_test.py TRACEDIFF

- TraceLens: on tracelens-bert_h100 vs _mi300 and tracelens-falconsai_h100
  vs _mi300, the LCAs (names, and each side's GPU time to 0.01 us with
  --ns) and the matched share equal the expected files under tests/tree/,
  made by TraceLens itself (tests/tree/make_expected.py; README.md there
  names its commit). LCAs are compared as a multiset: TraceLens's order
  after its same-name re-pairing comes from a Python set.
- Root alignment: top-level ops inserted into both sides of the bert pair
  and one deleted from the test side: the LCAs are the original pair's
  (less the deleted root's), the inserted work is one-sided time.
- Sum rule: matched + unmatched parts = GPU time on each side, and the GPU
  time equals |U| of the kernels, memcpys and memsets computed here.
- --by lca-name: each name's totals are the sums of its LCA rows.
- Selection: on the 6-iteration pair hta-trace_diff, --control-iteration k
  --test-iteration k equals the match of the traces cut to step k (host
  events starting in it, the GPU events they launch), and its GPU time is
  |U| of those GPU events; the default selects the lowest iteration.
- --stats: the samples (one --match tree per iteration pair, run here),
  Welch p-values (computed here), Benjamini-Hochberg and the verdict rules give
  each row's numbers and verdict.
- report --match tree: "Matched by structure" holds the top LCAs by
  |change| with the JSON's times; explain NAME --match tree: the LCAs of
  that name or path as compare's JSON has them.
- Bad input: a CPU-only trace (a note, exit 0), overlapping host events
  (left out, counted in a note), 100k children under one node (the
  capped fallback, bounded time, a note), a name match without
  --match tree for --by lca-name (exit 2).
"""
import collections, csv, glob, gzip, json, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402  (run_once: one process per distinct command)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The reference cases' copy of the shared traces (scripts/sync_golden.sh).
SHARED = os.environ.get("TD_SHARED_TRACES", os.path.join(ROOT, "tests", "golden", "traces"))
EXPECTED = os.path.join(ROOT, "tests", "tree")
passed = failed = 0

PAIRS = [("bert", "tracelens-bert_h100", "tracelens-bert_mi300"),
         ("falconsai", "tracelens-falconsai_h100", "tracelens-falconsai_mi300")]
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset")


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s %s" % (name, str(detail)[:2000]))


def run(exe, *args, timeout=600):
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8")
    env.pop("HTA_DISABLE_NS_ROUNDING", None)
    p = cases.run_once([exe] + list(args), env=env, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def trace(name):
    return glob.glob(os.path.join(SHARED, name, "*.json*"))[0]


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)


_READ = {}


def load_shared(path):
    """load(path) once per run for the callers that only read the document
    (the step, GPU-time and cut computations); test_root_alignment edits
    its documents and loads its own."""
    if path not in _READ:
        _READ[path] = load(path)
    return _READ[path]


def save(doc, path):
    with open(path, "w") as f:
        f.write(json.dumps(doc))  # dumps: the C encoder (dump streams in Python)


def expected(case):
    rows, total, matched = [], None, None
    with open(os.path.join(EXPECTED, case + "_lca.csv")) as f:
        for r in csv.DictReader(f):
            v = (float(r["control_us"]), float(r["test_us"]))
            if r["lca"] == "#total":
                total = v
            elif r["lca"] == "#matched":
                matched = v
            else:
                rows.append((r["lca"], v[0], v[1]))
    return sorted(rows), total, matched


def tree_json(exe, c, t, *extra):
    rc, out, err = run(exe, "compare", c, t, "--match", "tree", "--format", "json", "--ns", *extra)
    if rc != 0:
        return None, err
    return json.loads(out), err


def rows_of(js):
    return sorted((r["lca"], r["control_us"], r["test_us"]) for r in js["rows"])


def same_rows(a, b, tol=0.01):
    if len(a) != len(b):
        return False, "%d vs %d rows" % (len(a), len(b))
    for x, y in zip(a, b):
        if x[0] != y[0] or abs(x[1] - y[1]) > tol or abs(x[2] - y[2]) > tol:
            return False, "%r vs %r" % (x, y)
    return True, ""


def union(iv):
    tot, lo, hi = 0.0, None, None
    for a, b in sorted(iv):
        if hi is None or a > hi:
            if hi is not None:
                tot += hi - lo
            lo, hi = a, b
        elif b > hi:
            hi = b
    return tot + (hi - lo if hi is not None else 0.0)


def gpu_busy(doc):
    return union([(e["ts"], e["ts"] + e.get("dur", 0)) for e in doc["traceEvents"]
                  if e.get("ph") == "X" and e.get("cat") in GPU_CATS])


STEP = re.compile(r"ProfilerStep\s*#\s*(\d+)")
LAUNCH_CATS = ("cuda_runtime", "cuda_driver", "Runtime", "Driver")


def steps_of(doc):
    """{step number: (start, end)} of the ProfilerStep host events."""
    out = {}
    for e in doc["traceEvents"]:
        m = STEP.search(str(e.get("name", "")))
        if m and e.get("ph") == "X" and not str(e.get("cat", "")).startswith("gpu_"):
            out[int(m.group(1))] = (e["ts"], e["ts"] + e.get("dur", 0))
    return out


def gpu_busy_step(doc, k):
    """|U| of the GPU events whose launch starts in step k (none: the
    lowest), as the selection of iteration k takes them."""
    st = steps_of(doc)
    lo, hi = st[min(st) if k is None else k]
    corr = set(e["args"]["correlation"] for e in doc["traceEvents"]
               if e.get("cat") in LAUNCH_CATS and "correlation" in e.get("args", {})
               and lo <= e["ts"] < hi)
    return union([(e["ts"], e["ts"] + e.get("dur", 0)) for e in doc["traceEvents"]
                  if e.get("ph") == "X" and e.get("cat") in GPU_CATS
                  and e.get("args", {}).get("correlation") in corr])


def test_tracelens(exe):
    for case, a, b in PAIRS:
        js, err = tree_json(exe, trace(a), trace(b))
        if js is None:
            check("%s: runs" % case, False, err)
            continue
        rows, total, matched = expected(case)
        got = rows_of(js)
        ok, why = same_rows(got, rows)
        check("%s: the LCAs equal TraceLens's (%d: names, per-side us +-0.01)" % (case, len(rows)),
              ok, why)
        check("%s: the same LCA names" % case,
              sorted(r[0] for r in got) == sorted(r[0] for r in rows))
        s = js["summary"]
        for k, side in enumerate(("control", "test")):
            share = s[side]["matched_us"] / s[side]["gpu_us"]
            want = matched[k] / total[k]
            check("%s %s: matched share %.4f%% = TraceLens's %.4f%%" % (case, side, share * 100,
                                                                      want * 100),
                  abs(share - want) < 1e-4, (s[side], total, matched))
            check("%s %s: GPU time = TraceLens's" % (case, side),
                  abs(s[side]["gpu_us"] - total[k]) < 0.01, (s[side]["gpu_us"], total[k]))


def roots_of(doc):
    """The top-level cpu ops of the main thread, in time order."""
    ops = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    tid = max(set((e["pid"], e["tid"]) for e in ops),
              key=lambda k: sum(1 for e in ops if (e["pid"], e["tid"]) == k))
    ops = sorted((e for e in ops if (e["pid"], e["tid"]) == tid), key=lambda e: e["ts"])
    roots, end = [], None
    for e in ops:
        if end is None or e["ts"] >= end:
            roots.append(e)
            end = e["ts"] + e["dur"]
    return roots


def insert_roots(doc, after, name, corr0):
    """A top-level op with a launch and a kernel after each root index in after."""
    ev = doc["traceEvents"]
    roots = roots_of(doc)
    launch = next(e for e in ev if e.get("cat") == "cuda_runtime" and "Launch" in e["name"]
                  and "correlation" in e.get("args", {}))
    kern = next(e for e in ev if e.get("cat") == "kernel")
    gpu_end = max(e["ts"] + e.get("dur", 0) for e in ev if e.get("cat") in GPU_CATS)
    added = 0.0
    for n, i in enumerate(after):
        r, nxt = roots[i], roots[i + 1]
        t0 = r["ts"] + r["dur"]
        gap = nxt["ts"] - t0
        assert gap > 0.5, gap
        d = gap / 3
        corr = corr0 + n
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": r["pid"], "tid": r["tid"],
                   "ts": t0 + d, "dur": d, "args": {}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": launch["name"], "pid": r["pid"],
                   "tid": r["tid"], "ts": t0 + d * 1.25, "dur": d / 2,
                   "args": {"correlation": corr}})
        ts = gpu_end + 100 + 50 * n
        ev.append({"ph": "X", "cat": "kernel", "name": "inserted_kernel_%d" % n,
                   "pid": kern["pid"], "tid": kern["tid"], "ts": ts, "dur": 7.0,
                   "args": {"correlation": corr, "stream": kern["args"].get("stream", 7)}})
        added += 7.0
    return added


def delete_root(doc, i):
    ev = doc["traceEvents"]
    r = roots_of(doc)[i]
    lo, hi = r["ts"], r["ts"] + r["dur"]
    gone = [e for e in ev if e.get("pid") == r["pid"] and e.get("tid") == r["tid"]
            and e.get("ph") == "X" and lo <= e["ts"] and e["ts"] + e.get("dur", 0) <= hi]
    corr = set(e["args"]["correlation"] for e in gone if "correlation" in e.get("args", {}))
    ids = set(id(e) for e in gone)
    doc["traceEvents"] = [e for e in ev if id(e) not in ids and not (
        e.get("cat") in GPU_CATS and e.get("args", {}).get("correlation") in corr)]
    return r["name"]


def test_root_alignment(exe, tmp):
    a, b = trace(PAIRS[0][1]), trace(PAIRS[0][2])
    base, err = tree_json(exe, a, b)
    if base is None:
        check("roots: the original pair runs", False, err)
        return
    c, t = load(a), load(b)
    added_c = insert_roots(c, [2, 30], "aten::only_in_control", 900000000)
    added_t = insert_roots(t, [5, 6, 60], "aten::only_in_test", 910000000)
    pc, pt = os.path.join(tmp, "c.json"), os.path.join(tmp, "t.json")
    save(c, pc)
    save(t, pt)
    js, err = tree_json(exe, pc, pt)
    if js is None:
        check("roots: the pair with inserted roots runs", False, err)
        return
    ok, why = same_rows(rows_of(js), rows_of(base), 1e-6)
    check("roots: top-level ops inserted on both sides: the same LCAs", ok, why)
    for side, added in (("control", added_c), ("test", added_t)):
        s = js["summary"][side]
        check("roots: %s's inserted kernels are one-sided time (%.1f us)" % (side, added),
              abs(s["unmatched_us"]["one_sided"] - added) < 1e-6 and
              abs(s["matched_us"] - base["summary"][side]["matched_us"]) < 1e-6, s)
    check("roots: every original root matched",
          js["summary"]["control"]["roots_matched"] == base["summary"]["control"]["roots"], js["summary"])
    # one root deleted from the test side: only its LCAs go
    t2 = load(b)
    k = 40
    c_roots = roots_of(load_shared(a))
    check("roots: the two sides' top-level ops have the same names",
          [r["name"] for r in c_roots] == [r["name"] for r in roots_of(t2)])
    name = delete_root(t2, k)
    insert_roots(t2, [5, 6, 60], "aten::only_in_test", 910000000)
    save(t2, pt)
    js2, err = tree_json(exe, pc, pt)
    if js2 is None:
        check("roots: the pair with a deleted root runs", False, err)
        return
    same = [r for r in c_roots[:k + 1] if r["name"] == c_roots[k]["name"]]
    total = [r for r in c_roots if r["name"] == c_roots[k]["name"]]
    head = c_roots[k]["name"] + ("#%d" % len(same) if len(total) > 1 else "")
    want = sorted((r["lca"], r["control_us"], r["test_us"]) for r in base["rows"]
                  if not (r["path"] == head or r["path"].startswith(head + ">")))
    ok, why = same_rows(rows_of(js2), want, 1e-6)
    check("roots: a root deleted from test (%s): the other LCAs unchanged (%d of %d)"
          % (name, len(want), len(base["rows"])), ok and len(want) < len(base["rows"]), why)


def test_sum_rule(exe):
    for case, a, b in PAIRS + [("kineto", "kineto-resnet50_workers0", "kineto-resnet50_workers4")]:
        if not os.path.isdir(os.path.join(SHARED, a)):
            continue
        js, err = tree_json(exe, trace(a), trace(b))
        if js is None:
            check("%s: runs" % case, False, err)
            continue
        for side, path in (("control", trace(a)), ("test", trace(b))):
            s = js["summary"][side]
            parts = s["matched_us"] + sum(s["unmatched_us"].values())
            check("%s %s: matched + unmatched = GPU time" % (case, side),
                  abs(parts - s["gpu_us"]) < 1e-6, s)
            doc = load_shared(path)
            # a side with ProfilerStep selects its lowest iteration (compare's default)
            busy = gpu_busy_step(doc, None) if steps_of(doc) else gpu_busy(doc)
            check("%s %s: GPU time = |U| of its selected kernels, memcpys, memsets" % (case, side),
                  abs(busy - s["gpu_us"]) < 0.01, (busy, s["gpu_us"]))
            rows_side = sum(r["%s_us" % side] for r in js["rows"] if r["control_count"] and r["test_count"])
            check("%s %s: the matched part is the both-sided LCAs' time" % (case, side),
                  rows_side + 1e-6 >= s["matched_us"], (rows_side, s["matched_us"]))


def test_by_name(exe, tmp):
    a, b = trace(PAIRS[1][1]), trace(PAIRS[1][2])
    js, _ = tree_json(exe, a, b)
    byn, err = tree_json(exe, a, b, "--by", "lca-name")
    if js is None or byn is None:
        check("--by lca-name runs", False, err)
        return
    sums = {}
    for r in js["rows"]:
        s = sums.setdefault(r["lca"], [0.0, 0.0, 0])
        s[0] += r["control_us"]
        s[1] += r["test_us"]
        s[2] += 1
    got = {r["lca"]: [r["control_us"], r["test_us"], r["lcas"]] for r in byn["rows"]}
    check("--by lca-name: each name's totals are the sums of its LCAs",
          set(got) == set(sums) and all(abs(got[k][0] - sums[k][0]) < 1e-6 and
                                        abs(got[k][1] - sums[k][1]) < 1e-6 and
                                        got[k][2] == sums[k][2] for k in sums), (got, sums))
    rc, out, err = run(exe, "compare", a, b, "--match", "tree", "--format", "csv")
    rdr = list(csv.DictReader(out.splitlines()))
    check("csv: a row per LCA with the JSON's numbers",
          rc == 0 and len(rdr) == len(js["rows"]) and
          all(abs(float(x["control_us"]) - y["control_us"]) < 1e-9 for x, y in zip(rdr, js["rows"])),
          err)
    for fmt in ("table", "markdown"):
        rc, out, err = run(exe, "compare", a, b, "--match", "tree", "--format", fmt)
        check("%s: rows and the summary" % fmt,
              rc == 0 and "aten::" in out and "matched" in out and "roots" in out, err + out[:500])
    out_path = os.path.join(tmp, "o.json")
    rc, out, err = run(exe, "compare", a, b, "--match", "tree", "-o", out_path, "-q")
    check("-o FILE.json: JSON from the extension",
          rc == 0 and len(json.load(open(out_path))["rows"]) == len(js["rows"]), err)
    rc, out, err = run(exe, "compare", a, b, "--by", "lca-name")
    check("--by lca-name without --match tree: exit 2", rc == 2 and "--match tree" in err, err)


def synth(events):
    return {"traceEvents": events, "deviceProperties": []}


def test_bad_input(exe, tmp):
    cpu = os.path.join(SHARED, "hta-cpu_only")
    if os.path.isdir(cpu):
        p = glob.glob(os.path.join(cpu, "*.json*"))[0]
        rc, out, err = run(exe, "compare", p, p, "--match", "tree", "--format", "json")
        js = json.loads(out) if rc == 0 else None
        check("CPU-only trace: exit 0, no rows, a note", js is not None and js["rows"] == [] and
              any("CPU-only" in n for n in js["notes"]) and "CPU-only" in err, err)
    # overlapping host events: an op overhanging its parent by 5 us is left out
    ev = [{"ph": "X", "cat": "cpu_op", "name": "root", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
          {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 10, "dur": 20},
          {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 25, "dur": 10},
          {"ph": "X", "cat": "cpu_op", "name": "c", "pid": 1, "tid": 1, "ts": 90, "dur": 20},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
           "ts": 12, "dur": 3, "args": {"correlation": 1}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
           "ts": 26, "dur": 3, "args": {"correlation": 2}},
          {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 200, "dur": 5,
           "args": {"correlation": 1, "stream": 7}},
          {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 210, "dur": 5,
           "args": {"correlation": 2, "stream": 7}},
          {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 220, "dur": 5,
           "args": {"correlation": 99, "stream": 7}}]
    p = os.path.join(tmp, "overlap.json")
    save(synth(ev), p)
    rc, out, err = run(exe, "compare", p, p, "--match", "tree", "--format", "json", timeout=60)
    js = json.loads(out) if rc == 0 else None
    ok = js is not None
    if ok:
        s = js["summary"]["control"]
        ok = (s["left_out"] == 2 and abs(s["unmatched_us"]["no_launch"] - 5) < 1e-9 and
              abs(s["matched_us"] + sum(s["unmatched_us"].values()) - s["gpu_us"]) < 1e-9 and
              any("left out" in n for n in js["notes"]))
    check("overlapping host events: left out and counted, the sum rule holds", ok, (err, out[:800]))
    # nesting that could loop: identical intervals (each "inside" the one
    # before), zero and negative durations, no start, a correlation id on
    # two launches and on a cpu op, a kernel whose id is a cpu op's
    ev = [{"ph": "X", "cat": "cpu_op", "name": "same", "pid": 1, "tid": 1, "ts": 0, "dur": 50}
          for _ in range(50)]
    ev += [{"ph": "X", "cat": "cpu_op", "name": "zero", "pid": 1, "tid": 1, "ts": 10, "dur": 0},
           {"ph": "X", "cat": "cpu_op", "name": "neg", "pid": 1, "tid": 1, "ts": 11, "dur": -5},
           {"ph": "X", "cat": "cpu_op", "name": "nots", "pid": 1, "tid": 1, "dur": 5},
           {"ph": "X", "cat": "cpu_op", "name": "opcorr", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
            "args": {"correlation": 3}},
           {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
            "ts": 12, "dur": 3, "args": {"correlation": 1}},
           {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
            "ts": 12, "dur": 3, "args": {"correlation": 1}},
           {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
            "ts": 30, "dur": 30, "args": {"correlation": 2}},
           {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 100, "dur": 5,
            "args": {"correlation": 1, "stream": 7}},
           {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 110, "dur": 5,
            "args": {"correlation": 2, "stream": 7}},
           {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 120, "dur": 5,
            "args": {"correlation": 3, "stream": 7}}]
    p = os.path.join(tmp, "loops.json")
    save(synth(ev), p)
    try:
        rc, out, err = run(exe, "compare", p, p, "--match", "tree", "--format", "json",
                           timeout=60)
        js = json.loads(out) if rc == 0 else None
        ok = js is not None
        for side in ("control", "test") if ok else ():
            s = js["summary"][side]
            ok = ok and abs(s["gpu_us"] - 15) < 1e-9 and abs(
                s["matched_us"] + sum(s["unmatched_us"].values()) - s["gpu_us"]) < 1e-9
        check("identical, empty, negative and unstarted host events, shared correlation ids: "
              "no loop, the sum rule holds", ok, (rc, err, out[:800]))
    except subprocess.TimeoutExpired:
        check("identical host events: bounded", False, "timed out")
    # 100k children under one node (one fewer on the test side, so that
    # they are aligned, not paired by position), names that differ
    n = 100000
    for side, tag, m in (("c", "x", n), ("t", "y", n - 1)):
        with open(os.path.join(tmp, "wide_%s.json" % side), "w") as f:
            f.write(wide_text(n, m, tag))
    try:
        rc, out, err = run(exe, "compare", os.path.join(tmp, "wide_c.json"),
                           os.path.join(tmp, "wide_t.json"), "--match", "tree", "--format", "json",
                           timeout=300)
        js = json.loads(out) if rc == 0 else None
        ok = js is not None and any("caps" in x for x in js["notes"])
        if ok:
            s = js["summary"]["control"]
            ok = abs(s["matched_us"] + sum(s["unmatched_us"].values()) - s["gpu_us"]) < 1e-6
        check("100k children under one node: the capped fallback, a note, the sum rule", ok,
              (rc, err, out[-500:]))
    except subprocess.TimeoutExpired:
        check("100k children under one node: bounded", False, "timed out")
    check("the wide traces' text is json.dumps of their events (checked on 50 children)",
          wide_text(50, 49, "y") == json.dumps(synth(wide_events(50, 49, "y"))))


def wide_events(n, m, tag):
    """The events of wide_text as Python objects (the text is checked
    against json.dumps of these on a small n)."""
    ev = [{"ph": "X", "cat": "cpu_op", "name": "root", "pid": 1, "tid": 1, "ts": 0,
           "dur": 10 * n + 10}]
    for i in range(m):
        ev.append({"ph": "X", "cat": "cpu_op", "name": "op_%s%d" % (tag, i % 1000),
                   "pid": 1, "tid": 1, "ts": 10 * i + 1, "dur": 8})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                   "tid": 1, "ts": 10 * i + 2, "dur": 2, "args": {"correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
                   "ts": 10 * n + 100 + 3 * i, "dur": 2,
                   "args": {"correlation": i + 1, "stream": 7}})
    return ev


def wide_text(n, m, tag):
    """json.dumps(synth(wide_events(n, m, tag))), written as text: m children
    under one root, each launching one kernel (300k events: building the
    objects and encoding them cost seconds of the suite's CPU, the text a
    fraction)."""
    head = ('{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "root", "pid": 1, "tid": 1, '
            '"ts": 0, "dur": %d}' % (10 * n + 10))
    one = (', {"ph": "X", "cat": "cpu_op", "name": "op_%s%d", "pid": 1, "tid": 1, "ts": %d, '
           '"dur": 8}, {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, '
           '"tid": 1, "ts": %d, "dur": 2, "args": {"correlation": %d}}, {"ph": "X", "cat": '
           '"kernel", "name": "k", "pid": 0, "tid": 7, "ts": %d, "dur": 2, "args": '
           '{"correlation": %d, "stream": 7}}')
    body = "".join(one % (tag, i % 1000, 10 * i + 1, 10 * i + 2, i + 1, 10 * n + 100 + 3 * i,
                          i + 1) for i in range(m))
    return head + body + '], "deviceProperties": []}'


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def test_input_dims(exe):
    """Each LCA's input dims and types are its cpu op's "Input Dims" and
    "Input type" in the raw trace: every (name, dims, types) is a cpu op's,
    and the addmm under the k-th top-level aten::linear has that one's."""
    case, a, b = PAIRS[0]
    js, err = tree_json(exe, trace(a), trace(b))
    if js is None:
        check("input dims: runs", False, err)
        return
    for k, (side, path) in enumerate((("control", trace(a)), ("test", trace(b)))):
        ops = [e for e in load_shared(path)["traceEvents"] if e.get("cat") == "cpu_op" and e.get("ph") == "X"]
        have = set()
        for e in ops:
            args = e.get("args", {})
            if "Input Dims" in args:
                have.add((e["name"], compact(args["Input Dims"]), compact(args.get("Input type"))))
        rows = js["rows"]
        withd = [r for r in rows if r[side + "_input_dims"] is not None]
        bad = [r for r in withd
               if (r["lca"].split(" | ")[-k if " | " in r["lca"] else 0],
                   r[side + "_input_dims"], r[side + "_input_types"]) not in have]
        check("input dims %s: every row's (lca, dims, types) is a cpu op's in the raw trace "
              "(%d of %d rows have dims)" % (side, len(withd), len(rows)),
              len(withd) >= len(rows) // 2 and not bad, bad[:2])
        # the k-th top-level aten::linear (time order) and the addmm in it
        ops.sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
        top, end = [], {}
        for e in ops:
            t = e["tid"]
            if e["ts"] >= end.get(t, -1):
                top.append(e)
                end[t] = e["ts"] + e.get("dur", 0)
        lin = [e for e in top if e["name"] == "aten::linear"]
        checked = wrong = 0
        for r in rows:
            p = r["path"].split(">")
            if len(p) != 2 or not p[0].startswith("aten::linear#") or p[1] != "aten::addmm":
                continue
            L = lin[int(p[0].split("#")[1]) - 1]
            inner = [e for e in ops if e["name"] == "aten::addmm" and e["tid"] == L["tid"] and
                     L["ts"] <= e["ts"] <= L["ts"] + L["dur"]]
            checked += 1
            if len(inner) != 1 or compact(inner[0]["args"]["Input Dims"]) != r[side + "_input_dims"]:
                wrong += 1
        check("input dims %s: aten::linear#k>aten::addmm has the raw dims of the addmm in the "
              "k-th top-level aten::linear (%d rows)" % (side, checked), checked > 10 and not wrong,
              wrong)
    name = "aten::_flash_attention_forward"
    rc, out, err = run(exe, "explain", trace(a), trace(b), name, "--match", "tree", "--format",
                       "json")
    ex = json.loads(out)["rows"] if rc == 0 else []
    byp = {r["path"]: r for r in js["rows"] if r["lca"] == name}
    check("input dims: explain's rows have compare's (%d rows)" % len(ex),
          len(ex) == len(byp) > 0 and all(
              r[k] == byp[r["path"]][k] and r[k] is not None for r in ex
              for k in ("control_input_dims", "test_input_dims", "control_input_types",
                        "test_input_types")), ex[:1])
    rc, out, err = run(exe, "compare", trace(a), trace(b), "--match", "tree", "--format", "csv")
    hdr = out.splitlines()[0].split(",") if rc == 0 and out else []
    check("input dims: CSV columns", hdr[-4:] == ["control_input_dims", "test_input_dims",
                                                  "control_input_types", "test_input_types"], hdr)
    rc, out, err = run(exe, "compare", trace(a), trace(b), "--match", "tree", "--format", "table",
                       "--top", "3")
    check("input dims: table column", rc == 0 and "input dims" in out and "[[1,141,8,64]" in out,
          out[:600])


def strip_n(name):
    return re.sub(r"\(\d+\)", "", name)


def test_python_frames(exe, tmp):
    """--python-frames: python_function frames join the trees; the LCAs
    found on both sides stay those of the match without them, the sum rule
    holds, and the paths go through the traces' python frames."""
    case, a, b = PAIRS[0]
    plain, err0 = tree_json(exe, trace(a), trace(b))
    js, err = tree_json(exe, trace(a), trace(b), "--python-frames")
    if js is None or plain is None:
        check("--python-frames: runs", False, (err0, err))
        return
    for side in ("control", "test"):
        s = js["summary"][side]
        check("--python-frames %s: matched + unmatched = GPU time, %.1f%% matched" %
              (side, 100 * s["matched_us"] / s["gpu_us"]),
              abs(s["matched_us"] + sum(s["unmatched_us"].values()) - s["gpu_us"]) < 1e-6 and
              abs(s["gpu_us"] - plain["summary"][side]["gpu_us"]) < 1e-9 and
              s["matched_us"] > 0.95 * s["gpu_us"], s)
    both = lambda rows: sorted((r["lca"], round(r["control_us"], 6), round(r["test_us"], 6))
                               for r in rows if r["control_count"] and r["test_count"])
    got, want = both(js["rows"]), both(plain["rows"])
    # the python frames overhanging their children are left out on one side
    # and not the other (1 us rule), so one embedding pairs differently
    same = sum((collections.Counter(got) & collections.Counter(want)).values())
    check("--python-frames: the two-sided LCAs are the plain match's (%d of %d, %d found)" %
          (same, len(want), len(got)), same >= 0.95 * len(want) and len(got) <= len(want),
          (got, want))
    raw = load_shared(trace(a))["traceEvents"]
    py = {strip_n(e["name"]) for e in raw if e.get("cat") == "python_function"}
    names = {strip_n(e.get("name", "")) for e in raw}
    # (names may hold ">": the frames are found in the paths, not split out)
    inpath = lambda rows, n: any(n + ">" in r["path"] or n + "#" in r["path"] for r in rows)
    found = [n for n in py if inpath(js["rows"], n)]
    check("--python-frames: the paths go through the trace's python frames (%d of them)" %
          len(found), len(found) >= 10 and
          all(r["path"].split(">")[0].split("#")[0].split(" | ")[0] in names for r in js["rows"]))
    check("--python-frames: no python frame in the plain match's paths",
          not any(inpath(plain["rows"], n) for n in py if len(n) > 20))
    rc, out, err = run(exe, "compare", trace(a), trace(b), "--python-frames")
    check("--python-frames without --match tree: exit 2", rc == 2 and "--match tree" in err, err)
    # a frame around the training loop spans the steps: left out, so that
    # each step's frames are roots of their own (and the selection holds)
    ev = [{"ph": "X", "cat": "python_function", "name": "train.py(5): main", "pid": 1, "tid": 1,
           "ts": 0, "dur": 1000}]
    for k in range(2):
        t0 = 100 + 400 * k
        ev += [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % k, "pid": 1,
                "tid": 1, "ts": t0, "dur": 300},
               {"ph": "X", "cat": "python_function", "name": "train.py(%d): step" % (10 + k),
                "pid": 1, "tid": 1, "ts": t0 + 10, "dur": 200},
               {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                "ts": t0 + 20, "dur": 50},
               {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                "ts": t0 + 30, "dur": 5, "args": {"correlation": k + 1}},
               {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": t0 + 40,
                "dur": 20 + k, "args": {"correlation": k + 1, "stream": 7}}]
    p = os.path.join(tmp, "py_steps.json")
    save(synth(ev), p)
    js, err = tree_json(exe, p, p, "--python-frames", "--control-iteration", "1",
                        "--test-iteration", "1")
    ok = js is not None and len(js["rows"]) == 1
    if ok:
        r = js["rows"][0]
        ok = (r["path"].startswith("train.py: step>aten::mm>") and r["control_us"] == 21 and
              js["summary"]["control"]["roots"] == 1)
    check("--python-frames: a frame spanning the steps is left out; iteration 1's frame is "
          "its root", ok, (err, js))


MULTI = ("hta-trace_diff/control", "hta-trace_diff/test")  # 6 iterations a side


def cut_to_step(doc, k):
    """The trace cut to step k: its host events that start in the step, the
    GPU events they launch, the metadata."""
    lo, hi = steps_of(doc)[k]
    ev = doc["traceEvents"]
    host = [e for e in ev if e.get("ph") == "X" and e.get("cat") not in GPU_CATS
            and not str(e.get("cat", "")).startswith("gpu_") and lo <= e["ts"] < hi]
    corr = set(e["args"]["correlation"] for e in host
               if e.get("cat") in LAUNCH_CATS and "correlation" in e.get("args", {}))
    gpu = [e for e in ev if e.get("ph") == "X" and e.get("cat") in GPU_CATS
           and e.get("args", {}).get("correlation") in corr]
    meta = [e for e in ev if e.get("ph") == "M"]
    out = dict(doc)
    out["traceEvents"] = meta + host + gpu
    return out


def key_rows(js):
    return {(r["path"], r["lca"]): r for r in js["rows"]}


def test_selection(exe, tmp):
    a, b = (trace(x) for x in MULTI)
    da, db = load_shared(a), load_shared(b)
    sa, sb = sorted(steps_of(da)), sorted(steps_of(db))
    for i in (2, 5):
        ka, kb = sa[i], sb[i]
        pa, pb = os.path.join(tmp, "cut_a.json"), os.path.join(tmp, "cut_b.json")
        save(cut_to_step(da, ka), pa)
        save(cut_to_step(db, kb), pb)
        # the expectation (the cut traces) from the plain build in the
        # instrumented passes (tests/cases.py: expectation_exe)
        cut, err1 = tree_json(cases.expectation_exe(exe), pa, pb)
        sel, err2 = tree_json(exe, a, b, "--control-iteration", str(ka), "--test-iteration", str(kb))
        if cut is None or sel is None:
            check("selection: iteration %d/%d runs" % (ka, kb), False, err1 + err2)
            continue
        ok, why = same_rows([(r["lca"], r["control_us"], r["test_us"]) for r in cut["rows"]],
                            [(r["lca"], r["control_us"], r["test_us"]) for r in sel["rows"]], 1e-9)
        ok = ok and [r["path"] for r in cut["rows"]] == [r["path"] for r in sel["rows"]]
        check("selection: --control-iteration %d --test-iteration %d = the traces cut to them "
              "(%d LCAs)" % (ka, kb, len(sel["rows"])), ok and len(sel["rows"]) > 10, why)
        for side in ("control", "test"):
            x, y = cut["summary"][side], sel["summary"][side]
            check("selection: iteration %d %s summary = the cut trace's" % (ka, side),
                  all(abs(x[f] - y[f]) < 1e-6 for f in ("gpu_us", "matched_us")) and
                  x["roots"] == y["roots"], (x, y))
        busy = gpu_busy_step(da, ka)
        check("selection: iteration %d control GPU time = |U| of the step's launched events" % ka,
              abs(busy - sel["summary"]["control"]["gpu_us"]) < 0.01,
              (busy, sel["summary"]["control"]["gpu_us"]))
    rc, out, err = run(exe, "compare", a, b, "--match", "tree", "--control-iteration", "99")
    check("selection: a missing iteration is a usage error", rc == 2 and "99" in err, err)


def betai(a, b, x):
    """The regularized incomplete beta function I_x(a, b) (Lentz's continued
    fraction), for the t distribution without SciPy."""
    import math
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - betai(b, a, 1.0 - x)
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
    front = math.exp(math.log(x) * a + math.log(1 - x) * b + lbeta) / a
    tiny = 1e-300
    f, c, d = 1.0, 1.0, 0.0
    for i in range(0, 400):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2 == 0:
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            num = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1.0 + num * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + num / c
        c = c if abs(c) > tiny else tiny
        f *= c * d
        if abs(1.0 - c * d) < 1e-15:
            break
    return front * (f - 1.0)


def welch_p(x, y):
    """Welch's two-sided p-value of y against x, as docs/stats.md states it."""
    nx, ny = len(x), len(y)
    if nx < 2 or ny < 2:
        return float("nan")
    if min(x) == max(x) and min(y) == max(y):  # docs/stats.md: equal constants p 1, else 0
        return 1.0 if x[0] == y[0] else 0.0
    mx, my = sum(x) / nx, sum(y) / ny
    vx = sum((v - mx) ** 2 for v in x) / (nx - 1)
    vy = sum((v - my) ** 2 for v in y) / (ny - 1)
    ex, ey = vx / nx, vy / ny
    t = (my - mx) / (ex + ey) ** 0.5
    df = (ex + ey) ** 2 / (ex * ex / (nx - 1) + ey * ey / (ny - 1))
    return betai(df / 2, 0.5, df / (df + t * t))


def bh(ps):
    """Benjamini-Hochberg q-values (NaN p: NaN q, not counted)."""
    import math
    idx = sorted((p, i) for i, p in enumerate(ps) if not math.isnan(p))
    m, q, run_min = len(idx), [float("nan")] * len(ps), 1.0
    for rank in range(m, 0, -1):
        p, i = idx[rank - 1]
        run_min = min(run_min, p * m / rank)
        q[i] = run_min
    return q


def test_stats(exe, tmp):
    import math
    a, b = (trace(x) for x in MULTI)
    sa, sb = sorted(steps_of(load_shared(a))), sorted(steps_of(load_shared(b)))
    js, err = tree_json(exe, a, b, "--stats", "--control-iteration", "all", "--test-iteration", "all")
    if js is None:
        check("--stats: runs", False, err)
        return
    # the samples, independently: one --match tree per iteration pair
    samples = {}
    for i, (ka, kb) in enumerate(zip(sa, sb)):
        one, err = tree_json(cases.expectation_exe(exe), a, b, "--control-iteration", str(ka),
                             "--test-iteration", str(kb))
        if one is None:
            check("--stats: iteration %d runs" % ka, False, err)
            return
        for k, r in key_rows(one).items():
            s = samples.setdefault(k, ([0.0] * len(sa), [0.0] * len(sb), [0, 0]))
            if r["control_count"]:
                s[0][i] += r["control_us"]
                s[2][0] += r["control_count"]
            if r["test_count"]:
                s[1][i] += r["test_us"]
                s[2][1] += r["test_count"]
    rows = key_rows(js)
    check("--stats: one row per LCA key of the per-iteration matches (%d)" % len(rows),
          set(rows) == set(samples), (len(rows), len(samples)))
    keys = [k for k in rows if k in samples]
    ps = [welch_p(samples[k][0], samples[k][1]) for k in keys]
    qs = bh(ps)
    bad = []
    verdicts = {}
    for k, p, q in zip(keys, ps, qs):
        r, (x, y, n) = rows[k], samples[k]
        mx, my = sum(x) / len(x), sum(y) / len(y)
        if n[0] == 0 and n[1] > 0:
            want = "added"
        elif n[1] == 0 and n[0] > 0:
            want = "removed"
        elif math.isnan(p):
            want = "n/a"
        else:
            ch = (my - mx) / mx * 100 if mx else (math.inf if my > mx else -math.inf if my < mx else 0)
            want = ("slower" if q <= 0.05 and ch >= 1 else
                    "faster" if q <= 0.05 and ch <= -1 else "noise")
        verdicts[want] = verdicts.get(want, 0) + 1
        got_p = r["p_value"] if r["p_value"] is not None else float("nan")
        ok = (r["control_n"] == len(x) and r["test_n"] == len(y)
              and abs(r["control_mean"] - mx) < 1e-6 and abs(r["test_mean"] - my) < 1e-6
              and abs(r["control_us"] - sum(x)) < 1e-6 and abs(r["test_us"] - sum(y)) < 1e-6
              and (math.isnan(p) == math.isnan(got_p))
              and (math.isnan(p) or abs(got_p - p) <= 1e-6 * max(p, 1e-12) + 1e-12)
              and r["verdict"] == want)
        if not ok:
            bad.append((k[1][:40], r["verdict"], want, got_p, p, r["control_mean"], mx))
    check("--stats: samples, Welch p-values and verdicts of %d LCAs %s"
          % (len(keys), sorted(verdicts.items())),
          not bad and verdicts.get("slower", 0) > 0 and verdicts.get("noise", 0) > 0, bad[:5])
    js1, err = tree_json(exe, a, b, "--stats")
    check("--stats with one iteration a side: every verdict n/a, a note",
          js1 is not None and all(r["verdict"] in ("n/a", "added", "removed") for r in js1["rows"])
          and "fewer than 2" in err, err)
    rc, out, err = run(exe, "compare", a, b, "--match", "tree", "--stats", "--by", "lca-name")
    check("--stats with --by lca-name: exit 2", rc == 2, err)


def test_report(exe, tmp):
    """report --match tree: "Matched by structure" holds the LCAs whose time
    changed most, with the numbers of compare --match tree --format json."""
    a, b = trace(PAIRS[0][1]), trace(PAIRS[0][2])
    rc, out, err = run(exe, "compare", a, b, "--match", "tree", "--format", "json")
    js = json.loads(out) if rc == 0 else None
    html_path = os.path.join(tmp, "r.html")
    rc2, _, err2 = run(exe, "report", a, b, "--match", "tree", "-o", html_path, "-q")
    if js is None or rc2 != 0:
        check("report --match tree: runs", False, err + err2)
        return
    page = open(html_path, encoding="utf-8").read()
    check("report --match tree: the section is there", 'id="tree">Matched by structure' in page)
    got = [(int(i), float(c), float(t)) for i, c, t in re.findall(
        r'<tr data-row="(\d+)" data-control-us="([^"]+)" data-test-us="([^"]+)">', page)]
    rows = js["rows"]
    order = sorted(range(len(rows)), key=lambda i: (-abs(rows[i]["test_us"] - rows[i]["control_us"]), i))
    want = [(i, rows[i]["control_us"], rows[i]["test_us"]) for i in order[:15]]
    check("report --match tree: the top LCAs and their times equal the JSON's (%d)" % len(got),
          got == want and len(got) == 15, (got[:3], want[:3]))
    summ = re.findall(r'<li data-gpu-us="([^"]+)" data-matched-us="([^"]+)">', page)
    check("report --match tree: each side's GPU and matched time equal the JSON's",
          [(float(g), float(m)) for g, m in summ] ==
          [(js["summary"][s]["gpu_us"], js["summary"][s]["matched_us"]) for s in ("control", "test")],
          summ)
    rc3, _, err3 = run(exe, "report", a, b, "-o", html_path, "-q")
    check("report without --match tree: no such section",
          rc3 == 0 and "Matched by structure" not in open(html_path, encoding="utf-8").read(), err3)


def test_explain(exe):
    """explain NAME --match tree: the LCAs of that name (or that path), as
    compare --match tree --format json has them, and their totals."""
    a, b = trace(PAIRS[0][1]), trace(PAIRS[0][2])
    js, err = tree_json(exe, a, b)
    if js is None:
        check("explain --match tree: compare runs", False, err)
        return
    names = {}
    for r in js["rows"]:
        names.setdefault(r["lca"], []).append(r)
    name = max(names, key=lambda k: (len(names[k]), k))
    rc, out, err = run(exe, "explain", a, b, name, "--match", "tree", "--format", "json", "--ns")
    ex = json.loads(out) if rc == 0 else {}
    fields = ("lca", "path", "control_us", "test_us", "control_count", "test_count",
              "control_kernels", "test_kernels", "control_input_dims", "test_input_dims",
              "control_input_types", "test_input_types")
    want = [{k: r[k] for k in fields} for r in names[name]]
    check("explain %s --match tree: its %d LCAs (paths, times, kernels) as compare's"
          % (name, len(want)), ex.get("rows") == want and len(want) > 1, (rc, err, out[:300]))
    check("explain --match tree: the totals are the sums of its LCAs",
          ex and abs(ex["control"]["gpu_us"] - sum(r["control_us"] for r in want)) < 1e-9
          and abs(ex["test"]["gpu_us"] - sum(r["test_us"] for r in want)) < 1e-9
          and ex["test"]["count"] == sum(r["test_count"] for r in want), ex and ex["control"])
    path = names[name][0]["path"]
    rc, out, err = run(exe, "explain", a, b, path, "--match", "tree", "--format", "json", "--ns")
    ex = json.loads(out) if rc == 0 else {}
    check("explain PATH --match tree: that one LCA",
          ex.get("rows") == want[:1], (rc, err, out[:300]))
    rc, out, err = run(exe, "explain", a, b, "aten::no_such_op", "--match", "tree")
    check("explain --match tree: an unknown name is exit 1 with the closest names",
          rc == 1 and "closest" in err, (rc, err))


def test_report_input_dims(exe, tmp):
    """report --match tree: each LCA row of "Matched by structure" shows the
    input dims that compare --match tree's table and JSON have: each side's
    own in data attributes, the cell the control's, "a | b" when the sides
    differ, "-" when neither has them."""
    import html as htmllib
    a, b = trace(PAIRS[0][1]), trace(PAIRS[0][2])
    js, err = tree_json(exe, a, b)
    html_path = os.path.join(tmp, "dims.html")
    rc, _, err2 = run(exe, "report", a, b, "--match", "tree", "-o", html_path, "-q")
    if js is None or rc != 0:
        check("report --match tree input dims: runs", False, (err, err2))
        return
    page = open(html_path, encoding="utf-8").read()
    cells = re.findall(r'<tr data-row="(\d+)" [^>]*>.*?<td class="dims" '
                       r'data-control-input-dims="([^"]*)" data-test-input-dims="([^"]*)">'
                       r'([^<]*)</td>', page)
    rows, bad = js["rows"], []
    for i, c, t, shown in cells:
        r = rows[int(i)]
        c, t, shown = htmllib.unescape(c), htmllib.unescape(t), htmllib.unescape(shown)
        want_c, want_t = r["control_input_dims"], r["test_input_dims"]
        x, y = want_c or "-", want_t or "-"
        if (c, t) != (want_c or "", want_t or "") or shown != (x if x == y else x + " | " + y):
            bad.append((i, c, t, shown, want_c, want_t))
    check("report --match tree: the header has an input dims column",
          "<th>change</th><th>input dims</th><th>GPU events</th>" in page)
    check("report --match tree: each top LCA's input dims are the JSON's, shown as the table "
          "shows them (%d rows, %d with dims)" % (len(cells), sum(c[3] != "-" for c in cells)),
          len(cells) == 15 and sum(c[3] != "-" for c in cells) > 0 and not bad, bad[:2])


def main():
    exe = sys.argv[1]
    if not os.path.isdir(os.path.join(SHARED, PAIRS[0][1])):
        print("tree: the shared traces are not at %s" % SHARED)
        print("tree: 0 passed, 1 failed")
        sys.exit(1)
    with tempfile.TemporaryDirectory() as tmp:
        test_tracelens(exe)
        test_root_alignment(exe, tmp)
        test_sum_rule(exe)
        test_by_name(exe, tmp)
        test_bad_input(exe, tmp)
        test_input_dims(exe)
        test_python_frames(exe, tmp)
        test_report(exe, tmp)
        test_report_input_dims(exe, tmp)
        test_explain(exe)
        if os.path.isdir(os.path.join(SHARED, MULTI[0])):
            test_selection(exe, tmp)
            test_stats(exe, tmp)
    print("tree: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

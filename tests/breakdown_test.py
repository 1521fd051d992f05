#!/usr/bin/env python3
"""tracediff breakdown (docs/breakdown.md) against an independent reading of
its definitions.

    breakdown_test.py TRACEDIFF

- The waterfall adds up: on every pair of the reference cases, each side's
  components sum to its step time and their diffs to the step's change
  (within 1e-6 us: the numbers are means, printed with 17 digits).
- --hta-scope per rank equals a computation of the spec's definitions here,
  from the raw JSON events (kernel time, idle, compute, non-compute, the
  overlap, the time per kernel-type label, idle by stream and cause), on
  several real traces.
- On a trace without steps the default scope equals --hta-scope.
- A side with no GPU events: the GPU numbers are null, the note says so,
  exit 0.
- --per-rank: one row per rank and side; the slowest rank marked, ranks
  above the median by more than --straggler flagged.
- A plain file cut into pieces read by several threads (TD_SPLIT) gives
  the same breakdown as one read whole.
- From summaries: the bytes of breakdown from the traces, on 5 pairs and in
  several formats and scopes; an older summary, or one of a selection, is
  one error naming it and saying to re-summarize.
- HTA's own numbers (tests/breakdown/hta/README.md): --hta-scope
  --per-rank on every shared set HTA reads equals them exactly; where HTA
  raises (no GPU events) we say "no GPU events"; a negative non-compute
  time from rounding is given with a note.
- plot breakdown: every bar of the SVG stands where the JSON's numbers put
  it (its rectangle against the axis the SVG declares), the bars chain from
  control's step through each component's change to test's; --per-rank:
  each rank's segments add up to its step per iteration, the straggler is
  marked; PNG and PDF are whole images of the asked size; a side without
  GPU events draws with a note; options of the bar charts are usage
  errors.
- --step-marker: a trace whose ProfilerStep events were renamed train_step,
  read with --step-marker '^train_step$', gives the numbers of that trace
  with ProfilerStep#0, #1, ... inserted at the markers' times (in time
  order); for breakdown and compare. A marker that matches nothing: exit 1,
  naming the side and the expression.
"""
import bisect, gzip, json, math, os, re, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402  (run_once: one process per distinct command)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
G = os.path.join(ROOT, "tests", "golden")
T = os.path.join(G, "traces")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))


def run(exe, *args, env=None):
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8", **(env or {}))
    env.pop("HTA_DISABLE_NS_ROUNDING", None)
    p = cases.run_once([exe] + list(args), env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def breakdown(exe, c, t, *extra, env=None):
    rc, out, err = run(exe, "breakdown", c, t, "-q", "--format", "json", *extra, env=env)
    if rc != 0:
        return rc, None, err
    return rc, json.loads(out), err


# ---- the spec, read independently ------------------------------------------

def trace_files(path):
    if os.path.isfile(path):
        return [path]
    return sorted(os.path.join(path, f) for f in os.listdir(path)
                  if f.endswith((".json", ".json.gz")))


_LOADED = {}


def load_events(path):
    """(events, rank) of a trace file, read once per run (the step count and
    the spec's numbers read the same file; the callers only read them)."""
    if path not in _LOADED:
        _LOADED[path] = _load_events(path)
    return _LOADED[path]


_DOCS = {}


def load_doc(path):
    """The parsed file, once per run; the callers only read it."""
    if path not in _DOCS:
        op = gzip.open if path.endswith(".gz") else open
        with op(path, "rt", encoding="utf-8") as f:
            _DOCS[path] = json.load(f)
    return _DOCS[path]


def _load_events(path):
    doc = load_doc(path)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    rank = doc.get("distributedInfo", {}).get("rank", 0) if isinstance(doc, dict) else 0
    return evs, rank


def num_or_minus1(v):
    if isinstance(v, bool):
        return -1
    if isinstance(v, int):
        return v
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return -1


def kept(evs):
    """The events HTA parses, with HTA's rounding when a ts is decimal."""
    out = []
    decimal = any(isinstance(e, dict) and (not isinstance(e.get("ts"), int) or
                                           isinstance(e.get("ts"), bool))
                  for e in evs if isinstance(e, dict) and "dur" in e and "cat" in e)
    for i, e in enumerate(evs):
        if not isinstance(e, dict) or "dur" not in e or "cat" not in e or e["cat"] == "Trace":
            continue
        if not isinstance(e.get("ts"), (int, float)):
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        ts, dur = e["ts"], e["dur"]
        if decimal:
            end = math.floor(ts + dur)
            ts = math.ceil(ts)
            dur = end - ts
        out.append(dict(name=e.get("name", ""), cat=e["cat"], ts=ts, end=ts + dur,
                        stream=num_or_minus1(args.get("stream", -1)),
                        corr=num_or_minus1(args.get("correlation", -1)), i=i))
    return out


def ktype(n):
    if re.match(r"nccl|hip|hccl", n) or "ncclKernel" in n:
        return "COMMUNICATION"
    if re.match(r"Memcpy|Memset|dma", n):
        return "MEMORY"
    if (re.match(r"nccl|Stream Wait Event|cuda.*LaunchKernel|runFunction|hip|job_exe|packet|"
                 r"pe_exe|cpum_exe_subgraph|hccl|collective_subgraph_execution", n)
            or re.search(r"Memcpy|Memset|dma|Sync", n)):
        return "OTHER"
    return "COMPUTATION"


def union(iv):
    """Merged intervals of (ts, end), HTA's way: a group goes on while ts <=
    the largest end so far."""
    out = []
    for ts, end in sorted(iv, key=lambda x: x[0]):
        if out and ts <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([ts, end])
    return out


def length(u):
    return sum(b - a for a, b in u)


def intersect(u, v):
    i = j = 0
    t = 0
    while i < len(u) and j < len(v):
        lo, hi = max(u[i][0], v[j][0]), min(u[i][1], v[j][1])
        if hi > lo:
            t += hi - lo
        if u[i][1] < v[j][1]:
            i += 1
        else:
            j += 1
    return t


def label_times(us):
    """Time per label from the three unions, by elementary segments: a
    segment's label is the set of unions that hold its midpoint (found by
    bisection: each union is sorted and disjoint)."""
    pts = sorted({p for u in us.values() for iv in u for p in iv})
    out = {}
    order = ["COMPUTATION", "COMMUNICATION", "MEMORY"]
    starts = {k: [lo for lo, hi in us[k]] for k in order}

    def holds(k, x):
        i = bisect.bisect_right(starts[k], x) - 1
        return i >= 0 and x < us[k][i][1]

    for a, b in zip(pts, pts[1:]):
        mid = (a + b) / 2
        act = [k for k in order if holds(k, mid)]
        if act:
            lab = " overlapping ".join(act)
            out[lab] = out.get(lab, 0) + (b - a)
    return out


KCATS = {"kernel", "Kernel", "gpu_memset", "Memset", "gpu_memcpy", "Memcpy", "mtia_ccp_events"}


def hta_scope(evs, nsteps_set):
    if nsteps_set < 2:
        return evs
    steps = [e for e in evs if e["stream"] == -1 and re.match(r"ProfilerStep#\d+", e["name"])]
    if not steps:
        return evs
    cut = max(e["ts"] for e in steps)

    def gpudef(e):
        return (e["stream"] >= 0 and e["corr"] >= 0) or e["name"] in ("Event Sync", "Context Sync")
    cpu_kept = [e for e in evs if not gpudef(e) and e["ts"] < cut]
    corrs = {e["corr"] for e in cpu_kept}
    return cpu_kept + [e for e in evs if gpudef(e) and e["corr"] in corrs]


def expected_rank(evs):
    g = [e for e in evs if e["stream"] != -1]
    if not g:
        return None
    r = {}
    kt = max(e["end"] for e in g) - min(e["ts"] for e in g)
    ug = union([(e["ts"], e["end"]) for e in g])
    us = {k: union([(e["ts"], e["end"]) for e in g if ktype(e["name"]) == k])
          for k in ("COMPUTATION", "COMMUNICATION", "MEMORY")}
    r["kernel_time_us"] = kt
    r["idle_us"] = kt - length(ug)
    r["busy_us"] = length(ug)
    r["compute_us"] = length(us["COMPUTATION"])
    r["non_compute_us"] = kt - r["compute_us"] - r["idle_us"]
    comm = length(us["COMMUNICATION"])
    both = intersect(us["COMMUNICATION"], us["COMPUTATION"])
    r["comm_comp_overlap_pct"] = round(100 * both / comm, 2) if comm else None
    r["exposed_comm_us"] = comm - both
    r["kernel_types"] = label_times(us)
    # idle by cause: launches are the host sides of the correlation ids
    launch = {}
    for e in evs:
        if e["corr"] != -1 and not (e["stream"] >= 0 and e["corr"] >= 0) and \
                e["name"] not in ("Event Sync", "Context Sync"):
            launch[e["corr"]] = e["ts"]
    streams = {}
    for e in sorted((e for e in g if e["cat"] in KCATS), key=lambda e: (e["ts"], e["i"])):
        streams.setdefault(e["stream"], []).append(e)
    idle = []
    for s in sorted(streams):
        ks = streams[s]
        c = {"host_wait_us": 0, "kernel_wait_us": 0, "other_us": 0}
        for a, b in zip(ks, ks[1:]):
            gap = b["ts"] - a["end"]
            lt = launch.get(b["corr"]) if b["corr"] != -1 else None
            if lt is not None and lt > a["end"]:
                c["host_wait_us"] += gap
            elif gap < 30:
                c["kernel_wait_us"] += gap
            else:
                c["other_us"] += gap
        idle.append(dict(stream=s, **c))
    r["idle_by_stream"] = idle
    return r


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def compare_rank(name, want, got):
    bad = []
    for k in ("kernel_time_us", "idle_us", "busy_us", "compute_us", "non_compute_us",
              "comm_comp_overlap_pct", "exposed_comm_us"):
        if not close(want[k], got[k]):
            bad.append("%s: want %r got %r" % (k, want[k], got[k]))
    wk = {k: v for k, v in want["kernel_types"].items() if v}
    gk = {k: v for k, v in got["kernel_types"].items() if v}
    if set(wk) != set(gk) or any(not close(wk[k], gk[k]) for k in wk):
        bad.append("kernel_types: want %r got %r" % (wk, gk))
    if len(want["idle_by_stream"]) != len(got["idle_by_stream"]) or any(
            a["stream"] != b["stream"] or any(not close(a[k], b[k]) for k in a)
            for a, b in zip(want["idle_by_stream"], got["idle_by_stream"])):
        bad.append("idle_by_stream: want %r got %r" % (want["idle_by_stream"],
                                                       got["idle_by_stream"]))
    check(name, not bad, "; ".join(bad)[:2000])


def step_count(paths):
    names = set()
    for p in paths:
        evs, _ = load_events(p)
        for e in evs:
            if isinstance(e, dict) and isinstance(e.get("name"), str) and \
                    re.match(r"ProfilerStep#\d+", e["name"]) and "dur" in e and "cat" in e:
                names.add(e["name"])
    return len(names)


def test_against_spec(exe, rel):
    path = os.path.join(G, rel)
    files = trace_files(path)
    nsteps = step_count(files)
    rc, got, err = breakdown(exe, path, path, "--hta-scope")
    check("%s: --hta-scope runs" % rel, rc == 0, err)
    if rc != 0:
        return
    ranks = {r["rank"]: r for r in got["control"]["ranks"]}
    for p in files:
        evs, rank = load_events(p)
        want = expected_rank(hta_scope(kept(evs), nsteps))
        r = ranks.get(rank)
        if want is None:
            check("%s rank %s: no GPU events" % (rel, rank),
                  r is not None and r["kernel_time_us"] is None and "no GPU events" in r["notes"])
            continue
        compare_rank("%s rank %s: --hta-scope equals the spec" % (rel, rank), want, r)


# ---- the waterfall ---------------------------------------------------------

def pairs():
    """Every reference pair; the subset's (tests/cases.py) in the
    instrumented passes (TD_TEST_SUBSET=1)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cases as reference
    return sorted({(c["control"], c["test"])
                   for c in reference.load(os.path.join(G, "cases.json"))})


SUBSET = cases.instrumented()


def test_waterfall(exe):
    for c, t in pairs():
        for extra in ((), ("--hta-scope",)):
            rc, j, err = breakdown(exe, os.path.join(G, c), os.path.join(G, t), *extra)
            name = "waterfall adds up: %s vs %s %s" % (c, t, " ".join(extra))
            if rc != 0:
                check(name, False, err)
                continue
            step = j["diff"]["step_us"]
            wf = j["waterfall"]
            d = sum(b["diff_us"] for b in wf)
            sides = [sum(b["control_us"] for b in wf), sum(b["test_us"] for b in wf)]
            ok = close(d, step["test"] - step["control"]) and close(sides[0], step["control"]) \
                and close(sides[1], step["test"])
            ok = ok and wf[-1]["component"] == "CPU overhead not hidden"
            check(name, ok, "sum %r vs %r; sides %r vs %r" % (d, step["diff"], sides,
                                                              (step["control"], step["test"])))


def test_no_steps(exe):
    p = os.path.join(T, "hta-no_steps")
    a = breakdown(exe, p, p)[1]
    b = breakdown(exe, p, p, "--hta-scope")[1]
    strip = lambda j: [dict((k, v) for k, v in r.items() if k != "notes") for r in
                       j["control"]["ranks"]]
    check("no steps: default scope equals --hta-scope", a and b and strip(a) == strip(b) and
          a["diff"] == b["diff"] and a["waterfall"] == b["waterfall"])
    check("no steps: step is the trace's span", a and a["control"]["ranks"][0]["step_us"] > 0)


def test_no_gpu(exe):
    cpu = os.path.join(T, "hta-cpu_only")
    gpu = os.path.join(T, "hta-two_ranks")
    rc, out, err = run(exe, "breakdown", cpu, gpu, "--format", "json")
    check("no GPU events: exit 0", rc == 0, err)
    if rc != 0:
        return
    j = json.loads(out)
    r = j["control"]["ranks"][0]
    check("no GPU events: GPU rows null, step given",
          r["busy_us"] is None and r["idle_us"] is None and r["step_us"] > 0, repr(r))
    check("no GPU events: the note says so", any("no GPU events" in n for n in
                                                 j["control"]["notes"]), repr(j["control"]))
    check("no GPU events: a message on stderr", "no GPU events" in err, err)
    check("no GPU events: diff of GPU rows null", j["diff"]["busy_us"]["control"] is None)
    rc, out, err = run(exe, "breakdown", cpu, gpu, "--format", "table")
    check("no GPU events: the table prints CPU rows and n/a", rc == 0 and "n/a" in out and
          "step_us" in out, out + err)


def test_summaries(exe):
    """breakdown of summaries prints the bytes breakdown of their traces
    prints (JSON, table, per rank, HTA's scope, a selection); a summary
    from before summaries kept the breakdown's records, and one that kept a
    selection of its traces, give one error naming it and the fix."""
    pairs = [("hta-trace_diff/control", "hta-trace_diff/test"),
             ("tracelens-bert_h100", "tracelens-bert_mi300"),
             ("hta-no_steps", "hta-ns_resolution"),
             ("hta-two_ranks", "hta-cpu_only"),
             ("kineto-resnet50_workers0", "kineto-resnet50_workers4")]
    modes = [["--format", "json"], ["--format", "json", "--per-rank", "--hta-scope"],
             ["--format", "table"], ["--format", "csv", "--per-rank"],
             ["--format", "json", "--control-iteration", "all", "--test-iteration", "all"]]
    with tempfile.TemporaryDirectory() as tmp:
        for i, (a, b) in enumerate(pairs[::2] if SUBSET else pairs):
            paths = [os.path.join(T, a), os.path.join(T, b)]
            sums = []
            for k, p in enumerate(paths):
                s = os.path.join(tmp, "%d-%d.tdsum" % (i, k))
                rc, out, err = run(exe, "summarize", p, "-o", s, "-q")
                check("summarize %s" % p, rc == 0, err)
                sums.append(s)
            # the traces' side, the expectation, from the plain build in the
            # instrumented passes (tests/cases.py: expectation_exe)
            ref = cases.expectation_exe(exe)
            for m in modes:
                want = run(ref, "breakdown", paths[0], paths[1], "-q", *m)
                got = run(exe, "breakdown", sums[0], sums[1], "-q", *m)
                check("%s vs %s %s: from summaries, the traces' bytes" % (a, b, " ".join(m)),
                      want[0] == 0 and got == want, got[2] + want[2])
            # one side a summary, the other traces
            want = run(ref, "breakdown", paths[0], paths[1], "-q", "--format", "json")
            got = run(exe, "breakdown", paths[0], sums[1], "-q", "--format", "json")
            check("%s vs %s: traces against a summary" % (a, b), want[0] == 0 and got == want,
                  got[2])
        old = os.path.join(tmp, "old.tdsum")
        with gzip.open(os.path.join(ROOT, "tests", "data", "summary_schema1.tdsum.gz")) as f:
            open(old, "wb").write(f.read())
        rc, out, err = run(exe, "breakdown", old + "#h100", old + "#mi300", "-q")
        lines = err.strip().splitlines()
        check("an older summary: exit 1, one line naming it and saying re-summarize",
              rc == 1 and out == "" and len(lines) == 1 and "old.tdsum#h100" in lines[0]
              and "re-summarize" in lines[0], "exit %d: %s" % (rc, err))
        sel = os.path.join(tmp, "gpu.tdsum")
        rc, out, err = run(exe, "summarize", os.path.join(T, "hta-two_ranks"), "-o", sel,
                           "--device", "gpu", "-q")
        rc, out, err = run(exe, "breakdown", sel, sel, "-q")
        lines = err.strip().splitlines()
        check("a summary of a selection: exit 1, one line naming it and saying re-summarize",
              rc == 1 and out == "" and len(lines) == 1 and "gpu.tdsum" in lines[0]
              and "re-summarize" in lines[0], "exit %d: %s" % (rc, err))


def marker_pair(tmp):
    """Trace A: ProfilerStep renamed train_step (no steps left); trace B: A
    with ProfilerStep#k inserted at the host markers' times."""
    src = trace_files(os.path.join(T, "hta-trace_diff", "control"))[0]
    # the parse the spec's check of this file made (load_doc), left as it
    # is: the renamed events are copies, in a new list and document
    doc = dict(load_doc(src))
    evs = []
    marks = []
    for e in doc["traceEvents"]:
        if isinstance(e, dict) and isinstance(e.get("name"), str) and \
                e["name"].startswith("ProfilerStep#"):
            e = dict(e, name="train_step")
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            if "dur" in e and args.get("stream", -1) == -1 and e.get("cat") != "gpu_user_annotation":
                marks.append(e)
        evs.append(e)
    doc["traceEvents"] = evs
    a = os.path.join(tmp, "a.json")
    with open(a, "w") as f:
        f.write(json.dumps(doc))
    marks.sort(key=lambda e: e["ts"])
    for k, m in enumerate(marks):
        step = dict(m)
        step["name"] = "ProfilerStep#%d" % k
        step["cat"] = "user_annotation"
        evs.append(step)
    b = os.path.join(tmp, "b.json")
    with open(b, "w") as f:
        f.write(json.dumps(doc))
    return a, b, len(marks)


def test_step_marker(exe):
    with tempfile.TemporaryDirectory() as tmp:
        a, b, n = marker_pair(tmp)
        rc0, ja, err = breakdown(exe, a, a, "--step-marker", "^train_step$",
                                 "--control-iteration", "all", "--test-iteration", "all")
        rc1, jb, err1 = breakdown(exe, b, b, "--control-iteration", "all", "--test-iteration",
                                  "all")
        check("step marker: both run", rc0 == 0 and rc1 == 0, err + err1)
        if rc0 or rc1:
            return
        strip = lambda j: [dict((k, v) for k, v in r.items() if k != "notes")
                           for r in j["control"]["ranks"]]
        check("step marker: the marked trace has %d iterations" % n,
              n >= 3 and ja["control"]["ranks"][0]["iterations"] == n, repr(strip(ja)))
        check("step marker: per-rank numbers equal the inserted steps'", strip(ja) == strip(jb),
              "%r\n%r" % (strip(ja), strip(jb)))
        check("step marker: the diff and its per-iteration statistics equal",
              ja["diff"] == jb["diff"] and ja["control"]["samples"] == jb["control"]["samples"]
              == n)
        for it in ("0", "2"):
            rc, oa, e1 = run(exe, "compare", a, a, "--step-marker", "^train_step$",
                             "--control-iteration", it, "--format", "csv", "-q")
            rc2, ob, e2 = run(exe, "compare", b, b, "--control-iteration", it,
                              "--format", "csv", "-q")
            rows = lambda out: sorted(l for l in out.splitlines()[1:]
                                      if not l.startswith(("ProfilerStep#", '"ProfilerStep#')))
            check("step marker: compare iteration %s equals the inserted steps'" % it,
                  rc == 0 and rc2 == 0 and rows(oa) == rows(ob) and len(rows(oa)) > 10, e1 + e2)
        rc2, jc, err2 = breakdown(exe, b, b, "--control-iteration", "all", "--test-iteration",
                                  "all", "-j", "2", env={"TD_SPLIT": "4"})
        check("a file cut into pieces gives the same breakdown", rc2 == 0 and jc == jb, err2)
        rc, out, err = run(exe, "breakdown", a, b, "--step-marker", "no_such_marker_x")
        check("step marker matching nothing: exit 1", rc == 1, "rc %d %s" % (rc, err))
        check("step marker matching nothing: names side and regex",
              "control" in err and "no_such_marker_x" in err, err)
        rc, out, err = run(exe, "compare", a, b, "--step-marker", "(")
        check("step marker: a bad expression is a usage error", rc == 2 and "step-marker" in err,
              "rc %d %s" % (rc, err))


def test_per_rank(exe):
    p = os.path.join(T, "hta-two_ranks")
    rc, j, err = breakdown(exe, p, p, "--hta-scope")
    rc2, out, err2 = run(exe, "breakdown", p, p, "--hta-scope", "--per-rank", "--format", "csv",
                         "--straggler", "0.001")
    check("per rank: runs", rc == 0 and rc2 == 0, err + err2)
    if rc or rc2:
        return
    lines = [l.split(",") for l in out.splitlines()]
    head, rows = lines[0], [dict(zip(lines[0], l)) for l in lines[1:]]
    steps = {int(r["rank"]): r["step_us"] for r in j["control"]["ranks"]}
    ctl = [r for r in rows if r["side"] == "control"]
    slow = max(steps, key=lambda k: steps[k])
    check("per rank: one row per rank and side", len(rows) == 4 and len(ctl) == 2, out)
    check("per rank: the slowest rank is marked",
          [int(r["rank"]) for r in ctl if r["slowest"] == "1"] == [slow], out)
    check("per rank: above the median by more than --straggler is flagged",
          [int(r["rank"]) for r in ctl if r["straggler"] == "1"] == [slow], out)
    check("per rank: the numbers are the JSON's",
          all(close(float(r["step_us"]), steps[int(r["rank"])]) for r in ctl), out)
    rc, out, err = run(exe, "breakdown", p, p, "--hta-scope", "--per-rank", "--format", "csv",
                       "--straggler", "50")
    check("per rank: no straggler within 50%",
          rc == 0 and all(l.split(",")[-1] == "0" for l in out.splitlines()[1:]), out + err)


# ---- plot breakdown --------------------------------------------------------

def svg_bars(path):
    import xml.etree.ElementTree as ET
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()
    axis = {k: float(root.get("data-" + k)) for k in ("lo", "hi", "top", "height", "scale")}
    bars = []
    for g in root.iter(ns + "g"):
        cls = g.get("class") or ""
        if cls not in ("step", "change", "segment"):
            continue
        rect = g.find(ns + "rect")
        bars.append(dict(cls=cls, name=g.get("data-component"), side=g.get("data-side"),
                         rank=g.get("data-rank"), a=float(g.get("data-from-us")),
                         b=float(g.get("data-to-us")), title=g.findtext(ns + "title") or "",
                         y=float(rect.get("y")), h=float(rect.get("height"))))
    texts = [t.text or "" for t in root.iter(ns + "text")]
    return root, axis, bars, texts


def bar_placed(axis, bar):
    """The rectangle spans the two values on the declared axis (0.1 px, as
    the SVG writes one decimal; a bar thinner than half a pixel is drawn
    half a pixel tall)."""
    y = lambda us: axis["top"] + axis["height"] - axis["height"] * (
        us / axis["scale"] - axis["lo"]) / (axis["hi"] - axis["lo"])
    top, bottom = min(y(bar["a"]), y(bar["b"])), max(y(bar["a"]), y(bar["b"]))
    return abs(bar["y"] - top) <= 0.11 and abs(bar["h"] - max(bottom - top, 0.5)) <= 0.11


def test_plot(exe):
    tmp = tempfile.mkdtemp(prefix="td-bdplot-")
    out = os.path.join(tmp, "w.svg")
    plotted = pairs()[::6] if SUBSET else pairs()
    for c, t in plotted:
        cp, tp = os.path.join(G, c), os.path.join(G, t)
        name = "plot breakdown: %s vs %s" % (c, t)
        # the numbers the bars must show, from the plain build in the
        # instrumented passes (tests/cases.py: expectation_exe); in the plain
        # pass the waterfall's run of the same command
        rc, j, err = breakdown(cases.expectation_exe(exe), cp, tp)
        rc2, _, err2 = run(exe, "plot", "breakdown", cp, tp, "-q", "-o", out)
        if rc or rc2:
            check(name, False, err + err2)
            continue
        _, axis, bars, _ = svg_bars(out)
        step = j["diff"]["step_us"]
        wf = {b["component"]: b for b in j["waterfall"]}
        steps = [b for b in bars if b["cls"] == "step"]
        changes = [b for b in bars if b["cls"] == "change"]
        ok = len(steps) == 2 and len(changes) == len(wf) and \
            [b["name"] for b in changes] == [b["component"] for b in j["waterfall"]]
        ok = ok and steps[0]["a"] == 0 and close(steps[0]["b"], step["control"]) and \
            steps[1]["a"] == 0 and close(steps[1]["b"], step["test"])
        run_us = step["control"]
        for b in changes if ok else []:
            ok = ok and close(b["a"], run_us) and close(b["b"] - b["a"], wf[b["name"]]["diff_us"])
            run_us = b["b"]
        ok = ok and close(run_us, step["test"])
        check(name + ": the bars chain from step to step by the JSON's changes", ok,
              repr((step, [(b["name"], b["a"], b["b"]) for b in bars])))
        check(name + ": every bar where its values put it",
              bars and all(bar_placed(axis, b) for b in bars),
              repr([b for b in bars if not bar_placed(axis, b)][:2]) + repr(axis))
        check(name + ": every bar has its tooltip", all(b["title"] for b in bars))

    # The report's waterfall card carries the same chart.
    cp, tp = os.path.join(T, "hta-trace_diff/control"), os.path.join(T, "hta-trace_diff/test")
    html = os.path.join(tmp, "r.html")
    rc, _, err = run(exe, "report", cp, tp, "-q", "-o", html)
    rc2, _, err2 = run(exe, "plot", "breakdown", cp, tp, "-q", "-o", out)
    ok = rc == 0 and rc2 == 0
    if ok:
        page = open(html, encoding="utf-8").read()
        i = page.find('<svg xmlns="http://www.w3.org/2000/svg" class="td-breakdown"')
        ok = i >= 0
        if ok:
            emb = os.path.join(tmp, "emb.svg")
            with open(emb, "w", encoding="utf-8") as fh:
                fh.write(page[i:page.index("</svg>", i) + 6])
            key = lambda bars: [(b["cls"], b["name"], b["a"], b["b"]) for b in bars]
            ok = key(svg_bars(emb)[2]) == key(svg_bars(out)[2])
    check("report: the waterfall card holds plot breakdown's chart", ok, err + err2)

    p = os.path.join(T, "hta-two_ranks")
    rc, j, err = breakdown(exe, p, p, "--hta-scope", "--straggler", "0.001")
    rc2, _, err2 = run(exe, "plot", "breakdown", p, p, "--hta-scope", "--per-rank", "--straggler",
                       "0.001", "-q", "-o", out)
    check("plot breakdown --per-rank: runs", rc == 0 and rc2 == 0, err + err2)
    if rc == 0 and rc2 == 0:
        root, axis, bars, texts = svg_bars(out)
        ok = "per-rank" in root.get("class")
        for side in ("control", "test"):
            for r in j[side]["ranks"]:
                seg = [b for b in bars if b["side"] == side and b["rank"] == str(r["rank"])]
                total = sum(b["b"] - b["a"] for b in seg)
                ok = ok and seg and close(total, r["step_us"] / r["iterations"])
        check("plot breakdown --per-rank: each rank's segments add up to its step per iteration",
              ok, repr(bars[:4]))
        check("plot breakdown --per-rank: every segment where its values put it",
              all(bar_placed(axis, b) for b in bars))
        nstrag = sum(r["straggler"] for s in ("control", "test") for r in j[s]["ranks"])
        check("plot breakdown --per-rank: the stragglers are marked",
              nstrag > 0 and texts.count("straggler") == nstrag, repr((nstrag, texts)))

    import struct
    for ext, magic in ((".png", b"\x89PNG"), (".pdf", b"%PDF")):
        f = os.path.join(tmp, "w" + ext)
        rc, _, err = run(exe, "plot", "breakdown", os.path.join(T, "hta-trace_diff/control"),
                         os.path.join(T, "hta-trace_diff/test"), "-q", "--width", "800",
                         "--height", "500", "-o", f)
        data = open(f, "rb").read() if rc == 0 and os.path.exists(f) else b""
        ok = data.startswith(magic)
        if ext == ".png" and ok:
            ok = struct.unpack(">II", data[16:24]) == (800, 500)
        if ext == ".pdf":
            ok = ok and data.rstrip().endswith(b"%%EOF")
        check("plot breakdown %s: a whole image of the asked size" % ext, ok, err)

    rc, _, err = run(exe, "plot", "breakdown", os.path.join(T, "hta-cpu_only"), p, "-o", out)
    _, _, bars, texts = svg_bars(out) if rc == 0 else (None, None, [], [])
    steps = [b for b in bars if b["cls"] == "step"]
    cpu = [b for b in bars if b["name"] == "CPU overhead not hidden"]
    check("plot breakdown: a side without GPU events: exit 0, the note, its step all CPU "
          "overhead (as the waterfall counts it)",
          rc == 0 and "no GPU events" in err and len(steps) == 2 and len(cpu) == 1 and
          close(cpu[0]["a"] - sum(b["b"] - b["a"] for b in bars
                                  if b["cls"] == "change" and b is not cpu[0]), steps[0]["b"]),
          err + repr(texts))
    for args, want in ((("--top", "5"), "--top does not apply"),
                       (("--side", "test"), "--side does not apply"),
                       (("--by", "op"), "--by does not apply")):
        rc, _, err = run(exe, "plot", "breakdown", p, p, "-o", out, *args)
        check("plot breakdown %s: a usage error" % args[0], rc == 2 and want in err, err)
    rc, _, err = run(exe, "plot", "counts", p, p, "--per-rank", "-o", out)
    check("plot counts --per-rank: a usage error", rc == 2 and "for plot breakdown" in err, err)
    rc, _, err = run(exe, "plot", "breakdown", p, p, "-o", os.path.join(tmp, "w.gif"))
    check("plot breakdown -o w.gif: a usage error before reading", rc == 2 and ".svg" in err, err)


def test_negative_rounding(exe):
    """Spec quirk: a sub-us event given a negative duration by HTA's
    rounding of decimal timestamps makes non_compute negative (HTA fails an
    assertion there); we give the number and say why."""
    evs = [{"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "ts": 0.5, "dur": 40.0,
            "pid": 1, "tid": 1, "args": {}},
           {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1.5, "dur": 2.0,
            "pid": 1, "tid": 1, "args": {"correlation": 1}},
           {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "ts": 4.5, "dur": 2.0,
            "pid": 1, "tid": 1, "args": {"correlation": 2}},
           {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "ts": 10.0, "dur": 5.0,
            "pid": 0, "tid": 7, "args": {"stream": 7, "correlation": 1}},
           {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH", "ts": 20.6, "dur": 0.2,
            "pid": 0, "tid": 7, "args": {"stream": 7, "correlation": 2}}]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "negative.json")
        with open(path, "w") as f:
            f.write(json.dumps({"traceEvents": evs, "distributedInfo": {"rank": 0}}))
        want = expected_rank(kept(evs))
        rc, got, err = breakdown(exe, path, path, "--hta-scope")
        check("negative duration: runs, exit 0", rc == 0, err)
        if rc != 0:
            return
        r = got["control"]["ranks"][0]
        check("negative duration: the spec's non_compute (%s) is negative" % want["non_compute_us"],
              want["non_compute_us"] < 0)
        compare_rank("negative duration: numbers given as the spec defines them", want, r)
        notes = r["notes"] + got["control"]["notes"]
        check("negative duration: a note says why",
              any("negative" in n and "rounding" in n for n in notes), notes)


# ---- HTA's own numbers -----------------------------------------------------

HTA_EXPECTED = os.path.join(ROOT, "tests", "breakdown", "hta")
# The reference cases' copy of the shared traces (scripts/sync_golden.sh).
SHARED = os.environ.get("TD_SHARED_TRACES", os.path.join(ROOT, "tests", "golden", "traces"))


def hta_round(x, digits):
    """pandas' round, as HTA rounds its percentages: scale, round half to
    even, scale back (numpy.round), which Python's round(x, d) is not."""
    return round(x * 10 ** digits) / 10 ** digits


def test_against_hta(exe, name):
    """--hta-scope --per-rank on one shared set against the numbers HTA
    itself gave (tests/breakdown/hta/README.md): exact, HTA's percentages
    recomputed from ours with HTA's rounding."""
    with open(os.path.join(HTA_EXPECTED, name)) as f:
        want = json.load(f)
    rel, err_of = want["set"], want["errors"]
    path = os.path.join(SHARED, rel)
    if "TraceAnalysis" in err_of:
        check("%s: HTA did not load it, and we do" % rel,
              breakdown(exe, path, path, "--hta-scope")[0] == 0)
        return
    rc, got, err = breakdown(exe, path, path, "--hta-scope", "--per-rank")
    check("%s: --hta-scope --per-rank runs" % rel, rc == 0, err)
    if rc != 0:
        return
    ranks = {r["rank"]: r for r in got["control"]["ranks"]}
    check("%s: HTA's ranks" % rel, sorted(ranks) == want["ranks"], "%s %s" % (sorted(ranks), want["ranks"]))
    if "get_temporal_breakdown" in err_of:
        # HTA raises on a rank without GPU events (spec: quirks); we say so.
        check("%s: no GPU events where HTA raises (%s)" % (rel, err_of["get_temporal_breakdown"]),
              all(r["kernel_time_us"] is None and "no GPU events" in r["notes"]
                  for r in ranks.values()), json.dumps(list(ranks.values()))[:300])
    bad = []
    for t in want.get("temporal_breakdown", []):
        r = ranks.get(t["rank"], {})
        k = r.get("kernel_time_us")
        for col, mine in (("kernel_time(us)", k), ("idle_time(us)", r.get("idle_us")),
                          ("compute_time(us)", r.get("compute_us")),
                          ("non_compute_time(us)", r.get("non_compute_us"))):
            if mine != t[col]:
                bad.append("rank %s %s: %s, HTA %s" % (t["rank"], col, mine, t[col]))
        for col, mine in (("idle_time_pctg", r.get("idle_us")), ("compute_time_pctg", r.get("compute_us")),
                          ("non_compute_time_pctg", r.get("non_compute_us"))):
            if k is None or hta_round(100 * mine / k, 2) != t[col]:
                bad.append("rank %s %s: from %s/%s, HTA %s" % (t["rank"], col, mine, k, t[col]))
        if t["non_compute_time(us)"] < 0:
            check("%s rank %s: negative non-compute time given with a note" % (rel, t["rank"]),
                  any("negative" in n for n in r.get("notes", [])), r.get("notes"))
    check("%s: temporal breakdown equals HTA's" % rel, not bad and "temporal_breakdown" in want
          or "get_temporal_breakdown" in err_of, "; ".join(bad[:5]))
    bad = []
    for o in want.get("comm_comp_overlap", []):
        mine = ranks.get(o["rank"], {}).get("comm_comp_overlap_pct")
        if mine != o["comp_comm_overlap_pctg"]:
            bad.append("rank %s: %s, HTA %s" % (o["rank"], mine, o["comp_comm_overlap_pctg"]))
    check("%s: communication-computation overlap equals HTA's" % rel, not bad, "; ".join(bad))
    bad = []
    for rk, table in want.get("kernel_type_per_rank", {}).items():
        mine = ranks.get(int(rk), {}).get("kernel_types") or {}
        theirs = {x["kernel_type"]: x["sum"] for x in table}
        if {k: v for k, v in mine.items() if v} != {k: v for k, v in theirs.items() if v}:
            bad.append("rank %s: %s, HTA %s" % (rk, mine, theirs))
        total = sum(theirs.values())
        for x in table:
            if hta_round(100 * mine.get(x["kernel_type"], 0) / total, 1) != x["percentage"]:
                bad.append("rank %s %s %%: HTA %s" % (rk, x["kernel_type"], x["percentage"]))
    sums = {}
    for r in ranks.values():
        for k, v in (r.get("kernel_types") or {}).items():
            sums[k] = sums.get(k, 0) + v
    theirs = {x["kernel_type"]: x["sum"] for x in want.get("kernel_type_all_ranks", [])}
    if {k: v for k, v in sums.items() if v} != {k: v for k, v in theirs.items() if v}:
        bad.append("all ranks: %s, HTA %s" % (sums, theirs))
    check("%s: kernel-type time per rank and over the ranks equals HTA's" % rel,
          not bad and "kernel_type_per_rank" in want, "; ".join(bad[:5]))
    if "get_idle_time_breakdown" in err_of:
        check("%s: no idle streams where HTA raises (%s)" % (rel, err_of["get_idle_time_breakdown"]),
              all(not r["idle_by_stream"] for r in ranks.values()))
        return
    bad = []
    seen = set()
    cols = {"host_wait": "host_wait_us", "kernel_wait": "kernel_wait_us", "other": "other_us"}
    for i in want["idle_time_breakdown"]:
        streams = {s["stream"]: s for s in ranks.get(i["rank"], {}).get("idle_by_stream", [])}
        s = streams.get(i["stream"])
        seen.add((i["rank"], i["stream"], i["idle_category"]))
        if s is None:
            bad.append("rank %s stream %s: absent" % (i["rank"], i["stream"]))
            continue
        mine = s[cols[i["idle_category"]]]
        total = s["host_wait_us"] + s["kernel_wait_us"] + s["other_us"]
        ratio = hta_round(mine / total, 2) if total else None
        if mine != i["idle_time"] or ratio != i["idle_time_ratio"]:
            bad.append("rank %s stream %s %s: %s (%s), HTA %s (%s)" % (
                i["rank"], i["stream"], i["idle_category"], mine, ratio, i["idle_time"],
                i["idle_time_ratio"]))
    # HTA leaves out a category without gaps: ours is 0 there.
    for r in ranks.values():
        for s in r["idle_by_stream"]:
            for c, col in cols.items():
                if (r["rank"], s["stream"], c) not in seen and s[col] != 0:
                    bad.append("rank %s stream %s %s: %s, HTA has none" % (r["rank"], s["stream"], c, s[col]))
    check("%s: idle time per stream and category equals HTA's" % rel, not bad, "; ".join(bad[:5]))


def test_hta(exe):
    names = sorted(f for f in os.listdir(HTA_EXPECTED) if f.endswith(".json"))
    check("HTA's expected files are there", len(names) >= 15, str(len(names)))
    if not os.path.isdir(SHARED):
        print("skip: HTA's numbers: the shared traces are not at %s" % SHARED)
        return
    for n in names[::4] if SUBSET else names:  # the instrumented passes: a quarter
        test_against_hta(exe, n)


def main():
    exe = sys.argv[1]
    test_waterfall(exe)
    spec = ("traces/hta-two_ranks", "traces/hta-trace_diff/control",
            "traces/kineto-resnet50_workers0", "traces/tracelens-bert_h100",
            "traces/hta-no_steps", "traces/hta-negative_queue", "traces/hta-amd")
    for rel in spec[::3] if SUBSET else spec:  # the instrumented passes: three of them
        test_against_spec(exe, rel)
    test_no_steps(exe)
    test_no_gpu(exe)
    test_step_marker(exe)
    test_per_rank(exe)
    test_plot(exe)
    test_hta(exe)
    test_negative_rounding(exe)
    test_summaries(exe)
    print("breakdown: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

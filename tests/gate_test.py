#!/usr/bin/env python3
"""The CI gate (tracediff check) on real traces: no false alarms, the real ones found.

    gate_test.py TRACEDIFF

- A/A: every bundled set checked against itself passes; so do two noisy
  copies of a real multi-iteration trace (lognormal noise per call, sigma
  10%, the synchronize calls absorbing the GPU's noise as real runs do, no
  change injected), one iteration a side and every iteration a side.
- Waits: the synchronize calls and the ops mostly inside them are listed
  apart, not gating; --gate-waits lets them gate.
- The injected pair (stats_test.py's generator: 4% noise, +-15% in a fifth
  of the names): exit 3 with exactly the names made 15% slower.
- New names: a kernel only in test with a total >= --min-us fails and is
  named; --allow-new and a higher --min-us let it pass.
- --max-step-regression, --include/--exclude/--by on check.

In the instrumented passes (TD_TEST_SUBSET=1) each bundled set is checked
against itself one way (default or every iteration, in turn), and the
traces' side of "the same JSON from summaries" comes from the plain build
(tests/cases.py: expectation_exe).
"""
import bisect, json, math, os, random, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats_test as st  # noqa: E402  (the trace generator and readers)
import cases as reference  # noqa: E402

SUBSET = reference.instrumented()

TRACES = st.TRACES
ROOT = st.ROOT
SYNC = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize")


check = reference.Checks("gate")  # check(name, ok, detail); check.finish()


_RUNS = {}


def run(exe, *args):
    """The CLI's status, output and messages; a command on the bundled
    traces (which never change while the suite runs) runs once per suite,
    the checks that need the same output share it."""
    if not all(a.startswith(TRACES) or not a.startswith("/") for a in args):
        return st.run(exe, *args)
    key = (exe,) + args
    if key not in _RUNS:
        _RUNS[key] = st.run(exe, *args)
    return _RUNS[key]


_DOCS = {}
_load_json = st.load_json


def load_json_once(path):
    """stats_test's load_json, each file parsed once per suite (base_iteration
    parses its file twice, the waits and the span read the same files
    again): the callers copy what they change."""
    if path not in _DOCS:
        _DOCS[path] = _load_json(path)
    return _DOCS[path]


st.load_json = load_json_once
_BASES = {}


def base_iteration(path, it):
    """stats_test's base_iteration, read once per suite (each read parses the
    trace twice); make_trace and make_noisy copy what they change."""
    if (path, it) not in _BASES:
        _BASES[path, it] = st.base_iteration(path, it)
    return _BASES[path, it]


def gate_json(exe, c, t, *extra):
    rc, out, err = run(exe, "check", c, t, "--format", "json", "-q", *extra)
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, {}, err + out


def reg_names(j):
    return sorted(r["name"] for r in j.get("rows", []))


def sets():
    """Every bundled PyTorch profiler trace set (a folder of rank files);
    traces/profilers/ holds other profilers' files, which are not Kineto
    traces."""
    out = []
    for root, dirs, files in os.walk(TRACES):
        if os.path.relpath(root, TRACES).split(os.sep)[0] == "profilers":
            continue
        if any(f.endswith(".json") or f.endswith(".json.gz") for f in files):
            out.append(root)
    return sorted(out)


def aa_itself(exe):
    bad = []
    for i, s in enumerate(sets()):
        if not SUBSET or i % 2 == 0:
            rc, out, err = run(exe, "check", s, s, "-q")
            if rc != 0:
                bad.append((os.path.relpath(s, TRACES), rc, out[:200], err[:200]))
        if SUBSET and i % 2 == 0:
            continue
        rc, out, err = run(exe, "check", s, s, "-q", "--control-iteration", "all",
                           "--test-iteration", "all", "--max-step-regression", "1%")
        if rc != 0:
            bad.append((os.path.relpath(s, TRACES), "all", rc, out[:200], err[:200]))
    check("A/A: each of %d bundled sets against itself passes (default, %s every "
          "iteration with --max-step-regression 1%%)" % (len(sets()), "or" if SUBSET else "and"),
          not bad, bad[:3])


def make_noisy(base, copies, seed, sigma, out):
    """Copies of one iteration with lognormal noise per call; each copy's
    synchronize calls absorb the change of that copy's GPU time, as the CPU
    waits for the device in a real run."""
    t = st.copies_of(base)
    rng = random.Random(seed)
    durs = []
    for c in range(copies):
        d, gpu_delta, syncs = [], 0.0, []
        for e in t.body:
            a = e.get("args")
            if e["name"].startswith("ProfilerStep"):
                d.append(e["dur"])
            elif e["name"] in SYNC:
                syncs.append(len(d))
                d.append(e["dur"])
            else:
                d.append(e["dur"] * math.exp(rng.gauss(0, sigma)))
                if isinstance(a, dict) and st.is_int(a.get("stream")) and a["stream"] >= 0:
                    gpu_delta += d[-1] - e["dur"]
        for i in syncs:
            d[i] = max(1.0, d[i] + gpu_delta / len(syncs))
        durs.append(d)
    t.write(out, durs)


def expected_waits(path):
    """Names that are waits, found here from the raw events: synchronize
    calls, and cpu ops >= 80% of whose time is inside synchronize calls or
    launches of device-to-host copies on their thread."""
    doc, floats = st.load_json(path)
    evs = [e for e in doc["traceEvents"] if isinstance(e, dict) and e.get("ph") == "X"
           and "dur" in e and "ts" in e]
    if floats:
        evs = [dict(e) for e in evs]  # the parsed file is shared: round copies
        for e in evs:
            end = math.floor(e["ts"] + e["dur"])
            e["ts"] = math.ceil(e["ts"])
            e["dur"] = end - e["ts"]
    dtoh = {(e.get("args") or {}).get("correlation") for e in evs
            if e["name"].startswith("Memcpy DtoH") and st.is_int((e.get("args") or {}).get("stream"))
            and e["args"]["stream"] >= 0}
    is_sync = lambda n: (n.startswith("cuda") or n.startswith("hip") or n.startswith("cu")) \
        and "Synchronize" in n
    waits = [e for e in evs if e.get("cat") in ("cuda_runtime", "cuda_driver", "hip_runtime")
             and st.is_int((e.get("args") or {}).get("correlation"))
             and (is_sync(e["name"]) or e["args"]["correlation"] in dtoh)]
    names = {e["name"] for e in evs if is_sync(e["name"])}
    inside, total = {}, {}
    # The waits of each thread by start time: an op's are those starting in
    # it (bisection), kept when they also end in it.
    by_thread = {}
    for k in sorted(waits, key=lambda k: k["ts"]):
        by_thread.setdefault((k.get("pid"), k.get("tid")), []).append(k)
    starts = {t: [k["ts"] for k in ks] for t, ks in by_thread.items()}
    for o in evs:
        if o.get("cat") not in ("cpu_op", "Operator"):
            continue
        t = (o.get("pid"), o.get("tid"))
        ks, ts = by_thread.get(t, []), starts.get(t, [])
        lo, hi = bisect.bisect_left(ts, o["ts"]), bisect.bisect_right(ts, o["ts"] + o["dur"])
        w = sum(k["dur"] for k in ks[lo:hi] if k["ts"] + k["dur"] <= o["ts"] + o["dur"])
        inside[o["name"]] = inside.get(o["name"], 0) + min(w, o["dur"])
        total[o["name"]] = total.get(o["name"], 0) + o["dur"]
    names |= {n for n in total if total[n] > 0 and inside[n] >= 0.8 * total[n]}
    return names


def measured_waits(exe):
    for name in ("hta-negative_queue", "hta-no_steps", "kineto-resnet50_workers0",
                 "tracelens-bert_h100"):
        d = os.path.join(TRACES, name)
        want = set()
        for f in st.trace_files(d):
            want |= expected_waits(f)
        sel = ("--control-rank", "all", "--test-rank", "all")
        rc, out, err = run(exe, "compare", d, d, "--format", "csv", "-q", *sel)
        want &= {r["name"] for r in st.csv_rows(out)}  # the names selected
        rc, j, err = gate_json(exe, d, d, *sel)
        got = {r["name"] for r in j.get("wait_rows", [])}
        check("%s: the waits are the names measured here (%d: %s)"
              % (name, len(want), ", ".join(sorted(want))[:120]),
              rc == 0 and got == want and want, (sorted(got - want)[:5], sorted(want - got)[:5]))


def waits_from_summary(exe, tmp):
    """A summary keeps its ops' waits: check gives the same waits section
    and verdicts from it as from the traces."""
    d = os.path.join(TRACES, "hta-negative_queue")
    sm = os.path.join(tmp, "nq.tdsum")
    rc = run(exe, "summarize", d, "-o", sm, "-q")[0]
    rc2, j, err = gate_json(exe, sm, sm)
    rc3, out, _ = run(exe, "check", sm, sm, "-q")
    rct, jt, _ = gate_json(exe, d, d)
    rc4, outt, _ = run(exe, "check", d, d, "-q")
    check("a summary keeps its ops' waits: the same check JSON as from the traces "
          "(waits measured, %d wait rows)" % len(jt.get("wait_rows", [])),
          rc == 0 and rc2 == 0 and j.get("waits_measured") is True and j == jt and
          len(jt.get("wait_rows", [])) == 4, (rc, rc2, j.get("wait_rows"), err))
    check("... and the same text", rc3 == rc4 == 0 and out == outt and
          "note: waits are the synchronize calls only" not in out, (out[-300:], outt[-300:]))
    rc, j, err = gate_json(exe, d, d)
    check("... from the traces they are measured (waits_measured true)",
          j.get("waits_measured") is True and len(j.get("wait_rows", [])) == 4, j.get("waits"))
    # Decimal timestamps: HTA's rounding makes some op durations -1 µs.
    d = os.path.join(TRACES, "tracelens-bert_h100")
    sm = os.path.join(tmp, "bert.tdsum")
    rc = run(exe, "summarize", d, "-o", sm, "-q")[0]
    a, b = gate_json(exe, d, d), gate_json(exe, sm, sm)
    check("tracelens-bert_h100 (rounded, negative op durations): the same check JSON from "
          "its summary (%d wait rows)" % len(a[1].get("wait_rows", [])),
          rc == 0 and a[0] == 0 and a[:2] == b[:2] and a[1].get("wait_rows"), (b[0], b[2][:200]))


def paths_agree(exe, tmp):
    """check from traces, summaries and the Python module: the same rows,
    waits and verdicts, with the selection and row options of compare."""
    c = os.path.join(TRACES, "kineto-resnet50_workers0")
    t = os.path.join(TRACES, "kineto-resnet50_workers4")
    sc, stt = os.path.join(tmp, "w0.tdsum"), os.path.join(tmp, "w4.tdsum")
    ok = run(exe, "summarize", c, "-o", sc, "-q")[0] == 0 and \
        run(exe, "summarize", t, "-o", stt, "-q")[0] == 0
    every = ["--control-iteration", "all", "--test-iteration", "all"]
    for extra in ([], ["--max-step-regression", "5%"], ["--include", "^aten::", "--exclude",
                                                        "backward"], ["--by", "op"],
                  ["--by", "class", "--max-step-regression", "5%"]):
        a = gate_json(reference.expectation_exe(exe), c, t, *every, *extra)
        b = gate_json(exe, sc, stt, *every, *extra)
        check("check %s: the same JSON from summaries as from the traces (exit %d)"
              % (" ".join(extra) or "(default)", a[0]),
              ok and a[0] in (0, 3) and a[:2] == b[:2] and a[1].get("compared", 0) > 0,
              (a[0], b[0], b[2][:200]))
    py = shutil.which("python3") if not os.path.exists("/usr/bin/python3") else "/usr/bin/python3"
    code = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import tracediff
res = tracediff.check(sys.argv[2], sys.argv[3], control_iteration="all", test_iteration="all",
                      include="^aten::", exclude="backward", by="op")
print(json.dumps(sorted(res.regressions["name"].tolist()) if len(res.regressions) else []))
"""
    pydir = os.path.join(os.path.dirname(exe), "python")  # make python
    # An instrumented build's module needs its sanitizer's runtime preloaded
    # into Python: python_test.py does that; here only the plain build's,
    # made as this build's sources make it.
    if "asan" in os.path.basename(os.path.dirname(exe)):
        print("Python check(include=, exclude=, by=): the plain pass runs it")
        return
    build = os.path.relpath(os.path.dirname(exe), ROOT)
    if subprocess.run(["make", "-s", "python", "BUILD=" + build], cwd=ROOT,
                      capture_output=True).returncode != 0 or \
            not os.path.isdir(os.path.join(pydir, "tracediff")):
        check("Python check(include=, exclude=, by=): make python", False, pydir)
        return
    p = subprocess.run([py, "-c", code, pydir, c, t], capture_output=True, text=True,
                       timeout=600)
    rc, j, err = gate_json(exe, c, t, *every, "--include", "^aten::", "--exclude", "backward",
                           "--by", "op")
    want = sorted(r["name"] for r in j.get("rows", []))
    got = json.loads(p.stdout) if p.returncode == 0 and p.stdout.strip() else None
    check("Python check(include=, exclude=, by=): the CLI's regressions (%d)" % len(want),
          got == want, (got, want, p.stderr[-400:]))


def aa_noisy(exe, tmp):
    path = st.trace_files(os.path.join(TRACES, "kineto-resnet50_workers0"))[0]
    base = base_iteration(path, 7)
    names = {e["name"] for e in base[2]}
    check("the base iteration has synchronize calls", any(n in names for n in SYNC))
    a = os.path.join(tmp, "aa1", "a.json")
    b = os.path.join(tmp, "aa2", "b.json")
    make_noisy(base, 8, 21, 0.10, a)
    make_noisy(base, 8, 22, 0.10, b)
    da, db = os.path.dirname(a), os.path.dirname(b)
    every = ["--control-iteration", "all", "--test-iteration", "all"]
    for label, extra in (("one iteration a side", []), ("8 iterations a side", every),
                         ("8 iterations a side, per call", every + ["--samples", "call"]),
                         ("one iteration a side, --device gpu", ["--device", "gpu"])):
        rc, j, err = gate_json(exe, da, db, *extra)
        check("A/A noisy copies (%s): check passes" % label, rc == 0 and j.get("result") == "ok",
              (rc, reg_names(j)[:5], err[:300]))
        if label == "one iteration a side":
            rc, out, err = run(exe, "check", da, db, "-q")
            check("... and says that run-to-run noise is not measured",
                  "one run a side: run-to-run noise is not measured; give several iterations "
                  "or runs" in out and j.get("one_run") is True, out[:400])
            waits = {r["name"] for r in j.get("wait_rows", [])}
            check("... the synchronize call is a wait, listed apart",
                  "cudaStreamSynchronize" in waits and "cudaStreamSynchronize" not in
                  reg_names(j), sorted(waits))
            sync = [r for r in j.get("wait_rows", []) if r["name"] == "cudaStreamSynchronize"]
            check("... whose time changed by far more than the noise (it absorbs the GPU's)",
                  sync and abs(sync[0]["test_total"] - sync[0]["control_total"]) >
                  0.2 * sync[0]["control_total"], sync)
        if label == "8 iterations a side":
            rc, out, err = run(exe, "check", da, db, "-q", *extra)
            check("... no one-run note with 8 iterations a side",
                  "one run a side" not in out, out[:300])
            rc2, j2, _ = gate_json(exe, da, db, *(extra + ["--max-step-regression", "5%"]))
            s = j2.get("step") or {}
            check("A/A noisy copies: --max-step-regression 5% passes (step and GPU time, "
                  "8 samples a side, Welch)",
                  rc2 == 0 and s.get("control_n") == 8 and s.get("step_failed") is False and
                  s.get("gpu_failed") is False and s.get("step_p_value") is not None, (rc2, s))
    # The ops measured as waits: each has a synchronize call or a device-to-host copy inside.
    return da, db


def gate_waits(exe, tmp):
    """--gate-waits on a pair whose only change is 3x longer synchronize calls."""
    src = os.path.join(TRACES, "kineto-resnet50_workers0")
    base = base_iteration(st.trace_files(src)[0], 7)
    ctl = os.path.join(tmp, "w", "control", "c.json")
    tst = os.path.join(tmp, "w", "test", "t.json")
    st.make_trace(base, 8, 5, 0.04, {}, ctl)
    st.make_trace(base, 8, 6, 0.04, {"cudaStreamSynchronize": 3.0}, tst)
    c, t = os.path.dirname(ctl), os.path.dirname(tst)
    every = ["--control-iteration", "all", "--test-iteration", "all"]
    rc, j, err = gate_json(exe, c, t, *every)
    slow = [r["name"] for r in j.get("wait_rows", []) if r["failed"]]
    check("waits: the synchronize calls 3x longer, nothing else: check passes, the wait "
          "listed as slower", rc == 0 and slow == ["cudaStreamSynchronize"] and
          j.get("wait_regressions") == 1, (rc, reg_names(j), slow))
    rc, out, err = run(exe, "check", c, t, *every, "-q")
    check("... the text output has a waits section naming it",
          "\nwaits: " in out and "cudaStreamSynchronize  (would fail with --gate-waits)" in out,
          out[-500:])
    rc, j, err = gate_json(exe, c, t, *(every + ["--gate-waits"]))
    check("waits: ... and fails with --gate-waits, naming cudaStreamSynchronize",
          rc == 3 and reg_names(j) == ["cudaStreamSynchronize"] and not j.get("wait_rows"),
          (rc, reg_names(j)))


def injected(exe, tmp):
    src = os.path.join(TRACES, "kineto-resnet50_workers0")
    base = base_iteration(st.trace_files(src)[0], 7)
    names = sorted({e["name"] for e in base[2] if not e["name"].startswith("ProfilerStep")})
    rng = random.Random(11)
    picked = rng.sample(names, len(names) // 5)
    inject = {n: (1.15 if i % 2 == 0 else 0.85) for i, n in enumerate(picked)}
    ctl = os.path.join(tmp, "inj", "control", "c.json")
    tst = os.path.join(tmp, "inj", "test", "t.json")
    st.make_trace(base, 8, 1, 0.04, {}, ctl)
    st.make_trace(base, 8, 2, 0.04, inject, tst)
    every = ["--control-iteration", "all", "--test-iteration", "all"]
    rc, j, err = gate_json(exe, os.path.dirname(ctl), os.path.dirname(tst), *every)
    waits = {r["name"] for r in j.get("wait_rows", [])}
    want = sorted(n for n, f in inject.items() if f > 1 and n not in waits)
    got = reg_names(j)
    check("injected pair: exit 3 with exactly the %d names made 15%% slower" % len(want),
          rc == 3 and got == want,
          (rc, "extra", sorted(set(got) - set(want))[:5], "missed", sorted(set(want) - set(got))[:5]))
    # --exclude the injected names: nothing left to fail
    rx = "^(" + "|".join(__import__("re").escape(n) for n in want) + ")$"
    rc, j2, err = gate_json(exe, os.path.dirname(ctl), os.path.dirname(tst), *every,
                            "--exclude", rx)
    check("check --exclude REGEX of the regressions: exit 0, fewer names compared",
          rc == 0 and j2.get("compared", 0) == j.get("compared", 0) - len(want), (rc, err[:200]))
    rc, j3, err = gate_json(exe, os.path.dirname(ctl), os.path.dirname(tst), *every,
                            "--include", rx)
    check("check --include REGEX of the regressions: exactly them compared, all failing",
          rc == 3 and j3.get("compared") == len(want) and reg_names(j3) == want, (rc, err[:200]))
    rc, j4, err = gate_json(exe, os.path.dirname(ctl), os.path.dirname(tst), *every,
                            "--by", "op")
    check("check --by op runs on the injected pair (rows are ops' GPU time)",
          rc in (0, 3) and j4.get("compared", 0) > 0, (rc, err[:300]))
    # Every GPU event 15% slower: the GPU time per iteration grows
    gpu_names = {e["name"] for e in base[2]
                 if st.is_int((e.get("args") or {}).get("stream")) and e["args"]["stream"] >= 0}
    slow = os.path.join(tmp, "inj", "gpu_slow", "g.json")
    st.make_trace(base, 8, 3, 0.04, {n: 1.15 for n in gpu_names}, slow)
    rc, j5, err = gate_json(exe, os.path.dirname(ctl), os.path.dirname(slow), *every,
                            "--max-step-regression", "10%", "--include", "^$")
    s = j5.get("step") or {}
    check("--max-step-regression 10%: every GPU event 15% slower fails on the GPU time",
          rc == 3 and s.get("gpu_failed") is True and 12 < s.get("gpu_change_pct", 0) < 18,
          (rc, s, err[:200]))
    rc, j6, err = gate_json(exe, os.path.dirname(ctl), os.path.dirname(slow), *every,
                            "--max-step-regression", "20%", "--include", "^$")
    check("--max-step-regression 20%: the same pair passes", rc == 0, (rc, j6.get("step")))


def new_names(exe):
    c = os.path.join(TRACES, "kineto-resnet50_workers0")
    t = os.path.join(TRACES, "kineto-resnet50_workers4")
    k = "volta_scudnn_128x32_sliced1x4_ldg4_relu_exp_small_nhwc_tn_v1"
    every = ["--control-iteration", "all", "--test-iteration", "all", "--device", "gpu"]
    rc, j, err = gate_json(exe, c, t, *every, "--min-us", "1000", "--short-names")
    new = [r for r in j.get("rows", []) if r["verdict"] == "new"]
    check("a kernel only in test with a total >= --min-us fails the gate and is named (new)",
          rc == 3 and [r["name"] for r in new] == [k] and new[0]["control_total"] == 0,
          (rc, new, err[:200]))
    rc, out, err = run(exe, "check", c, t, *every, "--min-us", "1000", "--short-names", "-q")
    check("... the text output says new and names it",
          rc == 3 and any(line.startswith("new (") and k in line for line in out.splitlines()),
          out[-600:])
    rc, j, err = gate_json(exe, c, t, *every, "--min-us", "1000", "--short-names", "--allow-new")
    check("--allow-new: the new kernel is not a regression",
          k not in reg_names(j) and j.get("regressions", -1) >= 0, reg_names(j)[:5])
    tot = new[0]["test_total"] if new else 0
    rc, j, err = gate_json(exe, c, t, *every, "--min-us", str(tot + 1), "--short-names")
    check("a new kernel under --min-us is not compared", k not in reg_names(j), reg_names(j)[:5])


def step_span(exe, tmp):
    """Without ProfilerStep the step is the trace's span (first start to last
    end of its counted events), from the traces and from summaries alike."""
    d = os.path.join(TRACES, "hta-no_steps")
    f = st.trace_files(d)[0]
    doc, _ = st.load_json(f)
    evs = [e for e in doc["traceEvents"] if isinstance(e, dict) and e.get("ph") == "X" and
           "ts" in e and "dur" in e and e.get("cat") != "Trace"]
    lo, hi = min(e["ts"] for e in evs), max(e["ts"] + e["dur"] for e in evs)
    rc, j, err = gate_json(exe, d, d, "--max-step-regression", "5%")
    s = j.get("step") or {}
    check("no ProfilerStep: the step time is the trace span (%d us, from the JSON)" % (hi - lo),
          rc == 0 and s.get("control_step_is_span") is True and
          s.get("control_step_mean") == hi - lo and s.get("step_failed") is False and
          s.get("gpu_failed") is False, (rc, s, err[:200]))
    rc, out, err = run(exe, "check", d, d, "--max-step-regression", "5%", "-q")
    check("... the text output says the step is the trace span",
          rc == 0 and "step time (trace span, no ProfilerStep)" in out, out[-400:])
    # The same job, its span 20% longer: an annotation after its end.
    late = dict(evs[0], name="late_host_work", cat="user_annotation", ph="X",
                ts=hi + (hi - lo) // 5, dur=1, args={})
    doc = dict(doc, traceEvents=doc["traceEvents"] + [late])  # the parsed file is shared
    long_dir = os.path.join(tmp, "no_steps_long")
    os.makedirs(long_dir, exist_ok=True)
    with open(os.path.join(long_dir, "t.json"), "w") as o:
        json.dump(doc, o)
    rc, j, err = gate_json(exe, d, long_dir, "--max-step-regression", "10%", "--allow-new")
    s = j.get("step") or {}
    check("a span 20% longer fails --max-step-regression 10% on the step, not the GPU time",
          rc == 3 and s.get("step_failed") is True and s.get("gpu_failed") is False and
          19 < s.get("step_change_pct", 0) < 21 and j.get("regressions") == 0,
          (rc, s, j.get("regressions"), err[:200]))
    rc2, j2, err2 = gate_json(exe, d, long_dir, "--max-step-regression", "25%", "--allow-new")
    check("... and passes --max-step-regression 25%", rc2 == 0, (rc2, j2.get("step")))
    sc, stl = os.path.join(tmp, "ns.tdsum"), os.path.join(tmp, "nsl.tdsum")
    ok = run(exe, "summarize", d, "-o", sc, "-q")[0] == 0 and \
        run(exe, "summarize", long_dir, "-o", stl, "-q")[0] == 0
    rc3, j3, err3 = gate_json(exe, sc, stl, "--max-step-regression", "10%", "--allow-new")
    check("... from summaries: the same step verdict and numbers",
          ok and rc3 == 3 and j3.get("step") == j.get("step"), (rc3, j3.get("step"), err3[:200]))


def main():
    exe = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="tdgate")
    try:
        aa_itself(exe)
        measured_waits(exe)
        waits_from_summary(exe, tmp)
        paths_agree(exe, tmp)
        # The instrumented passes (SUBSET): the noisy A/A copies and the
        # injected pair, the generator's statistical power over the same
        # code paths the other checks run, are make test's
        # (scripts/choose_subset.py unique-lines, CONTRIBUTING.md "Sixth round").
        if not SUBSET:
            aa_noisy(exe, tmp)
        gate_waits(exe, tmp)
        if not SUBSET:
            injected(exe, tmp)
        new_names(exe)
        step_span(exe, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(check.finish())


if __name__ == "__main__":
    main()

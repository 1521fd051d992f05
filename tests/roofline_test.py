#!/usr/bin/env python3
"""tracediff roofline (docs/roofline.md) against TraceLens's own numbers and
an independent reading of the spec.

    roofline_test.py TRACEDIFF

- TraceLens: on the shared pairs with shapes (tracelens-bert_h100 vs _mi300,
  tracelens-falconsai_h100 vs _mi300), every GEMM (aten::mm, addmm, bmm,
  baddbmm) group's FLOPs and bytes per call, every attention group's FLOPs
  per call, and each group's call count and GPU time equal the expected
  files under tests/roofline/, made by TraceLens itself
  (tests/roofline/make_expected.py; README.md there names its commit).
- The spec, computed here from the raw JSON events: every row's FLOPs and
  bytes per call (GEMM, attention, convolution, elementwise, layer norm),
  on the same pairs.
- Sum rule: modelled + unmodelled = GPU busy time on each side of every
  shared pair with shapes; on traces without steps the busy time equals
  |U| of their kernels, memcpys and memsets computed here.
- The GPU: every shared trace with deviceProperties names its device, and
  the known ones map to the table's entry; --test-gpu FILE (TraceLens's
  arch format) changes only the roofline columns, to the file's figures.
- Another profiler's output (Nsight Systems, rocprofv3): no shapes, its GPU
  busy time still measured.
- --stats on a multi-iteration pair (the ResNet-50 runs, six iterations a
  side): iteration samples are each row's time in one iteration, as
  `roofline` prints it for that iteration alone; Welch's p-values (SciPy),
  Benjamini-Hochberg q-values written here and the verdict rules of
  docs/stats.md give each row's verdict. Call samples: each call's GPU
  time read here from the raw JSON (its launches' kernels, |U|), tested
  with SciPy's Mann-Whitney U. Skipped (with a message) without SciPy.
- plot roofline: the SVG parsed (xml.etree): each side's roofs at exactly
  the peaks and bandwidth its rows use, every point where its row's JSON
  intensity and TFLOP/s put it, arrows for the --top rows by GPU time,
  the sets' labels in the legend; PNG and PDF written.
- compare --by op --with-rate: each op row's FLOPs per call and TFLOP/s per
  side equal roofline's JSON rows of that op name summed (FLOPs over calls,
  FLOPs over time), empty where roofline has no row of that name; the same
  numbers in CSV; a usage error without --by op.
- report: the "Why" section holds the roofline chart and the rows whose
  time changed most, with roofline --format json's numbers in order; on
  traces without shapes, one line naming record_shapes=True.
- Bad input: no shapes (one note naming record_shapes=True, time still
  measured, exit 0); malformed Input Dims on one event (that call
  unmodelled, a counted note, the other rows as before); an unknown
  --test-gpu (exit 2 listing the known names).
"""
import bisect, csv, gzip, json, math, os, subprocess, sys, tempfile, warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402  (run_once: one process per distinct command)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The reference cases' copy of the shared traces (scripts/sync_golden.sh).
SHARED = os.environ.get("TD_SHARED_TRACES", os.path.join(ROOT, "tests", "golden", "traces"))
EXPECTED = os.path.join(ROOT, "tests", "roofline")
SUBSET = cases.instrumented()
passed = failed = 0

PAIRS = [("bert", "tracelens-bert_h100", "tracelens-bert_mi300"),
         ("falconsai", "tracelens-falconsai_h100", "tracelens-falconsai_mi300")]
ALL = ["--control-iteration", "all", "--test-iteration", "all"]


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s %s" % (name, str(detail)[:2000]))


def run(exe, *args):
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8")
    env.pop("HTA_DISABLE_NS_ROUNDING", None)
    p = cases.run_once([exe] + list(args), env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def roofline(exe, c, t, *extra):
    rc, out, err = run(exe, "roofline", c, t, "--format", "json", "-q", *extra)
    return rc, (json.loads(out) if rc == 0 else None), err


def close(a, b, rel=1e-9, abs_=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def key(v):
    return json.dumps(v, separators=(",", ":"))


def trace_path(d):
    d = os.path.join(SHARED, d)
    return os.path.join(d, sorted(os.listdir(d))[0]) if os.path.isdir(d) else d


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return json.load(f)


# ---- the spec's formulas, read independently ----------------------------------
BPE = {"double": 8, "long int": 8, "float": 4, "int": 4, "scalar": 4, "c10::half": 2,
       "c10::bfloat16": 2, "c10::float8_e4m3fn": 1, "c10::float8_e4m3fnuz": 1,
       "c10::float8_e5m2": 1, "c10::float8_e8m0fnu": 1, "unsigned char": 1, "signed char": 1,
       "c10::float4_e2m1fn_x2": 1}
UNARY = {"aten::copy_", "aten::clamp_min", "aten::clamp_min_", "aten::sigmoid", "aten::sigmoid_",
         "aten::rsqrt", "aten::silu", "aten::silu_", "aten::neg", "aten::pow", "aten::exp",
         "aten::log", "aten::sqrt", "aten::tanh", "aten::relu", "aten::relu_", "aten::abs",
         "aten::reciprocal", "aten::sin", "aten::cos", "aten::clamp", "aten::clamp_"}
BINARY = {"aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::mul", "aten::mul_",
          "aten::div", "aten::div_", "aten::maximum", "aten::minimum", "aten::pow_"}


def b(types, i):
    return BPE.get(types[i].lower()) if i < len(types) else None


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def ints(s):
    return [int(x) for x in s.replace("[", " ").replace("]", " ").replace(",", " ").split()]


def spec_model(name, D, T, C):
    """(flops, bytes) per the spec, bytes None when a width is unknown."""
    def mul(n, w):
        return None if w is None else n * w
    if name in ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm"):
        a = 1 if name in ("aten::addmm", "aten::baddbmm") else 0
        bias = a
        bt = D[a][0] if name in ("aten::bmm", "aten::baddbmm") else 1
        m, k = D[a][-2], D[a][-1]
        n = D[a + 1][-1]
        return bt * (2 * m * n * k + bias * m * n), mul(bt * (m * k + k * n + m * n + bias * n), b(T, a))
    if name.startswith("aten::_scaled_dot_product_") and name.endswith("_attention"):
        q, k, v = D[0], D[1], D[2]
        ci = 4 if "flash" in name else 6
        causal = ci < len(C) and C[ci] == "True"
        f = q[0] * q[1] * (2 * q[2] * k[2] * q[3] + 2 * q[2] * k[2] * v[3])
        el = prod(q) + prod(k) + prod(v) + q[0] * q[1] * q[2] * v[3]
        return (f / 2 if causal else f), mul(el, b(T, 0))
    if name == "aten::convolution":
        x, w = D[0], D[1]
        st, pa, di = ints(C[3]), ints(C[4]), ints(C[5])
        out = x[0] * w[0]
        for i in range(len(x) - 2):
            pick = lambda l: l[0] if len(l) == 1 else l[i]
            out *= (x[2 + i] + 2 * pick(pa) - pick(di) * (w[2 + i] - 1) - 1) // pick(st) + 1
        bias = prod(D[2]) if len(D) > 2 and D[2] else 0
        return 2 * prod(w[1:]) * out, mul(prod(x) + prod(w) + out + bias, b(T, 0))
    if name in ("aten::layer_norm", "aten::native_layer_norm"):
        n = prod(D[0])
        c = prod(D[2]) if len(D) > 2 and D[2] else prod(ints(C[1]))
        return 5 * n + 6 * c, mul(2 * n + 6 * c, b(T, 0))
    if name in BINARY or (name == "aten::pow" and len(D) > 1 and D[1]):
        x, y = D[0], D[1]
        m = max(len(x), len(y))
        xs, ys = [1] * (m - len(x)) + x, [1] * (m - len(y)) + y
        n = prod(max(p, q) for p, q in zip(xs, ys))
        b0, b1 = b(T, 0), b(T, 1)
        if b0 is None or b1 is None:
            return n, None
        return n, prod(x) * b0 + prod(y) * b1 + n * b0
    if name in UNARY:
        n = prod(D[0])
        bi = b(T, 1) if name == "aten::copy_" and len(T) > 1 else b(T, 0)
        b0 = b(T, 0)
        return n, (None if bi is None or b0 is None else n * bi + n * b0)
    return None


def raw_groups(path):
    """(op, dims, types) -> list of (flops, bytes) of its cpu_op events."""
    out = {}
    for e in load(path)["traceEvents"]:
        a = e.get("args") or {}
        if e.get("cat") != "cpu_op" or "Input Dims" not in a:
            continue
        D, T, C = a["Input Dims"], a.get("Input type", []), a.get("Concrete Inputs", [])
        try:
            m = spec_model(e["name"], D, T, C)
        except (IndexError, TypeError, ValueError, ZeroDivisionError):
            m = None
        if m is not None:
            out.setdefault((e["name"], key(D), key(T)), []).append(m)
    return out


def gpu_busy(path):
    iv = sorted((e["ts"], e["ts"] + e["dur"]) for e in load(path)["traceEvents"]
                if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "dur" in e)
    tot, lo, hi = 0.0, 0.0, -math.inf
    for s, t in iv:
        if s > hi:
            tot += max(0.0, hi - lo)
            lo, hi = s, t
        else:
            hi = max(hi, t)
    return tot + max(0.0, hi - lo)


# ---- the tests ------------------------------------------------------------------
def rows_by_key(js):
    return {(r["op"], key(r["input_dims"]), key(r["input_types"])): r for r in js["rows"]}


def test_tracelens(exe):
    for case, c, t in PAIRS:
        rc, js, err = roofline(exe, os.path.join(SHARED, c), os.path.join(SHARED, t), *ALL)
        check("%s: exit 0" % case, rc == 0, err)
        if rc != 0:
            continue
        rows = rows_by_key(js)
        for side, sname in (("control", c), ("test", t)):
            exp = os.path.join(EXPECTED, sname.split("-", 1)[1] + ".csv")
            with open(exp) as f:
                for e in csv.DictReader(f):
                    k = (e["op"], e["input_dims"], e["input_types"])
                    r = rows.get(k)
                    what = "%s %s %s %s" % (case, side, e["op"], e["input_dims"])
                    if r is None:
                        check(what + ": a row", False, sorted(rows))
                        continue
                    s, n = r[side], int(e["count"])
                    ok = s["count"] == n and close(s["flops"], float(e["flops"]) / n)
                    if e["op"].startswith("aten::_scaled_dot_product"):
                        check(what + ": count and FLOPs per call = TraceLens's", ok, (s, e))
                    else:
                        ok = ok and close(s["bytes"], float(e["bytes"]) / n)
                        check(what + ": count, FLOPs and bytes per call = TraceLens's", ok, (s, e))
                    check(what + ": GPU time = TraceLens's",
                          close(s["time_us"], float(e["time_us"]), rel=1e-9, abs_=1e-6),
                          (s["time_us"], e["time_us"]))


def test_spec(exe):
    for case, c, t in PAIRS:
        rc, js, err = roofline(exe, os.path.join(SHARED, c), os.path.join(SHARED, t), *ALL)
        if rc != 0:
            check("%s: exit 0" % case, False, err)
            continue
        for side, d in (("control", c), ("test", t)):
            groups = raw_groups(trace_path(d))
            bad = []
            n = 0
            for r in js["rows"]:
                s = r[side]
                if s["count"] == 0:
                    continue
                g = groups.get((r["op"], key(r["input_dims"]), key(r["input_types"])))
                if not g:
                    bad.append(("no such events", r["op"]))
                    continue
                f = sum(x[0] for x in g) / len(g)
                by = None if any(x[1] is None for x in g) else sum(x[1] for x in g) / len(g)
                n += 1
                if not (close(s["flops"], f) and close(s["bytes"], by)):
                    bad.append((r["op"], r["input_dims"], s["flops"], f, s["bytes"], by))
            check("%s %s: every row's FLOPs and bytes per call = the spec's (%d rows)"
                  % (case, side, n), n > 0 and not bad, bad)
            classes = {r["class"] for r in js["rows"]}
            if case == "falconsai":
                check("falconsai: rows of each class", classes >= {"GEMM", "attention", "conv",
                                                                    "elementwise", "norm"}, classes)


def pairs_with_shapes():
    out = [(os.path.join(SHARED, c), os.path.join(SHARED, t)) for _, c, t in PAIRS]
    for c, t in (("hta-trace_diff/control", "hta-trace_diff/test"),
                 ("kineto-resnet50_workers0", "kineto-resnet50_workers4"),
                 ("hta-two_ranks", "hta-two_ranks"), ("hta-amd", "hta-negative_queue")):
        out.append((os.path.join(SHARED, c), os.path.join(SHARED, t)))
    return out[::2] if SUBSET else out


def test_sum_rule(exe):
    for c, t in pairs_with_shapes():
        name = "%s vs %s" % (os.path.relpath(c, SHARED), os.path.relpath(t, SHARED))
        rc, js, err = roofline(exe, c, t, *ALL, "--control-rank", "all", "--test-rank", "all")
        if rc != 0:
            check(name + ": exit 0", False, err)
            continue
        for side in ("control", "test"):
            cv = js["coverage"][side]
            check("%s %s: modelled + unmodelled = busy" % (name, side),
                  close(cv["modelled_us"] + cv["unmodelled_us"], cv["busy_us"], rel=1e-9)
                  and cv["busy_us"] > 0 and cv["modelled_us"] > 0, cv)
            tops = sum(u["time_us"] for u in cv["unmodelled"])
            check("%s %s: the unmodelled ops listed are within the unmodelled time" % (name, side),
                  tops <= cv["unmodelled_us"] * (1 + 1e-9) + 1e-6 or len(cv["unmodelled"]) == 0
                  or tops > 0, cv)
    for _, c, t in PAIRS:  # no steps: the whole trace
        rc, js, err = roofline(exe, os.path.join(SHARED, c), os.path.join(SHARED, t))
        for side, d in (("control", c), ("test", t)):
            want = gpu_busy(trace_path(d))
            got = js["coverage"][side]["busy_us"] if js else None
            check("%s: busy time = |U| of its kernels, memcpys and memsets" % d,
                  got is not None and close(got, want, rel=1e-9, abs_=1e-6), (got, want))


EXPECT_GPU = {"H100": "H100 SXM", "MI300X": "MI300X", "A100-SXM4-80GB": "A100 SXM 80GB",
              "A100-PG509-200": "A100 SXM 40GB", "V100": "V100 SXM2"}


def test_gpu(exe):
    seen = 0
    for d in sorted(os.listdir(SHARED)):
        p = os.path.join(SHARED, d)
        files = [os.path.join(p, f) for f in sorted(os.listdir(p))] if os.path.isdir(p) else []
        files = [f for f in files if f.endswith((".json", ".json.gz"))]
        if not files:
            continue
        props = load(files[0]).get("deviceProperties") or []
        if not props:
            continue
        seen += 1
        name = props[0].get("name")
        rc, js, err = roofline(exe, files[0], files[0])
        want = next((v for k, v in EXPECT_GPU.items() if k in name), None)
        got = js["gpus"]["control"] if js else "exit %d" % rc
        notes = " ".join(js["notes"]["control"]) if js else ""
        check("%s: the device %r is read%s" % (d, name, ", as " + want if want else ", unknown"),
              rc == 0 and got == want and (want or name in notes), (got, notes, err))
    check("traces with deviceProperties found", seen >= 5, seen)


def test_gpu_file(exe, tmp):
    c, t = (os.path.join(SHARED, PAIRS[1][1]), os.path.join(SHARED, PAIRS[1][2]))
    arch = {"name": "my MI300X", "mem_bw_gbps": 4000, "memory_gb": 192,
            "max_achievable_tflops": {"matrix_bf16": 700, "vector_bf16": 150, "vector_fp32": 80,
                                      "matrix_fp32": 160}}
    path = os.path.join(tmp, "arch.json")
    with open(path, "w") as f:
        json.dump(arch, f)
    rc0, a, e0 = roofline(exe, c, t, *ALL)
    rc1, b_, e1 = roofline(exe, c, t, *ALL, "--test-gpu", path)
    check("--test-gpu FILE: exit 0", rc0 == 0 and rc1 == 0, e0 + e1)
    if not (a and b_):
        return
    roof = {"peak_tflops", "peak_tbps", "efficiency_pct", "bound"}
    same = a["coverage"] == b_["coverage"] and a["gpus"]["control"] == b_["gpus"]["control"]
    diff = []
    ra, rb = rows_by_key(a), rows_by_key(b_)
    for k, r in ra.items():
        s = rb.get(k)
        if s is None or r["control"] != s["control"]:
            diff.append(("control", k))
            continue
        for f, v in r["test"].items():
            if f not in roof and v != s["test"][f]:
                diff.append((k, f))
        for f in ("time_change_pct", "rate_change_pct"):
            if r[f] != s[f]:
                diff.append((k, f))
    check("--test-gpu FILE changes only the roofline columns", same and not diff, diff)
    check("--test-gpu FILE: its name", b_["gpus"]["test"] == "my MI300X", b_["gpus"])
    ok = True
    for r in b_["rows"]:
        s = r["test"]
        if s["count"] == 0:
            continue
        want_peak = {"GEMM": 700, "attention": 700, "conv": 700}.get(r["class"], 150)
        if r["class"] == "conv":
            want_peak = 160 if r["input_types"][0] == "float" else 700
        rt = max(s["flops"] * s["count"] / (s["peak_tflops"] * 1e6),
                 s["bytes"] * s["count"] / (4000 * 1e3))
        ok = ok and s["peak_tbps"] == 4.0 and close(s["peak_tflops"], want_peak) and \
            close(s["efficiency_pct"], 100 * rt / s["time_us"], rel=1e-9)
    check("--test-gpu FILE: the file's peaks and bandwidth, efficiency = roofline time / time", ok)


def write_trace(path, d):
    with gzip.open(path, "wt") as f:
        f.write(json.dumps(d))  # dumps: the C encoder (dump streams in Python)


def test_bad_input(exe, tmp):
    src = trace_path(PAIRS[0][1])
    d = load(src)
    for e in d["traceEvents"]:
        for k in ("Input Dims", "Input type", "Concrete Inputs", "Input Strides"):
            (e.get("args") or {}).pop(k, None)
    noshape = os.path.join(tmp, "noshape.json.gz")
    write_trace(noshape, d)
    rc, out, err = run(exe, "roofline", noshape, src, "--format", "json")
    js = json.loads(out) if rc == 0 else None
    notes = js["notes"]["control"] if js else []
    check("no shapes: exit 0, one note naming record_shapes=True",
          rc == 0 and len([n for n in notes if "record_shapes=True" in n]) == 1
          and err.count("record_shapes=True") == 1, (rc, notes, err))
    if js:
        cv = js["coverage"]["control"]
        check("no shapes: the GPU time is still measured, none of it modelled",
              close(cv["busy_us"], gpu_busy(src), rel=1e-9, abs_=1e-6) and cv["modelled_us"] == 0
              and all(r["control"]["count"] == 0 for r in js["rows"]), cv)
    rc, out, err = run(exe, "roofline", noshape, src, "--format", "table")
    check("no shapes: the table still has the time columns", rc == 0 and "record_shapes=True" in out
          and "us" in out, out + err)
    # One malformed Input Dims.
    d = load(src)
    hit = None
    for e in d["traceEvents"]:
        a = e.get("args") or {}
        if e.get("cat") == "cpu_op" and e.get("name") == "aten::addmm" and "Input Dims" in a:
            a["Input Dims"] = [a["Input Dims"][0], [141, "x"], a["Input Dims"][2], [], []]
            hit = e
            break
    bad = os.path.join(tmp, "bad_dims.json.gz")
    write_trace(bad, d)
    rc0, good_js, _ = roofline(exe, src, src, *ALL)
    rc, js, err = roofline(exe, bad, src, *ALL)
    check("malformed Input Dims: exit 0", hit is not None and rc == 0 and rc0 == 0, err)
    if js and good_js:
        notes = js["notes"]["control"]
        check("malformed Input Dims: a counted note",
              any("1 op call left unmodelled: malformed Input Dims" in n for n in notes), notes)
        g, b_ = rows_by_key(good_js), rows_by_key(js)
        changed = [k for k in g if g[k]["control"] != (b_.get(k) or {}).get("control")]
        check("malformed Input Dims: only that call's group changed, by one call",
              len(changed) == 1 and changed[0][0] == "aten::addmm"
              and b_[changed[0]]["control"]["count"] == g[changed[0]]["control"]["count"] - 1
              and b_[changed[0]]["control"]["flops"] == g[changed[0]]["control"]["flops"],
              changed)
        cv = js["coverage"]["control"]
        check("malformed Input Dims: its time is unmodelled, the sum rule holds",
              close(cv["modelled_us"] + cv["unmodelled_us"], cv["busy_us"])
              and close(cv["busy_us"], good_js["coverage"]["control"]["busy_us"])
              and cv["unmodelled_us"] > good_js["coverage"]["control"]["unmodelled_us"], cv)
    rc, out, err = run(exe, "roofline", src, src, "--test-gpu", "Z9000")
    check("unknown --test-gpu: exit 2 listing the known names",
          rc == 2 and "Z9000" in err and "MI300X" in err and "H100 SXM" in err and not out,
          (rc, err))
    rc, out, err = run(exe, "roofline", src, src, "--test-gpu", os.path.join(tmp, "nope.json"))
    check("missing --test-gpu FILE: an error naming it", rc != 0 and "nope.json" in err, err)


def test_other_profilers(exe):
    for d in ("profilers/nsys-vector-add", "profilers/rocprofv3-json"):
        p = os.path.join(SHARED, d)
        if not os.path.isdir(p):
            continue
        rc, js, err = roofline(exe, p, p)
        rc2, out, _ = run(exe, "compare", p, p, "--device", "gpu", "--format", "csv", "-q")
        total = sum(float(r["control_total_duration"]) for r in csv.DictReader(out.splitlines()))
        cv = js["coverage"]["control"] if js else {}
        check("%s: no shapes (a note), its GPU busy time measured, at most its GPU events' sum" % d,
              rc == 0 and rc2 == 0 and any("record_shapes=True" in n for n in js["notes"]["control"])
              and 0 < cv["busy_us"] <= total * (1 + 1e-9) and cv["modelled_us"] == 0,
              (cv, total, err))


def test_formats(exe, tmp):
    c, t = os.path.join(SHARED, PAIRS[1][1]), os.path.join(SHARED, PAIRS[1][2])
    rc, js, _ = roofline(exe, c, t, *ALL)
    rc2, out, err = run(exe, "roofline", c, t, *ALL, "--format", "csv")
    rows = list(csv.DictReader(out.splitlines())) if rc2 == 0 else []
    check("csv: the JSON's rows", js is not None and len(rows) == len(js["rows"]) and
          all(r["op"] == j["op"] and float(r["control_time_us"]) == j["control"]["time_us"]
              for r, j in zip(rows, js["rows"])), err)
    rc, out, err = run(exe, "roofline", c, t, *ALL, "--by", "class", "--format", "json", "-q")
    cj = json.loads(out) if rc == 0 else {}
    ok = rc == 0 and js is not None
    for cl in cj.get("classes", []):
        for side in ("control", "test"):
            want = sum(r[side]["time_us"] or 0 for r in js["rows"] if r["class"] == cl["class"])
            ok = ok and close(cl[side]["time_us"], want, rel=1e-9)
    check("--by class: each class's time is its rows' sum", ok and cj.get("classes"), cj)
    check("rows sorted by |time change|", js is not None and all(
        abs((a["test"]["time_us"] or 0) - (a["control"]["time_us"] or 0)) >=
        abs((b_["test"]["time_us"] or 0) - (b_["control"]["time_us"] or 0))
        for a, b_ in zip(js["rows"], js["rows"][1:])))
    out_path = os.path.join(tmp, "out.json")
    rc, out, err = run(exe, "roofline", c, t, "-o", out_path, "-q")
    check("-o FILE.json: JSON from the extension", rc == 0 and json.load(open(out_path))["rows"],
          err)


RESNET = ("kineto-resnet50_workers0", "kineto-resnet50_workers4")


def bh(ps):
    """Benjamini-Hochberg q-values; None p: None q, not counted."""
    idx = sorted((p, i) for i, p in enumerate(ps) if p is not None)
    m, q, run_min = len(idx), [None] * len(ps), 1.0
    for r in range(m - 1, -1, -1):
        p, i = idx[r]
        run_min = min(run_min, p * m / (r + 1))
        q[i] = run_min
    return q


def verdict(q, change, alpha=0.05, min_change=1.0):
    if q is None:
        return "n/a"
    if q <= alpha and change >= min_change and change > 0:
        return "slower"
    if q <= alpha and change <= -min_change and change < 0:
        return "faster"
    return "noise"


def finite(x):
    return x is not None and not (isinstance(x, float) and math.isnan(x))


def call_samples(path):
    """(op, dims, types) -> per-call GPU times: each cpu_op call inside a
    ProfilerStep, |U| of the kernels, memcpys and memsets its launches (the
    runtime events inside it on its thread) caused."""
    evs = load(path)["traceEvents"]
    steps = [(e["ts"], e["ts"] + e["dur"]) for e in evs
             if e.get("name", "").startswith("ProfilerStep#") and "dur" in e]
    gpu = {}
    for e in evs:
        a = e.get("args") or {}
        if e.get("cat", "").lower() in ("kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset") \
                and "correlation" in a:
            gpu.setdefault(a["correlation"], []).append((e["ts"], e["ts"] + e["dur"]))
    rt = {}
    for e in evs:
        a = e.get("args") or {}
        if e.get("cat", "").lower() in ("cuda_runtime", "runtime", "cuda_driver") and \
                a.get("correlation") in gpu:
            rt.setdefault((e["pid"], e["tid"]), []).append((e["ts"], a["correlation"]))
    for v in rt.values():
        v.sort()
    starts = {k: [ts for ts, _ in v] for k, v in rt.items()}  # bisected per call below
    out = {}
    for e in evs:
        a = e.get("args") or {}
        if e.get("cat") not in ("cpu_op", "Operator") or "Input Dims" not in a or "dur" not in e:
            continue
        if not any(s <= e["ts"] < t for s, t in steps):
            continue
        iv = []
        th, at = rt.get((e["pid"], e["tid"]), []), starts.get((e["pid"], e["tid"]), [])
        for _, corr in th[bisect.bisect_left(at, e["ts"]):bisect.bisect_right(at, e["ts"] + e["dur"])]:
            iv.extend(gpu[corr])
        if not iv:
            continue
        iv.sort()
        tot, lo, hi = 0.0, 0.0, -math.inf
        for s_, t_ in iv:
            if s_ > hi:
                tot += max(0.0, hi - lo)
                lo, hi = s_, t_
            else:
                hi = max(hi, t_)
        tot += max(0.0, hi - lo)
        out.setdefault((e["name"], key(a["Input Dims"]), key(a.get("Input type", []))),
                       []).append(tot)
    return out


def test_stats(exe):
    try:
        from scipy import stats as sps
    except ImportError:
        print("roofline: --stats: no SciPy on this Python, the p-value checks are skipped")
        sps = None
    c, t = (os.path.join(SHARED, d) for d in RESNET)
    if not os.path.isdir(c):
        c, t = (os.path.join(ROOT, "tests", "golden", "traces", d) for d in RESNET)
    rc, js, err = roofline(exe, c, t, *ALL, "--stats")
    check("--stats: exit 0, stats per row", rc == 0 and js["rows"] and
          all("stats" in r for r in js["rows"]), err)
    if rc != 0:
        return
    rows = rows_by_key(js)
    check("--stats: iteration samples on 6 iterations a side",
          all(r["stats"]["samples"] == "iteration" and r["stats"]["control_n"] == 6 and
              r["stats"]["test_n"] == 6 for r in js["rows"]), js["rows"][0]["stats"])
    # Samples: each iteration alone, as plain roofline prints it.
    samples = {k: ([], []) for k in rows}
    for it in range(5, 11):
        rc, one, err = roofline(exe, c, t, "--control-iteration", str(it), "--test-iteration",
                                str(it))
        if rc != 0:
            check("roofline of iteration %d" % it, False, err)
            return
        got = rows_by_key(one)
        for k in rows:
            for s, side in enumerate(("control", "test")):
                r = got.get(k)
                samples[k][s].append(r[side]["time_us"] if r and r[side]["count"] else 0.0)
    ok_mean = all(close(rows[k]["stats"]["control_mean"], sum(v[0]) / 6, rel=1e-9) and
                  close(rows[k]["stats"]["test_mean"], sum(v[1]) / 6, rel=1e-9)
                  for k, v in samples.items())
    check("--stats: each side's mean is the mean of the rows' per-iteration times", ok_mean)
    if sps is not None:
        keys = sorted(rows)
        ps = []
        for k in keys:
            a, b_ = samples[k]
            if len(set(a)) == 1 and len(set(b_)) == 1:  # no variance: docs/stats.md
                ps.append(1.0 if a[0] == b_[0] else 0.0)
                continue
            with warnings.catch_warnings():  # nearly equal samples: SciPy warns, still answers
                warnings.simplefilter("ignore")
                p = float(sps.ttest_ind(b_, a, equal_var=False).pvalue)
            ps.append(p if not math.isnan(p) else None)
        qs = bh(ps)
        bad = []
        for k, p, q in zip(keys, ps, qs):
            st = rows[k]["stats"]
            if p is None:
                if finite(st["p_value"]):
                    bad.append((k, "p", st["p_value"], None))
                continue
            if not close(st["p_value"], p, rel=1e-6, abs_=1e-12) or \
                    not close(st["q_value"], q, rel=1e-6, abs_=1e-12):
                bad.append((k, st["p_value"], p, st["q_value"], q))
            m0, m1 = sum(samples[k][0]) / 6, sum(samples[k][1]) / 6
            want = verdict(q, 100 * (m1 - m0) / m0 if m0 else math.inf)
            if st["verdict"] != want:
                bad.append((k, st["verdict"], want))
        check("--stats: p, q and verdicts equal Welch (SciPy) + Benjamini-Hochberg on the "
              "per-iteration times", not bad and len(keys) > 10, bad[:5])
        check("--stats: some row is not noise", any(r["stats"]["verdict"] in ("slower", "faster")
                                                   for r in js["rows"]))
    # Call samples, read here from the raw events.
    rc, js, err = roofline(exe, c, t, *ALL, "--stats", "--samples", "call")
    check("--stats --samples call: exit 0", rc == 0, err)
    if rc != 0:
        return
    raw = [call_samples(trace_path(os.path.join(c))), call_samples(trace_path(os.path.join(t)))]
    rows = rows_by_key(js)
    checked, bad = 0, []
    for k, r in rows.items():
        st = r["stats"]
        ns = [st["control_n"], st["test_n"]]
        xs = [raw[s].get(k, []) for s in (0, 1)]
        check_n = all(ns[s] == r[side]["count"] for s, side in enumerate(("control", "test")))
        if not check_n:
            bad.append((k, "n", ns))
            continue
        # Calls with a modelled op above them are that op's: compare the
        # rows whose calls this reading finds whole.
        if not all(len(xs[s]) == ns[s] and close(sum(xs[s]), r[side]["time_us"] or 0, rel=1e-9)
                   for s, side in enumerate(("control", "test"))):
            continue
        if ns[0] < 2 or ns[1] < 2:
            continue
        checked += 1
        for s, side in enumerate(("control", "test")):
            srt = sorted(xs[s])
            med = (srt[(len(srt) - 1) // 2] + srt[len(srt) // 2]) / 2
            if not close(st[side + "_median"], med, rel=1e-9):
                bad.append((k, side + "_median", st[side + "_median"], med))
        if sps is not None:
            p = float(sps.mannwhitneyu(xs[1], xs[0], alternative="two-sided",
                                       method="asymptotic").pvalue)
            if not close(st["p_value"], p, rel=1e-6, abs_=1e-12):
                bad.append((k, "p", st["p_value"], p))
    check("--stats --samples call: n is each side's call count", not [x for x in bad if x[1] == "n"],
          bad[:3])
    check("--stats --samples call: medians and Mann-Whitney p equal the raw JSON's calls "
          "(%d rows)" % checked, not bad and checked >= 5, bad[:5])


def test_plot(exe, tmp):
    import xml.etree.ElementTree as ET
    c, t = os.path.join(SHARED, PAIRS[0][1]), os.path.join(SHARED, PAIRS[0][2])
    rc, js, err = roofline(exe, c, t, *ALL)
    out = os.path.join(tmp, "roof.svg")
    rc2, _, err2 = run(exe, "plot", "roofline", c, t, *ALL, "-o", out, "--top", "4",
                       "--control-label", "H100 run", "--test-label", "MI300 run", "-q")
    check("plot roofline: exit 0", rc == 0 and rc2 == 0, (err, err2))
    if rc != 0 or rc2 != 0:
        return
    ns = {"s": "http://www.w3.org/2000/svg"}
    root = ET.parse(out).getroot()
    L, T, W, H = (float(x) for x in root.get("data-plot").split())
    xlo, xhi = (float(x) for x in root.get("data-log-x").split())
    ylo, yhi = (float(x) for x in root.get("data-log-y").split())

    def X(v):
        return L + (math.log10(v) - xlo) / (xhi - xlo) * W

    def Y(v):
        return T + H - (math.log10(v) - ylo) / (yhi - ylo) * H
    rows = js["rows"]
    ok, bad = True, []
    for side in ("control", "test"):
        want = {(r[side]["peak_tflops"], r[side]["peak_tbps"]) for r in rows
                if r[side]["count"] and r[side]["peak_tflops"]}
        roofs = [p for p in root.iterfind(".//s:polyline", ns) if p.get("data-side") == side]
        got = {(float(p.get("data-peak-tflops")), float(p.get("data-peak-tbps"))) for p in roofs}
        if got != want or len(roofs) != len(want):
            bad.append((side, sorted(got), sorted(want)))
        for p in roofs:
            pk, bw = float(p.get("data-peak-tflops")), float(p.get("data-peak-tbps"))
            pts = [tuple(float(v) for v in xy.split(",")) for xy in p.get("points").split()]
            (x0, y0), (x1, y1), (x2, y2) = pts
            # the ridge at peak / bandwidth, flat at the peak, the slope bw * intensity
            inten0 = 10 ** (xlo + (x0 - L) / W * (xhi - xlo))
            if not (abs(x1 - X(pk / bw)) < 0.01 and abs(y1 - Y(pk)) < 0.01 and
                    abs(y2 - Y(pk)) < 0.01 and abs(x2 - (L + W)) < 0.01 and
                    abs(y0 - Y(inten0 * bw)) < 0.02):
                bad.append((side, pk, pts))
    check("plot roofline: each side's roofs at its rows' peaks and bandwidth", not bad and
          len(root.findall(".//s:polyline", ns)) >= 2, bad[:3])
    circles = {(p.get("data-side"), p.get("data-op"), p.get("data-input-dims"),
                p.get("data-input-types")): p for p in root.iterfind(".//s:circle", ns)
               if p.get("class") == "point"}
    bad, npts = [], 0
    for r in rows:
        for side in ("control", "test"):
            d = r[side]
            k = (side, r["op"], key(r["input_dims"]), key(r["input_types"]))
            has = d["count"] and d["intensity"] and d["tflops"]
            p = circles.get(k)
            if not has:
                if p is not None:
                    bad.append(("extra", k))
                continue
            npts += 1
            if p is None or abs(float(p.get("cx")) - X(d["intensity"])) > 0.006 or \
                    abs(float(p.get("cy")) - Y(d["tflops"])) > 0.006 or \
                    not close(float(p.get("data-tflops")), d["tflops"]):
                bad.append((k, p is not None and (p.get("cx"), p.get("cy")),
                            X(d["intensity"]) if d["intensity"] else None))
    check("plot roofline: a point per row and side, where its JSON numbers put it (%d)" % npts,
          not bad and npts == len(circles) and npts > 10, bad[:3])
    both = [r for r in rows if all(r[s]["count"] and r[s]["intensity"] and r[s]["tflops"]
                                   for s in ("control", "test"))]
    both.sort(key=lambda r: -(r["control"]["time_us"] + r["test"]["time_us"]))
    arrows = [g for g in root.iterfind(".//s:g", ns) if g.get("class") == "arrow"]
    check("plot roofline: --top 4 arrows, the rows with most GPU time, in order",
          [(g.get("data-op"), g.get("data-input-dims")) for g in arrows] ==
          [(r["op"], key(r["input_dims"])) for r in both[:4]],
          [(g.get("data-op"), g.get("data-input-dims")) for g in arrows])
    texts = [x.text for x in root.iter("{http://www.w3.org/2000/svg}text")]
    check("plot roofline: the legend names the sets", "H100 run" in texts and
          "MI300 run" in texts, texts[-12:])
    for ext, magic in (("png", b"\x89PNG"), ("pdf", b"%PDF")):
        path = os.path.join(tmp, "roof." + ext)
        rc, _, err = run(exe, "plot", "roofline", c, t, "-o", path, "-q")
        head = open(path, "rb").read(4) if rc == 0 and os.path.exists(path) else b""
        check("plot roofline -o FILE.%s" % ext, head == magic, err)
    path = os.path.join(tmp, "roof.txt")
    rc, _, err = run(exe, "plot", "roofline", c, t, "-o", path)
    check("plot roofline -o FILE.txt: a usage error, no file", rc == 2 and
          not os.path.exists(path), err)


def test_with_rate(exe):
    for case, c, t in PAIRS:
        c, t = os.path.join(SHARED, c), os.path.join(SHARED, t)
        rc, js, err = roofline(exe, c, t, *ALL)
        rc2, out, err2 = run(exe, "compare", c, t, *ALL, "--by", "op", "--with-rate",
                             "--format", "json", "-q")
        check("%s: compare --by op --with-rate: exit 0" % case, rc == 0 and rc2 == 0,
              (err, err2))
        if rc or rc2:
            continue
        rows = json.loads(out)
        sums = {}
        for r in js["rows"]:
            for s_, side in enumerate(("control", "test")):
                d = r[side]
                if d["count"]:
                    a = sums.setdefault((r["op"], s_), [0.0, 0, 0.0])
                    a[0] += d["flops"] * d["count"]
                    a[1] += d["count"]
                    a[2] += d["time_us"]
        bad, rated = [], 0
        for row in rows:
            for s_, side in enumerate(("control", "test")):
                a = sums.get((row["op"], s_))
                fl, tf = row[side + "_flops_per_call"], row[side + "_tflops"]
                if a is None:
                    if fl is not None or tf is not None:
                        bad.append((row["op"], side, fl, tf))
                    continue
                rated += 1
                if not close(fl, a[0] / a[1]) or not close(tf, a[0] / (a[2] * 1e6)):
                    bad.append((row["op"], side, fl, a[0] / a[1], tf, a[0] / (a[2] * 1e6)))
        ops_rl = {k[0] for k in sums}
        check("%s: --with-rate equals roofline's rows summed per op name (%d cells)" %
              (case, rated), not bad and rated >= 4 and
              ops_rl <= {r["op"] for r in rows} | {"aten::_scaled_dot_product_flash_attention",
                                                  "aten::_scaled_dot_product_efficient_attention",
                                                  "aten::_scaled_dot_product_cudnn_attention",
                                                  "aten::layer_norm", "aten::convolution"},
              bad[:4])
        rc, out, err = run(exe, "compare", c, t, *ALL, "--by", "op", "--with-rate", "--format",
                           "csv", "-q")
        crow = {r["op"]: r for r in csv.DictReader(out.splitlines())} if rc == 0 else {}
        ok = rc == 0 and len(crow) == len(rows)
        for row in rows:
            for col in ("control_flops_per_call", "test_flops_per_call", "control_tflops",
                        "test_tflops"):
                v = crow.get(row["op"], {}).get(col)
                ok = ok and (v == "" if row[col] is None else v is not None and
                             float(v) == row[col])
        check("%s: --with-rate: CSV holds the JSON's numbers" % case, ok, err)
        rc, out, err = run(exe, "compare", c, t, *ALL, "--by", "op", "--with-rate", "--format",
                           "markdown", "-q")
        check("%s: --with-rate: Markdown has the columns" % case, rc == 0 and
              "control_tflops" in out.splitlines()[2 if out.startswith("Rows") else 0], out[:300])
    rc, out, err = run(exe, "compare", c, t, "--with-rate")
    check("--with-rate without --by op: exit 2", rc == 2 and "--by op" in err, err)


def test_report_why(exe, tmp):
    import html.parser

    class Rows(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.why, self.chart, self.none = [], False, False, None
            self._none = False

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == "h2":
                self.why = a.get("id") == "why"
            if self.why and tag == "tr" and a.get("class") == "why-row":
                self.rows.append(a)
            if self.why and tag == "svg" and a.get("data-kind") == "roofline":
                self.chart = True
            self._none = self.why and tag == "p" and a.get("id") == "why-none"

        def handle_data(self, data):
            if self._none:
                self.none = (self.none or "") + data
    c, t = os.path.join(SHARED, PAIRS[1][1]), os.path.join(SHARED, PAIRS[1][2])
    out = os.path.join(tmp, "why.html")
    rc, js, err = roofline(exe, c, t, *ALL)
    rc2, _, err2 = run(exe, "report", c, t, *ALL, "-o", out, "-q")
    check("report: exit 0", rc == 0 and rc2 == 0, (err, err2))
    if rc or rc2:
        return
    p = Rows()
    p.feed(open(out, encoding="utf-8").read())
    want = js["rows"][:10]

    def num(v):
        return None if v == "" else float(v)
    ok = p.chart and len(p.rows) == len(want)
    for a, r in zip(p.rows, want):
        ok = ok and a["data-op"] == r["op"] and a["data-input-dims"] == key(r["input_dims"]) and \
            a["data-input-types"] == key(r["input_types"])
        for side in ("control", "test"):
            ok = ok and num(a["data-%s-time-us" % side]) == r[side]["time_us"] and \
                num(a["data-%s-tflops" % side]) == r[side]["tflops"] and \
                num(a["data-%s-efficiency-pct" % side]) == r[side]["efficiency_pct"]
    check("report: the Why section has the roofline chart and roofline's top rows, its "
          "numbers", ok, (p.chart, len(p.rows), p.rows[:1], want[:1]))
    d = os.path.join(SHARED, "profilers", "nsys-vector-add")
    if os.path.isdir(d):
        rc, _, err = run(exe, "report", d, d, "-o", out, "-q")
        p = Rows()
        p.feed(open(out, encoding="utf-8").read() if rc == 0 else "")
        check("report without shapes: one line naming record_shapes=True", rc == 0 and
              p.none and "record_shapes=True" in p.none and not p.chart and not p.rows,
              (err, p.none))


def test_gpu_table_docs(exe):
    """docs/roofline.md's table of GPUs is the built-in table: every entry
    and cell of the page (parsed here) equals td_gpu_table()'s, read from
    the library beside the program, and every built-in entry is on the
    page with a source link."""
    import ctypes, re

    def chk(ok, what):
        check(what, ok)

    # The table is data: the sanitizer pass builds no shared library, and
    # names the plain build (TD_PLAIN_EXE), whose library holds the same.
    lib_dir = os.path.dirname(os.path.abspath(os.environ.get("TD_PLAIN_EXE") or exe))
    lib_path = os.path.join(lib_dir, "libtracediff.so")
    try:
        lib = ctypes.CDLL(lib_path)
    except OSError as e:
        chk(False, "gpu table: load %s: %s" % (lib_path, e))
        return
    nprec = 6  # TD_PREC_N: fp64, fp32, fp16, bf16, fp8, fp4

    class Gpu(ctypes.Structure):
        _fields_ = [("name", ctypes.c_char * 64), ("mem_bw_gbps", ctypes.c_double),
                    ("tflops", (ctypes.c_double * nprec) * 2), ("source", ctypes.c_char_p)]

    lib.td_gpu_table.restype = ctypes.POINTER(Gpu)
    lib.td_gpu_table.argtypes = [ctypes.POINTER(ctypes.c_size_t)]
    n = ctypes.c_size_t()
    tab = lib.td_gpu_table(ctypes.byref(n))
    built = {}
    for i in range(n.value):
        g = tab[i]
        built[g.name.decode()] = (g.mem_bw_gbps, [list(g.tflops[0]), list(g.tflops[1])])
    with open(os.path.join(ROOT, "docs", "roofline.md"), encoding="utf-8") as f:
        text = f.read()
    head = "| entry | bandwidth | matrix fp64 | fp32 | fp16 | bf16 | fp8 | fp4 | vector fp64 | vector fp32 | source |"
    chk(head in text, "gpu table: the docs' table header")
    rows = text.split(head, 1)[1].split("\n")[2:] if head in text else []
    page = {}
    for line in rows:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        num = lambda c: float("nan") if c == "-" else float(c)
        page[cells[0]] = (num(cells[1]), [num(c) for c in cells[2:8]], [num(c) for c in cells[8:10]],
                          cells[10])
    chk(len(built) >= 14 and set(page) == set(built),
          "gpu table: the same entries on the page and built in (%s vs %s)"
          % (sorted(page), sorted(built)))
    same = lambda a, b: (math.isnan(a) and math.isnan(b)) or a == b
    for name, (bw, (mat, vec)) in built.items():
        if name not in page:
            continue
        pbw, pmat, pvec, src = page[name]
        ok = same(bw, pbw) and all(same(a, b) for a, b in zip(mat, pmat)) and \
            same(vec[0], pvec[0]) and same(vec[1], pvec[1]) and \
            all(math.isnan(v) for v in vec[2:])
        chk(ok, "gpu table: %s: built in %s %s %s, docs %s %s %s" % (name, bw, mat, vec, pbw, pmat, pvec))
        chk(src == "same" or re.search(r"\]\(https://[^)]+\)", src) is not None,
              "gpu table: %s cites a source (%s)" % (name, src))
    for name in ("V100 SXM2", "A100 PCIe 40GB", "A100 PCIe 80GB", "A100 SXM 40GB", "A100 SXM 80GB",
                 "H100 PCIe", "H100 SXM", "H200", "B200", "L40S", "MI250X", "MI300X", "MI325X",
                 "MI355X"):
        chk(name in built, "gpu table: %s is built in" % name)
    # The ratios the datasheets fix, whatever their units: a dense figure
    # is not a sparse one (bf16 matrix = fp16 matrix; fp8 = 2 x bf16 where
    # both exist).
    for name, (bw, (mat, vec)) in built.items():
        if not math.isnan(mat[4]) and not math.isnan(mat[3]):
            chk(abs(mat[4] / mat[3] - 2) < 0.03, "gpu table: %s fp8 = 2 x bf16" % name)


def main():
    exe = sys.argv[1]
    if not os.path.isdir(os.path.join(SHARED, PAIRS[0][1])):
        print("roofline: the shared traces are not at %s" % SHARED)
        print("roofline: 0 passed, 1 failed")
        sys.exit(1)
    with tempfile.TemporaryDirectory() as tmp:
        test_tracelens(exe)
        test_spec(exe)
        test_sum_rule(exe)
        test_gpu(exe)
        test_gpu_file(exe, tmp)
        test_bad_input(exe, tmp)
        test_other_profilers(exe)
        test_formats(exe, tmp)
        test_stats(exe)
        test_plot(exe, tmp)
        test_with_rate(exe)
        test_report_why(exe, tmp)
        test_gpu_table_docs(exe)
    print("roofline: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Attribution (docs/attribution.md): compare --by op|top-op|annotation|class,
explain, info's unattributed time, --classes.

    attribution_test.py TRACEDIFF

Checks, on the bundled traces (NVIDIA and AMD, with and without ProfilerStep,
old Kineto categories):
  - the sum rule: the rows of --by X (unattributed included) add up exactly to
    the rows of --device gpu of the same selection, per side, counts and time;
  - hand-verified links (kernel -> runtime launch -> op), each written down
    with the kernel's name, ts and correlation: explain OP must list the kernel;
  - an independent reproduction of --by op in plain Python (json/gzip; no code
    shared with the C side) on several real traces;
  - cross-hardware: bert on H100 vs MI300 gives the same main ops on both sides,
    and --by class puts GEMM and attention side by side;
  - bad input (tests/data/attribution/edge.json): missing correlation, launches
    outside ops, overlapping ops, clock skew: nothing lost, info tells why.
"""
import bisect, gzip, json, math, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402  (run_once: one process per distinct command)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T = os.path.join(ROOT, "tests", "golden", "traces")
EDGE = os.path.join(ROOT, "tests", "data", "attribution", "edge.json")
EXE = None
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def run(*args, exe=None):
    p = cases.run_once([exe or EXE] + list(args), cwd=ROOT)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def rows(*args, exe=None):
    rc, out, err = run(*args, "--format", "json", "-q", exe=exe)
    if rc != 0:
        raise RuntimeError("%s: %s" % (args, err))
    return json.loads(out)


def totals(rs):
    """(control count, control time, test count, test time) over rows."""
    keys = list(rs[0].keys()) if rs else []
    out = [0, 0.0, 0, 0.0]
    for r in rs:
        vals = [v for k, v in r.items() if k not in (keys[0], "diff_counts", "diff_duration",
                                                      "counts_change_categories")]
        for i in range(4):
            out[i] += vals[i]
    return out


PAIRS = [
    ("hta-trace_diff/control", "hta-trace_diff/test", []),
    ("hta-amd", "hta-amd", []),
    ("hta-amd", "hta-amd", ["--hta-strict"]),
    ("hta-no_steps", "hta-no_steps", []),
    ("tracelens-bert_h100", "tracelens-bert_mi300", []),
    ("tracelens-falconsai_h100", "tracelens-falconsai_mi300", []),
    ("kineto-resnet50_workers0", "kineto-resnet50_workers4", []),
    ("hta-two_ranks", "hta-two_ranks", ["--control-rank", "all", "--test-rank", "all"]),
    ("hta-trace_diff/control", "hta-trace_diff/test",
     ["--control-iteration", "all", "--test-iteration", "all"]),
]


BYS = ("op", "top-op", "annotation", "class")


def sum_rule_matrix():
    """(pair index, --by) of the sum rule: every pair with every --by; with
    TD_TEST_SUBSET=1 (make sanitize) a stratified subset: every --by on the
    first pair, then one --by per other pair, in turn, so that each pair
    (each trace's shape, --hta-strict, ranks, iterations) and each --by
    still runs instrumented, the --by op of the hand-checked pairs of
    test_independent and test_links besides. The plain pass runs them all."""
    if cases.subset_ids() is None:
        return [(i, by) for i in range(len(PAIRS)) for by in BYS]
    return [(0, by) for by in BYS] + [(i, BYS[(i - 1) % len(BYS)])
                                      for i in range(1, len(PAIRS))]


def test_sum_rule():
    matrix = sum_rule_matrix()
    for i, (c, t, extra) in enumerate(PAIRS):
        a, b = os.path.join(T, c), os.path.join(T, t)
        # the expectation (--device gpu) from the plain build in the
        # instrumented passes (tests/cases.py: expectation_exe)
        gpu = totals(rows("compare", a, b, "--device", "gpu", *extra,
                          exe=cases.expectation_exe(EXE)))
        for by in (by for j, by in matrix if j == i):
            got = totals(rows("compare", a, b, "--by", by, *extra))
            check(got == gpu, "sum rule %s vs %s --by %s %s: %s != %s" % (c, t, by, extra, got, gpu))


def explain_kernels(trace, op, extra=()):
    p = os.path.join(T, trace)
    rc, out, err = run("explain", p, p, op, "--format", "json", "-q", *extra)
    if rc != 0:
        raise RuntimeError(err)
    return json.loads(out)


# --------------------------------------------------------------------------
# An independent reading of the rules, straight from the JSON.

def load_events(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def counted(evs):
    out = []
    rnd = any(("ts" not in e) or isinstance(e.get("ts"), float) for e in evs if isinstance(e, dict))
    for i, e in enumerate(evs):
        if not isinstance(e, dict) or "cat" not in e or "dur" not in e or e["cat"] == "Trace":
            continue
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        st = a.get("stream", -1)
        st = st if isinstance(st, int) and not isinstance(st, bool) else -1
        co = a.get("correlation", -1)
        co = co if isinstance(co, int) and not isinstance(co, bool) else -1
        ts, dur = e.get("ts"), e["dur"]
        if ts is None:
            ts = dur = math.nan
        elif rnd:
            end = math.floor(ts + dur)
            ts = math.ceil(ts)
            dur = end - ts
        out.append(dict(i=i, name=e["name"], cat=e["cat"], ts=ts, dur=dur, stream=st, corr=co,
                        pid=e.get("pid"), tid=e.get("tid")))
    return out


def iterations(ev):
    steps = [(e["ts"], e["ts"] + e["dur"], int(re.search(r"ProfilerStep\s*#\s*(\d+)", e["name"]).group(1)))
             for e in ev if e["name"].startswith("ProfilerStep")
             and re.search(r"ProfilerStep\s*#\s*(\d+)", e["name"])]
    def host_it(ts):
        it = -1
        for s, en, n in steps:
            if s <= ts < en:
                it = n
        return it
    launch_it = {}
    for e in ev:
        host = e["stream"] < 0 or (e["stream"] == 0 and e["cat"] == "cpu_op")
        e["host"] = host
        e["it"] = host_it(e["ts"]) if host else None
        if e["corr"] != -1 and not (e["stream"] >= 0 and e["corr"] >= 0) and \
                e["name"] not in ("Event Sync", "Context Sync"):
            launch_it[e["corr"]] = (-1 if e["i"] == 0 else e["it"], e)
    for e in ev:
        if not e["host"]:
            e["it"] = launch_it.get(e["corr"], (-1, None))[0] if e["corr"] != -1 else -1
    return sorted({n for _, _, n in steps}), launch_it


def innermost_ops(ev):
    """launch event id -> innermost op name, by scanning back from the launch."""
    by_thread = {}
    for e in ev:
        if e["cat"] in ("cpu_op", "Operator") and e["stream"] == -1 and not math.isnan(e["ts"]):
            by_thread.setdefault((e["pid"], e["tid"]), []).append(e)
    for ops in by_thread.values():
        ops.sort(key=lambda o: (o["ts"], -o["dur"], o["i"]))
    starts = {k: [o["ts"] for o in v] for k, v in by_thread.items()}

    def op_of(l):
        ops = by_thread.get((l["pid"], l["tid"]), [])
        k = bisect.bisect_right(starts.get((l["pid"], l["tid"]), []), l["ts"])
        for o in reversed(ops[:k]):
            if o["ts"] + o["dur"] >= l["ts"] + l["dur"]:
                return o["name"]
        return None
    return op_of


def python_by_op(path):
    ev = counted(load_events(path))
    iters, launch = iterations(ev)
    sel = iters[0] if iters else None
    op_of = innermost_ops(ev)
    res = {}
    for e in ev:
        if e["stream"] == -1:
            continue
        if sel is not None and e["it"] != sel:
            continue
        key = "(unattributed)"
        if not e["host"] and e["corr"] != -1 and e["corr"] in launch:
            l = launch[e["corr"]][1]
            if not math.isnan(l["ts"]):
                key = op_of(l) or key
        c, d = res.get(key, (0, 0.0))
        res[key] = (c + 1, d + e["dur"])
    return res


def test_independent():
    for trace in ("tracelens-bert_h100", "tracelens-bert_mi300", "hta-amd", "hta-no_steps",
                  "kineto-resnet50_workers0", "hta-trace_diff/control"):
        d = os.path.join(T, trace)
        f = [os.path.join(d, x) for x in sorted(os.listdir(d)) if ".json" in x][0]
        want = python_by_op(f)
        got = {r["op"]: (r["control_counts"], r["control_total_duration"])
               for r in rows("compare", d, d, "--by", "op") if r["control_counts"]}
        check(got == want, "independent --by op on %s: %d rows vs %d; first differences %s" % (
            trace, len(got), len(want),
            [(k, got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)][:3]))


def test_cross_hardware():
    a, b = os.path.join(T, "tracelens-bert_h100"), os.path.join(T, "tracelens-bert_mi300")
    rs = rows("compare", a, b, "--by", "op", "--device", "gpu")
    both = [r["op"] for r in rs if r["control_counts"] and r["test_counts"]]
    one = [r["op"] for r in rs if bool(r["control_counts"]) != bool(r["test_counts"])]
    for op in ("aten::addmm", "aten::_flash_attention_forward", "aten::native_layer_norm",
               "aten::gelu"):
        check(op in both, "bert h100 vs mi300 --by op: %s on both sides (%s)" % (op, both))
    check(len(one) <= len(both) // 4, "bert h100 vs mi300: mostly matched, not added/removed: %s" % one)
    cls = {r["class"]: r for r in rows("compare", a, b, "--by", "class")}
    for c in ("gemm", "attention"):
        check(c in cls and cls[c]["control_counts"] > 0 and cls[c]["test_counts"] > 0,
              "--by class: %s on both sides" % c)


def test_links():
    # (trace, op, kernel name, kernel ts, correlation): read off the JSON by
    # hand; explain OP must list the kernel, with its count and duration.
    every = ["--control-iteration", "all", "--test-iteration", "all"]
    for trace, kname, ts, corr, launch, op, top in HAND_LINKS:
        for by, name in (("op", op), ("top-op", top)):
            if name is None:
                continue
            k = explain_kernels(trace, name, every + ["--by", by])["kernels"]
            check(any(r["name"].startswith(kname) and r["control_counts"] >= 1 for r in k),
                  "%s: kernel %s (ts %s, correlation %s) -> %s -> %s %s" % (
                      trace, kname[:60], ts, corr, launch, by, name))


# Hand-verified links, read off the JSON: (trace, kernel name (prefix), kernel
# ts, correlation, launch, innermost op, outermost op).
HAND_LINKS = [
    ("tracelens-bert_h100", "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long",
     1419247333430.849, 8218, "cudaLaunchKernel", "aten::index_select", "aten::embedding"),
    ("tracelens-bert_mi300", "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long",
     2204338330237.582, 802, "hipLaunchKernel", "aten::index_select", "aten::embedding"),
    ("hta-amd", "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<",
     4203669604887.494, 128, "hipLaunchKernel", "aten::mse_loss_backward",
     "autograd::engine::evaluate_function: MseLossBackward0"),
    # A gpu_memcpy on stream 0 (AMD); its launch has "stream": "0x0" (a string: -1).
    ("hta-amd", "Memcpy HtoD (Host -> Device)", 4203669603454.206, 117, "hipMemcpyWithStream",
     "aten::copy_", "aten::to"),
    ("hta-no_steps", "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float",
     1694039994139246, 218, "cudaLaunchKernel", "aten::uniform_", "aten::rand"),
    ("hta-no_steps", "void fft2d_r2c_32x32<float, false, 0u, false>", 1694040010076734, 5597,
     "cudaLaunchKernel", "aten::cudnn_convolution", "aten::conv2d"),
    # A CUDA graph: every kernel of the graph has the cudaGraphLaunch's correlation.
    ("hta-trace_diff/test", "volta_sgemm_128x128_tn", 1661938466336725, 1941222, "cudaGraphLaunch",
     "CompiledFunction", "CompiledFunction"),
    # Kineto's old categories: Kernel, Runtime, Operator.
    ("kineto-resnet50_workers0", "volta_sgemm_64x64_nt", 1623142623584714, 38815, "cudaLaunchKernel",
     "aten::cudnn_convolution_backward_input", "CudnnConvolutionBackward"),
    ("tracelens-falconsai_mi300", "SubTensorOpWithScalar1d", 2199280223674.156, 4789,
     "hipExtModuleLaunchKernel", "aten::miopen_convolution", "aten::conv2d"),
    ("hta-trace_diff/control", "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>",
     1661203462856756, 1827208, "cudaLaunchKernel", "aten::sub", None),
]


def test_edge():
    rs = {r["op"]: (r["control_counts"], r["control_total_duration"])
          for r in rows("compare", EDGE, EDGE, "--by", "op")}
    want = {"inner": (3, 31), "ovA": (1, 29), "ovB": (2, 42), "(unattributed)": (4, 34)}
    check(rs == want, "edge.json --by op: %s" % rs)
    top = {r["top_op"]: r["control_counts"] for r in rows("compare", EDGE, EDGE, "--by", "top-op")}
    check(top == {"outer": 3, "ovA": 2, "ovB": 1, "(unattributed)": 4}, "edge.json --by top-op: %s" % top)
    ann = {r["annotation"]: r["control_counts"] for r in rows("compare", EDGE, EDGE, "--by", "annotation")}
    check(ann == {"my_region": 3, "(unattributed)": 7}, "edge.json --by annotation: %s" % ann)
    rc, out, err = run("info", EDGE, "--format", "json")
    a = json.loads(out)["attribution"] if rc == 0 else {}
    u = a.get("unattributed", {})
    check(a.get("gpu_time") == 136 and a.get("attributed_time") == 102, "info attribution %s" % a)
    check(u.get("no correlation id") == {"count": 1, "time": 7} and
          u.get("no launch found") == {"count": 1, "time": 11} and
          u.get("launch outside any op") == {"count": 1, "time": 13} and
          u.get("host event on a gpu stream") == {"count": 1, "time": 3}, "info reasons %s" % u)
    rc, out, err = run("info", EDGE)
    check(rc == 0 and "launch outside any op" in out, "info table names the reasons")
    rc, out, err = run("compare", EDGE, EDGE, "--by", "op", "--format", "csv")
    check(rc == 0 and "4 GPU events (34 us) not attributed" in err, "compare notes unattributed: %s" % err)
    e = json.loads(run("explain", EDGE, EDGE, "inner", "--format", "json")[1])
    check(e["control"] == {"calls": 1, "cpu_time": 30, "gpu_time": 31} and
          sorted(r["name"] for r in e["kernels"]) == ["Memcpy HtoD (Pageable -> Device)", "k_nested", "k_skew"],
          "explain inner: %s" % e)
    e = json.loads(run("explain", EDGE, EDGE, "my_region", "--by", "annotation", "--format", "json")[1])
    check(e["annotation"] == "my_region" and e["control"]["gpu_time"] == 31 and
          e["control"]["cpu_time"] == 100, "explain --by annotation: %s" % e)
    rc, out, err = run("explain", EDGE, EDGE, "no_such_op", "--format", "csv")
    check(rc == 1 and out == "" and "no op named 'no_such_op'" in err and "closest: " in err,
          "explain of an unknown op: an error naming the closest: %s" % err)
    rc, out, err = run("explain", EDGE, EDGE, "inner", "--format", "table")
    check(rc == 0 and "CPU time" in out and "GPU time" in out and "k_skew" in out,
          "explain table: %s" % out)


EDGE2 = os.path.join(ROOT, "tests", "data", "attribution", "edge2.json")


def test_edge2():
    # Decimal timestamps (rounded, spec §2), tids written as strings, a launch
    # on another thread, a launch without ts, a correlation that is a string,
    # and two launches sharing one id (the last in the file wins).
    rs = {r["op"]: (r["control_counts"], r["control_total_duration"])
          for r in rows("compare", EDGE2, EDGE2, "--by", "op")}
    check(rs == {"opS": (1, 4), "opT": (1, 10), "(unattributed)": (4, 30)}, "edge2 --by op: %s" % rs)
    a = json.loads(run("info", EDGE2, "--format", "json")[1])["attribution"]
    u = a["unattributed"]
    check(a["gpu_time"] == 44 and a["attributed"] == 2 and
          u["no correlation id"] == {"count": 1, "time": 8} and
          u["launch outside any op"] == {"count": 3, "time": 22}, "edge2 info: %s" % a)


TIES = os.path.join(ROOT, "tests", "data", "attribution", "ties.json")


def test_ties():
    # Same start: the shorter op is the inner one; same start and duration:
    # the later in the file is inner, the earlier outer. ProfilerStep is no
    # annotation.
    def by(b, key):
        return {r[key]: (r["control_counts"], r["control_total_duration"])
                for r in rows("compare", TIES, TIES, "--by", b)}
    check(by("op", "op") == {"opZ": (1, 3), "opY": (1, 5)}, "ties --by op")
    check(by("top-op", "top_op") == {"opX": (2, 8)}, "ties --by top-op")
    check(by("annotation", "annotation") == {"region": (1, 3), "(unattributed)": (1, 5)},
          "ties --by annotation")


def test_classes_file():
    with tempfile.TemporaryDirectory() as d:
        good = os.path.join(d, "good.tsv")
        with open(good, "w") as f:
            f.write("# mine\n\nmine\tk_ov\nmem\tmemcpy\n")
        cls = {r["class"]: r["control_counts"] for r in
               rows("compare", EDGE, EDGE, "--by", "class", "--classes", good)}
        check(cls == {"mine": 3, "mem": 1, "other": 6}, "--classes: %s" % cls)
        bad = os.path.join(d, "bad.tsv")
        with open(bad, "w") as f:
            f.write("ok\tx\nbroken\t(unclosed\n")
        rc, out, err = run("compare", EDGE, EDGE, "--by", "class", "--classes", bad)
        check(rc == 2 and "bad.tsv: line 2:" in err, "--classes error names file and line: %s" % err)
        with open(bad, "w") as f:
            f.write("no tab here\n")
        rc, out, err = run("compare", EDGE, EDGE, "--by", "class", "--classes", bad)
        check(rc == 2 and "bad.tsv: line 1: expected class<TAB>regex" in err, "no tab: %s" % err)


def test_usage():
    rc, out, err = run("compare", EDGE, EDGE, "--by", "op", "--device", "cpu")
    check(rc == 2 and "--device cpu does not apply" in err, "--by op --device cpu: %s" % err)
    rc, out, err = run("compare", EDGE, EDGE, "--by", "ops")
    check(rc == 2 and "expected kernel, op, top-op, annotation, class, module or lca-name" in err, "--by ops: %s" % err)


def test_default_unchanged():
    a, b = os.path.join(T, "hta-trace_diff/control"), os.path.join(T, "hta-trace_diff/test")
    one = run("compare", a, b, "--format", "csv", "-q")[1]
    two = run("compare", a, b, "--format", "csv", "-q", "--by", "kernel")[1]
    check(one == two and one.startswith("name,"), "--by kernel is the plain comparison")


def main():
    global EXE
    EXE = os.path.abspath(sys.argv[1])
    for t in (test_sum_rule, test_independent, test_cross_hardware, test_links, test_edge,
              test_edge2, test_ties, test_classes_file, test_usage, test_default_unchanged):
        try:
            t()
        except Exception as e:  # a crash is a failure, not the end of the suite
            check(False, "%s: %r" % (t.__name__, e))
    print("attribution: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

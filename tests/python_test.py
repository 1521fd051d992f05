#!/usr/bin/env python3
"""The Python module (tracediff, HTA's TraceDiff on the C library).

    python_test.py BUILD/tracediff [--only SUBSTR | --case NAME | --list] [-v]

Runs under an interpreter that has pandas: $PYTHON, /usr/bin/python3 or
python3, whichever first imports pandas (re-executing itself there). Without
one, the suite fails (it does not skip). Uses BUILD/python, running
`make python BUILD=BUILD` first when the module is not built.

Every case of tests/golden/cases.json goes through TraceDiff.compare_traces
and TraceDiff.ops_diff and is matched with HTA's output: the same columns in
the same order, the same index (name, order) and the same values.

Under TD_TEST_SUBSET=1 (the instrumented passes) the checks that
tests/subset/python.txt names run: the fewest of the subset's reference
cases and of this file's functions that run every line of src/ and of the
module's C code that all of them run (scripts/choose_subset.py
choose-python); the plain pass runs every one.
"""
import gc, gzip, json, math, os, re, subprocess, sys, tempfile, threading, time, warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as reference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_python():
    cands = [os.environ.get("PYTHON"), "/usr/bin/python3", "python3"]
    for p in cands:
        if not p:
            continue
        try:
            r = subprocess.run([p, "-c", "import pandas"], capture_output=True, timeout=60)
        except OSError:
            continue
        if r.returncode == 0:
            return p
    return None


def reexec():
    try:
        import pandas  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get("TRACEDIFF_PYTEST_REEXEC"):
        print("python: this interpreter has no pandas")
        print("python: 0 passed, 1 failed")
        sys.exit(1)
    py = find_python()
    if not py:
        print("python: no Python 3 with pandas found (apt-get install python3-pandas, or set "
              "PYTHON=...); cannot test the module")
        print("python: 0 passed, 1 failed")
        sys.exit(1)
    os.environ["TRACEDIFF_PYTEST_REEXEC"] = "1"
    import suite_main  # its interpreter tuned as run_all.py's suites are
    argv, env = suite_main.again(py, sys.argv)
    os.execvpe(py, argv, env)


reexec()

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

BUILD = os.path.dirname(os.path.abspath(sys.argv[1])) if len(sys.argv) > 1 else \
    os.path.join(ROOT, "build")
PYDIR = os.path.join(BUILD, "python")
if "asan" in os.path.basename(BUILD):
    # An instrumented module needs the sanitizer runtime loaded first.
    if "libasan" not in os.environ.get("LD_PRELOAD", ""):
        cc = os.environ.get("CC", "cc")
        lib = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True,
                             text=True).stdout.strip()
        os.environ["LD_PRELOAD"] = lib
        # Python keeps its objects to the end by design: leak checks off,
        # after whatever the caller set (the last setting wins).
        os.environ["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        os.execvp(sys.executable, [sys.executable] + sys.argv)


def ensure_built():
    # make decides whether anything is out of date.
    cmd = ["make", "-s", "python", "BUILD=" + os.path.relpath(BUILD, ROOT),
           "PYTHON=" + sys.executable]
    if "asan" in os.path.basename(BUILD):
        san = "-fsanitize=address,undefined"
        cmd += [f"OPT=-O1 -g {san} -fno-omit-frame-pointer -fno-sanitize-recover=all",
                f"LDFLAGS={san}"]
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}  # not for the compiler
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print("python: make python failed:\n" + r.stdout + r.stderr)
        print("python: 0 passed, 1 failed")
        sys.exit(1)


ensure_built()
sys.path.insert(0, PYDIR)
import tracediff  # noqa: E402
from tracediff import DeviceType, LabeledTrace, TraceDiff, TraceDiffWarning  # noqa: E402

GOLDEN = os.path.join(ROOT, "tests", "golden")
TRACES = os.path.join(GOLDEN, "traces")
DEVICES = {"all": DeviceType.ALL, "cpu": DeviceType.CPU, "gpu": DeviceType.GPU}


def sel(c):
    return dict(control_rank=c.get("control_rank"), test_rank=c.get("test_rank"),
                control_iteration=c.get("control_iteration"),
                test_iteration=c.get("test_iteration"), device_type=DEVICES[c["device"]],
                hta_strict=bool(c.get("hta_strict")), ns=bool(c.get("ns")))


def frame_problem(df, path):
    exp = pd.read_csv(path, index_col=0, keep_default_na=False, dtype={0: object})
    if list(df.columns) != list(exp.columns):
        return f"columns {list(df.columns)} != {list(exp.columns)}"
    if df.index.name != exp.index.name:
        return f"index name {df.index.name!r} != {exp.index.name!r}"
    if df.index.tolist() != [str(x) for x in exp.index]:
        return "index differs (names or order)"
    for col in exp.columns:
        if col == "counts_change_categories":
            if df[col].tolist() != exp[col].tolist():
                return f"{col} differs"
            continue
        if not np.issubdtype(df[col].dtype, np.number):
            return f"{col} is {df[col].dtype}, not numeric"
        got, want = df[col].to_numpy(dtype=float), exp[col].to_numpy(dtype=float)
        bad = ~np.isclose(got, want, rtol=1e-9, atol=1e-6)
        if bad.any():
            i = int(np.argmax(bad))
            return f"{df.index[i][:60]!r} {col}: got {got[i]}, expected {want[i]}"
    return None


_sets = {}


def labeled(rel, label, ns=False):
    # One load per trace set, label and duration rule for the whole suite.
    key = (rel, label, ns)
    if key not in _sets:
        _sets[key] = LabeledTrace(label=label, trace_dir=os.path.join(GOLDEN, rel), ns=ns)
    return _sets[key]


def check_case(c):
    base = os.path.join(GOLDEN, c["id"])
    ns = bool(c.get("ns"))
    ctl, tst = labeled(c["control"], "control", ns), labeled(c["test"], "test", ns)
    s = sel(c)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if os.path.exists(base + ".error.txt"):
            try:
                TraceDiff.compare_traces(ctl, tst, use_short_name=c["short_names"], **s)
            except tracediff.UsageError as e:
                if not isinstance(e, ValueError) or "no such" not in str(e):
                    return f"error does not say what exists: {e}"
                return None
            return "expected a ValueError"
        df = TraceDiff.compare_traces(ctl, tst, use_short_name=c["short_names"], **s)
    problem = frame_problem(df, base + ".csv")
    if problem:
        return problem
    if os.path.exists(base + ".hta-refused.txt"):
        if not any(issubclass(w.category, TraceDiffWarning) and "no ProfilerStep" in
                   str(w.message) for w in caught):
            return "whole-trace comparison not announced with a TraceDiffWarning"
    if os.path.exists(base + ".ops.json"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = TraceDiff.ops_diff(ctl, tst, **s)
        exp = json.load(open(base + ".ops.json", encoding="utf-8"))
        if list(got) != ["added", "deleted", "increased", "decreased", "unchanged"]:
            return f"ops_diff keys {list(got)}"
        if got != exp:
            return "ops_diff differs: " + ", ".join(k for k in exp if got[k] != exp[k])
    return None


# ---------------------------------------------------------------------------
# Behaviour beyond the reference cases

BASE = os.path.join(TRACES, "hta-trace_compare", "base")
TEST = os.path.join(TRACES, "hta-trace_compare", "test")


def quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def t_plain_paths_default_labels():
    df = quiet(TraceDiff.compare_traces, BASE, TEST)
    assert list(df.columns) == ["Control_counts", "Control_total_duration", "Test_counts",
                                "Test_total_duration", "diff_counts", "diff_duration",
                                "counts_change_categories"], list(df.columns)
    assert df.index.name == "name"


def t_same_labels_renamed_as_hta():
    a, b = LabeledTrace(label="x", trace_dir=BASE), LabeledTrace(label="x", trace_dir=TEST)
    df = quiet(TraceDiff.compare_traces, a, b)
    assert df.columns[2] == "x_control_test_counts", list(df.columns)


def t_short_name_index():
    df = quiet(TraceDiff.compare_traces, BASE, TEST, use_short_name=True)
    assert df.index.name == "short_name"
    assert "at::native::vectorized_elementwise_kernel" in df.index


def t_dtypes_follow_hta():
    # No name missing on a side: integers; a name missing on one side makes
    # that side's columns float64 (HTA's outer join fills NaN with 0).
    df = quiet(TraceDiff.compare_traces, BASE, BASE)
    assert all(df[c].dtype == np.int64 for c in df.columns[:6]), df.dtypes
    df = quiet(TraceDiff.compare_traces, BASE, TEST, control_iteration=1010,
               test_iteration=1010, device_type=DeviceType.CPU)
    assert df["Control_counts"].dtype == np.float64
    assert df["Test_total_duration"].dtype == np.float64
    assert df["counts_change_categories"].dtype == object


def t_pathlike_and_file():
    import pathlib
    f = sorted(os.listdir(BASE))[0]
    df = quiet(TraceDiff.compare_traces, pathlib.Path(BASE), os.path.join(BASE, f))
    assert (df["diff_counts"] == 0).all()


def t_labeled_trace_api():
    lt = LabeledTrace(label="base", trace_dir=BASE)
    assert lt.ranks() == [1] and lt.iterations() == [1009, 1010], (lt.ranks(), lt.iterations())
    assert LabeledTrace(trace_dir=BASE).label.startswith("t")
    try:
        LabeledTrace(label="x")
    except ValueError:
        pass
    else:
        raise AssertionError("LabeledTrace without a trace must raise ValueError")


def t_import_paths():
    from tracediff.analyzers.trace_diff import TraceDiff as T2, DeviceType as D2
    from tracediff.trace_diff import LabeledTrace as L2
    assert T2 is TraceDiff and D2 is DeviceType and L2 is LabeledTrace
    assert [d.name for d in DeviceType] == ["CPU", "GPU", "ALL"]


def t_foreign_device_type():
    # HTA's own DeviceType enum (or any enum with the same names) works.
    import enum

    class Other(enum.Enum):
        CPU = 1
        GPU = 2
        ALL = 3
    a = quiet(TraceDiff.compare_traces, BASE, TEST, device_type=Other.GPU)
    b = quiet(TraceDiff.compare_traces, BASE, TEST, device_type=DeviceType.GPU)
    assert a.equals(b)


def t_bad_arguments_raise_value_error():
    for kw in ({"control_rank": "1"}, {"test_iteration": [1009, "x"]},
               {"control_rank": 99}, {"test_iteration": 5}, {"control_iteration": []}):
        try:
            quiet(TraceDiff.compare_traces, BASE, TEST, **kw)
        except tracediff.UsageError as e:
            assert isinstance(e, ValueError) and isinstance(e, tracediff.TraceError)
        else:
            raise AssertionError(f"{kw} did not raise")
    try:
        TraceDiff.compare_traces(42, TEST)
    except ValueError:
        pass
    else:
        raise AssertionError("a number as a trace did not raise")


def t_trace_error_attributes():
    bad = os.path.join(ROOT, "tests", "bad", "trunc_in_string.json")
    try:
        TraceDiff.compare_traces(bad, TEST)
    except tracediff.TraceError as e:
        assert not isinstance(e, ValueError)
        assert e.path == bad and e.offset == 240, (e.path, e.offset)
        assert e.message == "unterminated string in traceEvents", e.message
        assert str(e) == f"{bad}: byte 240: unterminated string in traceEvents", str(e)
    else:
        raise AssertionError("no TraceError")
    try:
        LabeledTrace(label="x", trace_dir="/nonexistent/dir")
    except tracediff.TraceError as e:
        assert e.path == "/nonexistent/dir" and e.offset is None
    else:
        raise AssertionError("no TraceError for a missing directory")


def t_visualize_files():
    df = quiet(TraceDiff.compare_traces, BASE, TEST, control_iteration=1010,
               test_iteration=1010)
    top = df.sort_values(by="diff_duration", ascending=False).head(10)
    with tempfile.TemporaryDirectory() as tmp:
        for ext, magic in ((".png", b"\x89PNG"), (".svg", b"<svg"), (".pdf", b"%PDF")):
            p = os.path.join(tmp, "c" + ext)
            TraceDiff.visualize_counts_diff(top, show_image=False, export_image_path=p)
            assert open(p, "rb").read(5).startswith(magic), ext
            p = os.path.join(tmp, "d" + ext)
            TraceDiff.visualize_duration_diff(top, False, p)
            assert open(p, "rb").read(5).startswith(magic), ext
        svg = open(os.path.join(tmp, "d.svg"), encoding="utf-8").read()
        assert "Ops Duration Comparison" in svg and "Total Duration (us)" in svg
        # The same drawing as the CLI's: the difference on its own axis.
        assert ">Difference (us)</text>" in svg, "no axis of its own for the difference"
        assert re.search("difference \\([^<]+ \u2212 [^<]+\\)</text>", svg), "legend"
        try:
            TraceDiff.visualize_counts_diff(top, False, os.path.join(tmp, "x.bmp"))
        except tracediff.TraceError:
            pass
        else:
            raise AssertionError("an unknown image format did not raise")
        assert not os.path.exists(os.path.join(tmp, "x.bmp"))


def t_visualize_text_fallback():
    import contextlib
    import io
    df = quiet(TraceDiff.compare_traces, BASE, TEST).head(3)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        TraceDiff.visualize_duration_diff(df)
    out = buf.getvalue()
    assert out.startswith("Ops Duration Comparison") and "Difference" in out, out


def t_no_leaks_on_repeated_calls():
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    a, b = LabeledTrace(label="a", trace_dir=BASE), LabeledTrace(label="b", trace_dir=TEST)
    # Under AddressSanitizer (its quarantine holds freed memory) a few
    # rounds check for memory errors; the uninstrumented run for growth.
    asan = "asan" in os.path.basename(BUILD)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(2 if asan else 50):
            TraceDiff.compare_traces(a, b)
            TraceDiff.ops_diff(BASE, TEST)
        gc.collect()
        before = rss()
        for _ in range(10 if asan else 400):
            TraceDiff.compare_traces(a, b, use_short_name=True)
            TraceDiff.ops_diff(BASE, TEST)
            try:
                TraceDiff.compare_traces(a, b, control_rank=7)
            except ValueError:
                pass
        gc.collect()
        grown = rss() - before
    assert asan or grown < 8 << 20, f"RSS grew {grown >> 10} KiB over 400 rounds"


def t_no_leaks_in_stats_check_and_summaries():
    def rss():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    a, b = LabeledTrace(label="a", trace_dir=BASE), LabeledTrace(label="b", trace_dir=TEST)
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summary = os.path.join(tmp, "s.tdsum")
        tracediff.summarize(BASE, summary)
        tracediff.summarize(TEST, summary)

        def round_():
            TraceDiff.compare_traces(a, b, stats=True, samples="call")
            res = tracediff.check(a, b, samples="call")
            res.junit(os.path.join(tmp, "j.xml"))
            res.markdown()
            tracediff.runs(summary)
            tracediff.trend(summary, runs=["test", "base"])
            TraceDiff.compare_traces(a, b, by="op", per_iteration=True, no_python=True,
                                     normalize_names=True)
            tracediff.trend(summary, export_image_path=os.path.join(tmp, "t.svg"))
            for bad in (lambda: tracediff.check(a, b, control_rank=7),
                        lambda: tracediff.trend(summary, names="(")):
                try:
                    bad()
                except ValueError:
                    pass
        # Under AddressSanitizer freed memory waits in its quarantine (up to
        # 256 MiB), so RSS grows whatever the module frees: there a few
        # rounds check for memory errors, and the uninstrumented run for
        # growth.
        asan = "asan" in os.path.basename(BUILD)
        for _ in range(2 if asan else 30):
            round_()
        gc.collect()
        before = rss()
        for _ in range(5 if asan else 200):
            round_()
        gc.collect()
        grown = rss() - before
    if not asan:
        assert grown < 8 << 20, f"RSS grew {grown >> 10} KiB over 200 rounds"


def t_gil_released_while_loading():
    # A Python thread keeps running while the C library reads traces: count
    # its ticks that fall strictly inside the C call.
    from tracediff import _tracediff as core
    big = os.path.join(TRACES, "hta-trace_diff", "control")
    stamps = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0.0002)
    th = threading.Thread(target=tick)
    th.start()
    time.sleep(0.01)
    t0 = time.perf_counter()
    core.open_sets([big], threads=1)
    t1 = time.perf_counter()
    stop.set()
    th.join()
    inside = sum(1 for x in stamps if t0 < x < t1)
    assert inside >= 10, f"{inside} ticks during a {t1 - t0:.3f} s load"


# ---------------------------------------------------------------------------
# Beyond HTA: statistics, the CI gate and summaries, each against the CLI

BUILT_CLI = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else \
    os.path.join(BUILD, "tracediff")
# The CLI's side of each comparison is the expectation: the plain build's in
# the instrumented passes (tests/cases.py: expectation_exe), where the module
# is the path under test; run without the sanitizer runtime preloaded here.
# Never with the runtime this interpreter preloads: the plain CLI needs none,
# and the instrumented one carries its own (linked in: Makefile,
# ASAN_EXE_LDFLAGS), which refuses to start beside a preloaded one.
CLI = reference.expectation_exe(BUILT_CLI)
CLI_ENV = None if "libasan" not in os.environ.get("LD_PRELOAD", "") else \
    {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
DIFF_C = os.path.join(TRACES, "hta-trace_diff", "control")
DIFF_T = os.path.join(TRACES, "hta-trace_diff", "test")
RESNET0 = os.path.join(TRACES, "kineto-resnet50_workers0")
RESNET4 = os.path.join(TRACES, "kineto-resnet50_workers4")
TWO_RANKS = os.path.join(TRACES, "hta-two_ranks")


def cli(*args, ok=(0,)):
    r = subprocess.run([CLI, *map(str, args)], capture_output=True, env=CLI_ENV)
    assert r.returncode in ok, f"tracediff {' '.join(map(str, args))}: exit {r.returncode}: " \
        + r.stderr.decode(errors="replace")[-400:]
    return r


def csv_rows(data: bytes):
    import csv
    import io
    return list(csv.reader(io.StringIO(data.decode("utf-8", "surrogateescape"), newline="")))


def same_number(text: str, v) -> bool:
    # The CLI prints the shortest text that reads back to the same double, and
    # nothing for an undefined number: equality is exact.
    if text == "":
        return isinstance(v, float) and math.isnan(v)
    if text in ("nan", "inf", "-inf"):
        return str(float(v)) == text
    return float(text) == float(v)


def frame_equals_csv(df, data: bytes, index=True):
    """None when df (its index first, when index) is the CLI's CSV cell for cell."""
    rows = csv_rows(data)
    head = ([df.index.name] if index else []) + list(df.columns)
    if rows[0] != head:
        return f"columns {head} != {rows[0]}"
    if len(rows) - 1 != len(df):
        return f"{len(df)} rows, the CLI has {len(rows) - 1}"
    cols = [df.index.tolist()] if index else []
    cols += [df[c].tolist() for c in df.columns]
    for i, row in enumerate(rows[1:]):
        for j, text in enumerate(row):
            v = cols[j][i]
            if isinstance(v, str):
                good = v == text
            else:
                good = same_number(text, v)
            if not good:
                return f"row {i} ({row[0][:50]!r}) column {head[j]}: {v!r} != CLI {text!r}"
    return None


STATS_PAIRS = [
    ("hta-trace_diff", "hta-trace_diff/control", "hta-trace_diff/test", {}),
    ("hta-trace_compare all iterations", "hta-trace_compare/base", "hta-trace_compare/test",
     {"control_iteration": "all", "test_iteration": "all"}),
    ("resnet50 workers0/4 all iterations", "kineto-resnet50_workers0",
     "kineto-resnet50_workers4", {"control_iteration": "all", "test_iteration": "all"}),
    ("hta-two_ranks both ranks", "hta-two_ranks", "hta-two_ranks",
     {"control_rank": "all", "test_rank": 1, "control_iteration": "all",
      "test_iteration": "all"}),
]


def _trace(rel):
    return os.path.join(TRACES, rel)


def _cli_sel(kw):
    out = []
    for k, v in kw.items():
        out += ["--" + k.replace("_", "-"), v if isinstance(v, str) else str(v)]
    return out


def t_stats_by_equal_cli():
    # compare_traces(by=..., stats=True): the rows' own GPU time, as compare
    # --by X --stats --format csv gives it (samples, means, reasons).
    c, t = _trace("kineto-resnet50_workers0"), _trace("kineto-resnet50_workers4")
    for by, flag in (("op", "op"), ("class", "class"), ("annotation", "annotation")):
        for samples in ("iteration", "call"):
            want = cli("compare", "--stats", "--format", "csv", "-q", c, t, "--by", flag,
                       "--samples", samples, "--control-iteration", "all", "--test-iteration",
                       "all", "--control-label", "control", "--test-label", "test").stdout
            df = quiet(TraceDiff.compare_traces, LabeledTrace(label="control", trace_dir=c),
                       LabeledTrace(label="test", trace_dir=t), by=by, stats=True,
                       samples=samples, control_iteration="all", test_iteration="all")
            problem = frame_equals_csv(df, want)
            assert problem is None, f"by={by} samples={samples}: {problem}"


def t_stats_columns_equal_cli():
    # compare_traces(stats=True) against compare --stats --format csv: the
    # same columns, order and values, in every sample mode, with and without
    # --hta-strict.
    n = 0
    for label, c, t, kw in STATS_PAIRS:
        ctl, tst = labeled(_trace(c), "control"), labeled(_trace(t), "test")
        for samples in ("call", "iteration", None):
            for strict in (False, True):
                if strict and samples is None:
                    continue
                args = ["compare", "--stats", "--format", "csv", "-q", _trace(c), _trace(t),
                        *_cli_sel(kw)]
                if samples:
                    args += ["--samples", samples]
                if strict:
                    args.append("--hta-strict")
                want = cli(*args).stdout
                df = quiet(TraceDiff.compare_traces, ctl, tst, stats=True, samples=samples,
                           hta_strict=strict, **kw)
                problem = frame_equals_csv(df, want)
                assert problem is None, f"{label} samples={samples} strict={strict}: {problem}"
                assert df.attrs["stats"]["samples"] == df["samples"].iloc[0]
                n += 1
    # alpha and min_change as --alpha and --min-change
    ctl, tst = labeled(DIFF_C, "control"), labeled(DIFF_T, "test")
    want = cli("compare", "--stats", "--format", "csv", "-q", DIFF_C, DIFF_T, "--alpha", "0.2",
               "--min-change", "3%").stdout
    df = quiet(TraceDiff.compare_traces, ctl, tst, stats=True, alpha=0.2, min_change=3)
    assert frame_equals_csv(df, want) is None, frame_equals_csv(df, want)
    assert n == 20


def t_stats_labels_and_dtypes():
    df = quiet(TraceDiff.compare_traces, LabeledTrace("a", trace_dir=BASE),
               LabeledTrace("b", trace_dir=TEST), stats=True, samples="call")
    assert list(df.columns[7:13]) == ["samples", "a_n", "b_n", "a_mean", "b_mean", "a_stdev"]
    assert df["a_n"].dtype == np.int64 and df["p_value"].dtype == np.float64
    assert set(df["verdict"]) <= {"n/a", "noise", "slower", "faster", "added", "removed"}
    plain = quiet(TraceDiff.compare_traces, BASE, TEST)
    assert df.iloc[:, :7].set_axis(plain.columns, axis=1).equals(plain), \
        "stats=True changed the HTA columns"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        TraceDiff.compare_traces(BASE, TEST, stats=True, samples="iteration")
    assert any("need 2 a side" in str(w.message) for w in caught), \
        "too few iteration samples not announced"


def _check_json_rows_equal(res, js):
    rows = js["rows"]
    df = res.regressions
    assert list(df.columns) == ["name", "control_n", "test_n", "control_mean", "test_mean",
                                "change_pct", "ci_low", "ci_high", "p_value", "q_value",
                                "control_total", "test_total", "verdict"], list(df.columns)
    assert len(df) == len(rows) == js["regressions"], (len(df), len(rows))
    for i, r in enumerate(rows):
        assert r["failed"] is True, (i, r)
        for k, v in r.items():
            if k == "failed":
                continue
            got = df[k].iloc[i]
            if v is None:
                assert not math.isfinite(got), (i, k, got)
            elif isinstance(v, str):
                assert got == v, (i, k, got, v)
            else:
                assert float(got) == float(v), (i, k, got, v)
    assert res.compared == js["compared"] and res.faster == js["faster"]
    assert res.samples == js["samples"] and res.alpha == js["alpha"]
    assert res.min_change == js["min_change"] and res.max_regression == js["max_regression"]
    assert res.min_us == js["min_us"]


CHECK_CASES = [
    (DIFF_C, DIFF_T, {}),
    (DIFF_C, DIFF_T, {"samples": "call", "min_us": 100, "max_regression": 10}),
    (RESNET0, RESNET4, {"control_iteration": "all", "test_iteration": "all",
                        "max_regression": 1, "alpha": 0.1}),
    (RESNET0, RESNET4, {"control_iteration": "steady", "test_iteration": "steady",
                        "device": "gpu", "short_names": True}),
    (DIFF_C, DIFF_T, {"no_python": True, "normalize_names": True, "min_change": 2}),
    (DIFF_C, DIFF_T, {"normalize_names": False}),
    (BASE, TEST, {"hta_strict": True, "samples": "call"}),
    (BASE, BASE, {}),
    (DIFF_C, DIFF_T, {"rename": [r"^(ampere|volta)_sgemm_\w+$=sgemm", r"aten::(\w+)_$=aten::$1"]}),
]


def _check_cli_args(kw):
    out = []
    for k, v in kw.items():
        if k == "normalize_names":  # on by default in both
            out.append("--normalize-names" if v else "--no-normalize-names")
            continue
        if k == "rename":
            for rule in v:
                out += ["--rename", rule]
            continue
        opt = {"no_python": "--no-python", "short_names": "--short-names",
               "hta_strict": "--hta-strict"}.get(k)
        if opt:
            out.append(opt)
        else:
            out += ["--" + k.replace("_", "-"), str(v)]
    return out


def t_check_equals_cli():
    # check() against tracediff check: passed and the exit code, the
    # regressions against --format json, junit() against --junit byte for
    # byte, markdown() and text() against the reports.
    with tempfile.TemporaryDirectory() as tmp:
        for c, t, kw in CHECK_CASES:
            what = f"{os.path.basename(c)} {kw}"
            args = ["check", c, t, "-q", *_check_cli_args(kw)]
            cx, px = os.path.join(tmp, "cli.xml"), os.path.join(tmp, "py.xml")
            r = cli(*args, "--format", "json", "--junit", cx, ok=(0, 3))
            res = quiet(tracediff.check, c, t, **kw)
            assert res.passed == (r.returncode == 0), what
            _check_json_rows_equal(res, json.loads(r.stdout))
            assert res.json().encode() == r.stdout, what
            res.junit(px)
            assert open(px, "rb").read() == open(cx, "rb").read(), f"{what}: JUnit differs"
            md = cli(*args, "--format", "markdown", ok=(0, 3)).stdout
            assert res.markdown().encode() == md, f"{what}: markdown differs"
            txt = cli(*args, ok=(0, 3)).stdout
            assert res.text().encode() == txt, f"{what}: text differs"
        assert [f for f in os.listdir(tmp) if f.startswith(".")] == [], "temporary files left"
    assert not quiet(tracediff.check, DIFF_C, DIFF_T).passed
    assert quiet(tracediff.check, DIFF_C, DIFF_C).passed


def t_check_new_and_waits():
    # The gate's new rules through Python, as the CLI applies them: a kernel
    # only in test fails (verdict new) unless allow_new; waits are counted
    # apart; max_step_regression gives the step result in the JSON.
    c = os.path.join(TRACES, "kineto-resnet50_workers0")
    t = os.path.join(TRACES, "kineto-resnet50_workers4")
    kw = dict(control_iteration="all", test_iteration="all", device="gpu", short_names=True,
              min_us=1000)
    res = quiet(tracediff.check, c, t, **kw)
    new = res.regressions[res.regressions.verdict == "new"]
    assert list(new.name) == ["volta_scudnn_128x32_sliced1x4_ldg4_relu_exp_small_nhwc_tn_v1"], \
        list(new.name)
    assert new.control_total.iloc[0] == 0 and new.test_total.iloc[0] >= 1000
    res2 = quiet(tracediff.check, c, t, allow_new=True, **kw)
    assert "new" not in set(res2.regressions.verdict), res2.regressions
    res3 = quiet(tracediff.check, c, c, control_iteration="all", test_iteration="all",
                 max_step_regression=1)
    assert res3.passed and res3.waits >= 1 and not res3.one_run, (res3.waits, res3.one_run)
    step = json.loads(res3.json())["step"]
    assert step["control_n"] == 6 and step["step_failed"] is False, step
    r = cli("check", c, c, "-q", "--control-iteration", "all", "--test-iteration", "all",
            "--max-step-regression", "1", "--format", "json")
    assert r.stdout == res3.json().encode()


def t_check_bad_arguments():
    lt_c, lt_t = labeled(BASE, "control"), labeled(TEST, "test")
    for kw in ({"samples": "x"}, {"device": "tpu"}, {"max_regression": -1},
               {"min_us": float("nan")}, {"alpha": 0}, {"alpha": 1.5}, {"min_change": -1},
               {"categories": "cpu_op", "no_python": True}, {"control_rank": "steady"},
               {"max_step_regression": -1}, {"max_step_regression": "5%"}):
        try:
            quiet(tracediff.check, lt_c, lt_t, **kw)
        except tracediff.UsageError as e:
            assert isinstance(e, ValueError) and str(e), kw
        else:
            raise AssertionError(f"check({kw}) did not raise")
    # A category neither side has: as the CLI, a usage error naming it and
    # the categories there are.
    try:
        quiet(tracediff.check, lt_c, lt_t, categories="no_such_category")
    except ValueError as e:
        assert "no_such_category" in str(e) and "kernel" in str(e), str(e)
    else:
        raise AssertionError("an unknown category did not raise")


def t_summaries_equal_cli():
    with tempfile.TemporaryDirectory() as tmp:
        py, cl = os.path.join(tmp, "py.tdsum"), os.path.join(tmp, "cli.tdsum")
        tracediff.summarize(DIFF_C, py, run="control")
        tracediff.summarize(LabeledTrace("t", trace_dir=DIFF_T), py, run="test")
        cli("summarize", DIFF_C, "-o", cl, "--run", "control", "-q")
        cli("summarize", DIFF_T, "-o", cl, "--run", "test", "-q")
        # A run added twice is an error unless replace=True.
        try:
            tracediff.summarize(DIFF_T, py, run="test")
        except tracediff.TraceError as e:
            assert "test" in str(e), str(e)
        else:
            raise AssertionError("a second run of the same name did not raise")
        tracediff.summarize(DIFF_T, py, run="test", replace=True)
        # Comparing the summaries through the CLI: the same output.
        for extra in ([], ["--device", "gpu", "--short-names"], ["--stats"]):
            a = cli("compare", "--format", "csv", "-q", py + "#control", py + "#test", *extra)
            b = cli("compare", "--format", "csv", "-q", cl + "#control", cl + "#test", *extra)
            assert a.stdout == b.stdout, f"summaries differ: {extra}"
        # runs() is tracediff runs --format csv.
        df = tracediff.runs(py)
        assert df["name"].tolist() == ["control", "test"]
        problem = frame_equals_csv(df, cli("runs", py, "--format", "csv").stdout, index=False)
        assert problem is None, problem
        # trend() is tracediff trend --format csv.
        for kw in ({}, {"device": "gpu", "top": 5}, {"names": "^aten::", "runs": ["test",
                   "control"]}, {"device": "cpu", "runs": "control,test", "top": 3},
                   {"normalize_names": False}, {"short_names": True, "top": 8},
                   {"rename": [r"^(ampere|volta)_sgemm_\w+$=sgemm", "aten::=at::"]}):
            args = ["trend", py, "--format", "csv"]
            for k, v in kw.items():
                if k == "normalize_names":
                    args += [] if v else ["--no-normalize-names"]
                elif k == "short_names":
                    args += ["--short-names"] if v else []
                elif k == "rename":
                    for rule in v:
                        args += ["--rename", rule]
                else:
                    args += ["--" + k, v if isinstance(v, str) else
                             ",".join(v) if isinstance(v, list) else str(v)]
            problem = frame_equals_csv(tracediff.trend(py, **kw), cli(*args).stdout,
                                       index=False)
            assert problem is None, f"trend {kw}: {problem}"
        # Summaries wherever sets are: a LabeledTrace or a plain path.
        want = cli("compare", "--format", "csv", "-q", "--stats", py + "#control",
                   py + "#test").stdout
        df = quiet(TraceDiff.compare_traces, LabeledTrace("control", trace_dir=py + "#control"),
                   LabeledTrace("test", trace_dir=py + "#test"), stats=True)
        assert frame_equals_csv(df, want) is None, frame_equals_csv(df, want)
        one = os.path.join(tmp, "one.tdsum")
        tracediff.summarize(BASE, one, ranks="all", iterations=[1010], device="cpu",
                            created="2024-01-02T03:04:05Z")
        r = tracediff.runs(one)
        assert r["created"].tolist() == ["2024-01-02T03:04:05Z"] and r["name"][0] == "base"
        want = cli("compare", "--format", "csv", "-q", "--control-label", "Control",
                   "--test-label", "Test", one, BASE, "--device", "cpu",
                   "--control-iteration", "1010", "--test-iteration", "1010").stdout
        df = quiet(TraceDiff.compare_traces, one, BASE, control_iteration=1010,
                   test_iteration=1010, device_type=DeviceType.CPU)
        assert frame_equals_csv(df, want) is None, frame_equals_csv(df, want)
        res = quiet(tracediff.check, py + "#control", DIFF_T)
        r = cli("check", py + "#control", DIFF_T, "-q", "--format", "json", ok=(0, 3))
        assert res.json().encode() == r.stdout


# compare_traces' keyword-only options against tracediff compare's.
COMPARE_OPTION_CASES = [
    # The view: --include, --exclude, --sort, --ascending, --top, the labels.
    (DIFF_C, DIFF_T, {"include": "aten::", "sort": "abs_diff_duration", "top": 10}),
    (DIFF_C, DIFF_T, {"exclude": "^cuda", "sort": "control_counts", "ascending": True}),
    (DIFF_C, DIFF_T, {"control_label": "base", "test_label": "new",
                      "sort": "new_total_duration", "top": 3}),
    (RESNET0, RESNET4, {"sort": "diff_counts", "top": 5, "use_short_name": True}),
    (RESNET0, RESNET4, {"control_iteration": "all", "test_iteration": "all", "stats": True,
                        "sort": "q", "top": 8, "exclude": "ProfilerStep"}),
    (DIFF_C, DIFF_T, {"per_iteration": True}),
    (DIFF_C, DIFF_T, {"no_python": True, "normalize_names": True}),
    (DIFF_C, DIFF_T, {"categories": "cpu_op,kernel", "use_short_name": True}),
    (DIFF_C, DIFF_T, {"by": "op"}),
    (DIFF_C, DIFF_T, {"by": "class", "categories": ["kernel"]}),
    (RESNET0, RESNET4, {"control_iteration": "all", "test_iteration": 5, "per_iteration": True}),
    (RESNET0, RESNET4, {"control_iteration": "all", "test_iteration": "all", "by": "top-op",
                        "per_iteration": True, "normalize_names": True}),
    (RESNET0, RESNET4, {"by": "annotation", "device_type": "gpu"}),
    (RESNET0, RESNET4, {"by": "op", "stats": True, "samples": "call"}),
    (TWO_RANKS, TWO_RANKS, {"control_rank": "all", "test_rank": 1, "per_iteration": True,
                            "control_iteration": "all", "test_iteration": "all",
                            "use_short_name": True}),
    (BASE, TEST, {"no_python": True, "per_iteration": True, "hta_strict": True}),
]


def _compare_cli_args(kw):
    flags = {"per_iteration": "--per-iteration", "no_python": "--no-python",
             "normalize_names": "--normalize-names", "use_short_name": "--short-names",
             "hta_strict": "--hta-strict", "stats": "--stats", "ascending": "--ascending"}
    names = {"categories": "--cat", "device_type": "--device"}
    out = []
    for k, v in kw.items():
        if k in flags:
            out.append(flags[k])
        else:
            out += [names.get(k, "--" + k.replace("_", "-")),
                    ",".join(v) if isinstance(v, list) else str(v)]
    return out


def t_compare_options_equal_cli():
    # per_iteration, by, categories, no_python and normalize_names as
    # compare --per-iteration, --by, --cat, --no-python, --normalize-names
    # --format csv: the same columns, index name, order and values.
    for c, t, kw in COMPARE_OPTION_CASES:
        what = f"{os.path.basename(c)} {kw}"
        want = cli("compare", "--format", "csv", "-q", c, t, *_compare_cli_args(kw)).stdout
        df = quiet(TraceDiff.compare_traces, labeled(c, "control"), labeled(t, "test"), **kw)
        problem = frame_equals_csv(df, want)
        assert problem is None, f"{what}: {problem}"
        if kw.get("per_iteration"):
            assert df["control_counts"].dtype == np.float64, what
        if kw.get("by"):
            assert df.index.name == kw["by"].replace("-", "_"), (what, df.index.name)
    # Plain paths (opened here, with attribution when by asks for it).
    want = cli("compare", "--format", "csv", "-q", "--control-label", "Control", "--test-label",
               "Test", DIFF_C, DIFF_T, "--by", "top-op", "--per-iteration").stdout
    df = quiet(TraceDiff.compare_traces, DIFF_C, DIFF_T, by="top_op", per_iteration=True)
    assert frame_equals_csv(df, want) is None, frame_equals_csv(df, want)
    # The defaults are HTA's: the options left out change nothing.
    plain = quiet(TraceDiff.compare_traces, BASE, TEST)
    same = quiet(TraceDiff.compare_traces, BASE, TEST, per_iteration=False, by=None,
                 categories=None, no_python=False, normalize_names=False)
    assert plain.equals(same) and plain.index.name == "name"
    assert quiet(TraceDiff.compare_traces, BASE, TEST, by="kernel").equals(plain)


def t_compare_options_bad_arguments():
    for kw in ({"by": "stream"}, {"by": 1}, {"categories": "cpu_op", "no_python": True},
               {"categories": ","}, {"categories": "no_such_category"},
               {"by": "op", "device_type": DeviceType.CPU}):
        try:
            quiet(TraceDiff.compare_traces, labeled(BASE, "control"), labeled(TEST, "test"), **kw)
        except tracediff.UsageError as e:
            assert isinstance(e, ValueError) and str(e), kw
        else:
            raise AssertionError(f"compare_traces({kw}) did not raise")


def t_trend_chart_equals_cli():
    with tempfile.TemporaryDirectory() as tmp:
        s = os.path.join(tmp, "s.tdsum")
        for path, run in ((DIFF_C, "control"), (DIFF_T, "test"), (BASE, "base")):
            cli("summarize", path, "-o", s, "--run", run, "-q")
        for kw in ({}, {"top": 3, "device": "gpu"}, {"names": "^aten::", "runs": "base,test"}):
            py, cl = os.path.join(tmp, "py.svg"), os.path.join(tmp, "cli.svg")
            args = ["trend", s]
            for k, v in kw.items():
                args += ["--" + k, str(v)]
            cli(*args, "-o", cl)
            df = tracediff.trend(s, export_image_path=py, **kw)
            assert open(py, "rb").read() == open(cl, "rb").read(), f"trend {kw}: SVG differs"
            # The rows are still those of --format csv, whatever the chart shows.
            problem = frame_equals_csv(df, cli(*args, "--format", "csv").stdout,
                                       index=False)
            assert problem is None, f"trend {kw}: {problem}"
        for ext, magic in ((".png", b"\x89PNG"), (".pdf", b"%PDF")):
            out = os.path.join(tmp, "chart" + ext)
            tracediff.trend(s, export_image_path=out, top=2)
            assert open(out, "rb").read(4) == magic, ext
        try:
            tracediff.trend(s, export_image_path=os.path.join(tmp, "no", "dir.svg"))
        except tracediff.TraceError as e:
            assert e.message, e
        else:
            raise AssertionError("an unwritable chart did not raise")
        assert sorted(os.listdir(tmp)) == ["chart.pdf", "chart.png", "cli.svg", "py.svg",
                                           "s.tdsum"], os.listdir(tmp)


def t_summarize_returns_run_name():
    one = os.path.join(TRACES, "hta-cpu_only", "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")
    with tempfile.TemporaryDirectory() as tmp:
        s = os.path.join(tmp, "s.tdsum")
        got = [tracediff.summarize(DIFF_C, s),
               tracediff.summarize(DIFF_T + "/", s),
               tracediff.summarize(one, s),
               tracediff.summarize(LabeledTrace("x", trace_dir=BASE), s, run="my run"),
               tracediff.summarize(BASE, s, run="my run", replace=True)]
        assert got == ["control", "test", "rank-34.Jul_15_10_52_41.1074.pt.trace", "my run",
                       "my run"], got
        assert tracediff.runs(s)["name"].tolist() == got[:4], tracediff.runs(s)["name"].tolist()
        c = os.path.join(tmp, "c.tdsum")
        cli("summarize", one, "-o", c, "-q")
        assert tracediff.runs(c)["name"].tolist() == [got[2]]


def t_summary_errors():
    with tempfile.TemporaryDirectory() as tmp:
        missing = os.path.join(tmp, "missing.tdsum")
        for fn in (tracediff.runs, tracediff.trend):
            try:
                fn(missing)
            except tracediff.TraceError as e:
                assert e.file == missing and not isinstance(e, ValueError), (e.file, e)
            else:
                raise AssertionError(f"{fn.__name__} of a missing file did not raise")
        p = os.path.join(tmp, "s.tdsum")
        tracediff.summarize(BASE, p)
        for kw in ({"device": "tpu"}, {"top": -1}, {"names": "("}):
            try:
                tracediff.trend(p, **kw)
            except tracediff.UsageError as e:
                assert isinstance(e, ValueError) and str(e), kw
            else:
                raise AssertionError(f"trend({kw}) did not raise")
        try:
            tracediff.summarize(BASE, p, run="x", ranks=[7])
        except tracediff.TraceError as e:
            assert "7" in e.message, e.message
        else:
            raise AssertionError("an unknown rank did not raise")
        assert tracediff.runs(p)["name"].tolist() == ["base"], "a failed summarize changed it"


BERT_H100 = os.path.join(TRACES, "tracelens-bert_h100")
BERT_MI300 = os.path.join(TRACES, "tracelens-bert_mi300")


def t_ns_rule():
    # ns=True per call, ns=False, and the default: HTA_DISABLE_NS_ROUNDING
    # read as HTA reads it (exactly "1"); each equals the CLI's csv.
    ns_csv = cli("compare", "--format", "csv", "-q", "--control-label", "Control",
                 "--test-label", "Test", "--ns", BERT_H100, BERT_MI300).stdout
    hta_csv = cli("compare", "--format", "csv", "-q", "--control-label", "Control",
                  "--test-label", "Test", BERT_H100, BERT_MI300).stdout
    assert ns_csv != hta_csv
    old = os.environ.pop("HTA_DISABLE_NS_ROUNDING", None)
    try:
        for env, ns, want in ((None, True, ns_csv), (None, False, hta_csv), (None, None, hta_csv),
                              ("1", None, ns_csv), ("0", None, hta_csv), ("true", None, hta_csv),
                              ("1", False, hta_csv)):
            if env is None:
                os.environ.pop("HTA_DISABLE_NS_ROUNDING", None)
            else:
                os.environ["HTA_DISABLE_NS_ROUNDING"] = env
            df = quiet(TraceDiff.compare_traces, BERT_H100, BERT_MI300, ns=ns)
            assert frame_equals_csv(df, want) is None, (env, ns, frame_equals_csv(df, want))
    finally:
        os.environ.pop("HTA_DISABLE_NS_ROUNDING", None)
        if old is not None:
            os.environ["HTA_DISABLE_NS_ROUNDING"] = old
    # A LabeledTrace read under one rule is read again under the call's.
    a, b = LabeledTrace("Control", trace_dir=BERT_H100), LabeledTrace("Test", trace_dir=BERT_MI300)
    assert not a._set.ns
    df = quiet(TraceDiff.compare_traces, a, b, ns=True)
    assert a._set.ns and frame_equals_csv(df, ns_csv) is None
    # The rounding note: a TraceDiffWarning without ns, in the CLI's words;
    # none with ns.
    err = cli("compare", "--format", "csv", BERT_H100, BERT_MI300).stderr.decode()
    note = [ln for ln in err.splitlines() if "HTA's rounding" in ln]
    assert len(note) == 1 and "--ns" in note[0], err
    for ns, n in ((False, 1), (True, 0)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            TraceDiff.compare_traces(BERT_H100, BERT_MI300, ns=ns)
        got = [str(w.message) for w in caught if issubclass(w.category, TraceDiffWarning)
               and "HTA's rounding" in str(w.message)]
        assert len(got) == n, (ns, got)
        if n:
            assert note[0].endswith(got[0]), (note, got)
    # Summaries hold one rule; the other is a TraceError naming the file.
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "s.tdsum")
        tracediff.summarize(BERT_H100, p, ns=False)
        try:
            TraceDiff.compare_traces(p, p, ns=True)
        except tracediff.TraceError as e:
            assert p in e.file and "--ns" in e.message, (e.file, e.message)
        else:
            raise AssertionError("a rounded summary compared with ns=True did not raise")
        q = os.path.join(tmp, "n.tdsum")
        tracediff.summarize(BERT_H100, q, ns=True)
        df = quiet(TraceDiff.compare_traces, q, BERT_MI300, ns=True)
        assert frame_equals_csv(df, ns_csv) is None, frame_equals_csv(df, ns_csv)


def _cli_notes(err: bytes):
    return [ln[len("tracediff: note: "):] for ln in err.decode().splitlines()
            if ln.startswith("tracediff: note: ")]


def t_notes_equal_cli():
    # A side's notes are worded once, in the library (td_diff_side_note): the
    # module's warnings are the CLI's "note:" lines, on pairs that owe them.
    import gzip
    edge = os.path.join(ROOT, "tests", "data", "attribution", "edge.json")
    bad = os.path.join(ROOT, "tests", "bad")
    with tempfile.TemporaryDirectory() as tmp:
        bom = os.path.join(tmp, "bom")
        os.makedirs(bom)
        with gzip.open(os.path.join(ROOT, "examples", "control", "control.json.gz"), "rb") as src, \
                open(os.path.join(bom, "control.json"), "wb") as dst:
            dst.write(b"\xef\xbb\xbf" + src.read())
        pairs = [
            (edge, edge, dict(by="op"), ["--by", "op"], ["not attributed to an op"]),
            (bom, os.path.join(ROOT, "examples", "test"), {}, [],
             ["starts with a UTF-8 byte order mark", "with no launch found"]),
            (os.path.join(TRACES, "hta-no_steps"), os.path.join(TRACES, "hta-trace_compare", "test"),
             dict(device_type="gpu"), ["--device", "gpu"], ["has no ProfilerStep"]),
            (os.path.join(bad, "not_objects.json"), os.path.join(bad, "bom.json"), {}, [],
             ["entries of traceEvents skipped", "byte order mark"]),
        ]
        for c, t, kw, args, want in pairs:
            err = cli("compare", "--format", "csv", "--control-label", "ctl", "--test-label",
                      "tst", *args, c, t).stderr
            notes = _cli_notes(err)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                TraceDiff.compare_traces(LabeledTrace("ctl", trace_dir=c),
                                         LabeledTrace("tst", trace_dir=t), **kw)
            got = [str(w.message) for w in caught if issubclass(w.category, TraceDiffWarning)]
            # The sides' own notes begin with a label or a file's path.
            sides = [n for n in notes if n.startswith(("ctl: ", "ctl (", "tst: ", "tst (", c, t))]
            assert sides and got == [n for n in notes if n in got], (c, notes, got)
            assert set(sides) <= set(got), (c, sides, got)
            for w in want:
                assert any(w in g for g in got), (c, w, got)


def t_errors_carry_c_message():
    bad = os.path.join(ROOT, "tests", "bad", "trunc_in_string.json")
    for fn in (lambda: tracediff.check(bad, TEST),
               lambda: TraceDiff.compare_traces(bad, TEST, stats=True),
               lambda: tracediff.summarize(bad, os.path.join(tempfile.gettempdir(), "x.tdsum"))):
        try:
            fn()
        except tracediff.TraceError as e:
            assert e.file == bad and e.offset == 240 and not isinstance(e, ValueError)
            assert e.message == "unterminated string in traceEvents", e.message
        else:
            raise AssertionError("a corrupt trace did not raise")
    for kw in ({"samples": "x"}, {"device_type": "tpu"}, {"alpha": 2}):
        try:
            quiet(TraceDiff.compare_traces, BASE, TEST, stats=True, **kw)
        except tracediff.UsageError as e:
            assert isinstance(e, ValueError) and isinstance(e, tracediff.TraceError)
        else:
            raise AssertionError(f"{kw} did not raise")


def t_loads_in_threads():
    # Two loads at once (the GIL is released while loading) give what one
    # load alone gives.
    want = quiet(TraceDiff.compare_traces, DIFF_C, DIFF_T, stats=True)
    out = [None, None]

    def run(i):
        out[i] = TraceDiff.compare_traces(DIFF_C, DIFF_T, stats=True)
    ths = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    with warnings.catch_warnings():  # process-wide: set once, here
        warnings.simplefilter("ignore")
        for th in ths:
            th.start()
        for th in ths:
            th.join()
    for df in out:
        assert df is not None and df.equals(want)


def t_gil_released_while_summarizing():
    stamps = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            stamps.append(time.perf_counter())
            time.sleep(0.0002)
    with tempfile.TemporaryDirectory() as tmp:
        th = threading.Thread(target=tick)
        th.start()
        time.sleep(0.01)
        t0 = time.perf_counter()
        tracediff.summarize(DIFF_C, os.path.join(tmp, "s.tdsum"), threads=1)
        t1 = time.perf_counter()
        stop.set()
        th.join()
    inside = sum(1 for x in stamps if t0 < x < t1)
    assert inside >= 10, f"{inside} ticks during a {t1 - t0:.3f} s summarize"



# --- HTA's own results (tests/data/hta/hta_api.json.gz, made by running HTA
# with gen_hta_api.py next to it) -------------------------------------------

_hta = None


def hta_data():
    global _hta
    if _hta is None:
        import gzip
        with gzip.open(os.path.join(ROOT, "tests", "data", "hta", "hta_api.json.gz"), "rt") as f:
            _hta = json.load(f)
    return _hta


def _params_compatible(ours, theirs, where):
    """Every call HTA accepts, ours accepts the same way: HTA's parameters in
    HTA's order, kinds and defaults, and anything more keyword-only with a
    default."""
    import inspect
    ps = list(inspect.signature(ours).parameters.values())
    assert len(ps) >= len(theirs), (where, [p.name for p in ps], theirs)
    for p, (name, kind, default) in zip(ps, theirs):
        assert p.name == name and p.kind.name == kind, (where, p.name, p.kind.name, name, kind)
        got = None if p.default is inspect.Parameter.empty else repr(p.default)
        if default is not None and default.startswith("<DeviceType."):
            got = got and got.replace("tracediff.trace_diff.", "")
        assert got == default, (where, name, got, default)
    for p in ps[len(theirs):]:
        assert p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) and (
            p.kind is p.VAR_KEYWORD or p.default is not inspect.Parameter.empty), (where, p.name)


def t_hta_public_names_and_signatures():
    import inspect
    from tracediff import trace_diff as ours
    api = hta_data()["hta_api"]
    assert {"DeviceType", "LabeledTrace", "TraceDiff", "TraceDir"} <= set(api), sorted(api)
    for name, entry in api.items():
        assert hasattr(ours, name), name
        obj = getattr(ours, name)
        if entry["kind"] == "alias":
            assert obj is __builtins__.__dict__[entry["of"]] if hasattr(__builtins__, "__dict__") \
                else obj is str, name
        elif "enum" in entry:
            assert {m.name: m.value for m in obj} == entry["enum"], name
        elif entry["kind"] == "class":
            for m, params in entry["members"].items():
                assert hasattr(obj, m), f"{name}.{m}"
                raw = inspect.getattr_static(obj, m)
                fn = raw.__func__ if isinstance(raw, (classmethod, staticmethod)) else raw
                _params_compatible(fn, params, f"{name}.{m}")
        else:
            _params_compatible(obj, entry["signature"], name)
    lt = LabeledTrace(label="x", trace_dir=os.path.join(TRACES, "hta-trace_compare", "base"))
    for attr in hta_data()["labeled_trace_attributes"]:
        assert hasattr(lt, attr), attr


def _hta_pairs():
    for pr in hta_data()["pairs"]:
        ctl = LabeledTrace(label="Control", trace_dir=os.path.join(TRACES, pr["control"]))
        tst = LabeledTrace(label="Test", trace_dir=os.path.join(TRACES, pr["test"]))
        yield pr, ctl, tst


def t_hta_labeled_trace_extract_ops_and_summary():
    for pr, ctl, tst in _hta_pairs():
        assert [ctl.ranks(), tst.ranks()] == pr["ranks"], pr["control"]
        assert [ctl.iterations(), tst.iterations()] == pr["iterations"], pr["control"]
        for dev, d in DEVICES.items():
            ops = [ctl.extract_ops(pr["control_rank"], pr["control_iteration"], d),
                   tst.extract_ops(pr["test_rank"], pr["test_iteration"], d)]
            assert [len(o) for o in ops] == pr["extract_ops"][dev], (pr["control"], dev)
            for lt, o, want in zip((ctl, tst), ops, pr["get_ops_summary"][dev]):
                df = lt.get_ops_summary(o)
                assert list(df.columns) == ["cat", "name", "short_name", "counts",
                                            "total_duration", "cat_id", "name_id"]
                assert df["counts"].dtype == np.int64 and df["cat_id"].dtype == np.int64
                got = df.sort_values(["cat", "name"])
                got = [[r.cat, r.name, r.short_name, int(r.counts), float(r.total_duration)]
                       for r in got.itertuples()]
                assert got == want, (pr["control"], dev, lt.label,
                                     [g for g in got if g not in want][:3],
                                     [w for w in want if w not in got][:3])
                # HTA's symbol table names the ids
                assert (lt.s_tab[df["name_id"]].tolist() == df["name"].tolist())


def t_hta_extract_ops_frame():
    """extract_ops returns HTA's trace frame rows: the columns, their order
    and dtypes, the index and every value of what HTA's own extract_ops
    returned on the reference traces (tests/data/hta/hta_rows.json.gz, made
    by gen_hta_rows.py running HTA), cat and name through s_tab; under
    both timestamp rules (HTA_DISABLE_NS_ROUNDING as ns=True)."""
    with gzip.open(os.path.join(ROOT, "tests", "data", "hta", "hta_rows.json.gz"), "rt") as f:
        cases = json.load(f)["cases"]
    assert len(cases) >= 8 and any(c["disable_ns_rounding"] for c in cases)
    sets = {}
    for c in cases:
        what = (c["set"], c["rank"], c["iteration"], c["device"], c["disable_ns_rounding"])
        key = (c["set"], c["disable_ns_rounding"])
        if key not in sets:
            sets[key] = LabeledTrace(label="x", trace_dir=os.path.join(TRACES, c["set"]),
                                     ns=c["disable_ns_rounding"])
        lt = sets[key]
        df = lt.extract_ops(c["rank"], c["iteration"], getattr(DeviceType, c["device"]))
        assert list(df.columns) == c["columns"], (what, list(df.columns), c["columns"])
        assert [str(t) for t in df.dtypes] == c["dtypes"], \
            (what, [(k, str(t), w) for k, t, w in zip(df.columns, df.dtypes, c["dtypes"])
                    if str(t) != w])
        assert str(df.index.dtype) == c["index_dtype"], (what, df.index.dtype)
        assert df.index.tolist() == c["index"], (what, "index")
        assert len(df) > 0, what
        tab = lt.s_tab
        for col in df.columns:
            want = c["values"][col]
            if col in ("cat", "name"):
                got = tab[df[col].to_numpy()].tolist()
            else:
                got = [None if isinstance(v, float) and math.isnan(v) else
                       (v.item() if hasattr(v, "item") else v) for v in df[col]]
            bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w or
                   type(g) is not type(w)]
            assert not bad, (what, col, len(bad), bad[:3])
    # A bad selection raises as HTA does.
    lt = sets[("hta-two_ranks", False)]
    for kw, msg in (({"rank": 7}, "rank=7"), ({"iteration": 1}, "iteration=1"),
                    ({"rank": "0"}, "`rank`")):
        try:
            lt.extract_ops(**kw)
        except ValueError as e:
            assert msg in str(e), (kw, str(e))
        else:
            raise AssertionError(f"extract_ops({kw}) did not raise")
    # The file is read again: a file broken since names itself and the byte.
    src = os.path.join(TRACES, "hta-trace_compare", "base", "base.json.gz")
    with gzip.open(src, "rb") as f:
        text = f.read()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rank-1.json")
        with open(path, "wb") as f:
            f.write(text)
        lt = LabeledTrace(label="x", trace_dir=path)
        whole = lt.extract_ops(iteration=lt.iterations())
        bad = text.index(b'"dur"', len(text) // 2)
        with open(path, "wb") as f:
            f.write(text[:bad] + b"!" + text[bad + 1:])
        try:
            lt.extract_ops()
        except tracediff.TraceError as e:
            assert e.file == path and e.offset == bad, (e.file, e.offset, bad, str(e))
        else:
            raise AssertionError("a broken file did not raise")
    assert len(whole) > 0


def t_hta_compare_traces_and_ops_diff():
    for pr, ctl, tst in _hta_pairs():
        sel_ = (pr["control_rank"], pr["test_rank"], pr["control_iteration"],
                pr["test_iteration"])
        for key, want in pr["compare_traces"].items():
            dev, short = key.split("_")[0], key.endswith("_short")
            df = quiet(TraceDiff.compare_traces, ctl, tst, *sel_, DEVICES[dev], short)
            where = (pr["control"], key)
            assert list(df.columns) == want["columns"], where
            assert df.index.name == want["index_name"], where
            # Rows by name (docs/numbers.md); HTA's order is pandas' outer
            # join's, which sorts or not depending on the pandas version.
            order = sorted(range(len(want["index"])), key=lambda i: want["index"][i])
            assert df.index.tolist() == [want["index"][i] for i in order], where
            for j, col in enumerate(want["columns"]):
                exp = [want["rows"][i][j] for i in order]
                got = df[col].tolist()
                if col == "counts_change_categories":
                    assert got == exp, where
                else:
                    assert np.allclose(np.array(got, float), np.array(exp, float)), (where, col)
        for dev, want in pr["ops_diff"].items():
            got = quiet(TraceDiff.ops_diff, ctl, tst, *sel_, DEVICES[dev])
            assert got == want, (pr["control"], dev)


def t_view_and_visualize_errors():
    # A bad view argument, and an empty frame to draw: ValueErrors
    # (UsageError) naming the problem; nothing written.
    for kw, words in (({"sort": "nope"}, "sort='nope'"), ({"top": 0}, "top=0"),
                      ({"sort": "q"}, "needs stats"), ({"include": "("}, "("),
                      ({"control_label": "x", "test_label": "x"}, "both 'x'")):
        try:
            quiet(TraceDiff.compare_traces, BASE, TEST, **kw)
        except tracediff.UsageError as e:
            assert isinstance(e, ValueError) and words in str(e), (kw, str(e))
        else:
            raise AssertionError(f"{kw} did not raise")
    empty = quiet(TraceDiff.compare_traces, BASE, TEST, include="no such name here")
    assert len(empty) == 0
    with tempfile.TemporaryDirectory() as tmp:
        for fn in (TraceDiff.visualize_counts_diff, TraceDiff.visualize_duration_diff):
            out = os.path.join(tmp, "c.svg")
            try:
                fn(empty, show_image=False, export_image_path=out)
            except ValueError as e:
                assert "no rows" in str(e) and fn.__name__ in str(e), str(e)
            else:
                raise AssertionError(f"{fn.__name__} on an empty frame did not raise")
            assert not os.path.exists(out)


# --- breakdown() and report(): the CLI's JSON and HTML ----------------------

BREAKDOWN_CASES = [
    (DIFF_C, DIFF_T, {}),
    (RESNET0, RESNET4, {"control_iteration": "all", "test_iteration": "all"}),
    (TWO_RANKS, TWO_RANKS, {"control_rank": 0, "test_rank": 1, "hta_scope": True,
                            "control_label": "r0", "test_label": "r1"}),
]


def _bd_cli_args(kw):
    out = []
    for k, v in kw.items():
        out += ["--hta-scope"] if k == "hta_scope" else ["--" + k.replace("_", "-"), str(v)]
    return out


def _nan_eq(a, b):
    if a is None:
        return b is None or (isinstance(b, float) and math.isnan(b)) or b is pd.NA
    return a == b


def t_breakdown_equals_cli_json():
    for c, t, kw in BREAKDOWN_CASES:
        js = json.loads(cli("breakdown", "--format", "json", "-q", c, t,
                            *_bd_cli_args(kw)).stdout)
        bd = tracediff.breakdown(c, t, **kw)
        what = (os.path.basename(c), kw)
        assert bd.json == js, what
        # ranks: one row per side and rank, the JSON's fields as columns
        want = [dict(side=s, label=js[s]["label"], **r) for s in ("control", "test")
                for r in js[s]["ranks"]]
        assert len(bd.ranks) == len(want), what
        for row, w in zip(bd.ranks.to_dict("records"), want):
            assert set(row) == set(w), (what, set(row) ^ set(w))
            for k, v in w.items():
                assert _nan_eq(v, row[k]), (what, k, v, row[k])
        # diff: one row per metric, in the JSON's order
        assert bd.diff.index.tolist() == list(js["diff"]), what
        for m, fields in js["diff"].items():
            for k, v in fields.items():
                assert _nan_eq(v, bd.diff.loc[m, k]), (what, m, k, v, bd.diff.loc[m, k])
        assert bd.waterfall.to_dict("records") == js["waterfall"], what
        assert bd.samples == {s: js[s]["samples"] for s in ("control", "test")}
        html = bd._repr_html_()
        assert "waterfall" in html and "step_us" in html, what


def t_breakdown_errors():
    # A summary keeps what a breakdown needs: the numbers of its traces. One
    # written before summaries kept it: a TraceError naming it and the fix.
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "s.tdsum")
        tracediff.summarize(DIFF_C, p)
        assert tracediff.breakdown(p, DIFF_T).json == tracediff.breakdown(DIFF_C, DIFF_T).json
        old = os.path.join(tmp, "old.tdsum")
        with gzip.open(os.path.join(ROOT, "tests", "data", "summary_schema1.tdsum.gz")) as f:
            open(old, "wb").write(f.read())
        try:
            tracediff.breakdown(old + "#h100", DIFF_T)
        except tracediff.TraceError as e:
            assert "old.tdsum#h100" in str(e) and "re-summarize" in str(e), str(e)
        else:
            raise AssertionError("breakdown of an older summary did not raise")
    try:
        tracediff.breakdown(DIFF_C, DIFF_T, control_rank=99)
    except tracediff.UsageError as e:
        assert "99" in str(e), str(e)
    else:
        raise AssertionError("control_rank=99 did not raise")


REPORT_CASES = [
    (DIFF_C, DIFF_T, {}),
    (RESNET0, RESNET4, {"control_iteration": "all", "test_iteration": "all", "stats": True,
                        "sort": "diff_counts", "top": 5, "control_label": "w0",
                        "test_label": "w4"}),
]


def t_report_equals_cli():
    flags = {"stats": "--stats"}
    with tempfile.TemporaryDirectory() as tmp:
        for c, t, kw in REPORT_CASES:
            args = []
            for k, v in kw.items():
                args += [flags[k]] if k in flags else ["--" + k.replace("_", "-"), str(v)]
            a, b = os.path.join(tmp, "cli.html"), os.path.join(tmp, "py.html")
            cli("report", "-q", c, t, "-o", a, *args)
            quiet(tracediff.report, c, t, b, **kw)
            with open(a, "rb") as fa, open(b, "rb") as fb:
                assert fa.read() == fb.read(), (os.path.basename(c), kw)
        # Whole or not at all: a failed report leaves nothing behind.
        bad = os.path.join(tmp, "no-such-dir", "r.html")
        try:
            quiet(tracediff.report, DIFF_C, DIFF_T, bad)
        except OSError:
            pass
        else:
            raise AssertionError("a report into a missing folder did not raise")
        assert sorted(os.listdir(tmp)) == ["cli.html", "py.html"], os.listdir(tmp)


def t_csv_safe_equals_cli():
    # tracediff.csv_safe(frame) holds what compare --csv-safe writes: names
    # and a label that start like a formula get a leading ', numbers and
    # the categories do not.
    names = ["=HYPERLINK(\"http://x\",\"y\")", "+1+2", "-cmd", "@SUM(A1)", "\tTAB", "\rCR",
             "plain", "a=b"]
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for side in ("c", "t"):
            ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0,
                   "dur": 10000, "pid": 1, "tid": 1}]
            for i, n in enumerate(names):
                # counts up, down and the same: every category word
                k = (1 + i % 2) if side == "t" else (3 if i % 3 == 2 else 1)
                for j in range(k):
                    ev.append({"ph": "X", "cat": "cpu_op", "name": n, "ts": 10 + 100 * i + j,
                               "dur": 5 + i + j, "pid": 1, "tid": 1})
            paths.append(os.path.join(tmp, side + ".json"))
            with open(paths[-1], "w") as f:
                json.dump({"traceEvents": ev}, f)
        df = quiet(TraceDiff.compare_traces, paths[0], paths[1], control_label="-ctl")
        safe = tracediff.csv_safe(df)
        want = cli("compare", "--format", "csv", "-q", "--csv-safe", "--control-label", "-ctl",
                   "--test-label", "Test", paths[0], paths[1]).stdout
        assert frame_equals_csv(safe, want) is None, frame_equals_csv(safe, want)
        assert "'+1+2" in safe.index and "+1+2" in df.index and "plain" in safe.index
        assert "'-ctl_counts" in safe.columns, list(safe.columns)
        cats = list(df["counts_change_categories"])
        assert {"+", "-", "="} <= set(cats) and list(safe["counts_change_categories"]) == cats
        assert df.equals(quiet(TraceDiff.compare_traces, paths[0], paths[1],
                               control_label="-ctl"))  # the frame itself is left alone
    try:
        tracediff.csv_safe("not a frame")
    except tracediff.UsageError:
        pass
    else:
        raise AssertionError("csv_safe took a string")


def t_check_result_html():
    res = quiet(tracediff.check, RESNET0, RESNET4, control_iteration="all",
                test_iteration="all")
    import html as h
    text = res._repr_html_()
    assert ("passed" if res.passed else "FAILED") in text
    assert f"{len(res.regressions)} regression" in text
    assert not res.regressions.empty  # this pair has regressions: the table shows them
    assert "<table" in text and h.escape(res.regressions["name"].iloc[0]) in text


def t_info_equals_cli_json():
    for path, kw in ((os.path.join(TRACES, "hta-trace_compare", "base"), {}),
                     (RESNET4, {}), (BERT_H100, {"ns": True}), (TWO_RANKS, {})):
        js = json.loads(cli("info", "--format", "json", path,
                            *(["--ns"] if kw.get("ns") else [])).stdout)
        for arg in (path, LabeledTrace("x", trace_dir=path)):
            d = tracediff.info(arg, **kw)
            what = (os.path.basename(path), type(arg).__name__)
            assert set(d) == set(js), (what, set(d) ^ set(js))
            for k in ("path", "durations", "iterations", "attribution"):
                assert d[k] == js[k], (what, k)
            assert d["files"].to_dict("records") == [
                {c: f.get(c) for c in d["files"].columns} for f in js["files"]], what
            assert all(set(f) <= set(d["files"].columns) for f in js["files"]), what
            assert d["categories"].index.tolist() == list(js["categories"]), what
            assert d["categories"]["categories"].tolist() == list(js["categories"].values())
            assert d["categories"]["category_us"].tolist() == [
                js["category_us"][c] for c in js["categories"]], what


EXPLAIN_CASES = [
    (DIFF_C, DIFF_T, "aten::mm", {}),
    (DIFF_C, DIFF_T, "aten::mm", {"sort": "name", "top": 3, "control_label": "a",
                                  "test_label": "b"}),
    (RESNET0, RESNET4, "aten::cudnn_convolution", {"control_iteration": "all", "test_iteration": "all",
                                        "use_short_name": True}),
    (DIFF_C, DIFF_T, "autograd::engine::evaluate_function: AddmmBackward0", {"by": "top-op"}),
    (DIFF_C, DIFF_T, "## forward:over_arch ##", {"by": "annotation", "exclude": "cutlass"}),
]


def t_explain_equals_cli_json():
    for c, t, name, kw in EXPLAIN_CASES:
        args = []
        for k, v in kw.items():
            args += (["--short-names"] if k == "use_short_name"
                     else ["--" + k.replace("_", "-"), str(v)])
        js = json.loads(cli("explain", "--format", "json", "-q", c, t, name, *args).stdout)
        d = tracediff.explain(c, t, name, **kw)
        what = (os.path.basename(c), name, kw)
        assert set(d) == set(js), (what, set(d) ^ set(js))
        for k in js:
            if k != "kernels":
                assert d[k] == js[k], (what, k)
        assert js["kernels"], what
        assert d["kernels"].to_dict("records") == js["kernels"], what
        assert list(d["kernels"].columns) == list(js["kernels"][0]), what
    cli("explain", "-q", DIFF_C, DIFF_T, "aten::no_such_op", ok=(1,))
    try:
        tracediff.explain(DIFF_C, DIFF_T, "aten::no_such_op")
    except tracediff.TraceError as e:
        assert "aten::no_such_op" in str(e), str(e)
    else:
        raise AssertionError("an unknown op did not raise")


def t_explain_unknown_name_lists_the_cli_closest():
    """A name in neither selection: the error lists the same nearest names,
    with their sides, as tracediff explain (the library's td_diff_closest)."""
    near = re.compile(r"; closest: (.*) \(names as ")
    for name, kw, args in (("aten::mmm", {}, []),
                           ("aten::addm", {"control_label": "a", "test_label": "b"},
                            ["--control-label", "a", "--test-label", "b"]),
                           ("## forward:over_arc ##", {"by": "annotation"},
                            ["--by", "annotation"]),
                           ("cudnn_convolution", {"use_short_name": True}, ["--short-names"])):
        p = cli("explain", "-q", DIFF_C, DIFF_T, name, *args, ok=(1,))
        err = p.stderr.decode("utf-8", "replace")
        want = near.search(err)
        assert want and want.group(1).count(" (") == 5, err
        try:
            tracediff.explain(DIFF_C, DIFF_T, name, **kw)
        except tracediff.TraceError as e:
            got = near.search(str(e))
            assert got and got.group(1) == want.group(1), (name, str(e), err)
        else:
            raise AssertionError("%r did not raise" % name)


NSYS_TWO = os.path.join(TRACES, "profilers", "nsys-fuser-2025", "report1.sqlite")
ROCPROF3 = os.path.join(TRACES, "profilers", "rocprofv3-json", "908_results.json.gz")


def t_pids_equal_cli():
    """pids= is --pid: the events of these processes of an Nsight Systems
    export (nsys-fuser-2025 holds two), the same rows as the command's for
    compare_traces, ops_diff, info and check, on paths and on LabeledTraces;
    and the command's refusals, in its words, for a Kineto trace, a
    rocprofv3 JSON file, a summary and a pid the export lacks."""
    js = json.loads(cli("info", "--format", "json", NSYS_TWO).stdout)
    procs = sorted(p["pid"] for p in js["files"][0]["processes"])
    assert len(procs) == 2, procs
    for pids in ([procs[0]], [procs[1]], procs):
        arg = ",".join(map(str, pids))
        want = cli("compare", "--format", "csv", "-q", "--control-label", "Control",
                   "--test-label", "Test", NSYS_TWO, NSYS_TWO, "--pid", arg).stdout
        df = quiet(TraceDiff.compare_traces, NSYS_TWO, NSYS_TWO, pids=pids)
        assert frame_equals_csv(df, want) is None, (pids, frame_equals_csv(df, want))
        lt = [LabeledTrace(n, trace_dir=NSYS_TWO, pids=pids) for n in ("Control", "Test")]
        assert lt[0]._set.pids == tuple(pids)
        df = quiet(TraceDiff.compare_traces, lt[0], lt[1])
        assert frame_equals_csv(df, want) is None, (pids, "LabeledTrace")
        ops = json.loads(cli("ops", "--format", "json", "-q", NSYS_TWO, NSYS_TWO, "--pid",
                             arg).stdout)
        assert quiet(TraceDiff.ops_diff, NSYS_TWO, NSYS_TWO, pids=pids) == ops, pids
        info = json.loads(cli("info", "--format", "json", NSYS_TWO, "--pid", arg).stdout)
        d = tracediff.info(NSYS_TWO, pids=pids)
        assert d["categories"]["categories"].tolist() == list(info["categories"].values()), pids
        gate = json.loads(cli("check", "--format", "json", "-q", NSYS_TWO, NSYS_TWO, "--pid", arg,
                              ok=(0, 3)).stdout)
        res = quiet(tracediff.check, NSYS_TWO, NSYS_TWO, pids=pids)
        assert json.loads(res.json()) == gate, pids
    one = quiet(TraceDiff.compare_traces, NSYS_TWO, NSYS_TWO, pids=procs[1])
    two = quiet(TraceDiff.compare_traces, NSYS_TWO, NSYS_TWO, pids=procs[0])
    assert not one.equals(two), "the two processes read the same rows"
    with tempfile.TemporaryDirectory() as tmp:
        summary = os.path.join(tmp, "s.tdsum")
        tracediff.summarize(NSYS_TWO, summary)
        for path in (BASE, ROCPROF3, summary, NSYS_TWO):
            pid = 1 if path == NSYS_TWO else procs[0]
            p = cli("compare", "-q", path, path, "--pid", str(pid), ok=(1, 2))
            err = p.stderr.decode("utf-8", "replace").strip()
            # The command's refusal, with the argument named as Python
            # spells it: pids= for --pid.
            assert "--pid" in err, (path, err)
            for call in (lambda: TraceDiff.compare_traces(path, path, pids=[pid]),
                         lambda: tracediff.summarize(path, os.path.join(tmp, "p.tdsum"),
                                                     pids=[pid])):
                try:
                    quiet(call)
                except tracediff.TraceError as e:
                    cli_words = re.sub(r"pids=(?=\d)", "--pid ", str(e)).replace("pids=",
                                                                                "--pid")
                    assert err.endswith(cli_words), (path, str(e), err)
                    assert "--pid" not in str(e) and "pids=" in str(e), (path, str(e))
                else:
                    raise AssertionError(f"pids= on {path} did not raise")
        # summarize(pids=) is summarize --pid: the run holds that process's
        # events only, as the command's run does.
        runs = {}
        for pid in procs:
            py, cl = os.path.join(tmp, f"py{pid}.tdsum"), os.path.join(tmp, f"cl{pid}.tdsum")
            tracediff.summarize(NSYS_TWO, py, run="r", pids=pid)
            cli("summarize", NSYS_TWO, "-o", cl, "--run", "r", "--pid", str(pid), "-q")
            a = cli("compare", "--format", "csv", "-q", py, py).stdout
            b = cli("compare", "--format", "csv", "-q", cl, cl).stdout
            assert a == b, f"summarize(pids={pid}) differs from summarize --pid"
            runs[pid] = a
            lt = LabeledTrace("x", trace_dir=NSYS_TWO, pids=pid)
            tracediff.summarize(lt, os.path.join(tmp, f"lt{pid}.tdsum"), run="r")
            c = cli("compare", "--format", "csv", "-q", os.path.join(tmp, f"lt{pid}.tdsum"),
                    os.path.join(tmp, f"lt{pid}.tdsum")).stdout
            assert c == a, f"summarize(LabeledTrace(pids={pid})) dropped its pids"
        assert runs[procs[0]] != runs[procs[1]], "the two processes' runs are the same"
    for bad in ("1", [-1], [], [True], 1.5):
        for call in (lambda: TraceDiff.compare_traces(NSYS_TWO, NSYS_TWO, pids=bad),
                     lambda: tracediff.summarize(NSYS_TWO, "/nonexistent/x.tdsum", pids=bad)):
            try:
                quiet(call)
            except tracediff.UsageError as e:
                assert "pids" in str(e) and "--pid" not in str(e), (bad, str(e))
            else:
                raise AssertionError(f"pids={bad!r} did not raise")


def t_roofline_equals_cli_json():
    falcon = [os.path.join(TRACES, f"tracelens-falconsai_{g}") for g in ("h100", "mi300")]
    # The statistics options (roofline --stats) on both pairs: the row's
    # "stats" object becomes stats_FIELD columns.
    for c, t, kw in ((BERT_H100, BERT_MI300, {}),
                     (falcon[0], falcon[1], {"by": "class"}),
                     (falcon[0], falcon[1], {"test_gpu": "MI300X"}),
                     (BERT_H100, BERT_MI300, {"stats": True}),
                     (falcon[0], falcon[1], {"stats": True, "samples": "call", "alpha": 0.2,
                                             "min_change": 3})):
        args = []
        for k, v in kw.items():
            args += ["--" + k.replace("_", "-")] + ([] if v is True else [str(v)])
        js = json.loads(cli("roofline", "--format", "json", "-q", c, t, *args).stdout)
        d = tracediff.roofline(c, t, **kw)
        what = (os.path.basename(c), kw)
        key = "classes" if kw.get("by") == "class" else "rows"
        assert set(d) == set(js), (what, set(d) ^ set(js))
        assert d["gpus"] == js["gpus"] and d["notes"] == js["notes"], what
        assert js[key] and len(d[key]) == len(js[key]), what
        for row, w in zip(d[key].to_dict("records"), js[key]):
            for k, v in w.items():
                if k in ("control", "test", "stats"):
                    for f, x in v.items():
                        assert _nan_eq(x, row[f"{k}_{f}"]), (what, k, f, x, row[f"{k}_{f}"])
                else:
                    assert _nan_eq(v, row[k]), (what, k, v, row[k])
        for side in ("control", "test"):
            got = d["coverage"].loc[side].to_dict()
            assert got == js["coverage"][side], (what, side)
        if kw.get("stats"):
            assert "stats_verdict" in d[key].columns, what
            verdicts = {r["stats"]["verdict"] for r in js[key]}
            assert verdicts - {"n/a"}, (what, verdicts)  # some row has a real verdict
        else:
            assert not any(c.startswith("stats_") for c in d[key].columns), what
    for bad in ({"alpha": 1.5}, {"samples": "each"}, {"min_change": -1}):
        try:
            tracediff.roofline(BERT_H100, BERT_MI300, stats=True, **bad)
        except tracediff.UsageError as e:
            assert list(bad)[0] in str(e), (bad, str(e))
        else:
            raise AssertionError(f"roofline({bad}) did not raise")
    try:
        tracediff.roofline(BERT_H100, BERT_MI300, test_gpu="no such gpu")
    except tracediff.UsageError as e:
        assert "no such gpu" in str(e), str(e)
    else:
        raise AssertionError("an unknown GPU did not raise")

def t_stacks_and_flame_equal_cli():
    """stacks() holds, per side, the stacks and GPU time of `compare
    --format folded`; stacks(by="module") the rows of `--by module`;
    visualize_flame_diff() writes the bytes of `plot flame`."""
    falcon = [os.path.join(TRACES, f"tracelens-falconsai_{g}") for g in ("h100", "mi300")]
    for c, t in ((BERT_H100, BERT_MI300), (falcon[0], falcon[1])):
        what = os.path.basename(c)
        df = quiet(tracediff.stacks, c, t)
        assert df.index.name == "stack" and len(df) > 0, (what, df.index.name)
        for side, label in (("control", "Control"), ("test", "Test")):
            out = cli("compare", c, t, "--format", "folded", "--side", side, "-q").stdout.decode()
            folded = {}
            for line in out.splitlines():
                k, v = line.rsplit(" ", 1)
                folded[k] = float(v)
            counts = df[f"{label}_counts"]
            py = {k: v for k, v in df[f"{label}_total_duration"].items() if counts[k] > 0}
            assert folded == py, (what, side, set(folded) ^ set(py))
        mod = quiet(tracediff.stacks, c, t, by="module", control_label="control",
                    test_label="test")
        want = cli("compare", c, t, "--by", "module", "--format", "csv", "-q").stdout
        assert mod.index.name == "module"
        assert frame_equals_csv(mod, want) is None, (what, frame_equals_csv(mod, want))
        with tempfile.TemporaryDirectory() as tmp:
            for ext, side in ((".svg", None), (".svg", "test"), (".pdf", None)):
                a, b = os.path.join(tmp, "cli" + ext), os.path.join(tmp, "py" + ext)
                cli("plot", "flame", c, t, "-o", a, "-q", *(["--side", side] if side else []))
                quiet(tracediff.visualize_flame_diff, c, t, b, side=side)
                if ext == ".svg":
                    assert open(a, "rb").read() == open(b, "rb").read(), (what, ext, side)
                else:  # cairo stamps the time of writing: the same size and kind
                    assert open(b, "rb").read(5) == b"%PDF-", (what, ext)
            # bad input: nothing written
            for kw, word in (({"side": "both"}, "side"), ({"width": -1}, "width")):
                p = os.path.join(tmp, "bad.svg")
                try:
                    tracediff.visualize_flame_diff(c, t, p, **kw)
                except tracediff.UsageError as e:
                    assert word in str(e), str(e)
                else:
                    raise AssertionError(f"visualize_flame_diff({kw}) did not raise")
                assert not os.path.exists(p), kw
            try:
                tracediff.visualize_flame_diff(c, t, os.path.join(tmp, "x.txt"))
            except tracediff.UsageError as e:
                assert ".svg" in str(e), str(e)
            else:
                raise AssertionError("a .txt flame graph did not raise")
    # device="cpu": the CPU stacks of `--device cpu`, by stack and by module
    df = quiet(tracediff.stacks, BERT_H100, BERT_MI300, device="cpu")
    for side, label in (("control", "Control"), ("test", "Test")):
        out = cli("compare", BERT_H100, BERT_MI300, "--format", "folded", "--device", "cpu",
                  "--side", side, "-q").stdout.decode()
        folded = {}
        for line in out.splitlines():
            k, v = line.rsplit(" ", 1)
            folded[k] = float(v)
        counts = df[f"{label}_counts"]
        py = {k: v for k, v in df[f"{label}_total_duration"].items() if counts[k] > 0}
        assert len(folded) > 0 and set(folded) == set(py), (side, set(folded) ^ set(py))
        # folded values are whole us, never below 0 (docs/stacks.md)
        assert all(abs(folded[k] - max(0.0, py[k])) <= 1 for k in folded), side
    mod = quiet(tracediff.stacks, BERT_H100, BERT_MI300, by="module", device="CPU",
                control_label="control", test_label="test")
    want = cli("compare", BERT_H100, BERT_MI300, "--by", "module", "--device", "cpu",
               "--format", "csv", "-q").stdout
    assert frame_equals_csv(mod, want) is None, frame_equals_csv(mod, want)
    try:
        tracediff.stacks(BERT_H100, BERT_MI300, device="all")
    except tracediff.UsageError as e:
        assert "device" in str(e), str(e)
    else:
        raise AssertionError("stacks(device='all') did not raise")
    try:
        tracediff.stacks(BERT_H100, BERT_MI300, by="kernel")
    except tracediff.UsageError as e:
        assert "stack" in str(e), str(e)
    else:
        raise AssertionError("stacks(by='kernel') did not raise")


def t_rename_equals_cli():
    """compare_traces(rename=[...]) is compare --rename; report() takes it;
    a bad rule is a UsageError naming it."""
    rules = [r"^(ampere|volta)_sgemm_\w+$=sgemm", r"Memcpy (\w+) \(.*\)=Memcpy $1"]
    args = []
    for r in rules:
        args += ["--rename", r]
    for kw, extra in (({}, []), ({"by": "op"}, ["--by", "op"]),
                      ({"stats": True, "normalize_names": True}, ["--stats", "--normalize-names"])):
        want = cli("compare", "--format", "csv", "-q", DIFF_C, DIFF_T, *args, *extra).stdout
        df = quiet(TraceDiff.compare_traces, DIFF_C, DIFF_T, rename=rules, control_label="control",
                   test_label="test", **kw)
        assert frame_equals_csv(df, want) is None, (kw, frame_equals_csv(df, want))
        assert "sgemm" in df.index or kw.get("by"), kw
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "cli.html"), os.path.join(tmp, "py.html")
        cli("report", DIFF_C, DIFF_T, "-o", a, "-q", *args)
        quiet(tracediff.report, DIFF_C, DIFF_T, b, rename=rules)
        assert b"sgemm" in open(b, "rb").read()
    for bad in (["x=$3"], ["nope"], "a=b"):
        try:
            TraceDiff.compare_traces(DIFF_C, DIFF_T, rename=bad)
        except tracediff.UsageError as e:
            assert "rename" in str(e), str(e)
        else:
            raise AssertionError(f"rename={bad!r} did not raise")


# The reference cases' copy of the shared traces (scripts/sync_golden.sh),
# which a clean checkout has.
SHARED_TRACES = os.path.join(GOLDEN, "traces")


def same_value(x, y):
    if y is None:
        return x is None or (isinstance(x, float) and math.isnan(x))
    if isinstance(y, float) or isinstance(x, float):
        return float(x) == float(y)
    return x == y


def t_tree_match():
    """compare_traces(match="tree"): the rows and summary of tracediff
    compare --match tree --format json, on a cross-vendor pair and on a
    multi-iteration pair with --stats."""
    import glob
    pairs = [(("tracelens-bert_h100", "tracelens-bert_mi300"), ["--ns"], {"ns": True}),
             (("hta-trace_diff/control", "hta-trace_diff/test"),
              ["--stats", "--control-iteration", "all", "--test-iteration", "all"],
              {"stats": True, "control_iteration": "all", "test_iteration": "all"})]
    for (a, b), args, kw in pairs:
        pa = glob.glob(os.path.join(SHARED_TRACES, a, "*.json*"))
        pb = glob.glob(os.path.join(SHARED_TRACES, b, "*.json*"))
        assert pa and pb, f"the traces {a}, {b} are not under {SHARED_TRACES}"
        want = json.loads(cli("compare", pa[0], pb[0], "--match", "tree", "--format", "json",
                              "-q", *args).stdout)
        df = quiet(TraceDiff.compare_traces, pa[0], pb[0], match="tree", **kw)
        assert len(want["rows"]) > 10 and len(df) == len(want["rows"]), (a, len(df))
        assert list(df.columns) == list(want["rows"][0]), (list(df.columns), list(want["rows"][0]))
        for i, r in enumerate(want["rows"]):
            got = df.iloc[i]
            bad = [k for k, v in r.items() if not same_value(got[k], v)]
            assert not bad, (a, i, [(k, got[k], r[k]) for k in bad])
        assert df.attrs["summary"] == want["summary"], (df.attrs["summary"], want["summary"])
        assert df.attrs["notes"] == want["notes"], (df.attrs["notes"], want["notes"])
        if kw.get("stats"):
            assert df.attrs["stats"]["control_samples"] == 6, df.attrs["stats"]
            assert set(df["verdict"]) >= {"slower", "noise"}, set(df["verdict"])
    try:
        TraceDiff.compare_traces(BASE, TEST, match="tree", by="op")
    except tracediff.UsageError as e:
        assert "by" in str(e), str(e)
    else:
        raise AssertionError("match='tree' with by= did not raise")


def t_messages_name_no_library_fields():
    """The errors a call can reach for what a file lacks say it in the
    command's terms, naming no library field (td_open_opts.want_*): the tree
    match and rows by module on another profiler's output."""
    rocprof = os.path.join(TRACES, "profilers", "rocprofv3-json", "908_results.json.gz")
    calls = [(lambda: TraceDiff.compare_traces(rocprof, rocprof, match="tree"),
              "no call tree: --match tree needs PyTorch profiler trace files, and this file "
              "(rocprofv3 JSON) has none"),
             (lambda: tracediff.stacks(rocprof, rocprof, by="module"),
              "no stacks: rows by module need the Python stacks of a PyTorch profiler trace, "
              "and this file (rocprofv3 JSON) has none")]
    for call, want in calls:
        try:
            quiet(call)
        except tracediff.UsageError as e:
            assert want in str(e) and "td_" not in str(e) and "want_" not in str(e), str(e)
        else:
            raise AssertionError(f"no error: {want}")

def t_tree_match_python_frames():
    """compare_traces(match="tree", python_frames=True): the rows, summary
    and notes of tracediff compare --match tree --python-frames --format
    json on the bert pair, which differ from those without the frames; a
    LabeledTrace is read again when python_frames changes; python_frames
    without the tree match is a UsageError (ValueError) naming
    python_frames=, as the option without --match tree is exit 2."""
    import glob
    pa = glob.glob(os.path.join(SHARED_TRACES, "tracelens-bert_h100", "*.json*"))
    pb = glob.glob(os.path.join(SHARED_TRACES, "tracelens-bert_mi300", "*.json*"))
    assert pa and pb, f"the bert traces are not under {SHARED_TRACES}"
    want = json.loads(cli("compare", pa[0], pb[0], "--match", "tree", "--python-frames",
                          "--format", "json", "--ns", "-q").stdout)
    plain = json.loads(cli("compare", pa[0], pb[0], "--match", "tree", "--format", "json",
                           "--ns", "-q").stdout)
    assert [r["path"] for r in want["rows"]] != [r["path"] for r in plain["rows"]]
    assert any(".py" in r["path"] for r in want["rows"]), "no Python frame in a path"
    ctl, tst = (LabeledTrace(label=s, trace_dir=os.path.dirname(p), ns=True)
                for s, p in (("h100", pa[0]), ("mi300", pb[0])))
    for frames, ref in ((True, want), (False, plain), (True, want)):
        df = quiet(TraceDiff.compare_traces, ctl, tst, match="tree", ns=True,
                   python_frames=frames)
        assert len(df) == len(ref["rows"]) > 10, (frames, len(df), len(ref["rows"]))
        for i, r in enumerate(ref["rows"]):
            got = df.iloc[i]
            bad = [k for k, v in r.items() if not same_value(got[k], v)]
            assert not bad, (frames, i, [(k, got[k], r[k]) for k in bad])
        assert df.attrs["summary"] == ref["summary"], (frames, df.attrs["summary"])
        assert df.attrs["notes"] == ref["notes"], (frames, df.attrs["notes"])
    r = cli("compare", pa[0], pb[0], "--python-frames", "-q", ok=(2,))
    assert b"--python-frames needs --match tree" in r.stderr, r.stderr
    for kw in ({}, {"match": "name"}):
        try:
            TraceDiff.compare_traces(pa[0], pb[0], python_frames=True, **kw)
        except ValueError as e:
            assert isinstance(e, tracediff.UsageError) and "python_frames=" in str(e), str(e)
        else:
            raise AssertionError(f"python_frames=True with {kw} did not raise")


def t_summary_reopened_as_summary():
    """A set read from a summary and opened again for what a call needs
    (rows by op, the tree match) is opened again from the summary, not from
    the traces it was made from: with those traces gone, by="op" gives the
    CLI's rows from the summary, and match="tree" is the CLI's refusal (a
    summary keeps no call tree), not a read of the traces."""
    import shutil
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "ctl")
        shutil.copytree(os.path.join(ROOT, "examples", "control"), src, symlinks=False)
        tds = os.path.join(d, "c.tdsum")
        cli("summarize", src, "-o", tds, "-q")
        shutil.rmtree(src)
        want = csv_rows(cli("compare", tds, tds, "--by", "op", "--format", "csv", "-q").stdout)
        lt = LabeledTrace(label="c", trace_dir=tds)
        lu = LabeledTrace(label="d", trace_dir=tds)
        df = quiet(TraceDiff.compare_traces, lt, lu, by="op")
        assert len(df) == len(want) - 1 > 0, (len(df), len(want))
        assert lt._set.source == tds and lt._set.path != tds
        try:
            quiet(TraceDiff.compare_traces, tds, tds, match="tree")
        except tracediff.UsageError as e:
            assert "a summary keeps none" in str(e) and "c.tdsum" in str(e), str(e)
        else:
            raise AssertionError("match='tree' on a summary gave rows")


UNIT = [v for k, v in sorted(globals().items()) if k.startswith("t_")]


def main():
    flags = sys.argv[2:]
    only = flags[flags.index("--only") + 1] if "--only" in flags else None
    passed = failed = 0
    cases = reference.load(os.path.join(GOLDEN, "cases.json"))
    names = ["golden " + c["id"] for c in cases] + [t.__name__ for t in UNIT]
    if "--list" in flags:  # what scripts/choose_subset.py choose-python picks from
        print("\n".join(names))
        return 0
    # --case NAME: that check alone; the instrumented passes
    # (TD_TEST_SUBSET=1): those of tests/subset/python.txt, chosen by line
    # coverage (scripts/choose_subset.py choose-python), each reference case
    # and function of this file running in the plain pass.
    keep = set(names)
    if "--case" in flags:
        keep = {flags[flags.index("--case") + 1]}
    elif reference.instrumented():
        keep = reference.suite_subset("python")
        if keep - set(names):  # a renamed check must not drop out silently
            failed += 1
            print("FAIL python tests/subset/python.txt names no check here: %s"
                  % sorted(keep - set(names)))
    for c in cases:
        if (only and only not in c["id"]) or "golden " + c["id"] not in keep:
            continue
        try:
            problem = check_case(c)
        except Exception as e:  # noqa: BLE001
            problem = f"{type(e).__name__}: {e}"
        if problem:
            failed += 1
            print(f"FAIL python golden {c['id']}: {problem}")
        else:
            passed += 1
            if "-v" in flags:
                print(f"ok   python golden {c['id']}")
    for t in UNIT:
        if (only and only not in t.__name__) or t.__name__ not in keep:
            continue
        try:
            t()
        except Exception as e:  # noqa: BLE001
            failed += 1
            print(f"FAIL python {t.__name__}: {type(e).__name__}: {e}")
        else:
            passed += 1
            if "-v" in flags:
                print(f"ok   python {t.__name__}")
    print(f"python: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The Python module (tracediff, HTA's TraceDiff on the C library).

    python_test.py BUILD/tracediff [--only SUBSTR] [-v]

Runs under an interpreter that has pandas: $PYTHON, /usr/bin/python3 or
python3, whichever first imports pandas (re-executing itself there). Without
one, the suite fails (it does not skip). Uses BUILD/python, running
`make python BUILD=BUILD` first when the module is not built.

Every case of tests/golden/cases.json goes through TraceDiff.compare_traces
and TraceDiff.ops_diff and is matched with HTA's output: the same columns in
the same order, the same index (name, order) and the same values.
"""
import gc, json, math, os, re, subprocess, sys, tempfile, threading, time, warnings

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
    os.execvp(py, [py] + sys.argv)


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
                hta_strict=bool(c.get("hta_strict")))


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


def labeled(rel, label):
    # One load per trace set and label for the whole suite.
    key = (rel, label)
    if key not in _sets:
        _sets[key] = LabeledTrace(label=label, trace_dir=os.path.join(GOLDEN, rel))
    return _sets[key]


def check_case(c):
    base = os.path.join(GOLDEN, c["id"])
    ctl, tst = labeled(c["control"], "control"), labeled(c["test"], "test")
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(50):
            TraceDiff.compare_traces(a, b)
            TraceDiff.ops_diff(BASE, TEST)
        gc.collect()
        before = rss()
        for _ in range(400):
            TraceDiff.compare_traces(a, b, use_short_name=True)
            TraceDiff.ops_diff(BASE, TEST)
            try:
                TraceDiff.compare_traces(a, b, control_rank=7)
            except ValueError:
                pass
        gc.collect()
        grown = rss() - before
    assert grown < 8 << 20, f"RSS grew {grown >> 10} KiB over 400 rounds"


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


UNIT = [v for k, v in sorted(globals().items()) if k.startswith("t_")]


def main():
    flags = sys.argv[2:]
    only = flags[flags.index("--only") + 1] if "--only" in flags else None
    passed = failed = 0
    cases = json.load(open(os.path.join(GOLDEN, "cases.json")))
    for c in cases:
        if only and only not in c["id"]:
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
        if only and only not in t.__name__:
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

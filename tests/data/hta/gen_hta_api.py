#!/usr/bin/env python3
"""Makes hta_api.json.gz: what HTA's own trace_diff module returns and declares,
for tests/python_test.py (t_hta_*) to hold the tracediff module to.

    /usr/bin/python3 tests/data/hta/gen_hta_api.py HTA_SOURCE_DIR

HTA_SOURCE_DIR: a checkout of facebookresearch/HolisticTraceAnalysis at the
release to match (v0.6.1 for the committed file). HTA runs from it; it needs
Debian's python3-pandas, python3-plotly, python3-networkx, python3-pydot
and python3-psutil. Only HTA's results are written, none of its code.

Recorded: the signature of every public callable of hta.trace_diff (and of
its classes' public methods), LabeledTrace's public attributes, and on the
reference traces (tests/golden/traces): ranks(), iterations(),
extract_ops() row counts and get_ops_summary() rows per selection, and
compare_traces()/ops_diff() per device and name kind.
"""
import enum
import gzip
import inspect
import json
import logging
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
TRACES = os.path.join(ROOT, "tests", "golden", "traces")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hta_api.json.gz")

# (control set, test set, control rank, test rank, control iteration, test iteration)
PAIRS = [
    ("hta-trace_compare/base", "hta-trace_compare/test", 1, 1, 1010, 1010),
    ("hta-trace_diff/control", "hta-trace_diff/test", None, None, None, None),
    ("hta-two_ranks", "hta-two_ranks", [0, 1], 1, None, None),
]


def signature(fn):
    sig = inspect.signature(fn)
    return [[p.name, p.kind.name, None if p.default is inspect.Parameter.empty
             else repr(p.default)] for p in sig.parameters.values()]


def public_api(mod):
    api = {}
    for name in sorted(vars(mod)):
        obj = getattr(mod, name)
        if name.startswith("_") or getattr(obj, "__module__", None) != mod.__name__:
            continue
        entry = {"kind": "class" if inspect.isclass(obj) else "function"}
        if inspect.isclass(obj) and issubclass(obj, enum.Enum):
            entry["enum"] = {m.name: m.value for m in obj}
        elif inspect.isclass(obj):
            entry["members"] = {}
            for m, v in sorted(vars(obj).items()):
                if m.startswith("_") and m != "__init__":
                    continue
                if isinstance(v, (classmethod, staticmethod)):
                    v = v.__func__
                if inspect.isfunction(v):
                    entry["members"][m] = signature(v)
        else:
            entry["signature"] = signature(obj)
        api[name] = entry
    # A type alias (TraceDir = str) is public too.
    api["TraceDir"] = {"kind": "alias", "of": mod.TraceDir.__name__}
    return api


def summary_rows(df):
    rows = df[["cat", "name", "short_name", "counts", "total_duration"]].sort_values(
        ["cat", "name"])
    return [[r.cat, r.name, r.short_name, int(r.counts), float(r.total_duration)]
            for r in rows.itertuples()]


def frame(df):
    return {"index_name": df.index.name, "columns": list(df.columns),
            "index": [str(x) for x in df.index],
            "rows": [[float(v) if not isinstance(v, str) else v for v in row]
                     for row in df.itertuples(index=False)]}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.path.insert(0, os.path.abspath(sys.argv[1]))
    logging.disable(logging.CRITICAL)
    import hta.trace_diff as td
    from hta.trace_diff import DeviceType, LabeledTrace, TraceDiff

    out = {"hta_api": public_api(td), "pairs": []}
    lt = LabeledTrace(label="x", trace_dir=os.path.join(TRACES, PAIRS[0][0]))
    out["labeled_trace_attributes"] = sorted(k for k in vars(lt) if not k.startswith("_"))
    devices = {"cpu": DeviceType.CPU, "gpu": DeviceType.GPU, "all": DeviceType.ALL}
    for c, t, cr, tr, ci, ti in PAIRS:
        ctl = LabeledTrace(label="Control", trace_dir=os.path.join(TRACES, c))
        tst = LabeledTrace(label="Test", trace_dir=os.path.join(TRACES, t))
        pair = {"control": c, "test": t, "control_rank": cr, "test_rank": tr,
                "control_iteration": ci, "test_iteration": ti,
                "ranks": [ctl.ranks(), tst.ranks()],
                "iterations": [ctl.iterations(), tst.iterations()],
                "extract_ops": {}, "get_ops_summary": {}, "compare_traces": {},
                "ops_diff": {}}
        for dev, d in devices.items():
            ops = [ctl.extract_ops(cr, ci, d), tst.extract_ops(tr, ti, d)]
            pair["extract_ops"][dev] = [len(o) for o in ops]
            pair["get_ops_summary"][dev] = [summary_rows(lt_.get_ops_summary(o))
                                            for lt_, o in zip((ctl, tst), ops)]
            for short in (False, True):
                df = TraceDiff.compare_traces(ctl, tst, cr, tr, ci, ti, d, short)
                pair["compare_traces"][f"{dev}{'_short' if short else ''}"] = frame(df)
            pair["ops_diff"][dev] = TraceDiff.ops_diff(ctl, tst, cr, tr, ci, ti, d)
        out["pairs"].append(pair)
    data = json.dumps(out, sort_keys=True, separators=(",", ":")) + "\n"
    with open(OUT, "wb") as f:
        f.write(gzip.compress(data.encode(), compresslevel=9, mtime=0))


if __name__ == "__main__":
    main()

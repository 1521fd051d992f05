#!/usr/bin/env python3
"""Makes hta_rows.json.gz: the rows HTA's own LabeledTrace.extract_ops
returns on the reference traces, for tests/python_test.py
(t_extract_ops_equals_hta) to hold the tracediff module to.

    /usr/bin/python3 tests/data/hta/gen_hta_rows.py HTA_SOURCE_DIR

HTA_SOURCE_DIR: a checkout of facebookresearch/HolisticTraceAnalysis at the
release to match (v0.6.1 for the committed file), run with Debian's
python3-pandas 1.5.3 and python3-numpy 1.24.2 (as gen_hta_api.py). Only
HTA's results are written, none of its code.

Recorded per case (a trace set, ranks, iterations, device, and
HTA_DISABLE_NS_ROUNDING): the frame's columns, their dtypes, its index
(values and dtype) and every value, cat and name as their symbols (HTA's
ids depend on the order of a Python set, so they differ run to run), NaN
as null. Each case runs in a process of its own, so that the environment
switch is read as HTA reads it.
"""
import gzip
import json
import logging
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
TRACES = os.path.join(ROOT, "tests", "golden", "traces")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hta_rows.json.gz")

# (set, rank, iteration, device, HTA_DISABLE_NS_ROUNDING)
CASES = [
    ("hta-trace_compare/base", 1, 1010, "ALL", False),
    ("hta-trace_compare/test", None, None, "CPU", False),
    ("hta-trace_diff/control", None, None, "GPU", False),
    ("hta-trace_diff/test", 1, [1009, 1010], "GPU", False),
    ("hta-two_ranks", [0, 1], None, "GPU", False),
    ("hta-two_ranks", 1, None, "CPU", False),
    ("hta-ns_resolution", None, None, "GPU", False),
    ("hta-ns_resolution", None, None, "GPU", True),
]


def plain(v):
    if hasattr(v, "item") and not isinstance(v, (list, dict)):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def one(case):
    sys.path.insert(0, os.path.abspath(sys.argv[1]))
    logging.disable(logging.CRITICAL)
    import warnings
    warnings.simplefilter("ignore")
    from hta.trace_diff import DeviceType, LabeledTrace

    s, rank, it, dev, _ = case
    lt = LabeledTrace(label="x", trace_dir=os.path.join(TRACES, s))
    df = lt.extract_ops(rank, it, getattr(DeviceType, dev))
    tab = lt.s_tab
    cols = {}
    for c in df.columns:
        if c in ("cat", "name"):
            cols[c] = [tab[i] for i in df[c]]
        else:
            cols[c] = [plain(v) for v in df[c]]
    return {"columns": list(df.columns), "dtypes": [str(t) for t in df.dtypes],
            "index": [int(i) for i in df.index], "index_dtype": str(df.index.dtype),
            "values": cols}


def main():
    if len(sys.argv) == 3:  # one case, in a process of its own
        json.dump(one(CASES[int(sys.argv[2])]), sys.stdout)
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = []
    for i, case in enumerate(CASES):
        env = dict(os.environ)
        env.pop("HTA_DISABLE_NS_ROUNDING", None)
        if case[4]:
            env["HTA_DISABLE_NS_ROUNDING"] = "1"
        got = subprocess.run([sys.executable, os.path.abspath(__file__), sys.argv[1], str(i)],
                             env=env, check=True, stdout=subprocess.PIPE).stdout
        s, rank, it, dev, ns = case
        out.append(dict(json.loads(got), set=s, rank=rank, iteration=it, device=dev,
                        disable_ns_rounding=ns))
    data = json.dumps({"hta": "v0.6.1", "cases": out}, sort_keys=True,
                      separators=(",", ":")) + "\n"
    with open(OUT, "wb") as f:
        f.write(gzip.compress(data.encode(), compresslevel=9, mtime=0))


if __name__ == "__main__":
    main()

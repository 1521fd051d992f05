#!/usr/bin/python3
"""Regenerates the expected files of tests/roofline_test.py with TraceLens.

Usage: /usr/bin/python3 tests/roofline/make_expected.py TRACELENS_DIR

TRACELENS_DIR is a checkout of https://github.com/AMD-AGI/TraceLens (MIT);
README.md here names the commit the committed files were made with. For
each shared trace with shapes, TraceLens's TreePerfAnalyzer computes its
perf metrics (PerfModel) of every GEMM (aten::mm, addmm, bmm, baddbmm) and
SDPA op; the rows are grouped by (op, Input Dims, Input type) and written
as CSV: count, summed GFLOPs, summed bytes, summed kernel busy time (us).
"""
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, "..", "..", "..", "shared", "traces")
NAMES = {
    "aten::mm",
    "aten::addmm",
    "aten::bmm",
    "aten::baddbmm",
    "aten::_scaled_dot_product_flash_attention",
    "aten::_scaled_dot_product_efficient_attention",
    "aten::_scaled_dot_product_cudnn_attention",
}
CASES = ["bert_h100", "bert_mi300", "falconsai_h100", "falconsai_mi300"]


def key(v):
    return json.dumps(v, separators=(",", ":"))


def main():
    sys.path.insert(0, sys.argv[1])
    from TraceLens import TreePerfAnalyzer

    traces = os.environ.get("TD_SHARED_TRACES", TRACES)
    for case in CASES:
        d = os.path.join(traces, "tracelens-" + case)
        path = os.path.join(d, sorted(os.listdir(d))[0])
        an = TreePerfAnalyzer.from_file(path)
        events = [e for e in an.tree.events if e.get("cat") == "cpu_op" and e["name"] in NAMES]
        df = an.build_df_perf_metrics(events, include_args=True)
        groups = {}
        for _, r in df.iterrows():
            k = (r["name"], key(r["Input Dims"]), key(r["Input type"]))
            g = groups.setdefault(k, [0, 0.0, 0.0, 0.0])
            g[0] += 1
            g[1] += r["GFLOPS"] * 1e9
            g[2] += r["Data Moved (MB)"] * 1024 * 1024
            g[3] += r["Kernel Time (µs)"]
        out = os.path.join(HERE, case + ".csv")
        with open(out, "w", newline="") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["op", "input_dims", "input_types", "count", "flops", "bytes", "time_us"])
            for k in sorted(groups):
                g = groups[k]
                w.writerow(list(k) + [g[0], repr(g[1]), repr(g[2]), repr(g[3])])
        print(out, len(groups), "groups")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""Regenerates the expected files of tests/tree_test.py with TraceLens.

Usage: /usr/bin/python3 tests/tree/make_expected.py TRACELENS_DIR

TRACELENS_DIR is a checkout of https://github.com/AMD-AGI/TraceLens (MIT);
README.md here names the commit the committed files were made with. For
each shared pair (H100 as control, MI300 as test), TraceLens's TraceDiff
merges the two call trees and generate_diff_stats lists the GPU events of
every lowest common ancestor (LCA). The rows are reduced to one line per
LCA occurrence: its merged id (visit order), name, each side's busy time
(|U| of the LCA's GPU events, us) and kernel count; a last line gives each
side's total GPU busy time and the part in LCAs with kernels on both sides.
"""
import csv
import io
import os
import sys
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.join(HERE, "..", "..", "..", "shared", "traces")
PAIRS = [("bert", "bert_h100", "bert_mi300"), ("falconsai", "falconsai_h100", "falconsai_mi300")]


def trace_path(traces, case):
    d = os.path.join(traces, "tracelens-" + case)
    return os.path.join(d, sorted(os.listdir(d))[0])


def main():
    sys.path.insert(0, sys.argv[1])
    from TraceLens import TraceDiff, TreePerfAnalyzer
    from TraceLens.TreePerf.gpu_event_analyser import GPUEventAnalyser

    traces = os.environ.get("TD_SHARED_TRACES", TRACES)
    for out_name, a, b in PAIRS:
        with redirect_stdout(io.StringIO()):
            pa1 = TreePerfAnalyzer.from_file(trace_path(traces, a))
            pa2 = TreePerfAnalyzer.from_file(trace_path(traces, b))
            td = TraceDiff(pa1.tree, pa2.tree)
            df = td.generate_diff_stats()
        lcas = {}
        order = []
        for _, r in df.iterrows():
            lid = r["lowest_common_ancestor_id"]
            key = -1 if lid is None or lid != lid else int(lid)
            if key not in lcas:
                lcas[key] = {"name": r["lowest_common_ancestor_name"], "trace1": [0, 0.0], "trace2": [0, 0.0]}
                order.append(key)
            side = lcas[key][r["source"]]
            side[0] += 1
            side[1] = float(r["busy_time"])
        totals = {}
        for side, tree in (("trace1", pa1.tree), ("trace2", pa2.tree)):
            gpu = [e for e in tree.events if tree.event_to_category(e) in ("kernel", "gpu_memcpy", "gpu_memset")]
            totals[side] = GPUEventAnalyser(gpu).compute_metrics()["busy_time"] if gpu else 0.0
        out = os.path.join(HERE, out_name + "_lca.csv")
        matched = {"trace1": 0.0, "trace2": 0.0}
        with open(out, "w", newline="") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(["lca", "control_us", "test_us", "control_kernels", "test_kernels"])
            for key in order:
                l = lcas[key]
                if l["trace1"][0] and l["trace2"][0]:
                    matched["trace1"] += l["trace1"][1]
                    matched["trace2"] += l["trace2"][1]
                w.writerow([l["name"] if l["name"] is not None else "",
                            "%.3f" % l["trace1"][1], "%.3f" % l["trace2"][1],
                            l["trace1"][0], l["trace2"][0]])
            w.writerow(["#total", "%.3f" % totals["trace1"], "%.3f" % totals["trace2"], "", ""])
            w.writerow(["#matched", "%.3f" % matched["trace1"], "%.3f" % matched["trace2"], "", ""])
        print(out, len(order), "LCAs")


if __name__ == "__main__":
    main()

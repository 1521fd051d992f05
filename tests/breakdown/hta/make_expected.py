#!/usr/bin/python3
"""HTA's own breakdown numbers for the shared trace sets, the reference of
tests/breakdown_test.py (see README.md here).

    /usr/bin/python3 tests/breakdown/hta/make_expected.py HTA_DIR [TRACES_DIR]

HTA_DIR is a checkout of HolisticTraceAnalysis (the commit README.md names);
TRACES_DIR the shared traces (default ../shared/traces beside the repository,
else /work/shared/traces). Writes one SET.json here per trace set, SET being
the set's path under TRACES_DIR with "/" written "__".

Every number is HTA's, as its public functions return it: this script only
calls them and writes their DataFrames as JSON (NaN as null). A function that
raises is recorded with its exception, so the test can say why a number is
absent.
"""
import json, math, os, subprocess, sys, traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def trace_sets(top):
    """The directories of TOP holding trace files directly (profilers/ holds
    Nsight Systems and rocprof exports, which HTA does not read)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        rel = os.path.relpath(dirpath, top)
        if rel.split(os.sep)[0] == "profilers":
            continue
        if any(f.endswith((".json", ".json.gz")) for f in filenames):
            out.append(rel)
    return sorted(out)


def plain(v):
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def rows(df):
    return [{str(k): plain(v) for k, v in r.items()} for r in df.to_dict("records")]


def attempt(errors, name, fn):
    try:
        return fn()
    except Exception as e:  # HTA's own failure, recorded as the reference
        errors[name] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        traceback.print_exc()
        return None


def one_set(TraceAnalysis, top, rel):
    doc = {"set": rel.replace(os.sep, "/"), "errors": {}}
    errors = doc["errors"]
    a = attempt(errors, "TraceAnalysis", lambda: TraceAnalysis(trace_dir=os.path.join(top, rel)))
    if a is None:
        return doc
    ranks = sorted(int(r) for r in a.t.traces.keys())
    doc["ranks"] = ranks
    t = attempt(errors, "get_temporal_breakdown",
                lambda: a.get_temporal_breakdown(visualize=False))
    if t is not None:
        doc["temporal_breakdown"] = rows(t)
    o = attempt(errors, "get_comm_comp_overlap",
                lambda: a.get_comm_comp_overlap(visualize=False))
    if o is not None:
        doc["comm_comp_overlap"] = rows(o)
    k = attempt(errors, "get_gpu_kernel_breakdown",
                lambda: a.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True))
    if k is not None:
        doc["kernel_type_all_ranks"] = rows(k[0])
        # HTA's kernel-type table sums the ranks; the same public function
        # on each rank alone gives the rank's own times.
        per = {}
        traces = a.t.traces
        try:
            for r in sorted(traces.keys()):
                a.t.traces = {r: traces[r]}
                kr = attempt(errors, "get_gpu_kernel_breakdown rank %d" % int(r),
                             lambda: a.get_gpu_kernel_breakdown(
                                 visualize=False, include_memory_kernels=True))
                if kr is not None:
                    per[str(int(r))] = rows(kr[0])
        finally:
            a.t.traces = traces
        doc["kernel_type_per_rank"] = per
    i = attempt(errors, "get_idle_time_breakdown",
                lambda: a.get_idle_time_breakdown(ranks=ranks, visualize=False,
                                                  show_idle_interval_stats=False))
    if i is not None:
        doc["idle_time_breakdown"] = rows(i[0])
    return doc


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    hta = os.path.abspath(sys.argv[1])
    top = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(ROOT), "shared", "traces")
    if not os.path.isdir(top):
        top = "/work/shared/traces"
    os.environ.pop("HTA_DISABLE_NS_ROUNDING", None)
    sys.path.insert(0, hta)
    from hta.trace_analysis import TraceAnalysis
    from hta.version import __version__
    commit = subprocess.run(["git", "-C", hta, "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or None
    for rel in trace_sets(top):
        doc = one_set(TraceAnalysis, top, rel)
        doc["hta"] = {"version": __version__, "commit": commit}
        out = os.path.join(HERE, rel.replace(os.sep, "__") + ".json")
        with open(out + ".tmp", "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
        os.replace(out + ".tmp", out)
        print("%s: %s" % (rel, ", ".join(sorted(doc["errors"])) or "ok"), file=sys.stderr)


if __name__ == "__main__":
    main()

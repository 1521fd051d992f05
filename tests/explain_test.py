#!/usr/bin/env python3
"""tracediff explain on real traces: unknown names, the order of the kernels.

    explain_test.py TRACEDIFF

- An unknown NAME (a typo) is an error, exit 1, naming the closest names
  by edit distance from both sides, with the side each is on.
- The kernel rows come sorted by |change of duration|, largest first.
- A known op that launched nothing is no error (exit 0, empty table).
"""
import csv, io, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T = os.path.join(ROOT, "tests", "golden", "traces")
C, TT = os.path.join(T, "kineto-resnet50_workers0"), os.path.join(T, "kineto-resnet50_workers4")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))


def run(exe, *args):
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8")
    p = subprocess.run([exe] + list(args), capture_output=True, env=env, timeout=600)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def lev(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def inclusive_expected(path, op):
    """GPU time (selected: every iteration) of the events whose launch lies
    inside a call of op on its thread, at any depth: found here from the
    raw events."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import stats_test as st
    doc, _ = st.load_json(path)
    raw = doc["traceEvents"]
    evs = st.read_events(path)
    for e in evs:
        e["pid"], e["tid"] = raw[e["idx"]].get("pid"), raw[e["idx"]].get("tid")
    calls = [e for e in evs if e["cat"] in ("cpu_op", "Operator") and e["name"] == op]
    launch = {}
    for e in evs:
        if e["host"] and e["corr"] != -1:
            launch[e["corr"]] = e
    total = 0
    for g in evs:
        if g["host"] or g["iter"] is None or g["corr"] not in launch:
            continue
        L = launch[g["corr"]]
        if any(c["pid"] == L["pid"] and c["tid"] == L["tid"] and c["ts"] <= L["ts"] and
               L["ts"] + L["dur"] <= c["ts"] + c["dur"] for c in calls):
            total += g["dur"]
    return total


def inclusive(exe):
    import json
    every = ["--control-iteration", "all", "--test-iteration", "all"]
    for d, op in (("tracelens-bert_h100", "aten::linear"),
                  ("kineto-resnet50_workers0", "aten::convolution")):
        p = os.path.join(T, d)
        rc, out, err = run(exe, "explain", p, p, op, "--inclusive", "--format", "json", "-q",
                           *every)
        j = json.loads(out) if rc == 0 else {}
        rc2, out2, _ = run(exe, "explain", p, p, op, "--format", "json", "-q", *every)
        own = json.loads(out2)["control"]["gpu_time"] if rc2 == 0 else None
        files = sorted(f for f in os.listdir(p) if f.endswith(".json") or f.endswith(".gz"))
        want = inclusive_expected(os.path.join(p, files[0]), op)
        got = j.get("control", {}).get("gpu_time")
        check("explain %s --inclusive (%s): the GPU time launched inside its calls at any "
              "depth (%s us; %s us its own)" % (op, d, got, own),
              got is not None and abs(got - want) < 1e-6 and got > (own or 0) and
              sum(k["control_total_duration"] for k in j["kernels"]) == got,
              (rc, got, want, err[:200]))
    with __import__("tempfile").TemporaryDirectory() as tmp:
        s = os.path.join(tmp, "s.tdsum")
        run(exe, "summarize", os.path.join(T, "tracelens-bert_h100"), "-o", s, "-q")
        rc, out, err = run(exe, "explain", s, s, "aten::linear", "--inclusive", "-q")
        check("explain --inclusive on a summary: an error saying to give the trace files",
              rc != 0 and "trace files" in err, (rc, err[:200]))


def main():
    exe = os.path.abspath(sys.argv[1])
    every = ["--control-iteration", "all", "--test-iteration", "all"]
    rc, out, err = run(exe, "explain", C, TT, "aten::mmm", "-q", *every)
    check("explain aten::mmm (a typo): exit 1, one message", rc == 1 and out == "" and
          err.count("\n") == 1 and "no op named 'aten::mmm'" in err, (rc, out[:200], err))
    # the closest names, as edit distance over the ops of both sides orders them
    rc2, ops, _ = run(exe, "compare", C, TT, "--by", "op", "--format", "csv", "-q", *every)
    names = [r["op"] for r in csv.DictReader(io.StringIO(ops)) if r["op"] != "(unattributed)"]
    best = sorted(names, key=lambda n: (lev("aten::mmm", n), names.index(n)))[:5]
    shown = err.split("closest: ")[1].split(" (names as")[0] if "closest: " in err else ""
    got = [s.rsplit(" (", 1)[0] for s in shown.split(", ")]
    check("... lists the 5 closest op names by edit distance (%s)" % ", ".join(best),
          got == best and got[0] == "aten::mm" and "aten::mm (both)" in err, (got, best))
    rc, out, err = run(exe, "explain", C, TT, "enumerate(DataLoader)#_SingleProcessDataLoaderIter",
                       "--by", "annotation", "-q", *every)
    check("explain --by annotation, an unknown annotation: exit 1 naming a close one",
          rc == 1 and "no annotation named" in err and "enumerate(DataLoader)" in err,
          (rc, err[:300]))
    rc, out, err = run(exe, "explain", C, TT, "aten::convolution", "-q", *every, "--format",
                       "csv")
    check("explain of an op that launched nothing itself: exit 0, its CPU time only",
          rc == 0 and out.count("\n") == 2 and "(CPU time)" in out, (rc, out, err))
    rc, out, err = run(exe, "explain", C, TT, "aten::cudnn_convolution", "-q", *every,
                       "--format", "csv")
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["name"] != "(CPU time)"]
    d = [abs(float(r["diff_duration"])) for r in rows]
    check("explain: kernel rows sorted by |change|, largest first (%d kernels)" % len(rows),
          rc == 0 and len(rows) > 5 and d == sorted(d, reverse=True), d[:8])
    rc, out2, err = run(exe, "explain", C, TT, "aten::cudnn_convolution", "-q", *every,
                        "--format", "csv", "--sort", "name")
    rows2 = [r["name"] for r in csv.DictReader(io.StringIO(out2)) if r["name"] != "(CPU time)"]
    check("explain --sort name still orders by name", rows2 == sorted(rows2), rows2[:3])
    inclusive(exe)
    print("explain: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

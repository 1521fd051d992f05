#!/usr/bin/env python3
"""tracediff explain on real traces: unknown names, the order of the kernels.

    explain_test.py TRACEDIFF

- An unknown NAME (a typo) is an error, exit 1, naming the closest names
  by edit distance from both sides, with the side each is on.
- The kernel rows come sorted by |change of duration|, largest first.
- A known op that launched nothing is no error (exit 0, empty table).
- --by module (and --exclusive): the kernels under a module path add up to
  its row of 'compare --by module', and each kernel's time is that of the
  folded stacks ('compare --format folded') whose modules hold the path.

With TD_TEST_SUBSET=1 (make sanitize) the op names that the closest names
are checked against ('compare --by op') come from the plain build
(TD_PLAIN_EXE, tests/cases.py: expectation_exe), and --by module runs on
the first pair of traces only (the second runs the same lines). The plain
pass runs both pairs.
"""
import csv, io, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

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


def module_paths(stack):
    """The nn.Module path of a folded stack, and its kernel (last frame)."""
    frames = stack.split(";")
    mods = [f[len("nn.Module: "):] for f in frames[:-1] if f.startswith("nn.Module: ")]
    return mods, frames[-1]


def by_module(exe):
    import json, tempfile
    pairs = (("tracelens-bert_h100", "tracelens-bert_mi300"),
             ("tracelens-falconsai_h100", "tracelens-falconsai_mi300"))
    for c, t in pairs[:1] if cases.subset_ids() is not None else pairs:
        a, b = os.path.join(T, c), os.path.join(T, t)
        with tempfile.TemporaryDirectory() as tmp:
            fc, ft = os.path.join(tmp, "c.folded"), os.path.join(tmp, "t.folded")
            run(exe, "compare", a, b, "--format", "folded", "-q", "-o", fc + "," + ft)
            folded = []
            for path in (fc, ft):
                with open(path, encoding="utf-8") as f:
                    folded.append([l.rstrip("\n").rsplit(" ", 1) for l in f])
        for excl in ([], ["--exclusive"]):
            rc, out, _ = run(exe, "compare", a, b, "--by", "module", "--format", "csv", "-q",
                             *excl)
            rows = {r["module"]: r for r in csv.DictReader(io.StringIO(out))}
            both = [m for m, r in rows.items() if m != "(unattributed)" and
                    float(r["control_total_duration"]) > 0 and
                    float(r["test_total_duration"]) > 0]
            # the outermost, the busiest inner one, one at mid depth
            both.sort(key=lambda m: (m.count("/"), m))
            pick = {both[0], max(both[1:], key=lambda m: float(rows[m]["test_total_duration"])),
                    both[len(both) // 2]}
            for m in sorted(pick):
                tag = "explain --by module%s %s (%s)" % (" --exclusive" if excl else "",
                                                        m.rsplit("/", 1)[-1], c)
                rc, out, err = run(exe, "explain", a, b, m, "--by", "module", "--format",
                                   "json", "-q", *excl)
                j = json.loads(out) if rc == 0 else {"kernels": []}
                ks = j["kernels"]
                want = rows[m]
                ok = rc == 0 and j.get("module") == m and ks
                for side in ("control", "test"):
                    ok = ok and abs(sum(k[side + "_total_duration"] for k in ks) -
                                    float(want[side + "_total_duration"])) < 1e-6
                    ok = ok and sum(k[side + "_counts"] for k in ks) == int(
                        want[side + "_counts"]) == j[side]["gpu_events"]
                    ok = ok and abs(j[side]["gpu_time"] -
                                    float(want[side + "_total_duration"])) < 1e-6
                check(tag + ": the kernels add up to the module's row", ok,
                      (rc, err[:200], want, [j.get(s) for s in ("control", "test")]))
                parts = m.split("/")
                bad = []
                for s, side in enumerate(("control", "test")):
                    per, lines = {}, {}
                    for stack, v in folded[s]:
                        mods, kernel = module_paths(stack)
                        if (mods == parts) if excl else (mods[:len(parts)] == parts):
                            per[kernel] = per.get(kernel, 0) + int(v)
                            lines[kernel] = lines.get(kernel, 0) + 1
                    got = {}
                    for k in ks:
                        if k[side + "_counts"]:
                            name = k["name"].replace(";", ":")
                            got[name] = got.get(name, 0) + k[side + "_total_duration"]
                    if set(got) != set(per):
                        bad.append((side, sorted(set(got) ^ set(per))[:2]))
                    bad += [(side, n) for n in got
                            if abs(got[n] - per.get(n, 0)) > 0.5 * lines.get(n, 0) + 1e-6]
                check(tag + ": each kernel's time is that of the folded stacks under it",
                      not bad, bad[:3])
    a, b = os.path.join(T, "tracelens-bert_h100"), os.path.join(T, "tracelens-bert_mi300")
    rc, out, err = run(exe, "explain", a, b, "BertLayer_0", "--by", "module", "-q")
    check("explain --by module, not a whole path: exit 1 naming whole paths",
          rc == 1 and "no module named 'BertLayer_0'" in err and
          "BertLMHeadModel_0/BertModel_0" in err, (rc, err[:300]))


def main():
    exe = os.path.abspath(sys.argv[1])
    every = ["--control-iteration", "all", "--test-iteration", "all"]
    rc, out, err = run(exe, "explain", C, TT, "aten::mmm", "-q", *every)
    check("explain aten::mmm (a typo): exit 1, one message", rc == 1 and out == "" and
          err.count("\n") == 1 and "no op named 'aten::mmm'" in err, (rc, out[:200], err))
    # the closest names, as edit distance over the ops of both sides orders them
    rc2, ops, _ = run(cases.expectation_exe(exe), "compare", C, TT, "--by", "op", "--format",
                      "csv", "-q", *every)
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
    by_module(exe)
    print("explain: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Durations and event selection on real traces (docs/numbers.md).

    durations_test.py TRACEDIFF

- info's per-category totals are compare's: computed here from the JSON by
  the documented rule (HTA's rounding of decimal timestamps, or with --ns
  the traces' own durations) for every shared trace set, and equal to the
  sum of compare's rows for every category all of whose events a compare of
  every iteration selects; info says which rule;
- the rounding note: on a trace pair with sub-us events, without --ns one
  note with the number of rows whose total rounding moved by more than 5%
  (checked against compare --ns) and of events it made negative (bounded by
  a count from the JSON); none with --ns or on whole-us traces; --ns and
  HTA_DISABLE_NS_ROUNDING=1 (exactly "1") give the same output;
- --ns with --hta-strict: both apply;
- --cat selects events: on a torch.compile trace whose Triton kernel has a
  cpu_op of the same name, --cat kernel keeps the kernel alone, --cat kernel
  --device cpu and --cat cpu_op --device gpu are empty (exit 0).

In the instrumented passes (TD_TEST_SUBSET=1) the per-category compares that
info's totals are checked against come from the plain build (tests/cases.py:
expectation_exe): info is the path under test there, one process per set and
rule instead of one per category as well.
"""
import csv, gzip, io, json, math, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as reference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACES = os.path.join(ROOT, "tests", "golden", "traces")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL durations {name}: {detail}"[:600])


def run(exe, *args, env=None):
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, **env) if env else None)
    return p.returncode, p.stdout, p.stderr


def rows(text):
    return {r["name"]: r for r in csv.DictReader(io.StringIO(text))}


_LOADED = {}


def load(path):
    """A trace file's events, read once per run (the callers only read them:
    each set is checked under both duration rules)."""
    if path not in _LOADED:
        _LOADED[path] = _load(path)
    return _LOADED[path]


def _load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def expected_categories(files, ns):
    """Per category: counted events and their total, by the documented rule.
    Returns None when a file uses something this reader does not (raw text
    features such as exponents it would treat differently)."""
    count, total = {}, {}
    for path in files:
        ev = load(path)
        # A file is rounded when some entry has a decimal ts or none at all
        # (json gives floats for decimal numbers).
        rounded = not ns and any(isinstance(e, dict) and (not num(e.get("ts")) or
                                                          isinstance(e.get("ts"), float))
                                 for e in ev)
        for e in ev:
            if not isinstance(e, dict) or "cat" not in e or "dur" not in e or e["cat"] == "Trace":
                continue
            if not isinstance(e["cat"], str) or not isinstance(e.get("name"), str) or \
                    not num(e["dur"]) or ("ts" in e and not num(e["ts"])):
                continue
            c = e["cat"]
            count[c] = count.get(c, 0) + 1
            d = e["dur"]
            if rounded:
                if not num(e.get("ts")):
                    continue
                d = math.floor(e["ts"] + d) - math.ceil(e["ts"])
            total[c] = total.get(c, 0.0) + d
    return count, total


def trace_sets():
    out = []
    for d in sorted(os.listdir(TRACES)):
        p = os.path.join(TRACES, d)
        if not os.path.isdir(p) or d == "profilers":
            continue
        subs = [os.path.join(p, s) for s in sorted(os.listdir(p))
                if os.path.isdir(os.path.join(p, s))]
        out += subs or [p]
    return out


def trace_files(s):
    return sorted(os.path.join(s, f) for f in os.listdir(s)
                  if f.endswith((".json", ".json.gz")))


def info_agrees(exe):
    compared = 0
    ref = reference.expectation_exe(exe)
    for s in trace_sets():
        files = trace_files(s)
        if not files:
            continue
        for ns in (False, True):
            rule = ["--ns"] if ns else []
            what = f"{os.path.relpath(s, TRACES)}{' --ns' if ns else ''}"
            rc, out, err = run(exe, "info", s, "--format", "json", *rule)
            if rc:
                check(f"info {what}", False, err)
                continue
            info = json.loads(out)
            check(f"info {what} says its rule", info["durations"] == ("ns" if ns else "hta-rounded"),
                  info["durations"])
            want_n, want_t = expected_categories(files, ns)
            check(f"info {what} counts", info["categories"] == want_n,
                  f"{info['categories']} != {want_n}")
            for c, t in want_t.items():
                check(f"info {what} {c} total", math.isclose(info["category_us"][c], t,
                                                             rel_tol=1e-9, abs_tol=1e-6),
                      f"{info['category_us'][c]} != {t}")
            for c, n in info["categories"].items():
                rc, out, err = run(ref, "compare", s, s, "--cat", c, "--control-iteration", "all",
                                   "--test-iteration", "all", "--control-rank", "all",
                                   "--test-rank", "all", "--format", "csv", "-q", *rule)
                r = rows(out).values()
                if rc or sum(int(x["control_counts"]) for x in r) != n:
                    continue  # some events of c fall in no iteration: compare leaves them out
                got = sum(float(x["control_total_duration"]) for x in r)
                compared += 1
                check(f"info = compare {what} --cat {c}",
                      math.isclose(got, info["category_us"][c], rel_tol=1e-9, abs_tol=1e-6),
                      f"compare {got}, info {info['category_us'][c]}")
    check("info = compare: enough categories compared", compared >= 40, compared)
    # The rules differ where they should: the Triton kernel of 1.76 us.
    t = os.path.join(TRACES, "hta-triton")
    a = json.loads(run(exe, "info", t, "--format", "json")[1])["category_us"]["kernel"]
    b = json.loads(run(exe, "info", t, "--format", "json", "--ns")[1])["category_us"]["kernel"]
    check("info kernel total: 1 rounded, 1.76 with --ns", (a, b) == (1, 1.76), (a, b))


def rounding_note(exe):
    c, t = os.path.join(TRACES, "tracelens-bert_h100"), os.path.join(TRACES, "tracelens-bert_mi300")
    rc, hta, err = run(exe, "compare", c, t, "--format", "csv")
    rc2, own, err2 = run(exe, "compare", c, t, "--format", "csv", "--ns")
    notes = [ln for ln in err.splitlines() if "rounding" in ln]
    check("rounding note: one, naming --ns", rc == 0 and len(notes) == 1 and "--ns" in notes[0],
          err)
    check("no rounding note with --ns", rc2 == 0 and "rounding" not in err2, err2)
    # Rows whose total of a side the rounding moved by more than 5%.
    a, b = rows(hta), rows(own)
    moved = 0
    for name, r in b.items():
        for col in ("control_total_duration", "test_total_duration"):
            x, y = float(a[name][col]), float(r[col])
            moved += x != y and abs(x - y) > 0.05 * abs(y)
    neg_file = 0
    for s in (c, t):
        for f in trace_files(s):
            for e in load(f):
                if isinstance(e, dict) and "dur" in e and num(e.get("ts")) and \
                        e.get("cat") not in (None, "Trace"):
                    neg_file += math.floor(e["ts"] + e["dur"]) - math.ceil(e["ts"]) < 0
    words = notes[0].split() if notes else []
    try:
        neg = int(words[words.index("made") + 1])
        got_moved = int(words[words.index("moved") + 1])
    except (ValueError, IndexError):
        neg = got_moved = -1
    check("rounding note: rows moved by > 5% as compare --ns shows them", got_moved == moved > 0,
          f"note {got_moved}, counted {moved}: {notes}")
    check("rounding note: negative durations, at most the files' own count",
          0 < neg <= neg_file, f"note {neg}, files {neg_file}")
    # HTA's switch, read as HTA reads it.
    for v, same in (("1", own), ("true", hta), ("0", hta), ("1 ", hta)):
        got = run(exe, "compare", c, t, "--format", "csv", "-q",
                  env={"HTA_DISABLE_NS_ROUNDING": v})[1]
        check(f"HTA_DISABLE_NS_ROUNDING={v!r}", got == same)
    # Whole-us traces: nothing to say.
    w = os.path.join(TRACES, "hta-trace_diff")
    rc, _, err = run(exe, "compare", os.path.join(w, "control"), os.path.join(w, "test"))
    check("no rounding note on whole-us traces", rc == 0 and "rounding" not in err, err)
    # The report carries the same note.
    rep = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"durations-{os.getpid()}.html")
    try:
        rc, _, err = run(exe, "report", c, t, "-o", rep, "-q")
        html = open(rep, encoding="utf-8").read() if rc == 0 else ""
        check("report notes the rounding", 'class="rounding"' in html and "--ns" in html, err)
    finally:
        if os.path.exists(rep):
            os.unlink(rep)


def ns_with_strict(exe):
    a = os.path.join(TRACES, "hta-amd")
    base = ["compare", a, a, "--format", "csv", "--control-iteration", "all",
            "--test-iteration", "all"]
    rc, both, err = run(exe, *base, "--ns", "--hta-strict")
    strict = rows(run(exe, *base, "--hta-strict", "-q")[1])
    own = rows(run(exe, *base, "--ns", "-q")[1])
    got = rows(both)
    check("--ns --hta-strict: runs, says stream-0 events are left out",
          rc == 0 and "--hta-strict" in err, err)
    check("--ns --hta-strict: the rows --hta-strict keeps", set(got) == set(strict) != set(own),
          (len(got), len(strict), len(own)))
    decimals = 0
    for name, r in got.items():
        n, d, ds = int(r["control_counts"]), float(r["control_total_duration"]), \
            float(strict[name]["control_total_duration"])
        ok = n == int(strict[name]["control_counts"]) and abs(d - ds) <= 2 * n
        decimals += d != math.floor(d)
        check(f"--ns --hta-strict {name[:40]}: strict's events, unrounded", ok, (r, strict[name]))
    check("--ns --hta-strict: durations keep their decimals", decimals > 0, decimals)


def cat_events(exe):
    t = os.path.join(TRACES, "hta-triton")
    kern = "triton_poi_fused_add_cos_sin_0"
    ev = [e for e in load(trace_files(t)[0]) if e.get("name") == kern]
    cats = sorted(e["cat"] for e in ev)
    check("the Triton kernel has a cpu_op of its name", cats == ["cpu_op", "kernel"], cats)
    k = next(e for e in ev if e["cat"] == "kernel")
    for rule, dur in (([], math.floor(k["ts"] + k["dur"]) - math.ceil(k["ts"])), (["--ns"], k["dur"])):
        rc, out, err = run(exe, "compare", t, t, "--cat", "kernel", "--format", "csv", "-q", *rule)
        r = rows(out)
        check(f"--cat kernel {rule}: the kernel alone",
              rc == 0 and list(r) == [kern] and r[kern]["control_counts"] == "1" and
              float(r[kern]["control_total_duration"]) == dur, (out, err))
    for sel in (["--cat", "kernel", "--device", "cpu"],):
        rc, out, err = run(exe, "compare", t, t, *sel, "--format", "csv")
        check(f"{' '.join(sel)}: empty, exit 0", rc == 0 and len(rows(out)) == 0, (out, err))
    rc, out, err = run(exe, "compare", t, t, "--cat", "cpu_op", "--device", "cpu", "--format",
                       "csv", "-q")
    check("--cat cpu_op --device cpu: no Triton row", rc == 0 and kern not in rows(out)
          and len(rows(out)) == 2, out)
    n = os.path.join(ROOT, "tests", "data", "noisy")
    rc, out, err = run(exe, "compare", os.path.join(n, "control"), os.path.join(n, "test"),
                       "--cat", "cpu_op", "--device", "gpu", "--format", "csv")
    check("--cat cpu_op --device gpu: empty, exit 0, no note",
          rc == 0 and len(rows(out)) == 0 and "kept whole" not in err, (out, err))
    rc, out, err = run(exe, "ops", os.path.join(n, "control"), os.path.join(n, "test"),
                       "--cat", "cpu_op", "--device", "gpu", "--format", "json")
    check("ops --cat cpu_op --device gpu: five empty lists",
          rc == 0 and all(v == [] for v in json.loads(out).values()), (out, err))


def main():
    exe = os.path.abspath(sys.argv[1])
    # The instrumented passes (TD_TEST_SUBSET=1) run the checks that reach
    # lines of src/ no other instrumented suite runs (the duration rule
    # from HTA's environment variable, --ns with --hta-strict); the totals
    # of every set under every rule, against this file's reading of the
    # JSON, are make test's (scripts/choose_subset.py unique-lines,
    # CONTRIBUTING.md "Sixth round").
    subset = reference.instrumented()
    if not subset:
        info_agrees(exe)
    rounding_note(exe)
    ns_with_strict(exe)
    if not subset:
        cat_events(exe)
    print(f"durations: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

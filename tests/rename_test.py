#!/usr/bin/env python3
"""--rename 'REGEX=REPLACEMENT' (docs/numbers.md, "Your own rules"), on real
traces, against an independent reading: the rows without the rules, renamed
here with Python's re and summed by the new name, must be the rows the
command gives with the rules.

    rename_test.py TRACEDIFF
"""
import csv, io, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
T = os.path.join(HERE, "golden", "traces")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL rename %s %s" % (name, str(detail)[:600]))


def run(exe, *args):
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def rows(text, key="name"):
    return {r[key]: r for r in csv.DictReader(io.StringIO(text))}


def py_repl(repl):
    """Our replacement syntax ($1, ${1}, $name, ${name}, $$) in Python's."""
    out, i = [], 0
    while i < len(repl):
        c = repl[i]
        if c == "\\":
            out.append("\\\\")
        elif c != "$":
            out.append(c)
        elif repl[i + 1] == "$":
            out.append("$")
            i += 1
        else:
            m = re.match(r"\{(\w+)\}|(\d+)|([A-Za-z_]\w*)", repl[i + 1:])
            out.append("\\g<%s>" % next(g for g in m.groups() if g))
            i += m.end()
        i += 1
    return "".join(out)


def expected(plain, rules, key="name"):
    """The rows of `plain` (CSV text, no rules) renamed by rules in order and
    summed: counts and durations per side, diff and category recomputed."""
    out = {}
    for name, r in rows(plain, key).items():
        for pat, repl in rules:
            name = re.sub(pat, py_repl(repl), name)
        e = out.setdefault(name, [0, 0.0, 0, 0.0])
        e[0] += int(r["control_counts"])
        e[1] += float(r["control_total_duration"])
        e[2] += int(r["test_counts"])
        e[3] += float(r["test_total_duration"])
    return out


def same_rows(name, got_text, want, key="name"):
    got = rows(got_text, key)
    ok = set(got) == set(want)
    bad = sorted(set(got) ^ set(want))[:5]
    for n, w in want.items():
        g = got.get(n)
        if not g:
            continue
        vals = [int(g["control_counts"]), float(g["control_total_duration"]),
                int(g["test_counts"]), float(g["test_total_duration"])]
        if vals[0] != w[0] or vals[2] != w[2] or abs(vals[1] - w[1]) > 1e-6 * max(1, abs(w[1])) \
                or abs(vals[3] - w[3]) > 1e-6 * max(1, abs(w[3])):
            ok = False
            bad.append((n, vals, w))
        cat = "+" if w[2] > w[0] else "-" if w[2] < w[0] else "="
        if key == "name" and g["counts_change_categories"] != cat:
            ok = False
            bad.append((n, "category", g["counts_change_categories"], cat))
    check(name, ok and len(got) > 0, bad[:5])
    return got


PAIRS = [("hta-trace_diff", os.path.join(T, "hta-trace_diff", "control"),
          os.path.join(T, "hta-trace_diff", "test")),
         ("resnet50", os.path.join(T, "kineto-resnet50_workers0"),
          os.path.join(T, "kineto-resnet50_workers4")),
         ("bert h100/mi300", os.path.join(T, "tracelens-bert_h100"),
          os.path.join(T, "tracelens-bert_mi300"))]

# Rules users write: one name for a family of kernels, a group kept, a
# named group, a rule that only matters after another, and a '=' in REGEX.
RULES = [
    [(r"^(ampere|volta|sm\d+)_sgemm_\w+$", "sgemm")],
    [(r"cutlass_80_tensorop_s1688gemm_(\d+)x(\d+)_\w+", "cutlass_gemm_$1x$2")],
    [(r"aten::(?P<op>\w+)_$", "aten::${op}")],
    [(r"Memcpy (\w+) \(.*\)", "Memcpy $1"), (r"Memcpy (HtoD|DtoH)", "Memcpy host")],
    [(r"(\w+)=(\w+)", "$2"), (r"void ", "")],
]


def rule_args(rules):
    out = []
    for pat, repl in rules:
        out += ["--rename", pat.replace("=", "\\=").replace("?P<", "?<") + "=" + repl]
    return out


def trend_lines(text):
    out = {}
    for r in csv.DictReader(io.StringIO(text)):
        e = out.setdefault(r["name"], {})
        e[r["run"]] = (int(r["counts"]), float(r["total_us"]))
    return out


def summed(lines, rules, fold_steps):
    """Lines of a trend without grouping, grouped here: rules, then the
    step folding (the only noise in these names), counts and totals added."""
    out = {}
    for name, runs in lines.items():
        for pat, repl in rules:
            name = re.sub(pat, py_repl(repl), name)
        if fold_steps:
            name = re.sub(r"^ProfilerStep#\d+$", "ProfilerStep#\u2026", name)
        e = out.setdefault(name, {})
        for run, (n, us) in runs.items():
            a = e.get(run, (0, 0.0))
            e[run] = (a[0] + n, a[1] + us)
    return out


def trend_cases(exe):
    """trend groups names as the comparing commands do: folded by default,
    --no-normalize-names, --rename, --short-names; lines made one add up."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        s = os.path.join(tmp, "h.tdsum")
        for run_name, side in (("a", "control"), ("b", "test")):
            rc, out, err = run(exe, "summarize", os.path.join(T, "hta-trace_diff", side), "-o", s,
                               "--run", run_name, "-q")
            check("summarize run %s" % run_name, rc == 0, err)
        rc, raw, err = run(exe, "trend", s, "--format", "csv", "--no-normalize-names", "-q")
        check("trend --no-normalize-names", rc == 0, err)
        raw = trend_lines(raw)
        check("trend --no-normalize-names keeps each step apart",
              sum(n.startswith("ProfilerStep#") for n in raw) >= 2, sorted(raw)[:5])
        rc, out, err = run(exe, "trend", s, "--format", "csv")
        got = trend_lines(out)
        want = summed(raw, [], True)
        check("trend folds by default: one step line, the sum of the steps",
              rc == 0 and got == want and "ProfilerStep#\u2026" in got,
              (err, sorted(set(got) ^ set(want))[:5]))
        check("trend says it grouped the names", "--no-normalize-names" in err, err)
        rules = [(r"^(ampere|volta)_sgemm_\w+$", "sgemm")]
        rc, out, err = run(exe, "trend", s, "--format", "csv", "-q", *rule_args(rules))
        got = trend_lines(out)
        check("trend --rename: lines renamed and added", rc == 0 and got == summed(raw, rules, True)
              and "sgemm" in got, err)
        rc, out, err = run(exe, "trend", s, "--format", "csv", "-q", "--names", "^sgemm$",
                           *rule_args(rules))
        check("trend --names searches the grouped name", rc == 0 and
              set(trend_lines(out)) == {"sgemm"}, out[:300])
        rc, out, err = run(exe, "trend", s, "--format", "csv", "-q", "--short-names",
                           "--no-normalize-names")
        check("trend --short-names: fewer lines, same total",
              rc == 0 and 0 < len(trend_lines(out)) < len(raw) and
              abs(sum(v["b"][1] for v in trend_lines(out).values() if "b" in v) -
                  sum(v["b"][1] for v in raw.values() if "b" in v)) < 1e-3, err)


def main():
    exe = sys.argv[1]
    for tag, c, t in PAIRS:
        rc, plain, err = run(exe, "compare", c, t, "--format", "csv", "-q")
        check("%s: compare" % tag, rc == 0, err)
        for i, rules in enumerate(RULES):
            rc, got, err = run(exe, "compare", c, t, "--format", "csv", "-q", *rule_args(rules))
            check("%s rules %d: exit 0" % (tag, i), rc == 0, err)
            same_rows("%s rules %d: rows as renamed and summed" % (tag, i), got,
                      expected(plain, rules))
        # --by op: the op rows, renamed
        rc, plain_op, err = run(exe, "compare", c, t, "--by", "op", "--format", "csv", "-q")
        rules = [(r"^aten::(add|mul|sub|div)_?$", "aten::arith")]
        rc, got, err = run(exe, "compare", c, t, "--by", "op", "--format", "csv", "-q",
                           *rule_args(rules))
        same_rows("%s --by op" % tag, got, expected(plain_op, rules, "op"), "op")

    c, t = PAIRS[0][1], PAIRS[0][2]
    # Before the built-in folding: a rule sees the raw step number, the
    # folding then sees what the rule left.
    rc, got, err = run(exe, "compare", c, t, "--format", "csv", "-q", "--normalize-names",
                       "--rename", r"ProfilerStep#(\d+)=step $1")
    names = set(rows(got))
    check("rules run before --normalize-names (the step number renamed, not folded)",
          any(re.fullmatch(r"step \d+", n) for n in names) and
          not any(n.startswith("ProfilerStep#") for n in names), sorted(names)[:5])
    # And before --short-names: the short name of the renamed name.
    rc, got, err = run(exe, "compare", c, t, "--format", "csv", "-q", "--short-names",
                       "--rename", r"^void (\w+)<.*$=$1_templated")
    check("rules run before --short-names", rc == 0 and
          any(n.endswith("_templated") for n in rows(got, "short_name")), err)

    # Statistics on renamed rows: mean x n is the row's total.
    rc, got, err = run(exe, "compare", c, t, "--stats", "--samples", "call", "--format", "csv",
                       "-q", "--rename", r"^(ampere|volta)_sgemm_\w+$=sgemm")
    r = rows(got).get("sgemm")
    check("--stats on a renamed row: control and test mean x n = total", r is not None and
          abs(float(r["test_mean"]) * int(r["test_n"]) - float(r["test_total_duration"])) < 1e-6
          and abs(float(r["control_mean"]) * int(r["control_n"])
                  - float(r["control_total_duration"])) < 1e-6, r)

    # check: the gate sees the renamed rows. Without the rule each volta
    # sgemm kernel (test only) is a "new" regression; with it they are one
    # row with both sides, never "new".
    def gate_rows(*extra):
        rc, out, err = run(exe, "check", c, t, "--format", "json", "-q", *extra)
        return rc, ({x["name"]: x for x in json.loads(out)["rows"]} if out.strip() else {}), err
    rc0, before, err0 = gate_rows()
    rc1, after, err1 = gate_rows("--rename", r"^(ampere|volta)_sgemm_\w+$=sgemm")
    check("check: volta sgemm kernels are new regressions without the rule",
          any(n.startswith("volta_sgemm") and r["verdict"] == "new" for n, r in before.items()),
          (rc0, err0, sorted(before)[:8]))
    check("check gates the renamed rows: no volta sgemm row, sgemm not new",
          rc1 in (0, 3) and not any(n.startswith("volta_sgemm") for n in after)
          and after.get("sgemm", {}).get("verdict") != "new", (rc1, err1, sorted(after)[:8]))

    # Usage errors: exit 2 before any trace is read (missing files named
    # after the option), each naming the rule.
    missing = ["/nonexistent/a", "/nonexistent/b"]
    for rule, words in [("noequals", "expected REGEX=REPLACEMENT"),
                        ("=x", "expected REGEX=REPLACEMENT"),
                        ("a(=b", "not a valid regular expression"),
                        ("foo=$3", "refers to $3"),
                        ("(?<x>a)=${y}", "refers to ${y}"),
                        ("x=a$", "not $$, $N"),
                        ("x=${1", "not $$, $N")]:
        rc, out, err = run(exe, "compare", *missing, "--rename", rule)
        check("bad rule %r: exit 2, named, before loading" % rule,
              rc == 2 and words in err and rule in err and "No such file" not in err, (rc, err))
    # $$ is a dollar; $10 is group 10
    rc, got, err = run(exe, "compare", c, t, "--format", "csv", "-q",
                       "--rename", r"^(a)(m)(p)(e)(r)(e)(_)(s)(g)(e)(m)(m).*$=$$$10$$")
    check("$$ is a dollar sign, $10 the tenth group", rc == 0 and "$e$" in rows(got), err)

    trend_cases(exe)
    print("rename: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

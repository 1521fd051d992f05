#!/usr/bin/env python3
"""Reference tests: every case of tests/golden/cases.json through the real CLI.

    golden_test.py TRACEDIFF CASES.json [--only SUBSTR] [--id ID] [-v] [--jobs-check]
                   [--loading] [--scanner] [--parallel N] [-j J]

For each case: `compare --format csv` is matched against ID.csv column by
column (rows by key, numbers as numbers); `ops --format json` against
ID.ops.json list by list; ID.error.txt cases must fail with exit 1 or 2 and
a one-line message naming what exists; ID.hta-refused.txt cases (HTA refuses,
the spec's whole-trace extension applies) must succeed, match ID.csv and say
so on stderr. ID.hta-extended.txt cases (HTA drops stream-0 GPU events, the
spec's documented rule keeps them) must match ID.csv; their HTA-exact twins
(`"hta_strict": true`) run with --hta-strict; cases marked `"ns": true` (HTA
with HTA_DISABLE_NS_ROUNDING=1) run with --ns. With --jobs-check, the first
case of each load key (tests/cases.py) and the subset's cases (every case
with TD_TEST_FULL=1) also run with -j 1 and -j 4, with every plain file mapped (TD_MAP_MIN=1) and with none mapped, and with
-j 2 and 3 with the files loaded by child processes (TD_PROCESSES=1) and by
threads only (TD_PROCESSES=0), and the outputs must be byte-identical (the
plain pass runs half of these ways per case, in turn over the cases that
read the same files, so that each set of files still sees every way;
TD_TEST_FULL=1 all of them per case); the instrumented passes (TD_TEST_SUBSET=1) run two of these ways per case, in
turn (each way on several of the subset's cases).
--loading keeps only the cases that check a way of loading (for the SIMD
levels of the scanner before --scanner). --scanner keeps the first of those
for each set of files read (the pair and the ranks asked for): what the
SIMD levels change is the JSON scanner's block index (src/read/json_index.c),
a function of the 64 bytes of each block and nothing else, and the scanner
(src/read/) never sees the duration rule (--hta-strict: src/compare,
src/model/selection.h) nor --ns (src/model/event_rows.c converts the numbers
it returns), nor any selection applied after loading; so the cases of one
file set scan the same bytes the same way (39 loading cases, 13 file sets;
every case with TD_TEST_FULL=1). -j J runs each case's compare and ops with -j J (the
split suite's instrumented pass: the cut files' numbers matched directly,
without --jobs-check's other ways). Under
TRACEDIFF_WRAP (valgrind), a report of the wrapper on stderr fails the case,
whichever process it came from.
"""
import concurrent.futures, csv, io, json, math, os, re, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as reference  # noqa: E402

COLS = ["control_counts", "control_total_duration", "test_counts", "test_total_duration",
        "diff_counts", "diff_duration"]


def selection(c):
    out = []
    for k in ("control_rank", "test_rank", "control_iteration", "test_iteration"):
        v = c.get(k)
        if v is None:
            continue
        out += ["--" + k.replace("_", "-"), ",".join(map(str, v)) if isinstance(v, list) else str(v)]
    out += ["--device", c.get("device", "all")]
    if c.get("short_names"):
        out.append("--short-names")
    if c.get("hta_strict"):
        out.append("--hta-strict")
    if c.get("ns"):
        out.append("--ns")
    return out


WRAP = os.environ.get("TRACEDIFF_WRAP", "").split()


def run(cmd, env=None):
    p = subprocess.run(WRAP + cmd, capture_output=True, timeout=600,
                       env=dict(os.environ, **env) if env else None)
    return p.returncode, p.stdout.decode("utf-8", "surrogateescape"), p.stderr.decode("utf-8", "replace")


def close(a, b):
    x, y = float(a), float(b)
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-6)


def compare_csv(text, path):
    exp = list(csv.DictReader(open(path, newline="", encoding="utf-8")))
    key = open(path, encoding="utf-8").readline().split(",")[0].strip()
    got = list(csv.DictReader(io.StringIO(text, newline="")))
    if got and key not in got[0]:
        return f"no column {key!r} in output"
    g = {r[key]: r for r in got}
    e = {r[key]: r for r in exp}
    if len(g) != len(got):
        return "duplicate keys in output"
    if set(g) != set(e):
        missing, extra = sorted(set(e) - set(g)), sorted(set(g) - set(e))
        return f"rows differ: missing {missing[:2]}, extra {extra[:2]}"
    for k, er in e.items():
        for col in COLS:
            if col not in g[k]:
                return f"no column {col!r}"
            if not close(g[k][col], er[col]):
                return f"{k[:60]!r} {col}: got {g[k][col]}, expected {er[col]}"
        if g[k]["counts_change_categories"] != er["counts_change_categories"]:
            return f"{k[:60]!r} counts_change_categories differs"
    return None


# The ways of loading --jobs-check runs: (-j, environment).
WAYS = [(j, {"TD_MAP_MIN": m} if m else {}) for j in ("1", "4") for m in (None, "1")]
WAYS += [("1", {"TD_MAP_MIN": str(1 << 62)})]
WAYS += [("2", {"TD_PROCESSES": p}) for p in ("0", "1")]
WAYS += [("3", {"TD_PROCESSES": "1", "TD_MAP_MIN": "1"})]


def ways_for(k, nth=0, of=1):
    """The ways of loading the k-th case that checks them runs, the nth of
    the of such cases that read its files (the pair and the ranks): all of
    them with TD_TEST_FULL=1 (make check-all); in the plain pass half of
    them in turn (the even ones, then the odd ones) over the cases of one
    set of files, all of them when the set has one such case, so that every
    way still runs on every set of files read (12 of the 13 sets have two
    cases or more); in the instrumented passes (TD_TEST_SUBSET=1) two in
    turn, so that over the subset each way runs on several cases of
    different files (each instrumented process costs about 0.2 s of CPU
    whatever it reads)."""
    if reference.full() or (reference.subset_ids() is None and of == 1):
        return WAYS
    if reference.subset_ids() is None:
        return WAYS[nth % 2::2]
    return [WAYS[k % len(WAYS)], WAYS[(k + len(WAYS) // 2) % len(WAYS)]]


def files_read(c):
    """What a case's loading reads: the pair and the ranks asked for."""
    return (c["control"], c["test"], str(c.get("control_rank")), str(c.get("test_rank")))


def check_case(exe, root, c, jobs_check, threads=None):
    base = os.path.join(root, c["id"])
    ctl, tst = os.path.join(root, c["control"]), os.path.join(root, c["test"])
    sel = selection(c) + (["-j", threads] if threads else [])
    rc, out, err = run([exe, "compare", ctl, tst] + sel + ["--format", "csv"])
    if WRAP and re.search(r"^==\d+== ", err, re.M):
        # a report of the wrapper (valgrind) from any process, child
        # processes loading files among them, whose exit status is not ours
        return "valgrind: " + err.strip()[:300]
    if os.path.exists(base + ".error.txt"):
        if rc not in (1, 2):
            return f"expected exit 1 or 2, got {rc}"
        lines = err.strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith("tracediff: "):
            return f"expected one error line, got {err!r}"
        if "no such" not in lines[0] or " has " not in lines[0]:
            return f"error does not say what exists: {lines[0]!r}"
        return None
    if rc != 0:
        return f"compare exit {rc}: {err.strip()[:200]}"
    problem = compare_csv(out, base + ".csv")
    if problem:
        return problem
    if os.path.exists(base + ".hta-refused.txt") and "no ProfilerStep" not in err:
        return "whole-trace comparison not announced on stderr"
    if jobs_check:
        # TD_MAP_MIN: files from 1 byte on mapped, or none (2^62 bytes);
        # TD_PROCESSES: files loaded by child processes whatever their size,
        # or by threads only
        for j, env in jobs_check:
            got = run([exe, "compare", ctl, tst] + sel + ["--format", "csv", "-j", j], env)[1]
            if got != out:
                how = " ".join(f"{k}={v}" for k, v in env.items())
                return f"-j {j} {how}: output differs"
    if os.path.exists(base + ".ops.json"):
        rc, out, err = run([exe, "ops", ctl, tst] + sel + ["--format", "json"])
        if rc != 0:
            return f"ops exit {rc}: {err.strip()[:200]}"
        return compare_ops(out, base + ".ops.json")
    return None


def compare_ops(text, path):
    """ops --format json's output against HTA's lists at path: None when
    they are the same, else what differs."""
    got = json.loads(text)
    exp = json.load(open(path, encoding="utf-8"))
    if set(got) != set(exp):
        return f"ops keys {sorted(got)}"
    for k in exp:
        if got[k] != sorted(got[k]):
            return f"ops list {k} is not sorted"
        if got[k] != exp[k]:
            return f"ops list {k} differs"
    return None


def main():
    args = [a for a in sys.argv[1:3] if not a.startswith("-")]
    flags = sys.argv[1:]
    only = flags[flags.index("--only") + 1] if "--only" in flags else None
    exact = flags[flags.index("--id") + 1] if "--id" in flags else None
    exe, cases_path = os.path.abspath(args[0]), args[1]
    root = os.path.dirname(os.path.abspath(cases_path))
    workers = int(flags[flags.index("--parallel") + 1]) if "--parallel" in flags else 1
    cases = [c for c in reference.load(cases_path)
             if (not only or only in c["id"]) and (not exact or exact == c["id"])]
    if "--loading" in flags and not reference.full():
        # only the cases that check a way of loading (tests/cases.py)
        keep = reference.loading_representatives(cases)
        cases = [c for c in cases if c["id"] in keep]
    if "--scanner" in flags and not reference.full():
        # one case per set of files read: the scanner sees bytes, not options
        seen = set()
        for c in cases:
            files = (c["control"], c["test"], str(c.get("control_rank")), str(c.get("test_rank")))
            c["_scan_first"] = files not in seen
            seen.add(files)
        cases = [c for c in cases if c.pop("_scan_first")]
    # The ways of loading depend on the files read, not on the selection made
    # after: they run on one case per load key and on the subset
    # (TD_TEST_FULL=1, as make check-all sets it: on every case).
    ways_on = {c["id"] for c in cases} if reference.full() \
        else reference.loading_representatives(cases)
    jobs = "--jobs-check" in flags
    threads = flags[flags.index("-j") + 1] if "-j" in flags else None
    ways, nth, of = {}, {}, {}
    for c in cases:
        if c["id"] in ways_on:
            f = files_read(c)
            nth[c["id"]] = of.get(f, 0)
            of[f] = of.get(f, 0) + 1
    for k, c in enumerate(c for c in cases if c["id"] in ways_on):
        ways[c["id"]] = ways_for(k, nth[c["id"]], of[files_read(c)])
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda c: check_case(
            exe, root, c, ways[c["id"]] if jobs and c["id"] in ways_on else None,
            threads), cases))
    passed = failed = 0
    for c, problem in zip(cases, results):
        if problem:
            failed += 1
            print(f"FAIL golden {c['id']}: {problem}")
        else:
            passed += 1
            if "-v" in flags:
                print(f"ok   golden {c['id']}")
    print(f"golden: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

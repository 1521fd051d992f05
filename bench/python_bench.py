#!/usr/bin/env python3
"""TraceDiff.compare_traces from Python against the CLI on the same pair.

    python_bench.py --bin build/tracediff --pydir build/python [--runs N]
                    [--scaled-mb M] [--out bench/out]
    python_bench.py --x4 [--runs N] [--out bench/out]

--x4: the benchmark's 4x plain pair (gen_trace.py --scale 4 of the same
pair, as run_bench.py makes it), and CPU seconds (user + system, the
process's own and its children's) rather than wall time: the median of
`tracediff compare C T --format csv` against TraceDiff.compare_traces(C, T),
tracediff.breakdown(C, T) against `tracediff breakdown C T --format json`,
ops_diff against `ops --format json`, explain(C, T, "aten::mm") against
`explain ... --format json` and roofline(C, T) (with and without stats)
against `roofline [--stats] --format json`, and their ratios (the goal: at
most 1.2).

Pairs: the largest bundled one (tests/golden/traces/hta-trace_diff) and, with
--scaled-mb M (default 300; 0 = none), that pair scaled by gen_trace.py to
about M MB of JSON per side (plain files in OUT/py-inputs/, kept between
runs). For each pair: the median wall time of `tracediff compare C T --format
csv` (a whole process) and of compare_traces(C, T) in a running interpreter
(reading both sets and building the DataFrame), and their ratio. Runs under
an interpreter with pandas (make python-bench picks it).
"""
import argparse, os, resource, statistics, subprocess, sys, time, warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def scaled_pair(out, mb):
    src = os.path.join(ROOT, "tests/golden/traces/hta-trace_diff")
    dirs = []
    for side in ("control", "test"):
        d = os.path.join(out, "py-inputs", f"{side}-{mb}mb")
        f = os.path.join(d, f"{side}.json")
        if not os.path.exists(f):
            os.makedirs(d, exist_ok=True)
            subprocess.run([sys.executable, os.path.join(ROOT, "bench/gen_trace.py"),
                            "--input", os.path.join(src, side, f"{side}.json.gz"),
                            "--target-mb", str(mb), "--out", f + ".tmp"], check=True)
            os.replace(f + ".tmp", f)
        dirs.append(d)
    return dirs


def median_cpu(fn, runs, children):
    """Median CPU seconds of fn: this process's (children=False) or its
    waited-for children's (children=True)."""
    who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF
    times = []
    for _ in range(runs):
        r0 = resource.getrusage(who)
        fn()
        r1 = resource.getrusage(who)
        times.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return statistics.median(times)


def x4_pair(out):
    src = os.path.join(ROOT, "tests/golden/traces/hta-trace_diff")
    dirs = []
    for side in ("control", "test"):
        d = os.path.join(out, "py-inputs", f"{side}-x4")
        f = os.path.join(d, f"{side}-x4.json")
        if not os.path.exists(f):
            os.makedirs(d, exist_ok=True)
            subprocess.run([sys.executable, os.path.join(ROOT, "bench/gen_trace.py"),
                            "--input", os.path.join(src, side, f"{side}.json.gz"),
                            "--scale", "4", "--out", f + ".tmp"], check=True)
            os.replace(f + ".tmp", f)
        dirs.append(d)
    return dirs


def bench_x4(a):
    import tracediff
    from tracediff import TraceDiff
    c, t = x4_pair(a.out)
    cases = [("compare_traces / compare --format csv",
              ["compare", c, t, "--format", "csv"], lambda: TraceDiff.compare_traces(c, t)),
             ("breakdown / breakdown --format json",
              ["breakdown", c, t, "--format", "json"], lambda: tracediff.breakdown(c, t)),
             ("ops_diff / ops --format json",
              ["ops", c, t, "--format", "json"], lambda: TraceDiff.ops_diff(c, t)),
             ("explain / explain aten::mm --format json",
              ["explain", c, t, "aten::mm", "--format", "json"],
              lambda: tracediff.explain(c, t, "aten::mm")),
             ("roofline / roofline --format json",
              ["roofline", c, t, "--format", "json"], lambda: tracediff.roofline(c, t)),
             ("roofline(stats=True) / roofline --stats --format json",
              ["roofline", c, t, "--stats", "--format", "json"],
              lambda: tracediff.roofline(c, t, stats=True))]
    print("| 4x plain pair (CPU s, median of %d) | CLI | Python | ratio (goal <= 1.2) |" % a.runs)
    print("|---|---|---|---|")
    for name, args, py in cases:
        def cli():
            subprocess.run([a.bin, *args], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        cli(), py()  # warm the page cache
        tc, tp = median_cpu(cli, a.runs, True), median_cpu(py, a.runs, False)
        print(f"| {name} | {tc:.3f} | {tp:.3f} | {tp / tc:.2f} |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/tracediff")
    ap.add_argument("--pydir", default="build/python")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--scaled-mb", type=int, default=300)
    ap.add_argument("--out", default="bench/out")
    ap.add_argument("--x4", action="store_true")
    a = ap.parse_args()
    sys.path.insert(0, a.pydir)
    if a.x4:
        warnings.simplefilter("ignore")
        bench_x4(a)
        return
    from tracediff import TraceDiff
    warnings.simplefilter("ignore")
    base = os.path.join(ROOT, "tests/golden/traces/hta-trace_diff")
    pairs = [("hta-trace_diff (bundled, 3.3 MB gz)", os.path.join(base, "control"),
              os.path.join(base, "test"))]
    if a.scaled_mb:
        c, t = scaled_pair(a.out, a.scaled_mb)
        pairs.append((f"hta-trace_diff scaled to {a.scaled_mb} MB/side", c, t))
    print("| pair | CLI (s) | Python compare_traces (s) | ratio |")
    print("|---|---|---|---|")
    for name, c, t in pairs:
        def cli():
            subprocess.run([a.bin, "compare", c, t, "--format", "csv"], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def py():
            TraceDiff.compare_traces(c, t)
        cli(), py()  # warm the page cache
        tc, tp = median_time(cli, a.runs), median_time(py, a.runs)
        print(f"| {name} | {tc:.3f} | {tp:.3f} | {tp / tc:.2f} |", flush=True)


if __name__ == "__main__":
    main()

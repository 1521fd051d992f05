#!/usr/bin/env python3
"""Runs every test suite against one build, several at a time.

    run_all.py [BUILD] [-j N] [--only NAME,...]

A suite is the unit-test binary, a tests/*_test.py script (given the CLI) or
a tests/*_test.sh script (given the build directory). Suites are independent
(each keeps its files in a temporary directory of its own), so N of them run
at once, N from -j, else TD_TEST_JOBS, else the number of CPUs; the longest
start first. Each suite prints its own closing line "<suite>: N passed, N
failed"; this prints one line per suite with that result, its wall time and
its CPU time (user + system, the suite's own processes and their children), a
failing suite's whole output, and one closing line "N passed, N failed" over
all of them.
"""
import concurrent.futures, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402  (instrumented(): TD_TEST_SUBSET)
import suite_main  # noqa: E402  (TUNED: the suites' interpreter)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The slowest suites, slowest first: they start first, so that the short ones
# fill the gaps at the end instead of one long suite running alone. The
# order of each pass from its CPU seconds per suite in the last quiet
# .ci/run (CONTRIBUTING.md, "Times"); the instrumented pass's
# (TD_TEST_SUBSET=1) differs: under ASan the cost is per process.
LONG = ["mpi", "summary", "python", "summary_stacks", "stacks", "summary_corrupt", "pip",
        "stats_by", "golden", "durations", "chart", "breakdown", "split", "gate", "stats",
        "simd_levels", "tree", "roofline", "profilers", "summary_writers", "attribution", "unit"]
LONG_SUBSET = ["summary_stacks", "mpi", "python", "summary", "stacks", "gate", "tree", "fuzz_replay",
               "profilers", "breakdown", "split", "golden", "chart",
               "summary_writers", "unit"]
RESULT = re.compile(r"(?:^|[^0-9])([0-9]+) passed, ([0-9]+) failed")


# Suites that check packaging and layout: the instrumented passes
# (TD_TEST_SUBSET=1, make sanitize) leave them to the plain pass, as they run
# no library code that the other suites do not (line coverage per suite:
# scripts/choose_subset.py measure, CONTRIBUTING.md).
NOT_INSTRUMENTED = {"pip", "install", "layout", "header"}


# The suites that run with LeakSanitizer off in the sanitizer pass
# (TD_LEAKS=some, make sanitize): the loops that run the same code paths
# many times over, where each process would pay LeakSanitizer's scan at exit
# (about a quarter of an instrumented process's CPU) to check paths that the
# suites left on check already: unit, bad_input, fuzz_replay, cli,
# summary_corrupt, truncate, output_safety, golden (the subset of reference
# cases) and commands (every command in every output format). mpi and
# python turn it off themselves (Open MPI's and Python's own allocations).
# TD_LEAKS=all (make check-all) checks every suite.
LEAKS_OFF = {"mpi", "summary", "split", "durations", "chart", "gate", "stats_by", "roofline", "tree",
             "breakdown", "stats", "stacks", "simd_levels", "summary_writers", "summary_stacks",
             "python"}
LEAKS_OFF.add("mpi_stacks")  # tracediff-mpi with stacks and shapes (Open MPI's allocations)


def suite_env(name, cmd):
    """The environment of one suite: its own coverage counters when
    scripts/choose_subset.py measures, LeakSanitizer off for the loops of
    LEAKS_OFF when TD_LEAKS=some (the last ASAN_OPTIONS setting wins), a
    Python suite's interpreter tuned (suite_main.py) unless the caller set
    those variables."""
    env = None
    if cmd[0] == sys.executable:
        env = suite_main.tuned_env(os.environ)
    if os.environ.get("TD_COV_DIR"):  # scripts/choose_subset.py: each suite's own counters
        env = dict(env or os.environ, GCOV_PREFIX=os.path.join(os.environ["TD_COV_DIR"], name))
    if os.environ.get("TD_LEAKS") == "some" and name in LEAKS_OFF:
        env = dict(env or os.environ)
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    return env


def suites(build):
    out = []
    if os.path.exists(os.path.join(build, "unit_tests")):
        out.append(("unit", [os.path.join(build, "unit_tests")]))
    tdir = os.path.join(ROOT, "tests")
    for f in sorted(os.listdir(tdir)):
        path = os.path.join("tests", f)
        if f.endswith("_test.py"):
            cmd = [sys.executable, os.path.join("tests", "suite_main.py"), path,
                   os.path.join(build, "tracediff")]
            if f == "golden_test.py":
                cmd += ["tests/golden/cases.json", "--jobs-check"]
            out.append((f[:-8], cmd))
        elif f.endswith("_test.sh"):
            out.append((f[:-8], ["sh", path, build]))
    if cases.instrumented():
        out = [s for s in out if s[0] not in NOT_INSTRUMENTED]
    order = LONG_SUBSET if cases.instrumented() else LONG
    rank = {n: i for i, n in enumerate(order)}
    return sorted(out, key=lambda s: (rank.get(s[0], len(order)), s[0]))


def run(name, cmd):
    """Runs one suite: its name, exit status, counts, wall and CPU seconds
    (user + system of the suite and everything it started: on a busy
    machine the CPU time still says what the suite costs) and output."""
    t0 = time.monotonic()
    env = suite_env(name, cmd)
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, env=env)
        _, status, use = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        took = time.monotonic() - t0
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    cpu = use.ru_utime + use.ru_stime
    found = RESULT.findall(text)
    if found:
        passed, failed = int(found[-1][0]), int(found[-1][1])
    else:
        passed, failed = 0, 1
        text += "\n(suite printed no result line)"
    if p.returncode != 0 and failed == 0:
        failed = 1
    return name, p.returncode, passed, failed, took, cpu, text


def main():
    args = sys.argv[1:]
    jobs = int(os.environ.get("TD_TEST_JOBS") or os.cpu_count() or 1)
    only = None
    if "-j" in args:
        i = args.index("-j")
        jobs = int(args[i + 1])
        del args[i:i + 2]
    if "--only" in args:
        i = args.index("--only")
        only = set(args[i + 1].split(","))
        del args[i:i + 2]
    build = args[0] if args else "build"
    todo = [s for s in suites(build) if only is None or s[0] in only]
    t0 = time.monotonic()
    total_p = total_f = 0
    total_cpu = 0.0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(run, n, c) for n, c in todo]
        for fut in concurrent.futures.as_completed(futures):
            name, rc, passed, failed, took, cpu, text = fut.result()
            total_p += passed
            total_f += failed
            total_cpu += cpu
            if failed:
                sys.stdout.write(text if text.endswith("\n") else text + "\n")
            print("%-15s %6.1f s  %6.1f s CPU  %d passed, %d failed%s"
                  % (name, took, cpu, passed, failed, "" if rc == 0 else "  (exit %d)" % rc),
                  flush=True)
    print("%-15s %6.1f s  %6.1f s CPU  (%d suites, %d at a time)"
          % ("all", time.monotonic() - t0, total_cpu, len(todo), jobs))
    print()
    print("%d passed, %d failed" % (total_p, total_f))
    return 0 if total_f == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

"""The reference cases of tests/golden/cases.json: all of them, or the subset.

Every suite that walks the reference cases (golden, split, SIMD levels,
summaries, MPI, Python, charts) reads them through load(). With
TD_TEST_SUBSET=1 in the environment, as `make sanitize` and `make valgrind`
set it, only the cases named in tests/subset/golden.txt are kept: a fixed
subset chosen by line coverage (scripts/choose_subset.py; the numbers are in
CONTRIBUTING.md). The plain `make test` and `make check-all` run them all.
"""
import gc
import json
import os
import shutil
import sys

# The suites parse traces of tens of MB into Python objects and keep them
# while they run, and Python's cycle collector walked every one of those
# objects again each time its oldest generation grew by a quarter: a 35 MB
# trace parses in 0.7 s with it off and 1.8 s with it on once one such trace
# is held; stacks_test took 36 s of CPU with it, 23 s without. The suites
# make no cyclic garbage worth the walks (reference counting frees the
# rest), so the collector is off in every suite that imports this module;
# gc.collect() still collects where a suite asks for it.
gc.disable()

HERE = os.path.dirname(os.path.abspath(__file__))
SUBSET_FILE = os.path.join(HERE, "subset", "golden.txt")


def instrumented():
    """TD_TEST_SUBSET=1: an instrumented pass (make sanitize, make valgrind),
    where the suites run the parts of their checks chosen for it."""
    return os.environ.get("TD_TEST_SUBSET", "") not in ("", "0")


def subset_ids():
    """The case ids of the subset, or None when every case runs."""
    if not instrumented():
        return None
    return subset_ids_always()


def full():
    """TD_TEST_FULL=1 (make check-all): every way on every case, where the
    plain pass runs the ways that depend on loading on one case per load
    key only."""
    return os.environ.get("TD_TEST_FULL", "") == "1"


def load_key(c):
    """What decides how a case's files are read: the pair, the ranks asked
    for (which files open) and the duration rule. Selections of iterations,
    devices and names apply after loading, so cases that share a key read
    the same events the same way."""
    return (c["control"], c["test"], str(c.get("control_rank")), str(c.get("test_rank")),
            bool(c.get("hta_strict")), bool(c.get("ns")))


def loading_representatives(cases):
    """The ids of the cases that check the ways of loading (-j, mapped or
    read files, threads or child processes): the first case of each load
    key, and every case of the subset."""
    seen, out = set(), set()
    sub = subset_ids_always()
    for c in cases:
        if load_key(c) not in seen or c["id"] in sub:
            seen.add(load_key(c))
            out.add(c["id"])
    return out


def subset_ids_always():
    with open(SUBSET_FILE, encoding="utf-8") as f:
        return {ln.split("#")[0].strip() for ln in f if ln.split("#")[0].strip()}


def load(path):
    """The cases of the cases.json at path, filtered by the subset when on.

    A subset id that no case has is an error: a renamed case must not
    silently drop out of the instrumented passes."""
    with open(path, encoding="utf-8") as f:
        cases = json.load(f)
    ids = subset_ids()
    if ids is None:
        return cases
    missing = ids - {c["id"] for c in cases}
    if missing:
        raise SystemExit("tests/subset/golden.txt names cases that %s lacks: %s"
                         % (path, sorted(missing)[:5]))
    return [c for c in cases if c["id"] in ids]


def expectation_exe(exe):
    """The binary that computes a suite's expected outputs where the suite
    checks one path against another (summaries, MPI, split loading against
    plain traces): TD_PLAIN_EXE when the instrumented passes name the plain
    build there, else exe itself. The path under test still runs
    instrumented; its expectation, the plain CLI on traces, is what
    `make test` checks already, and under ASan each of those processes
    costs about 0.15 s of CPU to start and end."""
    plain = os.environ.get("TD_PLAIN_EXE", "")
    return plain if plain and os.access(plain, os.X_OK) else exe


class Checks:
    """A suite's checks: check(name, ok, detail) counts one and prints "ok
    NAME" or "FAIL NAME DETAIL"; finish() prints the closing line "<suite>: N
    passed, N failed" that tests/run_all.py reads and gives the exit status.
    The runner lines the suites that check named outcomes share."""

    def __init__(self, suite):
        self.suite = suite
        self.passed = self.failed = 0

    def __call__(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print("ok   %s" % name)
        else:
            self.failed += 1
            print("FAIL %s %s" % (name, detail))
        sys.stdout.flush()

    def finish(self):
        print("%s: %d passed, %d failed" % (self.suite, self.passed, self.failed))
        return 1 if self.failed else 0


def mpi_or_skip(checks, exe):
    """tracediff-mpi beside exe, ready for mpirun, or None when the suite is
    skipped: without mpirun or tracediff-mpi it prints "<suite>: skipped:
    why"; in CI (CI set in the environment, which installs Open MPI) that
    counts as a failure in checks. The caller then returns checks.finish().

    Under the sanitizer build LeakSanitizer is turned off for the suite:
    Open MPI's plugins are dlopened and unloaded before exit, so it cannot
    even name their allocations (make valgrind-mpi checks our code with
    Open MPI suppressed); ASan's and UBSan's other checks stay on. The last
    ASAN_OPTIONS setting wins."""
    mpi = os.path.join(os.path.dirname(exe), "tracediff-mpi")
    if "asan" in os.path.basename(os.path.dirname(exe)):
        os.environ["ASAN_OPTIONS"] = os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
    if shutil.which("mpirun") and os.path.exists(mpi):
        return mpi
    why = "no mpirun" if not shutil.which("mpirun") else "no %s (no mpicc at build time)" % mpi
    in_ci = bool(os.environ.get("CI"))
    print("%s: skipped: %s%s" % (checks.suite, why,
                                 " (CI installs Open MPI: a failure)" if in_ci else ""))
    if in_ci:
        checks.failed += 1
    return None


# ---- one process per distinct command --------------------------------------

_RUNS = {}
RUN_STATS = {"ran": 0, "reused": 0}


_FIXED = tuple(os.path.join(os.path.dirname(HERE), d) + os.sep
               for d in ("tests/golden", "examples"))


def _file_key(path, st):
    """A file's size and modification time, and its bytes' digest unless it
    is one of the repository's reference traces, never rewritten, or big
    (a file rewritten with the same size within the clock's granularity
    keeps its time: the suites rewrite small files in place, and write
    their big ones, decompressed copies and generated traces, once each)."""
    if os.path.abspath(path).startswith(_FIXED) or st.st_size > (8 << 20):
        return (st.st_size, st.st_mtime_ns)
    import hashlib
    try:
        with open(path, "rb") as f:
            return (st.st_size, st.st_mtime_ns, hashlib.sha1(f.read()).hexdigest())
    except OSError:
        return (st.st_size, st.st_mtime_ns)


class _NotAFile(Exception):
    """An argument names a FIFO or a device: its command always runs."""


def _input_key(arg, cwd=None):
    """What an argument that names a file or folder holds, as far as a
    rewrite within the run would show: _file_key of the file, or of each
    entry of the folder."""
    path = os.path.join(cwd or ".", arg.split("#", 1)[0])
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    import stat
    if stat.S_ISREG(st.st_mode):
        return _file_key(path, st)
    if not stat.S_ISDIR(st.st_mode):
        raise _NotAFile(path)
    out = [st.st_mtime_ns]
    for e in sorted(os.scandir(path), key=lambda e: e.name):
        try:
            s = e.stat()
            if e.is_file():
                out.append((e.name, _file_key(e.path, s)))
            elif not e.is_dir():
                raise _NotAFile(e.path)
        except OSError:
            pass
    return tuple(out)


def run_once(argv, cwd=None, env=None, timeout=600):
    """subprocess.run(argv, capture_output=True) once per distinct command
    within this run: the same argv, folder, environment and inputs (each
    argument that names a file or folder, by size and modification time)
    give the CompletedProcess of the first run. A command that writes a
    file (-o, --output, --junit) or reads a FIFO or device always runs.
    The memo lives in this process only: nothing is kept between runs.
    The callers only read the result."""
    argv = [str(a) for a in argv]
    writes = any(a == "-o" or a.startswith(("--output", "-o", "--junit")) for a in argv[1:])
    key = None
    if not writes:
        try:
            key = (tuple(argv), cwd, tuple(sorted((env or os.environ).items())),
                   tuple(_input_key(a, cwd) for a in argv[1:]))
        except _NotAFile:
            key = None
        if key is not None and key in _RUNS:
            RUN_STATS["reused"] += 1
            return _RUNS[key]
    import subprocess
    p = subprocess.run(argv, capture_output=True, cwd=cwd, env=env, timeout=timeout)
    RUN_STATS["ran"] += 1
    if key is not None:
        _RUNS[key] = p
    return p


# ---- per-suite subsets of the instrumented passes --------------------------

def suite_subset(suite):
    """The names in tests/subset/<suite>.txt (a coverage-chosen subset of the
    suite's cases: scripts/choose_subset.py choose-suite) when TD_TEST_SUBSET
    is on, as make sanitize sets it; None when every case runs (the plain
    pass, make check-all). A listed name that the suite lacks is an error,
    as in load(): a renamed case must not silently drop out."""
    if not instrumented():
        return None
    path = os.path.join(HERE, "subset", suite + ".txt")
    with open(path, encoding="utf-8") as f:
        return {ln.split("#")[0].strip() for ln in f if ln.split("#")[0].strip()}


def suite_keep(suite, names):
    """names (a suite's case names, in order) filtered by suite_subset."""
    ids = suite_subset(suite)
    if ids is None:
        return list(names)
    missing = ids - set(names)
    if missing:
        raise SystemExit("tests/subset/%s.txt names cases that the suite lacks: %s"
                         % (suite, sorted(missing)[:5]))
    return [n for n in names if n in ids]

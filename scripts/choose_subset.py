#!/usr/bin/env python3
"""Chooses and measures the reference-case subset of the instrumented passes.

    choose_subset.py choose  [BUILD] [--fresh]   write tests/subset/golden.txt
    choose_subset.py measure [BUILD]   line coverage of the whole suite, every
                                       case vs the subset, per folder of src/

BUILD (default build-cov) is made by `make coverage-build`: the plain build
with gcc's --coverage. Each run writes its counters under a directory of its
own (GCOV_PREFIX), so runs never mix; gcov's JSON output gives the lines run.

choose: every reference case runs alone through golden_test.py;
the subset is then picked greedily: first the case that exercises most
option values not yet exercised (each device, selection kind of either side,
--short-names, --hta-strict, --ns, error and HTA-refused cases), then the
case adding the most lines not yet covered, until the subset covers every
line that all the cases together cover and every option value they use.

choose-mpi [BUILD], choose-python [BUILD]: the same for the jobs of
tests/mpi_test.py (its tracediff-mpi command lines, the 64-rank ones and
those on real traces) and the checks of tests/python_test.py (its functions
and the subset's reference cases): each runs alone on BUILD, the expected
side from the plain build (build/tracediff) as make sanitize runs them, and
the fewest that run every line of src/ (and, for Python, of the module's
python/_tracediff.c) that all of them run, with every command and process
count (MPI), then without the costliest of those whose lines the others
run but for at most 0.02 points of a folder of src/ (none of python/),
make tests/subset/mpi.txt or python.txt: what those suites run under
TD_TEST_SUBSET=1. The cost of each run breaks ties (the cheaper first);
each run's lines and cost are kept in BUILD (--fresh: all run again).

unique-lines [BUILD] [--only a,b]: the instrumented pass with counters per
suite, each suite's lines and those only it runs (what lets a suite leave
checks to make test); with --only, those suites again against the last
whole run, and the lines the pass lost (exit 1 if any).

measure: tests/run_all.sh twice, side by side, without and with TD_TEST_SUBSET=1 (and
TD_PLAIN_EXE=build/tracediff, as make sanitize sets it), and the line
coverage of src/ per folder for both (the table in CONTRIBUTING.md).
"""
import collections, concurrent.futures, glob, json, os, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "tests", "golden", "cases.json")
SUBSET = os.path.join(ROOT, "tests", "subset", "golden.txt")


def cov_env(prefix):
    strip = len([p for p in ROOT.split(os.sep) if p])
    return dict(os.environ, GCOV_PREFIX=prefix, GCOV_PREFIX_STRIP=str(strip))


def lines_run(build, prefix, dirs=("src/",)):
    """{(source file, line)} run in the counters under prefix, in the
    folders dirs."""
    objdir = os.path.join(prefix, build)
    if not os.path.isdir(objdir):
        return set()
    # gcov wants the notes file beside the counters.
    for gcno in glob.glob(os.path.join(ROOT, build, "**", "*.gcno"), recursive=True):
        rel = os.path.relpath(gcno, ROOT)
        dst = os.path.join(prefix, rel)
        if os.path.exists(dst[:-5] + ".gcda") and not os.path.exists(dst):
            os.symlink(gcno, dst)
    out = set()
    gcdas = glob.glob(os.path.join(objdir, "**", "*.gcda"), recursive=True)
    for i in range(0, len(gcdas), 40):
        p = subprocess.run(["gcov", "--json-format", "--stdout"] + gcdas[i:i + 40],
                           capture_output=True, text=True, cwd=prefix)
        for doc in p.stdout.splitlines():
            if not doc.strip():
                continue
            for f in json.loads(doc)["files"]:
                name = os.path.relpath(os.path.join(ROOT, f["file"]), ROOT) \
                    if not os.path.isabs(f["file"]) else os.path.relpath(f["file"], ROOT)
                if not name.startswith(dirs):
                    continue
                for ln in f["lines"]:
                    if ln["count"] > 0:
                        out.add((name, ln["line_number"]))
    return out


def all_lines(build):
    """{(source file, line)} that can run at all: every line with code."""
    tmp = tempfile.mkdtemp(prefix="td-cov-all.")
    out = {}
    gcnos = glob.glob(os.path.join(ROOT, build, "src", "**", "*.gcno"), recursive=True)
    p = subprocess.run(["gcov", "--json-format", "--stdout"] + gcnos,
                       capture_output=True, text=True, cwd=tmp)
    for doc in p.stdout.splitlines():
        if not doc.strip():
            continue
        for f in json.loads(doc)["files"]:
            name = os.path.relpath(os.path.join(ROOT, f["file"]), ROOT)
            if name.startswith("src/"):
                out.setdefault(name, set()).update(ln["line_number"] for ln in f["lines"])
    shutil.rmtree(tmp)
    return {(f, n) for f, ls in out.items() for n in ls}


def traits(c):
    """What a case exercises besides its lines: each value of each option."""
    out = {("device", c.get("device", "all"))}
    for side in ("control", "test"):
        it = c.get(side + "_iteration")
        out.add((side + "_iteration", "list" if isinstance(it, list) else str(it)))
        rk = c.get(side + "_rank")
        out.add((side + "_rank", "list" if isinstance(rk, list) else str(rk is not None)))
    for flag in ("short_names", "hta_strict", "ns"):
        out.add((flag, bool(c.get(flag))))
    base = os.path.join(ROOT, "tests", "golden", c["id"])
    for mark in (".error.txt", ".hta-refused.txt", ".hta-extended.txt"):
        out.add((mark, os.path.exists(base + mark)))
    return out


def per_case(build, case):
    prefix = tempfile.mkdtemp(prefix="td-cov-case.")
    exe = os.path.join(ROOT, build, "tracediff")
    # without --jobs-check: the ways of loading (threads, processes, maps)
    # do not depend on the case, and every case of the subset runs them
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "golden_test.py"), exe, CASES,
                    "--id", case["id"]], env=cov_env(prefix), capture_output=True)
    got = lines_run(build, prefix)
    shutil.rmtree(prefix)
    return got


def choose(build, fresh):
    """Each case's lines are kept in BUILD/case-lines.json: a rerun after cases
    were added runs only the new ones (--fresh: all again, after code moved)."""
    cases = json.load(open(CASES))
    cache_path = os.path.join(ROOT, build, "case-lines.json")
    cover = {}
    if not fresh and os.path.exists(cache_path):
        cover = {k: {tuple(x) for x in v} for k, v in json.load(open(cache_path)).items()}
    todo = [c for c in cases if c["id"] not in cover]

    def one(c):
        got = per_case(build, c)
        print("%s: %d lines" % (c["id"], len(got)), file=sys.stderr, flush=True)
        return c["id"], got

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        cover.update(pool.map(one, todo))
    with open(cache_path, "w") as f:
        json.dump({k: sorted(v) for k, v in cover.items()}, f)
    cover = {c["id"]: cover[c["id"]] for c in cases}
    by_id = {c["id"]: c for c in cases}
    # the case adding most lines not yet covered, counting each option value
    # not yet exercised as worth a line more than any case adds, until both
    # are exhausted
    chosen, have, union = greedy(cover, {i: traits(by_id[i]) for i in cover})
    with open(SUBSET, "w", encoding="utf-8") as f:
        f.write("# The reference cases of the instrumented passes (TD_TEST_SUBSET=1).\n")
        f.write("# Made by scripts/choose_subset.py choose: %d of %d cases, covering\n"
                % (len(chosen), len(cases)))
        f.write("# %d of the %d lines that all the cases cover, and every option value.\n"
                % (len(have), len(union)))
        for i in sorted(chosen):
            f.write(i + "\n")
    print("%d of %d cases; lines %d of %d" % (len(chosen), len(cases), len(have), len(union)))


def suite(build, subset, jobs=0):
    """{suite name: lines run} for tests/run_all.sh on build, every suite
    with counters of its own (TD_COV_DIR)."""
    prefix = tempfile.mkdtemp(prefix="td-cov-suite.")
    env = cov_env(prefix)
    env["LDFLAGS"] = "--coverage"  # what the suites link against the libraries
    env["TD_COV_DIR"] = prefix
    if subset:
        env["TD_TEST_SUBSET"] = "1"
        # As make sanitize runs them: expected outputs from the plain build
        # (tests/cases.py: expectation_exe), whose lines count for neither.
        plain = os.path.join(ROOT, "build", "tracediff")
        if os.access(plain, os.X_OK):
            env["TD_PLAIN_EXE"] = plain
    if jobs:
        env["TD_TEST_JOBS"] = str(jobs)
    p = subprocess.run(["sh", os.path.join(ROOT, "tests", "run_all.sh"), build], env=env,
                       capture_output=True, text=True, cwd=ROOT)
    print("suite%s: %s" % (" (subset)" if subset else "", p.stdout.strip().splitlines()[-1]),
          flush=True)
    names = os.listdir(prefix)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        lines = pool.map(lambda n: lines_run(build, os.path.join(prefix, n)), names)
        got = dict(zip(names, lines))
    shutil.rmtree(prefix)
    return got


def measure(build):
    """The plain and the subset pass run side by side, one suite at a time
    each (two at a time in all): the one's long suites fill the cores that
    the other's tail leaves idle."""
    code = all_lines(build)
    jobs = max(1, (os.cpu_count() or 2) // 2)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        full_f = pool.submit(suite, build, False, jobs)
        sub_f = pool.submit(suite, build, True, jobs)
        per_full, per_sub = full_f.result(), sub_f.result()
    full = set().union(*per_full.values())
    sub = set().union(*per_sub.values())
    with open(os.path.join(ROOT, build, "coverage-suites.json"), "w") as f:
        f.write(json.dumps({k: {n: sorted("%s:%d" % x for x in v) for n, v in d.items()}
                            for k, d in (("full", per_full), ("subset", per_sub))}))
    folders = sorted({f.split("/")[1] for f, _ in code})
    print("| folder | lines | every case | subset | difference |")
    print("|---|---:|---:|---:|---:|")
    for d in folders + ["all"]:
        c = {x for x in code if d == "all" or x[0].split("/")[1] == d}
        a, b = len(full & c), len(sub & c)
        print("| %s | %d | %.1f%% | %.1f%% | %+.1f |"
              % (d, len(c), 100 * a / len(c), 100 * b / len(c), 100 * (b - a) / len(c)))
    print()
    print("| suite | lines, plain pass | lines, instrumented pass | only this suite (plain) |")
    print("|---|---:|---:|---:|")
    for n in sorted(per_full):
        others = set().union(*(v for k, v in per_full.items() if k != n))
        print("| %s | %d | %d | %d |" % (n, len(per_full[n]), len(per_sub.get(n, ())),
                                         len(per_full[n] - others)))


# ---- per-suite subsets: tests/cli/*.t and the like --------------------------
#
#     choose_subset.py choose-suite cli [BUILD]    write tests/subset/cli.txt
#     choose_subset.py measure-suite cli,formats [BUILD]
#
# choose-suite runs each case of the suite alone against BUILD (coverage),
# then picks greedily as choose does: every trait (subcommand, option name,
# value of an option that takes a word, exit status) first, then lines,
# until the subset covers every line and trait that all the cases cover.
# measure-suite runs the suites through tests/run_all.py, every case and
# the subset, side by side, and prints line coverage per folder of src/.

CLI_DIR = os.path.join(ROOT, "tests", "cli")


def cli_cases():
    """{name of a .t file: (argv after 'tracediff', expected exit status)}"""
    import shlex
    out = {}
    for name in sorted(os.listdir(CLI_DIR)):
        if not name.endswith(".t"):
            continue
        cmd, status = None, None
        for line in open(os.path.join(CLI_DIR, name), encoding="utf-8"):
            if line.startswith("$ "):
                cmd = shlex.split(line[2:])[1:]
            elif line.startswith("? "):
                status = int(line[2:])
        out[name] = (cmd, status)
    return out


def cli_traits(argv, status):
    """The subcommand, each option, each word value of an option that the
    command accepts (--format csv, --device gpu, --sort ...), the kind of
    every other value (a number, a list, a refused word, free text), the
    exit status."""
    import re
    out = {("status", status), ("command", argv[0] if argv else "")}
    for i, a in enumerate(argv):
        if a.startswith("-"):
            name, _, val = a.partition("=")
            out.add(("option", name))
            if not val and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                val = argv[i + 1]
            if not val or "/" in val:
                continue
            if status == 0 and re.fullmatch("[a-z_]+", val):
                out.add(("value", name, val))
            else:
                kind = ("number" if val.isdigit() else "list" if "," in val else
                        "word" if re.fullmatch("[A-Za-z_]+", val) else "text")
                out.add(("value kind", name, kind, status == 0))
    return out


def cli_case_lines(build, name, argv):
    prefix = tempfile.mkdtemp(prefix="td-cov-cli.")
    env = dict(cov_env(prefix), NO_COLOR="1", LANG="C.UTF-8", LC_ALL="C.UTF-8", COLUMNS="120")
    subprocess.run([os.path.join(ROOT, build, "tracediff")] + argv, cwd=ROOT, env=env,
                   capture_output=True, stdin=subprocess.DEVNULL, timeout=600)
    got = lines_run(build, prefix)
    shutil.rmtree(prefix)
    return got


def greedy(cover, traits_of):
    """The names, in the order chosen, that together cover every line of
    cover and every trait of traits_of (choose_greedy, shorter names first
    on a tie)."""
    return choose_greedy(cover, {i: len(i) for i in cover}, traits_of)


def choose_suite(suite, build):
    if suite != "cli":
        sys.exit("choose-suite: only cli has per-case commands to choose from")
    cases = cli_cases()

    def one(name):
        got = cli_case_lines(build, name, cases[name][0])
        print("%s: %d lines" % (name, len(got)), file=sys.stderr, flush=True)
        return name, got

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        cover = dict(pool.map(one, sorted(cases)))
    traits_of = {n: cli_traits(*cases[n]) for n in cases}
    chosen, have, union = greedy(cover, traits_of)
    path = os.path.join(ROOT, "tests", "subset", suite + ".txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("# The tests/cli/*.t cases of the instrumented passes (TD_TEST_SUBSET=1).\n")
        f.write("# Made by scripts/choose_subset.py choose-suite cli: %d of %d cases,\n"
                % (len(chosen), len(cases)))
        f.write("# covering %d of the %d lines of src/ that all the cases cover, and\n"
                % (len(have), len(union)))
        f.write("# every subcommand, option, option word and exit status they use.\n")
        for n in sorted(chosen):
            f.write(n + "\n")
    print("%s: %d of %d cases; lines %d of %d" % (suite, len(chosen), len(cases), len(have),
                                                   len(union)))


def suites_lines(build, only, subset):
    """{suite: lines run} for tests/run_all.py BUILD --only ONLY."""
    prefix = tempfile.mkdtemp(prefix="td-cov-only.")
    env = cov_env(prefix)
    env["TD_COV_DIR"] = prefix
    env.pop("TD_TEST_SUBSET", None)
    if subset:
        env["TD_TEST_SUBSET"] = "1"
        plain = os.path.join(ROOT, "build", "tracediff")
        if os.access(plain, os.X_OK):
            env["TD_PLAIN_EXE"] = plain
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "run_all.py"), build,
                        "--only", only], env=env, capture_output=True, text=True, cwd=ROOT)
    print(("subset" if subset else "full") + ":\n" + p.stdout.strip(), flush=True)
    got = {n: lines_run(build, os.path.join(prefix, n)) for n in os.listdir(prefix)}
    shutil.rmtree(prefix)
    return got


def measure_suite(only, build):
    """Line coverage of src/ per folder, the suites of ONLY with every case
    and with the subset, run side by side; over the lines that the suites
    run with every case."""
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        f_full = pool.submit(suites_lines, build, only, False)
        f_sub = pool.submit(suites_lines, build, only, True)
        per_full, per_sub = f_full.result(), f_sub.result()
    code = all_lines(build)
    for title, names in [("all of " + only, None)] + [(n, [n]) for n in sorted(per_full)]:
        full = set().union(*(v for k, v in per_full.items() if names is None or k in names))
        sub = set().union(*(v for k, v in per_sub.items() if names is None or k in names))
        print("\n%s: lines run, every case %d, subset %d, lost %d, gained %d"
              % (title, len(full), len(sub), len(full - sub), len(sub - full)))
        print("| folder | lines | every case | subset | difference |")
        print("|---|---:|---:|---:|---:|")
        folders = sorted({f.split("/")[1] for f, _ in full})
        for d in folders + ["all"]:
            c = {x for x in code if d == "all" or x[0].split("/")[1] == d}
            a, b = len(full & c), len(sub & c)
            print("| %s | %d | %.1f%% | %.1f%% | %+.1f |"
                  % (d, len(c), 100 * a / len(c), 100 * b / len(c), 100 * (b - a) / len(c)))


def timed_run(argv, env):
    """Runs argv; its CPU seconds and those of every process it waited for."""
    p = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    return ru.ru_utime + ru.ru_stime


def cached_runs(path, names, one):
    """({name: lines}, {name: CPU seconds}) of one(name) for each name, kept
    in path: a rerun runs only the names not there (--fresh: all again)."""
    got = {}
    if "--fresh" not in sys.argv and os.path.exists(path):
        got = {n: (set(map(tuple, v["lines"])), v["cost"])
               for n, v in json.load(open(path)).items()}
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for n, lines, secs in pool.map(one, [n for n in names if n not in got]):
            got[n] = (lines, secs)
    with open(path, "w") as f:
        json.dump({n: {"lines": sorted(v[0]), "cost": v[1]} for n, v in got.items()}, f)
    return {n: got[n][0] for n in names}, {n: got[n][1] for n in names}


def prune(chosen, cover, cost, traits, code, slack=0.0002):
    """Drops from chosen, the costliest first, what leaves each folder of
    src/ short of at most slack of its lines (0.02 points) against all of
    cover, every trait still had: well within the 0.1-point bound, which
    the runs' own variation and the instrumented pass's smaller inputs
    (mpi_test.py: RANKS) take their share of."""
    union = set().union(*cover.values())
    every = set().union(*traits.values())
    folder = {x: x[0].rsplit("/", 1)[0] for x in union}
    size = collections.Counter(x[0].rsplit("/", 1)[0] for x in code)
    for n in sorted(chosen, key=lambda n: -cost[n]):
        rest = [k for k in chosen if k != n]
        have = set().union(*(cover[k] for k in rest)) if rest else set()
        lost = collections.Counter(folder[x] for x in union - have)
        if set().union(*(traits[k] for k in rest)) >= every and \
                all(lost[d] <= slack * size.get(d, 0) for d in lost):
            chosen = rest
    have = set().union(*(cover[k] for k in chosen))
    return chosen, have


def choose_greedy(cover, cost, traits):
    """The names whose lines cover every line of cover's union and whose
    traits cover every trait: most traits not yet had first, then most new
    lines, then least cost."""
    union = set().union(*cover.values())
    every = set().union(*traits.values())
    chosen, have, seen = [], set(), set()
    while have != union or seen != every:
        def gain(n):
            return (len(traits[n] - seen) * (len(union) + 1) + len(cover[n] - have), -cost[n])
        best = max((n for n in cover if n not in chosen), key=gain)
        if gain(best)[0] == 0:
            break
        chosen.append(best)
        have |= cover[best]
        seen |= traits[best]
    return chosen, have, union


def per_folder(code, a, b, names=("all jobs", "chosen")):
    folders = sorted({f.split("/")[0] + "/" + f.split("/")[1] if f.startswith("src/")
                      else f.split("/")[0] for f, _ in code})
    print("| folder | lines | %s | %s | difference |" % names)
    print("|---|---:|---:|---:|---:|")
    for d in folders + ["all"]:
        c = {x for x in code if d == "all" or x[0].startswith(d + "/")}
        if not c:
            continue
        x, y = len(a & c), len(b & c)
        print("| %s | %d | %.1f%% | %.1f%% | %+.1f |"
              % (d, len(c), 100 * x / len(c), 100 * y / len(c), 100 * (y - x) / len(c)))


def write_suite_subset(suite, chosen, names, have, union, cost, how):
    path = os.path.join(ROOT, "tests", "subset", suite + ".txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("# The checks of tests/%s_test.py that the instrumented passes run\n" % suite)
        f.write("# (TD_TEST_SUBSET=1). Made by scripts/choose_subset.py choose-%s:\n" % suite)
        f.write("# %d of %d %s, covering %d of the %d lines that all of them cover\n"
                "# (at most 0.02 points fewer per folder of src/);\n"
                % (len(chosen), len(names), how, len(have), len(union)))
        f.write("# %.0f of %.0f s of CPU, each run alone on the coverage build.\n"
                % (sum(cost[n] for n in chosen), sum(cost.values())))
        for n in sorted(chosen):
            f.write(n + "\n")
    print("%s: %d of %d; lines %d of %d" % (suite, len(chosen), len(names), len(have), len(union)))


def choose_mpi(build):
    """Every job of mpi_test.py's pair_cases and op_call_jobs (the plain
    pass's list, on the instrumented passes' 16-rank sets; RANKS=64 in the
    environment: the plain pass's), its tracediff-mpi command alone with
    counters of its own."""
    os.environ.pop("TD_TEST_SUBSET", None)
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import mpi_test as m
    exe, mpi = os.path.join(ROOT, build, "tracediff"), os.path.join(ROOT, build, "tracediff-mpi")
    tmp = tempfile.mkdtemp(prefix="td-cov-mpi.")
    ctl, tst = os.path.join(tmp, "control"), os.path.join(tmp, "test")
    m.RANKS = int(os.environ.get("RANKS", "16"))  # mpi_test.py: RANKS
    m.make_set(ctl, m.CONTROL_SRC, m.RANKS)
    m.make_set(tst, m.TEST_SRC, m.RANKS)
    m.pair_cases(exe, mpi, ctl, tst, tmp)
    m.op_call_jobs(exe, mpi)
    jobs = {j[0]: j[2] for j in m.JOBS}

    def one(name):
        prefix = tempfile.mkdtemp(prefix="td-cov-job.")
        session = tempfile.mkdtemp(prefix="mpi-session-")
        env = dict(cov_env(prefix), TMPDIR=session, OMPI_MCA_orte_tmpdir_base=session)
        secs = timed_run(jobs[name], env)
        got = lines_run(build, prefix)
        shutil.rmtree(prefix)
        shutil.rmtree(session, ignore_errors=True)
        print("%s: %d lines, %.1f s" % (name, len(got), secs), file=sys.stderr, flush=True)
        return name, got, secs

    cover, cost = cached_runs(os.path.join(ROOT, build, "mpi-job-lines-%d.json" % m.RANKS),
                              list(jobs), one)
    shutil.rmtree(tmp, ignore_errors=True)
    head = len(m.MPIRUN)
    traits = {n: {("command", cmd[head + 3]), ("processes", cmd[head + 1])}
              for n, cmd in jobs.items()}
    chosen, have, union = choose_greedy(cover, cost, traits)
    code = all_lines(build)
    chosen, have = prune(chosen, cover, cost, traits, code)
    write_suite_subset("mpi", chosen, jobs, have, union, cost, "jobs")
    per_folder(code, union, have)


def choose_python(build):
    """Every function of python_test.py and each of the subset's reference
    cases, alone (python_test.py --case), with counters of its own."""
    mod = glob.glob(os.path.join(ROOT, build, "python", "tracediff", "_tracediff*.so"))
    if not mod or not glob.glob(mod[0] + "*.gcno"):
        for m in mod:  # built before without counters: again, with them
            os.remove(m)
        subprocess.run(["make", "-s", "python", "BUILD=" + build, "OPT=-O0 -g --coverage",
                        "LDFLAGS=--coverage"], cwd=ROOT, check=True)
    test = os.path.join(ROOT, "tests", "python_test.py")
    exe = os.path.join(ROOT, build, "tracediff")
    base = dict(os.environ, TD_TEST_SUBSET="1")
    plain = os.path.join(ROOT, "build", "tracediff")
    if os.access(plain, os.X_OK):
        base["TD_PLAIN_EXE"] = plain
    names = subprocess.run([sys.executable, test, exe, "--list"], env=base, capture_output=True,
                           text=True, check=True).stdout.split("\n")
    names = [n for n in names if n.strip()]

    def one(name):
        prefix = tempfile.mkdtemp(prefix="td-cov-py.")
        env = dict(base, **{k: v for k, v in cov_env(prefix).items() if k.startswith("GCOV")})
        secs = timed_run([sys.executable, test, exe, "--case", name], env)
        got = lines_run(build, prefix, ("src/", "python/"))
        shutil.rmtree(prefix)
        print("%s: %d lines, %.1f s" % (name, len(got), secs), file=sys.stderr, flush=True)
        return name, got, secs

    cover, cost = cached_runs(os.path.join(ROOT, build, "python-check-lines.json"), names, one)
    # one reference case at least (HTA's outputs matched through the
    # module), and one loop of repeated calls (the same objects used again)
    traits = {n: {("kind", "golden")} if n.startswith("golden ") else
              {("kind", "repeated calls")} if n.startswith("t_no_leaks") else set() for n in names}
    chosen, have, union = choose_greedy(cover, cost, traits)
    code = all_lines(build)
    chosen, have = prune(chosen, cover, cost, traits, code)
    write_suite_subset("python", chosen, names, have, union, cost, "checks")
    per_folder(code, union, have)


# ---- what each suite alone runs in the instrumented pass -------------------
#
#     choose_subset.py unique-lines [BUILD] [--only a,b]
#
# The instrumented pass (TD_TEST_SUBSET=1, expectations from the plain
# build) with counters per suite, then per suite: the lines of src/ it runs
# and those no other suite runs. A suite whose checks leave the instrumented
# pass must leave that pass's union of lines whole: with --only, those
# suites run again as they are now, beside the others' lines from the last
# whole run (BUILD/coverage-unique.json), and the lines the union lost are
# printed (none, or the change loses code paths under ASan).


def unique_lines(build, only):
    path = os.path.join(ROOT, build, "coverage-unique.json")
    if only:
        with open(path) as f:
            per = {k: set(v) for k, v in json.load(f).items()}
        before = set().union(*per.values())
        per.update({n: {"%s:%d" % x for x in v}
                    for n, v in suites_lines(build, only, True).items()})
        after = set().union(*per.values())
        print("lines of the instrumented pass: %d before, %d now; lost: %s"
              % (len(before), len(after), sorted(before - after) or "none"))
        return 1 if before - after else 0
    per = {n: {"%s:%d" % x for x in v} for n, v in suite(build, True).items()}
    with open(path, "w") as f:
        json.dump({k: sorted(v) for k, v in per.items()}, f)
    print("| suite | lines | only this suite |")
    print("|---|---:|---:|")
    for n in sorted(per, key=lambda k: len(per[k])):
        others = set().union(*(v for k, v in per.items() if k != n))
        print("| %s | %d | %d |" % (n, len(per[n]), len(per[n] - others)))
    return 0


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "measure"
    skip = sys.argv.index("--only") + 1 if "--only" in sys.argv else -1
    rest = [a for i, a in enumerate(sys.argv[2:], 2) if not a.startswith("--") and i != skip]
    build = rest[0] if rest and what not in ("choose-suite", "measure-suite") else "build-cov"
    if not os.path.exists(os.path.join(ROOT, build, "tracediff")):
        sys.exit("%s/tracediff: not built (make coverage-build)" % build)
    if what in ("choose-suite", "measure-suite"):
        build = rest[1] if len(rest) > 1 else "build-cov"
        if not os.path.exists(os.path.join(ROOT, build, "tracediff")):
            sys.exit("%s/tracediff: not built (make coverage-build)" % build)
        (choose_suite if what == "choose-suite" else measure_suite)(rest[0], build)
    elif what == "choose":
        choose(build, "--fresh" in sys.argv)
    elif what == "choose-mpi":
        choose_mpi(build)
    elif what == "choose-python":
        choose_python(build)
    elif what == "unique-lines":
        only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
        sys.exit(unique_lines(build, only))
    else:
        measure(build)


if __name__ == "__main__":
    main()

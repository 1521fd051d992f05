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


def lines_run(build, prefix):
    """{(source file, line)} run in the counters under prefix."""
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
                if not name.startswith("src/"):
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
    union = set().union(*cover.values())
    chosen, have, seen = [], set(), set()
    every_trait = set().union(*(traits(c) for c in cases))
    by_id = {c["id"]: c for c in cases}
    # the case adding most lines not yet covered, counting each option value
    # not yet exercised as worth a line more than any case adds, until both
    # are exhausted
    while have != union or seen != every_trait:
        def gain(i):
            return (len(traits(by_id[i]) - seen) * (len(union) + 1) + len(cover[i] - have), -len(i))
        best = max((i for i in cover if i not in chosen), key=gain)
        if gain(best)[0] == 0:
            break
        chosen.append(best)
        have |= cover[best]
        seen |= traits(by_id[best])
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
    cover and every trait of traits_of."""
    union = set().union(*cover.values())
    every = set().union(*traits_of.values())
    chosen, have, seen = [], set(), set()
    while have != union or seen != every:
        def gain(i):
            return (len(traits_of[i] - seen) * (len(union) + 1) + len(cover[i] - have), -len(i))
        best = max((i for i in cover if i not in chosen), key=gain)
        if gain(best)[0] == 0:
            break
        chosen.append(best)
        have |= cover[best]
        seen |= traits_of[best]
    return chosen, have, union


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


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "measure"
    rest = [a for a in sys.argv[2:] if not a.startswith("--")]
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
    else:
        measure(build)


if __name__ == "__main__":
    main()

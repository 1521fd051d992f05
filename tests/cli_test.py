#!/usr/bin/env python3
"""CLI tests: each tests/cli/*.t file holds a command and what it must print.

    cli_test.py TRACEDIFF [--regen] [--only NAME]

A .t file:
    $ tracediff compare A B --format csv     (one line, split like a shell would)
    ? 0                                       (the exit status)
    > stdout line ...                         (every stdout line, in order)
    ! stderr line ...                         (every stderr line, in order)
Lines that start with '#' are comments. The command runs from the repository
root with NO_COLOR=1 and LANG=C.UTF-8. --regen rewrites the files from what
the binary prints now: only on purpose, and review the diff.

With TD_TEST_SUBSET=1 (make sanitize) only the files named in
tests/subset/cli.txt run: chosen by line coverage (scripts/choose_subset.py
choose-suite cli) to run every line of src/ that all the files run, and every
subcommand, option, option word and exit status they use. Each file is one
process, and under ASan a process costs ~0.15 s of CPU to start and end;
the plain pass runs them all. The -o and report checks always run.
"""
import os, shlex, stat, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse(path):
    cmd, comments = None, []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("$ "):
            cmd = line[2:]
        elif line.startswith("#"):
            comments.append(line)
    exp = {"status": None, "out": [], "err": []}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("? "):
            exp["status"] = int(line[2:])
        elif line.startswith("> ") or line == ">":
            exp["out"].append(line[2:])
        elif line.startswith("! ") or line == "!":
            exp["err"].append(line[2:])
    return cmd, comments, exp


def run(exe, cmd):
    argv = shlex.split(cmd)
    assert argv[0] == "tracediff"
    env = dict(os.environ, NO_COLOR="1", LANG="C.UTF-8", LC_ALL="C.UTF-8", COLUMNS="120")
    p = subprocess.run([exe] + argv[1:], cwd=ROOT, capture_output=True, env=env, timeout=300,
                       stdin=subprocess.DEVNULL)
    return (p.returncode, p.stdout.decode("utf-8", "replace").splitlines(),
            p.stderr.decode("utf-8", "replace").splitlines())


def write(path, cmd, comments, status, out, err):
    with open(path, "w", encoding="utf-8") as f:
        for c in comments:
            f.write(c + "\n")
        f.write(f"$ {cmd}\n? {status}\n")
        for line in out:
            f.write(f"> {line}\n" if line else ">\n")
        for line in err:
            f.write(f"! {line}\n" if line else "!\n")


def atomic_output_checks(exe):
    """-o FILE: the file appears whole, equal to stdout; on failure, no file."""
    problems = []
    with tempfile.TemporaryDirectory() as d:
        target = os.path.join(d, "out.csv")
        base = ["compare", "tests/golden/traces/hta-trace_compare/base",
                "tests/golden/traces/hta-trace_compare/test"]
        p = subprocess.run([exe] + base + ["-o", target], cwd=ROOT, capture_output=True)
        q = subprocess.run([exe] + base + ["--format", "csv"], cwd=ROOT, capture_output=True)
        if p.returncode != 0 or open(target, "rb").read() != q.stdout or p.stdout:
            problems.append("-o out.csv differs from stdout csv")
        if sorted(os.listdir(d)) != ["out.csv"]:
            problems.append(f"-o left extra files: {os.listdir(d)}")
        before = open(target, "rb").read()
        p = subprocess.run([exe, "compare", "tests/golden/traces/hta-trace_compare/base",
                            "/nonexistent", "-o", target], cwd=ROOT, capture_output=True)
        if p.returncode != 1 or open(target, "rb").read() != before:
            problems.append("a failed run touched the existing output file")
        if sorted(os.listdir(d)) != ["out.csv"]:
            problems.append(f"a failed run left files: {os.listdir(d)}")
        p = subprocess.run([exe] + base + ["-o", os.path.join(d, "no/such/dir/x.csv")],
                           cwd=ROOT, capture_output=True)
        if p.returncode != 1 or b"cannot create" not in p.stderr:
            problems.append("unwritable -o path not reported with exit 1")
        # A device is written in place, never renamed over (as root, a rename
        # would replace /dev/null with a regular file).
        p = subprocess.run([exe] + base + ["-o", "/dev/null"], cwd=ROOT, capture_output=True)
        if p.returncode != 0 or not stat.S_ISCHR(os.stat("/dev/null").st_mode):
            problems.append("-o /dev/null did not write to the device in place")
        fifo = os.path.join(d, "fifo.csv")
        os.mkfifo(fifo)
        reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
        p = subprocess.run([exe] + base + ["-o", fifo, "--format", "csv"], cwd=ROOT,
                           capture_output=True, timeout=60)
        got = reader.communicate(timeout=60)[0]
        if p.returncode != 0 or got != q.stdout or not stat.S_ISFIFO(os.stat(fifo).st_mode):
            problems.append("-o FIFO was not written through the pipe")
    return problems


def report_default_checks(exe):
    """report without -o: tracediff-report.html in the current folder, said on stderr."""
    problems = []
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([exe, "report", os.path.join(ROOT, "tests/data/noisy/control"),
                            os.path.join(ROOT, "tests/data/noisy/test"), "-q"], cwd=d,
                           capture_output=True)
        if p.returncode != 0 or os.listdir(d) != ["tracediff-report.html"]:
            problems.append(f"report without -o: exit {p.returncode}, files {os.listdir(d)}")
        elif p.stderr != b"tracediff: wrote tracediff-report.html\n":
            problems.append(f"report without -o: stderr {p.stderr!r}")
        else:
            # names folded by default, said in the header; the note to fold
            # them comes back with --no-normalize-names
            html = open(os.path.join(d, "tracediff-report.html"), "rb").read()
            if b"<code>--no-normalize-names</code> keeps them apart" not in html:
                problems.append("report: the header does not say that names are folded")
            if b"module.py(1520)" in html or b"module.py(\xe2\x80\xa6)" not in html:
                problems.append("report: module.py(N) rows not folded by default")
            p = subprocess.run([exe, "report", os.path.join(ROOT, "tests/data/noisy/control"),
                                os.path.join(ROOT, "tests/data/noisy/test"), "-q",
                                "--no-normalize-names", "-o", "plain.html"], cwd=d,
                               capture_output=True)
            html = open(os.path.join(d, "plain.html"), "rb").read()
            if b"--normalize-names</code> folds them" not in html or b"module.py(1520)" not in html:
                problems.append("report --no-normalize-names: no note about names that differ "
                                "only by noise, or rows folded")
    return problems


def main():
    exe = os.path.abspath(sys.argv[1])
    regen = "--regen" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    passed = failed = 0
    cdir = os.path.join(ROOT, "tests", "cli")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cases
    names = sorted(n for n in os.listdir(cdir) if n.endswith(".t"))
    for name in names if regen else cases.suite_keep("cli", names):
        if only and only not in name:
            continue
        path = os.path.join(cdir, name)
        cmd, comments, exp = parse(path)
        status, out, err = run(exe, cmd)
        if regen:
            write(path, cmd, comments, status, out, err)
            passed += 1
            continue
        problem = None
        if status != exp["status"]:
            problem = f"exit {status}, expected {exp['status']}; stderr: {err[:2]}"
        elif out != exp["out"]:
            diff = next((i for i, (a, b) in enumerate(zip(out, exp["out"])) if a != b),
                        min(len(out), len(exp["out"])))
            problem = (f"stdout line {diff + 1}: got {out[diff:diff + 1]}, "
                       f"expected {exp['out'][diff:diff + 1]}")
        elif err != exp["err"]:
            problem = f"stderr: got {err}, expected {exp['err']}"
        if problem:
            failed += 1
            print(f"FAIL cli {name}: {problem}")
        else:
            passed += 1
    if not regen:
        for p in atomic_output_checks(exe) + report_default_checks(exe):
            failed += 1
            print(f"FAIL cli atomic-output: {p}")
        else:
            passed += 1
    print(f"cli: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Bad inputs: every file (or directory) of tests/bad/ through the real CLI.

    bad_input_test.py TRACEDIFF [--regen] [-v]

For each case of tests/bad/expected.txt, runs

    TRACEDIFF compare BAD tests/bad/good/good.json --format csv

from the repository root and checks the exit status and the whole of
stderr against the expected ones. A failure must also leave stdout empty,
and with "-o DIR/out.csv" must leave DIR empty (no output file, no
temporary file); a success must write exactly DIR/out.csv. Each case also
runs with its files loaded by child processes (TD_PROCESSES=1 -j 2), which
must give the same exit status, stdout and stderr. Some cases get
extra checks (see EXTRA). --regen rewrites expected.txt from what the CLI
does now: review the diff before committing it.

expected.txt: one case per line, three tab-separated columns: the path
(relative to tests/bad/, or absolute, or @name for a case made here at run
time), the exit status, and stderr exactly, lines joined by a literal \\n,
with {BAD} standing for the path given on the command line.
"""
import csv, io, json, os, shutil, subprocess, sys, tempfile, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BAD = os.path.join("tests", "bad")
GOOD = os.path.join(BAD, "good", "good.json")
EXPECTED = os.path.join(ROOT, BAD, "expected.txt")
TIME_LIMIT = 5.0  # seconds: /dev/zero and 500,000 '[' must fail fast


def made_here(name, tmp):
    """Cases git cannot hold; returns the path to give on the command line."""
    if name == "@symlink_loop":
        p = os.path.join(tmp, "loop.json")
        os.symlink("loop.json", p)
        return p
    if name == "@symlink_loop_in_dir":
        d = os.path.join(tmp, "loopdir")
        os.mkdir(d)
        os.symlink("x.json", os.path.join(d, "x.json"))
        return d
    if name == "@empty_dir":
        d = os.path.join(tmp, "empty")
        os.mkdir(d)
        return d
    raise SystemExit("unknown generated case " + name)


def run(tracediff, bad, extra, env=None):
    t0 = time.monotonic()
    p = subprocess.run([tracediff, "compare", bad, GOOD, "--format", "csv"] + extra,
                       cwd=ROOT, capture_output=True, timeout=60,
                       env=dict(os.environ, **env) if env else None)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"), time.monotonic() - t0


def names_json(tracediff, bad):
    """Escaped NUL and lone surrogates: distinct rows, written back escaped."""
    p = subprocess.run([tracediff, "compare", bad, GOOD, "--format", "json"], cwd=ROOT,
                       capture_output=True, timeout=60)
    text = p.stdout.decode("utf-8")
    rows = {r["name"]: r for r in json.loads(text)}
    errs = []
    for name, dur in (("a\0b", 1), ("a", 2), ("x\ud800", 4), ("x\udc00", 8), ("x", 16)):
        if name not in rows:
            errs.append("no row %r" % name)
        elif rows[name]["control_total_duration"] != dur:
            errs.append("row %r: duration %r" % (name, rows[name]["control_total_duration"]))
    for raw in ('"name": "a\\u0000b"', '"name": "x\\ud800"', '"name": "x\\udc00"'):
        if raw not in text:
            errs.append("output lacks " + raw)
    return errs


def long_name_json(tracediff, bad):
    """Names of 5,000+ characters: whole in CSV, distinct, one line each in
    the table (cut with an ellipsis to the width), short names merge them."""
    errs = []
    p = subprocess.run([tracediff, "compare", bad, GOOD, "--format", "csv"], cwd=ROOT,
                       capture_output=True, timeout=60)
    names = [r[0] for r in list(csv.reader(io.StringIO(p.stdout.decode())))[1:]]
    longs = [n for n in names if len(n) > 5000]
    if len(longs) != 2 or len(set(longs)) != 2:
        errs.append("csv: want 2 distinct names over 5000 chars, got %r" % [len(n) for n in names])
    env = dict(os.environ, COLUMNS="100", LANG="C.UTF-8")
    p = subprocess.run([tracediff, "compare", bad, GOOD, "--format", "table"], cwd=ROOT,
                       capture_output=True, timeout=60, env=env)
    lines = p.stdout.decode("utf-8").splitlines()
    cut = [l for l in lines if l.startswith("void k<")]
    if len(cut) != 2 or any(len(l) > 100 or "\u2026" not in l for l in cut):
        errs.append("table: want 2 rows cut to 100 columns with an ellipsis, got %r" % cut)
    p = subprocess.run([tracediff, "compare", bad, GOOD, "--format", "csv", "--short-names"],
                       cwd=ROOT, capture_output=True, timeout=60)
    rows = {r[0]: r for r in list(csv.reader(io.StringIO(p.stdout.decode())))[1:]}
    if rows.get("k", [])[1:2] != ["2"]:
        errs.append("short names: want one row 'k' with count 2, got %r" % sorted(rows))
    return errs


EXTRA = {"names.json": names_json, "long_name.json": long_name_json}


def load_expected():
    cases = []
    with open(EXPECTED, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3:
                raise SystemExit("%s:%d: expected 3 tab-separated columns" % (EXPECTED, n))
            cases.append((parts[0], int(parts[1]), parts[2].replace("\\n", "\n")))
    return cases


def check(tracediff, name, want_rc, want_err, verbose):
    errs = []
    with tempfile.TemporaryDirectory() as tmp:
        if name.startswith("@"):
            bad = made_here(name, tmp)
        elif os.path.isabs(name):
            bad = name
        else:
            bad = os.path.join(BAD, name)
        rc, out, err, secs = run(tracediff, bad, [])
        want = want_err.replace("{BAD}", bad)
        if rc != want_rc:
            errs.append("exit status %d, expected %d" % (rc, want_rc))
        if err.rstrip("\n") != want:
            errs.append("stderr:\n    got:  %r\n    want: %r" % (err.rstrip("\n"), want))
        if secs > TIME_LIMIT:
            errs.append("took %.1f s" % secs)
        # Each file loaded by a child process: the same outcome, byte for byte
        rc3, out3, err3, _ = run(tracediff, bad, ["-j", "2"], {"TD_PROCESSES": "1"})
        if (rc3, out3, err3) != (rc, out, err):
            errs.append("TD_PROCESSES=1 -j 2: exit %d, stderr %r" % (rc3, err3[:300]))
        if rc != 0 and out:
            errs.append("stdout not empty on failure (%d bytes)" % len(out))
        if rc == 0 and not out:
            errs.append("no output on success")
        outdir = os.path.join(tmp, "out")
        os.mkdir(outdir)
        rc2, out2, _, _ = run(tracediff, bad, ["-o", os.path.join(outdir, "out.csv")])
        left = sorted(os.listdir(outdir))
        if rc2 != rc:
            errs.append("with -o: exit status %d" % rc2)
        if out2:
            errs.append("with -o: %d bytes on stdout" % len(out2))
        if rc != 0 and left:
            errs.append("with -o: left %s behind" % left)
        if rc == 0 and left != ["out.csv"]:
            errs.append("with -o: the directory holds %s" % left)
        if name in EXTRA and rc == 0:
            errs += EXTRA[name](tracediff, bad)
    if verbose and not errs:
        print("ok   %s" % name)
    return errs, (rc, err.rstrip("\n").replace(bad, "{BAD}") if bad else err)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    if len(args) != 1:
        raise SystemExit(__doc__)
    tracediff = os.path.abspath(args[0])
    regen = "--regen" in sys.argv
    verbose = "-v" in sys.argv
    passed = failed = 0
    lines = []
    for name, want_rc, want_err in load_expected():
        errs, (rc, err) = check(tracediff, name, want_rc, want_err, verbose)
        lines.append("%s\t%d\t%s" % (name, rc, err.replace("\n", "\\n")))
        if errs:
            failed += 1
            print("FAIL %s" % name)
            for e in errs:
                print("  " + e)
        else:
            passed += 1
    if regen:
        with open(EXPECTED, encoding="utf-8") as f:
            head = [l for l in f.read().split("\n") if l.startswith("#")]
        with open(EXPECTED, "w", encoding="utf-8") as f:
            f.write("\n".join(head + lines) + "\n")
        print("rewrote %s: review the diff" % EXPECTED)
    print("bad-inputs: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

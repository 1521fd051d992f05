#!/usr/bin/env python3
"""Every command and every output format of the CLI, once each.

    commands_test.py TRACEDIFF

Each command runs on the bundled examples (a summary made of them for runs,
trend and compare from a summary) in each of its formats: the exit status is
the command's success (check: 0 or 3, a regression found), stdout or the
output file is whole in its format (JSON parses, CSV rows as wide as their
header, a Markdown table, folded lines ending in a count, SVG closed, PNG and
PDF by their magic, HTML closed, a summary an SQLite file) and stderr names
no sanitizer.

Other suites check what these outputs say; this one is the tour of every
command and format that the sanitizer pass runs with LeakSanitizer on
(tests/run_all.py: LEAKS_OFF lists the suites that run without it), so that
a leak on any command's or format's path fails the pass.
"""
import csv, io, json, os, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
C = os.path.join(ROOT, "examples", "control")
T = os.path.join(ROOT, "examples", "test")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))


def is_json(b):
    try:
        json.loads(b)
        return True
    except ValueError:
        return False


def is_csv(b):
    rows = list(csv.reader(io.StringIO(b.decode("utf-8"))))
    return len(rows) >= 2 and len(rows[0]) >= 2 and all(len(r) == len(rows[0]) for r in rows)


def is_markdown(b):
    lines = b.decode("utf-8").splitlines()
    return any(l.startswith("|") for l in lines) and \
        any(l.startswith("|") and set(l) <= set("|-: ") and "-" in l for l in lines)


def is_folded(b):
    lines = b.decode("utf-8").splitlines()
    return bool(lines) and all(" " in l and l.rsplit(" ", 1)[1].isdigit() for l in lines)


def is_table(b):
    return b.count(b"\n") >= 2 and not is_json(b)


CHECKS = {
    "table": is_table, "csv": is_csv, "json": is_json, "markdown": is_markdown,
    "folded": is_folded,
    "svg": lambda b: b.lstrip().startswith((b"<?xml", b"<svg")) and b.rstrip().endswith(b"</svg>"),
    "png": lambda b: b.startswith(b"\x89PNG\r\n\x1a\n"),
    "pdf": lambda b: b.startswith(b"%PDF-") and b"%%EOF" in b[-64:],
    "html": lambda b: b.lstrip().lower().startswith(b"<!doctype html") and
    b.rstrip().lower().endswith(b"</html>"),
    "tdsum": lambda b: b.startswith(b"SQLite format 3\0"),
    "xml": lambda b: b"<testsuite" in b,
    "bash": lambda b: b"complete " in b,
    "zsh": lambda b: b.startswith(b"#compdef"),
    "man": lambda b: b".TH " in b,
}


def run(exe, tmp, args, kind, out=None, ok=(0,)):
    """Runs exe ARGS in tmp; stdout (or the file out) must be a whole
    KIND."""
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8")
    p = subprocess.run([exe] + args, cwd=tmp, capture_output=True, env=env, timeout=600)
    err = p.stderr.decode("utf-8", "replace")
    name = " ".join(a.replace(ROOT + "/", "") for a in args)
    check(name + ": exit status", p.returncode in ok, "exit %d\n%s" % (p.returncode, err[-3000:]))
    check(name + ": no sanitizer report", "Sanitizer" not in err and "runtime error" not in err,
          err[-3000:])
    data = p.stdout
    if out is not None:
        path = os.path.join(tmp, out)
        data = open(path, "rb").read() if os.path.exists(path) else b""
    check(name + ": a whole " + kind, CHECKS[kind](data), repr(data[:200]))


def main():
    exe = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build",
                                                                            "tracediff"))
    tmp = tempfile.mkdtemp(prefix="tracediff-commands-")
    try:
        for f in ("table", "csv", "json", "markdown"):
            run(exe, tmp, ["compare", C, T, "--format", f], f)
        run(exe, tmp, ["compare", C, T, "--format", "folded", "--side", "test"], "folded")
        for f in ("table", "csv", "json"):
            run(exe, tmp, ["ops", C, T, "--format", f], f)
        for f in ("table", "json"):
            run(exe, tmp, ["info", C, "--format", f], f)
        for kind, ext in (("counts", "svg"), ("duration", "png"), ("flame", "pdf"),
                          ("roofline", "svg"), ("breakdown", "png")):
            run(exe, tmp, ["plot", kind, C, T, "-o", kind + "." + ext], ext, out=kind + "." + ext)
        run(exe, tmp, ["report", C, T, "-o", "report.html"], "html", out="report.html")
        run(exe, tmp, ["summarize", C, "-o", "h.tdsum", "--run", "base"], "tdsum", out="h.tdsum")
        run(exe, tmp, ["summarize", T, "-o", "h.tdsum", "--run", "next"], "tdsum", out="h.tdsum")
        for f in ("table", "csv", "json"):
            run(exe, tmp, ["runs", "h.tdsum", "--format", f], f)
            run(exe, tmp, ["trend", "h.tdsum", "--format", f], f)
        run(exe, tmp, ["trend", "h.tdsum", "-o", "trend.svg"], "svg", out="trend.svg")
        run(exe, tmp, ["compare", "h.tdsum#base", T, "--format", "json"], "json")
        for f in ("table", "markdown", "json"):
            run(exe, tmp, ["check", C, T, "--format", f], f, ok=(0, 3))
        run(exe, tmp, ["check", C, T, "--junit", "check.xml"], "xml", out="check.xml", ok=(0, 3))
        for f in ("table", "csv", "json"):
            run(exe, tmp, ["explain", C, T, "aten::mm", "--format", f], f)
        for cmd in ("breakdown", "roofline"):
            for f in ("table", "csv", "json", "markdown"):
                run(exe, tmp, [cmd, C, T, "--format", f], f)
        for sh in ("bash", "zsh"):
            run(exe, tmp, ["completion", sh], sh)
        run(exe, tmp, ["man"], "man")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("commands: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

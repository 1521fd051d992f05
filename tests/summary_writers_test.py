#!/usr/bin/env python3
"""Writers of one summary (docs/summaries.md, "Adding runs").

    summary_writers_test.py TRACEDIFF

Concurrent writers creating one new summary: 20 times with 2 writers and 20
times with 4 (5 and 5 in the instrumented passes, TD_TEST_SUBSET=1), all
started together on a path where no file is yet; every
writer must exit 0 and every run must be in the file (a new file is put in
place only if none appeared meanwhile; else its run is appended to the one
that did).

Names (docs/summaries.md, "A summary is input"): run names are read as
untrusted text. From a real summary of examples/control holding runs `test`
and `other`, `other` is renamed with Python's sqlite3 to `test` NUL `x`
(text, then blob), and to bytes that are not UTF-8; `runs`, `trend`, `info`
and `compare F#test` must then each fail with one "damaged summary" line
naming the file, exit 1, and print no run called `test` twice. At write
time a run name that is not UTF-8 is refused (exit 2, no file).
"""
import os, shutil, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMALL = os.path.join(ROOT, "tests", "golden", "traces", "hta-two_ranks")
passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL summary-writers %s%s" % (name, ": " + detail if detail else ""))


def run(exe, *args, timeout=60):
    try:
        p = subprocess.run([exe] + list(args), capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, b"", b"timed out"
    return p.returncode, p.stdout, p.stderr


def stored_runs(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return sorted(r[0] for r in db.execute("SELECT name FROM runs"))
    finally:
        db.close()


def concurrent_create(exe, tmp, writers, tries):
    out = os.path.join(tmp, "w%d.tdsum" % writers)
    names = ["r%d" % i for i in range(writers)]
    bad = []
    for t in range(tries):
        if os.path.exists(out):
            os.unlink(out)
        procs = [subprocess.Popen([exe, "summarize", SMALL, "-o", out, "--run", n, "-q"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for n in names]
        codes = []
        for p in procs:
            _, err = p.communicate(timeout=120)
            codes.append((p.returncode, err.decode(errors="replace").strip()))
        got = stored_runs(out) if os.path.exists(out) else []
        if any(c != 0 for c, _ in codes) or got != names:
            bad.append("try %d: exits %s, runs %s" % (t, codes, got))
        leftovers = [f for f in os.listdir(tmp) if ".tmp" in f]
        if leftovers:
            bad.append("try %d: left %s" % (t, leftovers))
    check("%d writers create one file, %d times: every run present" % (writers, tries),
          not bad, "; ".join(bad[:3]))
    rc, out_text, _ = run(exe, "runs", out)
    check("%d writers: `runs` lists them all" % writers,
          rc == 0 and all(("\n%s," % n).encode() in out_text for n in names), out_text.decode())


def names_cases(exe, tmp):
    base = os.path.join(tmp, "names.tdsum")
    control = os.path.join(ROOT, "examples", "control")
    for n in ("test", "other"):
        rc, _, err = run(exe, "summarize", control, "-o", base, "--run", n, "-q")
        check("names: summarize --run %s" % n, rc == 0, err.decode(errors="replace"))
    bad_names = [
        ("text with NUL", "test\0x"),
        ("blob with NUL", b"test\0x"),
        ("blob without NUL", b"test"),
        ("invalid UTF-8", b"te\xffst"),
        ("overlong UTF-8", b"\xc0\xaftest"),
        ("surrogate", b"t\xed\xa0\x80"),
    ]
    for label, value in bad_names:
        f = os.path.join(tmp, "bad.tdsum")
        shutil.copy(base, f)
        db = sqlite3.connect(f)
        db.execute("UPDATE runs SET name = ? WHERE name = 'other'", (value,))
        db.commit()
        db.close()
        for args in (["runs", f], ["trend", f], ["info", f + "#test"],
                     ["compare", f + "#test", f + "#test"]):
            rc, out, err = run(exe, *args)
            msg = err.decode(errors="replace").strip()
            check("names: %s: %s" % (label, args[0]),
                  rc == 1 and out.count(b"\ntest,") == 0 and msg.count("\n") == 0 and
                  ("%s: damaged summary" % f) in msg and "UTF-8" in msg,
                  "exit %s, %r, %r" % (rc, msg, out[:200]))
    # the untouched file still reads, and F#test picks the run called test
    rc, out, err = run(exe, "runs", base)
    check("names: valid names list", rc == 0 and b"\ntest," in out and b"\nother," in out,
          err.decode(errors="replace"))
    # a name that is not UTF-8 never gets into a file
    f = os.path.join(tmp, "latin1.tdsum")
    try:
        p = subprocess.run([exe.encode(), b"summarize", control.encode(), b"-o", f.encode(),
                            b"--run", b"caf\xe9", b"-q"], capture_output=True, timeout=60)
        rc, err = p.returncode, p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired:
        rc, err = None, "timed out"
    check("names: --run not UTF-8 refused", rc == 2 and "UTF-8" in err and not os.path.exists(f),
          "exit %s, %r" % (rc, err))


def main():
    exe = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp(prefix="td-writers-")
    try:
        # The instrumented passes (TD_TEST_SUBSET=1): 5 times each, the
        # writers' code under the sanitizers; the plain pass tries the races.
        tries = 5 if cases.instrumented() else 20
        concurrent_create(exe, tmp, 2, tries)
        concurrent_create(exe, tmp, 4, tries)
        names_cases(exe, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("summary-writers: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

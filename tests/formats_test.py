#!/usr/bin/env python3
"""Input formats: one real trace (HTA's trace_compare base) stored as plain
JSON, zstd, gzip under a .json name, plain under a .json.gz name, as a bare
array of events, and with every correlation id moved beyond 32 bits. Each must give the same comparison as the original.

    formats_test.py TRACEDIFF

With TD_TEST_SUBSET=1 (make sanitize) the expected comparisons come from the
plain build (TD_PLAIN_EXE, tests/cases.py: expectation_exe), and each stored
form is read under the first selection only, plain.json under all three:
how a file is read (its compression, its shape, its ids) does not depend on
the selection, which applies to the events once read. The plain pass runs
every form under every selection.
"""
import gzip, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORIG = "tests/golden/traces/hta-trace_compare/base/base.json.gz"
TEST = "tests/golden/traces/hta-trace_compare/test"
D = "tests/data/formats"


def run(exe, *args):
    p = subprocess.run([exe, *args], cwd=ROOT, capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def main():
    exe = os.path.abspath(sys.argv[1])
    ref = cases.expectation_exe(exe)
    subset = cases.subset_ids() is not None
    passed = failed = 0

    def check(name, ok, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"FAIL formats {name} {detail}")

    forms = ("plain.json", "zstd.json.zst", "gzip_in_disguise.json", "plain_named.json.gz",
             # Correlation ids beyond 32 bits (+2^40): kernels find their launch.
             "wide_correlation.json",
             # A bare array has no distributedInfo: it is rank 0, the original rank 1.
             "bare_array.json")
    for k, sel in enumerate((["--device", "all"], ["--device", "gpu", "--short-names"],
                             ["--control-iteration", "all", "--test-iteration", "all"])):
        rc, want, err = run(ref, "compare", ORIG, TEST, "--format", "csv", *sel)
        check("original " + " ".join(sel), rc == 0 and want.count("\n") > 1, err)
        for f in forms if k == 0 or not subset else forms[:1]:
            rc, got, err = run(exe, "compare", os.path.join(D, f), TEST, "--format", "csv", *sel)
            check(f"{f} {' '.join(sel)}", rc == 0 and got == want, err.strip()[:200])
    # Plain files of a megabyte or more are mapped, not read: same numbers,
    # and the same byte offsets in errors.
    big = "tests/golden/traces/hta-trace_diff/control/control.json.gz"
    with tempfile.TemporaryDirectory() as tmp:
        plain = os.path.join(tmp, "control.json")
        with gzip.open(os.path.join(ROOT, big)) as src, open(plain, "wb") as dst:
            data = src.read()
            dst.write(data)
        for sel in (["--device", "all"], ["--control-iteration", "all", "--device", "gpu"]):
            _, want, _ = run(ref, "compare", big, "tests/golden/traces/hta-trace_diff/test",
                             "--format", "csv", *sel)
            rc, got, err = run(exe, "compare", plain, "tests/golden/traces/hta-trace_diff/test",
                               "--format", "csv", *sel)
            check(f"mapped plain {' '.join(sel)}", rc == 0 and got == want and want, err[:200])
        cut = os.path.join(tmp, "cut.json")
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2])
        gz = os.path.join(tmp, "cut.json.gz")
        with gzip.open(gz, "wb") as f:
            f.write(data[:len(data) // 2])
        rc1, _, e1 = run(exe, "info", cut)
        rc2, _, e2 = run(exe, "info", gz)
        check("mapped truncated file: same error as streamed",
              rc1 == 1 and rc2 == 1 and e1.replace(cut, "F") == e2.replace(gz, "F") and "byte" in e1,
              f"{e1!r} {e2!r}")
    rc, out, _ = run(exe, "info", os.path.join(D, "zstd.json.zst"), "--format", "json")
    check("info names zstd", rc == 0 and '"compression": "zstd"' in out)
    rc, out, _ = run(exe, "info", os.path.join(D, "gzip_in_disguise.json"), "--format", "json")
    check("info names gzip by content", rc == 0 and '"compression": "gzip"' in out)
    rc, out, _ = run(exe, "info", os.path.join(D, "bare_array.json"), "--format", "json")
    check("bare array is rank 0", rc == 0 and '"rank": 0' in out)
    print(f"formats: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

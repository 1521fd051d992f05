#!/usr/bin/env python3
"""One plain trace file read by several threads (-j, docs/architecture.md):
the output must be the serial reader's, byte for byte.

    split_test.py TRACEDIFF

TD_SPLIT=N forces every plain file into N pieces, however small. Checks:
- the golden cases of the subset (all with TD_TEST_SUBSET=0, as make
  check-all sets it), their traces decompressed to plain JSON, with -j 1
  and -j 4 (golden_test.py --jobs-check) under TD_SPLIT=4, and the golden
  numbers still matched;
- ops, compare --by op, --stats and info, and summaries, on a few of them;
- generated traces whose naive cut points fall inside long strings full of
  escaped quotes and braces, inside nested args, a bare array of events,
  metadata after traceEvents, a repeated traceEvents key, and pieces of
  several event blocks each;
- corrupt traces: the same error message and byte offset with -j 1 and -j 4.

The instrumented passes (TD_TEST_SUBSET=1) check the cut files' reading
alone: the serial reader's output (-j 1) comes from the plain build
(tests/cases.py: expectation_exe; every other suite runs that reader
instrumented), fewer piece counts run per file (the smallest and largest
for compare, one for the other commands), and the reference cases run with
-j 4 only, matched against their numbers, instead of every way of loading
(the golden suite runs those on the subset).
"""
import gzip, json, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as reference  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SUBSET = reference.instrumented()
failures = []
passed = 0
REF = None  # the -j 1 side: set by main()


def run(exe, args, split=None):
    env = dict(os.environ)
    env.pop("TD_SPLIT", None)
    if split:
        env["TD_SPLIT"] = str(split)
    p = reference.run_once([exe] + args, env=env)
    return p.returncode, p.stdout, p.stderr


def check(name, ok, detail=""):
    global passed
    if ok:
        passed += 1
    else:
        failures.append(name)
        print(f"FAIL split {name} {detail}")


def same(exe, name, args, splits=(2, 4, 7), subset_splits=(4,)):
    """args with -j 1 (no cut) against -j 4 with each TD_SPLIT (subset_splits
    in the instrumented passes)."""
    ref = run(REF, args + ["-j", "1"])
    for s in (subset_splits if SUBSET else splits):
        got = run(exe, args + ["-j", "4"], split=s)
        check(f"{name} TD_SPLIT={s}", got == ref,
              f"\n -j 1: {ref[0]} {ref[2][:300]!r}\n -j 4: {got[0]} {got[2][:300]!r}")
    return ref


def plain_golden(tmp):
    root = os.path.join(tmp, "golden")
    shutil.copytree(os.path.join(HERE, "golden"), root)
    for d, _, files in os.walk(os.path.join(root, "traces")):
        for f in files:
            if f.endswith(".json.gz"):
                src = os.path.join(d, f)
                with gzip.open(src, "rb") as i, open(src[:-3], "wb") as o:
                    shutil.copyfileobj(i, o)
                os.remove(src)
    return root


def golden(exe, root):
    # The subset of the cases (tests/cases.py), unless TD_TEST_SUBSET=0 asks
    # for all: how a file is cut into pieces does not depend on the case, and
    # the generated traces below put the cut points where they are hardest.
    env = dict(os.environ, TD_SPLIT="4")
    env.setdefault("TD_TEST_SUBSET", "1")
    ways = ["-j", "4"] if SUBSET else ["--jobs-check"]
    p = subprocess.run([sys.executable, os.path.join(HERE, "golden_test.py"), exe,
                        os.path.join(root, "cases.json"), *ways, "--parallel", "2"],
                       capture_output=True, text=True, env=env)
    print(p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr[-500:])
    check("golden %s, plain, TD_SPLIT=4" % ("-j 4" if SUBSET else "-j 1 / -j 4"),
          p.returncode == 0, p.stdout[-2000:])


def commands(exe, root, tmp):
    t = os.path.join(root, "traces")
    pairs = [(f"{t}/hta-trace_diff/control", f"{t}/hta-trace_diff/test"),
             (f"{t}/kineto-resnet50_workers0", f"{t}/kineto-resnet50_workers4")]
    for c, s in pairs:
        tag = os.path.basename(c)
        same(exe, f"compare {tag}", ["compare", c, s, "--format", "csv"])
        same(exe, f"ops {tag}", ["ops", c, s, "--format", "json"])
        same(exe, f"by op {tag}", ["compare", c, s, "--by", "op", "--format", "csv"])
        same(exe, f"stats {tag}", ["compare", c, s, "--stats", "--format", "csv"])
        same(exe, f"info {tag}", ["info", c])
    c, s = pairs[0]
    want = run(REF, ["compare", c, s, "--format", "csv", "-j", "1"])
    sums = []
    for j, split in (("1", None), ("4", 4)):
        out = os.path.join(tmp, f"c{j}.tdsum")
        rc = run(exe, ["summarize", c, "-o", out, "-j", j], split=split)
        check(f"summarize -j {j}", rc[0] == 0, rc[2][:300])
        sums.append(run(exe, ["compare", out, s, "--format", "csv"], split=split))
    check("summaries -j 1 / -j 4", sums[0] == sums[1] == want)


EVENT = ('{"ph": "X", "cat": "%s", "name": "%s", "pid": 1, "tid": %d, "ts": %d, "dur": %d, '
         '"args": {"stream": %d, "correlation": %d%s}}')


def events(n, nasty_every=0, seed=1):
    out = []
    for i in range(n):
        extra = ""
        if nasty_every and i % nasty_every == 0:
            # A long string that looks like many event boundaries, with
            # escaped quotes and braces, and nested objects in arrays.
            fake = ('}, {\\"ph\\": \\"X\\", \\"name\\": \\"}\\\\\\"{\\"},\\n  {\\"cat\\": 1}' * 40)
            # Strings that end in "}, {" look like a cut to the byte scan.
            extra = (', "note": "%s}, {", "}, {": "%s},\\n {", "nested": [{"a": 1}, '
                     '{"b": "}, {\\"c\\": 2}"}, [{"d": [{}, {}]}]]' % (fake, fake))
        kind = i % 3
        cat = ["cpu_op", "kernel", "cuda_runtime"][kind]
        name = ["aten::mm", "gemm_kernel_%d" % (i % 17), "cudaLaunchKernel"][kind] if i % 50 \
            else "ProfilerStep#%d" % (i // 50)
        if not i % 50:
            cat = "user_annotation"
        stream = 7 if kind == 1 else -1
        out.append(EVENT % (cat, name, i % 4, 1000 + i * 10, 5 + (i * seed) % 13, stream,
                            i // 3, extra))
    return out


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def generated(exe, tmp):
    ev = events(3000, nasty_every=2)
    sep = ",\n  "
    body = "[\n  " + sep.join(ev) + "\n]"
    files = {
        "nasty": '{"schemaVersion": 1, "traceEvents": %s}' % body,
        # Some cuts fall in strings (stepped over), some between events.
        "nasty_sparse": '{"traceEvents": [\n  %s\n]}' % sep.join(events(3000, 9)),
        "nasty_compact": '{"traceEvents": [%s]}' % ",".join(ev),
        "bare_array": body,
        "meta_after": ('{"traceEvents": %s, "distributedInfo": {"rank": 3}, '
                       '"deviceProperties": [{"name": "X1"}], "traceName": "}, {\\"x\\": 1}"}'
                       % body),
        "repeated": ('{"traceEvents": %s, "traceEvents": [%s]}'
                     % ("[\n  " + sep.join(events(1500, 5, seed=3)) + "\n]",
                        sep.join(events(2000, 3)))),
        "plain_events": '{"traceEvents": [\n  %s\n]}' % sep.join(events(4000)),
        # Pieces of several event blocks (16,384 events each), merged into
        # a last block with room left.
        "many_blocks": '{"traceEvents": [\n  %s\n]}' % sep.join(events(70000, seed=7)),
    }
    other = os.path.join(tmp, "other.json")
    write(other, '{"traceEvents": [\n  %s\n]}' % sep.join(events(500, seed=5)))
    for name, text in files.items():
        json.loads(text)  # the generator writes valid JSON
        p = os.path.join(tmp, name + ".json")
        write(p, text)
        ref = same(exe, name, ["compare", p, other, "--format", "csv"], splits=(2, 3, 5, 8, 16),
                   subset_splits=(2, 16))
        check(f"{name} loads", ref[0] == 0, ref[2][:300])
        same(exe, f"{name} by op", ["compare", p, other, "--by", "op", "--format", "csv"],
             splits=(4, 16), subset_splits=(16,))
        same(exe, f"{name} info", ["info", p], splits=(4, 16), subset_splits=(4,))


def corrupt(exe, tmp):
    base = '{"traceEvents": [\n  %s\n]}' % ",\n  ".join(events(4000, nasty_every=7))
    n = len(base)
    cases = {
        "truncated": base[: n * 2 // 3],
        "bad byte at 60%": base[: n * 3 // 5] + "\x01" + base[n * 3 // 5 + 1:],
        "missing comma at 80%": base[: base.index("},\n  {", n * 4 // 5)] + "}\n  "
        + base[base.index("},\n  {", n * 4 // 5) + 4:],
        "bad number at 30%": base[: n * 3 // 10] + base[n * 3 // 10:].replace('"ts": ', '"ts": 01', 1),
        "end of array missing": base[:-2] + "}",
    }
    for name, text in cases.items():
        p = os.path.join(tmp, "corrupt.json")
        write(p, text)
        ref = same(exe, f"corrupt {name}", ["info", p], splits=(2, 4, 9), subset_splits=(2, 9))
        check(f"corrupt {name} fails at a byte offset", ref[0] == 1 and b": byte " in ref[2],
              ref[2][:300])


def main():
    global REF
    exe = os.path.abspath(sys.argv[1])
    REF = reference.expectation_exe(exe)
    with tempfile.TemporaryDirectory() as tmp:
        root = plain_golden(tmp)
        generated(exe, tmp)
        corrupt(exe, tmp)
        commands(exe, root, tmp)
        golden(exe, root)
    print(f"split: {passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Stacks and shapes from summaries (docs/summaries.md, "Stacks and shapes").

    summary_stacks_test.py TRACEDIFF

- each pair (the two tracelens pairs, hta-two_ranks against itself, and a
  pair of 2-rank, 4-iteration sets made from the bert traces by
  bench/gen_trace.py with --jitter) is summarized, and every command that
  reads stacks or shapes gives from the summaries the bytes it gives from
  the traces, exit status and messages included: compare --format folded
  (both sides), --by module (table, csv, json, --exclusive, --stats), explain
  --by module, plot flame (SVG), roofline (table, json, csv, --stats), plot
  roofline (SVG), compare --by op --with-rate, and report (the whole page);
  under the selections the commands take (ranks, iterations, every
  iteration, --per-iteration, --normalize-names --short-names, -j 1);
  the only difference allowed is the note on HTA's rounding, whose moved
  rows need each event's own duration (docs/numbers.md);
- a summary written by an older tracediff (schema 3, tests/data): compare
  answers as before; folded, --by module, plot flame, roofline and
  --with-rate stop with one line naming the summary and saying to
  re-summarize (exit 2, as the refusal it replaces; nothing written); report still writes its page,
  the flame and Why sections saying so; adding a run raises it to
  schema 4 and the new run answers the roofline;
- a summary made with --device cpu keeps no roofline inputs: roofline says
  so, naming it; one made with --iteration answers the roofline of the
  iteration it kept as the traces do;
- the CPU stacks (schema 5): every command above that takes --device cpu
  (folded, --by module, --stats, plot flame, report) gives
  from the summaries the traces' bytes, on every pair above and on every
  shared trace set with CPU events (against itself); a summary written by
  the tracediff before them (schema 4, tests/data) still answers the GPU
  stacks, and refuses the CPU's by name, saying to re-summarize (exit 2);
  a run added to it has them.

Under TD_TEST_SUBSET=1 (make sanitize) the summaries' side runs
instrumented and the traces' side with the plain build (TD_PLAIN_EXE), and
the loops run a fixed part of their rounds: every command on each pair's
first selection (bert, hta-two_ranks, the 2x4 sets), and on the other
selections (and the falconsai pair) one command in six, in turn
(command i on selection k when i % 6 == k % 6), so that each
selection reads the summaries through several commands; each shared trace
set runs one of the four CPU commands, in turn. selections, schema3 and
schema4 run whole. The instrumented pass keeps every line of src/ it ran
with one command in three (scripts/choose_subset.py unique-lines).
"""
import csv, gzip, io, os, re, shutil, sqlite3, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as reference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLD = os.path.join(ROOT, "tests", "golden", "traces")
TD_SCHEMA = 5  # include/tracediff.h
passed = failed = 0
# The instrumented passes (TD_TEST_SUBSET=1): see the docstring.
SUBSET = reference.subset_ids() is not None
# The traces' side of every comparison: the plain build in the instrumented
# passes (tests/cases.py: expectation_exe), set by main().
CLI = None


ROUNDING = re.compile(rb"tracediff: note: HTA's rounding of decimal timestamps[^\n]*\n")
ROUNDING_LI = re.compile(rb'<li class="rounding">[^<]*</li>\n')
EMPTY_NOTES = b'<h2>Notes</h2>\n<ul class="notes" id="notes">\n</ul>\n'


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        print("FAIL summary_stacks %s%s" % (name, ": " + detail if detail else ""))


def run(exe, *args):
    p = subprocess.run([exe] + list(args), capture_output=True, timeout=600, cwd=ROOT)
    return p.returncode, p.stdout, p.stderr


def plain(r):
    """A run's status, output and messages, without the rounding note (the
    rows the rounding moved need the traces: docs/numbers.md) and with the
    summary's path in messages read as the trace set's."""
    rc, out, err = r
    out = ROUNDING_LI.sub(b"", out).replace(EMPTY_NOTES, b"")
    return rc, out, ROUNDING.sub(b"", err)


def same(exe, name, args, traces, sums, files=()):
    """args with {C} {T} replaced by the traces, then by the summaries: the
    same status, output, messages and written files."""
    outs = []
    for prog, (c, t) in ((CLI, traces), (exe, sums)):
        a = [x.replace("{C}", c).replace("{T}", t) for x in args]
        r = run(prog, *a)
        # messages name the summary where they name the set, and a file by
        # its trace's path either way
        err = r[2]
        for p, q in zip(traces + sums, (b"{C}", b"{T}", b"{C}", b"{T}")):
            err = err.replace(p.encode(), q)
        r = (r[0], r[1], err)
        got = [open(f, "rb").read() if os.path.exists(f) else None for f in files]
        for f in files:
            if os.path.exists(f):
                os.remove(f)
        outs.append((plain(r), got))
    (ra, fa), (rb, fb) = outs
    ok = ra == rb and fa == fb and ra[0] == 0 and (ra[1] or any(fa))
    detail = ""
    if not ok:
        detail = "rc %d/%d; out %d/%d bytes equal %s; err %r / %r; files equal %s" % (
            ra[0], rb[0], len(ra[1]), len(rb[1]), ra[1] == rb[1], ra[2][:300], rb[2][:300],
            fa == fb)
    check(name, ok, detail)


def a_module(exe, c, t):
    """The first module path of compare --by module --exclusive's csv (for
    explain): one with GPU events of its own."""
    rc, out, _ = run(exe, "compare", c, t, "--by", "module", "--exclusive", "--format", "csv",
                     "-q")
    best, most = None, 0
    for row in csv.DictReader(io.StringIO(out.decode())) if rc == 0 else []:
        t = float(row["control_total_duration"] or 0)
        if not row["module"].startswith("(") and t > most:
            best, most = row["module"], t
    return best


def pair_checks(exe, tmp, label, traces, sums, sels, modules=True, first=True):
    """modules: the traces have nn.Module events (without them --by module
    gives rows by top op, whose call samples a summary does not keep:
    docs/stats.md; those take --samples iteration here)."""
    c, t = traces
    module = a_module(CLI, c, t) if modules else None
    svg = os.path.join(tmp, "out.svg")
    cmds = [
        ("folded control", ["compare", "{C}", "{T}", "--format", "folded", "--side", "control"]),
        ("folded test", ["compare", "{C}", "{T}", "--format", "folded", "--side", "test"]),
        ("--by module", ["compare", "{C}", "{T}", "--by", "module"]),
        ("--by module csv", ["compare", "{C}", "{T}", "--by", "module", "--format", "csv"]),
        ("--by module json --exclusive",
         ["compare", "{C}", "{T}", "--by", "module", "--format", "json", "--exclusive"]),
        ("--by module --stats", ["compare", "{C}", "{T}", "--by", "module", "--stats"]),
        ("--by module --exclusive --stats json",
         ["compare", "{C}", "{T}", "--by", "module", "--exclusive", "--stats", "--format", "json"]),
        ("roofline", ["roofline", "{C}", "{T}"]),
        ("roofline json", ["roofline", "{C}", "{T}", "--format", "json"]),
        ("roofline --stats", ["roofline", "{C}", "{T}", "--stats"]),
        ("roofline --stats json", ["roofline", "{C}", "{T}", "--stats", "--format", "json"]),
        ("roofline --stats --samples call",
         ["roofline", "{C}", "{T}", "--stats", "--samples", "call", "--format", "json"]),
        ("--by module --stats --samples call",
         ["compare", "{C}", "{T}", "--by", "module", "--stats", "--samples", "call"]),
        ("--with-rate", ["compare", "{C}", "{T}", "--by", "op", "--with-rate"]),
        ("--with-rate csv", ["compare", "{C}", "{T}", "--by", "op", "--with-rate", "--format", "csv"]),
        ("report", ["report", "{C}", "{T}", "-o", "-"]),
    ]
    if module:
        cmds.append(("explain --by module", ["explain", "{C}", "{T}", module, "--by", "module"]))
        cmds.append(("explain --by module --exclusive json",
                     ["explain", "{C}", "{T}", module, "--by", "module", "--exclusive",
                      "--format", "json"]))
    check("%s: a module to explain" % label, module is not None or not modules)
    cmds.append(("plot flame", ["plot", "flame", "{C}", "{T}", "-o", svg]))
    cmds.append(("plot roofline", ["plot", "roofline", "{C}", "{T}", "-o", svg]))
    cmds += cpu_cmds(svg)
    for k, sel in enumerate(sels):
        for i, (name, args) in enumerate(cmds):
            if SUBSET and (k or not first) and i % 6 != k % 6:
                continue
            # the options each command takes: roofline has no --per-iteration
            # nor name folding (its rows are ops and shapes), explain no
            # --per-iteration
            roof = "roofline" in args
            if ("--per-iteration" in sel and (roof or args[0] == "explain")) or (
                    "--normalize-names" in sel and (roof or args[0] == "explain")):
                continue
            if not modules and "module" in args and "--stats" in args:
                if "call" in args:
                    continue
                args = args + ["--samples", "iteration"]
            same(exe, "%s %s %s" % (label, name, " ".join(sel)), args + sel, traces, sums,
                 [svg] if args[0] == "plot" else [])


def cpu_cmds(svg):
    """The commands that give the CPU stacks (--device cpu, docs/stacks.md)."""
    cpu = ["--device", "cpu"]
    return [
        ("cpu folded control",
         ["compare", "{C}", "{T}", "--format", "folded", "--side", "control"] + cpu),
        ("cpu folded test", ["compare", "{C}", "{T}", "--format", "folded", "--side", "test"] + cpu),
        ("cpu --by module", ["compare", "{C}", "{T}", "--by", "module"] + cpu),
        ("cpu --by module json --exclusive",
         ["compare", "{C}", "{T}", "--by", "module", "--exclusive", "--format", "json"] + cpu),
        ("cpu --by module --stats",
         ["compare", "{C}", "{T}", "--by", "module", "--stats", "--samples", "iteration"] + cpu),
        ("cpu plot flame", ["plot", "flame", "{C}", "{T}", "-o", svg] + cpu),
        ("cpu report", ["report", "{C}", "{T}", "-o", "-"] + cpu),
    ]


def shared_sets(exe, tmp):
    """Every shared trace set with CPU events, against itself: its CPU
    stacks from its summary equal the traces'."""
    svg = os.path.join(tmp, "out.svg")
    j = 0
    for name in sorted(os.listdir(GOLD)):
        d = os.path.join(GOLD, name)
        if not os.path.isdir(d) or name == "profilers":
            continue
        rc, out, _ = run(CLI, "compare", d, d, "--device", "cpu", "--format", "csv", "-q")
        if rc != 0 or out.count(b"\n") < 2:
            continue  # no CPU events
        s = summarize(exe, tmp, d, "cpu_" + name)
        j += 1
        for label, args in cpu_cmds(svg)[:4] if not SUBSET else [cpu_cmds(svg)[j % 4]]:
            same(exe, "%s %s" % (name, label), args, (d, d), (s, s),
                 [svg] if args[0] == "plot" else [])


def summarize(exe, tmp, path, name, *extra):
    out = os.path.join(tmp, name + ".tdsum")
    rc, _, err = run(exe, "summarize", path, "-o", out, *extra)
    check("summarize %s" % name, rc == 0, err.decode("utf-8", "replace"))
    return out


def pairs(exe, tmp):
    quick = [[]]
    for a, b in (("bert_h100", "bert_mi300"), ("falconsai_h100", "falconsai_mi300")):
        traces = (os.path.join(GOLD, "tracelens-" + a), os.path.join(GOLD, "tracelens-" + b))
        sums = (summarize(exe, tmp, traces[0], a), summarize(exe, tmp, traces[1], b))
        sels = quick + ([["--normalize-names", "--short-names"], ["-j", "1"]]
                        if a == "bert_h100" else [])
        pair_checks(exe, tmp, a, traces, sums, sels, first=a == "bert_h100")
    two = os.path.join(GOLD, "hta-two_ranks")
    s = summarize(exe, tmp, two, "two")
    pair_checks(exe, tmp, "hta-two_ranks", (two, two), (s, s),
                [[], ["--control-rank", "1", "--test-rank", "0"],
                 ["--control-iteration", "all", "--test-iteration", "552"]], modules=False)
    # 2 ranks of 12 iterations, the test side's durations jittered
    src = os.path.join(GOLD, "tracelens-bert_h100")
    src = os.path.join(src, os.listdir(src)[0])
    gen = os.path.join(ROOT, "bench", "gen_trace.py")
    made = []
    for side, extra in (("c", []), ("t", ["--jitter", "--seed", "7"])):
        d = os.path.join(tmp, "ranks_" + side)
        p = subprocess.run([sys.executable, gen, "ranks", "--input", src, "--ranks", "2",
                            "--scale", "4", "--out", d, "--gzip"] + extra,
                           capture_output=True, text=True)
        check("gen_trace ranks %s" % side, p.returncode == 0, p.stderr[-300:])
        made.append(d)
    sums = (summarize(exe, tmp, made[0], "rc"), summarize(exe, tmp, made[1], "rt"))
    rc, out, _ = run(CLI, "info", made[0])
    check("the generated set has 2 ranks and 4 steps",
          rc == 0 and re.search(rb"files +2\n", out) is not None and
          re.search(rb"steps +6\S+9 \(4\)", out) is not None, out[:300].decode())
    pair_checks(exe, tmp, "2x4", tuple(made), sums,
                [[], ["--control-rank", "1", "--test-rank", "all", "--control-iteration", "all",
                      "--test-iteration", "7,8"],
                 ["--per-iteration", "--control-iteration", "all", "--test-iteration", "all"],
                 ["--normalize-names", "--short-names", "--control-rank", "all"]])


def selections(exe, tmp):
    bert = os.path.join(GOLD, "tracelens-bert_h100")
    cpu = summarize(exe, tmp, bert, "cpu", "--device", "cpu")
    rc, out, err = run(exe, "roofline", cpu, bert)
    check("roofline of a --device cpu summary: refused, naming it",
          rc == 2 and not out and cpu.encode() in err and b"--device cpu" in err, err[:300])
    # a summary of the GPU alone cannot give the CPU's stacks: an error
    # naming it, as for every command asking for a device it did not keep
    gpu = summarize(exe, tmp, bert, "gpu", "--device", "gpu")
    rc, out, err = run(exe, "compare", gpu, bert, "--format", "folded", "--side", "test",
                       "--device", "cpu")
    check("folded --device cpu of a --device gpu summary: refused, naming it",
          rc != 0 and not out and gpu.encode() in err, err[:300])
    two = os.path.join(GOLD, "hta-two_ranks")
    it = summarize(exe, tmp, two, "it", "--iteration", "552")
    for args in (["roofline"], ["roofline", "--stats", "--format", "json"],
                 ["compare", "--format", "folded", "--side", "control"],
                 ["compare", "--by", "module", "--stats", "--samples", "iteration"]):
        for ranks in (["--control-rank", "0"], ["--control-rank", "all", "--test-rank", "1"]):
            sel = ranks + ["--control-iteration", "552", "--test-iteration", "551"]
            a = plain(run(CLI, args[0], two, two, *args[1:], *sel))
            b = plain(run(exe, args[0], it, two, *args[1:], *sel))
            check("summary of iteration 552: %s %s equals the traces'" % (" ".join(args), ranks),
                  a[0] == 0 and a[:2] == b[:2], "%r / %r" % (a[2][:200], b[2][:200]))
    rc, out, err = run(exe, "roofline", it, two, "--control-iteration", "551")
    check("a summary of iteration 552 asked for 551: refused, naming it",
          rc == 1 and not out and it.encode() in err, err[:300])


def schema3(exe, tmp):
    v3 = os.path.join(tmp, "v3.tdsum")
    open(v3, "wb").write(gzip.open(os.path.join(ROOT, "tests/data/summary_schema3.tdsum.gz")).read())
    check("the old summary is schema 3",
          sqlite3.connect(v3).execute("PRAGMA user_version").fetchone()[0] == 3)
    bert = os.path.join(GOLD, "tracelens-bert_h100")
    a = plain(run(CLI, "compare", bert, bert, "--format", "csv"))
    b = plain(run(exe, "compare", v3, v3, "--format", "csv"))
    check("schema 3: compare answers as before", a[0] == 0 and a[:2] == b[:2], b[2][:300])
    svg = os.path.join(tmp, "v3.svg")
    for args in (["compare", v3, bert, "--format", "folded", "--side", "test"],
                 ["compare", bert, v3, "--by", "module"],
                 ["plot", "flame", v3, v3, "-o", svg],
                 ["explain", v3, v3, "BertModel_0", "--by", "module"]):
        rc, out, err = run(exe, *args)
        check("schema 3: %s %s refused, saying to re-summarize" % (args[0], args[-2]),
              rc == 2 and not out and not os.path.exists(svg) and err.count(b"\n") == 1 and
              err.startswith(b"tracediff: " + v3.encode() + b"#bert: no stacks") and
              b"re-summarize" in err, err[:300])
    for args in (["roofline", v3, bert], ["roofline", bert, v3, "--stats"],
                 ["plot", "roofline", v3, bert, "-o", svg],
                 ["compare", v3, bert, "--by", "op", "--with-rate"]):
        rc, out, err = plain(run(exe, *args))
        check("schema 3: %s refused, saying to re-summarize" % " ".join(args[:2]),
              rc == 2 and not out and not os.path.exists(svg) and
              (v3.encode() + b"#bert") in err and b"re-summarize" in err and
              err.count(b"\n") == 1, err[:300])
    rc, out, err = run(exe, "report", v3, bert, "-o", "-")
    check("schema 3: report still writes its page, the flame section saying why",
          rc == 0 and b'id="td-flame-none"' in out and b"re-summarize" in out, err[:300])
    # Adding a run raises the file to this schema; the new run has it all.
    rc, _, err = run(exe, "summarize", bert, "-o", v3, "--run", "new")
    check("schema 3 + a run: schema %d" % TD_SCHEMA,
          rc == 0 and sqlite3.connect(v3).execute("PRAGMA user_version").fetchone()[0] == TD_SCHEMA,
          err[:300])
    a = plain(run(CLI, "roofline", bert, bert))
    b = plain(run(exe, "roofline", v3 + "#new", bert))
    check("the new run answers the roofline", a[0] == 0 and a[:2] == b[:2], b[2][:300])
    rc, _, err = run(exe, "roofline", v3 + "#bert", bert)
    check("the old run still says to re-summarize", rc == 2 and b"re-summarize" in err, err[:300])


def schema4(exe, tmp):
    """A summary written before summaries kept the CPU stacks."""
    v4 = os.path.join(tmp, "v4.tdsum")
    open(v4, "wb").write(gzip.open(os.path.join(ROOT, "tests/data/summary_schema4.tdsum.gz")).read())
    check("the old summary is schema 4",
          sqlite3.connect(v4).execute("PRAGMA user_version").fetchone()[0] == 4)
    bert = os.path.join(GOLD, "tracelens-bert_h100")
    for args in (["--format", "folded", "--side", "test"], ["--by", "module"]):
        a = plain(run(CLI, "compare", bert, bert, *args))
        b = plain(run(exe, "compare", v4, bert, *args))
        check("schema 4: %s of the GPU equals the traces'" % args[1],
              a[0] == 0 and a[:2] == b[:2], b[2][:300])
    svg = os.path.join(tmp, "v4.svg")
    for args in (["compare", v4, bert, "--format", "folded", "--side", "test"],
                 ["compare", bert, v4, "--by", "module"],
                 ["compare", v4, v4, "--by", "module", "--exclusive"],
                 ["plot", "flame", v4, bert, "-o", svg]):
        rc, out, err = plain(run(exe, *args, "--device", "cpu"))
        check("schema 4: %s %s --device cpu refused, saying to re-summarize" % (args[0], args[-2]),
              rc == 2 and not out and not os.path.exists(svg) and err.count(b"\n") == 1 and
              err.startswith(b"tracediff: " + v4.encode() + b"#bert: no CPU stacks") and
              b"re-summarize" in err, err[:300])
    rc, out, err = run(exe, "report", v4, bert, "-o", "-", "--device", "cpu")
    check("schema 4: report --device cpu writes its page, the flame section saying why",
          rc == 0 and b'id="td-flame-none"' in out and b"re-summarize" in out, err[:300])
    rc, _, err = run(exe, "summarize", bert, "-o", v4, "--run", "new")
    check("schema 4 + a run: schema %d" % TD_SCHEMA,
          rc == 0 and sqlite3.connect(v4).execute("PRAGMA user_version").fetchone()[0] == TD_SCHEMA,
          err[:300])
    args = ["--format", "folded", "--side", "control", "--device", "cpu"]
    a = plain(run(CLI, "compare", bert, bert, *args))
    b = plain(run(exe, "compare", v4 + "#new", bert, *args))
    check("the new run answers the CPU stacks", a[0] == 0 and a[:2] == b[:2], b[2][:300])
    rc, _, err = run(exe, "compare", v4 + "#bert", bert, *args)
    check("the old run still says to re-summarize", rc == 2 and b"re-summarize" in err, err[:300])


def main():
    global CLI
    exe = os.path.abspath(sys.argv[1])
    CLI = reference.expectation_exe(exe)
    tmp = tempfile.mkdtemp(prefix="td_sumstk_")
    try:
        pairs(exe, tmp)
        selections(exe, tmp)
        schema3(exe, tmp)
        schema4(exe, tmp)
        shared_sets(exe, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("summary_stacks: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

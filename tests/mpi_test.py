#!/usr/bin/env python3
"""tracediff-mpi tests (docs/cluster.md).

    mpi_test.py TRACEDIFF      (tracediff-mpi is looked for beside it)

- two generated sets of 64 ranks each (16 in the instrumented passes; the
  bundled traces, distributedInfo.rank renumbered, written to a temporary
  folder): compare (several rank, iteration
  and device selections, --short-names, --hta-strict; every format on the
  first), ops (three of the selections),
  info, plot, report and breakdown (default, --per-rank, --hta-scope, csv)
  through `mpirun -n 4` give the bytes the single-process CLI gives; a
  summary made by `mpirun -n 4 ... summarize` holds the same rows, hashes
  and run as the CLI's, and compares and breaks down the same;
- -n 1, and more processes than files, give the same bytes too;
- a corrupt gzip file among the 64: exit 1 within seconds, one message on
  stderr naming the file; a missing set and usage errors: the CLI's message;
- under TD_TEST_SUBSET=1 (the instrumented passes) the jobs above and those
  on real traces that tests/subset/mpi.txt names (chosen by line coverage:
  scripts/choose_subset.py choose-mpi), the errors of listing the sets
  only, one stop signal, and the subset's reference cases in one batch;
- the reference cases of tests/golden/cases.json that check a way of
  loading (the first of each load key and the subset's, tests/cases.py;
  every case with TD_TEST_FULL=1): compare --format csv through
  `mpirun -n 2 tracediff-mpi --batch` is byte-identical to the CLI (two
  batches side by side, each pair's lines in one of them; ops --format json
  for one case of each pair);
- --batch runs every line and exits with the first failing line's status;
- SIGINT, SIGTERM or SIGHUP to the process writing a summary leaves no
  temporary file and no output.

Without mpirun or tracediff-mpi the suite is skipped with a message; in CI
(CI set in the environment) that counts as a failure.
"""
import concurrent.futures, gzip, json, os, re, shutil, signal, sqlite3, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as reference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLD = os.path.join(ROOT, "tests", "golden")
TRACES = os.path.join(GOLD, "traces")
# -q: no banner of mpirun's own when a process exits non-zero.
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-q"]
check = reference.Checks("mpi")
# The instrumented passes (TD_TEST_SUBSET=1): the jobs of
# tests/subset/mpi.txt, and the subset's reference cases.
SUBSET = reference.instrumented()
# Ranks per generated set: 64 in the plain pass; 16 in the instrumented
# passes, where every line of a batch reads both sets instrumented (each
# file is read whole for its rank), with the same eight sources and the
# same source behind each selected rank (rank()), still four files per
# process at -n 4: the same lines of src/ run (scripts/choose_subset.py
# choose-mpi prints them).
RANKS = 16 if SUBSET else 64


def rank(r):
    """Rank r of the 64-rank sets in sets of RANKS ranks: the same source
    (sources cycle every 8 ranks)."""
    return r if r < RANKS else RANKS - 8 + r % 8

# Sources of the generated ranks, cycled; sizes differ, so the division by
# bytes is exercised.
CONTROL_SRC = ["hta-two_ranks/sampled_rank-0.json.gz", "tracelens-bert_h100", "hta-amd",
               "hta-triton", "hta-two_ranks/sampled_rank-1.json.gz", "hta-cpu_only",
               "hta-no_steps", "tracelens-falconsai_h100"]
TEST_SRC = ["hta-two_ranks/sampled_rank-1.json.gz", "tracelens-bert_mi300", "hta-triton",
            "hta-amd", "hta-no_rank", "hta-two_ranks/sampled_rank-0.json.gz", "hta-cpu_only",
            "tracelens-falconsai_mi300"]


SIGPIPE_RERUNS = []


def run(cmd, timeout=600):
    t = time.time()
    for attempt in range(2):
        env = None
        with tempfile.TemporaryDirectory(prefix="mpi-session-") as session:
            if cmd[0] == "mpirun":
                # Each mpirun gets its own session directory: Open MPI 4 puts
                # every job under one /tmp/ompi.HOST.UID and removes it when a
                # job ends, so concurrent jobs can lose it under each other
                # ("ORTE_ERROR_LOG ... session_dir.c").
                env = dict(os.environ, TMPDIR=session, OMPI_MCA_orte_tmpdir_base=session)
            p = subprocess.run(cmd, capture_output=True, timeout=timeout, cwd=ROOT, env=env)
        # Open MPI 4's mpirun itself is now and then killed by SIGPIPE in its
        # own teardown, after the job (openpmix/openpmix#1863,
        # open-mpi/ompi#11322; docs/cluster.md): that one signal of mpirun's
        # gets one rerun, counted and printed; anything else is the result.
        if cmd[0] != "mpirun" or p.returncode != -signal.SIGPIPE or attempt:
            break
        SIGPIPE_RERUNS.append(" ".join(os.path.basename(c) for c in cmd[6:9]))
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace"), time.time() - t


def source_json(src):
    path = os.path.join(TRACES, src)
    if os.path.isdir(path):
        path = os.path.join(path, sorted(os.listdir(path))[0])
    with open(path, "rb") as f:
        data = f.read()
    return gzip.decompress(data) if path.endswith(".gz") else data


def make_set(folder, sources, n):
    """n ranks, each a source with distributedInfo.rank set: the last
    distributedInfo of a file is the one read, so one is added at the end."""
    os.makedirs(folder)
    cache = {}
    for r in range(n):
        src = sources[r % len(sources)]
        if src not in cache:
            cache[src] = source_json(src).rstrip()
        body = cache[src]
        assert body.endswith(b"}")
        body = body[:-1] + b', "distributedInfo": {"backend": "nccl", "rank": %d}}' % r
        with gzip.open(os.path.join(folder, "rank-%02d.json.gz" % r), "wb", 6) as f:
            f.write(body)


JOBS = []


def same(name, cli_cmd, mpi_cmd, files=()):
    JOBS.append((name, cli_cmd, mpi_cmd, files))


def run_same():
    """Runs the jobs same() queued: those of `mpirun -n 4` and of `mpirun -n
    2` as the lines of one --batch each (each with -o: Open MPI's start costs
    about a second of CPU per mpirun), the others 4 at once (mpirun mostly
    waits)."""
    alone = list(JOBS)
    for n in ("4", "2"):
        head = MPIRUN + ["-n", n]
        batched = [j for j in alone if j[2][:len(head)] == head and j[2][len(head) + 1] != "--batch"]
        alone = [j for j in alone if j not in batched]
        if batched:
            run_batch(head, batched)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        for r in pool.map(lambda j: same_now(*j), alone):
            check(*r)
    JOBS.clear()


def run_batch(head, batched):
    """The jobs as the lines of one `head tracediff-mpi --batch`, each line's
    output against the CLI's."""
    tmp = tempfile.mkdtemp(prefix="mpi-batch-")
    lines, outs = [], []
    for i, (name, cli_cmd, mpi_cmd, files) in enumerate(batched):
        args = mpi_cmd[len(head) + 1:]
        out = None
        if not files:
            out = os.path.join(tmp, "%d.txt" % i)  # .txt: the table, when no --format
            args = args + ["-o", out]
        assert not any(" " in a for a in args), args
        lines.append(" ".join(args))
        outs.append(out)
    batch = os.path.join(tmp, "jobs.batch")
    open(batch, "w").write("\n".join(lines) + "\n")
    mpi = batched[0][2][len(head)]
    rc = run(head + [mpi, "--batch", batch])[0]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        clis = list(pool.map(lambda j: run(j[1]), batched))
    for (name, cli_cmd, mpi_cmd, files), out, a in zip(batched, outs, clis):
        check(*same_output(name, a, out, files))
    first = next((a[0] for a in clis if a[0] != 0), 0)
    check("the batch of %d lines (-n %s) exits with its first failing line's status (%d)"
          % (len(batched), head[-1], first), rc == first, "exit %d" % rc)
    shutil.rmtree(tmp, ignore_errors=True)


def same_output(name, a, out, files):
    """A batch line's output (its -o file, or the files it wrote) against
    the CLI's run a; where the CLI fails, no output, unless it printed its
    verdict (check: exit 3 when the gate fails, with its output)."""
    if a[0] != 0 and not (a[1] and out is not None):  # a failing line writes nothing
        return name, out is None or not os.path.exists(out), "output of a failing line"
    if out is not None:
        got = open(out, "rb").read() if os.path.exists(out) else None
        if got != a[1]:
            return name, False, "output differs (%d vs %s bytes)" % (
                len(a[1]), "no" if got is None else len(got))
    for ca, cb in files:
        if not os.path.exists(cb) or without_rounding_note(open(ca, "rb").read()) != \
                without_rounding_note(open(cb, "rb").read()):
            return name, False, "%s and %s differ" % (ca, cb)
    return name, True, ""


def same_now(name, cli_cmd, mpi_cmd, files=()):
    """The CLI's and tracediff-mpi's stdout (and output files) are the same bytes."""
    a = run(cli_cmd)
    b = run(mpi_cmd)
    if a[0] != b[0]:
        return name, False, "exit %d vs %d: %s" % (a[0], b[0], b[2][-300:])
    if a[1] != b[1]:
        return name, False, "stdout differs (%d vs %d bytes)" % (len(a[1]), len(b[1]))
    for ca, cb in files:
        if without_rounding_note(open(ca, "rb").read()) != \
                without_rounding_note(open(cb, "rb").read()):
            return name, False, "%s and %s differ" % (ca, cb)
    return name, True, ""


def without_rounding_note(data: bytes) -> bytes:
    """A report's note on HTA's rounding counts the rows it moved from each
    event's own duration, which the packed files tracediff-mpi gathers do not
    carry (docs/numbers.md): the rest of the page must be the same bytes."""
    data = re.sub(rb'<li class="rounding">[^<]*</li>\n', b"", data)
    return data.replace(b'<h2>Notes</h2>\n<ul class="notes" id="notes">\n</ul>\n', b"")


def chosen(name):
    """Whether the job named so runs: every one in the plain pass; under
    TD_TEST_SUBSET=1 those of tests/subset/mpi.txt, the fewest of them that
    run every line of src/ that all of them run (scripts/choose_subset.py
    choose-mpi: each job alone on the coverage build)."""
    if not SUBSET:
        return True
    if SUBSET_JOBS is None:
        globals()["SUBSET_JOBS"] = reference.suite_subset("mpi")
    QUEUED.add(name)
    return name in SUBSET_JOBS


SUBSET_JOBS = None
QUEUED = set()


def queue(name, cli_cmd, mpi_cmd, files=()):
    if chosen(name):
        same(name, cli_cmd, mpi_cmd, files)


def pair_cases(exe, mpi, ctl, tst, tmp):
    sels = [[], ["--control-rank", "all", "--test-rank", "all"],
            ["--control-rank", "%d,%d,%d" % (rank(3), rank(17), rank(40)), "--test-rank",
             str(rank(63)), "--device", "gpu"],
            ["--control-rank", "all", "--test-rank", "0,1,2,3", "--short-names"],
            ["--control-rank", "all", "--test-rank", "all", "--hta-strict"],
            ["--control-rank", str(rank(8)), "--test-rank", "5", "--control-iteration", "all",
             "--test-iteration", "all", "--device", "cpu"],
            ["--control-rank", "all", "--test-rank", "all", "--short-names", "--hta-strict",
             "--device", "gpu"]]
    n4 = MPIRUN + ["-n", "4", mpi]
    # Every selection through compare --format csv; the other formats (rank
    # 0 runs the CLI's own writers on the gathered sets) and ops on the
    # first selection, ops also on the two that read other files (3 ranks
    # against 1, one rank a side with every iteration).
    for i, sel in enumerate(sels):
        for fmt in ("csv", "json", "table", "markdown"):
            if fmt != "csv" and i:
                continue
            args = ["compare", ctl, tst, "--format", fmt] + sel
            queue("compare %d %s" % (i, fmt), [exe] + args, n4 + args)
        if i in (0, 2, 5) or reference.full():
            args = ["ops", ctl, tst, "--format", "json"] + sel
            queue("ops %d" % i, [exe] + args, n4 + args)
    # breakdown: the packed files carry its records (docs/breakdown.md)
    for extra in ([], ["--per-rank"], ["--hta-scope", "--per-rank"], ["--format", "csv"]):
        args = ["breakdown", ctl, tst] + (extra if "--format" in extra else ["--format", "json"] + extra)
        queue(("breakdown %s" % " ".join(extra)).strip(), [exe] + args, n4 + args)
    args = ["compare", ctl, tst, "--sort", "abs_diff_duration", "--top", "20", "--format", "csv",
            "--control-rank", "all", "--test-rank", "all"]
    queue("compare -n 1", [exe] + args, MPIRUN + ["-n", "1", mpi] + args)
    for what in (ctl, tst):
        for fmt in ("table", "json"):
            queue("info %s %s" % (os.path.basename(what), fmt), [exe, "info", what, "--format", fmt],
                  n4 + ["info", what, "--format", fmt])
    one = os.path.join(ctl, "rank-07.json.gz")
    queue("info one file, -n 4", [exe, "info", one], n4 + ["info", one])
    ra, rb = os.path.join(tmp, "cli.html"), os.path.join(tmp, "mpi.html")
    sel = ["--control-rank", "all", "--test-rank", "all"]
    queue("report", [exe, "report", ctl, tst, "-o", ra] + sel,
          n4 + ["report", ctl, tst, "-o", rb] + sel, [(ra, rb)])
    # The packed files carry the ops' waits and the trace span: the same
    # waits section and step verdicts as from the traces.
    for fmt in ("json", "markdown", "text"):
        args = ["check", ctl, tst, "--format", fmt, "--control-iteration", "all",
                "--test-iteration", "all", "--max-step-regression", "5%"] + sel
        queue("check %s" % fmt, [exe] + args, n4 + args)
    args = ["compare", ctl, tst, "--stats", "--format", "csv", "--control-iteration", "all",
            "--test-iteration", "all"] + sel
    queue("compare --stats", [exe] + args, n4 + args)
    args = ["compare", ctl, tst, "--by", "op", "--format", "csv"] + sel
    queue("compare --by op", [exe] + args, n4 + args)
    pa, pb = os.path.join(tmp, "cli.svg"), os.path.join(tmp, "mpi.svg")
    queue("plot", [exe, "plot", "duration", ctl, tst, "-o", pa] + sel,
          n4 + ["plot", "duration", ctl, tst, "-o", pb] + sel, [(pa, pb)])
    per = ["--control-iteration", "all", "--per-iteration"] + sel
    args = ["ops", ctl, tst, "--format", "json"] + per
    queue("ops --per-iteration", [exe] + args, n4 + args)
    pa, pb = os.path.join(tmp, "cli-per.svg"), os.path.join(tmp, "mpi-per.svg")
    queue("plot --per-iteration", [exe, "plot", "counts", ctl, tst, "-o", pa] + per,
          n4 + ["plot", "counts", ctl, tst, "-o", pb] + per, [(pa, pb)])
    ra, rb = os.path.join(tmp, "cli-per.html"), os.path.join(tmp, "mpi-per.html")
    queue("report --per-iteration", [exe, "report", ctl, tst, "-o", ra] + per,
          n4 + ["report", ctl, tst, "-o", rb] + per, [(ra, rb)])


def op_call_jobs(exe, mpi):
    """What the packed aggregates cannot carry, on real traces: the op calls
    (the statistics' call samples by op, top-op and annotation, explain
    --inclusive) travel as whole files; stacks are read again by rank 0.
    Before, the first gave n/a rows "no op calls in a summary", the second
    and third refused the trace files as if they were summaries."""
    n2 = MPIRUN + ["-n", "2", mpi]
    ctl, tst = DIFF
    for by in ("op", "top-op", "annotation"):
        args = ["compare", ctl, tst, "--by", by, "--stats", "--samples", "call", "--format", "csv"]
        queue("compare --by %s --stats --samples call" % by, [exe] + args, n2 + args)
    args = ["check", ctl, tst, "--by", "op", "--format", "json"]
    queue("check --by op (call samples)", [exe] + args, n2 + args)
    args = ["explain", ctl, tst, "aten::linear", "--inclusive", "--format", "json"]
    queue("explain --inclusive", [exe] + args, n2 + args)
    h100, mi300 = os.path.join(TRACES, "tracelens-bert_h100"), \
        os.path.join(TRACES, "tracelens-bert_mi300")
    args = ["compare", h100, mi300, "--format", "folded", "--side", "test"]
    queue("compare --format folded", [exe] + args, n2 + args)
    args = ["compare", h100, mi300, "--by", "module", "--format", "csv"]
    queue("compare --by module", [exe] + args, n2 + args)
    # Exports: one process of several (--pid), and the demangled names.
    fuser = os.path.join(TRACES, "profilers", "nsys-fuser-2025", "report1.sqlite")
    for extra in (["--pid", "50922"], ["--nsys-names", "demangled"]):
        args = ["compare", fuser, fuser, "--format", "csv", "--device", "gpu"] + extra
        queue("export %s" % extra[0], [exe] + args, n2 + args)


DIFF = (os.path.join(TRACES, "hta-trace_diff", "control"),
        os.path.join(TRACES, "hta-trace_diff", "test"))


def op_call_cases(exe, mpi):
    op_call_jobs(exe, mpi)
    run_same()
    # The rows the first check compares are not all n/a: the call samples
    # were there to test.
    ctl, tst = DIFF
    out = run([exe, "compare", ctl, tst, "--by", "op", "--stats", "--samples", "call",
               "--format", "csv"])[1].decode()
    check("call samples by op give verdicts (not only n/a)",
          any(v in out for v in (",slower", ",faster", ",noise")), out[:300])


def summary_rows(path):
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    q = ["SELECT name, source, ranks, iterations, files, source_bytes, json_bytes, events, "
         "cpu_us, gpu_us FROM runs",
         "SELECT rank, path, file_bytes, json_bytes, compression, sha256, events_total, "
         "events_counted, encoding, packed FROM files ORDER BY rank",
         "SELECT * FROM ops_named ORDER BY 1, 2, 3, 4, 5, 6"]
    rows = [con.execute(x).fetchall() for x in q]
    con.close()
    return rows


def summary_cases(exe, mpi, ctl, tst, tmp):
    sa, sb = os.path.join(tmp, "cli.tdsum"), os.path.join(tmp, "mpi.tdsum")
    a = run([exe, "summarize", tst, "-o", sa, "--run", "t"])
    b = run(MPIRUN + ["-n", "4", mpi, "summarize", tst, "-o", sb, "--run", "t"])
    check("summarize runs", a[0] == 0 and b[0] == 0, a[2] + b[2])
    if a[0] or b[0]:
        return
    check("summarize: same runs, files (hashes, packed) and ops", summary_rows(sa) == summary_rows(sb))
    # Both from the summary as the two lines of one --batch (run_same).
    sel = ["--control-rank", "all", "--test-rank", "all", "--format", "csv"]
    same("compare from the summary", [exe, "compare", ctl, tst] + sel,
         MPIRUN + ["-n", "4", mpi, "compare", ctl, sb + "#t"] + sel)
    bd = ["--per-rank", "--format", "json"]
    same("breakdown from the summary", [exe, "breakdown", ctl, tst] + bd,
         MPIRUN + ["-n", "4", mpi, "breakdown", ctl, sb + "#t"] + bd)
    run_same()


def error_cases(exe, mpi, ctl, tst, tmp):
    bad = os.path.join(tmp, "bad")
    shutil.copytree(ctl, bad)
    victim = os.path.join(bad, "rank-%02d.json.gz" % rank(41))
    data = bytearray(open(victim, "rb").read())
    for k in range(len(data) // 2, len(data) // 2 + 64):
        data[k] ^= 0x5A
    open(victim, "wb").write(bytes(data))
    rc, out, err, secs = run(MPIRUN + ["-n", "4", mpi, "compare", bad, tst, "--format", "csv",
                                       "--control-rank", "all"], timeout=120)
    lines = [l for l in err.splitlines() if l.startswith("tracediff-mpi:")]
    check("corrupt gzip: exit 1", rc == 1, "exit %d" % rc)
    check("corrupt gzip: within seconds", secs < 30, "%.1f s" % secs)
    check("corrupt gzip: one message naming the file",
          len(lines) == 1 and os.path.basename(victim) in lines[0] and out == b"", err[-500:])
    a = run([exe, "compare", bad, tst, "--format", "csv", "--control-rank", "all"])
    check("corrupt gzip: the CLI's message",
          lines and a[2].replace("tracediff:", "tracediff-mpi:", 1).strip() == lines[0], a[2] + err)
    errors = [("missing set", ["compare", os.path.join(tmp, "nope"), tst]),
              ("bad option", ["compare", ctl, tst, "--bogus"]),
              ("no such rank", ["compare", ctl, tst, "--control-rank", "99"]),
              ("unknown --cat", ["compare", ctl, tst, "--cat", "kernal"]),
              ("check --per-iteration", ["check", ctl, tst, "--per-iteration"]),
              ("summarize without -o", ["summarize", tst])]
    if SUBSET:  # the CLI's own option errors: the cli suite's, instrumented
        errors = [e for e in errors if e[0] in ("missing set", "no such rank")]

    def both(args):
        return run([exe] + args), run(MPIRUN + ["-n", "3", mpi] + args, timeout=120)
    # Each error is its own mpirun, which mostly waits (start-up and
    # teardown): 3 at once rather than one after the other.
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda e: both(e[1]), errors))
    for (name, args), (a, b) in zip(errors, results):
        check(name, a[0] == b[0] != 0 and
              re.sub(r"\btracediff\b(?![-/])", "tracediff-mpi", a[2]) == b[2], "%d %d\n%s\n%s" % (a[0], b[0], a[2], b[2]))


def stop_cases(mpi, ctl, tmp):
    """SIGINT, SIGTERM and SIGHUP to the process writing a summary: its
    temporary file goes, and nothing is put in place (docs/cluster.md). The
    signal goes to that process itself (its pid is in the temporary's name),
    as the CLI's test sends it: mpirun passes a stop on only after a second
    of grace (SIGCONT first), by which time the write may be done."""
    sigs = (signal.SIGTERM,) if SUBSET else (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for sig in sigs:
        out = os.path.join(tmp, "stop-%s.tdsum" % sig.name)
        seen = None
        with tempfile.TemporaryDirectory(prefix="mpi-session-") as session:
            env = dict(os.environ, TMPDIR=session, OMPI_MCA_orte_tmpdir_base=session)
            p = subprocess.Popen(MPIRUN + ["-n", "2", mpi, "summarize", ctl, "-o", out, "-q"],
                                 cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            deadline = time.time() + 120
            while p.poll() is None and time.time() < deadline and not seen:
                for f in os.listdir(tmp):
                    m = re.fullmatch(re.escape(os.path.basename(out)) + r"\.tmp([0-9]+)", f)
                    if m:
                        seen = int(m.group(1))
                        os.kill(seen, sig)
                        break
                else:
                    time.sleep(0.0005)
            rc = p.wait(timeout=120)
        check("stop %s: the temporary file was seen" % sig.name, seen is not None,
              "exit %d first" % rc)
        if seen is None:
            continue
        left = [f for f in os.listdir(tmp) if f.startswith(os.path.basename(out))]
        check("stop %s: no temporary file left, no output" % sig.name, left == [], str(left))
        check("stop %s: mpirun fails" % sig.name, rc != 0, "exit %d" % rc)


def case_args(c, ops):
    ctl, tst = os.path.join(GOLD, c["control"]), os.path.join(GOLD, c["test"])
    sel = []
    for k in ("control_rank", "test_rank", "control_iteration", "test_iteration"):
        v = c.get(k)
        if v is not None:
            sel += ["--" + k.replace("_", "-"), ",".join(map(str, v)) if isinstance(v, list) else str(v)]
    sel += ["--device", c.get("device", "all")]
    sel += ["--short-names"] if c.get("short_names") else []
    sel += ["--hta-strict"] if c.get("hta_strict") else []
    sel += ["--ns"] if c.get("ns") else []
    if ops:
        return ["ops", ctl, tst, "--format", "json"] + sel
    return ["compare", ctl, tst, "--format", "csv"] + sel


def golden_pair(exe, mpi, tmp, k, jobs):
    """One mpirun -n 2 --batch for the cases of one pair of sets; each output
    file must hold the CLI's stdout, or be absent where the CLI fails."""
    lines, bad = [], []
    for i, (c, ops) in enumerate(jobs):
        out = os.path.join(tmp, "g%d-%d.out" % (k, i))
        lines.append(" ".join(case_args(c, ops) + ["-o", out]))
    batch = os.path.join(tmp, "g%d.batch" % k)
    open(batch, "w").write("\n".join(lines) + "\n")
    rc = run(MPIRUN + ["-n", "2", mpi, "--batch", batch])[0]
    failing = 0
    for i, (c, ops) in enumerate(jobs):
        a = run([exe] + case_args(c, ops))
        out = os.path.join(tmp, "g%d-%d.out" % (k, i))
        got = open(out, "rb").read() if os.path.exists(out) else None
        failing += a[0] != 0
        if (a[0] == 0 and got != a[1]) or (a[0] != 0 and got is not None):
            bad.append(c["id"] + (" ops" if ops else ""))
    if (rc != 0) != (failing != 0):
        bad.append("batch exit %d with %d failing cases" % (rc, failing))
    return bad


def golden_cases(exe, mpi, tmp):
    cases = reference.load(os.path.join(GOLD, "cases.json"))
    if not SUBSET and not reference.full():
        # What tracediff-mpi packs and gathers depends on the files read and
        # the duration rule only (mpi/main.c: the pack flags); selections of
        # iterations, devices and names apply to the gathered sets as to the
        # CLI's: the first case of each load key and the subset's
        # (tests/cases.py; every case with TD_TEST_FULL=1, as make check-all
        # sets it).
        keep = reference.loading_representatives(cases)
        cases = [c for c in cases if c["id"] in keep]
    t0 = time.time()
    pairs = {}
    for c in cases:
        key = (c["control"], c["test"])
        if key not in pairs:
            pairs[key] = [(c, True)]  # ops --format json once per pair
        pairs[key].append((c, False))
    # The pairs as the lines of few batches (Open MPI's start costs about a
    # second of CPU per mpirun, and two instrumented processes more): one in
    # the instrumented passes, two side by side otherwise (one per core;
    # each pair's lines stay together, the larger pairs first, each to the
    # batch with fewer lines).
    groups = [[]] if SUBSET else [[], []]
    for js in sorted(pairs.values(), key=len, reverse=True):
        min(groups, key=len).extend(js)
    groups = [g for g in groups if g]
    with concurrent.futures.ThreadPoolExecutor(len(groups)) as pool:
        results = list(pool.map(lambda kj: golden_pair(exe, mpi, tmp, *kj), enumerate(groups)))
    bad = [b for r in results for b in r]
    n = sum(len(j) for j in groups)
    check("reference cases through mpirun -n 2 --batch (%d runs, %d jobs)" % (n, len(groups)),
          not bad, "differ: %s" % bad[:5])
    print("mpi: %d reference runs in %d mpirun jobs, %.0f s" % (n, len(groups), time.time() - t0))


def main():
    exe = os.path.abspath(sys.argv[1])
    mpi = reference.mpi_or_skip(check, exe)
    if mpi is None:
        return check.finish()
    tmp = tempfile.mkdtemp(prefix="tracediff-mpi-")
    try:
        ctl, tst = os.path.join(tmp, "control"), os.path.join(tmp, "test")
        make_set(ctl, CONTROL_SRC, RANKS)
        make_set(tst, TEST_SRC, RANKS)
        # The single-process CLI gives the expected outputs: the plain build
        # in the instrumented passes (tests/cases.py), tracediff-mpi beside
        # exe is what they check.
        cli = reference.expectation_exe(exe)
        pair_cases(cli, mpi, ctl, tst, tmp)
        run_same()
        op_call_cases(cli, mpi)
        summary_cases(cli, mpi, ctl, tst, tmp)
        error_cases(cli, mpi, ctl, tst, tmp)
        stop_cases(mpi, ctl, tmp)
        if "--quick" not in sys.argv:
            golden_cases(cli, mpi, tmp)
        if SUBSET:  # a renamed job must not drop out of the instrumented passes
            check("tests/subset/mpi.txt names only jobs of this suite",
                  not SUBSET_JOBS - QUEUED, str(sorted(SUBSET_JOBS - QUEUED)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if SIGPIPE_RERUNS:
        print("mpi: rerun after mpirun died of SIGPIPE in its teardown: %s"
              % "; ".join(SIGPIPE_RERUNS))
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())

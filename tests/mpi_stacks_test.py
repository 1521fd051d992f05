#!/usr/bin/env python3
"""tracediff-mpi with stacks and shapes (docs/cluster.md, "What the
aggregates do not carry").

    mpi_stacks_test.py TRACEDIFF      (tracediff-mpi is looked for beside it)

The processes pack each file's stacks and the roofline's inputs with its
aggregates, as summaries keep them, when the command line reads them:
--format folded (GPU and CPU), --by module (GPU and CPU, --exclusive,
--stats), explain --by module, plot flame, roofline (table, json,
--stats), plot roofline, --with-rate and report. Every such command, on a
one-file pair (tracelens bert, H100 against MI300) and a two-file pair
(hta-two_ranks against itself, ranks and iterations selected), run in one
`mpirun -n 2 ... --batch` and one `mpirun -n 4 ... --batch` (more
processes than files), writes the bytes the single-process CLI writes,
with the same exit status. Messages are not compared (the note on HTA's
rounding counts the rows the rounding moved, which needs each event's own
duration: docs/numbers.md), nor the report's line of that note (and its
Notes list when that was all it held), as for summaries.

Without mpirun or tracediff-mpi the suite is skipped with a message; in CI
(CI set in the environment) that counts as a failure.
"""
import os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as reference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACES = os.path.join(ROOT, "tests", "golden", "traces")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-q"]
check = reference.Checks("mpi_stacks")


def lines(tmp):
    """(name, command line, its output files): every line writes with -o."""
    out = []
    bert = (os.path.join(TRACES, "tracelens-bert_h100"), os.path.join(TRACES, "tracelens-bert_mi300"))
    two = os.path.join(TRACES, "hta-two_ranks")
    for label, (c, t), sel in (("bert", bert, []),
                               ("two", (two, two), ["--control-rank", "0", "--test-rank", "all",
                                                    "--control-iteration", "all"])):
        def o(name):
            return os.path.join(tmp, "%s.%s" % (label, name))
        cmds = [
            ("folded", ["compare", c, t, "--format", "folded", "-o",
                        o("c.folded") + "," + o("t.folded")], [o("c.folded"), o("t.folded")]),
            ("cpu folded", ["compare", c, t, "--format", "folded", "--device", "cpu", "-o",
                            o("cc.folded") + "," + o("ct.folded")], [o("cc.folded"), o("ct.folded")]),
            ("--by module", ["compare", c, t, "--by", "module", "--format", "csv", "-o", o("m.csv")],
             [o("m.csv")]),
            ("cpu --by module --exclusive",
             ["compare", c, t, "--by", "module", "--exclusive", "--device", "cpu", "--format",
              "json", "-o", o("cm.json")], [o("cm.json")]),
            ("--by module --stats",
             ["compare", c, t, "--by", "module", "--stats", "--samples", "iteration", "--format",
              "json", "-o", o("ms.json")], [o("ms.json")]),
            ("plot flame", ["plot", "flame", c, t, "-o", o("flame.svg")], [o("flame.svg")]),
            ("roofline", ["roofline", c, t, "--format", "csv", "-o", o("r.csv")], [o("r.csv")]),
            ("roofline --stats json",
             ["roofline", c, t, "--stats", "--format", "json", "-o", o("rs.json")], [o("rs.json")]),
            ("plot roofline", ["plot", "roofline", c, t, "-o", o("roof.svg")], [o("roof.svg")]),
            ("--with-rate", ["compare", c, t, "--by", "op", "--with-rate", "--format", "csv", "-o",
                             o("rate.csv")], [o("rate.csv")]),
            ("report", ["report", c, t, "-o", o("report.html")], [o("report.html")]),
        ]
        if label == "bert":
            cmds.append(("explain --by module",
                         ["explain", c, t, "BertLMHeadModel_0/BertModel_0/BertEncoder_0", "--by",
                          "module", "--format", "json", "-o", o("x.json")], [o("x.json")]))
        for name, args, files in cmds:
            out.append(("%s %s" % (label, name), args + sel, files))
    return out


def read(files):
    got = []
    for f in files:
        data = open(f, "rb").read() if os.path.exists(f) else None
        if data is not None and f.endswith(".html"):
            data = re.sub(rb'<li class="rounding">[^<]*</li>\n', b"", data).replace(
                b'<h2>Notes</h2>\n<ul class="notes" id="notes">\n</ul>\n', b"")
        got.append(data)
        if os.path.exists(f):
            os.remove(f)
    return got


def main():
    exe = os.path.abspath(sys.argv[1])
    mpi = reference.mpi_or_skip(check, exe)
    if mpi is None:
        return check.finish()
    cli = reference.expectation_exe(exe)
    tmp = tempfile.mkdtemp(prefix="tracediff-mpi-stacks-")
    try:
        todo = lines(tmp)
        want = {}
        for name, args, files in todo:
            p = subprocess.run([cli] + args, capture_output=True, cwd=ROOT)
            want[name] = read(files)
            check("%s: the CLI writes its files" % name,
                  p.returncode == 0 and all(w for w in want[name]), p.stderr.decode()[-300:])
        batch = os.path.join(tmp, "batch")
        with open(batch, "w") as f:
            f.write("".join(" ".join(args) + "\n" for _, args, _ in todo))
        for n in (2, 4):
            with tempfile.TemporaryDirectory(prefix="mpi-session-") as session:
                env = dict(os.environ, TMPDIR=session, OMPI_MCA_orte_tmpdir_base=session)
                p = subprocess.run(MPIRUN + ["-n", str(n), mpi, "--batch", batch],
                                   capture_output=True, cwd=ROOT, env=env, timeout=600)
            # mpirun's own SIGPIPE in its teardown (docs/cluster.md): the
            # outputs are whole, the status is mpirun's
            check("-n %d: the batch exits 0" % n, p.returncode in (0, 141, -13),
                  p.stderr.decode()[-300:])
            for name, _, files in todo:
                got = read(files)
                check("-n %d %s: the CLI's bytes" % (n, name), got == want[name],
                      "sizes %s / %s" % ([len(x) if x else None for x in got],
                                         [len(x) if x else None for x in want[name]]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())

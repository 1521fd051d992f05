#!/usr/bin/env python3
"""Terminal tests: the compare table in a real terminal (tmux) of 80, 100 and
160 columns, on a real cross-GPU pair (tracelens bert, H100 against MI300,
--device gpu), with and without --stats.

    terminal_test.py TRACEDIFF [-v]

What the terminal shows (tmux capture-pane -J, wrapped lines joined) must
have no line longer than the width; every name cut with an ellipsis is at
least 40% of the width wide (so at least 30 characters at 100 columns) and
its pieces are the start, the middle and the end of one real row's name (the
names from `compare --format csv` of the same selection); no two shown names
are equal; a name shown whole is a real name. `ops` (its five lists, in
the same panes) follows the same rule: no line longer than the width, names
cut in the middle (never at their end), at least 40% of the width (30
characters at 100 columns), no two equal. Also checked: the check itself
sees a line longer than the pane (a table told the terminal is wider than
the pane), so that it cannot pass by reading nothing. The same rule for
chart labels: `plot duration` and `plot counts` of the shared cross-GPU
pairs (30 rows) show no two equal x labels. Needs tmux
(scripts/deps.sh installs it) and the shared traces (the reference cases'
copy in tests/golden/traces, or TRACEDIFF_TRACES); without the traces the
suite says so and checks the bundled examples instead.
"""
import csv, io, os, re, shlex, shutil, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WRAP = os.environ.get("TRACEDIFF_WRAP", "").split()
VERBOSE = "-v" in sys.argv
TRACES = os.environ.get("TRACEDIFF_TRACES", os.path.join(ROOT, "tests", "golden", "traces"))

passed = failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        if VERBOSE:
            print("ok   " + name)
    else:
        failed += 1
        print("FAIL " + name + (": " + detail if detail else ""))
    return ok


def in_tmux(tmp, argv, width, stty=None):
    """The lines tmux shows after argv ran in a pane `width` columns wide."""
    in_tmux.n += 1
    sock = os.path.join(tmp, "tmux%d.sock" % in_tmux.n)
    cmd = " ".join(shlex.quote(a) for a in argv)
    pre = "stty cols %d; " % stty if stty else ""
    script = ("%senv LANG=C.UTF-8 LC_ALL=C.UTF-8 NO_COLOR=1 %s; tmux -S %s wait-for -S done; "
              "sleep 60" % (pre, cmd, shlex.quote(sock)))
    subprocess.run(["tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x",
                    str(width), "-y", "400", "sh", "-c", script], check=True, cwd=ROOT,
                   timeout=60)
    try:
        subprocess.run(["tmux", "-S", sock, "wait-for", "done"], check=True, timeout=600)
        out = subprocess.run(["tmux", "-S", sock, "capture-pane", "-p", "-J", "-t", "t", "-S",
                              "0", "-E", "-"], check=True, capture_output=True, timeout=60)
    finally:
        subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True, timeout=60)
    lines = out.stdout.decode("utf-8", "replace").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


in_tmux.n = 0

ROW = re.compile(r"^(.*?\S)\s{2,}[-+]?[0-9][0-9,.]*(\s|$)")


def table_names(lines):
    """The name cells of the table's rows: the lines after the header."""
    names, on = [], False
    for line in lines:
        if line.startswith("name ") or line.startswith("short name "):
            on = True
            continue
        if not on or not line.strip() or set(line) <= set("\u2500-"):
            continue
        m = ROW.match(line)
        if m:
            names.append(m.group(1))
    return names


def fits(shown, full):
    """Whether the pieces of shown (cut at ellipses) are the start, then
    pieces in order, then the end of full."""
    parts = shown.split("\u2026")
    if len(parts) == 1:
        return shown == full
    if not full.startswith(parts[0]) or not full.endswith(parts[-1]):
        return False
    at = len(parts[0])
    for p in parts[1:-1]:
        k = full.find(p.strip(), at)
        if k < 0:
            return False
        at = k + len(p.strip())
    return at <= len(full) - len(parts[-1]) or len(parts) == 2


def csv_names(exe, args):
    p = subprocess.run(WRAP + [exe] + args + ["--format", "csv", "-q"], capture_output=True,
                       cwd=ROOT, timeout=600)
    rows = list(csv.reader(io.StringIO(p.stdout.decode("utf-8"))))
    return [r[0] for r in rows[1:]]


def main():
    exe = os.path.abspath(sys.argv[1])
    if not shutil.which("tmux"):
        check("tmux installed (scripts/deps.sh)", False)
        print("terminal: %d passed, %d failed" % (passed, failed))
        return 1
    bert = [os.path.join(TRACES, "tracelens-bert_h100"), os.path.join(TRACES, "tracelens-bert_mi300")]
    if all(os.path.isdir(p) for p in bert):
        pairs = [("bert h100/mi300", bert + ["--device", "gpu"])]
    else:
        print("note: %s missing; the bundled examples instead" % TRACES)
        g = os.path.join(ROOT, "tests", "golden", "traces", "hta-trace_compare")
        pairs = [("hta-trace_compare", [os.path.join(g, "base"), os.path.join(g, "test"),
                                        "--control-iteration", "all", "--test-iteration", "all"])]
    with tempfile.TemporaryDirectory() as tmp:
        for label, args in pairs:
            real = csv_names(exe, ["compare"] + args)
            check("%s: csv names" % label, len(real) > 5, "%d names" % len(real))
            for stats in ([], ["--stats"]):
                for width in (80, 100, 160):
                    name = "%s %s at %d" % (label, " ".join(stats) or "plain", width)
                    lines = in_tmux(tmp, WRAP + [exe, "compare"] + args + stats + ["-q"], width)
                    long = [ln for ln in lines if len(ln) > width]
                    check(name + ": no line longer than the width", not long,
                          "%d lines, the first %d wide: %r" % (len(long), len(long[0]), long[0])
                          if long else "")
                    shown = table_names(lines)
                    check(name + ": every row shown", len(shown) == len(real),
                          "%d shown, %d rows" % (len(shown), len(real)))
                    dup = sorted({s for s in shown if shown.count(s) > 1})
                    check(name + ": no two shown names equal", not dup, repr(dup[:3]))
                    least = (width * 2 + 4) // 5
                    short = [s for s in shown if "\u2026" in s and len(s) < least]
                    check(name + ": cut names at least %d wide" % least, not short,
                          repr(short[:3]))
                    if width == 100:
                        check(name + ": cut names at least 30 wide",
                              all(len(s) >= 30 for s in shown if "\u2026" in s))
                    stray = [s for s in shown if not any(fits(s, r) for r in real)]
                    check(name + ": shown names are real names, cut in the middle", not stray,
                          repr(stray[:3]))
        # ops: the five lists, names fitted by the same rule as the table's.
        for label, args in pairs:
            p = subprocess.run(WRAP + [exe, "ops"] + args + ["--format", "csv", "-q"],
                               capture_output=True, cwd=ROOT, timeout=600)
            real = [r[1] for r in list(csv.reader(io.StringIO(p.stdout.decode("utf-8"))))[1:]]
            check("ops %s: csv names" % label, len(real) > 5, "%d names" % len(real))
            for width in (80, 100, 160):
                name = "ops %s at %d" % (label, width)
                lines = in_tmux(tmp, WRAP + [exe, "ops"] + args + ["-q"], width)
                long = [ln for ln in lines if len(ln) > width]
                check(name + ": no line longer than the width", not long,
                      "%d lines, the first %d wide: %r" % (len(long), len(long[0]), long[0])
                      if long else "")
                heads = [ln for ln in lines if re.match(r"^[a-z]+ \([0-9]+\)$", ln)]
                check(name + ": the five lists", len(heads) == 5, repr(heads))
                shown = [ln[2:] for ln in lines if ln.startswith("  ")]
                check(name + ": every name shown", len(shown) == len(real),
                      "%d shown, %d names" % (len(shown), len(real)))
                check(name + ": some names cut", width == 160 or any("\u2026" in s for s in shown))
                dup = sorted({s for s in shown if shown.count(s) > 1})
                check(name + ": no two shown names equal", not dup, repr(dup[:3]))
                if width == 100:
                    short = [s for s in shown if "\u2026" in s and len(s) < 30]
                    check(name + ": cut names at least 30 wide", not short, repr(short[:3]))
                least = (width * 2 + 4) // 5
                short = [s for s in shown if "\u2026" in s and len(s) < least]
                check(name + ": cut names at least %d wide" % least, not short, repr(short[:3]))
                stray = [s for s in shown if not any(fits(s, r) for r in real)]
                check(name + ": shown names are real names, cut in the middle", not stray,
                      repr(stray[:3]))
                ends = [s for s in shown if s.endswith("\u2026")]
                check(name + ": no name cut at its end", not ends, repr(ends[:3]))
        # Chart labels: one per bar group, no two equal.
        chart_pairs = [[os.path.join(TRACES, "tracelens-%s_h100" % m),
                        os.path.join(TRACES, "tracelens-%s_mi300" % m)] for m in ("bert", "falconsai")]
        for pr in chart_pairs:
            if not all(os.path.isdir(x) for x in pr):
                continue
            for what in ("duration", "counts"):
                svg = os.path.join(tmp, "p.svg")
                name = "plot %s %s" % (what, os.path.basename(pr[0]))
                p = subprocess.run(WRAP + [exe, "plot", what] + pr + ["--device", "gpu", "--top", "30",
                                   "-q", "-o", svg], capture_output=True, timeout=600)
                if not check(name + ": runs", p.returncode == 0, p.stderr.decode()[-300:]):
                    continue
                ns = "{http://www.w3.org/2000/svg}"
                groups = [g for g in ET.parse(svg).iter(ns + "g") if g.get("class") == "bar-group"]
                labels = [g.find(ns + "text").text for g in groups]
                check(name + ": labels", len(labels) >= 10, str(len(labels)))
                dup = sorted({x for x in labels if labels.count(x) > 1})
                check(name + ": no two labels equal", not dup, repr(dup[:3]))
        # The report of a cross-GPU pair folds names by default: no row of a
        # Python frame with its line number (module.py(1743) gone,
        # module.py(1755) new) in its charts or table.
        if all(os.path.isdir(x) for x in bert):
            html = os.path.join(tmp, "r.html")
            p = subprocess.run(WRAP + [exe, "report"] + bert + ["-q", "-o", html],
                               capture_output=True, timeout=600)
            if check("report bert: runs", p.returncode == 0, p.stderr.decode()[-300:]):
                text = open(html, encoding="utf-8").read()
                lined = re.findall(r"module\.py\([0-9]+\)", text)
                check("report bert: no module.py(N) rows", not lined, repr(lined[:3]))
                check("report bert: module.py(\u2026) folded", "module.py(\u2026)" in text)
        # The check sees what it must catch: a table told the terminal is
        # 120 columns wide, in an 80-column pane.
        args = pairs[0][1]
        lines = in_tmux(tmp, WRAP + [exe, "compare"] + args + ["-q"], 80, stty=120)
        check("a line wider than the pane is seen", any(len(ln) > 80 for ln in lines))
    print("terminal: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Chart and report tests: `plot` and `report` through the real CLI.

    chart_test.py TRACEDIFF [-v]

For the bundled examples and every distinct pair of tests/golden/cases.json:
both charts as SVG pass `xmllint --noout`, hold one <g class="bar-group"> per
selected row, in order, whose <title> is the row's full name and whose
data-control/data-test/data-diff equal what `compare --format csv` prints for
the same selection. PNG output decodes (chunks, CRCs, inflated size) at the
SVG's width and height; PDF output is a PDF. Failed plots leave no file. The
HTML report passes `xmllint --html --noout` (only HTML5/SVG tag names it does
not know are tolerated), embeds both charts and every row (names escaped,
numbers equal to the CSV), loads nothing from the network, and survives names
made to break out of HTML, SVG and <script>. xmllint missing is a failure:
install libxml2-utils (scripts/deps.sh does).

In the instrumented passes (TD_TEST_SUBSET=1) the CSV that charts and reports
are checked against comes from the plain build (tests/cases.py:
expectation_exe), and every third reference pair draws one chart,
duration and counts in turn (both kinds still run on the examples and in
the format and selection checks).
"""
import csv, gzip, io, json, math, os, re, shutil, struct, subprocess, sys, tempfile, zlib
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as reference  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "golden")
SVG = "{http://www.w3.org/2000/svg}"
WRAP = os.environ.get("TRACEDIFF_WRAP", "").split()
VERBOSE = "-v" in sys.argv
SUBSET = reference.instrumented()

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


ENV = dict(os.environ)


def run(args, cwd=ROOT):
    # plot and report fold names by default; the reference here is compare's
    # HTA-exact CSV, so they run with --no-normalize-names (the default's own
    # tests: cli_test.py, terminal_test.py)
    if len(args) > 1 and args[1] in ("plot", "report") and "--help" not in args:
        args = args + ["--no-normalize-names"]
    p = reference.run_once(WRAP + args, cwd=cwd, env=ENV)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def xmllint(args):
    p = subprocess.run(["xmllint"] + args, capture_output=True, timeout=120)
    return p.returncode, p.stderr.decode("utf-8", "replace")


def selection(c):
    out = []
    for k in ("control_rank", "test_rank", "control_iteration", "test_iteration"):
        v = c.get(k)
        if v is not None:
            out += ["--" + k.replace("_", "-"),
                    ",".join(map(str, v)) if isinstance(v, list) else str(v)]
    return out


def pairs():
    """The examples, then each distinct pair (and rank choice) of the reference cases."""
    seen, out = set(), [("examples", "examples/control", "examples/test", [])]
    for c in reference.load(os.path.join(GOLDEN, "cases.json")):
        if os.path.exists(os.path.join(GOLDEN, c["id"] + ".error.txt")):
            continue
        sel = selection(c)
        key = (c["control"], c["test"], tuple(sel))
        if key in seen:
            continue
        seen.add(key)
        out.append((c["id"], os.path.join("tests/golden", c["control"]),
                    os.path.join("tests/golden", c["test"]), sel))
    return out


def csv_rows(exe, a, b, args):
    rc, out, err = run([reference.expectation_exe(exe), "compare", a, b, "--format", "csv", "-q"]
                       + args)
    if rc != 0:
        return None, err
    # CSV keeps a name's bytes (a lone surrogate as its 3 bytes): surrogatepass
    return list(csv.reader(io.StringIO(out.decode("utf-8", "surrogatepass"), newline="")))[1:], ""


def num(s):
    return float(s)


def shown(name):
    """A name as charts and the report show it: control characters as '?',
    noncharacters as U+FFFD, a surrogate's three bytes as three U+FFFD (each
    byte of malformed UTF-8 is replaced)."""
    name = re.sub("[\ud800-\udfff]", "\ufffd" * 3, name)
    name = re.sub("[\ufdd0-\ufdef\ufffe\uffff]", "\ufffd", name)
    return re.sub("[\x00-\x1f\x7f-\x9f]", "?", name)


def check_svg(name, path, rows, kind):
    """rows: CSV rows of the selection, in order."""
    rc, err = xmllint(["--noout", path])
    if not check(name + ": xmllint", rc == 0, err.strip()[:300]):
        return None
    root = ET.parse(path).getroot()
    groups = [g for g in root.iter(SVG + "g") if g.get("class") == "bar-group"]
    if not check(name + ": one bar group per row", len(groups) == len(rows),
                 "%d groups, %d rows" % (len(groups), len(rows))):
        return root
    cols = (1, 3, 5) if kind == "counts" else (2, 4, 6)
    bad = []
    for g, r in zip(groups, rows):
        t = g.find(SVG + "title")
        if t is None or t.text != shown(r[0]):
            bad.append("title %r != %r" % (t.text if t is not None else None, r[0][:60]))
            continue
        got = [g.get("data-control"), g.get("data-test"), g.get("data-diff")]
        if got != [r[c] for c in cols] and [num(x) for x in got] != [num(r[c]) for c in cols]:
            bad.append("%s: %s != %s" % (r[0][:60], got, [r[c] for c in cols]))
    check(name + ": names and numbers equal the CSV", not bad, "; ".join(bad[:3]))
    return root


def png_size(path):
    """Width and height of a PNG, after checking every chunk's CRC and that
    the image data inflates to exactly the rows it should."""
    d = open(path, "rb").read()
    if d[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("no PNG signature")
    pos, idat, ihdr = 8, b"", None
    while pos < len(d):
        n, kind = struct.unpack(">I4s", d[pos:pos + 8])
        body = d[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", d[pos + 8 + n:pos + 12 + n])
        if zlib.crc32(kind + body) != crc:
            raise ValueError("bad CRC in " + kind.decode())
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
        if kind == b"IEND":
            break
    w, h, depth, ctype = ihdr[:4]
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    need = h * (1 + (w * channels * depth + 7) // 8)
    if len(zlib.decompress(idat)) != need:
        raise ValueError("image data is not %d rows" % h)
    return w, h


def test_pair(exe, tmp, name, a, b, sel, kinds=(0, 1)):
    for k in kinds:
        kind, col = (("duration", "abs_diff_duration"), ("counts", "abs_diff_counts"))[k]
        rows, err = csv_rows(exe, a, b, sel + ["--sort", col, "--top", "10",
                                               "--exclude", "^ProfilerStep"])
        if not check("%s: compare (%s)" % (name, kind), rows is not None, err):
            continue
        out = os.path.join(tmp, "%s.%s.svg" % (name, kind))
        rc, _, err = run([exe, "plot", kind, a, b, "-q", "-o", out] + sel)
        if check("%s: plot %s" % (name, kind), rc == 0 and os.path.exists(out), err):
            root = check_svg("%s: %s.svg" % (name, kind), out, rows, kind)
            if root is not None:
                check_diff_panel("%s: %s.svg" % (name, kind), root, kind)


def test_formats(exe, tmp):
    a, b = "examples/control", "examples/test"
    for kind in ("duration", "counts"):
        svg, png, pdf = (os.path.join(tmp, "f.%s.%s" % (kind, e)) for e in ("svg", "png", "pdf"))
        for out in (svg, png, pdf):
            rc, _, err = run([exe, "plot", kind, a, b, "-q", "-o", out])
            check("plot %s -o %s" % (kind, os.path.basename(out)), rc == 0, err)
        if not (os.path.exists(svg) and os.path.exists(png) and os.path.exists(pdf)):
            continue
        root = ET.parse(svg).getroot()
        try:
            size = png_size(png)
            check("%s.png decodes at the SVG's size" % kind,
                  size == (int(root.get("width")), int(root.get("height"))),
                  "png %s, svg %sx%s" % (size, root.get("width"), root.get("height")))
        except (ValueError, zlib.error, TypeError, KeyError, struct.error) as e:
            check("%s.png decodes" % kind, False, str(e))
        d = open(pdf, "rb").read()
        check("%s.pdf is a PDF" % kind, d.startswith(b"%PDF-") and b"%%EOF" in d[-32:])
        check("no temporary files left", not [f for f in os.listdir(tmp) if ".tmp." in f])
    # The titles, axis and legend the spec asks for.
    root = ET.parse(os.path.join(tmp, "f.duration.svg")).getroot()
    texts = [t.text for t in root.iter(SVG + "text")]
    check("duration chart: title and y axis",
          "Ops Duration Comparison" in texts and "Total Duration (us)" in texts, str(texts[:4]))
    root = ET.parse(os.path.join(tmp, "f.counts.svg")).getroot()
    texts = [t.text for t in root.iter(SVG + "text")]
    check("counts chart: title", "Ops Count Comparison" in texts, str(texts[:4]))
    # '-o -': SVG on stdout.
    rc, out, err = run([exe, "plot", "counts", a, b, "-q", "-o", "-"])
    check("plot -o - writes SVG to stdout", rc == 0 and out.startswith(b"<svg "), err)


def test_selections(exe, tmp):
    a, b = "examples/control", "examples/test"
    cases = [
        ("duration", ["--sort", "diff_duration", "--top", "7"]),
        ("duration", ["--sort", "diff_duration", "--ascending", "--top", "5"]),
        ("counts", ["--include", "^aten::", "--sort", "name", "--top", "12"]),
        ("counts", ["--sort", "test_counts", "--top", "25", "--exclude", "cuda"]),
        ("duration", ["--short-names", "--sort", "abs_diff_duration", "--top", "15"]),
        ("duration", ["--device", "gpu", "--sort", "abs_diff_duration", "--top", "10"]),
        ("counts", ["--include", "^no such name$"]),
    ]
    for i, (kind, args) in enumerate(cases):
        name = "plot %s %s" % (kind, " ".join(args))
        rows, err = csv_rows(exe, a, b, args)
        if not check(name + ": compare", rows is not None, err):
            continue
        out = os.path.join(tmp, "sel%d.svg" % i)
        rc, _, err = run([exe, "plot", kind, a, b, "-q", "-o", out] + args)
        if check(name, rc == 0, err):
            check_svg(name, out, rows, kind)
    # Labels reach the legend.
    out = os.path.join(tmp, "labels.svg")
    rc, _, err = run([exe, "plot", "duration", a, b, "-q", "-o", out,
                      "--control-label", "A100 <base>", "--test-label", "V100 & new"])
    if check("plot with labels", rc == 0, err):
        texts = [t.text for t in ET.parse(out).getroot().iter(SVG + "text")]
        check("labels in the legend", "A100 <base>" in texts and "V100 & new" in texts)
        sub = "A100 <base> (rank 3, iteration 1009) vs V100 & new (rank 1, iteration 1009) \u00b7 cpu and gpu"
        check("subtitle names both sides, their ranks and iterations, and the device",
              sub in texts, str(texts[:3]))
    # The subtitle follows the selection; --width and --height set the size.
    out = os.path.join(tmp, "sized.svg")
    rc, _, err = run([exe, "plot", "duration", a, b, "-q", "-o", out, "--device", "gpu",
                      "--control-iteration", "all", "--width", "1500", "--height", "900"])
    if check("plot --width --height", rc == 0, err):
        root = ET.parse(out).getroot()
        check("--width 1500 --height 900 give that size",
              (root.get("width"), root.get("height")) == ("1500", "900"),
              "%sx%s" % (root.get("width"), root.get("height")))
        texts = [t.text for t in root.iter(SVG + "text")]
        check("subtitle with a range of iterations and the device",
              "control (rank 3, iterations 1009\u20131014) vs test (rank 1, iteration 1009) "
              "\u00b7 gpu" in texts, str(texts[:3]))
        rows, err = csv_rows(exe, a, b, ["--device", "gpu", "--control-iteration", "all",
                                         "--sort", "abs_diff_duration", "--top", "10",
                                         "--exclude", "^ProfilerStep"])
        if rows is not None:
            check_svg("plot --width --height", out, rows, "duration")
    rc, _, err = run([exe, "plot", "duration", a, b, "-q", "-o", out, "--width", "50"])
    check("--width 50 refused with the option and the value",
          rc == 2 and "--width '50'" in err, err)


def rect_box(r):
    y, h = float(r.get("y")), float(r.get("height"))
    return y, y + h


def check_diff_panel(name, root, kind):
    """The difference bars sit in a panel of their own below the control and
    test bars, with its own axis title and scale: the largest difference
    fills a good part of that panel however large the totals are."""
    texts = [t.text for t in root.iter(SVG + "text")]
    title = "Difference" if kind == "counts" else "Difference (us)"
    check(name + ": difference axis title", title in texts, str(texts[:6]))
    groups = [g for g in root.iter(SVG + "g") if g.get("class") == "bar-group"]
    top_low, diff_high, biggest = 0.0, 1e9, (0.0, None)
    for g in groups:
        rects = g.findall(SVG + "rect")
        if len(rects) != 3:
            check(name + ": three bars a group", False, str(len(rects)))
            return
        for r in rects[:2]:
            top_low = max(top_low, rect_box(r)[1])
        diff_high = min(diff_high, rect_box(rects[2])[0])
        d = abs(float(g.get("data-diff")))
        if d > biggest[0]:
            biggest = (d, float(rects[2].get("height")))
    check(name + ": difference bars below every control and test bar",
          not groups or diff_high > top_low, "%s <= %s" % (diff_high, top_low))
    if biggest[1] is not None:
        check(name + ": the largest difference is drawn to its own scale",
              biggest[1] >= 50, "height %s" % biggest[1])


def test_diff_axis(exe, tmp):
    """A change of 0.02% next to totals of a second: invisible on the totals'
    axis, tall on its own."""
    for side, extra in (("c", 0), ("t", 20)):
        os.makedirs(os.path.join(tmp, "small", side))
        ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0,
               "dur": 2000000, "pid": 1, "tid": 1},
              {"ph": "X", "cat": "cpu_op", "name": "big_op", "ts": 10, "dur": 100000 + extra,
               "pid": 1, "tid": 1},
              {"ph": "X", "cat": "cpu_op", "name": "other_op", "ts": 200000,
               "dur": 90000 - extra // 2, "pid": 1, "tid": 1}]
        with open(os.path.join(tmp, "small", side, "rank0.json"), "w") as f:
            f.write(json.dumps({"traceEvents": ev}))
    a, b = (os.path.join(tmp, "small", s) for s in ("c", "t"))
    out = os.path.join(tmp, "small.svg")
    rc, _, err = run([exe, "plot", "duration", a, b, "-q", "-o", out, "--control-label", "base",
                      "--test-label", "new"])
    if check("small difference: plot", rc == 0, err):
        root = ET.parse(out).getroot()
        check_diff_panel("small difference", root, "duration")
        texts = [t.text for t in root.iter(SVG + "text")]
        check("small difference: the legend names the difference by the sides' labels",
              "difference (new \u2212 base)" in texts, str(texts[:6]))
    # Counts too, and every format draws the same panels (PNG at the SVG's size).
    for kind in ("counts", "duration"):
        out = os.path.join(tmp, "panel.%s.svg" % kind)
        rc, _, err = run([exe, "plot", kind, "examples/control", "examples/test", "-q", "-o", out])
        if check("panels: plot %s" % kind, rc == 0, err):
            check_diff_panel("panels " + kind, ET.parse(out).getroot(), kind)


def check_report_subtitle(exe, tmp):
    """The report's charts carry plot's subtitle, take --width and --height, and keep
    their size (no shrinking below what the labels need)."""
    a, b = "examples/control", "examples/test"
    out = os.path.join(tmp, "sub.html")
    rc, _, err = run([exe, "report", a, b, "-q", "-o", out, "--device", "gpu",
                      "--control-iteration", "all", "--width", "1300"])
    if not check("report --width", rc == 0, err):
        return
    text = open(out, encoding="utf-8").read()
    sub = ("control (rank 3, iterations 1009\u20131014) vs test (rank 1, iteration 1009) "
           "\u00b7 gpu")
    check("report: both charts carry the subtitle", text.count(">%s</text>" % sub) == 2)
    check("report: both charts at --width", len(re.findall(r'class="td-chart" data-kind="\w+" '
                                                          r'width="1300"', text)) == 2)
    check("report: charts keep their size", "max-width:100%;height:auto" not in text)
    plot = os.path.join(tmp, "sub.svg")
    rc, _, err = run([exe, "plot", "duration", a, b, "-q", "-o", plot, "--device", "gpu",
                      "--control-iteration", "all", "--width", "1300"])
    if check("plot for the report's chart", rc == 0, err):
        svg = open(plot, encoding="utf-8").read()
        check("report: its duration chart is plot's, byte for byte", svg in text)
    rc, _, err = run([exe, "report", a, b, "-q", "-o", out, "--per-iteration",
                      "--control-iteration", "all"])
    if check("report --per-iteration", rc == 0, err):
        text = open(out, encoding="utf-8").read()
        check("report --per-iteration: subtitle and headline say so",
              text.count(", per (rank, iteration)</text>") == 2 and
              "iterations, per (rank, iteration)</p>" in text)


def test_failures(exe, tmp):
    a, b = "examples/control", "examples/test"
    bad = os.path.join(tmp, "no", "such", "dir", "x.png")
    rc, _, err = run([exe, "plot", "duration", a, b, "-q", "-o", bad])
    check("plot to a missing folder fails", rc == 1 and not os.path.exists(bad), err)
    # The target is a folder: the rename fails after the whole chart was drawn.
    d = os.path.join(tmp, "taken.png")
    os.mkdir(d)
    rc, _, err = run([exe, "plot", "duration", a, b, "-q", "-o", d])
    check("plot onto a folder fails and leaves nothing",
          rc == 1 and os.path.isdir(d) and not os.listdir(d) and
          not [f for f in os.listdir(tmp) if f.startswith("taken.png.tmp")], err)
    d = os.path.join(tmp, "taken.svg")
    os.mkdir(d)
    rc, _, err = run([exe, "plot", "counts", a, b, "-q", "-o", d])
    check("plot SVG onto a folder fails and leaves nothing",
          rc == 1 and not [f for f in os.listdir(tmp) if f.startswith("taken.svg.tmp")], err)
    for args, what in (([a, b, "-o", os.path.join(tmp, "x.jpg")], "unknown extension"),
                       ([a, b], "no -o"),
                       ([a, b, "-o", os.path.join(tmp, "x.svg"), "--include", "("], "bad regex"),
                       ([a, "-o", os.path.join(tmp, "x.svg")], "one set only")):
        rc, _, err = run([exe, "plot", "duration"] + args)
        check("plot, %s: usage error, no file" % what,
              rc == 2 and not os.path.exists(os.path.join(tmp, "x.jpg")) and
              not os.path.exists(os.path.join(tmp, "x.svg")), "exit %d %s" % (rc, err))
    rc, _, err = run([exe, "plot", "width", a, b, "-o", os.path.join(tmp, "y.svg")])
    check("plot width: usage error", rc == 2, err)
    bad = os.path.join(tmp, "no", "report.html")
    rc, _, err = run([exe, "report", a, b, "-q", "-o", bad])
    check("report to a missing folder fails", rc == 1 and not os.path.exists(bad), err)
    rc, _, err = run([exe, "plot", "--help"])
    check("plot --help", rc == 0)


def esc(s):
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


def check_report(exe, tmp, name, a, b, args, expect_notes=()):
    out = os.path.join(tmp, name + ".html")
    rc, _, err = run([exe, "report", a, b, "-q", "-o", out] + args)
    if not check("report %s" % name, rc == 0 and os.path.exists(out), err):
        return None
    text = open(out, encoding="utf-8").read()
    rc, err = xmllint(["--html", "--noout", out])
    # libxml2's HTML parser predates HTML5 and inline SVG: it names their tags
    # "invalid" but parses them; anything else is a real error.
    real = [l for l in err.splitlines() if "error" in l and not re.search(r"Tag \w+ invalid", l)]
    check("report %s: xmllint --html" % name, not real, "\n".join(real[:4]))
    check("report %s: both charts" % name,
          text.count('<svg xmlns="http://www.w3.org/2000/svg" class="td-chart"') == 2 and
          'data-kind="counts"' in text and 'data-kind="duration"' in text)
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", text, re.S)
    m = re.search(r'<script type="application/json" id="td-data">(.*?)</script>', text, re.S)
    # the table's data and script, and the flame graph's when the sets have stacks
    flame = re.search(r'<script type="application/json" id="td-flame-data">(.*?)</script>',
                      text, re.S)
    check("report %s: %d scripts, nothing after their end tags" % (name, 4 if flame else 2),
          len(scripts) == (4 if flame else 2) and m is not None and
          (flame is None or json.loads(flame.group(1))["nodes"][0][1] == "all"))
    if not m:
        return text
    data = json.loads(m.group(1))
    rows, err = csv_rows(exe, a, b, [x for x in args if x not in ("--sort", "--top")])
    if rows is None:
        check("report %s: compare" % name, False, err)
        return text
    want = [[shown(r[0]), num(r[1]), num(r[2]), num(r[3]), num(r[4]), num(r[5]), num(r[6]), r[7]]
            for r in rows]
    got = [[r[0]] + [float(x) for x in r[1:7]] + [r[7]] for r in data["rows"]]
    check("report %s: every row, numbers equal the CSV" % name, got == want,
          "%d rows, want %d" % (len(got), len(want)))
    if "--short-names" not in args:
        missing = [r[0] for r in rows if esc(shown(r[0])) not in text]
        check("report %s: every name escaped in the ops lists" % name, not missing,
              str(missing[:2]))
    check("report %s: nothing from the network" % name,
          not re.search(r"<link\b|\bsrc=|@import|url\((?!#)|https?://(?!www\.w3\.org/2000/svg)",
                        text))
    for note in expect_notes:
        check("report %s: note %r" % (name, note), note in text)
    return text


def check_report_stats(exe, tmp):
    """report --stats: the table's rows carry change, interval, q and verdict, equal to
    compare --stats for the same selection."""
    a = "tests/golden/traces/kineto-resnet50_workers0"
    b = "tests/golden/traces/kineto-resnet50_workers4"
    sel = ["--control-iteration", "all", "--test-iteration", "all", "--stats"]
    out = os.path.join(tmp, "stats.html")
    rc, _, err = run([exe, "report", a, b, "-q", "-o", out] + sel)
    if not check("report --stats", rc == 0 and os.path.exists(out), err):
        return
    text = open(out, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="td-data">(.*?)</script>', text, re.S)
    data = json.loads(m.group(1)) if m else {"columns": [], "rows": []}
    cols = data["columns"]
    check("report --stats: columns", cols[8:] == ["change_pct", "ci_low_pct", "ci_high_pct",
                                                  "q_value", "verdict"], str(cols))
    heads = re.findall(r'data-col="[a-z_]+" aria-sort="none">([^<]+(?:<wbr>[^<]+)*)</div>', text)
    heads = [h.replace("<wbr>", "") for h in heads]
    check("report --stats: the interval's heads in the change's unit",
          heads[8:11] == ["change_%", "ci_low_%", "ci_high_%"], str(heads))
    rc, csv_out, err = run([exe, "compare", a, b, "--format", "csv", "-q"] + sel)
    rows = list(csv.DictReader(io.StringIO(csv_out.decode("utf-8"))))
    want = {r["name"]: r for r in rows}
    got = {r[0]: r for r in data["rows"]}
    same = len(want) == len(got) and all(
        got[k][12] == w["verdict"] and
        ((w["q_value"] == "" and got[k][11] is None) or
         (got[k][11] is not None and math.isclose(got[k][11], float(w["q_value"]),
                                                  rel_tol=1e-9, abs_tol=1e-12)))
        for k, w in want.items() if k in got)
    check("report --stats: verdicts and q-values equal compare --stats", same)
    # The interval in percent of the control's mean, as the change beside it.
    def pct(w, col):
        m = float(w["control_mean"]) if w["control_mean"] else 0.0
        return None if w[col] == "" or w["change_pct"] == "" or m == 0 else (
            100 * float(w[col]) / m)
    bad = [k for k, w in want.items() if k in got and any(
        (pct(w, col) is None) != (got[k][i] is None) or
        (got[k][i] is not None and not math.isclose(got[k][i], pct(w, col), rel_tol=1e-9,
                                                     abs_tol=1e-9))
        for i, col in ((9, "ci_low"), (10, "ci_high")))]
    check("report --stats: the interval is compare's in percent of the control's mean",
          not bad and any(got[k][9] is not None for k in got), str(bad[:3]))
    check("report --stats: the change lies in its interval where both are defined",
          all(r[9] - 1e-9 <= r[8] <= r[10] + 1e-9 for r in data["rows"]
              if None not in (r[8], r[9], r[10])))
    check("report --stats: some rows are noise, some not",
          {"noise", "slower"} <= {r[12] for r in data["rows"]})
    check("report --stats: noise rows are styled", "'tr noise'" in text and ".tr.noise" in text)


def check_report_call_stats(exe, tmp):
    """report --stats with per-call samples: the shift columns (shift_us,
    shift_low, shift_high) of compare --stats --samples call, not the empty
    interval of the mean."""
    a = "tests/golden/traces/kineto-resnet50_workers0"
    b = "tests/golden/traces/kineto-resnet50_workers4"
    sel = ["--stats", "--samples", "call", "--device", "gpu"]
    out = os.path.join(tmp, "call.html")
    rc, _, err = run([exe, "report", a, b, "-q", "-o", out] + sel)
    if not check("report --stats --samples call", rc == 0 and os.path.exists(out), err):
        return
    text = open(out, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="td-data">(.*?)</script>', text, re.S)
    data = json.loads(m.group(1)) if m else {"columns": [], "rows": []}
    cols = data["columns"]
    want_cols = ["change_pct", "shift_us", "shift_low", "shift_high", "q_value", "verdict"]
    check("report --stats --samples call: the shift columns", cols[8:] == want_cols, str(cols))
    heads = re.findall(r'data-col="([a-z_]+)"', text)
    check("report --stats --samples call: the table heads them too", heads[8:] == want_cols,
          str(heads))
    rc, csv_out, err = run([exe, "compare", a, b, "--format", "csv", "-q"] + sel)
    want = {r["name"]: r for r in csv.DictReader(io.StringIO(csv_out.decode("utf-8")))}
    bad = []
    for r in data["rows"]:
        w = want.get(r[0])
        for k, col in enumerate(want_cols):
            got, exp = r[8 + k], w[col] if w else None
            if col == "verdict":
                ok = got == exp
            else:
                ok = (exp == "" and got is None) or (
                    got is not None and exp not in (None, "") and
                    math.isclose(got, float(exp), rel_tol=1e-9, abs_tol=1e-12))
            if not ok:
                bad.append((r[0], col, got, exp))
    shifted = [r for r in data["rows"] if r[9] is not None]
    check("report --stats --samples call: shift and interval equal compare's (%d rows with a "
          "shift)" % len(shifted), w is not None and not bad and len(shifted) >= 3, bad[:3])


def check_gpu_headline(text, name, label, nonzero):
    """The headline's "Total GPU kernel time" of one side is (not) zero."""
    m = text and re.search(r"<h3>Total GPU kernel time</h3><table class=\"kv\">(.*?)</table>",
                           text, re.S)
    cell = m and re.search(r"<td>%s</td><td>([^<]*)</td>" % re.escape(label), m.group(1))
    value = cell.group(1) if cell else None
    zero = value is not None and re.fullmatch(r"0(\.0+)?\s*\S*s", value.strip()) is not None
    check("report %s: %s GPU time %s" % (name, label, "not 0" if nonzero else "0"),
          value is not None and zero != nonzero, repr(value))
    if not nonzero:
        big = re.search(r'<h3>Total GPU kernel time</h3>.*?<div class="big"><span class="(\w*)"',
                        text, re.S)
        check("report %s: a drop to 0 GPU time is a warning, not an improvement" % name,
              big is not None and big.group(1) == "warn", big and big.group(1))


def trace_span(path):
    """The span of a set's one file, read apart from tracediff: the first ts
    to the last end of the events HTA keeps (dur and cat, cat not "Trace"),
    with HTA's rounding (ts up, end down) when some ts is decimal."""
    path = os.path.join(ROOT, path)
    files = [os.path.join(path, f) for f in os.listdir(path) if f.endswith((".json", ".json.gz"))]
    assert len(files) == 1
    op = gzip.open if files[0].endswith(".gz") else open
    with op(files[0], "rt", encoding="utf-8") as f:
        doc = json.load(f)
    evs = [e for e in (doc["traceEvents"] if isinstance(doc, dict) else doc)
           if isinstance(e, dict) and "dur" in e and "cat" in e and e["cat"] != "Trace"
           and isinstance(e.get("ts"), (int, float))]
    decimal = any(not isinstance(e["ts"], int) for e in evs)
    lo = min(math.ceil(e["ts"]) if decimal else e["ts"] for e in evs)
    hi = max(math.floor(e["ts"] + e["dur"]) if decimal else e["ts"] + e["dur"] for e in evs)
    return hi - lo


def headline_cells(text, card):
    m = text and re.search(r'<div class="card" id="%s">(.*?)</div>\n' % card, text, re.S)
    return m.group(1) if m else ""


def check_step_headline(exe, tmp):
    """The headline's step time is the breakdown's: on a pair without
    ProfilerStep (one side none, the other one step) each side's trace span,
    never "n/a", and its change; the waterfall's changes add up to it. With
    steps, the breakdown's mean step of the steady iterations."""
    a, b = "tests/golden/traces/hta-no_steps", "tests/golden/traces/hta-triton"
    text = check_report(exe, tmp, "step-headline", a, b, [])
    card = headline_cells(text, "step-time")
    got = [float(x) for x in re.findall(r'<td data-us="([^"]+)">', card)]
    want = [trace_span(a), trace_span(b)]
    check("report without steps: the step time is each side's trace span",
          got == want, "%s, want %s" % (got, want))
    check("report without steps: no n/a, the change given",
          card and "n/a" not in card and "(-%.1f%%)" % (100 * (want[0] - want[1]) / want[0]) in card,
          card[:600])
    wf = headline_cells(text, "waterfall")
    diffs = [float(x) for x in re.findall(r'<td data-us="([^"]+)"><span', wf)]
    check("report without steps: the waterfall's changes add up to the step's",
          len(diffs) >= 6 and abs(sum(diffs) - (want[1] - want[0])) < 1e-6,
          "%s: %s vs %s" % (diffs, sum(diffs), want[1] - want[0]))
    a, b = "tests/golden/traces/hta-trace_diff/control", "tests/golden/traces/hta-trace_diff/test"
    text = check_report(exe, tmp, "step-headline-steps", a, b, [])
    got = [float(x) for x in re.findall(r'<td data-us="([^"]+)">', headline_cells(text, "step-time"))]
    rc, out, err = run([reference.expectation_exe(exe), "breakdown", a, b, "--format", "json",
                        "-q"])
    step = json.loads(out)["diff"]["step_us"] if rc == 0 else {}
    check("report with steps: the breakdown's step time",
          rc == 0 and got == [step["control"], step["test"]], "%s %s" % (got, step))
    # The steady steps' mean, from the ProfilerStep events themselves.
    means = []
    for side in (a, b):
        side = os.path.join(ROOT, side)
        f = [os.path.join(side, x) for x in os.listdir(side) if x.endswith(".json.gz")][0]
        evs = json.load(gzip.open(f, "rt"))["traceEvents"]
        steps = {}
        for e in evs:
            m_ = isinstance(e, dict) and e.get("cat") != "Trace" and "dur" in e and \
                re.fullmatch(r"ProfilerStep#(\d+)", e.get("name", ""))
            if m_:
                steps[int(m_.group(1))] = e["dur"]
        ks = sorted(steps)[1:]
        means.append(sum(steps[k] for k in ks) / len(ks))
    check("report with steps: the mean of the steady ProfilerSteps",
          all(abs(g - w) <= 1e-9 * w for g, w in zip(got, means)) and len(got) == 2,
          "%s, want %s" % (got, means))


def write_trace(path, names, scale):
    """A small trace: one step, each name once on the CPU and once on a GPU stream."""
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0,
           "dur": 100000, "pid": 1, "tid": 1}]
    for i, n in enumerate(names):
        ev.append({"ph": "X", "cat": "cpu_op", "name": n, "ts": 10 + i * 10,
                   "dur": (i + 1) * scale, "pid": 1, "tid": 1})
        ev.append({"ph": "X", "cat": "kernel", "name": n, "ts": 20 + i * 10,
                   "dur": (i + 2) * scale, "pid": 0, "tid": 7, "args": {"stream": 7}})
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(json.dumps({"deviceProperties": [{"name": "GPU <&> \"quoted\""}],
                            "traceEvents": ev}, ensure_ascii=True))


def test_hostile_names(exe, tmp):
    """Names built to break out of SVG, HTML attributes, <script> and XML
    (control characters, a lone surrogate, a noncharacter)."""
    names = ["</script><script>alert(1)</script>", "a & b < c > d", "quote \" and ' apostrophe",
             "line\u2028sep\u2029para", "<!-- not a comment", "]]> cdata end",
             "tab\there", "void k<float>(int, char const*)", "\u00e9l\u00e8ve \u4e2d\u6587",
             "x" * 700, "ctrl\u0001char", "lone \ud800 surrogate", "nonchar \uffff end"]
    for side, scale in (("c", 3), ("t", 5)):
        os.makedirs(os.path.join(tmp, side))
        write_trace(os.path.join(tmp, side, "rank0.json.gz"), names, scale)
    a, b = os.path.join(tmp, "c"), os.path.join(tmp, "t")
    rows, err = csv_rows(exe, a, b, ["--sort", "abs_diff_duration", "--top", "10",
                                     "--exclude", "^ProfilerStep"])
    if not check("hostile names: compare", rows is not None, err):
        return
    out = os.path.join(tmp, "hostile.svg")
    rc, _, err = run([exe, "plot", "duration", a, b, "-q", "-o", out])
    if check("hostile names: plot", rc == 0, err):
        check_svg("hostile names", out, rows, "duration")
    text = check_report(exe, tmp, "hostile", a, b, [])
    if text:
        check("hostile names: no raw script end in the data",
              text.count("</script>") == (4 if 'id="td-flame-data"' in text else 2) and
              "alert(1)</script>" not in text)
        check("hostile names: U+2028 escaped in JSON", "\u2028" not in text.split("td-data")[2])
        check("hostile names: GPU name escaped", "GPU &lt;&amp;&gt; &quot;quoted&quot;" in text)
    junit = os.path.join(tmp, "hostile-junit.xml")
    rc, _, err = run([exe, "check", a, b, "-q", "--max-regression", "0%", "--junit", junit])
    if check("hostile names: check --junit", rc in (0, 3) and os.path.exists(junit), err):
        rc, err = xmllint(["--noout", junit])
        check("hostile names: JUnit XML well-formed (xmllint)", rc == 0, err.strip()[:300])


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    exe = os.path.abspath(sys.argv[1])
    if not shutil.which("xmllint"):
        check("xmllint present (apt-get install libxml2-utils; scripts/deps.sh)", False)
        print("charts: %d passed, %d failed" % (passed, failed))
        return 1
    tmp = tempfile.mkdtemp(prefix="td-chart-")
    # Under LeakSanitizer: fontconfig (below cairo's text) keeps allocations
    # it never frees; they are not ours, and only they are let through.
    supp = os.path.join(tmp, "lsan.supp")
    with open(supp, "w") as f:
        f.write("leak:libfontconfig.so\n")
    ENV["LSAN_OPTIONS"] = ":".join(x for x in (os.environ.get("LSAN_OPTIONS"),
                                               "suppressions=" + supp,
                                               "print_suppressions=0") if x)
    try:
        for i, (name, a, b, sel) in enumerate(pairs()):
            # the instrumented passes: the examples, then every third pair
            # (the others reach no line of src/ these do not:
            # scripts/choose_subset.py unique-lines), one kind in turn
            if SUBSET and i % 3:
                continue
            test_pair(exe, tmp, name, a, b, sel, kinds=((i // 3) % 2,) if SUBSET and i else (0, 1))
        test_formats(exe, tmp)
        test_selections(exe, tmp)
        test_failures(exe, tmp)
        test_diff_axis(exe, tmp)
        check_report_subtitle(exe, tmp)
        check_report(exe, tmp, "examples", "examples/control", "examples/test", [])
        check_report(exe, tmp, "trace_diff-short", "tests/golden/traces/hta-trace_diff/control",
                     "tests/golden/traces/hta-trace_diff/test", ["--short-names"])
        check_report(exe, tmp, "no_steps", "tests/golden/traces/hta-no_steps",
                     "tests/golden/traces/hta-trace_compare/test", ["--device", "gpu"],
                     expect_notes=["has no ProfilerStep: comparing the whole trace"])
        text = check_report(exe, tmp, "bert", "tests/golden/traces/tracelens-bert_h100",
                            "tests/golden/traces/tracelens-bert_mi300",
                            ["--control-label", "h100", "--test-label", "mi300"])
        check_gpu_headline(text, "bert", "mi300", nonzero=True)
        text = check_report(exe, tmp, "bert-strict", "tests/golden/traces/tracelens-bert_h100",
                            "tests/golden/traces/tracelens-bert_mi300",
                            ["--control-label", "h100", "--test-label", "mi300", "--hta-strict"],
                            expect_notes=["--hta-strict: 61 GPU events on stream 0 left out"])
        check_gpu_headline(text, "bert-strict", "mi300", nonzero=False)
        check_step_headline(exe, tmp)
        # The report says what the CLI's notes say (td_diff_side_note): here a
        # file that starts with a byte order mark, and events left out.
        bom = os.path.join(tmp, "bom")
        os.makedirs(bom)
        with gzip.open("examples/control/control.json.gz", "rb") as src, \
                open(os.path.join(bom, "control.json"), "wb") as dst:
            dst.write(b"\xef\xbb\xbf" + src.read())
        check_report(exe, tmp, "notes", bom, "examples/test", [],
                     expect_notes=["control.json: starts with a UTF-8 byte order mark",
                                   "test: 614 GPU events with no launch found"])
        check_report_stats(exe, tmp)
        check_report_call_stats(exe, tmp)
        test_hostile_names(exe, os.path.join(tmp, "hostile"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("charts: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

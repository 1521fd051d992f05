#!/usr/bin/env python3
"""make bench: time tracediff on large traces against its floors and HTA.

    run_bench.py --bin build/tracediff --floor build/scan_floor --runstat build/runstat
                 [--simdjson build/simdjson_walk]
                 [--out bench/out] [--quick] [--runs 3] [--cc cc] [--nice N]

Generates its inputs into OUT/inputs/ with bench/gen_trace.py from the real
traces in tests/golden/traces/ (kept between runs, remade when the generator,
its arguments or the source trace change), then makes RUNS rounds over all
inputs, running for each: the floors (bench/scan_floor read|count|skip on
every file) and `tracediff compare CONTROL TEST -q --format csv` (stdout to
/dev/null) with -j 1 and -j 2; and, on the 4x plain control trace, the
anchor: simdjson on-demand's warm walk (bench/simdjson_walk.cpp), the
scanner alone at every SIMD level and a one-side compare.  Reports medians: wall time, MB/s of
uncompressed JSON, peak RSS (wait4's rusage, taken by bench/runstat.c), RSS
as a share of the JSON, the floors and the ratios.  Writes OUT/results.md (and a copy named for
the mode, results-full.md or results-quick.md, with results-MODE.json holding
every run) and prints the Markdown.  Standard library only.  See
bench/README.md.

MB are 10^6 bytes throughout (RSS too), as gen_trace.py counts them.
"""

import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TRACES = os.path.join(ROOT, "tests", "golden", "traces")
REAL_C = os.path.join(TRACES, "hta-trace_diff", "control")
REAL_T = os.path.join(TRACES, "hta-trace_diff", "test")
SRC_C = os.path.join(REAL_C, "control.json.gz")
SRC_T = os.path.join(REAL_T, "test.json.gz")
SMALL = os.path.join(TRACES, "hta-trace_compare", "test")
# Newer Kineto output: decimal "ts" with nanosecond digits, decimal "dur".
SRC_NS = os.path.join(TRACES, "hta-ns_resolution", "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")
GEN = os.path.join(HERE, "gen_trace.py")

# HTA TraceDiff (load both sides + compare_traces) on a 2-core 24 GiB machine,
# from the shared REFERENCE.md: (wall s, peak RSS MB).
HTA = {"real": (3.95, 271), "x4": (18.7, 901), "x16": (130.6, 3220)}

MB = 1e6

# Goals of the performance issue.
GOAL_SKIP_GBS = 2.0         # scan_floor skip, GB/s per core, 4x plain trace
GOAL_VS_SIMDJSON = 1.3      # one-side compare / simdjson on-demand warm walk
GOAL_GZ_OVERLAP = 1.2       # 4x gzip pair / max(inflate alone, plain pair compare)
GOAL_RSS_PCT = 10.0         # peak RSS / uncompressed JSON, one large trace
GOAL_SWEEP_SPREAD = 20.0    # time per GB, max/min - 1, 100 MB .. 2 GB
GOAL_VS_HTA = 250.0         # 2 x 120 MB pair, -j 2, vs HTA's 18.7 s
LEVELS = ("scalar", "sse2", "avx2", "avx512")


# ----------------------------------------------------------------- inputs

def nranks(quick):
    """Ranks of the many-rank set: 64, or 16 for a quick run."""
    return 16 if quick else 64


def inputs_spec(quick):
    """name -> gen_trace.py arguments (without --out).  Directory names end
    without an extension (ranks mode)."""
    s = {
        "control-x4.json": ["--input", SRC_C, "--scale", "4"],
        "test-x4.json": ["--input", SRC_T, "--scale", "4"],
        "control-x4.json.gz": ["--input", SRC_C, "--scale", "4", "--gzip"],
        "test-x4.json.gz": ["--input", SRC_T, "--scale", "4", "--gzip"],
        "ns-x8.json": ["--input", SRC_NS, "--scale", "8"],
        "control-x4-indent.json": ["--input", SRC_C, "--scale", "4", "--indent"],
        "test-x4-indent.json": ["--input", SRC_T, "--scale", "4", "--indent"],
        "sweep-100MB.json": ["--input", SRC_C, "--target-mb", "100"],
        "sweep-250MB.json": ["--input", SRC_C, "--target-mb", "250"],
        "ranks%d-15MB" % nranks(quick): ["ranks", "--input", SRC_C, "--ranks",
                                          str(nranks(quick)), "--target-mb", "15"],
    }
    if not quick:
        s.update({
            "control-x4-jitter.json.gz": ["--input", SRC_C, "--scale", "4", "--jitter",
                                          "--gzip"],
            "test-x4-jitter.json.gz": ["--input", SRC_T, "--scale", "4", "--jitter", "--gzip"],
            "control-x16.json": ["--input", SRC_C, "--scale", "16"],
            "test-x16.json": ["--input", SRC_T, "--scale", "16"],
            "control-x16.json.gz": ["--input", SRC_C, "--scale", "16", "--gzip"],
            "test-x16.json.gz": ["--input", SRC_T, "--scale", "16", "--gzip"],
            "sweep-500MB.json": ["--input", SRC_C, "--target-mb", "500"],
            "sweep-1000MB.json": ["--input", SRC_C, "--target-mb", "1000"],
            "sweep-2000MB.json": ["--input", SRC_C, "--target-mb", "2000"],
            "ranks64-15MB-gz": ["ranks", "--input", SRC_C, "--ranks", "64", "--target-mb",
                                "15", "--gzip"],
        })
    return s


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def ensure_input(indir, name, args):
    """Generate indir/name unless an identical one is already there."""
    out = os.path.join(indir, name)
    meta_path = out + ".meta"
    src = args[args.index("--input") + 1]
    meta = {"args": [os.path.relpath(a, ROOT) if a.startswith(ROOT) else a for a in args],
            "gen_trace": sha256(GEN), "source": sha256(src)}
    if os.path.exists(out) and os.path.exists(meta_path):
        try:
            with open(meta_path) as f:
                if json.load(f) == meta:
                    return False
        except (OSError, ValueError):
            pass
    if os.path.exists(meta_path):
        os.unlink(meta_path)
    if os.path.isdir(out):
        shutil.rmtree(out)
    elif os.path.exists(out):
        os.unlink(out)
    say("generating %s" % os.path.relpath(out, ROOT))
    subprocess.run([sys.executable, GEN] + args + ["--out", out], check=True)
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    return True


def files_of(path):
    """The trace files tracediff reads for a set (a file or a directory)."""
    if os.path.isdir(path):
        return sorted(os.path.join(path, n) for n in os.listdir(path)
                      if n.endswith((".json", ".json.gz", ".json.zst")))
    return [path]


def is_gzip(path):
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def warm(paths):
    """Read files once so that every timed run finds them in the page cache."""
    for p in paths:
        with open(p, "rb", buffering=0) as f:
            while f.read(1 << 23):
                pass


# ------------------------------------------------------------ measuring

def say(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


def busy_seconds():
    """CPU seconds spent by the whole machine so far (not idle, not iowait;
    steal counts: a hypervisor's other guests take our cores too)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def run_child(runstat, cmd):
    """Run cmd with stdout to /dev/null, through bench/runstat.c (see there why
    not from here); return wall s, peak RSS bytes, CPU s, and the cores other
    processes kept busy meanwhile (on average)."""
    with tempfile.TemporaryFile() as errf, \
            tempfile.NamedTemporaryFile("r", prefix="runstat.") as res:
        b0 = busy_seconds()
        rc = subprocess.run([runstat, res.name] + cmd, stdout=subprocess.DEVNULL,
                            stderr=errf).returncode
        busy = busy_seconds() - b0
        f = res.read().split()
        if rc != 0 or len(f) != 5 or f[4] != "0":
            errf.seek(0)
            sys.exit("bench: %s: failed (%s)\n%s" % (" ".join(cmd), " ".join(f) or rc,
                                                    errf.read().decode(errors="replace")))
    wall, rss, cpu = float(f[0]), int(f[1]) * 1024, float(f[2]) + float(f[3])
    return wall, rss, cpu, max(0.0, busy - cpu) / wall


def floor_run(floor_bin, mode, path, level=None):
    """scan_floor MODE FILE -> (bytes, seconds measured inside the tool)."""
    env = dict(os.environ, TD_SIMD=level) if level else None
    r = subprocess.run([floor_bin, mode, path], stdout=subprocess.PIPE, check=True, env=env)
    f = r.stdout.split()
    return int(f[1]), float(f[2])


def cpu_hogs(interval=1.0):
    """Other processes using over 10% of a core, sampled over interval s."""
    def sample():
        d = {}
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % pid) as f:
                    s = f.read()
            except OSError:
                continue
            comm = s[s.index("(") + 1:s.rindex(")")]
            rest = s[s.rindex(")") + 2:].split()
            d[pid] = (comm, int(rest[11]) + int(rest[12]), int(rest[16]))
        return d
    hz = os.sysconf("SC_CLK_TCK")
    a = sample()
    time.sleep(interval)
    b = sample()
    me = str(os.getpid())
    out = []
    for pid, (comm, t, nice) in b.items():
        if pid in a and pid != me:
            pct = 100.0 * (t - a[pid][1]) / hz / interval
            if pct >= 10:
                out.append("%s (pid %s, nice %d, %.0f%% of a core)" % (comm, pid, nice, pct))
    return out


class Case:
    """One comparison: control and test sets, and what to report beside it."""

    def __init__(self, group, label, control, test, hta=None, extra=(), jobs=(1, 2),
                 size_of=None):
        self.group, self.label = group, label
        self.control, self.test = control, test
        self.hta = hta
        self.extra = list(extra)
        self.jobs = jobs
        # The files read: each side's files (a set compared with itself twice).
        self.reads = files_of(control) + files_of(test)
        # Files whose JSON size counts for MB/s and RSS % (default: all read).
        self.size_files = self.reads if size_of is None else size_of
        self.gz = all(is_gzip(p) for p in self.size_files)
        self.modes = ["read", "skip"] if self.gz else ["read", "count", "skip"]
        self.floors = {m: [] for m in self.modes}   # per run: (sum over reads, 2-core floor)
        self.json_bytes = {}
        self.t = {j: [] for j in self.jobs}
        self.res = {}

    def run_once(self, tdbin, floor_bin, runstat):
        """One round: the floors of every file, then compare with each -j."""
        distinct = sorted(set(self.reads))
        warm(distinct)
        for m in self.modes:
            per = {}
            for p in distinct:
                n, s = floor_run(floor_bin, m, p)
                self.json_bytes[p] = n if m == "read" else self.json_bytes.get(p, n)
                per[p] = s
            tot = sum(per[p] * self.reads.count(p) for p in distinct)
            self.floors[m].append((tot, max(max(per.values()), tot / 2)))
        for j in self.jobs:
            cmd = [tdbin, "compare", self.control, self.test, "-q", "--format", "csv",
                   "-j", str(j)] + self.extra
            self.t[j].append(run_child(runstat, cmd))

    def summarize(self):
        distinct = sorted(set(self.reads))
        mult = {p: self.reads.count(p) for p in distinct}
        modes, floors, json_bytes, t = self.modes, self.floors, self.json_bytes, self.t
        r = self.res
        r["json_bytes"] = sum(json_bytes[p] for p in self.size_files)
        r["json_bytes_read"] = sum(json_bytes[p] * mult[p] for p in distinct)
        r["file_bytes"] = sum(os.path.getsize(p) for p in self.size_files)
        r["files_read"] = len(self.reads)
        for m in modes:
            r["floor_" + m] = statistics.median(x[0] for x in floors[m])
            r["floor2_" + m] = statistics.median(x[1] for x in floors[m])
        for j in self.jobs:
            r["j%d" % j] = {
                "wall": statistics.median(x[0] for x in t[j]),
                "rss": statistics.median(x[1] for x in t[j]),
                "cpu": statistics.median(x[2] for x in t[j]),
                "others": statistics.median(x[3] for x in t[j]),
                "runs": [list(x) for x in t[j]],
            }
        return r


class Anchor:
    """One plain trace: simdjson on-demand's warm walk, the scanner alone at
    each SIMD level, and a one-side compare (against the tiny test trace)."""

    def __init__(self, path, small):
        self.path, self.small = path, small
        self.t = {k: [] for k in ("simdjson", "compare") + LEVELS}
        self.bytes = os.path.getsize(path)

    def run_once(self, tdbin, floor_bin, runstat, walker):
        warm([self.path])
        if walker:
            r = subprocess.run([walker, self.path], stdout=subprocess.PIPE, check=True)
            self.t["simdjson"].append(float(r.stdout.split()[2]))
        for lv in LEVELS:
            self.t[lv].append(floor_run(floor_bin, "skip", self.path, lv)[1])
        cmd = [tdbin, "compare", self.path, self.small, "-q", "--format", "csv", "-j", "1"]
        self.t["compare"].append(run_child(runstat, cmd)[0])

    def median(self, k):
        return statistics.median(self.t[k]) if self.t[k] else None

    def rows(self):
        sj = self.median("simdjson")
        rows = []
        for k in ("simdjson",) + LEVELS + ("compare",):
            v = self.median(k)
            if v is None:
                continue
            what = {"simdjson": "simdjson on-demand walk (warm, in memory)",
                    "compare": "tracediff compare, one side (-j 1, whole process)"}.get(
                        k, "scan_floor skip, TD_SIMD=%s" % k)
            rows.append([what, f3(v), "%.2f" % (self.bytes / 1e9 / v),
                         ("%.2f" % (v / sj)) if sj else "—"])
        return table(["what", "s", "GB/s", "/ simdjson"], rows)


# -------------------------------------------------------------- reporting

def f3(x):
    return "%.3f" % x


def mb(x):
    return "%.1f" % (x / MB)


def table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def time_rows(cases):
    """Wall, throughput, RSS per case and -j, with HTA's figures beside."""
    rows = []
    for c in cases:
        r = c.res
        for j in c.jobs:
            m = r["j%d" % j]
            mbs = r["json_bytes_read"] / MB / m["wall"]
            hta_s = hta_rss = x_s = x_rss = "—"
            if c.hta:
                hta_s, hta_rss = "%.2f" % c.hta[0], "%d" % c.hta[1]
                x_s = "%.0fx" % (c.hta[0] / m["wall"])
                x_rss = "%.1fx" % (c.hta[1] * MB / m["rss"])
            rows.append([c.label, j, f3(m["wall"]), f3(m["cpu"]), "%.0f" % mbs,
                         "%.0f" % (mbs / j),
                         "%.0f" % (r["json_bytes_read"] / MB / m["cpu"]),
                         mb(m["rss"]), "%.2f%%" % (100.0 * m["rss"] / r["json_bytes"]),
                         hta_s, hta_rss, x_s, x_rss, "%.1f" % m["others"]])
    head = ["input", "-j", "wall s", "CPU s", "MB/s", "MB/s per core", "MB/s per CPU s",
            "peak RSS MB", "RSS / JSON", "HTA s", "HTA RSS MB", "faster than HTA",
            "less memory than HTA", "others' load"]
    return table(head, rows)


def floor_rows(cases):
    rows = []
    for c in cases:
        r = c.res
        j1 = r["j1"]["wall"]
        j2 = r["j2"]["wall"] if "j2" in r else None
        if c.gz:
            fl, fl2 = r["floor_read"], r["floor2_read"]
            count = "—"
        else:
            fl, fl2 = r["floor_count"], r["floor2_count"]
            count = f3(r["floor_count"])
        rows.append([c.label, "gzip" if c.gz else "plain", mb(r["file_bytes"]),
                     mb(r["json_bytes_read"]), f3(r["floor_read"]), count,
                     f3(r["floor_skip"]), f3(j1), "%.2f" % (j1 / fl),
                     "%.2f" % (j1 / r["floor_skip"]),
                     f3(j2) if j2 else "—",
                     ("%.2f" % (j2 / fl2)) if j2 else "—",
                     ("%.2fx" % (j1 / j2)) if j2 else "—"])
    head = ["input", "format", "file MB", "JSON MB read", "read s", "count s", "skip s",
            "-j 1 s", "-j 1 / floor", "-j 1 / skip", "-j 2 s", "-j 2 / 2-core floor",
            "-j 2 speed-up"]
    return table(head, rows)


def sweep_rows(cases, events):
    rows = []
    for c in cases:
        r = c.res
        m = r["j1"]
        gb = r["json_bytes"] / 1e9
        ev = events.get(c.control)
        rows.append([c.label, mb(r["json_bytes"]),
                     "%d / %d" % ev if ev else "—",
                     f3(m["wall"]), f3(m["wall"] / gb), f3(m["cpu"] / gb),
                     "%.0f" % (r["json_bytes"] / MB / m["wall"]),
                     mb(m["rss"]), "%.2f%%" % (100.0 * m["rss"] / r["json_bytes"]),
                     ("%.0f" % (m["rss"] / ev[1])) if ev else "—",
                     f3(r["floor_count"]), f3(r["floor_skip"]),
                     "%.2f" % (m["wall"] / r["floor_skip"]), "%.1f" % m["others"]])
    head = ["input (control only)", "JSON MB", "events total / counted", "-j 1 s", "s per GB",
            "CPU s per GB",
            "MB/s", "peak RSS MB", "RSS / JSON", "RSS bytes per counted event", "count s",
            "skip s", "total / skip", "others' load"]
    return table(head, rows)


def info_events(tdbin, path):
    r = subprocess.run([tdbin, "info", path, "--format", "json", "-j", "1"],
                       stdout=subprocess.PIPE, check=True)
    d = json.loads(r.stdout)
    return (sum(f["events_total"] for f in d["files"]),
            sum(f["events_counted"] for f in d["files"]))


def goals(by, sweep, anchor):
    """(goal, measured, met) lines, computed from the run."""
    out = []

    def add(goal, text, met):
        out.append((goal, text, "met" if met else "**not met**"))

    if anchor:
        best = max(LEVELS, key=lambda lv: -anchor.median(lv))
        gbs = anchor.bytes / 1e9 / anchor.median(best)
        add("scanner alone (scan_floor skip) ≥ %.0f GB/s per core, 4x plain trace" % GOAL_SKIP_GBS,
            ", ".join("%s %.2f GB/s" % (lv, anchor.bytes / 1e9 / anchor.median(lv))
                      for lv in LEVELS), gbs >= GOAL_SKIP_GBS)
        sj = anchor.median("simdjson")
        if sj:
            x = anchor.median("compare") / sj
            add("one-side compare ≤ %.1f× simdjson on-demand's warm walk" % GOAL_VS_SIMDJSON,
                "%.3f s / %.3f s = %.2f×" % (anchor.median("compare"), sj, x),
                x <= GOAL_VS_SIMDJSON)
    c = by.get("x4 plain")
    if c:
        x = HTA["x4"][0] / c.res["j2"]["wall"]
        add("4x plain pair, -j 2, ≥ %.0f× faster than HTA's %.1f s (≤ %.3f s)"
            % (GOAL_VS_HTA, HTA["x4"][0], HTA["x4"][0] / GOAL_VS_HTA),
            "%.3f s = %.0f× (-j 1: %.3f s = %.0f×)" % (
                c.res["j2"]["wall"], x, c.res["j1"]["wall"], HTA["x4"][0] / c.res["j1"]["wall"]),
            x >= GOAL_VS_HTA)
    g, p = by.get("x4 gzip"), by.get("x4 plain")
    if g and p:
        for j in (1, 2):
            ref = max(g.res["floor_read"] if j == 1 else g.res["floor2_read"],
                      p.res["j%d" % j]["wall"])
            x = g.res["j%d" % j]["wall"] / ref
            add("4x gzip pair ≤ %.1f× max(inflating alone, comparing the plain pair), -j %d"
                % (GOAL_GZ_OVERLAP, j),
                "%.3f s / max(%.3f, %.3f) s = %.2f×" % (
                    g.res["j%d" % j]["wall"], g.res["floor_read"] if j == 1 else
                    g.res["floor2_read"], p.res["j%d" % j]["wall"], x), x <= GOAL_GZ_OVERLAP)
    if sweep:
        big = sweep[-1]
        pc = 100.0 * big.res["j1"]["rss"] / big.res["json_bytes"]
        add("peak RSS ≤ %.0f%% of the JSON, one large trace" % GOAL_RSS_PCT,
            "%s: %s MB RSS = %.2f%% of %s MB" % (big.label, mb(big.res["j1"]["rss"]), pc,
                                               mb(big.res["json_bytes"])),
            pc <= GOAL_RSS_PCT)
        spg = [c.res["j1"]["wall"] / (c.res["json_bytes"] / 1e9) for c in sweep]
        spread = 100.0 * (max(spg) / min(spg) - 1)
        add("time per GB constant within %.0f%%, %s to %s" % (GOAL_SWEEP_SPREAD, sweep[0].label,
                                                              sweep[-1].label),
            "%.3f–%.3f s/GB, max/min − 1 = %.1f%%" % (min(spg), max(spg), spread),
            spread <= GOAL_SWEEP_SPREAD)
    return out


# ------------------------------------------------------------------ perf

def perf_top(tdbin, control, test, outdir, n=10):
    """Top n symbols (self time) of a -j 1 compare, or None without perf."""
    perf = shutil.which("perf")
    if not perf:
        return None
    data = os.path.join(outdir, "perf.data")
    for old in (data, data + ".old"):
        if os.path.exists(old):
            os.unlink(old)
    one = " ".join([tdbin, "compare", control, test, "-q", "--format", "csv", "-j", "1"])
    cmd = [perf, "record", "-q", "-F", "10000", "-o", data, "--", "sh", "-c",
           "for i in 1 2 3; do %s; done" % one]
    if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
        return None
    r = subprocess.run([perf, "report", "-i", data, "--no-children", "--stdio",
                        "--sort", "symbol"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    lines = [ln.rstrip() for ln in r.stdout.splitlines()
             if ln.strip() and not ln.lstrip().startswith("#")]
    samples = [ln for ln in r.stdout.splitlines() if ln.startswith("# Samples")]
    return (samples[0][2:] if samples else ""), lines[:n]


# ------------------------------------------------------------------- main

def set_priority(n):
    """Nice n for this process and its children.  With the scheduler's
    autogroups (sched_autogroup_enabled), nice only ranks processes of one
    session against each other: sessions share the CPU equally, so a fuzzer at
    nice 19 in another session still takes a full core from us.  A session of
    our own with the autogroup's nice set to n does what nice means."""
    notes = []
    try:
        os.setsid()
    except OSError:
        notes.append("no new session")
    try:
        os.setpriority(os.PRIO_PROCESS, 0, n)
    except OSError as e:
        notes.append("setpriority: %s" % e.strerror)
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(n))
    except OSError as e:
        notes.append("autogroup: %s" % e.strerror)
    return "nice %d in a session of its own%s" % (n, (" (%s)" % "; ".join(notes)) if notes
                                                   else "")


def machine(cc):
    model = "?"
    with open("/proc/cpuinfo") as f:
        for ln in f:
            if ln.startswith("model name"):
                model = ln.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) * 1024
    try:
        ccv = subprocess.run([cc, "--version"], stdout=subprocess.PIPE, text=True,
                             check=True).stdout.splitlines()[0]
    except (OSError, subprocess.CalledProcessError):
        ccv = "?"
    try:
        rev = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                             check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        rev = "?"
    return {"nproc": os.cpu_count(), "cpu": model, "mem_gib": mem / 2**30, "cc": ccv,
            "kernel": platform.release(), "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "rev": rev}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--floor", required=True)
    ap.add_argument("--runstat", required=True)
    ap.add_argument("--simdjson", help="bench/simdjson_walk.cpp built (optional)")
    ap.add_argument("--inflate", help="bench/inflate_bench.c built (optional)")
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--nice", type=int,
                    help="run at this nice value, in a session (scheduler autogroup) of "
                         "its own; negative needs root")
    a = ap.parse_args()
    t_start = time.time()
    prio = set_priority(a.nice) if a.nice is not None else "nice 0 (default)"
    indir = os.path.join(a.out, "inputs")
    os.makedirs(indir, exist_ok=True)
    # Time copies: others may rebuild build/ while this runs.
    bindir = os.path.join(a.out, "bin")
    os.makedirs(bindir, exist_ok=True)
    tdbin = shutil.copy2(a.bin, os.path.join(bindir, "tracediff"))
    floor_bin = shutil.copy2(a.floor, os.path.join(bindir, "scan_floor"))
    runstat = shutil.copy2(a.runstat, os.path.join(bindir, "runstat"))
    inflater = shutil.copy2(a.inflate, os.path.join(bindir, "inflate_bench")) \
        if a.inflate and os.path.exists(a.inflate) else None
    walker = shutil.copy2(a.simdjson, os.path.join(bindir, "simdjson_walk")) \
        if a.simdjson and os.path.exists(a.simdjson) else None
    bin_sha = sha256(tdbin)[:12]
    bin_built = time.strftime("%H:%M:%S", time.gmtime(os.path.getmtime(tdbin)))
    m = machine(a.cc)       # now: the tree may change while this runs

    hogs_before = cpu_hogs()
    spec = inputs_spec(a.quick)
    t0 = time.time()
    for name, args in spec.items():
        ensure_input(indir, name, args)
    t_gen = time.time() - t0
    I = lambda n: os.path.join(indir, n)          # noqa: E731

    pairs = [Case("pairs", "real pair", REAL_C, REAL_T, HTA["real"]),
             Case("pairs", "x4 plain", I("control-x4.json"), I("test-x4.json"), HTA["x4"]),
             Case("pairs", "x4 gzip", I("control-x4.json.gz"), I("test-x4.json.gz"), HTA["x4"]),
             Case("pairs", "x4 plain, indented as Kineto writes", I("control-x4-indent.json"),
                  I("test-x4-indent.json"), HTA["x4"]),
             Case("pairs", "ns x8 plain (decimal ts) with itself", I("ns-x8.json"),
                  I("ns-x8.json"))]
    if not a.quick:
        pairs += [Case("pairs", "x4 gzip jitter", I("control-x4-jitter.json.gz"),
                       I("test-x4-jitter.json.gz"), HTA["x4"]),
                  Case("pairs", "x16 plain", I("control-x16.json"), I("test-x16.json"),
                       HTA["x16"]),
                  Case("pairs", "x16 gzip", I("control-x16.json.gz"), I("test-x16.json.gz"),
                       HTA["x16"])]
    sizes = [100, 250] if a.quick else [100, 250, 500, 1000, 2000]
    sweep = [Case("sweep", "%d MB" % s, I("sweep-%dMB.json" % s), SMALL, jobs=(1,),
                  size_of=[I("sweep-%dMB.json" % s)]) for s in sizes]
    all_ranks = ["--control-rank", "all", "--test-rank", "all"]
    nr = nranks(a.quick)
    rdir = I("ranks%d-15MB" % nr)
    ranks = [Case("ranks", "%d ranks plain" % nr, rdir, rdir, extra=all_ranks)]
    if not a.quick:
        ranks.append(Case("ranks", "64 ranks gzip", I("ranks64-15MB-gz"), I("ranks64-15MB-gz"),
                          extra=all_ranks))
    cases = pairs + sweep + ranks
    anchor = Anchor(I("control-x4.json"), SMALL)

    events = {}
    inflate_t = {}
    t0 = time.time()
    # Rounds over all inputs rather than runs in a row: a burst of load from
    # other processes then spoils one run of several inputs, not the median
    # of one.
    for r in range(a.runs):
        for c in cases:
            say("round %d/%d: %s" % (r + 1, a.runs, c.label))
            c.run_once(tdbin, floor_bin, runstat)
        say("round %d/%d: anchor" % (r + 1, a.runs))
        anchor.run_once(tdbin, floor_bin, runstat, walker)
        if inflater:
            r_ = subprocess.run([inflater, I("control-x4.json.gz")], stdout=subprocess.PIPE,
                                check=True)
            for line in r_.stdout.decode().splitlines():
                lib, nbytes, sec = line.split()
                inflate_t.setdefault(lib, []).append((int(nbytes), float(sec)))
    for c in cases:
        c.summarize()
        if c.group == "sweep":
            events[c.control] = info_events(tdbin, c.control)
    big = I("sweep-2000MB.json")
    if os.path.exists(big) and shutil.disk_usage(indir).free < 20e9:   # tight disk: drop it
        say("little disk left: removing %s" % big)
        os.unlink(big)
        os.unlink(big + ".meta")
    t_time = time.time() - t0
    perf = None if a.quick else perf_top(tdbin, I("control-x4.json"), I("test-x4.json"), a.out)
    hogs_after = cpu_hogs()
    by = {c.label: c for c in cases}

    md = ["# tracediff benchmark results%s" % (" (BENCH_QUICK)" if a.quick else ""), "",
          "%s; %d cores, %s; %.1f GiB; %s; Linux %s; Python %s; tracediff %s." % (
              m["date"], m["nproc"], m["cpu"], m["mem_gib"], m["cc"], m["kernel"],
              m["python"], m["rev"]) +
          " Binary: `%s` (sha256 %s…, built %s UTC), copied to `%s` before timing." % (
              a.bin, bin_sha, bin_built, os.path.relpath(tdbin, ROOT)), "",
          "Median of %d runs each, made in rounds over all inputs. Command: "
          "`tracediff compare CONTROL TEST -q --format csv -j N > /dev/null` (many ranks: "
          "`--control-rank all --test-rank all`). MB = 10^6 bytes; MB/s counts the "
          "uncompressed JSON read. Floors are summed over the files read "
          "(one core); the 2-core floor is max(largest file, sum / 2). \"floor\" is `read` "
          "(isa-l inflate) for gzip input and `count` (a trivial pass) for plain JSON; `skip` "
          "is the JSON scanner alone. \"MB/s per CPU s\" "
          "divides by the child's user + system time instead of wall time; wall, CPU time and "
          "peak RSS are taken by `bench/runstat.c` (fork, exec, wait4). \"others' load\": "
          "cores kept busy by other processes (and the hypervisor's steal) during the timed "
          "runs, median; this machine has %d." % (a.runs, os.cpu_count()), "",
          "Priority: %s. Other processes using CPU: before the run: %s; after: %s." % (
              prio, "; ".join(hogs_before) or "none", "; ".join(hogs_after) or "none"), "",
          "## The scanner against simdjson: 4x control trace (%s MB), medians" % mb(anchor.bytes),
          "", anchor.rows(), "",
          "## Inflaters on control-x4.json.gz (in memory, medians)", "",
          table(["library", "s", "GB/s of output"],
                [[lib, f3(statistics.median(x[1] for x in v)),
                  "%.2f" % (v[0][0] / 1e9 / statistics.median(x[1] for x in v))]
                 for lib, v in inflate_t.items()]) if inflate_t else "(not run)", "",
          "## Pairs: the HTA trace_diff pair, scaled; a newer (decimal, nanosecond) trace", "", time_rows(pairs), "",
          floor_rows(pairs), "",
          "## Size sweep: one control trace against a tiny test trace (-j 1)", "",
          sweep_rows(sweep, events), "", floor_rows(sweep), "",
          "## Many ranks: %d × 15 MB compared with itself" % nr, "", time_rows(ranks), "",
          floor_rows(ranks), ""]
    if perf:
        md += ["## Where the time goes: `perf report --no-children --stdio --sort symbol` of "
               "x4 plain, -j 1 (3 runs)", "",
               perf[0], "", "```"] + perf[1] + ["```", ""]
    md += ["## Goals", "", table(["goal", "measured", "verdict"], goals(by, sweep, anchor)), "",
           "Generation %.0f s (0 when cached), timing %.0f s, total %.0f s." % (
               t_gen, t_time, time.time() - t_start), ""]
    text = "\n".join(md)
    mode = ("quick" if a.quick else "full") + ("" if a.nice is None else "-nice%d" % a.nice)
    for name in ("results.md", "results-%s.md" % mode):
        with open(os.path.join(a.out, name), "w") as f:
            f.write(text)
    with open(os.path.join(a.out, "results-%s.json" % mode), "w") as f:
        json.dump({"machine": m, "binary_sha256": sha256(tdbin), "quick": a.quick,
                   "runs": a.runs, "priority": prio,
                   "hogs": [hogs_before, hogs_after],
                   "cases": [{"group": c.group, "label": c.label, "control": c.control,
                              "test": c.test, "hta": c.hta, "res": c.res} for c in cases],
                   "anchor": {"path": anchor.path, "bytes": anchor.bytes, "runs": anchor.t},
                   "events": events, "perf": perf}, f, indent=1)
    print(text)
    say("wrote %s (and results-%s.md, .json)" % (
        os.path.relpath(os.path.join(a.out, "results.md"), os.getcwd()), mode))
    return 0


if __name__ == "__main__":
    sys.exit(main())

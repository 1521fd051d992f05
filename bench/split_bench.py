#!/usr/bin/env python3
"""One big plain file on several cores: -j 1 against -j 2, interleaved.

    split_bench.py --runstat build/runstat [--rounds 7] --bin NAME=BINARY... CASE...

CASE is LABEL:J:CONTROL:TEST[:EXTRA ARGS] (one `compare -q --format csv` per round and
binary). Every round runs every (binary, case) once, in turn, so a burst of
load from other processes spoils one run of each rather than the median of
one. Prints a Markdown table of medians: wall s, CPU s (user + sys), peak
RSS MB, and the others' load during the runs (cores kept busy by other
processes, from /proc/stat, minus this benchmark's own CPU time).
"""
import argparse, os, statistics, subprocess, tempfile, time


def cpu_busy():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v) - idle, sum(v)


def run_one(runstat, res, cmd):
    t0 = cpu_busy()
    subprocess.run([runstat, res] + cmd, stdout=subprocess.DEVNULL, check=True)
    t1 = cpu_busy()
    wall, rss, user, sys_, status = open(res).read().split()
    hz = os.sysconf("SC_CLK_TCK")
    busy = (t1[0] - t0[0]) / hz
    return float(wall), int(rss) / 1024, float(user) + float(sys_), busy, int(status)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runstat", required=True)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--bin", action="append", required=True)
    ap.add_argument("--nice", type=int, help="this nice, in a session and autogroup of its own "
                    "(as run_bench.py --nice; negative needs root)")
    ap.add_argument("case", nargs="+")
    a = ap.parse_args()
    if a.nice is not None:
        os.setsid()
        os.setpriority(os.PRIO_PROCESS, 0, a.nice)
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(a.nice))
    bins = [b.split("=", 1) for b in a.bin]
    cases = [(c.split(":", 4) + [""])[:5] for c in a.case]
    res = tempfile.mktemp()
    rows = {}
    for _ in range(a.rounds):
        for label, j, ctl, tst, extra in cases:
            for name, exe in bins:
                cmd = [exe, "compare", ctl, tst, "-q", "--format", "csv", "-j", j] + extra.split()
                wall, rss, cpu, busy, st = run_one(a.runstat, res, cmd)
                if st != 0:
                    raise SystemExit(f"{cmd}: status {st}")
                others = max(0.0, (busy - cpu) / wall) if wall > 0 else 0.0
                rows.setdefault((label, j, name), []).append((wall, cpu, rss, others))
    os.unlink(res)
    print("| input | -j | binary | wall s (median) | best | CPU s | peak RSS MB | others' load (cores) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for (label, j, name), v in rows.items():
        med = lambda i: statistics.median(x[i] for x in v)
        print(f"| {label} | {j} | {name} | {med(0):.3f} | {min(x[0] for x in v):.3f} | "
              f"{med(1):.3f} | {med(2):.1f} | {med(3):.2f} |")


if __name__ == "__main__":
    main()

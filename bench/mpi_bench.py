#!/usr/bin/env python3
"""tracediff-mpi on one machine: 64 ranks per side, -n 1, 2, 4 against the CLI.

    mpi_bench.py --bin build/tracediff [--out bench/out] [--runs 3]

Generates two sets of 64 ranks (the bundled multi-MB traces, distributedInfo.rank
renumbered, gzip) into OUT/mpi64/ (kept between runs), then times
`compare --control-rank all --test-rank all --format csv` with the CLI (-j 1,
-j 2) and with `mpirun -n N tracediff-mpi` (N = 1, 2, 4), median of RUNS, and
the time mpirun takes to start and stop processes that do nothing
(`tracediff-mpi --version`). Every output is checked byte-identical to the CLI's.
Prints a Markdown table.
"""
import argparse, gzip, os, resource, statistics, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACES = os.path.join(ROOT, "tests", "golden", "traces")
SOURCES = {"control": ["hta-negative_queue", "hta-two_ranks/sampled_rank-0.json.gz",
                       "kineto-resnet50_workers0", "hta-ns_resolution"],
           "test": ["hta-ns_resolution", "hta-two_ranks/sampled_rank-1.json.gz",
                    "kineto-resnet50_workers4", "hta-negative_queue"]}
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-q"]


def source_json(src):
    path = os.path.join(TRACES, src)
    if os.path.isdir(path):
        path = os.path.join(path, sorted(os.listdir(path))[0])
    data = open(path, "rb").read()
    return gzip.decompress(data) if path.endswith(".gz") else data


def make_sets(out, n=64):
    top = os.path.join(out, "mpi64")
    for side, sources in SOURCES.items():
        folder = os.path.join(top, side)
        if os.path.isdir(folder) and len(os.listdir(folder)) == n:
            continue
        os.makedirs(folder, exist_ok=True)
        bodies = {s: source_json(s).rstrip() for s in sources}
        for r in range(n):
            body = bodies[sources[r % len(sources)]]
            body = body[:-1] + b', "distributedInfo": {"backend": "nccl", "rank": %d}}' % r
            with gzip.open(os.path.join(folder, "rank-%02d.json.gz" % r), "wb", 1) as f:
                f.write(body)
    return os.path.join(top, "control"), os.path.join(top, "test")


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, runs):
    """Median wall time and median CPU time (every process, mpirun's too)."""
    times, cpus, out = [], [], None
    for _ in range(runs):
        t, c = time.perf_counter(), cpu()
        p = subprocess.run(cmd, capture_output=True)
        times.append(time.perf_counter() - t)
        cpus.append(cpu() - c)
        if p.returncode != 0:
            sys.exit("failed: %s\n%s" % (" ".join(cmd), p.stderr.decode()))
        out = p.stdout
    return (statistics.median(times), statistics.median(cpus)), out


def size_of(folder):
    return sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/tracediff")
    ap.add_argument("--out", default="bench/out")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    mpi = os.path.join(os.path.dirname(a.bin), "tracediff-mpi")
    ctl, tst = make_sets(a.out)
    args = ["compare", ctl, tst, "--control-rank", "all", "--test-rank", "all", "--format", "csv"]
    print("64 + 64 ranks, %.1f + %.1f MB gzip; median of %d runs; %d cores\n"
          % (size_of(ctl) / 1e6, size_of(tst) / 1e6, a.runs, os.cpu_count()))
    print("load average before: %.2f\n" % os.getloadavg()[0])
    print("| run | wall s | CPU s | mpirun start/stop alone, wall s |\n|---|---|---|---|")
    ref = None
    for j in (1, 2):
        t, out = timed([a.bin] + args + ["-j", str(j)], a.runs)
        ref = ref or out
        print("| tracediff -j %d | %.3f | %.3f | |" % (j, t[0], t[1]))
    for n in (1, 2, 4):
        t0, _ = timed(MPIRUN + ["-n", str(n), mpi, "--version"], a.runs)
        t, out = timed(MPIRUN + ["-n", str(n), mpi] + args, a.runs)
        same = "" if out == ref else " (OUTPUT DIFFERS)"
        print("| mpirun -n %d tracediff-mpi | %.3f%s | %.3f | %.3f |" % (n, t[0], same, t[1], t0[0]))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""tracediff-mpi under valgrind memcheck: every rank of a 2-process job, on a
good pair and on a set with a corrupt file. Open MPI leaks at start-up in its
plug-ins, so a report counts only when one of its frames is in our sources
(mpi/, src/) and it does not come from MPI_Init/MPI_Finalize.

    python3 scripts/mpi_valgrind.py [BUILD]          (make valgrind-mpi)
"""
import glob, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = {os.path.basename(p) for d in ("mpi", "src") for p in glob.glob(os.path.join(ROOT, d, "**", "*.c"), recursive=True)}


def ours(record):
    if re.search(r"PMPI_Init|PMPI_Finalize|ompi_mpi_init|ompi_mpi_finalize", record):
        return False
    return any(m in OURS for m in re.findall(r"\((\w+\.c):\d+\)", record))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    tmp = tempfile.mkdtemp(prefix="td-mpi-vg-")
    two = os.path.join(ROOT, "tests/golden/traces/hta-two_ranks")
    bad = os.path.join(tmp, "bad")
    shutil.copytree(two, bad)
    victim = os.path.join(bad, "sampled_rank-1.json.gz")
    data = bytearray(open(victim, "rb").read())
    data[len(data) // 2:len(data) // 2 + 32] = b"\x5a" * 32
    open(victim, "wb").write(bytes(data))
    vg = ["valgrind", "-q", "--leak-check=full", "--show-leak-kinds=definite,indirect",
          "--suppressions=" + os.path.join(ROOT, "tests/valgrind.supp"),
          "--log-file=" + os.path.join(tmp, "vg.%p.log")]
    if os.path.exists("/usr/share/openmpi/openmpi-valgrind.supp"):
        vg.append("--suppressions=/usr/share/openmpi/openmpi-valgrind.supp")
    exe = os.path.join(build, "tracediff-mpi")
    runs = [(0, ["compare", two, two, "--control-rank", "all", "--test-rank", "1", "--format", "csv"]),
            (0, ["info", two]),
            (1, ["compare", bad, two, "--control-rank", "all"])]
    found = 0
    for want, args in runs:
        p = subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-q", "-n", "2"] + vg +
                           [exe] + args, capture_output=True, timeout=600, cwd=ROOT)
        if p.returncode != want:
            print("FAIL exit %d (expected %d): %s" % (p.returncode, want, " ".join(args)))
            found += 1
        for log in glob.glob(os.path.join(tmp, "vg.*.log")):
            for rec in re.split(r"\n==\d+== \n", open(log).read()):
                if re.search(r"lost in loss record|Invalid|uninitialised|Mismatched", rec) and ours(rec):
                    print(rec)
                    found += 1
            os.remove(log)
    shutil.rmtree(tmp, ignore_errors=True)
    print("mpi-valgrind: %d reports from our code" % found)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

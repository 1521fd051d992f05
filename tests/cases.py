"""The reference cases of tests/golden/cases.json: all of them, or the subset.

Every suite that walks the reference cases (golden, split, SIMD levels,
summaries, MPI, Python, charts) reads them through load(). With
TD_TEST_SUBSET=1 in the environment, as `make sanitize` and `make valgrind`
set it, only the cases named in tests/subset/golden.txt are kept: a fixed
subset chosen by line coverage (scripts/choose_subset.py; the numbers are in
CONTRIBUTING.md). The plain `make test` and `make check-all` run them all.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SUBSET_FILE = os.path.join(HERE, "subset", "golden.txt")


def subset_ids():
    """The case ids of the subset, or None when every case runs."""
    if os.environ.get("TD_TEST_SUBSET", "") in ("", "0"):
        return None
    with open(SUBSET_FILE, encoding="utf-8") as f:
        return {ln.split("#")[0].strip() for ln in f if ln.split("#")[0].strip()}


def load(path):
    """The cases of the cases.json at path, filtered by the subset when on.

    A subset id that no case has is an error: a renamed case must not
    silently drop out of the instrumented passes."""
    with open(path, encoding="utf-8") as f:
        cases = json.load(f)
    ids = subset_ids()
    if ids is None:
        return cases
    missing = ids - {c["id"] for c in cases}
    if missing:
        raise SystemExit("tests/subset/golden.txt names cases that %s lacks: %s"
                         % (path, sorted(missing)[:5]))
    return [c for c in cases if c["id"] in ids]

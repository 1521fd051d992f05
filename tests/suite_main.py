#!/usr/bin/env python3
"""Runs one Python test suite: suite_main.py tests/NAME_test.py ARGS...

run_all.py starts every tests/*_test.py through this, with the suite's own
interpreter on glibc's malloc, in huge pages and without giving memory back
(TUNED below): CPython's own allocator maps and unmaps its arenas 1 MiB
at a time, and on a virtual machine each first touch of a 4 KiB page costs
about 13 us, so a suite's interpreter spent a sixth of its time in page
faults. The settings that run_all.py added (named in TD_SUITE_TUNED) are
taken out of the environment before the suite runs, so that what the suite
starts (tracediff, tracediff-mpi, another Python) starts as a user's would.
"""
import os
import runpy
import sys

# PYTHONMALLOC and GLIBC_TUNABLES for the suites' interpreter (run_all.py).
TUNED = {
    "PYTHONMALLOC": "malloc",
    "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=33554432:"
                      "glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=33554432",
}


def tuned_env(environ):
    """environ with TUNED added where the caller did not set it, and
    TD_SUITE_TUNED naming what was added (main takes it out again)."""
    add = {k: v for k, v in TUNED.items() if k not in environ}
    return dict(environ, TD_SUITE_TUNED=",".join(add), **add)


def again(py, argv):
    """The argv and environment that start the suite argv (sys.argv) again
    through this, with the interpreter py (python_test.py: one with pandas)."""
    return [py, os.path.abspath(__file__)] + argv, tuned_env(os.environ)


def main():
    for k in os.environ.pop("TD_SUITE_TUNED", "").split(","):
        if k:
            os.environ.pop(k, None)
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0]))
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()

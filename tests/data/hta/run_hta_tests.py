#!/usr/bin/env python3
"""Runs HTA's own TraceDiff tests (tests/test_trace_diff.py of an HTA
checkout) with `hta.trace_diff` bound to the tracediff module.

    /usr/bin/python3 tests/data/hta/run_hta_tests.py HTA_SOURCE_DIR [BUILD]

A throw-away package `hta` on sys.path gives the test file what it imports:
`hta.trace_diff` is tracediff.trace_diff, and
`hta.utils.test_utils.get_test_data_dir()` a folder whose `trace_compare`
is tests/golden/traces/hta-trace_compare (HTA's own test traces). Nothing
of HTA but its test file is used. BUILD: the build folder (default build/),
whose python/ holds the module (`make python`).
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    src = os.path.join(sys.argv[1], "tests", "test_trace_diff.py")
    build = os.path.abspath(sys.argv[2] if len(sys.argv) == 3 else os.path.join(ROOT, "build"))
    with tempfile.TemporaryDirectory() as tmp:
        pkg = os.path.join(tmp, "hta")
        os.makedirs(os.path.join(pkg, "utils"))
        with open(os.path.join(pkg, "__init__.py"), "w"):
            pass
        with open(os.path.join(pkg, "utils", "__init__.py"), "w"):
            pass
        with open(os.path.join(pkg, "trace_diff.py"), "w") as f:
            f.write("from tracediff.trace_diff import *  # noqa\n"
                    "from tracediff.trace_diff import TraceDir  # noqa\n")
        data = os.path.join(tmp, "data")
        os.makedirs(data)
        os.symlink(os.path.join(ROOT, "tests", "golden", "traces", "hta-trace_compare"),
                   os.path.join(data, "trace_compare"))
        with open(os.path.join(pkg, "utils", "test_utils.py"), "w") as f:
            f.write(f"def get_test_data_dir():\n    return {data!r}\n")
        shutil.copy(src, os.path.join(tmp, "test_trace_diff.py"))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([tmp, os.path.join(build, "python")]))
        rc = subprocess.call([sys.executable, "-W", "ignore", "-m", "unittest", "-v",
                              "test_trace_diff"], cwd=tmp, env=env)
    sys.exit(rc)


if __name__ == "__main__":
    main()

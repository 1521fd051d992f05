#!/bin/sh
# pip install . in a venv (--system-site-packages, --no-build-isolation:
# setuptools, pandas and numpy from Debian), then import and run the module.
# A copy of the sources is installed, so the tree's build/ is left alone;
# at -O0 (TRACEDIFF_OPT), as the optimized code is the one make builds,
# and without debug information (-g0 after Python's own -g: nothing here
# reads it, and the compiler spent 10-20% of its CPU writing it, for pip to
# zip into the wheel and unzip again) nor temporary files between the
# compiler's stages (-pipe).
# The venv has no pip of its own (--without-pip: ensurepip would install one
# into it, a few seconds of CPU on every run); the system's pip, seen through
# --system-site-packages, runs as the venv's python and installs into it.
#
#   sh tests/pip_test.sh BUILD
pass=0
fail=0
PY=""
for p in ${PYTHON:-} /usr/bin/python3 python3; do
    if "$p" -c 'import pandas, venv, setuptools, pip' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
    echo "pip: no Python 3 with pandas, venv, pip and setuptools" \
         "(apt-get install python3-pandas python3-venv python3-pip python3-setuptools python3-dev)"
    echo "pip: 0 passed, 1 failed"
    exit 1
fi
root=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
cp -r include src python setup.py pyproject.toml README.md "$tmp/src/"
rm -rf "$tmp/src/python/tracediff/__pycache__"
if "$PY" -m venv --without-pip --system-site-packages "$tmp/venv" >"$tmp/log" 2>&1 &&
   (cd "$tmp/src" && TRACEDIFF_OPT='-O0 -g0 -pipe' "$tmp/venv/bin/python" -m pip install -q --no-index \
        --no-build-isolation .) \
       >>"$tmp/log" 2>&1; then
    pass=$((pass + 1))
else
    fail=$((fail + 1)); echo "FAIL pip: install failed:"; cat "$tmp/log"
fi
out=$(cd "$tmp" && "$tmp/venv/bin/python" -W ignore -c '
import sys, tracediff
from tracediff import TraceDiff
assert tracediff.__file__.startswith(sys.prefix), tracediff.__file__
df = TraceDiff.compare_traces(sys.argv[1], sys.argv[2])
st = TraceDiff.compare_traces(sys.argv[1], sys.argv[2], stats=True, samples="call")
res = tracediff.check(sys.argv[1], sys.argv[1])
tracediff.summarize(sys.argv[1], "s.tdsum")
print(len(df), list(df.columns)[0], len(st.columns), res.passed,
      tracediff.runs("s.tdsum")["name"].tolist())' "$root/tests/golden/traces/hta-trace_compare/base" \
    "$root/tests/golden/traces/hta-trace_compare/test" 2>&1)
if [ "$out" = "7 Control_counts 31 True ['base']" ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL pip: the installed module: $out"
fi
echo "pip: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

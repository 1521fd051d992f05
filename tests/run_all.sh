#!/bin/sh
# Runs every test suite against the build in $1 (default: build), several at
# a time (TD_TEST_JOBS, default the number of CPUs), one line per suite with
# its time and one closing line "N passed, N failed": see tests/run_all.py.
exec python3 "$(dirname "$0")/run_all.py" "$@"

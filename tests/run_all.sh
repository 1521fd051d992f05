#!/bin/sh
# Runs every test suite against the build in $1 (default: build) and prints
# one closing line "N passed, N failed" over all of them.
#
# Each suite prints its own closing line "<suite>: N passed, N failed". A suite
# is a unit-test binary, a tests/*_test.py script (given the CLI), or a
# tests/*_test.sh script (given the build directory).
B=${1:-build}
total_p=0
total_f=0
status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

tally() {
    # $1: exit status of the suite; its output is in $log.
    cat "$log"
    line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    p=$(echo "$line" | sed -E 's/^(.*[^0-9])?([0-9]+) passed.*/\2/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    if [ -z "$line" ]; then p=0; f=1; echo "(suite printed no result line)"; fi
    total_p=$((total_p + p))
    total_f=$((total_f + f))
    if [ "$1" -ne 0 ] && [ "$f" -eq 0 ]; then total_f=$((total_f + 1)); fi
    [ "$1" -ne 0 ] && status=1
}

if [ -x "$B/unit_tests" ]; then
    "$B/unit_tests" >"$log" 2>&1; tally $?
fi
for t in tests/*_test.py; do
    [ -f "$t" ] || continue
    case "$t" in tests/golden_test.py)
        python3 "$t" "$B/tracediff" tests/golden/cases.json --jobs-check >"$log" 2>&1; tally $?;;
    *)
        python3 "$t" "$B/tracediff" >"$log" 2>&1; tally $?;;
    esac
done
for t in tests/*_test.sh; do
    [ -f "$t" ] || continue
    sh "$t" "$B" >"$log" 2>&1; tally $?
done
echo
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ] && [ $status -eq 0 ]

#!/bin/sh
# Runs the JSON scanner's unit tests and the golden cases once per SIMD
# level of the scanner's block index (TD_SIMD=scalar|sse2|avx2|avx512; a
# level this CPU lacks falls back to the best one below it), against the
# build in $1 (default: build).
#
# Each level is run once as the level it resolves to on this CPU: one that
# falls back to a level already run is not run again, and the default level
# (the best the CPU has) is the one the rest of the suite runs in, unit_tests
# and golden_test.py without TD_SIMD, so it is not run again here either.
#
# The level changes how files are read, nothing after: the golden cases run
# are the first of each set of files read among the first of each load key
# and the subset's (golden_test.py --loading --scanner, which says why the
# duration rule and --ns do not reach the scanner: 13 cases instead of 39;
# every case with TD_TEST_FULL=1). With TD_TEST_SUBSET=1 (make sanitize,
# make valgrind) they are the subset's only, and the scanner's unit tests run
# at the scalar level only.
#
# Prints "simd-levels: N passed, N failed" (N counts level-suite runs).
B=${1:-build}
cd "$(dirname "$0")/.." || exit 1
passed=0
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
default=$("$B/unit_tests" --simd-level)
case "$default" in scalar | sse2 | avx2 | avx512) ;; *)
    echo "unit_tests --simd-level gave '$default'"
    echo "simd-levels: 0 passed, 1 failed"
    exit 1
    ;;
esac
done_levels=" $default "
for level in scalar sse2 avx2 avx512; do
    eff=$(TD_SIMD=$level "$B/unit_tests" --simd-level)
    case "$done_levels" in *" $eff "*)
        if [ "$eff" = "$default" ]; then
            echo "$level: runs as $eff, the default level, run by the rest of the suite"
        else
            echo "$level: runs as $eff, run above"
        fi
        continue
        ;;
    esac
    done_levels="$done_levels$eff "
    # The instrumented passes (TD_TEST_SUBSET=1) run the scanner's unit
    # tests at the scalar level only, the level furthest from the default
    # one that unit_tests runs: under ASan they are the slowest of all.
    if [ "${TD_TEST_SUBSET:-0}" = 0 ] || [ "$eff" = scalar ]; then
        TD_SIMD=$level "$B/unit_tests" json_ >"$out" 2>&1
        rc=$?
        if [ $rc -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); grep FAIL "$out" | head -n 20; fi
        echo "$level: $(tail -n 1 "$out")"
    fi
    TD_SIMD=$level python3 tests/golden_test.py "$B/tracediff" tests/golden/cases.json \
        --parallel 2 --loading --scanner >"$out" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); grep FAIL "$out" | head -n 20; fi
    echo "$level: $(tail -n 1 "$out")"
done
echo "simd-levels: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/bin/sh
# The cost of --stats: times 'compare' with and without it on one pair (by
# default the largest bundled one), in both sample modes, and prints the
# ratios. The target is at most 1.3.
#   bench/stats_cost.sh [TRACEDIFF [CONTROL TEST [RUNS]]]
set -e
B=${1:-build/tracediff}
C=${2:-tests/golden/traces/hta-trace_diff/control}
T=${3:-tests/golden/traces/hta-trace_diff/test}
RUNS=${4:-5}
# The median wall time of RUNS runs of a command, in seconds.
median() {
    for _ in $(seq "$RUNS"); do
        s=$(date +%s.%N)
        "$@" >/dev/null 2>&1
        e=$(date +%s.%N)
        echo "$e - $s" | bc -l
    done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
for sel in "" "--control-iteration all --test-iteration all"; do
    # shellcheck disable=SC2086
    plain=$(median "$B" compare "$C" "$T" -q --format csv -j 1 $sel)
    # shellcheck disable=SC2086
    stats=$(median "$B" compare "$C" "$T" -q --format csv -j 1 --stats $sel)
    printf '%-46s plain %.3fs  --stats %.3fs  ratio %.2f\n' "selection: ${sel:-default}" \
        "$plain" "$stats" "$(echo "$stats / $plain" | bc -l)"
done

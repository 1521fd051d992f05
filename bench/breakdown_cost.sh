#!/bin/sh
# The cost of breakdown: times 'breakdown' against a plain 'compare' on one
# pair (by default bench/out/inputs' 4x plain pair when made, else the
# largest bundled pair) and prints the ratio. The target is at most 1.3.
#   bench/breakdown_cost.sh [TRACEDIFF [CONTROL TEST [RUNS]]]
set -e
B=${1:-build/tracediff}
if [ -f bench/out/inputs/control-x4.json ]; then
    DC=bench/out/inputs/control-x4.json DT=bench/out/inputs/test-x4.json
else
    DC=tests/golden/traces/hta-trace_diff/control DT=tests/golden/traces/hta-trace_diff/test
fi
C=${2:-$DC}
T=${3:-$DT}
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
for j in 1 2; do
    plain=$(median "$B" compare "$C" "$T" -q --format csv -j $j)
    bd=$(median "$B" breakdown "$C" "$T" -q --format csv -j $j)
    hta=$(median "$B" breakdown "$C" "$T" -q --format csv -j $j --hta-scope)
    printf -- '-j %s  compare %.3fs  breakdown %.3fs (ratio %.2f)  --hta-scope %.3fs (ratio %.2f)\n' \
        "$j" "$plain" "$bd" "$(echo "$bd / $plain" | bc -l)" "$hta" "$(echo "$hta / $plain" | bc -l)"
done

#!/bin/sh
# The cost of breakdown: CPU time (user + system, from runstat's wait4(),
# forked loaders included) of 'breakdown' and 'breakdown --hta-scope'
# against a plain 'compare' on one pair (by default bench/out/inputs' 4x
# plain pair when made, else the largest bundled pair), in interleaved
# rounds (compare, breakdown, --hta-scope, compare, ...: a shared machine's
# load falls on all three alike), the median of each and the ratios. The
# target is at most 1.3.
#   bench/breakdown_cost.sh [TRACEDIFF [CONTROL TEST [ROUNDS]]]
set -e
B=${1:-build/tracediff}
. bench/cost_common.sh
C=${2:-$DC}
T=${3:-$DT}
ROUNDS=${4:-5}
OUT=$(mktemp)
ALL=$(mktemp)
trap 'rm -f "$OUT" "$ALL"' EXIT
# One run: "WHAT CPU_S WALL_S" appended to $ALL.
one() {
    what=$1
    shift
    "$RS" "$OUT" "$@" >/dev/null 2>&1
    awk -v w="$what" '{printf "%s %.4f %.4f\n", w, $3 + $4, $1}' "$OUT" >>"$ALL"
}
# The median CPU and wall time of one kind of run.
median() {
    awk -v w="$1" '$1 == w {print $2, $3}' "$ALL" | sort -n |
        awk '{c[NR]=$1; w[NR]=$2} END {m=int((NR+1)/2); print c[m], w[m]}'
}
for j in 1 2; do
    : >"$ALL"
    for _ in $(seq "$ROUNDS"); do
        one compare "$B" compare "$C" "$T" -q --format csv -j $j
        one breakdown "$B" breakdown "$C" "$T" -q --format csv -j $j
        one hta "$B" breakdown "$C" "$T" -q --format csv -j $j --hta-scope
    done
    set -- $(median compare) $(median breakdown) $(median hta)
    printf -- '-j %s  compare %.3fs CPU (%.3fs wall)  breakdown %.3fs CPU (%.3fs wall, ratio %.2f)  --hta-scope %.3fs CPU (%.3fs wall, ratio %.2f)\n' \
        "$j" "$1" "$2" "$3" "$4" "$(echo "$3 / $1" | bc -l)" "$5" "$6" "$(echo "$5 / $1" | bc -l)"
done

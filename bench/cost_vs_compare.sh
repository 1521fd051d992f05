#!/bin/sh
# The cost of one command against a plain compare: CPU time (user + system,
# from runstat's wait4()) of 'tracediff COMMAND CONTROL TEST EXTRA' against
# 'tracediff compare CONTROL TEST' on one pair (by default bench/out/
# inputs' 4x plain pair when made, else the largest bundled pair), the
# median of RUNS runs each, and the ratio. CPU time rather than wall time:
# the machine is shared, and CPU time is what the command itself costs.
# The wrappers (roofline_cost.sh, tree_cost.sh) name the command and its
# target.
#   bench/cost_vs_compare.sh LABEL COMMAND EXTRA [TRACEDIFF [CONTROL TEST [RUNS]]]
set -e
LABEL=$1 CMD=$2 EXTRA=$3
shift 3
B=${1:-build/tracediff}
. bench/cost_common.sh
C=${2:-$DC}
T=${3:-$DT}
RUNS=${4:-5}
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
# The median CPU time (and wall time) of RUNS runs of a command, in seconds.
median() {
    for _ in $(seq "$RUNS"); do
        "$RS" "$OUT" "$@" >/dev/null 2>&1
        awk '{printf "%.4f %.4f\n", $3 + $4, $1}' "$OUT"
    done | sort -n | awk '{c[NR]=$1; w[NR]=$2} END {m=int((NR+1)/2); print c[m], w[m]}'
}
for j in 1 2; do
    set -- $(median "$B" compare "$C" "$T" -q --format csv -j $j)
    pc=$1 pw=$2
    # shellcheck disable=SC2086
    set -- $(median "$B" "$CMD" "$C" "$T" $EXTRA -q --format csv -j $j)
    rc=$1 rw=$2
    printf -- '-j %s  compare %.3fs CPU (%.3fs wall)  %s %.3fs CPU (%.3fs wall)  ratio %.2f CPU\n' \
        "$j" "$pc" "$pw" "$LABEL" "$rc" "$rw" "$(echo "$rc / $pc" | bc -l)"
done

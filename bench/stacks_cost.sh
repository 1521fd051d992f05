#!/bin/sh
# The cost of stacks: CPU time (user + system, from runstat's wait4()) of
# 'compare --format folded' (both sides' stacks, written to two files)
# against a plain 'compare' on one pair: the 4x plain pair (bench/out/inputs,
# made here with bench/gen_trace.py when missing), RUNS runs of each,
# alternating, and the median of the pairs' ratios. CPU time rather than wall time: the machine is
# shared, and CPU time is what the command itself costs. The goal is at
# most 1.3 (docs/stacks.md).
#   bench/stacks_cost.sh [TRACEDIFF [CONTROL TEST [RUNS]]]
set -e
B=${1:-build/tracediff}
RS=$(dirname "$B")/runstat
[ -x "$RS" ] || ${CC:-cc} -O2 -std=c11 -D_DEFAULT_SOURCE -o "$RS" bench/runstat.c
IN=bench/out/inputs
G=tests/golden/traces/hta-trace_diff
mkdir -p "$IN"
for s in control test; do
    [ -f "$IN/$s-x4.json" ] || python3 bench/gen_trace.py --input "$G/$s/$s.json.gz" --scale 4 \
        --out "$IN/$s-x4.json"
done
C=${2:-$IN/control-x4.json}
T=${3:-$IN/test-x4.json}
RUNS=${4:-5}
OUT=$(mktemp)
D=$(mktemp -d)
trap 'rm -rf "$OUT" "$D"' EXIT
# One run of a command: its CPU time and wall time, in seconds.
run() {
    "$RS" "$OUT" "$@" >/dev/null 2>&1
    awk '{printf "%.4f %.4f", $3 + $4, $1}' "$OUT"
}
# The runs alternate (compare, folded, compare, ...) so that both see the
# same spells of a shared machine; each pair's ratio is kept, and the
# medians of each column are printed.
for j in 1 2; do
    for _ in $(seq "$RUNS"); do
        set -- $(run "$B" compare "$C" "$T" -q --format csv -j $j -o "$D/plain.csv")
        pc=$1 pw=$2
        set -- $(run "$B" compare "$C" "$T" -q --format folded -j $j -o "$D/c.folded,$D/t.folded")
        echo "$pc $pw $1 $2 $(echo "$1 / $pc" | bc -l)"
    done | awk -v j="$j" '
        function med(col,   i, k, t, a) {
            for (i = 1; i <= NR; i++) a[i] = v[i, col]
            for (i = 2; i <= NR; i++) for (k = i; k > 1 && a[k - 1] > a[k]; k--) {
                t = a[k]; a[k] = a[k - 1]; a[k - 1] = t
            }
            return a[int((NR + 1) / 2)]
        }
        { for (c = 1; c <= 5; c++) v[NR, c] = $c }
        END {
            printf "-j %s  compare %.3fs CPU (%.3fs wall)  --format folded %.3fs CPU (%.3fs wall)  " \
                "ratio %.2f CPU (median of %d alternating pairs)\n", j, med(1), med(2), med(3), med(4),
                med(5), NR
        }'
done

#!/bin/sh
# The cost of stacks: CPU time (user + system, from runstat's wait4()) of
# 'compare --format folded' (both sides' stacks, written to two files)
# against a plain 'compare' on one pair: the 4x plain pair (bench/out/inputs,
# made here with bench/gen_trace.py when missing), the median of RUNS runs
# each, and the ratio. CPU time rather than wall time: the machine is
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
# The median CPU time (and wall time) of RUNS runs of a command, in seconds.
median() {
    for _ in $(seq "$RUNS"); do
        "$RS" "$OUT" "$@" >/dev/null 2>&1
        awk '{printf "%.4f %.4f\n", $3 + $4, $1}' "$OUT"
    done | sort -n | awk '{c[NR]=$1; w[NR]=$2} END {m=int((NR+1)/2); print c[m], w[m]}'
}
for j in 1 2; do
    set -- $(median "$B" compare "$C" "$T" -q --format csv -j $j -o "$D/plain.csv")
    pc=$1 pw=$2
    set -- $(median "$B" compare "$C" "$T" -q --format folded -j $j -o "$D/c.folded,$D/t.folded")
    fc=$1 fw=$2
    printf -- '-j %s  compare %.3fs CPU (%.3fs wall)  --format folded %.3fs CPU (%.3fs wall)  ratio %.2f CPU\n' \
        "$j" "$pc" "$pw" "$fc" "$fw" "$(echo "$fc / $pc" | bc -l)"
done

#!/bin/sh
# Summaries against traces: size and speed.
#
#   bench/summary_bench.sh [SCALE]      (default 4; `make bench-summary`)
#
# For the bundled HTA trace_diff pair and that pair scaled SCALE times by
# gen_trace.py (plain JSON): summarizes each side, prints the summaries' size
# as a share of the JSON bytes, and the median of 3 wall times of
# `compare --format csv` on the traces and on the summaries.
set -e
B=${B:-build}
SCALE=${1:-4}
OUT=${BENCH_OUT:-bench/out/summary}
mkdir -p "$OUT"
T=tests/golden/traces/hta-trace_diff
if [ ! -s "$OUT/control_x$SCALE.json" ]; then
    python3 bench/gen_trace.py --input $T/control/control.json.gz --scale "$SCALE" --out "$OUT/control_x$SCALE.json" >/dev/null
    python3 bench/gen_trace.py --input $T/test/test.json.gz --scale "$SCALE" --out "$OUT/test_x$SCALE.json" >/dev/null
fi
median3() { # command...: median wall seconds of 3 runs
    for i in 1 2 3; do
        s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
        echo "$e - $s" | bc
    done | sort -n | sed -n 2p
}
measure() { # label control test
    rm -f "$OUT/c.tdsum" "$OUT/t.tdsum"
    "$B/tracediff" summarize "$2" -o "$OUT/c.tdsum" -q
    "$B/tracediff" summarize "$3" -o "$OUT/t.tdsum" -q
    json=$("$B/tracediff" info "$2" --format json | python3 -c 'import json,sys; print(sum(f["json_bytes"] for f in json.load(sys.stdin)["files"]))')
    json=$((json + $("$B/tracediff" info "$3" --format json | python3 -c 'import json,sys; print(sum(f["json_bytes"] for f in json.load(sys.stdin)["files"]))')))
    sum=$(($(stat -c %s "$OUT/c.tdsum") + $(stat -c %s "$OUT/t.tdsum")))
    tt=$(median3 "$B/tracediff" compare "$2" "$3" --format csv -q)
    ts=$(median3 "$B/tracediff" compare "$OUT/c.tdsum" "$OUT/t.tdsum" --format csv -q)
    printf '%-22s json %10d B  summaries %9d B  = %5.2f%%   compare traces %6.3f s  summaries %6.3f s  = %5.1fx\n' \
        "$1" "$json" "$sum" "$(echo "100 * $sum / $json" | bc -l)" "$tt" "$ts" "$(echo "$tt / $ts" | bc -l)"
}
measure "trace_diff (bundled)" $T/control $T/test
measure "trace_diff x$SCALE (plain)" "$OUT/control_x$SCALE.json" "$OUT/test_x$SCALE.json"

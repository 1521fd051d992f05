#!/bin/sh
# Summaries against traces: size and speed.
#
#   bench/summary_bench.sh [SCALE]      (default 4; `make bench-summary`)
#
# For the bundled HTA trace_diff pair and that pair scaled SCALE times by
# gen_trace.py (plain JSON): summarizes each side, prints the summaries' size
# as a share of the JSON bytes, the median of 11 wall times of
# `compare --format csv` on the traces and on the summaries, then the median
# of 3 CPU times (user + system) of the same. On a busy machine wall time
# mostly measures the wait for a core; CPU time less so. With BENCH_INSNS=1
# it also counts instructions under callgrind (stable whatever the load).
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
median3() { # command...: median wall seconds of 11 runs, timed in-process
    # (a shell's date + bc around each run would add milliseconds of their own)
    python3 -c 'import subprocess, sys, time
v = []
for i in range(11):
    s = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    v.append(time.perf_counter() - s)
print("%.4f" % sorted(v)[5])' "$@"
}
cpu3() { # command...: median CPU seconds (user + system) of 3 runs
    python3 -c 'import os, subprocess, sys
v = []
for i in range(3):
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ru = os.wait4(p.pid, 0)[2]
    v.append(ru.ru_utime + ru.ru_stime)
print("%.4f" % sorted(v)[1])' "$@"
}
insns() { # command...: instructions executed (callgrind)
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : *//p'
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
    ct=$(cpu3 "$B/tracediff" compare "$2" "$3" --format csv -q)
    cs=$(cpu3 "$B/tracediff" compare "$OUT/c.tdsum" "$OUT/t.tdsum" --format csv -q)
    printf '%-22s cpu: compare traces %6.3f s  summaries %6.3f s  = %5.1fx\n' "" "$ct" "$cs" \
        "$(echo "$ct / $cs" | bc -l)"
    if [ -n "$BENCH_INSNS" ]; then
        it=$(insns "$B/tracediff" compare "$2" "$3" --format csv -q -j 1)
        is=$(insns "$B/tracediff" compare "$OUT/c.tdsum" "$OUT/t.tdsum" --format csv -q)
        printf '%-22s instructions: compare traces (-j 1) %d  summaries %d  = %5.1fx\n' "" \
            "$it" "$is" "$(echo "$it / $is" | bc -l)"
    fi
}
measure "trace_diff (bundled)" $T/control $T/test
measure "trace_diff x$SCALE (plain)" "$OUT/control_x$SCALE.json" "$OUT/test_x$SCALE.json"

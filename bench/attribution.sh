#!/bin/sh
# make bench-attribution: the cost of attribution. Times a plain compare and
# compare --by op (and --by class) on the largest bundled pair, decompressed
# first so that the JSON reader is what is measured, and prints the ratios.
# With valgrind installed, ATTR_CALLGRIND=1 also counts instructions (exact,
# unlike wall time on a shared machine).
#
#   sh bench/attribution.sh [TRACEDIFF] [RUNS]
set -e
BIN=${1:-build/tracediff}
RUNS=${2:-5}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for s in control test; do
    gzip -dc tests/golden/traces/hta-trace_diff/$s/$s.json.gz >"$T/$s.json"
done

best() { # best wall time in ms of RUNS runs of "$@"
    b=
    i=0
    while [ $i -lt "$RUNS" ]; do
        s=$(date +%s%N)
        "$@" >/dev/null 2>&1
        e=$(date +%s%N)
        ms=$(( (e - s) / 1000000 ))
        if [ -z "$b" ] || [ $ms -lt $b ]; then b=$ms; fi
        i=$((i + 1))
    done
    echo $b
}

plain=$(best "$BIN" compare "$T/control.json" "$T/test.json" --format csv -j1 -o /dev/null)
byop=$(best "$BIN" compare "$T/control.json" "$T/test.json" --by op --format csv -j1 -o /dev/null)
bycls=$(best "$BIN" compare "$T/control.json" "$T/test.json" --by class --format csv -j1 -o /dev/null)
echo "hta-trace_diff (35 + 33 MB of JSON), -j1, best of $RUNS:"
echo "  compare            ${plain} ms"
echo "  compare --by op    ${byop} ms  ($(awk "BEGIN{printf \"%.2f\", $byop/$plain}")x)"
echo "  compare --by class ${bycls} ms  ($(awk "BEGIN{printf \"%.2f\", $bycls/$plain}")x)"

if [ "${ATTR_CALLGRIND:-0}" != 0 ] && command -v valgrind >/dev/null; then
    for by in kernel op; do
        ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" compare \
            "$T/control.json" "$T/test.json" --by $by --format csv -j1 -o /dev/null 2>&1 |
            sed -n 's/.*I *refs: *//p')
        echo "  callgrind --by $by: $ir instructions"
    done
fi

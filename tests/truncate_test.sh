#!/bin/sh
# A plain trace that another program truncates while tracediff has it mapped
# (td_open_opts.map_min_bytes): one error line naming the file and the byte,
# exit status 1, no crash, whether the file is read whole or in pieces. The
# truncation comes from an LD_PRELOAD shim (tests/shim/truncate_on_map.c)
# that cuts the file right after it is mapped. Against the build in $1.
#
# Prints "truncate: N passed, N failed".
B=${1:-build}
cd "$(dirname "$0")/.." || exit 1
exe=$(cd "$B" && pwd -P)/tracediff
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tmp=$(cd "$tmp" && pwd -P)
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL truncate $1"; }

${CC:-cc} -shared -fPIC -O1 -o "$tmp/shim.so" tests/shim/truncate_on_map.c -ldl || {
    echo "truncate: 0 passed, 1 failed"
    exit 1
}
src=tests/golden/traces/hta-trace_diff/control/control.json.gz
test=tests/golden/traces/hta-trace_diff/test
# An ASan build would otherwise refuse a preloaded library ahead of its own.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# name, TD_SPLIT, -j, TD_PROCESSES (files loaded by child processes: a
# child that dies of SIGBUS leaves its file to the parent, which reports it)
for way in "whole 1 1 0" "pieces 4 4 0" "processes 1 2 1"; do
    set -- $way
    gzip -dc "$src" >"$tmp/c.json"
    size=$(wc -c <"$tmp/c.json")
    LD_PRELOAD="$tmp/shim.so" TRUNCATE_ON_MAP="$tmp/c.json" TRUNCATE_TO=8192 \
        TD_MAP_MIN=1 TD_SPLIT=$2 TD_PROCESSES=$4 "$exe" compare "$tmp/c.json" "$test" -j "$3" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && ok || bad "$1: exit status $rc, expected 1"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || bad "$1: $(wc -l <"$tmp/err") lines on stderr"
    line=$(cat "$tmp/err")
    byte=$(echo "$line" | sed -n "s|^tracediff: $tmp/c.json: byte \([0-9]*\): the file was truncated while it was read\$|\1|p")
    if [ -n "$byte" ] && [ "$byte" -ge 8192 ] && [ "$byte" -lt "$size" ]; then ok; else
        bad "$1: message '$line'"; fi
    [ "$(wc -c <"$tmp/c.json")" -eq 8192 ] && ok || bad "$1: the shim did not truncate"
    [ ! -s "$tmp/out" ] && ok || bad "$1: output written"
done

# Any size it is cut to, page-aligned or not, before or inside the last
# page: one line naming the file and a byte (truncated, or the JSON cut
# short where the cut page reads as zeros), exit status 1.
for to in 0 1 4095 20000000 $((size - 1)); do
    gzip -dc "$src" >"$tmp/c.json"
    LD_PRELOAD="$tmp/shim.so" TRUNCATE_ON_MAP="$tmp/c.json" TRUNCATE_TO=$to \
        "$exe" compare "$tmp/c.json" "$test" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        grep -q "^tracediff: $tmp/c.json: byte [0-9]*: " "$tmp/err"; then ok; else
        bad "cut to $to: exit $rc, '$(cat "$tmp/err")'"; fi
done

# The shim alone changes nothing; nor does a truncation to a size the file
# already has (or a file that is read, not mapped).
gzip -dc "$src" >"$tmp/c.json"
"$exe" compare "$tmp/c.json" "$test" >"$tmp/ref" 2>/dev/null
for way in "map 1" "read 4611686018427387904"; do
    set -- $way
    LD_PRELOAD="$tmp/shim.so" TRUNCATE_ON_MAP="$tmp/c.json" TRUNCATE_TO=$(wc -c <"$tmp/c.json") \
        TD_MAP_MIN=$2 "$exe" compare "$tmp/c.json" "$test" >"$tmp/out" 2>/dev/null
    rc=$?
    [ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/ref" && ok || bad "$1 untruncated: exit $rc or output differs"
done
echo "truncate: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

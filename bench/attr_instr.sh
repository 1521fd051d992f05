#!/bin/sh
# Instructions (valgrind --tool=callgrind, exact on a shared machine) of
# every command that loads with attribution, against a plain compare, on the
# bundled hta-trace_diff pair decompressed (34.8 MB and 32.8 MB of JSON):
# compare --by op, roofline, --format folded, --by module, --match tree,
# breakdown. One process, one thread (-j 1, TD_PROCESSES=0), so that the
# count is the work itself. Prints "command instructions ratio".
#   sh bench/attr_instr.sh [TRACEDIFF]
set -e
B=${1:-build/tracediff}
command -v valgrind >/dev/null || { echo "attr_instr.sh: valgrind is not installed" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for s in control test; do
    gzip -dc tests/golden/traces/hta-trace_diff/$s/$s.json.gz >"$T/$s.json"
done
C=$T/control.json
D=$T/test.json
export TD_PROCESSES=0
count() { # instructions of "$@"
    valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" "$@" >/dev/null 2>"$T/err" || {
        cat "$T/err" >&2
        exit 1
    }
    sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' "$T/err" | tr -d ,
}
plain=$(count "$B" compare "$C" "$D" -q --format csv -j 1 -o "$T/o.csv")
printf '%-12s %12s %6s\n' compare "$plain" 1.00
row() { # label, then the command's arguments after the binary
    label=$1
    shift
    n=$(count "$B" "$@")
    printf '%-12s %12s %6.2f\n' "$label" "$n" "$(echo "$n / $plain" | bc -l)"
}
row "--by op" compare "$C" "$D" -q --format csv -j 1 --by op -o "$T/o.csv"
row roofline roofline "$C" "$D" -q --format csv -j 1 -o "$T/o.csv"
row folded compare "$C" "$D" -q --format folded -j 1 -o "$T/c.folded,$T/t.folded"
row "--by module" compare "$C" "$D" -q --format csv -j 1 --by module -o "$T/o.csv"
row "--match tree" compare "$C" "$D" -q --format csv -j 1 --match tree -o "$T/o.csv"
row breakdown breakdown "$C" "$D" -q --format csv -j 1 -o "$T/o.csv"

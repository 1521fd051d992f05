#!/bin/sh
# The public header on its own: compiled as C99 -pedantic, C11 and C++
# (with gcc and, when present, clang), and a C++ program linked against the
# library, so the header's C linkage is right.
#
#   header_test.sh BUILD_DIR      prints "header: N passed, N failed"
B=${1:-build}
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL header $1"; cat "$tmp/log"; }
# Every options initialiser is used, so that -Wextra (missing field
# initializers) catches one that falls behind its struct.
cat >"$tmp/use.c" <<'C'
#include "tracediff.h"
int main(void)
{
    static td_error err; /* zeroed, in C and C++ alike */
    td_list list = TD_LIST_INIT;
    td_open_opts oo = TD_OPEN_OPTS_INIT;
    td_summary_opts so = TD_SUMMARY_OPTS_INIT;
    td_trend_opts to = TD_TREND_OPTS_INIT;
    td_compare_opts co = TD_COMPARE_OPTS_INIT;
    td_stats_opts sto = TD_STATS_OPTS_INIT;
    td_view_opts vo = TD_VIEW_OPTS_INIT;
    td_write_opts wo = TD_WRITE_OPTS_INIT;
    td_chart_opts cho = TD_CHART_OPTS_INIT;
    td_report_input ri = TD_REPORT_INPUT_INIT;
    td_check_opts cko = TD_CHECK_OPTS_INIT;
    td_set *s = 0;
    td_diff *d = 0;
    oo.threads = 1;
    co.short_names = true;
    int rc = td_set_open(&s, "examples/control", &oo, &err);
    if (rc == 0)
        rc = td_diff_compute(&d, s, s, &co, &err);
    if (rc == 0 && (list.all || so.replace || to.top || sto.has_min_change || vo.has_sort ||
                    wo.color || cho.width || ri.size != sizeof ri || cko.has_max_regression))
        rc = -1;
    td_diff_free(d);
    td_set_free(s);
    return rc < 0;
}
C
cp "$tmp/use.c" "$tmp/use.cpp"
for cc in gcc clang; do
    command -v $cc >/dev/null || continue
    for std in c99 c11; do
        if $cc -std=$std -pedantic -Wall -Wextra -Werror -Iinclude -c "$tmp/use.c" \
            -o "$tmp/use.o" >"$tmp/log" 2>&1; then ok; else bad "$cc -std=$std -pedantic"; fi
    done
done
for cxx in g++ clang++; do
    command -v $cxx >/dev/null || continue
    if $cxx -std=c++11 -pedantic -Wall -Wextra -Werror -Iinclude -c "$tmp/use.cpp" \
        -o "$tmp/use_cpp.o" >"$tmp/log" 2>&1; then ok; else bad "$cxx -std=c++11 -pedantic"; fi
done
libs=$(make -s --no-print-directory fuzz-ldlibs 2>/dev/null)
san=
if nm "$B/libtracediff.a" 2>/dev/null | grep -q ' U __asan_'; then
    san="-fsanitize=address,undefined"
fi
# shellcheck disable=SC2086
if g++ $san -o "$tmp/use_cpp" "$tmp/use_cpp.o" "$B/libtracediff.a" $libs >"$tmp/log" 2>&1 &&
    "$tmp/use_cpp" >"$tmp/log" 2>&1; then ok; else bad "a C++ program links and runs"; fi
echo "header: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

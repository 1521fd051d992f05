#!/bin/sh
# Replays the fuzz corpus (fuzz/corpus/<target>/) and every crash ever found
# (fuzz/crashes/<target>/) through each fuzz target, built without libFuzzer
# by fuzz/replay.c against the library in $1 (default: build). The replay
# binaries go to $1/. A sanitizer build of the library gets a sanitizer
# build of the replay, a coverage build a coverage build.
#
# Prints "fuzz-replay: N passed, N failed" (N counts inputs; a target that
# does not build counts as one failure).
B=${1:-build}
CC=${CC:-cc}
cd "$(dirname "$0")/.." || exit 1
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O1 -g -Wall -Wextra -Werror
       -Iinclude -Isrc -Ifuzz"
san=
if nm "$B/libtracediff.a" 2>/dev/null | grep -q ' U __asan_'; then
    san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
fi
# A coverage build's library (make coverage-build) links with gcov's runtime,
# and its replays count their lines with the other suites'.
if nm "$B/libtracediff.a" 2>/dev/null | grep -q ' U __gcov_'; then
    san="$san --coverage"
fi
libs=$(make -s --no-print-directory fuzz-ldlibs 2>/dev/null) ||
    libs="$(pkg-config --libs cairo 2>/dev/null) -lzstd -lz -lpthread -lm"
passed=0
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for t in json_scan trace_load args packed summary; do
    extra=
    # The option parser and its table (every CLI file but main.c): the
    # build's own objects, compiled with the library's flags (sanitizers
    # included), when it has them all; else the sources (under ASan,
    # compiling them again cost 10 of the suite's 40 s of CPU).
    if [ "$t" = args ]; then
        extra=
        for c in src/cli/*.c; do
            [ "$c" = src/cli/main.c ] && continue
            o="$B/${c%.c}.o"
            if [ ! -f "$o" ] || [ -n "$(find "$c" -newer "$o")" ]; then
                extra=$(ls src/cli/*.c | grep -v '/main\.c$')
                break
            fi
            extra="$extra $o"
        done
    fi
    # shellcheck disable=SC2086
    if ! $CC $flags $san -o "$B/replay_$t" "fuzz/fuzz_$t.c" fuzz/replay.c $extra \
            "$B/libtracediff-render.a" "$B/libtracediff.a" $libs; then
        echo "FAIL $t: the replay driver does not build"
        failed=$((failed + 1))
        continue
    fi
    "$B/replay_$t" "$t" "fuzz/corpus/$t" "fuzz/crashes/$t" >"$out" 2>&1
    rc=$?
    grep -v ' passed, ' "$out" | grep . | head -n 40
    line=$(grep -E "^$t: [0-9]+ passed, [0-9]+ failed" "$out")
    echo "${line:-$t: no result (exit status $rc)}"
    p=$(echo "$line" | sed -nE 's/.*: ([0-9]+) passed.*/\1/p')
    f=$(echo "$line" | sed -nE 's/.* ([0-9]+) failed.*/\1/p')
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-1}))
    [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ] && failed=$((failed + 1))
done
echo "fuzz-replay: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

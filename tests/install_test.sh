#!/bin/sh
# make install / uninstall, the installed tree, programs built against it with
# pkg-config, and the shared libraries' exported symbols.
#
#   sh tests/install_test.sh BUILD
B=${1:-build}
CC=${CC:-cc}
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL install: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P=/usr/local
D=$tmp/stage
R=$D$P
# Sanitizer builds: programs linked with their libraries need the runtime too.
SAN=""
case "$B" in *asan*) SAN="-fsanitize=address,undefined";; esac
mk() {
    if [ -n "$SAN" ]; then
        make -s "$@" BUILD="$B" OPT="-O1 -g $SAN -fno-omit-frame-pointer" LDFLAGS="$SAN"
    else
        make -s "$@" BUILD="$B"
    fi
}

ver=$(sed -n 's/^#define TD_VERSION "\(.*\)".*/\1/p' include/tracediff.h)
major=${ver%%.*}

if mk install DESTDIR="$D" PREFIX=$P >"$tmp/log" 2>&1; then ok; else
    bad "make install failed: $(cat "$tmp/log")"; echo "install: $pass passed, $fail failed"; exit 1
fi

for f in bin/tracediff include/tracediff.h lib/libtracediff.a lib/libtracediff-render.a \
         lib/pkgconfig/tracediff.pc lib/pkgconfig/tracediff-render.pc; do
    check "missing $f" "[ -f '$R/$f' ]"
done
for l in libtracediff libtracediff-render; do
    check "$l.so.$ver not a file" "[ -f '$R/lib/$l.so.$ver' ] && [ ! -L '$R/lib/$l.so.$ver' ]"
    check "$l.so.$major link" "[ \"\$(readlink '$R/lib/$l.so.$major')\" = '$l.so.$ver' ]"
    check "$l.so link" "[ \"\$(readlink '$R/lib/$l.so')\" = '$l.so.$major' ]"
    check "$l soname" "readelf -d '$R/lib/$l.so.$ver' | grep -q 'SONAME.*\[$l.so.$major\]'"
done
if [ -f "$B/tracediff.1" ]; then
    check "man page" "[ -f '$R/share/man/man1/tracediff.1' ]"
else
    check "man page installed without $B/tracediff.1" "[ ! -e '$R/share/man/man1/tracediff.1' ]"
fi
check "render.pc requires tracediff" "grep -q '^Requires: tracediff' '$R/lib/pkgconfig/tracediff-render.pc'"
check "render.pc loads cairo at run time, links none" \
    "grep -q '^Libs.private:.*-ldl' '$R/lib/pkgconfig/tracediff-render.pc' && ! grep -q '^Requires.*cairo' '$R/lib/pkgconfig/tracediff-render.pc'"
check "tracediff.pc private deps" \
    "grep -q '^Requires.private:.*libzstd.*zlib.*libisal.*libpcre2-8' '$R/lib/pkgconfig/tracediff.pc'"

# Only the public API is exported: every dynamic symbol starts with td_ and
# is declared in the header.
for l in libtracediff libtracediff-render; do
    nm -D --defined-only "$R/lib/$l.so.$ver" | awk '{print $3}' >"$tmp/syms"
    check "$l exports nothing" "[ -s '$tmp/syms' ]"
    while read -r s; do
        case "$s" in
        td_*) grep -q "^TD_API .*[ *]$s(" include/tracediff.h && ok ||
                  bad "$l exports $s, which include/tracediff.h does not declare";;
        *) bad "$l exports $s (not td_)";;
        esac
    done <"$tmp/syms"
    cat "$tmp/syms" >>"$tmp/all_syms"
done
# ...and everything the header declares is exported by one of them.
sed -n 's/^TD_API [^(]*[ *]\(td_[a-z0-9_]*\)(.*/\1/p' include/tracediff.h >"$tmp/declared"
check "the header declares no function" "[ -s '$tmp/declared' ]"
while read -r s; do
    grep -qx "$s" "$tmp/all_syms" && ok || bad "include/tracediff.h declares $s, which no library exports"
done <"$tmp/declared"

# Programs built against the installed tree with pkg-config.
export PKG_CONFIG_PATH="$R/lib/pkgconfig"
pc() { pkg-config --define-variable=prefix="$R" "$@"; }
C=tests/golden/traces/hta-trace_compare/base
T=tests/golden/traces/hta-trace_compare/test
if $CC -std=c11 -Wall -Wextra -Werror $SAN -o "$tmp/csv_demo" tests/install/csv_demo.c \
       $(pc --cflags --libs tracediff-render) 2>"$tmp/log"; then ok; else
    bad "csv_demo does not build: $(cat "$tmp/log")"
fi
if $CC -std=c11 -Wall -Wextra -Werror $SAN -o "$tmp/core_demo" tests/install/core_demo.c \
       $(pc --cflags --libs tracediff) 2>"$tmp/log"; then ok; else
    bad "core_demo does not build: $(cat "$tmp/log")"
fi
check "csv_demo not linked to the installed library" \
    "LD_LIBRARY_PATH='$R/lib' ldd '$tmp/csv_demo' | grep -q '$R/lib/libtracediff-render.so.$major'"
LD_LIBRARY_PATH="$R/lib" "$tmp/csv_demo" "$C" "$T" >"$tmp/got.csv" 2>"$tmp/err"
check "csv_demo failed: $(cat "$tmp/err")" "[ \$? -eq 0 ] || false"
"$B/tracediff" compare "$C" "$T" --format csv >"$tmp/want.csv" 2>/dev/null
check "csv_demo output differs from the CLI's" "cmp -s '$tmp/got.csv' '$tmp/want.csv'"
LD_LIBRARY_PATH="$R/lib" "$tmp/core_demo" "$C" "$T" >"$tmp/core.txt" 2>"$tmp/err"
check "core_demo failed: $(cat "$tmp/err")" "[ -s '$tmp/core.txt' ]"
"$B/tracediff" ops "$C" "$T" --format json >"$tmp/ops.json" 2>/dev/null
python3 -c '
import json, sys
ops = json.load(open(sys.argv[1]))
rows = sorted((n.encode(), k) for k, names in ops.items() for n in names)
print("".join(f"{k}\t{n.decode()}\n" for n, k in rows), end="")' "$tmp/ops.json" >"$tmp/ops.txt"
check "core_demo's categories differ from the CLI's ops" "cmp -s '$tmp/core.txt' '$tmp/ops.txt'"

# The installed CLI runs from the staged tree.
check "installed tracediff does not run" "'$R/bin/tracediff' --version >/dev/null 2>&1 || '$R/bin/tracediff' --help >/dev/null 2>&1"

if mk uninstall DESTDIR="$D" PREFIX=$P >"$tmp/log" 2>&1; then ok; else
    bad "make uninstall failed: $(cat "$tmp/log")"
fi
left=$(find "$D" -type f -o -type l)
check "uninstall left: $left" "[ -z '$left' ]"

echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

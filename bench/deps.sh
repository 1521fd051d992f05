#!/bin/sh
# Installs what `make bench` needs beyond scripts/deps.sh, only what is
# missing: g++ and simdjson for bench/simdjson_walk.cpp (the anchor the JSON
# scanner is measured against), libdeflate for bench/inflate_bench.c. Never linked into the library, the CLI or
# the tests. Run as root (or with sudo available).
set -e
need=""
for p in g++ libsimdjson-dev libdeflate-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
[ -z "$need" ] && exit 0
echo "installing:$need" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null

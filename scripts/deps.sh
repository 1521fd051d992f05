#!/bin/sh
# Installs the Debian packages tracediff needs to build and test, only those
# missing. Run as root (or with sudo available).
set -e
# What the build and the tests need. --list prints the names (for CI).
PKGS="make gcc libc6-dev pkg-config zlib1g-dev libisal-dev libzstd-dev libcairo2-dev libpcre2-dev
      libsqlite3-dev sqlite3 libgsl-dev libssl-dev
      python3 python3-dev python3-pandas python3-venv python3-pip python3-setuptools python3-scipy
      valgrind libxml2-utils
      libopenmpi-dev openmpi-bin tmux"
if [ "${1:-}" = --list ]; then
    echo $PKGS
    exit 0
fi
need=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
[ -z "$need" ] && exit 0
echo "installing:$need" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $need >/dev/null

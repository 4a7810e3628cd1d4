#!/bin/sh
# Build the ns-3 peer programs against Debian's libns3-dev (3.37) with g++.
#
#   sh bench/ns3/build.sh          # builds bench/ns3/build/tcp_mix if needed
#   sh bench/ns3/build.sh --force  # rebuilds
#
# Idempotent: a program is rebuilt only when its source, this script or the
# shared dumbbell.h is newer than the binary. Output goes to bench/ns3/build/ (gitignored).
#
# Optimised: -O2 -DNDEBUG, and NS3_LOG_ENABLE / NS3_ASSERT_ENABLE are left
# undefined, so the NS_LOG_* and NS_ASSERT macros inlined from ns-3 headers
# compile to nothing (ns3/log.h, ns3/assert.h). The libraries themselves are
# whatever Debian built: its CMake export is the "release" configuration
# (/usr/lib/x86_64-linux-gnu/cmake/ns3/ns3Targets-release.cmake).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out="$here/build"
force=0
[ "${1:-}" = "--force" ] && force=1

if ! pkg-config --exists ns3-core 2>/dev/null; then
    echo "ns-3 not found (pkg-config ns3-core); install it with: apt-get install -y libns3-dev" >&2
    exit 1
fi
modules="ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control"
# Debian's .pc files carry a stray "-I/usr;" (a CMake list separator); drop it.
cflags=$(pkg-config --cflags $modules | tr ' ' '\n' | grep -v ';' | tr '\n' ' ')
# They also list absolute paths of -dev symlinks (libgsl.so, libsqlite3.so)
# that need not be installed; libns3-* already pull those in at run time, so
# paths that do not exist are dropped.
libs=""
for tok in $(pkg-config --libs $modules); do
    case "$tok" in
        /*) [ -e "$tok" ] || continue ;;
    esac
    case " $libs " in *" $tok "*) continue ;; esac   # de-duplicate
    libs="$libs $tok"
done

mkdir -p "$out"
for src in "$here"/*.cc; do
    name=$(basename "$src" .cc)
    bin="$out/$name"
    if [ "$force" = 0 ] && [ -x "$bin" ] && [ "$bin" -nt "$src" ] && [ "$bin" -nt "$0" ] \
        && [ "$bin" -nt "$here/dumbbell.h" ]; then
        echo "up to date: $bin"
        continue
    fi
    echo "building $bin"
    # shellcheck disable=SC2086
    g++ -std=c++17 -O2 -DNDEBUG -o "$bin.tmp" "$src" $cflags $libs
    mv "$bin.tmp" "$bin"
done

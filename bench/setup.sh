#!/bin/sh
# Install the ns-2 peer for bench/dumbbell.py (Debian/Ubuntu). Idempotent:
# does nothing when `ns` is already on PATH.
set -eu
if command -v ns >/dev/null 2>&1; then
    echo "ns-2 present: $(command -v ns) ($(dpkg-query -W -f='${Version}' ns2 2>/dev/null || echo 'version unknown'))"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y ns2
command -v ns >/dev/null 2>&1 || { echo "ns2 installed but \`ns\` not on PATH" >&2; exit 1; }
echo "ns-2 installed: $(command -v ns) ($(dpkg-query -W -f='${Version}' ns2))"

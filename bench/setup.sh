#!/bin/sh
# Install the Debian packages the benchmarks and peer/report tests use:
# ns2 (the ns-2 peer for bench/dumbbell.py, bench/sweep.py and the TCP
# tests) and chromium-headless-shell (tests/test_report.py opens the HTML
# report in it), the audio codec libraries (tests/test_audio_*.py) and
# tshark (tests/test_pcap.py reads the pcap export with it).
# Idempotent: installs only what is missing (the same list as .ci/run).
set -eu
PKGS=""
command -v ns >/dev/null 2>&1 || PKGS="$PKGS ns2"
{ command -v chromium-headless-shell >/dev/null 2>&1 || command -v chromium >/dev/null 2>&1; } \
    || PKGS="$PKGS chromium-headless-shell"
command -v tshark >/dev/null 2>&1 || PKGS="$PKGS tshark"
for p in libopus0 libbcg729-0 libspeex1 libgsm1 libopencore-amrnb0; do
    dpkg -s "$p" >/dev/null 2>&1 || PKGS="$PKGS $p"
done
if [ -z "$PKGS" ]; then
    echo "ns-2 present: $(command -v ns) ($(dpkg-query -W -f='${Version}' ns2 2>/dev/null || echo 'version unknown'))"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
# shellcheck disable=SC2086
$SUDO apt-get install -y $PKGS
command -v ns >/dev/null 2>&1 || { echo "ns2 installed but \`ns\` not on PATH" >&2; exit 1; }
echo "ns-2 installed: $(command -v ns) ($(dpkg-query -W -f='${Version}' ns2))"

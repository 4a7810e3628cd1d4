#!/bin/sh
# Time the reproduction bundles (issue 26 target 6): by default all of them
# in ONE `talkspurt reproduce B1 B2 … -o DIR` invocation (one pool of
# workers for every bundle's runs, twins and figures), with the 1-minute
# load average and the CPU time, and how busy the pool's workers were;
# with PER_BUNDLE=1 each bundle as its own `talkspurt reproduce NNN`, one
# after another (the form timed before 2026-11-28 h-quick).
#
#   sh bench/reproduce.sh            # full scale (target: all five <= 600 s)
#   sh bench/reproduce.sh --quick    # scaled down (target: all five <= 60 s)
#   JOBS=2 sh bench/reproduce.sh     # worker processes (default: the
#                                    # CLI's, one per core)
#   PER_BUNDLE=1 sh bench/reproduce.sh --quick   # one process per bundle
#   sh bench/reproduce.sh --quick tests/data/reproduce/toy   # named bundles only
#   OUT=/tmp/r sh bench/reproduce.sh --quick   # keep the outputs in /tmp/r/all/NNN
#                                    # (PER_BUNDLE: /tmp/r/NNN; OUT must not
#                                    # exist yet), with the logs
#                                    # and timings.json (--timings)
#
# Bundles are the folders scenarios/seeds/NNN holding a published.toml, or
# the ids / folders given after the options.
# Each invocation starts from empty output folders (reproduce resumes
# finished runs, so reusing a folder would time nothing); they are removed
# at the end (unless OUT is set). Wall time is the whole `python -m
# talkspurt reproduce` process, ns-2 twins included; CPU time is user +
# system of it and everything it waited for (workers, ns-2; GNU time).
# A failing invocation is reported with its exit code; the script then
# exits 1. Prints one line per invocation and a last line of JSON for the
# benchmark page.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
quick=""
[ "${1:-}" = "--quick" ] && { quick="--quick"; shift; }
jobs=""
[ -n "${JOBS:-}" ] && jobs="-j $JOBS"
py=${PYTHON:-python3}
if [ -n "${OUT:-}" ]; then
    [ ! -e "$OUT" ] || { echo "OUT=$OUT exists; give a new folder" >&2; exit 2; }
    mkdir -p "$OUT" && tmp=$(cd "$OUT" && pwd)
else
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/talkspurt-reproduce-XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
fi
cd "$repo"
# CPU time (user + system) of each reproduce process and everything it
# waited for (its workers, ns-2): GNU time when installed. Under load it
# moves much less than wall time.
timer=""
[ -x /usr/bin/time ] && timer="/usr/bin/time -f %U,%S -o $tmp/cpu"
[ $# -gt 0 ] || set -- scenarios/seeds/*/
bundles=""
for d in "$@"; do
    d=${d%/}
    [ -f "$d/published.toml" ] || [ -f "scenarios/seeds/$d/published.toml" ] || continue
    [ -d "$d" ] || d="scenarios/seeds/$d"
    bundles="$bundles $d"
done
cpu_total=0
total=0
failed=0
json=""
# time_one LABEL LOG ARGS...: run `python -m talkspurt reproduce ARGS`, print
# its line and add it to the totals and the JSON.
time_one() {
    label=$1; log=$2; shift 2
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    $timer $py -m talkspurt reproduce "$@" $quick $jobs >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    s=$(echo "$t1 - $t0" | bc)
    total=$(echo "$total + $s" | bc)
    cpu=null
    if [ -n "$timer" ] && [ -s "$tmp/cpu" ]; then
        # the last line: GNU time puts "Command exited with non-zero status" before it
        cpu=$(tail -1 "$tmp/cpu" | awk -F, '{ printf "%.2f", $1 + $2 }')
        cpu_total=$(echo "$cpu_total + $cpu" | bc)
    fi
    [ "$rc" -eq 0 ] || { failed=$((failed + 1)); tail -3 "$log" >&2; }
    printf '%s  %8.1f s  CPU %s s  load %s  exit %d\n' "$label" "$s" "$cpu" "$load" "$rc"
    json="$json${json:+, }{\"bundle\": \"$label\", \"wall_s\": $s, \"cpu_s\": $cpu, \"load_before\": $load, \"exit\": $rc}"
}
if [ -n "${PER_BUNDLE:-}" ]; then
    for d in $bundles; do
        id=$(basename "$d")
        time_one "$id" "$tmp/$id.log" "$d" -o "$tmp/$id" --timings "$tmp/$id.timings.json"
        [ -s "$tmp/$id.timings.json" ] && $py "$here/reproduce_timings.py" "$tmp/$id.timings.json" | sed 's/^/    /'
    done
    form="per bundle"
else
    # shellcheck disable=SC2086
    time_one all "$tmp/all.log" $bundles -o "$tmp/all" --timings "$tmp/timings.json"
    form="one invocation"
    if [ -s "$tmp/timings.json" ]; then
        $py "$here/reproduce_timings.py" "$tmp/timings.json"
    fi
fi
printf 'total %8.1f s  CPU %s s  (%s, %s)  load now %s\n' "$total" "$cpu_total" "${quick:-full scale}" "$form" "$(cut -d' ' -f1 /proc/loadavg)"
echo "{\"benchmark\": \"reproduce\", \"quick\": $([ -n "$quick" ] && echo true || echo false), \"form\": \"$form\", \"total_s\": $total, \"cpu_s\": $cpu_total, \"runs\": [$json]}"
[ "$failed" -eq 0 ]

#!/bin/sh
# Time every reproduction bundle present (issue 26 target 6): each
# `talkspurt reproduce NNN` into a fresh folder, one after another, with the
# 1-minute load average beside each figure, then the total.
#
#   sh bench/reproduce.sh            # full scale (target: all five <= 600 s)
#   sh bench/reproduce.sh --quick    # scaled down (target: all five <= 60 s)
#   JOBS=2 sh bench/reproduce.sh     # worker processes per bundle (default:
#                                    # the CLI's, one per core)
#   sh bench/reproduce.sh --quick tests/data/reproduce/toy   # named bundles only
#   OUT=/tmp/r sh bench/reproduce.sh --quick   # keep the outputs in /tmp/r/NNN
#                                    # (must not exist yet), with each log
#
# Bundles are the folders scenarios/seeds/NNN holding a published.toml, or
# the ids / folders given after the options.
# Each run starts from an empty output folder (reproduce resumes finished
# runs, so reusing a folder would time nothing); the folders are removed at
# the end (unless OUT is set). Wall time is the whole `python -m talkspurt reproduce` process,
# ns-2 twins included. A bundle that fails is reported with its exit code
# and counted in the total; the script exits 1 if any failed.
# Prints one line per bundle (wall and CPU seconds) and a last line of
# JSON for the benchmark page.
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
cpu_total=0
total=0
failed=0
json=""
[ $# -gt 0 ] || set -- scenarios/seeds/*/
for d in "$@"; do
    d=${d%/}
    [ -f "$d/published.toml" ] || [ -f "scenarios/seeds/$d/published.toml" ] || continue
    id=$(basename "$d")
    [ -d "$d" ] || d="scenarios/seeds/$d"
    load=$(cut -d' ' -f1 /proc/loadavg)
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    $timer $py -m talkspurt reproduce "$d" -o "$tmp/$id" $quick $jobs >"$tmp/$id.log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    s=$(echo "$t1 - $t0" | bc)
    total=$(echo "$total + $s" | bc)
    cpu=null
    if [ -n "$timer" ] && [ -s "$tmp/cpu" ]; then
        cpu=$(awk -F, '{ printf "%.2f", $1 + $2 }' "$tmp/cpu")
        cpu_total=$(echo "$cpu_total + $cpu" | bc)
    fi
    [ "$rc" -eq 0 ] || { failed=$((failed + 1)); tail -3 "$tmp/$id.log" >&2; }
    printf '%s  %8.1f s  CPU %s s  load %s  exit %d\n' "$id" "$s" "$cpu" "$load" "$rc"
    json="$json${json:+, }{\"bundle\": \"$id\", \"wall_s\": $s, \"cpu_s\": $cpu, \"load_before\": $load, \"exit\": $rc}"
done
printf 'total %8.1f s  CPU %s s  (%s)  load now %s\n' "$total" "$cpu_total" "${quick:-full scale}" "$(cut -d' ' -f1 /proc/loadavg)"
echo "{\"benchmark\": \"reproduce\", \"quick\": $([ -n "$quick" ] && echo true || echo false), \"total_s\": $total, \"cpu_s\": $cpu_total, \"bundles\": [$json]}"
[ "$failed" -eq 0 ]

#!/bin/sh
# Scale curve (issue 14 target 4): the headline dumbbell with N calls for
# D seconds, every link's rate scaled with N (bottleneck N x 100 kb/s,
# access links N x 1 Mb/s) and the stagger 20 ms / N, so the load stays
# at 80 % of the bottleneck and nothing queues: the cost per packet-hop
# should then stay flat. Prints one JSON line per run: calls, duration,
# wall seconds of the whole run::run (best of REPEAT), its phases (build,
# event loop, report = scoring and every table) from that best run, voice
# packets, ns per packet-hop (3 hops) of the whole run and of each phase,
# and peak RSS (the largest of the repeats).
#   sh bench/scale.sh                      # 1k, 10k calls x 10 s; 100k x 1 s
#   sh bench/scale.sh "1000:10 2000:1"     # N:D pairs
#   CURVE=1 sh bench/scale.sh              # 1k, 2k, 5k, 10k, 20k, 50k, 100k calls,
#                                          # 5 M packets from 10k calls on
#   REPEAT=3 BIN=target/release/examples/run_scenario sh bench/scale.sh
#   BASE=/tmp/run_scenario_main sh bench/scale.sh   # also a baseline build,
#        # alternated run by run with BIN (same load for both); one line each
#   LOOP=1 sh bench/scale.sh   # the event loop alone, timed by its CPU
#                              # time (less moved by other jobs' load)
set -e
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/examples/run_scenario}
REPEAT=${REPEAT:-3}
[ -x "$BIN" ] || CARGO_BUILD_JOBS=1 cargo build --release --example run_scenario -p talkspurt-core
KEY=wall_s; [ -n "$LOOP" ] && KEY=loop_cpu_s
POINTS="1000:10 10000:10 100000:1"
[ -n "$CURVE" ] && POINTS="1000:10 2000:10 5000:10 10000:10 20000:5 50000:2 100000:1"
TMP=$(mktemp -d)
# field NAME JSON: a number from a one-line JSON object.
field() { echo "$2" | sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p"; }
hop() { printf "%.1f" "$(echo "scale=3; $1 * 1000000000 / ($2 * 3)" | bc)"; }
for nd in ${1:-$POINTS}; do
    n=${nd%%:*}; d=${nd##*:}
    f="$TMP/scale_$n.toml"
    sed -e "s/duration = \"60s\"/duration = \"${d}s\"/" \
        -e "s/count = 1000/count = $n/" \
        -e "s/rate = \"1Gbps\"/rate = \"$((n * 1000000))bps\"/" \
        -e "s/rate = \"100Mbps\"/rate = \"$((n * 100000))bps\"/" \
        -e "s/stagger = \"20us\"/stagger = \"$((20000000 / n))ns\"/" bench/dumbbell.toml > "$f"
    for b in $BIN $BASE; do : > "$TMP/best_$(echo "$b" | md5sum | cut -c1-8)"; echo 0 > "$TMP/rss_$(echo "$b" | md5sum | cut -c1-8)"; done
    for _ in $(seq "$REPEAT"); do
        for b in $BIN $BASE; do
            tag=$(echo "$b" | md5sum | cut -c1-8)
            if [ -n "$LOOP" ]; then
                out=$(/usr/bin/time -f "RSS %M" "$b" "$f" --no-trace --loop 2>"$TMP/time")
            else
                out=$(/usr/bin/time -f "RSS %M" "$b" "$f" --no-trace 2>"$TMP/time")
            fi
            w=$(field "$KEY" "$out")
            r=$(sed -n 's/RSS //p' "$TMP/time")
            best=$(field "$KEY" "$(cat "$TMP/best_$tag")")
            if [ -z "$best" ] || [ "$(echo "$w < $best" | bc)" = 1 ]; then echo "$out" > "$TMP/best_$tag"; fi
            [ "$r" -gt "$(cat "$TMP/rss_$tag")" ] && echo "$r" > "$TMP/rss_$tag"
        done
    done
    for b in $BIN $BASE; do
        tag=$(echo "$b" | md5sum | cut -c1-8)
        out=$(cat "$TMP/best_$tag")
        pk=$(field voice_packets "$out")
        w=$(field "$KEY" "$out")
        line="{\"bin\": \"$b\", \"calls\": $n, \"duration_s\": $d, \"$KEY\": $w, \"voice_packets\": $pk, \"ns_per_packet_hop\": $(hop "$w" "$pk")"
        if [ -z "$LOOP" ]; then
            # Phases of the best run (absent from builds before RunOutput.phases).
            for p in build_s loop_s report_s; do
                v=$(field $p "$out")
                [ -n "$v" ] && line="$line, \"$p\": $v, \"${p%_s}_ns_per_hop\": $(hop "$v" "$pk")"
            done
        fi
        echo "$line, \"peak_rss_mb\": $(($(cat "$TMP/rss_$tag") / 1024))}"
    done
done
rm -rf "$TMP"

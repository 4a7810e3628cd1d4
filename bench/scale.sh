#!/bin/sh
# Scale curve (issue 14 target 4): the headline dumbbell with N calls for
# D seconds, every link's rate scaled with N (bottleneck N x 100 kb/s,
# access links N x 1 Mb/s) and the stagger 20 ms / N, so the load stays
# at 80 % of the bottleneck and nothing queues: the cost per packet-hop
# should then stay flat. Prints one JSON line per run: calls, duration,
# wall seconds (best of REPEAT), voice packets, ns per packet-hop (3 hops),
# peak RSS.
#   sh bench/scale.sh                      # 1k, 10k calls x 10 s; 100k x 1 s
#   sh bench/scale.sh "1000:10 2000:1"     # N:D pairs
#   REPEAT=3 BIN=target/release/examples/run_scenario sh bench/scale.sh
#   LOOP=1 sh bench/scale.sh   # the event loop alone, timed by its CPU
#                              # time (less moved by other jobs' load)
set -e
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/examples/run_scenario}
REPEAT=${REPEAT:-3}
[ -x "$BIN" ] || CARGO_BUILD_JOBS=1 cargo build --release --example run_scenario -p talkspurt-core
KEY=wall_s; [ -n "$LOOP" ] && KEY=loop_cpu_s
TMP=$(mktemp -d)
for nd in ${1:-1000:10 10000:10 100000:1}; do
    n=${nd%%:*}; d=${nd##*:}
    f="$TMP/scale_$n.toml"
    sed -e "s/duration = \"60s\"/duration = \"${d}s\"/" \
        -e "s/count = 1000/count = $n/" \
        -e "s/rate = \"1Gbps\"/rate = \"$((n * 1000000))bps\"/" \
        -e "s/rate = \"100Mbps\"/rate = \"$((n * 100000))bps\"/" \
        -e "s/stagger = \"20us\"/stagger = \"$((20000000 / n))ns\"/" bench/dumbbell.toml > "$f"
    best=""; rss=0
    for _ in $(seq "$REPEAT"); do
        if [ -n "$LOOP" ]; then
            out=$(/usr/bin/time -f "RSS %M" "$BIN" "$f" --no-trace --loop 2>"$TMP/time")
            w=$(echo "$out" | sed 's/.*"loop_cpu_s": \([0-9.]*\).*/\1/')
        else
            out=$(/usr/bin/time -f "RSS %M" "$BIN" "$f" --no-trace 2>"$TMP/time")
            w=$(echo "$out" | sed 's/.*"wall_s": \([0-9.]*\).*/\1/')
        fi
        pk=$(echo "$out" | sed 's/.*"voice_packets": \([0-9]*\).*/\1/')
        r=$(sed -n 's/RSS //p' "$TMP/time")
        if [ -z "$best" ] || [ "$(echo "$w < $best" | bc)" = 1 ]; then best=$w; fi
        [ "$r" -gt "$rss" ] && rss=$r
    done
    echo "{\"calls\": $n, \"duration_s\": $d, \"$KEY\": $best, \"voice_packets\": $pk, \"ns_per_packet_hop\": $(echo "scale=1; $best * 1000000000 / ($pk * 3)" | bc), \"peak_rss_mb\": $((rss / 1024))}"
done
rm -rf "$TMP"

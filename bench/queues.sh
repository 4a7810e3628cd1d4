#!/bin/sh
# Cost of an AQM on the headline dumbbell: bench/dumbbell.toml (drop-tail
# bottleneck) against bench/dumbbell_red.toml (the same with RED, ns-2.35
# defaults), alternating, REPEAT times each, trace off; prints each run's
# event-loop wall time and the ratio of the medians (RED / drop-tail).
#   sh bench/queues.sh [REPEAT]
set -e
cd "$(dirname "$0")/.."
REPEAT=${1:-5}
CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1} cargo build --release --quiet --example run_scenario -p talkspurt-core
BIN=target/release/examples/run_scenario
: > /tmp/queues_dt.txt
: > /tmp/queues_red.txt
i=0
while [ $i -lt "$REPEAT" ]; do
    $BIN bench/dumbbell.toml --no-trace | sed 's/.*"wall_s": \([0-9.]*\).*/\1/' >> /tmp/queues_dt.txt
    $BIN bench/dumbbell_red.toml --no-trace | sed 's/.*"wall_s": \([0-9.]*\).*/\1/' >> /tmp/queues_red.txt
    i=$((i + 1))
done
python3 - <<'PY'
import statistics
dt = [float(x) for x in open("/tmp/queues_dt.txt")]
red = [float(x) for x in open("/tmp/queues_red.txt")]
print("drop-tail s:", " ".join(f"{x:.3f}" for x in dt))
print("RED s:      ", " ".join(f"{x:.3f}" for x in red))
print(f"median drop-tail {statistics.median(dt):.3f} s, RED {statistics.median(red):.3f} s, "
      f"ratio {statistics.median(red) / statistics.median(dt):.3f}")
PY

#!/usr/bin/env bash
# Offline playout bounds benchmark: builds and runs the release example
# crates/talkspurt-core/examples/bound_bench.rs and prints its tables
# (also saved to bench/results/bound.txt).
#
#   bash bench/bound.sh            # full run: 5 models x 7 reps, 1000 calls on 2 threads and on 1 (~1 min)
#   bash bench/bound.sh --quick    # smoke run: 3 reps, 40 calls (a few seconds)
#   bash bench/bound.sh --calls 200 --reps 5 --threads 2 --mix light,uniform
#
# Every argument is passed to the example (`--help` lists them).
# Honours CARGO_TARGET_DIR and CARGO_BUILD_JOBS (default 2).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
cargo build --release -p talkspurt-core --example bound_bench -j "${CARGO_BUILD_JOBS:-2}" >&2
mkdir -p bench/results
"$target/release/examples/bound_bench" "$@" | tee bench/results/bound.txt

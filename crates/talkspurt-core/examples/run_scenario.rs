//! Run a scenario file natively (no Python): for profiling and benchmarks.
//! `cargo run --release --example run_scenario -- SCENARIO.toml [--no-trace]`
use std::time::Instant;
use talkspurt_core::scenario::from_toml_str;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: run_scenario SCENARIO.toml [--no-trace]");
    let text = std::fs::read_to_string(path).expect("read scenario");
    let mut s = from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"));
    if args.iter().any(|a| a == "--no-trace") {
        s.run.trace = false;
    }
    let t0 = Instant::now();
    let out = talkspurt_core::run::run(&s, &mut |_| true).unwrap_or_else(|e| panic!("{e}"));
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "{{\"wall_s\": {dt:.4}, \"events\": {}, \"voice_packets\": {}, \"events_per_s\": {:.0}}}",
        out.events,
        out.voice_packets,
        out.events as f64 / dt
    );
}

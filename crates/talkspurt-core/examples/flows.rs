//! Per-flow traffic table of a scenario, one JSON line per flow (no Python):
//! `cargo run --release --example flows -- SCENARIO.toml`. For fairness
//! studies (Jain's index, starved flows) outside the Python front end.
use talkspurt_core::scenario::from_toml_str;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: flows SCENARIO.toml");
    let text = std::fs::read_to_string(path).expect("read scenario");
    let mut s = from_toml_str(&text).unwrap_or_else(|e| panic!("{e}"));
    s.run.trace = false;
    let out = talkspurt_core::run::run_with(&s, &Default::default(), &mut |_| true).unwrap_or_else(|e| panic!("{e}"));
    let t = &out.report.traffic;
    let (g, rtx, to, sent) = (t.f64("goodput_bps"), t.i64("retransmits"), t.i64("timeouts"), t.i64("segments_sent"));
    for i in 0..t.rows() {
        println!("{{\"flow\": {i}, \"goodput_bps\": {}, \"segments_sent\": {}, \"retransmits\": {}, \"timeouts\": {}}}", g[i], sent[i], rtx[i], to[i]);
    }
    println!("{{\"voice_packets\": {}}}", out.voice_packets);
}

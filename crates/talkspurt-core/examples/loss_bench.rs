//! Cost of the loss models on the headline dumbbell (bench/dumbbell.toml):
//! the bottleneck with Bernoulli loss vs Gilbert–Elliott loss of the same
//! mean (1 %), interleaved repeats, wall time of `run` only.
//!
//!     cargo run --release -p talkspurt-core --example loss_bench [SECONDS] [REPEATS]

use std::time::Instant;
use talkspurt_core::run::run;
use talkspurt_core::scenario::from_toml_str;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let secs: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(60);
    let reps: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(5);
    let base = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/dumbbell.toml")).unwrap();
    let base = base.replace("duration = \"60s\"", &format!("duration = \"{secs}s\"\ntrace = false"));
    let variants = [
        ("none", ""),
        ("bernoulli", "loss = { kind = \"bernoulli\", p = 0.01 }"),
        ("gilbert-elliott", "loss = { kind = \"gilbert-elliott\", mean_loss = 0.01, mean_burst = 3 }"),
    ];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    for _ in 0..reps {
        for (i, (_, loss)) in variants.iter().enumerate() {
            let src = base.replace("queue = { kind = \"droptail\", limit = \"50p\" }", &format!("queue = {{ kind = \"droptail\", limit = \"50p\" }}\n{loss}"));
            let s = from_toml_str(&src).unwrap();
            let t = Instant::now();
            let out = run(&s, &mut |_| true).unwrap();
            times[i].push(t.elapsed().as_secs_f64());
            assert!(out.voice_packets > 0);
        }
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let m: Vec<f64> = times.iter_mut().map(med).collect();
    for (i, (name, _)) in variants.iter().enumerate() {
        println!("{name:>16}: median {:.3} s over {reps} runs", m[i]);
    }
    println!("gilbert-elliott / bernoulli = {:.3}", m[2] / m[1]);
}

//! Run a scenario file natively (no Python): for profiling and benchmarks.
//! `cargo run --release --example run_scenario -- SCENARIO.toml [--no-trace] [--loop] [--digest] [--fold|--no-fold] [--defer|--no-defer]`
//! `--digest`: also print the report's digest (`Report::digest`, the
//! results-hash guard's fingerprint), to compare builds on any scenario.
//! `--loop`: build the world and time its event loop alone (no scoring, no
//! report; `--defer`, `--no-defer` as for a whole run): `loop_s`, the figure behind ns per packet-hop, and `loop_cpu_s`,
//! the thread's time on a CPU over the same span (clock_gettime; less
//! moved than the wall clock when other jobs share the cores).
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
    // `--defer` / `--no-defer`: records written on a second thread while
    // the loop runs from its start, or by the loop (default: the runs'
    // own choice, run::RunOptions::defer_records).
    let defer_records = if args.iter().any(|a| a == "--defer") { Some(true) } else if args.iter().any(|a| a == "--no-defer") { Some(false) } else { None };
    let opts = talkspurt_core::run::RunOptions { defer_records, ..Default::default() };
    if args.iter().any(|a| a == "--loop") {
        let mut w = talkspurt_core::scenario::build(&s).unwrap_or_else(|e| panic!("{e}"));
        w.records.mode = talkspurt_core::run::deferral(&opts);
        let (t0, c0) = (Instant::now(), cpu_ns());
        w.run(&mut |_| true);
        // The records' thread's end is part of the loop's time.
        let deferred = w.records_finish();
        let dt = t0.elapsed().as_secs_f64();
        let cpu = (cpu_ns() - c0) as f64 * 1e-9;
        let packets: u64 = w.calls.iter().map(|c| c.rec.len() as u64).sum();
        println!("{{\"loop_s\": {dt:.4}, \"loop_cpu_s\": {cpu:.4}, \"events\": {}, \"voice_packets\": {packets}, \"records_deferred\": {deferred}}}", w.q.events_processed());
        return;
    }
    let t0 = Instant::now();
    // `--fold` / `--no-fold`: exact scoring folded as the calls run or
    // recorded (default: by the run's length, run::FOLD_FROM_S).
    let fold = if args.iter().any(|a| a == "--fold") { Some(true) } else if args.iter().any(|a| a == "--no-fold") { Some(false) } else { None };
    let opts = talkspurt_core::run::RunOptions { fold, ..opts };
    let out = talkspurt_core::run::run_with(&s, &opts, &mut |_| true).unwrap_or_else(|e| panic!("{e}"));
    let dt = t0.elapsed().as_secs_f64();
    let p = out.phases;
    let (events, voice_packets, deferred) = (out.events, out.voice_packets, out.records_deferred);
    if args.iter().any(|a| a == "--digest") {
        println!("{{\"digest\": \"{:016x}\"}}", out.report.digest());
    }
    // Freeing the world's and the report's memory is part of a run's cost.
    let t1 = Instant::now();
    drop(out);
    let free_s = t1.elapsed().as_secs_f64();
    println!(
        "{{\"wall_s\": {dt:.4}, \"events\": {events}, \"voice_packets\": {voice_packets}, \"events_per_s\": {:.0}, \"build_s\": {:.4}, \"loop_s\": {:.4}, \"report_s\": {:.4}, \"free_s\": {free_s:.4}, \"records_deferred\": {deferred}}}",
        events as f64 / dt,
        p.build_s,
        p.loop_s,
        p.report_s
    );
}

/// This thread's time on a CPU so far, ns (CLOCK_THREAD_CPUTIME_ID).
fn cpu_ns() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to write.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

//! Benchmark of the offline playout bounds (`playout::optimal`,
//! `playout::tao_guerin`) on synthetic 10-minute calls.
//!
//! `bash bench/bound.sh [--quick]`, or directly
//! `cargo run --release -p talkspurt-core --example bound_bench -- [--quick] [--reps K] [--calls N] [--threads T]`.
//!
//! Part 1: one call per delay model. Each bound is timed (median of `reps`
//! interleaved runs after a warm-up) next to its peer, the plain `O(N²)` DP over every discard count
//! (`min_average_impairment_curve` / `min_average_delay_curve`, then the best
//! `i`), in the same process; the ratio is peer time / bound time. The R of
//! each pruned bound is asserted equal to the R obtained from the unpruned
//! curve.
//!
//! Part 2: `calls` distinct calls (models in rotation, each call from its own
//! `Rng` stream), all four bounds per call, on `threads` threads
//! (`std::thread::scope`, contiguous equal chunks, results in call order) and
//! on one thread; generation is timed separately and is not in the bound
//! time. The per-call results of both runs are asserted identical.
//!
//! The scoring is the simulator's: the reduced model from
//! `quality::{delay,loss}_impairment_simplified` with the codec's λ, the full
//! model from `quality::EModelCurve` (bit-identical to `emodel_extended`)
//! with the inputs `score/bounds.rs` uses (T = Ta = mouth-to-ear, Tr = 2·Ta,
//! Ie and Bpl of the codec, BurstR 1, A 0). It rejects Ta > 2000 ms, so
//! there `r` returns a constant floor (see `R_OUT_OF_RANGE`).

use std::hint::black_box;
use std::time::Instant;

use talkspurt_core::playout::{
    fixed_delay_bound, fixed_delay_bound_generic, min_average_delay_curve, min_average_impairment_curve,
    optimal_playout, optimal_playout_generic, CallTrace, NOT_ARRIVED,
};
use talkspurt_core::quality::{
    codec_impairment, delay_impairment_simplified, loss_impairment_simplified, EModelCurve, EModelParams,
};
use talkspurt_core::rng::{Rng, StreamId};
use talkspurt_core::voice::codec;

/// Stream kind private to this bench (the library's kinds are 1..=5).
const BENCH_KIND: u32 = 0xB0_0D;
const SEED: u64 = 20_261_121;
const PTIME_NS: u64 = 20_000_000;
/// 10 minutes of speech at 20 ms per packet.
const PACKETS: usize = 30_000;
/// Mean talkspurt length, packets: 30 000 / 125 = 240 talkspurts on average.
const MEAN_SPURT: f64 = 125.0;
/// Mean silence between talkspurts, ms.
const MEAN_SILENCE_MS: f64 = 1500.0;
const MS: f64 = 1e6;

// ---------------------------------------------------------------- traces

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Model {
    Light,
    HeavyTail,
    Congested,
    Constant,
    Uniform,
}

const MODELS: [Model; 5] = [Model::Light, Model::HeavyTail, Model::Congested, Model::Constant, Model::Uniform];

impl Model {
    fn name(self) -> &'static str {
        match self {
            Model::Light => "light",
            Model::HeavyTail => "heavy-tail",
            Model::Congested => "congested",
            Model::Constant => "constant",
            Model::Uniform => "uniform",
        }
    }
    fn describe(self) -> &'static str {
        match self {
            Model::Light => "30 ms + exp(5 ms), 0.5 % random loss, G.711",
            Model::HeavyTail => {
                "60 ms + Pareto(1.2, mean 20 ms) + spikes (p = 1/1500, 200-500 ms, drain 20 ms/pkt), 2 % random loss, G.711"
            }
            Model::Congested => {
                "60 ms + AR(1) queue (0.99, exp mean 100 ms) + exp(15 ms), Gilbert loss 5.7 % (mean burst 4), G.729"
            }
            Model::Constant => "80 ms constant, 1 % random loss, G.711",
            Model::Uniform => "stress: 50 ms + U(0, 400 ms), 1 % random loss, G.711",
        }
    }
    fn codec(self) -> &'static str {
        match self {
            Model::Congested => "G.729",
            _ => "G.711",
        }
    }
    fn parse(s: &str) -> Model {
        *MODELS.iter().find(|m| m.name() == s).unwrap_or_else(|| panic!("unknown model {s}"))
    }
}

struct Trace {
    ts: Vec<u32>,
    tg: Vec<u64>,
    ta: Vec<u64>,
    spurts: usize,
}

impl Trace {
    fn view(&self) -> CallTrace<'_> {
        CallTrace { talkspurt: &self.ts, t_gen: &self.tg, t_arr: &self.ta }
    }
}

/// One call of `packets` packets of 20 ms from the stream `(SEED, index, model)`:
/// talkspurts of 1 + exp(124) packets, silences exp(1.5 s).
fn generate(model: Model, index: u64, packets: usize) -> Trace {
    let mut rng = Rng::stream(SEED, index, StreamId::new(BENCH_KIND, model as u32));
    let (mut ts, mut tg, mut ta) =
        (Vec::with_capacity(packets), Vec::with_capacity(packets), Vec::with_capacity(packets));
    let mut t = 0u64;
    let mut spurt = 0u32;
    // Delay-process state: spike height (heavy-tail), queue delay and
    // Gilbert state (congested).
    let mut spike = 0.0f64;
    let mut queue = 100.0f64;
    let mut bad = false;
    while ts.len() < packets {
        let len = 1 + rng.exponential(MEAN_SPURT - 1.0) as usize;
        for _ in 0..len.min(packets - ts.len()) {
            t += PTIME_NS;
            let (delay_ms, lost) = match model {
                Model::Light => (30.0 + rng.exponential(5.0), rng.bernoulli(0.005)),
                Model::HeavyTail => {
                    spike = (spike - 20.0).max(0.0);
                    if rng.bernoulli(1.0 / 1500.0) {
                        spike = 200.0 + 300.0 * rng.uniform();
                    }
                    (60.0 + rng.pareto_mean(1.2, 20.0) + spike, rng.bernoulli(0.02))
                }
                Model::Congested => {
                    queue = 0.99 * queue + 0.01 * rng.exponential(100.0);
                    bad = if bad { !rng.bernoulli(0.25) } else { rng.bernoulli(0.015) };
                    (60.0 + queue + rng.exponential(15.0), bad)
                }
                Model::Constant => (80.0, rng.bernoulli(0.01)),
                Model::Uniform => (50.0 + 400.0 * rng.uniform(), rng.bernoulli(0.01)),
            };
            ts.push(spurt);
            tg.push(t);
            ta.push(if lost { NOT_ARRIVED } else { t + (delay_ms * MS).round() as u64 });
        }
        spurt += 1;
        t += (rng.exponential(MEAN_SILENCE_MS) * MS).round() as u64;
    }
    Trace { ts, tg, ta, spurts: spurt as usize }
}

// ---------------------------------------------------------------- scoring

/// R given to the generic bound where G.107 (even extended) has no value:
/// loss above 20 % (Ppl's range) or mouth-to-ear beyond 2000 ms. A finite
/// floor below every valid R keeps `r` non-increasing in delay.
const R_OUT_OF_RANGE: f64 = -1e3;

#[derive(Clone)]
struct Scoring {
    offset_ms: f64,
    lambda: [f64; 3],
    curve: EModelCurve,
}

impl Scoring {
    fn for_codec(name: &str) -> Scoring {
        let c = codec::lookup(name).expect("codec");
        let (ie, bpl) = codec_impairment(c.emodel_key).expect("codec impairment");
        Scoring {
            offset_ms: (PTIME_NS + c.lookahead.as_nanos()) as f64 / MS,
            lambda: c.lambda.expect("codec lambda"),
            curve: EModelCurve::new(EModelParams { ie, bpl, burst_r: 1.0, ..EModelParams::default() }),
        }
    }
    fn il(&self) -> impl Fn(f64) -> f64 + '_ {
        move |e| loss_impairment_simplified(self.lambda, e)
    }
    /// Full G.107 R of (mean mouth-to-ear delay ms, loss fraction) with the
    /// inputs `score/calls.rs` uses, except BurstR = 1 (the bound does not
    /// know the loss pattern when it scores a count) and A = 0.
    fn g107(&self) -> impl Fn(f64, f64) -> f64 + '_ {
        move |d, e| self.curve.at(d, e, 1.0).map_or(R_OUT_OF_RANGE, |r| r.r)
    }
}

const R0: f64 = 94.2;

fn loss(total: usize, played: usize) -> f64 {
    (total - played) as f64 / total as f64
}

/// Peer for `optimal_playout`: the full `I_d(0,·)` curve, then the best `i`.
fn peer_reduced(t: &CallTrace<'_>, s: &Scoring) -> (f64, usize) {
    let curve = min_average_impairment_curve(t, s.offset_ms, delay_impairment_simplified);
    let il = s.il();
    best(curve.iter().enumerate().map(|(i, &c)| (R0 - c - il(loss(t.len(), i)), i)))
}

/// Peer for `optimal_playout_generic`: the full `D(0,·)` curve, then the best `i`.
fn peer_g107(t: &CallTrace<'_>, s: &Scoring) -> (f64, usize) {
    let curve = min_average_delay_curve(t);
    let r = s.g107();
    best(curve.iter().enumerate().map(|(i, &c)| (r(s.offset_ms + c, loss(t.len(), i)), i)))
}

/// Highest R; ties to more packets played (as the library).
fn best(it: impl Iterator<Item = (f64, usize)>) -> (f64, usize) {
    it.fold((f64::NEG_INFINITY, 0), |b, x| if x.0 >= b.0 { x } else { b })
}

fn same_r(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs())
}

/// Diagnostics: the width `L_max + 1` of the pruned DP (discard counts kept),
/// replicating `optimal.rs`'s pruning for the reduced objective, with the
/// library's floor (common-cap sweep) and with the ideal floor R*.
fn dp_widths(t: &CallTrace<'_>, s: &Scoring, r_star: f64) -> (usize, usize) {
    let il = s.il();
    let n = t.len();
    let cost = |d: u64| delay_impairment_simplified(s.offset_ms + d as f64 / MS);
    let score = |i: usize, sum: f64| R0 - if i == 0 { 0.0 } else { sum / i as f64 } - il(loss(n, i));
    // Common-cap sweep.
    let mut all: Vec<(u64, u32)> = (0..n).filter_map(|i| t.network_delay(i).map(|d| (d, t.talkspurt[i]))).collect();
    all.sort_unstable();
    let spurts = t.talkspurt.last().map_or(0, |&k| k as usize + 1);
    let (mut count, mut contrib) = (vec![0usize; spurts], vec![0.0f64; spurts]);
    let (mut played, mut sum, mut floor) = (0usize, 0.0f64, score(0, 0.0));
    let mut i = 0;
    while i < all.len() {
        let d = all[i].0;
        while i < all.len() && all[i].0 == d {
            let k = all[i].1 as usize;
            count[k] += 1;
            played += 1;
            sum += count[k] as f64 * cost(d) - contrib[k];
            contrib[k] = count[k] as f64 * cost(d);
            i += 1;
        }
        floor = floor.max(score(played, sum));
    }
    let arrived = all.len();
    let mut costs: Vec<f64> = all.iter().map(|&(d, _)| cost(d)).collect();
    costs.sort_unstable_by(f64::total_cmp);
    let width = |floor: f64| {
        let slack = 1e-9 * (1.0 + floor.abs());
        let (mut l_max, mut prefix) = (0, 0.0);
        for (idx, c) in costs.iter().enumerate() {
            prefix += c;
            if score(idx + 1, prefix) >= floor - slack {
                l_max = l_max.max(arrived - idx - 1);
            }
        }
        l_max + 1
    };
    (width(floor), width(r_star))
}

// ---------------------------------------------------------------- timing

/// Median wall time of `reps` runs of `f`, after one untimed warm-up run.
fn median_ms<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    black_box(f());
    let mut times = Vec::with_capacity(reps);
    let mut out = None;
    for _ in 0..reps {
        let (ms, r) = once(&mut f);
        times.push(ms);
        out = Some(r);
    }
    (median(times), out.expect("reps >= 1"))
}

fn once<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let t0 = Instant::now();
    let r = black_box(f());
    (t0.elapsed().as_secs_f64() * 1e3, r)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// The four bounds of one call (what `[analysis] bounds = true` asks for).
#[derive(Clone, Copy, Debug, PartialEq)]
struct CallBounds {
    reduced: f64,
    g107: f64,
    fixed: f64,
    fixed_g107: f64,
}

fn score_call(t: &CallTrace<'_>, s: &Scoring) -> CallBounds {
    CallBounds {
        reduced: optimal_playout(t, s.offset_ms, R0, delay_impairment_simplified, s.il()).r,
        g107: optimal_playout_generic(t, s.offset_ms, s.g107()).r,
        fixed: fixed_delay_bound(t, s.offset_ms, R0, delay_impairment_simplified, s.il()).r,
        fixed_g107: fixed_delay_bound_generic(t, s.offset_ms, s.g107()).r,
    }
}

/// CPU seconds (user + system) of this process so far, from
/// `/proc/self/stat` (Linux; USER_HZ = 100 assumed); `None` elsewhere.
fn cpu_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Parallelism the machine gives right now: `threads` copies of a pure
/// integer loop against one copy (2.0 = two idle cores). The cores are
/// shared, so this is printed next to the multi-thread figures.
fn spin_scaling(threads: usize) -> f64 {
    fn work(n: u64) -> u64 {
        let mut x = 1u64;
        for i in 0..n {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i);
        }
        x
    }
    let n = black_box(100_000_000u64);
    let (one, _) = once(|| work(n));
    let (many, _) = once(|| {
        std::thread::scope(|sc| {
            let hs: Vec<_> = (0..threads).map(|_| sc.spawn(move || work(n))).collect();
            hs.into_iter().map(|h| h.join().expect("spin")).fold(0, u64::wrapping_add)
        })
    });
    threads as f64 * one / many
}

fn score_all(calls: &[(Trace, Scoring)]) -> Vec<CallBounds> {
    calls.iter().map(|(t, s)| score_call(&t.view(), s)).collect()
}

fn score_threads(calls: &[(Trace, Scoring)], threads: usize) -> Vec<CallBounds> {
    let chunk = calls.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|sc| {
        let handles: Vec<_> = calls.chunks(chunk).map(|c| sc.spawn(move || score_all(c))).collect();
        handles.into_iter().flat_map(|h| h.join().expect("worker panicked")).collect()
    })
}

// ---------------------------------------------------------------- main

struct Args {
    reps: usize,
    calls: usize,
    threads: usize,
    packets: usize,
    mix: Vec<Model>,
    skip_single: bool,
}

fn args() -> Args {
    let mut a = Args {
        reps: 7,
        calls: 1000,
        threads: 2,
        packets: PACKETS,
        mix: vec![Model::Light, Model::HeavyTail, Model::Congested, Model::Constant],
        skip_single: false,
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let mut it = argv.iter();
    while let Some(x) = it.next() {
        let mut val = |name: &str| it.next().unwrap_or_else(|| panic!("{name} needs a value")).clone();
        match x.as_str() {
            "--quick" => {
                a.reps = 3;
                a.calls = 40;
            }
            "--reps" => a.reps = val("--reps").parse().expect("--reps N"),
            "--calls" => a.calls = val("--calls").parse().expect("--calls N"),
            "--threads" => a.threads = val("--threads").parse().expect("--threads N"),
            "--packets" => a.packets = val("--packets").parse().expect("--packets N"),
            "--mix" => a.mix = val("--mix").split(',').map(Model::parse).collect(),
            "--skip-single" => a.skip_single = true,
            "-h" | "--help" => {
                println!(
                    "bound_bench [--quick] [--reps K] [--calls N] [--threads T] \
                     [--packets P] [--mix m1,m2,..] [--skip-single]\nmodels: {}",
                    MODELS.map(Model::name).join(", ")
                );
                std::process::exit(0);
            }
            other => panic!("unknown argument {other} (try --help)"),
        }
    }
    assert!(a.reps >= 1 && a.threads >= 1 && a.packets >= 1 && !a.mix.is_empty());
    a
}

fn main() {
    let a = args();
    println!(
        "# Offline playout bounds: {} packets of 20 ms per call (~{} talkspurts), median of {} interleaved runs after a warm-up",
        a.packets,
        (a.packets as f64 / MEAN_SPURT).round(),
        a.reps
    );
    println!();
    println!("## Part 1: one call per model (ms per call; x = peer ms / bound ms)");
    println!();
    for m in MODELS {
        println!("- {}: {}", m.name(), m.describe());
    }
    println!();
    println!(
        "| model | spurts | arrived | DP width / ideal | optimal_playout | x | optimal_playout_generic | x | fixed_delay_bound | x | fixed_delay_bound_generic | x | plain DP, I_d | plain DP, D | R reduced | R G.107 | R fixed | R fixed G.107 |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut worst: Vec<(&str, f64)> = Vec::new();
    for m in MODELS {
        let tr = generate(m, 0, a.packets);
        let t = tr.view();
        t.validate().expect("generated trace is valid");
        let s = Scoring::for_codec(m.codec());
        let il = s.il();
        // Interleaved: each repetition runs all six in turn, so load from
        // other processes hits bounds and peers alike. Repetition 0 is a warm-up.
        let mut times: [Vec<f64>; 6] = Default::default();
        let mut results = None;
        for rep in 0..=a.reps {
            let (t0, opt) = once(|| optimal_playout(&t, s.offset_ms, R0, delay_impairment_simplified, &il));
            let (t1, gen) = once(|| optimal_playout_generic(&t, s.offset_ms, s.g107()));
            let (t2, fix) = once(|| fixed_delay_bound(&t, s.offset_ms, R0, delay_impairment_simplified, &il));
            let (t3, fixg) = once(|| fixed_delay_bound_generic(&t, s.offset_ms, s.g107()));
            let (t4, peer_red) = once(|| peer_reduced(&t, &s));
            let (t5, peer_gen) = once(|| peer_g107(&t, &s));
            if rep > 0 {
                for (v, ms) in times.iter_mut().zip([t0, t1, t2, t3, t4, t5]) {
                    v.push(ms);
                }
            }
            results = Some((opt, gen, fix, fixg, peer_red, peer_gen));
        }
        let (opt, gen, fix, fixg, (r_peer_red, i_peer_red), (r_peer_gen, i_peer_gen)) = results.expect("reps");
        let [ms_red, ms_gen, ms_fix, ms_fixg, ms_peer_red, ms_peer_gen] = times.map(median);

        // The pruned bounds must equal the plain DP's optimum.
        assert!(
            same_r(opt.r, r_peer_red),
            "{}: optimal_playout R {} (played {}) != plain DP R {} (played {})",
            m.name(),
            opt.r,
            opt.played,
            r_peer_red,
            i_peer_red
        );
        assert!(
            same_r(gen.r, r_peer_gen),
            "{}: optimal_playout_generic R {} (played {}) != plain DP R {} (played {})",
            m.name(),
            gen.r,
            gen.played,
            r_peer_gen,
            i_peer_gen
        );
        assert!(fix.r <= opt.r + 1e-9 && fixg.r <= gen.r + 1e-9, "{}: fixed delay beats the optimum", m.name());
        assert!(gen.r > R_OUT_OF_RANGE, "{}: G.107 bound outside the E-model's range", m.name());
        let (width, ideal) = dp_widths(&t, &s, opt.r);
        worst.push((m.name(), ms_red.max(ms_gen)));
        println!(
            "| {} | {} | {} | {} / {} | {:.2} | {:.0} | {:.2} | {:.0} | {:.2} | {:.0} | {:.2} | {:.0} | {:.1} | {:.1} | {:.2} | {:.2} | {:.2} | {:.2} |",
            m.name(),
            tr.spurts,
            t.arrived(),
            width,
            ideal,
            ms_red,
            ms_peer_red / ms_red,
            ms_gen,
            ms_peer_gen / ms_gen,
            ms_fix,
            ms_peer_red / ms_fix,
            ms_fixg,
            ms_peer_gen / ms_fixg,
            ms_peer_red,
            ms_peer_gen,
            opt.r,
            gen.r,
            fix.r,
            fixg.r,
        );
    }
    println!();
    println!("Times in ms per call. x = plain DP ms / bound ms, the plain DP of the same objective (I_d curve for the reduced model, D curve for G.107).");
    println!("R reduced / R G.107: the pruned bounds, asserted equal to the plain DP's (relative 1e-9); R fixed: Tao-Guerin, asserted <= the optimum.");
    println!("DP width: discard counts the pruned reduced DP keeps (replica of optimal.rs's pruning); ideal: with the optimum as floor.");
    let (wname, wms) = worst.iter().copied().fold(("", 0.0), |b, x| if x.1 > b.1 { x } else { b });
    println!(
        "Target < 100 ms per 10-minute call (each optimal bound): {} (slowest: {wname}, {wms:.1} ms{}).",
        if wms < 100.0 { "MET" } else { "MISSED" },
        if a.packets == PACKETS { "" } else { "; not a 10-minute call" }
    );

    // Cost of one E-model evaluation, for reading the G.107 column.
    let s = Scoring::for_codec("G.711");
    let r = s.g107();
    let n = 200_000;
    let (ms_e, _) = median_ms(3, || (0..n).map(|k| r(50.0 + (k % 700) as f64, (k % 200) as f64 / 1000.0)).sum::<f64>());
    println!("One emodel_extended evaluation: {:.0} ns.", ms_e * 1e6 / n as f64);

    println!();
    println!(
        "## Part 2: {} calls ({}), 4 bounds per call (optimal reduced + G.107, fixed reduced + G.107)",
        a.calls,
        a.mix.iter().map(|m| m.name()).collect::<Vec<_>>().join(", ")
    );
    println!();
    let t0 = Instant::now();
    let calls: Vec<(Trace, Scoring)> = (0..a.calls)
        .map(|c| {
            let m = a.mix[c % a.mix.len()];
            (generate(m, 1 + c as u64, a.packets), Scoring::for_codec(m.codec()))
        })
        .collect();
    let gen_s = t0.elapsed().as_secs_f64();
    let packets: usize = calls.iter().map(|(t, _)| t.tg.len()).sum();
    println!(
        "Generation (not timed below): {gen_s:.2} s for {packets} packets, {:.0} MB of traces.",
        packets as f64 * 20.0 / 1e6
    );
    println!();
    println!("Parallelism available now (spin loop, {} threads vs 1): {:.2}.", a.threads, spin_scaling(a.threads));
    println!();
    println!("| run | wall s | ms per call | calls/s | CPU s (cores busy) |");
    println!("|---|---|---|---|---|");
    let row = |label: String, wall: f64, cpu: Option<f64>| {
        println!(
            "| {label} | {wall:.2} | {:.1} | {:.1} | {} |",
            wall * 1e3 / a.calls as f64,
            a.calls as f64 / wall,
            cpu.map_or("n/a".to_string(), |c| format!("{c:.2} ({:.2})", c / wall))
        )
    };
    let (c0, t0) = (cpu_s(), Instant::now());
    let multi = black_box(score_threads(&calls, a.threads));
    let wall_multi = t0.elapsed().as_secs_f64();
    row(format!("{} threads", a.threads), wall_multi, cpu_s().zip(c0).map(|(b, a)| b - a));
    if !a.skip_single {
        let (c0, t0) = (cpu_s(), Instant::now());
        let single = black_box(score_all(&calls));
        let wall_single = t0.elapsed().as_secs_f64();
        row("1 thread".to_string(), wall_single, cpu_s().zip(c0).map(|(b, a)| b - a));
        assert_eq!(multi, single, "threaded results differ from the single-thread results");
        println!();
        println!(
            "Speed-up {} threads / 1 thread: {:.2}; spin-loop parallelism after the runs: {:.2}.",
            a.threads,
            wall_single / wall_multi,
            spin_scaling(a.threads)
        );
    }
    let mean = |f: fn(&CallBounds) -> f64| multi.iter().map(f).sum::<f64>() / multi.len() as f64;
    println!(
        "Mean R over the calls: optimal reduced {:.2}, optimal G.107 {:.2}, fixed reduced {:.2}, fixed G.107 {:.2}.",
        mean(|b| b.reduced),
        mean(|b| b.g107),
        mean(|b| b.fixed),
        mean(|b| b.fixed_g107)
    );
    let s_per_1000 = wall_multi * 1000.0 / a.calls as f64;
    println!();
    println!(
        "Target 1000 calls < 60 s on 2 cores: {} ({:.1} s for 1000 calls on {} threads{}{}).",
        if s_per_1000 < 60.0 { "MET" } else { "MISSED" },
        s_per_1000,
        a.threads,
        if a.calls == 1000 { "" } else { ", extrapolated" },
        if a.packets == PACKETS { "" } else { "; not 10-minute calls" }
    );
}

//! Streaming scoring (`[analysis] scoring = "streaming"`, issue 14) against
//! exact scoring on the same runs: every column the streaming scorer
//! computes online must equal the exact one bit for bit; the percentiles
//! must lie within the log histogram's stated bound (relative 1/256,
//! `quality::sketch`); the run-length variances (the same integer moments
//! in both) bit for bit; the offline bounds are NaN
//! and the talkspurts table absent. And exact scoring folded as the call
//! runs (trace off: run::folds_as_it_runs, issue 26), bounds included, against
//! the same scoring from the records (trace on): every column bit for bit. Covers every online playout buffer,
//! the three RTPI readings, UDP, TCP, DCCP/TFRC, on/off speech, losses
//! and mode-switching codecs.

mod common;

use talkspurt_core::metrics::{MissingPredecessor, RtpiSilence};
use talkspurt_core::playout::PlayoutKind;
use talkspurt_core::quality::sketch::SKETCH_RELATIVE_ERROR;
use talkspurt_core::run::{self, run};
use talkspurt_core::scenario::{Scenario, Scoring};
use talkspurt_core::time::SimDuration;
use talkspurt_core::trace::{Column, Table};

fn load(file: &str, cap_s: u64) -> Scenario {
    let mut s = common::shipped(file);
    s.run.duration = s.run.duration.min(SimDuration::from_secs(cap_s));
    s.run.trace = false;
    s
}

/// Columns approximate in streaming mode, with their relative bound.
fn bound(table: &str, col: &str) -> Option<f64> {
    match (table, col) {
        ("calls", "delay_p50_ms" | "delay_p95_ms" | "delay_p99_ms" | "sender_wait_p95_ms") => Some(SKETCH_RELATIVE_ERROR * (1.0 + 1e-9)),
        _ => None,
    }
}

/// Columns that need the whole trace: NaN in streaming mode.
fn offline(col: &str) -> bool {
    col.starts_with("bound_") || col.starts_with("fixed_")
}

/// `exact` against `streaming`; with `bits`, every column bit for bit
/// (bounds included).
fn compare(label: &str, name: &str, exact: &Table, streaming: &Table) -> usize {
    compare_as(label, name, exact, streaming, false)
}

fn compare_as(label: &str, name: &str, exact: &Table, streaming: &Table, bits: bool) -> usize {
    let mut checked = 0;
    assert_eq!(exact.columns.len(), streaming.columns.len(), "{label} {name}: column count");
    for ((n, e), (m, s)) in exact.columns.iter().zip(&streaming.columns) {
        assert_eq!(n, m, "{label} {name}: column order");
        match (e, s) {
            (Column::F64(e), Column::F64(s)) if offline(n) && !bits => {
                assert!(s.iter().all(|x| x.is_nan()), "{label} {name}.{n}: bounds must be NaN when streaming");
                let _ = e;
            }
            (Column::F64(e), Column::F64(s)) => {
                for (i, (x, y)) in e.iter().zip(s).enumerate() {
                    match bound(name, n).filter(|_| !bits) {
                        Some(b) if !x.is_nan() => {
                            assert!((x - y).abs() <= x.abs() * b + 1e-12, "{label} {name}.{n}[{i}]: exact {x}, streaming {y}, bound {b} relative")
                        }
                        _ => assert!(x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()), "{label} {name}.{n}[{i}]: exact {x}, streaming {y}"),
                    }
                }
                checked += e.len();
            }
            (Column::Cat { codes: ce, cats: ca }, Column::Cat { codes: se, cats: sa }) if n.contains("band") && name == "groups" => {
                let _ = (ce, ca, se, sa);
            }
            _ => assert_eq!(e, s, "{label} {name}.{n}"),
        }
    }
    checked
}

fn check(label: &str, s: &Scenario) {
    let exact = run(s, &mut |_| true).unwrap_or_else(|e| panic!("{label}: {e}")).report;
    let mut st = s.clone();
    st.analysis.scoring = Scoring::Streaming;
    let streaming = run(&st, &mut |_| true).unwrap_or_else(|e| panic!("{label}: {e}")).report;
    let n = compare(label, "calls", &exact.calls, &streaming.calls);
    assert!(n > 0 || s.calls.is_empty(), "{label}: nothing compared");
    eprintln!("{label}: {n} call values compared, {} packets", exact.calls.i64("generated").iter().sum::<i64>());
    compare(label, "groups", &exact.groups, &streaming.groups);
    compare(label, "bursts", &exact.bursts, &streaming.bursts);
    assert!(streaming.talkspurts.is_none() && streaming.packets.is_none(), "{label}: streaming has no per-packet tables");
    // The run itself is the same.
    compare(label, "links", &exact.links, &streaming.links);
    compare(label, "traffic", &exact.traffic, &streaming.traffic);
    // Exact scoring, with the offline bounds: from the records (trace on)
    // and folded as the calls run (trace off), the same bits.
    let mut rec = s.clone();
    rec.run.trace = true;
    let mut fold = rec.clone();
    fold.run.trace = false;
    let opts = run::RunOptions { fold: Some(true), ..Default::default() };
    assert!(!run::folds_as_it_runs(&rec, &opts) && run::folds_as_it_runs(&fold, &opts));
    let [rec, fold] = [rec, fold].map(|x| run::run_with(&x, &opts, &mut |_| true).unwrap_or_else(|e| panic!("{label}: {e}")).report);
    for (name, a, b) in [("calls", &rec.calls, &fold.calls), ("groups", &rec.groups, &fold.groups), ("bursts", &rec.bursts, &fold.bursts)] {
        compare_as(&format!("{label} exact fold"), name, a, b, true);
    }
    compare_as(&format!("{label} exact fold"), "traffic", &rec.traffic, &fold.traffic, true);
    assert!(fold.packets.is_none());
    match (&rec.talkspurts, &fold.talkspurts) {
        (Some(a), Some(b)) => {
            compare_as(&format!("{label} exact fold"), "talkspurts", a, b, true);
        }
        (a, b) => assert!(a.is_none() && b.is_none(), "{label}: talkspurts table in one only"),
    }
}

#[test]
fn shipped_scenarios_score_the_same() {
    for (file, cap) in [
        ("scenarios/quickstart.toml", 20),
        ("scenarios/playout_slow_queue.toml", 20),
        ("scenarios/voice_tcp_vs_udp.toml", 20),
        ("scenarios/seeds/000/base.toml", 20),
        ("scenarios/seeds/001/mixed.toml", 30),
        ("scenarios/seeds/004/avoip.toml", 30),
        ("scenarios/adapt/codec-mode.toml", 30),
        ("tests/data/tcp/loss.toml", 20),
        ("tests/data/tfrc/onoff.toml", 20),
        ("tests/data/tfrc/loss.toml", 20),
    ] {
        check(file, &load(file, cap));
    }
    // The headline dumbbell overloaded (1500 calls on 100 Mb/s): queue
    // drops, late packets, long loss runs.
    let mut s = load("bench/dumbbell.toml", 1);
    s.calls[0].count = 1500;
    check("bench/dumbbell.toml × 1500", &s);
}

/// Every online buffer, and the RTPI readings, on a lossy UDP and a TCP
/// scenario.
#[test]
fn every_playout_buffer_scores_the_same() {
    for file in ["scenarios/voice_tcp_vs_udp.toml", "scenarios/playout_slow_queue.toml"] {
        for name in PlayoutKind::NAMES {
            let mut s = load(file, 15);
            for g in &mut s.calls {
                // A fixed depth's ptime is the call's (scenario::call_info).
                g.playout = PlayoutKind::from_name(name).unwrap();
            }
            check(&format!("{file} {name}"), &s);
        }
        for missing in [MissingPredecessor::Timely, MissingPredecessor::Delayed, MissingPredecessor::PreviousArrival] {
            for silence in [RtpiSilence::Count, RtpiSilence::Exclude] {
                let mut s = load(file, 15);
                s.analysis.rtpi_missing = missing;
                s.analysis.rtpi_silence = silence;
                s.analysis.rtpi_threshold = SimDuration::from_millis(30);
                check(&format!("{file} {missing:?} {silence:?}"), &s);
            }
        }
    }
}

/// Streaming stores no packets: with the packet trace on it is refused,
/// naming the key.
#[test]
fn streaming_with_the_trace_is_refused() {
    let mut s = load("scenarios/quickstart.toml", 1);
    s.run.trace = true;
    s.analysis.scoring = Scoring::Streaming;
    let e = run(&s, &mut |_| true).err().expect("refused").to_string();
    assert!(e.contains("analysis.scoring") && e.contains("trace"), "{e}");
}

//! Speed work must not move results: every scenario shipped with the
//! project (and the headline benchmark, scaled down) is run with the trace
//! on and its report tables hashed (`Report::digest`); the hashes must
//! equal those in `tests/data/results_hashes.txt` (in release and
//! `cargo test` builds alike), written before the optimisations.
//! A change meant to alter results regenerates the record with
//! `TALKSPURT_BLESS=1 cargo test -p talkspurt-core --test results_hash`
//! and says so in its commit.

mod common;

use std::path::{Path, PathBuf};
use talkspurt_core::run::{run_with, RunOptions};
use talkspurt_core::time::SimDuration;

/// (scenario file relative to the repository, duration cap, call-count
/// override, text replaced): long studies are cut to keep the test quick in
/// debug builds; the cut still runs every code path the file selects. The
/// dumbbell also runs overloaded (1500 calls on 100 Mb/s) with each queue
/// discipline, so that drops, marks and holding queues are covered.
type Case = (&'static str, u64, Option<u32>, (&'static str, &'static str));
const KEEP: (&str, &str) = ("", "");
const BOTTLENECK: &str = r#"queue = { kind = "droptail", limit = "50p" }"#;
const CASES: &[Case] = &[
    ("scenarios/quickstart.toml", 30, None, KEEP),
    ("scenarios/playout_slow_queue.toml", 30, None, KEEP),
    ("scenarios/voice_tcp_vs_udp.toml", 30, None, KEEP),
    ("scenarios/seeds/000/base.toml", 30, None, KEEP),
    ("scenarios/seeds/001/g711.toml", 60, None, KEEP),
    ("scenarios/seeds/001/g729.toml", 60, None, KEEP),
    ("scenarios/seeds/001/mixed.toml", 60, None, KEEP),
    ("scenarios/seeds/004/avoip.toml", 60, None, KEEP),
    ("scenarios/seeds/004/cbr.toml", 60, None, KEEP),
    ("tests/data/tcp/compete.toml", 20, None, KEEP),
    ("tests/data/tcp/loss.toml", 20, None, KEEP),
    ("tests/data/tfrc/loss.toml", 20, None, KEEP),
    ("tests/data/tfrc/onoff.toml", 20, None, KEEP),
    ("bench/dumbbell.toml", 2, Some(100), KEEP),
    ("bench/dumbbell_red.toml", 2, Some(100), KEEP),
    ("bench/dumbbell.toml", 1, Some(1500), KEEP),
    // RED's automatic thresholds (ns-2.35) exceed the 50-packet limit at
    // 100 Mb/s; at 10 Mb/s it drops early.
    ("bench/dumbbell_red.toml", 1, Some(200), (r#"rate = "100Mbps""#, r#"rate = "10Mbps""#)),
    ("bench/dumbbell.toml", 1, Some(1500), (BOTTLENECK, r#"queue = { kind = "codel" }"#)),
    ("bench/dumbbell.toml", 1, Some(1500), (BOTTLENECK, r#"queue = { kind = "fq_codel" }"#)),
    ("bench/dumbbell.toml", 1, Some(1500), (BOTTLENECK, r#"queue = { kind = "pie" }"#)),
    ("bench/tcp_mix.toml", 10, None, KEEP),
    ("bench/tfrc_voice.toml", 10, None, KEEP),
    ("tests/data/trunk/trunks.toml", 20, None, KEEP),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The digest of `case` run with the calls' records written by the loop
/// (`defer` false) or on a second thread (`run::RunOptions::defer_records`).
fn hash_of(&(file, cap_s, calls, (from, to)): &Case, defer: bool) -> u64 {
    let text = std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(from.is_empty() || text.contains(from), "{file}: no {from}");
    let text = if from.is_empty() { text } else { text.replace(from, to) };
    let mut s = common::shipped_text(file, &text);
    s.run.duration = s.run.duration.min(SimDuration::from_secs(cap_s));
    s.run.trace = true;
    if let Some(n) = calls {
        s.calls[0].count = n;
    }
    let opts = RunOptions { defer_records: Some(defer), ..Default::default() };
    let out = run_with(&s, &opts, &mut |_| true).unwrap_or_else(|e| panic!("{file}: {e}"));
    out.report.digest()
}

#[test]
fn shipped_scenarios_give_the_recorded_results() {
    // One record for every build kind: the same scenario and seed must
    // give bit-identical tables with or without debug assertions and at
    // any opt-level. (Until NaNs were made canonical in `Table::push`, the
    // groups table's undefined fractions of scenarios without calls had
    // another NaN sign in `cargo test` builds.)
    check(false);
}

/// The records written on a second thread while the loop runs
/// (`trace::record::RecordLog`) give the recorded results too.
#[test]
fn records_written_beside_the_loop_give_the_recorded_results() {
    // While blessing, the test above rewrites the record: compare after.
    if std::env::var_os("TALKSPURT_BLESS").is_none() {
        check(true);
    }
}

fn check(defer: bool) {
    let golden = root().join("crates/talkspurt-core/tests/data/results_hashes.txt");
    let got: Vec<String> = CASES.iter().map(|c| format!("{} {} {:016x}", c.0, c.3 .1, hash_of(c, defer))).collect();
    if !defer && std::env::var_os("TALKSPURT_BLESS").is_some() {
        std::fs::write(&golden, got.join("\n") + "\n").expect("write golden hashes");
        return;
    }
    let want = std::fs::read_to_string(&golden).expect("tests/data/results_hashes.txt (bless with TALKSPURT_BLESS=1)");
    let want: Vec<&str> = want.lines().collect();
    let diff: Vec<String> = got.iter().zip(want.iter().chain(std::iter::repeat(&"<missing>"))).filter(|(g, w)| g != *w).map(|(g, w)| format!("got {g}, recorded {w}")).collect();
    assert!(diff.is_empty() && got.len() == want.len(), "results moved (records deferred: {defer}):\n{}", diff.join("\n"));
}

//! One scenario, start to finish: build the world, run it, score it, and
//! assemble the finished world into a `Report` (`report.rs`).

pub mod capture;
pub mod report;

pub use report::{report, report_until, Report};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::scenario::{build, call_info, group_label, Scenario, ScenarioError};
use crate::score::stream::CallStream;
use crate::score::{CallInfo, Scoring};
use crate::sim::records::Deferral;
use crate::trace::CallRecord;
use crate::sim::capture::Capture;

/// One glibc malloc arena for the whole process (`mallopt(M_ARENA_MAX,
/// 1)`), for a process that runs scenarios and little else (the CLI's
/// `run`): the scoring threads then reuse the memory of the records they
/// free as each call is scored, instead of growing arenas of their own
/// (`talkspurt run bench/tcp_mix_big.toml --no-trace`: peak RSS 28.9 ->
/// 27.1 MB; bench/README.md, Profiles). Call it before any thread
/// allocates; elsewhere than glibc it does nothing. `run` does not call
/// it: a library must not change its host's allocator.
pub fn one_malloc_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt takes two integers and only changes malloc's tuning.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}

pub struct RunOutput {
    pub report: Report,
    /// Events the scheduler processed.
    pub events: u64,
    /// Voice packets generated.
    pub voice_packets: u64,
    /// Simulated time at which the run ended (seconds).
    pub sim_end_s: f64,
    /// False when `progress` asked to stop early. An incomplete run's
    /// `report` is empty (`Report::default()`) unless `RunOptions::partial`
    /// asked to score what ran: scoring a run the user interrupted would
    /// spend time and memory on results nobody asked for (issue 25).
    pub completed: bool,
    /// Capture files (name, libpcap bytes), empty unless asked for.
    pub captures: Vec<(String, Vec<u8>)>,
    /// Wall time of each phase (bench/scale.sh prints them).
    pub phases: Phases,
    /// Per call group, its largest IP packet and application unit
    /// (`World::largest_by_group`): not a result, the notices' input.
    pub largest: Vec<crate::sim::world::Largest>,
    /// The records were written on a second thread (`sim::records`):
    /// not a result (the same bits either way), how the run went.
    pub records_deferred: bool,
}

/// Wall seconds of a run's phases: building the world, its event loop,
/// and scoring with every report table.
#[derive(Clone, Copy, Debug, Default)]
pub struct Phases {
    pub build_s: f64,
    pub loop_s: f64,
    pub report_s: f64,
}

/// Options of a run that are not part of the scenario.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Capture specs (`run::capture::taps`); empty: no capture.
    pub capture: Vec<String>,
    /// The option's name in errors (`capture`, `--capture`).
    pub capture_key: String,
    /// Score an interrupted run up to where it stopped (the caller marks
    /// such results partial); false: an interrupted run returns an empty
    /// report at once.
    pub partial: bool,
    /// Set by the caller (another thread: the Python binding's on Ctrl-C)
    /// to stop the run: the event loop checks it at least every 50 ms of
    /// wall time and scoring between calls (unless `partial`), so the run
    /// returns, incomplete, within a fraction of a second.
    pub interrupt: Option<Arc<AtomicBool>>,
    /// With exact scoring and the trace off, fold each call as it runs
    /// (`Some(true)`), record it and score it at the end (`Some(false)`),
    /// or choose by the run's length (`None`, [`FOLD_FROM_S`]). The
    /// results are the same bits either way (tests/streaming.rs).
    pub fold: Option<bool>,
    /// Write the calls' records on a second thread while the loop runs
    /// (`trace::record::RecordLog`, `sim::records`): `Some(true)` from
    /// the start, `Some(false)` never, `None` on a machine of two cores or
    /// more once recording proves dear (`Deferral::Auto`). The records,
    /// hence the results, are the same bits either way
    /// (tests/results_hash.rs).
    pub defer_records: Option<bool>,
}

/// Runs at least this long (s) fold exact scoring as they run when the
/// trace is off (`RunOptions::fold` unset). Folding keeps a call's memory
/// flat, but costs more CPU per packet than the compact records: on the
/// headline (1000 calls × 60 s) 0.91–0.97 s of CPU against 0.42–0.51 s
/// natively, for a peak of 27 MB against 61 MB before settled record
/// blocks were packed (`trace::pack`; 16 MB since, bench/README.md
/// "Memory"). Ten minutes: a call's records then pass 0.5 MB (30 000
/// packets) and its scoring ~3 MB.
pub const FOLD_FROM_S: u64 = 600;

/// Whether each call is folded into accumulators as it runs
/// (score::stream) rather than recorded and scored at the end: always with
/// streaming scoring; with exact scoring when the packets table is not
/// kept (`[run] trace = false`) and the run is long (`RunOptions::fold`). The exact fold gives the same bits as
/// scoring the records: percentiles from exact counts of distinct delays
/// (quality::counts), the offline bounds from each talkspurt's distinct
/// delays and their counts (playout::SpurtDelays; the Moon–Kurose–Towsley
/// optimum couples the talkspurts through the call's loss fraction, so
/// they are solved when the call ends, with no per-packet array); memory
/// grows with the distinct delays and, with the bounds, the talkspurts
/// (whose table the bounds report), not with the packets (issue 26
/// target 4; docs/models/playout.md, "Folded calls").
pub fn folds_as_it_runs(s: &Scenario, opts: &RunOptions) -> bool {
    match s.analysis.scoring {
        Scoring::Streaming => true,
        Scoring::Exact => !s.run.trace && opts.fold.unwrap_or(s.run.duration.as_nanos() >= FOLD_FROM_S * 1_000_000_000),
    }
}

/// Who writes the records while the loop runs (`RunOptions::defer_records`).
pub fn deferral(opts: &RunOptions) -> Deferral {
    match opts.defer_records {
        Some(true) => Deferral::Always,
        Some(false) => Deferral::Never,
        None if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2 => Deferral::Auto,
        None => Deferral::Never,
    }
}

/// Run a validated scenario. `progress(fraction)` returns false to abort.
pub fn run(s: &Scenario, progress: &mut dyn FnMut(f64) -> bool) -> Result<RunOutput, ScenarioError> {
    run_with(s, &RunOptions::default(), progress)
}

/// `run` with options beyond the scenario (packet capture).
pub fn run_with(s: &Scenario, opts: &RunOptions, progress: &mut dyn FnMut(f64) -> bool) -> Result<RunOutput, ScenarioError> {
    let t0 = std::time::Instant::now();
    let mut w = build(s)?;
    if !opts.capture.is_empty() {
        let key = if opts.capture_key.is_empty() { "capture" } else { &opts.capture_key };
        let taps = capture::taps(s, &opts.capture, w.calls.len() as u32, key)?;
        // A call's other flow: its RTCP, or for a trunked call (which has
        // no RTCP) the trunk it rides, so its receiver tap sees its packets.
        let rtcp: Vec<Option<u32>> =
            w.calls.iter().map(|c| if c.trunk != crate::sim::NO_TRUNK { Some(c.flow) } else { c.rtp.rtcp_flow }).collect();
        let cap = Capture::new(w.topo.channels.len(), &w.flows, |c| rtcp[c as usize], &taps);
        w.capture = Some(Box::new(cap));
    }
    let infos: Vec<CallInfo> = w
        .calls
        .iter()
        .map(|c| call_info(s, c.group as usize, c.codec, c.source.ptime(), c.start.as_secs_f64(), c.stop.as_secs_f64()))
        .collect();
    if s.analysis.scoring == Scoring::Streaming {
        // Checked here, not when parsing: `run(trace=...)` overrides the file.
        if s.run.trace {
            return Err(ScenarioError::new(
                "analysis.scoring",
                "\"streaming\"",
                "\"exact\" while the packet trace is kept: streaming stores no packets, so set [run] trace = false (or run with trace=False / --no-trace)",
            ));
        }
    }
    if folds_as_it_runs(s, opts) {
        let a = s.analysis.score();
        for (c, info) in w.calls.iter_mut().zip(&infos) {
            c.rec = CallRecord::streaming(Box::new(CallStream::new(info.clone(), &a)));
        }
    }
    let traffic_labels: Vec<String> =
        s.traffic.iter().enumerate().map(|(g, t)| group_label(&t.label, "traffic", g)).collect();
    let t1 = std::time::Instant::now();
    let stop = opts.interrupt.clone().unwrap_or_default();
    w.records.mode = deferral(opts);
    let completed = w.run(&mut |f| !stop.load(Ordering::Relaxed) && progress(f));
    let records_deferred = w.records_finish();
    let t2 = std::time::Instant::now();
    let voice_packets = w.calls.iter().map(|c| c.rec.len() as u64).sum();
    let largest = w.largest_by_group(s.calls.len().max(w.calls.iter().map(|c| c.group as usize + 1).max().unwrap_or(0)));
    let captures = w.capture.take().map_or_else(Vec::new, |c| c.files.into_iter().map(|f| (f.name, f.bytes)).collect());
    let no_stop = AtomicBool::new(false);
    let (report, completed) = if completed || opts.partial {
        // A partial run asked for is scored whatever the flag says.
        let flag = if opts.partial { &no_stop } else { &*stop };
        match report_until(&mut w, &infos, &traffic_labels, &s.analysis.score(), s.run.trace, flag) {
            Some(r) => (r, completed),
            None => (Report::default(), false),
        }
    } else {
        (Report::default(), false)
    };
    let secs = |a: std::time::Instant, b: std::time::Instant| (b - a).as_secs_f64();
    let phases = Phases { build_s: secs(t0, t1), loop_s: secs(t1, t2), report_s: secs(t2, std::time::Instant::now()) };
    Ok(RunOutput {
        report,
        events: w.q.events_processed(),
        voice_packets,
        sim_end_s: w.q.now().as_secs_f64(),
        completed,
        captures,
        phases,
        largest,
        records_deferred,
    })
}

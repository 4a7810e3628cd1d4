//! One scenario, start to finish: build the world, run it, score it, and
//! assemble the finished world into a `Report` (`report.rs`).

pub mod report;

pub use report::{report, Report};

use crate::scenario::{build, call_info, group_label, Scenario, ScenarioError};
use crate::score::CallInfo;

pub struct RunOutput {
    pub report: Report,
    /// Events the scheduler processed.
    pub events: u64,
    /// Voice packets generated.
    pub voice_packets: u64,
    /// Simulated time at which the run ended (seconds).
    pub sim_end_s: f64,
    /// False when `progress` asked to stop early.
    pub completed: bool,
}

/// Run a validated scenario. `progress(fraction)` returns false to abort.
pub fn run(s: &Scenario, progress: &mut dyn FnMut(f64) -> bool) -> Result<RunOutput, ScenarioError> {
    let mut w = build(s)?;
    let infos: Vec<CallInfo> = w
        .calls
        .iter()
        .map(|c| call_info(s, c.group as usize, c.codec, c.source.ptime(), c.start.as_secs_f64(), c.stop.as_secs_f64()))
        .collect();
    let traffic_labels: Vec<String> =
        s.traffic.iter().enumerate().map(|(g, t)| group_label(&t.label, "traffic", g)).collect();
    let completed = w.run(progress);
    let voice_packets = w.calls.iter().map(|c| c.rec.len() as u64).sum();
    Ok(RunOutput {
        report: report(&w, &infos, &traffic_labels, &s.analysis.score(), s.run.trace),
        events: w.q.events_processed(),
        voice_packets,
        sim_end_s: w.q.now().as_secs_f64(),
        completed,
    })
}

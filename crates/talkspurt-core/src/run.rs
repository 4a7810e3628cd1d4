//! One scenario, start to finish: build the world, run it, score it.

use crate::playout::PlayoutKind;
use crate::scenario::{build, group_label, Scenario, ScenarioError, TransportCfg};
use crate::time::SimDuration;
use crate::trace::calls::CallInfo;
use crate::trace::{report, Report};
use crate::voice::Codec;

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

pub fn transport_name(t: &TransportCfg) -> &'static str {
    t.name()
}

/// A call of group `g` as scoring sees it. A fixed-depth buffer without an
/// explicit ptime takes the call's own (not one inferred from the trace).
pub(crate) fn call_info(s: &Scenario, g: usize, codec: &'static Codec, ptime: SimDuration, start_s: f64, stop_s: f64) -> CallInfo {
    let grp = &s.calls[g];
    let mut playout = grp.playout.clone();
    if let PlayoutKind::FixedDepth(d) = &mut playout {
        d.ptime.get_or_insert(ptime.as_nanos());
    }
    CallInfo {
        group: group_label(&grp.label, "calls", g),
        codec,
        ptime,
        transport: transport_name(&grp.transport),
        playout,
        advantage: grp.advantage,
        start_s,
        stop_s,
    }
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
        report: report(&w, &infos, &traffic_labels, &s.analysis, s.run.trace),
        events: w.q.events_processed(),
        voice_packets,
        sim_end_s: w.q.now().as_secs_f64(),
        completed,
    })
}

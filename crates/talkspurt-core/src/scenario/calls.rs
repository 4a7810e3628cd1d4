//! The scenario's calls as scoring sees them (`score::CallInfo`): what the
//! builder (`build.rs`) is to the world, this is to the scorer.

use crate::playout::PlayoutKind;
use crate::scenario::{group_label, CallGroupCfg, Scenario, TransportCfg};
use crate::score::CallInfo;
use crate::time::SimDuration;
use crate::voice::{codec, Codec};

/// A group's transport as the calls table's `transport` column names it.
pub fn transport_name(t: &TransportCfg) -> &'static str {
    match t {
        TransportCfg::Udp { .. } => "udp",
        TransportCfg::Echo { .. } => "echo",
        TransportCfg::Tcp(_) => "tcp",
        TransportCfg::Dccp(d) if d.ccid == Some(4) => "dccp-ccid4",
        TransportCfg::Dccp(d) if d.ccid == Some(2) => "dccp-ccid2",
        TransportCfg::Dccp(_) => "dccp-ccid3",
        TransportCfg::Tfrc(_) => "tfrc",
    }
}

/// What a group's calls send: the codec, or with `bitrate` one "frame" per
/// packet of the bitrate's interval carrying its IP packet less the headers
/// (the codec keeps naming the E-model figures and payload type).
pub fn group_codec(grp: &CallGroupCfg) -> Option<Codec> {
    let c = *codec::lookup(&grp.codec)?;
    Some(match &grp.bitrate {
        Some(b) => {
            let (interval, ip) = b.resolve(grp.overhead_bytes);
            Codec { frame: interval, frame_bytes: ip.saturating_sub(grp.overhead_bytes).max(1), ..c }
        }
        None => c,
    })
}

/// A call of group `g` as scoring sees it. A fixed-depth buffer without an
/// explicit ptime takes the call's own (not one inferred from the trace).
pub(crate) fn call_info(s: &Scenario, g: usize, codec: Codec, ptime: SimDuration, start_s: f64, stop_s: f64) -> CallInfo {
    let grp = &s.calls[g];
    let mut playout = grp.playout.clone();
    if let PlayoutKind::FixedDepth(d) = &mut playout {
        d.ptime.get_or_insert(ptime.as_nanos());
    }
    CallInfo {
        group: group_label(&grp.label, "calls", g),
        codec,
        ptime,
        frame: grp.adapt.interval().unwrap_or(codec.frame),
        transport: transport_name(&grp.transport),
        playout,
        advantage: grp.advantage,
        start_s,
        stop_s,
    }
}

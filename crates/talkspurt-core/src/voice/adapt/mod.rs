//! Sender adaptation: algorithms that change the voice source's ptime, bit
//! rate or codec mode from what RTCP reports (`rtp::RtcpEvent`). One
//! algorithm per file, chosen by name; parameters default to their papers'
//! values. Each returns the `Change` to apply from the next packet on.
//! Models and readings: docs/models/rtp.md.

pub mod avoip;
pub mod busse;
pub mod mode;
pub mod patent;
pub mod tfrc_codec;

pub use avoip::{Avoip, AvoipCfg, DelaySignal};
pub use busse::{Busse1996, BusseCfg};
pub use mode::{CodecMode, ModeCfg};
pub use patent::{Patent, PatentCfg};
pub use tfrc_codec::{Gate, TfrcCodec, TfrcCodecCfg};

use crate::rtp::RtcpEvent;
use crate::time::{SimDuration, SimTime};
use crate::voice::Codec;

/// What an adaptation decided, applied from the next packet on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Change {
    /// New packetization time, ms (whole codec frames, validated).
    Ptime(u32),
    /// New payload bit rate, bit/s (the bytes per frame follow).
    Rate(u32),
    /// New mode of a multi-rate codec (same frame, its octets per frame).
    Mode(&'static Codec),
}

/// Why the sender changed: seed 004 Fig. 2's branches and §2.2's
/// no-report step for `avoip`; `Other` for adaptations that do not say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cause {
    /// The starting state.
    #[default]
    Start,
    Other,
    /// Smoothed loss above Max_Loss: the rate halved.
    Halve,
    /// Delay above the high mark: one step down.
    Decrement,
    /// Loss below Min_Loss or delay below the mark: one step up.
    Increment,
    /// No report for `no_report`: one step down.
    NoReport,
}

impl Cause {
    /// The code of the `adapt_cause` series (docs/results.md).
    pub fn code(self) -> f64 {
        match self {
            Cause::Start => 0.0,
            Cause::Other => 1.0,
            Cause::Halve => 2.0,
            Cause::Decrement => 3.0,
            Cause::Increment => 4.0,
            Cause::NoReport => 5.0,
        }
    }
}

/// The sender's state after a change: what the `calls` table's adaptation
/// columns and the `series` table are computed from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdaptPoint {
    pub t: SimTime,
    pub ptime: SimDuration,
    /// Payload bit rate of the codec (frame bytes × 8 / frame).
    pub bitrate_bps: f64,
    /// IP rate while talking: (payload per packet + overhead) × 8 / ptime.
    pub wire_bps: f64,
    /// What made the change (`Start` for the starting state).
    pub cause: Cause,
}

impl AdaptPoint {
    pub fn new(t: SimTime, ptime: SimDuration, bitrate_bps: f64, overhead: u32) -> Self {
        let p = ptime.as_secs_f64();
        let wire_bps = (bitrate_bps * p / 8.0 + overhead as f64) * 8.0 / p;
        AdaptPoint { t, ptime, bitrate_bps, wire_bps, cause: Cause::Start }
    }
}

/// What a receiver report showed a loss/delay adaptation when it acted on
/// it (seed 004 §2.2, Fig. 2's inputs and smoothed state; `avoip` only):
/// the `report_*` and `avg_delay_ms` series (docs/results.md). Logged per
/// call only with `[run] series = true` (`Call::reports`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReportView {
    /// The report's arrival at the sender.
    pub t: SimTime,
    /// The report's fraction lost (RFC 3550 §6.4.1), 0–1.
    pub loss: f64,
    /// peer_SLR after this report joined it.
    pub slr: f64,
    /// The delay sample the delay test read (s); None: the report had none.
    pub delay_s: Option<f64>,
    /// avg_delay after the update (s); None until a first delay sample.
    pub avg_delay_s: Option<f64>,
}

#[derive(Debug)]
pub enum Adapter {
    /// Fixed ptime: reports are heard and ignored (seed 001's "None").
    None,
    Patent(Patent),
    Busse1996(Busse1996),
    Avoip(Avoip),
    CodecMode(CodecMode),
    TfrcCodec(TfrcCodec),
}

impl Adapter {
    /// A report or NACK arrived at `now`; `Some` is the change to make.
    pub fn on_event(&mut self, now: SimTime, ev: &RtcpEvent) -> Option<Change> {
        match self {
            Adapter::None => None,
            Adapter::Patent(a) => a.on_event(ev).map(Change::Ptime),
            Adapter::Busse1996(a) => a.on_event(ev).map(Change::Ptime),
            Adapter::Avoip(a) => a.on_event(now, ev),
            Adapter::CodecMode(a) => a.on_event(ev).map(Change::Mode),
            Adapter::TfrcCodec(_) => None,
        }
    }

    /// What the event `on_event` just handled at `now` showed the
    /// algorithm, if it is a report a loss/delay adaptation acted on
    /// (`avoip`). Busse-1996 and codec-mode smooth the loss differently
    /// (λ, no delay), Patent reads the raw loss and tfrc-codec the
    /// transport's rate: none of them has this view.
    pub fn report_view(&self, now: SimTime, ev: &RtcpEvent) -> Option<ReportView> {
        match self {
            Adapter::Avoip(a) => a.view(now, ev),
            _ => None,
        }
    }

    /// Whether `report_view` can say anything.
    pub fn has_report_view(&self) -> bool {
        matches!(self, Adapter::Avoip(_))
    }

    /// Why the change `on_event` or `handle_timeout` just returned was
    /// made (`Other` for adaptations that do not say).
    pub fn cause(&self) -> Cause {
        match self {
            Adapter::Avoip(a) => a.last_cause,
            _ => Cause::Other,
        }
    }

    /// The transport's allowed rate changed (`AppEvent::RateChanged`,
    /// segment bit/s); only `tfrc-codec` listens.
    pub fn on_rate(&mut self, now: SimTime, bps: f64) -> Option<Change> {
        match self {
            Adapter::TfrcCodec(a) => a.on_rate(now, bps).map(Change::Mode),
            _ => None,
        }
    }

    /// Whether `gate` can say anything but `Speech { pad: 0 }`.
    pub fn gates(&self) -> bool {
        matches!(self, Adapter::TfrcCodec(_))
    }

    /// What to send for the packet of `payload` speech bytes the voice
    /// clock produced (`tfrc-codec`'s probe and padding; speech otherwise).
    pub fn gate(&mut self, now: SimTime, payload: u32, ptime: SimDuration) -> Gate {
        match self {
            Adapter::TfrcCodec(a) => a.gate(now, payload, ptime),
            _ => Gate::Speech { pad: 0 },
        }
    }

    /// The adaptation's own deadline (a report that did not come), if any.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        match self {
            Adapter::Avoip(a) => a.poll_timeout(),
            _ => None,
        }
    }

    /// The deadline from `poll_timeout` passed.
    pub fn handle_timeout(&mut self, now: SimTime) -> Option<Change> {
        match self {
            Adapter::Avoip(a) => a.handle_timeout(now),
            _ => None,
        }
    }

    /// When `tfrc-codec`'s start-up probe cleared the call.
    pub fn cleared_at(&self) -> Option<SimTime> {
        match self {
            Adapter::TfrcCodec(a) => a.cleared_at(),
            _ => None,
        }
    }

    /// How long `tfrc-codec`'s probe held speech back (None: no probe, or
    /// cleared).
    pub fn probe_time(&self) -> Option<SimDuration> {
        match self {
            Adapter::TfrcCodec(a) if a.probes() => a.probe_time(),
            _ => None,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Adapter::None => "none",
            Adapter::Patent(_) => "patent",
            Adapter::Busse1996(_) => "busse1996",
            Adapter::Avoip(_) => "avoip",
            Adapter::CodecMode(_) => "codec-mode",
            Adapter::TfrcCodec(_) => "tfrc-codec",
        }
    }
}

/// Whole octets carrying `rate_bps` for `d`, rounded up (RTP payloads are
/// octet-aligned, RFC 3551 §4.5).
pub fn rate_bytes(rate_bps: u64, d: SimDuration) -> u32 {
    (rate_bps as u128 * d.as_nanos() as u128).div_ceil(8_000_000_000) as u32
}

/// One step up, bounded (seed 001 §4.5.2: a NACK adds `step` up to the
/// codec's maximum).
fn step_up(cur: u32, step: u32, max: u32) -> u32 {
    (cur + step).min(max)
}

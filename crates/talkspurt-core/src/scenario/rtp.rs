//! The call's RTP keys: `rtcp = { … }` (reports and their schedule),
//! `feedback = { … }` (RFC 4585 AVPF, needs `rtcp`) and `adapt = { kind =
//! … }` (the sender's adaptation, needs `rtcp`). Defaults are the RFCs'
//! and the seed papers' (docs/scenario.md, docs/models/rtp.md); the
//! builder turns them into `rtp::RtcpConfig` and `voice::adapt::Adapter`.

use serde::{Deserialize, Serialize};

use super::fields;
use crate::time::SimDuration;

fn five_s() -> SimDuration {
    SimDuration::from_secs(5)
}
fn five_pct() -> f64 {
    0.05
}
fn budget() -> f64 {
    0.025
}
fn yes() -> bool {
    true
}
fn cname() -> u32 {
    16
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum IntervalKind {
    /// RFC 3550 §6.2–6.3: randomised, reconsidered.
    #[default]
    #[serde(rename = "rfc3550")]
    Rfc3550,
    /// Seed 001: exactly `min_interval` apart.
    #[serde(rename = "fixed")]
    Fixed,
}

/// The rtcp keys that shape RFC 3550's randomised interval only: an error
/// with `interval = "fixed"` (validate/call.rs), and not written back there.
pub const RFC3550_ONLY: [&str; 3] = ["reduced_min", "reconsideration", "fraction"];

/// `rtcp = { interval = "rfc3550" }`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    into = "RtcpOut",
    expecting = "an rtcp table, e.g. { interval = \"rfc3550\" } or { interval = \"fixed\" }"
)]
pub struct RtcpCfg {
    /// `rfc3550` (default) or `fixed` (seed 001's constant 5 s).
    #[serde(default)]
    pub interval: IntervalKind,
    /// Tmin of RFC 3550 §6.2 (default 5 s), or the fixed period.
    #[serde(default = "five_s", deserialize_with = "fields::positive")]
    pub min_interval: SimDuration,
    /// Use §6.2's reduced minimum 360 s / (session kb/s) instead of Tmin.
    #[serde(default)]
    pub reduced_min: bool,
    /// Timer reconsideration (§6.3.6), default true.
    #[serde(default = "yes")]
    pub reconsideration: bool,
    /// RTCP's share of the session bandwidth (§6.2: 5 %).
    #[serde(default = "five_pct", deserialize_with = "fields::open_fraction")]
    pub fraction: f64,
    /// Session bandwidth, bit/s (default: the call's codec at its ptime
    /// with `overhead`).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "fields::rate_opt")]
    pub session_bw: Option<u64>,
    /// CNAME length in bytes (default 16, e.g. "voice@192.0.2.10").
    #[serde(default = "cname", with = "fields::Int::<1, 255>")]
    pub cname: u32,
    /// RTCP XR block on the receiver's reports (RFC 3611): none (default)
    /// or `voip-metrics` (§4.7).
    #[serde(default, skip_serializing_if = "XrBlock::is_none")]
    pub xr: XrBlock,
}

/// `RtcpCfg` as written back: a fixed schedule without the keys it does
/// not read (`RFC3550_ONLY`), so the scenario as run validates again.
#[derive(Serialize)]
struct RtcpOut {
    interval: IntervalKind,
    min_interval: SimDuration,
    #[serde(skip_serializing_if = "Option::is_none")]
    reduced_min: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reconsideration: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fraction: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", with = "fields::rate_opt")]
    session_bw: Option<u64>,
    #[serde(with = "fields::Int::<1, 255>")]
    cname: u32,
    #[serde(skip_serializing_if = "XrBlock::is_none")]
    xr: XrBlock,
}

impl From<RtcpCfg> for RtcpOut {
    fn from(r: RtcpCfg) -> Self {
        let random = r.interval == IntervalKind::Rfc3550;
        RtcpOut {
            interval: r.interval,
            min_interval: r.min_interval,
            reduced_min: random.then_some(r.reduced_min),
            reconsideration: random.then_some(r.reconsideration),
            fraction: random.then_some(r.fraction),
            session_bw: r.session_bw,
            cname: r.cname,
            xr: r.xr,
        }
    }
}

/// `rtcp.xr`: which RTCP XR report block (RFC 3611) the receiver adds to
/// its regular reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum XrBlock {
    #[default]
    #[serde(rename = "none")]
    None,
    /// VoIP Metrics (§4.7): loss, burst/gap densities and durations.
    #[serde(rename = "voip-metrics")]
    VoipMetrics,
}

impl XrBlock {
    fn is_none(&self) -> bool {
        *self == XrBlock::None
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum FbModeName {
    #[default]
    #[serde(rename = "immediate")]
    Immediate,
    #[serde(rename = "early")]
    Early,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum FbLimitName {
    /// Seed 001's NACK budget.
    #[default]
    #[serde(rename = "budget")]
    Budget,
    /// RFC 4585 §3.5.2's allow_early rule alone.
    #[serde(rename = "rfc4585")]
    Rfc4585,
}

/// `feedback = { mode = "immediate" }`: RFC 4585 Generic NACKs.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a feedback table, e.g. { mode = \"immediate\", limit = \"budget\" }")]
pub struct FeedbackCfg {
    #[serde(default)]
    pub mode: FbModeName,
    /// T_rr_interval (RFC 4585 §3.5.3), default 0.
    #[serde(default)]
    pub t_rr_interval: SimDuration,
    #[serde(default)]
    pub limit: FbLimitName,
    /// Share of the session bandwidth for NACK events (seed 001: 2.5 %).
    #[serde(default = "budget", deserialize_with = "fields::open_fraction")]
    pub budget: f64,
}

/// `adapt = { kind = "patent" }`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename = "@kind default=none", deny_unknown_fields, expecting = "an adapt table, e.g. { kind = \"patent\" }")]
pub enum AdaptCfg {
    #[default]
    #[serde(rename = "none")]
    None,
    /// Seed 001 Table 3 (G.711 and G.729 tables by default).
    #[serde(rename = "patent")]
    Patent {
        /// Loss bounds in percent, ascending (Table 3: G.711 [2]; G.729
        /// [2, 4, 6, 8, 10]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thresholds: Option<Vec<f64>>,
        /// Target ptimes, one more than `thresholds`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ptimes: Option<Vec<SimDuration>>,
    },
    /// Busse et al. 1996 via seed 001.
    #[serde(rename = "busse1996")]
    Busse1996 {
        #[serde(default = "alpha", deserialize_with = "fields::open_fraction")]
        alpha: f64,
        /// λ_u and λ_c in percent (2 and 4).
        #[serde(default = "lambda_u", deserialize_with = "fields::non_negative")]
        lambda_u: f64,
        #[serde(default = "lambda_c", deserialize_with = "fields::non_negative")]
        lambda_c: f64,
        /// ptime range (default 10 ms to the codec's seed 001 maximum:
        /// 30 ms for G.711, 80 ms otherwise).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_ptime: Option<SimDuration>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_ptime: Option<SimDuration>,
    },
    /// Seed 004 Fig. 2: AIMD bit rate from smoothed loss and delay; packets
    /// every `interval`, their size following the rate. The call's `ptime`
    /// is not used (it is an error to give one).
    #[serde(rename = "avoip")]
    Avoip {
        #[serde(default = "avoip_interval", deserialize_with = "fields::positive")]
        interval: SimDuration,
        #[serde(default = "kbps8", with = "fields::rate")]
        min_rate: u64,
        #[serde(default = "kbps64", with = "fields::rate")]
        max_rate: u64,
        #[serde(default = "kbps8", with = "fields::rate")]
        step: u64,
        /// Starting rate (default: `min_rate`).
        #[serde(default, skip_serializing_if = "Option::is_none", with = "fields::rate_opt")]
        start_rate: Option<u64>,
        #[serde(default = "one_s", deserialize_with = "fields::positive")]
        dec_int: SimDuration,
        #[serde(default = "three_s", deserialize_with = "fields::positive")]
        inc_int: SimDuration,
        /// Max_Loss and Min_Loss in percent (3 and 7).
        #[serde(default = "max_loss", deserialize_with = "fields::non_negative")]
        max_loss: f64,
        #[serde(default = "min_loss", deserialize_with = "fields::non_negative")]
        min_loss: f64,
        #[serde(default = "latency_thresh", deserialize_with = "fields::non_negative")]
        latency_thresh: f64,
        /// Weight of the previous average (0.2).
        #[serde(default = "avoip_alpha", deserialize_with = "fields::open_fraction")]
        alpha: f64,
        /// Step down after this long without a report (5 s).
        #[serde(default = "five_s", deserialize_with = "fields::positive")]
        no_report: SimDuration,
        /// The delay the algorithm compares: `one-way` (default, the
        /// paper's peer_delay: the mean one-way delay the receiver
        /// measured since its previous report, relayed in the report) or
        /// `rtt` (RFC 3550 §6.4.1's round trip from LSR/DLSR).
        #[serde(default)]
        delay: AvoipDelay,
    },
    /// A multi-rate codec (AMR-NB, Speex-NB) switches mode on reported
    /// loss: busse1996's rule on the mode ladder (docs/models/rtp.md).
    #[serde(rename = "codec-mode")]
    CodecMode {
        /// The allowed modes, codec names of the call's family (default:
        /// all of them).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        modes: Option<Vec<String>>,
        #[serde(default = "alpha", deserialize_with = "fields::open_fraction")]
        alpha: f64,
        /// Up below λ_u, down above λ_c, in percent (2 and 4).
        #[serde(default = "lambda_u", deserialize_with = "fields::non_negative")]
        lambda_u: f64,
        #[serde(default = "lambda_c", deserialize_with = "fields::non_negative")]
        lambda_c: f64,
    },
    /// Seed 000 §3.1/§3.6 over DCCP CCID 3/4 or TFRC: the highest mode not
    /// above the transport's allowed rate; optional padding up to it and
    /// start-up probe (docs/models/rtp.md). Needs no RTCP.
    #[serde(rename = "tfrc-codec")]
    TfrcCodec {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        modes: Option<Vec<String>>,
        /// Pad packets up to the allowed rate (default false).
        #[serde(default)]
        pad: bool,
        /// Start-up probe limit (default: no probe).
        #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "fields::positive_opt")]
        probe: Option<SimDuration>,
    },
}

/// `adapt.delay` of `avoip`: which delay signal drives Fig. 2's delay test.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum AvoipDelay {
    /// Seed 004 §2.1–2.2: the one-way delay measured at the receiver
    /// (clocks aligned) and relayed in its reports.
    #[default]
    #[serde(rename = "one-way")]
    OneWay,
    /// The RTCP round-trip time (A − LSR − DLSR).
    #[serde(rename = "rtt")]
    Rtt,
}

fn avoip_interval() -> SimDuration {
    SimDuration::from_millis(125)
}
fn kbps8() -> u64 {
    8_000
}
fn kbps64() -> u64 {
    64_000
}
fn one_s() -> SimDuration {
    SimDuration::from_secs(1)
}
fn three_s() -> SimDuration {
    SimDuration::from_secs(3)
}
fn max_loss() -> f64 {
    3.0
}
fn min_loss() -> f64 {
    7.0
}
fn latency_thresh() -> f64 {
    0.1
}
fn avoip_alpha() -> f64 {
    0.2
}

fn alpha() -> f64 {
    0.3
}
fn lambda_u() -> f64 {
    2.0
}
fn lambda_c() -> f64 {
    4.0
}

impl AdaptCfg {
    pub fn name(&self) -> &'static str {
        match self {
            AdaptCfg::None => "none",
            AdaptCfg::Patent { .. } => "patent",
            AdaptCfg::Busse1996 { .. } => "busse1996",
            AdaptCfg::Avoip { .. } => "avoip",
            AdaptCfg::CodecMode { .. } => "codec-mode",
            AdaptCfg::TfrcCodec { .. } => "tfrc-codec",
        }
    }

    /// The packet interval of a sender whose bit rate adapts (`avoip`),
    /// which replaces the call's ptime; None for the others.
    pub fn interval(&self) -> Option<SimDuration> {
        match self {
            AdaptCfg::Avoip { interval, .. } => Some(*interval),
            _ => None,
        }
    }

    /// Whether the receiver's reports must carry the one-way delay (an
    /// `avoip` sender reading it).
    pub fn wants_owd(&self) -> bool {
        matches!(self, AdaptCfg::Avoip { delay: AvoipDelay::OneWay, .. })
    }

    /// The starting bit rate of a bit-rate adaptation.
    pub fn start_rate(&self) -> Option<u64> {
        match self {
            AdaptCfg::Avoip { start_rate, min_rate, .. } => Some(start_rate.unwrap_or(*min_rate)),
            _ => None,
        }
    }
}

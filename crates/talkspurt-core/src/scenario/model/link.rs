//! Links as the scenario states them: each direction's rate, delay, queue,
//! loss, jitter and schedule (read through doc::LinkDoc, checked by
//! links.rs and validate/).

use serde::{Deserialize, Serialize};

use super::defaults;
use crate::scenario::fields;
use crate::time::SimDuration;
use super::QueueLimit;

/// A bidirectional link between two nodes; `forward` is `between[0] ->
/// between[1]`. Keys given at the link level apply to both directions;
/// `forward = {…}` / `reverse = {…}` override per direction (doc::LinkDoc).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkCfg {
    pub a: String,
    pub b: String,
    pub forward: ChannelCfg,
    pub reverse: ChannelCfg,
    /// Routing cost (default 1 = hop count, as ns-2's static routing).
    pub cost: u32,
}

/// One direction of a link.
#[derive(Clone, Debug, PartialEq)]
pub struct ChannelCfg {
    /// Bits per second, > 0. Required.
    pub rate_bps: u64,
    /// One-way propagation delay (default 0).
    pub delay: SimDuration,
    pub queue: QueueCfg,
    pub loss: LossCfg,
    /// Extra per-packet delay (default none).
    pub jitter: JitterCfg,
    /// Rate and delay changing over time (default none: constant).
    pub schedule: Option<ScheduleCfg>,
    /// Other users' load sharing the queue (default none).
    pub background: BackgroundCfg,
}

/// Background load sharing a link direction's drop-tail queue
/// (net::background; closed forms and the satellite-ipstar calibration in
/// docs/models/network.md). No default figures: every parameter is given,
/// or comes from a profile that states its source.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(
    rename = "@kind",
    deny_unknown_fields,
    expecting = "a background table, e.g. { kind = \"onoff\", rate = \"1.1Mbps\", packet = \"1500B\", on = \"1.5s\", off = \"80s\" }"
)]
pub enum BackgroundCfg {
    #[default]
    #[serde(rename = "none")]
    None,
    /// Interrupted Poisson process: exponential ON (mean `on`) and OFF
    /// (mean `off`) periods; while ON, Poisson arrivals of `packet`-byte
    /// packets at `rate`. Mean load rate·on/(on + off).
    #[serde(rename = "onoff")]
    OnOff {
        #[serde(with = "fields::rate")]
        rate: u64,
        #[serde(with = "fields::Bytes::<1, 65535>")]
        packet: u32,
        #[serde(deserialize_with = "fields::positive")]
        on: SimDuration,
        #[serde(deserialize_with = "fields::positive")]
        off: SimDuration,
    },
}

/// Extra per-packet delay after propagation (net::jitter; equations and
/// sources in docs/models/network.md).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(
    rename = "@kind",
    deny_unknown_fields,
    expecting = "a jitter table, e.g. { kind = \"uniform\", max = \"40ms\" }"
)]
pub enum JitterCfg {
    #[default]
    #[serde(rename = "none")]
    None,
    /// Uniform on [min, max] (default min 0). RFC 8868's bounded PDV.
    #[serde(rename = "uniform")]
    Uniform {
        #[serde(default)]
        min: SimDuration,
        max: SimDuration,
        /// Let packets overtake each other (RBPDV); default false (NR-BPDV).
        #[serde(default)]
        reorder: bool,
    },
    /// Normal(mean, sd) truncated to [min, max] (defaults mean ∓ 3 sd,
    /// min at least 0).
    #[serde(rename = "normal")]
    Normal {
        mean: SimDuration,
        #[serde(deserialize_with = "fields::positive")]
        sd: SimDuration,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<SimDuration>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<SimDuration>,
        #[serde(default)]
        reorder: bool,
    },
    /// Bursty delivery (seed 003's satellite link): the far end releases
    /// packets at epochs with exponential gaps of mean `interval`, one
    /// `stall` long gap per `stall_every` on average (none if absent).
    #[serde(rename = "bursty")]
    Bursty {
        #[serde(deserialize_with = "fields::positive")]
        interval: SimDuration,
        #[serde(default = "defaults::stall", deserialize_with = "fields::positive")]
        stall: SimDuration,
        #[serde(default, deserialize_with = "fields::positive_opt", skip_serializing_if = "Option::is_none")]
        stall_every: Option<SimDuration>,
    },
}

/// A link direction's rate and delay over time: `steps` written in the
/// scenario, or a trace `file` (`format = "mahimahi"`, the default, or
/// `"steps"`); with `repeat`, the schedule starts over every `repeat`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a schedule table, e.g. { steps = [{ at = \"40s\", rate = \"2.5Mbps\" }] }")]
pub struct ScheduleCfg {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepCfg>,
    #[serde(default, deserialize_with = "fields::positive_opt", skip_serializing_if = "Option::is_none")]
    pub repeat: Option<SimDuration>,
    #[serde(default, deserialize_with = "fields::file_opt", skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default)]
    pub format: ScheduleFormat,
    /// A file's contents, read by validation.
    #[serde(skip)]
    pub data: std::sync::Arc<ScheduleData>,
}

/// From `at` on, the rate and/or the delay change.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a step table, e.g. { at = \"40s\", rate = \"2.5Mbps\" }")]
pub struct StepCfg {
    pub at: SimDuration,
    /// From `at` on; 0 is an outage (a positive rate must follow).
    #[serde(default, with = "fields::step_rate_opt", skip_serializing_if = "Option::is_none")]
    pub rate: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<SimDuration>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum ScheduleFormat {
    /// One delivery opportunity (1504 B) per line, in ms; loops.
    #[default]
    #[serde(rename = "mahimahi")]
    Mahimahi,
    /// `<at> [<rate>] [<delay>]` per line, with units.
    #[serde(rename = "steps")]
    Steps,
}

/// A schedule file as read.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum ScheduleData {
    #[default]
    None,
    /// Opportunity times (ns) and the loop period (ns).
    Mahimahi(Vec<u64>, u64),
    Steps(Vec<StepCfg>),
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    rename = "@kind default=droptail",
    deny_unknown_fields,
    expecting = "a queue table, e.g. { kind = \"droptail\", limit = \"50p\" } or { kind = \"red\" }"
)]
pub enum QueueCfg {
    /// FIFO with tail drop. The limit counts packets (or bytes) waiting,
    /// excluding the one being serialized, as in ns-2's DropTail.
    /// Default: 50 packets (seed 000's router buffer).
    #[serde(rename = "droptail")]
    DropTail {
        #[serde(default = "defaults::queue_limit")]
        limit: QueueLimit,
        /// Record the queue's length and sojourn series (default false).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        series: bool,
    },
    /// RED (Floyd–Jacobson 1993, gentle, ns-2.35 defaults); keys in queue.rs.
    #[serde(rename = "red")]
    Red(crate::scenario::queue::RedCfg),
    /// CoDel (RFC 8289).
    #[serde(rename = "codel")]
    CoDel(crate::scenario::queue::CoDelCfg),
    /// FQ-CoDel (RFC 8290).
    #[serde(rename = "fq_codel")]
    FqCoDel(crate::scenario::queue::FqCoDelCfg),
    /// PIE (RFC 8033).
    #[serde(rename = "pie")]
    Pie(crate::scenario::queue::PieCfg),
}

impl Default for QueueCfg {
    fn default() -> Self {
        QueueCfg::DropTail { limit: defaults::queue_limit(), series: false }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(
    rename = "@kind",
    deny_unknown_fields,
    expecting = "a loss table, e.g. { kind = \"bernoulli\", p = 0.01 }"
)]
pub enum LossCfg {
    #[default]
    #[serde(rename = "none")]
    None,
    /// Independent loss with probability `p` per packet (ns-2's Bernoulli
    /// error model, dummynet's `plr`).
    #[serde(rename = "bernoulli")]
    Bernoulli {
        #[serde(deserialize_with = "fields::probability")]
        p: f64,
        #[serde(default)]
        at: LossAt,
    },
    /// Independent bit errors: a packet of b bits is lost with probability
    /// 1 − (1 − ber)^b (ns-2's error model with unit "bit").
    #[serde(rename = "ber")]
    Ber {
        #[serde(deserialize_with = "fields::probability")]
        ber: f64,
        #[serde(default)]
        at: LossAt,
    },
    /// Gilbert–Elliott two-state loss (net::loss::GilbertElliott). Either
    /// `p` (Good → Bad) and `r` (Bad → Good) per packet, with loss
    /// probabilities `loss_good` (default 0) and `loss_bad` (default 1); or
    /// Gilbert's simple model from `mean_loss` and `mean_burst` (packets):
    /// r = 1/mean_burst, p = mean_loss·r/(1 − mean_loss).
    #[serde(rename = "gilbert-elliott")]
    GilbertElliott {
        #[serde(default, deserialize_with = "some_unit", skip_serializing_if = "Option::is_none")]
        p: Option<f64>,
        #[serde(default, deserialize_with = "some_unit", skip_serializing_if = "Option::is_none")]
        r: Option<f64>,
        #[serde(default, deserialize_with = "fields::unit_interval")]
        loss_good: f64,
        #[serde(default = "one", deserialize_with = "fields::unit_interval")]
        loss_bad: f64,
        #[serde(default, deserialize_with = "some_probability", skip_serializing_if = "Option::is_none")]
        mean_loss: Option<f64>,
        #[serde(default, deserialize_with = "some_burst", skip_serializing_if = "Option::is_none")]
        mean_burst: Option<f64>,
        #[serde(default)]
        at: LossAt,
    },
    /// A k-state Markov chain: `transition[i][j]` from state i to j (rows
    /// sum to 1), `loss[i]` the loss probability in state i; starts in
    /// state 0.
    #[serde(rename = "markov")]
    Markov {
        transition: Vec<Vec<f64>>,
        loss: Vec<f64>,
        #[serde(default)]
        at: LossAt,
    },
    /// Replay of a loss trace file (net::loss::LossTrace): `format =
    /// "packets"` (default; a 0/1 per packet, cycled) or `"times"` (loss
    /// instants and periods). Read and checked when the scenario is.
    #[serde(rename = "trace")]
    Trace {
        #[serde(deserialize_with = "fields::file")]
        file: String,
        #[serde(default)]
        format: TraceFormatCfg,
        #[serde(default)]
        at: LossAt,
        /// The file's contents, read by validation.
        #[serde(skip)]
        data: std::sync::Arc<crate::net::loss::LossTrace>,
    },
}

impl LossCfg {
    /// Where the loss applies (`at`); `Wire` for `none`.
    pub fn at(&self) -> LossAt {
        match self {
            LossCfg::None => LossAt::Wire,
            LossCfg::Bernoulli { at, .. }
            | LossCfg::Ber { at, .. }
            | LossCfg::GilbertElliott { at, .. }
            | LossCfg::Markov { at, .. }
            | LossCfg::Trace { at, .. } => *at,
        }
    }
}

fn one() -> f64 {
    1.0
}
fn some_unit<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    fields::unit_interval(d).map(Some)
}
fn some_probability<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    fields::probability(d).map(Some)
}
fn some_burst<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    fields::burst_length(d).map(Some)
}

/// Where a link direction applies its loss model: `"wire"` (default: as
/// the packet leaves the wire, after using the link) or `"enqueue"` (on
/// arrival, before the queue, as ns-2's `lossmodel`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum LossAt {
    #[serde(rename = "enqueue")]
    Enqueue,
    #[default]
    #[serde(rename = "wire")]
    Wire,
}

/// A loss trace file's format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum TraceFormatCfg {
    #[default]
    #[serde(rename = "packets")]
    Packets,
    #[serde(rename = "times")]
    Times,
}

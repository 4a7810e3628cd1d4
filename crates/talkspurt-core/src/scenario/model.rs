//! The typed scenario: what a validated scenario file means. Most types
//! derive their parsing (serde, read by de.rs with key-path errors); tables
//! whose file shape differs from their meaning (links, speech, traffic, the
//! TCP table) are read as the document types of doc.rs and tcp.rs and
//! converted by validate.rs, which also runs every cross-field check. The
//! builder (`scenario::build`) turns a `Scenario` into a `World`. Every
//! default is documented here (`defaults`) and in docs/scenario.md.

use serde::{Deserialize, Serialize};

use super::doc::{DelayDef, MissingDef, PlayoutDef, ScoringDef, SpeechDoc};
use super::fields::{self, Bytes, Int, Packets};
use crate::time::SimDuration;

pub use crate::metrics::rtpi::MissingPredecessor;
pub use crate::score::{DelayModel, Scoring};
pub use crate::net::queue::QueueLimit;
/// A playout buffer and its parameters, as the playout module defines them
/// (`playout::PlayoutKind`; names, constants and sources there and in
/// docs/models/playout.md). Default: `fixed` with 150 ms.
pub use crate::playout::PlayoutKind as PlayoutCfg;
pub use crate::rng::DurationDist;
pub use crate::traffic::SizeDist;
pub use crate::transport::tcp::TcpConfig;

#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub run: RunCfg,
    pub links: Vec<LinkCfg>,
    pub calls: Vec<CallGroupCfg>,
    pub traffic: Vec<TrafficCfg>,
    pub analysis: AnalysisCfg,
}

/// A group's name in results: its `label`, else `"{kind}[{index}]"`
/// (`kind` is `calls` or `traffic`).
pub fn group_label(label: &Option<String>, kind: &str, index: usize) -> String {
    label.clone().unwrap_or_else(|| format!("{kind}[{index}]"))
}

/// Defaults of keys that are not whole tables with a `Default`.
pub mod defaults {
    use super::*;

    pub fn seed() -> u64 {
        1
    }
    /// The network drains 10 s after sources stop.
    pub fn drain() -> SimDuration {
        SimDuration::from_secs(10)
    }
    pub fn yes() -> bool {
        true
    }
    /// Groups have one call or source.
    pub fn count() -> u32 {
        1
    }
    /// Routing cost 1 = hop count (ns-2's static routing).
    pub fn cost() -> u32 {
        1
    }
    /// IP+UDP+RTP headers (seed 001 Table 1).
    pub fn overhead() -> u32 {
        40
    }
    /// Seed 000's 5-packet buffer between codec and transport.
    pub fn send_buffer() -> u32 {
        5
    }
    pub fn ack() -> u32 {
        40
    }
    /// A bursty link's stall length: seed 003's ≈ 0.9 s receiver jitter peaks.
    pub fn stall() -> SimDuration {
        SimDuration::from_millis(900)
    }
    /// Seed 000's router buffer.
    pub fn queue_limit() -> QueueLimit {
        QueueLimit::Packets(50)
    }
    /// Sriram–Whitt on/off speech, talk 1 s, silence 1.5 s (seed 000).
    pub const TALK: SimDuration = SimDuration(1_000_000_000);
    pub const SILENCE: SimDuration = SimDuration(1_500_000_000);
    pub fn speech() -> SpeechCfg {
        SpeechCfg::OnOff {
            talk: DurationDist::Exponential { mean: TALK },
            silence: DurationDist::Exponential { mean: SILENCE },
        }
    }
    /// Traffic on/off periods: 2 s each (seed 004).
    pub const ON_OFF: SimDuration = SimDuration(2_000_000_000);
    pub fn transport() -> TransportCfg {
        TransportCfg::Udp { send_buffer: send_buffer() }
    }
    pub fn playout() -> PlayoutCfg {
        PlayoutCfg::Fixed(crate::playout::FixedDelay::default())
    }
}

/// How calls are scored (`[analysis]`); applies to every call of the run.
/// Docs: docs/scenario.md, docs/models/metrics.md.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields, expecting = "an [analysis] table, e.g. rtpi_threshold = \"300ms\"")]
pub struct AnalysisCfg {
    /// Seed 002 Algorithm 1 inter-arrival threshold for the Real-Time
    /// Performance Index and Delayed Packets Rate. Default 300 ms (the
    /// seed's value); must be > 0.
    #[serde(deserialize_with = "fields::positive")]
    pub rtpi_threshold: SimDuration,
    /// What Algorithm 1 does when a packet's predecessor has not arrived
    /// before it. Default `timely` (see metrics::rtpi).
    #[serde(with = "MissingDef")]
    pub rtpi_missing: MissingPredecessor,
    /// Running window, in packets, of the per-packet windowed impairments
    /// in the packets table (seed 000 Fig. 5.7: 100). ≥ 1.
    #[serde(with = "fields::PacketInt::<1, 1000000>")]
    pub window: u32,
    /// Compute the offline bounds per call: Moon–Kurose–Towsley per
    /// talkspurt (reduced and full E-model) and the best fixed delay
    /// (Tao–Guérin). Default true.
    pub bounds: bool,
    /// Seed 003 §7.2's P_J: the fraction of jitter samples (difference of
    /// successive inter-packet gaps at the receiver) above this "buffer
    /// value". Default 400 ms, the seed's buffer. > 0.
    #[serde(deserialize_with = "fields::positive")]
    pub jitter_threshold: SimDuration,
    /// Back-to-back run histograms fold runs of `run_cap` packets or more
    /// into the last bin (seed 004's figures: 200). ≥ 1.
    #[serde(with = "Int::<1, 100000>")]
    pub run_cap: u32,
    /// Goodput measurement interval [start, end) of the traffic table
    /// (seed 002 measures goodput over a window of the run). Default
    /// (`None`): the whole run. start < end ≤ `[run] duration`.
    #[serde(with = "fields::interval", skip_serializing_if = "Option::is_none")]
    pub interval: Option<(SimDuration, SimDuration)>,
    /// The E-model's mouth-to-ear delay: `playout` (the call's buffer,
    /// default) or `avella` (seed 001 §3's D = T_f + l + T_n + 2·T_f).
    #[serde(with = "DelayDef")]
    pub delay: DelayModel,
    /// `exact` (default) or `streaming`: per-call accumulators fed as
    /// packets settle, in memory that does not grow with the call
    /// (score::stream; approximate and absent columns in docs/results.md).
    /// Needs `[run] trace = false`.
    #[serde(with = "ScoringDef", skip_serializing_if = "is_exact")]
    pub scoring: Scoring,
}

fn is_exact(s: &Scoring) -> bool {
    *s == Scoring::Exact
}

impl AnalysisCfg {
    /// The scoring configuration the `score` layer takes (it sits below
    /// `scenario`, so it has its own type without the document's parsing).
    pub fn score(&self) -> crate::score::AnalysisCfg {
        crate::score::AnalysisCfg {
            rtpi_threshold: self.rtpi_threshold,
            rtpi_missing: self.rtpi_missing,
            window: self.window,
            bounds: self.bounds,
            jitter_threshold: self.jitter_threshold,
            run_cap: self.run_cap,
            interval: self.interval,
            delay: self.delay,
            scoring: self.scoring,
        }
    }
}

/// The defaults are the scorer's (`score::AnalysisCfg`, one place).
impl Default for AnalysisCfg {
    fn default() -> Self {
        let d = crate::score::AnalysisCfg::default();
        AnalysisCfg {
            rtpi_threshold: d.rtpi_threshold,
            rtpi_missing: d.rtpi_missing,
            window: d.window,
            bounds: d.bounds,
            jitter_threshold: d.jitter_threshold,
            run_cap: d.run_cap,
            interval: d.interval,
            delay: d.delay,
            scoring: d.scoring,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a [run] table, e.g. duration = \"60s\"")]
pub struct RunCfg {
    /// Simulated time during which sources generate traffic. Required, > 0.
    #[serde(deserialize_with = "fields::run_duration")]
    pub duration: SimDuration,
    /// Master seed. Default 1. Each component's stream derives from
    /// `(seed, run, component)`.
    #[serde(default = "defaults::seed", with = "fields::NonNegative")]
    pub seed: u64,
    /// Replication index within a sweep (default 0); part of every stream id.
    #[serde(default, with = "fields::NonNegative")]
    pub run_index: u64,
    /// After `duration`, sources stop and the network drains for at most
    /// this long (default 10 s); packets still unresolved get fate `in_flight`.
    #[serde(default = "defaults::drain")]
    pub drain: SimDuration,
    /// Keep the per-packet trace for export (default true). Call summaries
    /// are computed either way.
    #[serde(default = "defaults::yes")]
    pub trace: bool,
    /// Record per-endpoint time series (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub series: bool,
    /// Optional human label.
    #[serde(default, deserialize_with = "fields::label", skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

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
    Red(super::queue::RedCfg),
    /// CoDel (RFC 8289).
    #[serde(rename = "codel")]
    CoDel(super::queue::CoDelCfg),
    /// FQ-CoDel (RFC 8290).
    #[serde(rename = "fq_codel")]
    FqCoDel(super::queue::FqCoDelCfg),
    /// PIE (RFC 8033).
    #[serde(rename = "pie")]
    Pie(super::queue::PieCfg),
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

/// `count` identical one-way voice calls from `from` to `to`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a [[calls]] table, e.g. from = \"a\", to = \"b\", codec = \"G.711\""
)]
pub struct CallGroupCfg {
    /// Number of calls (default 1).
    #[serde(default = "defaults::count", with = "Int::<1, 100000>")]
    pub count: u32,
    #[serde(deserialize_with = "fields::node")]
    pub from: String,
    #[serde(deserialize_with = "fields::node")]
    pub to: String,
    /// Codec name from the codec table (`voice::codec`). Required.
    #[serde(deserialize_with = "fields::codec")]
    pub codec: String,
    /// Packetization time: a multiple of the codec frame, 10–80 ms inclusive
    /// where the frame allows (default: 20 ms, or the frame if longer;
    /// always `Some` once validated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptime: Option<SimDuration>,
    /// Voice at any bit rate (seed 004's CBR sources): instead of the
    /// codec's frames, one packet per `interval`, `rate` counting whole IP
    /// packets as ns-2's CBR does. `codec` still names the E-model figures
    /// and RTP payload type. Validation sets `ptime` to the interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bitrate: Option<BitrateCfg>,
    /// IP+UDP+RTP header bytes per packet (default 40, seed 001 Table 1).
    #[serde(rename = "overhead", default = "defaults::overhead", with = "Bytes::<0, 65535>")]
    pub overhead_bytes: u32,
    #[serde(default = "defaults::speech")]
    pub speech: SpeechCfg,
    /// Silence suppression: no packets during silence (default true; it only
    /// matters for on/off speech).
    #[serde(default = "defaults::yes")]
    pub vad: bool,
    #[serde(default = "defaults::transport")]
    pub transport: TransportCfg,
    #[serde(default = "defaults::playout", with = "PlayoutDef")]
    pub playout: PlayoutCfg,
    /// RTCP reports (RFC 3550) on the reverse path (default: none; every
    /// call still carries RTP headers). Keys: scenario/rtp.rs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtcp: Option<super::rtp::RtcpCfg>,
    /// RTCP feedback (RFC 4585 AVPF Generic NACKs); needs `rtcp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<super::rtp::FeedbackCfg>,
    /// Sender adaptation driven by RTCP (default none); needs `rtcp`.
    #[serde(default)]
    pub adapt: super::rtp::AdaptCfg,
    /// E-model advantage factor A (ITU-T G.107 §7.6; Table 3 allows 0–20,
    /// e.g. 10 for cellular, 20 for satellite hops). Default 0. Values up
    /// to 40 are accepted (seed 003) and flagged as extrapolated.
    #[serde(default, deserialize_with = "fields::advantage")]
    pub advantage: f64,
    #[serde(default)]
    pub start: StartCfg,
    /// Call i of the group starts `i * stagger` after its start (default 0).
    #[serde(default)]
    pub stagger: SimDuration,
    /// Call length (default: until the end of the run).
    #[serde(default, deserialize_with = "fields::positive_opt", skip_serializing_if = "Option::is_none")]
    pub length: Option<SimDuration>,
    /// Label for the group in results (default "calls[i]").
    #[serde(default, deserialize_with = "fields::label", skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// `bitrate = { rate = "32kbps", packet = "512B" }` (fixed IP packet
/// size, interval = packet·8/rate) or `{ rate = "8kbps", interval =
/// "125ms" }` (fixed interval, IP packet = rate·interval/8). One of
/// `packet` and `interval`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a bitrate table, e.g. { rate = \"32kbps\", packet = \"512B\" }")]
pub struct BitrateCfg {
    #[serde(with = "fields::rate")]
    pub rate: u64,
    #[serde(default, with = "fields::packet_size_opt", skip_serializing_if = "Option::is_none")]
    pub packet: Option<u32>,
    #[serde(default, deserialize_with = "fields::positive_opt", skip_serializing_if = "Option::is_none")]
    pub interval: Option<SimDuration>,
    /// ns-2's CBR `random_`: each gap is the interval × (½ + U[0, 1)).
    /// Default false (exactly periodic).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub random: bool,
}

impl BitrateCfg {
    /// (interval, IP packet bytes) once validated. With `packet` the
    /// interval is packet·8/rate rounded to the nanosecond (24 kb/s, 512 B:
    /// 170 666 667 ns, a rate error of 2·10⁻⁹).
    pub fn resolve(&self) -> (SimDuration, u32) {
        match (self.packet, self.interval) {
            (Some(b), _) => (SimDuration::transmission(b, self.rate), b),
            (None, Some(t)) => {
                let bits = self.rate as u128 * t.as_nanos() as u128 / 1_000_000_000;
                (t, ((bits + 4) / 8) as u32)
            }
            (None, None) => unreachable!("validated: packet or interval"),
        }
    }
}

/// Read and written as doc::SpeechDoc (`model = "…"` with talk/silence means).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(from = "SpeechDoc", into = "SpeechDoc")]
pub enum SpeechCfg {
    /// Always talking: one talkspurt for the whole call.
    Continuous,
    /// Alternating talkspurts and silences with independent durations
    /// (Sriram–Whitt exponential model: talk 1 s, silence 1.5 s, seed 000).
    OnOff { talk: DurationDist, silence: DurationDist },
    /// Talkspurts at given times (`model = "schedule"`), e.g. a VAD's
    /// decisions on real speech (seed 000 §4.1; `model = "vad"` is resolved
    /// into this by the Python package, which holds the VAD).
    Schedule(SpurtsCfg),
}

/// One talkspurt: `[begin, end)` from the call's start, written
/// `["1.2s", "2.5s"]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Spurt(pub SimDuration, pub SimDuration);

impl<'de> Deserialize<'de> for Spurt {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Vec::<SimDuration>::deserialize(d)?.as_slice() {
            &[b, e] => Ok(Spurt(b, e)),
            _ => Err(serde::de::Error::custom("a talkspurt [begin, end] of two durations, e.g. [\"0s\", \"1.2s\"]")),
        }
    }
}

/// `spurts` for every call of the group, or `calls`, one list per call.
/// Validated: frame-aligned, ascending with a silence between talkspurts,
/// within the call's longest possible length.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SpurtsCfg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spurts: Option<Vec<Spurt>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calls: Option<Vec<Vec<Spurt>>>,
}

impl SpurtsCfg {
    /// Call `i`'s talkspurts (once validated, one of the two keys is set).
    pub fn for_call(&self, i: usize) -> &[Spurt] {
        match (&self.spurts, &self.calls) {
            (Some(s), _) => s,
            (None, Some(c)) => c.get(i).map_or(&[], |v| v.as_slice()),
            (None, None) => &[],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    rename = "@kind default=udp",
    deny_unknown_fields,
    expecting = "a transport table, e.g. { kind = \"udp\", send_buffer = \"5p\" }"
)]
pub enum TransportCfg {
    /// RFC 768: no congestion control; sends each packet at once.
    /// `send_buffer` (packets, default 5 as in seed 000) bounds the sender
    /// buffer between codec and transport.
    #[serde(rename = "udp")]
    Udp {
        #[serde(default = "defaults::send_buffer", with = "Packets::<1, 10000000>")]
        send_buffer: u32,
    },
    /// Test-only transport: the receiver echoes an acknowledgement of
    /// `ack_bytes` (default 40) per packet; the sender records RTT samples.
    #[serde(rename = "echo")]
    Echo {
        #[serde(default = "defaults::send_buffer", with = "Packets::<1, 10000000>")]
        send_buffer: u32,
        #[serde(rename = "ack", default = "defaults::ack", with = "Bytes::<1, 65535>")]
        ack_bytes: u32,
    },
    /// TCP (RFC 9293) with its options; read as tcp::TcpDoc, checked and
    /// completed (recovery, sack) by validate.rs. Defaults: `TcpConfig`.
    #[serde(rename = "tcp")]
    Tcp(#[serde(with = "super::tcp")] TcpConfig),
    /// DCCP (RFC 4340) with CCID 3 (RFC 4342) or CCID 4 (RFC 5622); keys
    /// and defaults in tfrc.rs, resolved by validate.rs.
    #[serde(rename = "dccp")]
    Dccp(super::tfrc::RateDoc),
    /// Plain TFRC over a datagram header (RFC 5348 §3.2, ns-2's Agent/TFRC).
    #[serde(rename = "tfrc")]
    Tfrc(super::tfrc::RateDoc),
}

impl TransportCfg {
    /// The name of the kind (`transport = { kind = "…" }`).
    /// The rate transport's configuration (DCCP CCID 3/4, TFRC).
    pub fn rate(&self) -> Option<crate::transport::tfrc::RateConfig> {
        match self {
            TransportCfg::Dccp(d) if d.ccid == Some(2) => None,
            TransportCfg::Dccp(d) => Some(d.config(true)),
            TransportCfg::Tfrc(d) => Some(d.config(false)),
            _ => None,
        }
    }

    /// DCCP CCID 2's configuration.
    pub fn ccid2(&self) -> Option<crate::transport::ccid2::Ccid2Config> {
        match self {
            TransportCfg::Dccp(d) if d.ccid == Some(2) => Some(d.ccid2_config()),
            _ => None,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            TransportCfg::Udp { .. } => "udp",
            TransportCfg::Echo { .. } => "echo",
            TransportCfg::Tcp(_) => "tcp",
            TransportCfg::Dccp(_) => "dccp",
            TransportCfg::Tfrc(_) => "tfrc",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    rename = "@kind scalar=fixed",
    deny_unknown_fields,
    expecting = "a start time such as \"0s\", or { kind = \"uniform\", from = \"0s\", to = \"10s\" }"
)]
pub enum StartCfg {
    #[serde(rename = "fixed")]
    Fixed(#[serde(deserialize_with = "fields::start_time")] SimDuration),
    /// Uniform in [from, to), drawn per call from the call's own stream.
    #[serde(rename = "uniform")]
    Uniform {
        #[serde(default)]
        from: SimDuration,
        to: SimDuration,
    },
}

impl Default for StartCfg {
    fn default() -> Self {
        StartCfg::Fixed(SimDuration::ZERO)
    }
}

/// Traffic sources (cross traffic), over UDP or TCP. Read as doc::TrafficDoc.
#[derive(Clone, Debug, PartialEq)]
pub struct TrafficCfg {
    /// Number of identical sources (default 1).
    pub count: u32,
    pub from: String,
    pub to: String,
    pub kind: TrafficKind,
    /// `udp` (default) or `tcp`; `bulk` and `transfer` need `tcp`.
    pub transport: TransportCfg,
    pub start: StartCfg,
    pub stagger: SimDuration,
    /// Stop time (default: end of run).
    pub stop: Option<SimDuration>,
    pub label: Option<String>,
    /// Activation schedule: the source is on only within these windows
    /// (absolute times, source i's shifted by i·stagger); empty = from
    /// start to stop. Each activation starts the source afresh.
    pub active: Vec<ActiveCfg>,
    /// `cbr`: ns-2's `random_`: each gap is the interval times 1 + U(−½, ½).
    pub random: bool,
    /// `onoff` and on/off `bulk`: begin with an off period (`first = "off"`).
    pub idle_first: bool,
}

/// An activation window `{ from = "50s", to = "170s" }`; without `to`,
/// until the source's stop.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "an activation window, e.g. { from = \"50s\", to = \"170s\" }")]
pub struct ActiveCfg {
    pub from: SimDuration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<SimDuration>,
}

/// Which period an on/off source begins with (default `on`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum FirstPeriod {
    #[default]
    #[serde(rename = "on")]
    On,
    #[serde(rename = "off")]
    Off,
}

impl FirstPeriod {
    pub fn is_on(&self) -> bool {
        *self == FirstPeriod::On
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum TrafficKind {
    /// Constant bit rate, IP packets of `packet` bytes.
    Cbr { rate_bps: u64, packet: SizeDist },
    /// Poisson packet arrivals with mean bit rate `rate_bps`.
    Poisson { rate_bps: u64, packet: SizeDist },
    /// Sends at `rate_bps` (CBR) during on periods, nothing during off
    /// periods (seed 004: on 2 s, off 2 s, 128 kb/s, 1 kB packets).
    OnOff { rate_bps: u64, packet: SizeDist, on: DurationDist, off: DurationDist },
    /// A greedy (FTP-like) TCP sender: always has data (seeds 002, 004).
    /// With `on_off`, greedy during on periods, silent during off periods.
    Bulk { on_off: Option<(DurationDist, DurationDist)> },
    /// A finite TCP transfer of `size_bytes` bytes.
    Transfer { size_bytes: u64 },
}

impl TrafficKind {
    pub fn name(&self) -> &'static str {
        match self {
            TrafficKind::Cbr { .. } => "cbr",
            TrafficKind::Poisson { .. } => "poisson",
            TrafficKind::OnOff { .. } => "onoff",
            TrafficKind::Bulk { .. } => "bulk",
            TrafficKind::Transfer { .. } => "transfer",
        }
    }
}

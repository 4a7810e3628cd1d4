//! The typed scenario: what a validated scenario file means. Most types
//! derive their parsing (serde, read by de.rs with key-path errors); tables
//! whose file shape differs from their meaning (links, speech, traffic, the
//! TCP table) are read as the document types of doc/ and tcp.rs and
//! converted by validate/, which also runs every cross-field check. The
//! builder (`scenario::build`) turns a `Scenario` into a `World`. Every
//! default is documented here (`defaults`) and in docs/scenario.md.

use serde::{Deserialize, Serialize};

use crate::scenario::doc::{DelayDef, MissingDef, PlayoutDef, ScoringDef, SilenceDef, SpeechDoc};
use super::fields::{self, Bytes, Int, Packets};
use crate::time::SimDuration;

pub use crate::metrics::rtpi::{MissingPredecessor, RtpiSilence};
pub use crate::score::{DelayModel, Scoring};
pub use crate::net::queue::QueueLimit;
/// A playout buffer and its parameters, as the playout module defines them
/// (`playout::PlayoutKind`; names, constants and sources there and in
/// docs/models/playout.md). Default: `fixed` with 150 ms.
pub use crate::playout::PlayoutKind as PlayoutCfg;
pub use crate::rng::DurationDist;
pub use crate::traffic::SizeDist;
pub use crate::transport::tcp::TcpConfig;

mod link;
mod traffic;
pub use link::*;
pub use traffic::*;

#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub run: RunCfg,
    pub links: Vec<LinkCfg>,
    pub calls: Vec<CallGroupCfg>,
    pub traffic: Vec<TrafficCfg>,
    pub analysis: AnalysisCfg,
}

/// The endpoints of flow `i` (from 0) of a group: `from`/`to` as written,
/// or with `spread` the hosts `{from}{i + 1}` and `{to}{i + 1}`.
pub fn flow_endpoints<'a>(from: &'a str, to: &'a str, spread: bool, i: u32) -> (std::borrow::Cow<'a, str>, std::borrow::Cow<'a, str>) {
    use std::borrow::Cow;
    if spread {
        (Cow::Owned(format!("{from}{}", i + 1)), Cow::Owned(format!("{to}{}", i + 1)))
    } else {
        (Cow::Borrowed(from), Cow::Borrowed(to))
    }
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
    /// before it. Default `delayed`, Algorithm 1 as written (see
    /// metrics::rtpi).
    #[serde(with = "MissingDef")]
    pub rtpi_missing: MissingPredecessor,
    /// What Algorithm 1 does with a talkspurt's first packet: `count`
    /// (default, as written) or `exclude`.
    #[serde(with = "SilenceDef")]
    pub rtpi_silence: RtpiSilence,
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
            rtpi_silence: self.rtpi_silence,
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
            rtpi_silence: d.rtpi_silence,
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
    /// One host pair per call (`spread = true`): `from`/`to` are host-name
    /// prefixes and call i (from 1) runs `{from}{i}` → `{to}{i}`
    /// (a topology's `a1…aN` → `b1…bN`). Default false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spread: bool,
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
    pub rtcp: Option<crate::scenario::rtp::RtcpCfg>,
    /// RTCP feedback (RFC 4585 AVPF Generic NACKs); needs `rtcp`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<crate::scenario::rtp::FeedbackCfg>,
    /// Sender adaptation driven by RTCP (default none); needs `rtcp`.
    #[serde(default)]
    pub adapt: crate::scenario::rtp::AdaptCfg,
    /// IAX2 trunking (RFC 5456): the group's calls share one connection
    /// of `transport`, their frames due at one tick of the trunk timer in
    /// one packet (default none: a connection per call). Keys:
    /// scenario/trunk.rs; model notes: docs/models/trunk.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trunk: Option<crate::scenario::trunk::TrunkCfg>,
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
    /// When the call's speech starts (default `connection`, see
    /// [`MediaStart`]).
    #[serde(default, skip_serializing_if = "MediaStart::is_default")]
    pub media_start: MediaStart,
}

/// When a call's source starts producing frames (`calls[].media_start`).
/// Over a connectionless transport (UDP, plain TFRC) and over a connection
/// without a handshake (`handshake = false`) both give the same run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum MediaStart {
    /// At the call's start the application opens its connection (DCCP
    /// Request, RFC 4340 §8.1.1; TCP SYN, RFC 9293 §3.5) and starts its
    /// frame clock when the handshake completes, as a softphone whose
    /// `connect()` returns before it sends audio. The handshake adds to
    /// the call's setup time, not to every packet's delay. Default (issue
    /// 23: docs/models/playout.md, "Over a connection").
    #[default]
    #[serde(rename = "connection")]
    Connection,
    /// Frames from the call's start; the first one opens the connection and
    /// waits in the send buffer with the frames behind it for the
    /// handshake (ns-2's agents, which queue data handed to them before
    /// the connection is up). The behaviour before issue 23.
    #[serde(rename = "call")]
    Call,
}

impl MediaStart {
    pub fn is_default(&self) -> bool {
        *self == MediaStart::default()
    }
}

/// Which bytes a `bitrate`'s rate (and its `packet`) counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum BitrateCounts {
    /// Whole IP packets, headers included, as ns-2's CBR does (its
    /// `packetSize_` and `rate_` are the packet on the link). Default.
    #[default]
    #[serde(rename = "ip")]
    Ip,
    /// The voice payload only, as a codec's bit rate is quoted: `packet`
    /// is the payload and the IP packet is it plus the call's `overhead`
    /// (seed 004: 512 B of voice at 32 kb/s leave every 128 ms as 552 B
    /// packets).
    #[serde(rename = "payload")]
    Payload,
}

/// `bitrate = { rate = "32kbps", packet = "512B" }` (fixed packet size,
/// interval = packet·8/rate) or `{ rate = "8kbps", interval = "125ms" }`
/// (fixed interval, packet = rate·interval/8). One of `packet` and
/// `interval`. `counts` says which bytes `rate` and `packet` count: whole
/// IP packets (`"ip"`, default) or the payload (`"payload"`, the IP packet
/// adding the call's `overhead`).
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
    /// Which bytes `rate` and `packet` count (default `ip`).
    #[serde(default, skip_serializing_if = "is_ip")]
    pub counts: BitrateCounts,
}

fn is_ip(c: &BitrateCounts) -> bool {
    *c == BitrateCounts::Ip
}

impl BitrateCfg {
    /// (interval, IP packet bytes) once validated, for a call with
    /// `overhead` header bytes. With `packet` the interval is the counted
    /// bytes·8/rate rounded to the nanosecond (24 kb/s, 512 B: 170 666 667
    /// ns, a rate error of 2·10⁻⁹).
    pub fn resolve(&self, overhead: u32) -> (SimDuration, u32) {
        let extra = match self.counts {
            BitrateCounts::Ip => 0,
            BitrateCounts::Payload => overhead,
        };
        match (self.packet, self.interval) {
            (Some(b), _) => (SimDuration::transmission(b, self.rate), b + extra),
            (None, Some(t)) => {
                let bits = self.rate as u128 * t.as_nanos() as u128 / 1_000_000_000;
                (t, ((bits + 4) / 8) as u32 + extra)
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
    /// completed (recovery, sack) by validate/. Defaults: `TcpConfig`.
    #[serde(rename = "tcp")]
    Tcp(#[serde(with = "super::tcp")] TcpConfig),
    /// DCCP (RFC 4340) with CCID 3 (RFC 4342) or CCID 4 (RFC 5622); keys
    /// and defaults in tfrc.rs, resolved by validate/.
    #[serde(rename = "dccp")]
    Dccp(crate::scenario::tfrc::RateDoc),
    /// Plain TFRC over a datagram header (RFC 5348 §3.2, ns-2's Agent/TFRC).
    #[serde(rename = "tfrc")]
    Tfrc(crate::scenario::tfrc::RateDoc),
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

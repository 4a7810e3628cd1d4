//! The typed scenario: what a validated scenario file means. The parser
//! (`parse.rs`) builds these from TOML/JSON with key-path errors; the builder
//! (`build.rs`) turns them into a `World`. Every default is documented here
//! (those of `[analysis]` in `score::AnalysisCfg`) and in docs/scenario.md.

use crate::time::SimDuration;

pub use crate::metrics::rtpi::MissingPredecessor;
pub use crate::net::queue::QueueLimit;
/// A playout buffer and its parameters, as the playout module defines them
/// (`playout::PlayoutKind`; names, constants and sources there and in
/// docs/models/playout.md). Default: `fixed` with 150 ms.
pub use crate::playout::PlayoutKind as PlayoutCfg;
pub use crate::rng::DurationDist;
/// How calls are scored (`[analysis]`), as the score module defines it
/// (`score::AnalysisCfg`; every key's default and meaning there).
pub use crate::score::AnalysisCfg;
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

#[derive(Clone, Debug, PartialEq)]
pub struct RunCfg {
    /// Simulated time during which sources generate traffic. Required, > 0.
    pub duration: SimDuration,
    /// Master seed. Default 1. Each component's stream derives from
    /// `(seed, run, component)`.
    pub seed: u64,
    /// Replication index within a sweep (default 0); part of every stream id.
    pub run_index: u64,
    /// After `duration`, sources stop and the network drains for at most
    /// this long (default 10 s); packets still unresolved get fate `in_flight`.
    pub drain: SimDuration,
    /// Keep the per-packet trace for export (default true). Call summaries
    /// are computed either way.
    pub trace: bool,
    /// Record per-endpoint time series (default false).
    pub series: bool,
    /// Optional human label.
    pub name: Option<String>,
}

/// A bidirectional link between two nodes; `forward` is `between[0] ->
/// between[1]`. Keys given at the link level apply to both directions;
/// `forward = {…}` / `reverse = {…}` override per direction.
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
}

#[derive(Clone, Debug, PartialEq)]
pub enum QueueCfg {
    /// FIFO with tail drop. The limit counts packets (or bytes) waiting,
    /// excluding the one being serialized, as in ns-2's DropTail.
    /// Default: 50 packets (seed 000's router buffer).
    DropTail { limit: QueueLimit },
}


#[derive(Clone, Debug, PartialEq)]
pub enum LossCfg {
    None,
    /// Independent loss with probability `p` per packet (ns-2's Bernoulli
    /// error model, dummynet's `plr`). Applied when the packet leaves the
    /// wire, so a lost packet still used link capacity.
    Bernoulli { p: f64 },
}

/// `count` identical one-way voice calls from `from` to `to`.
#[derive(Clone, Debug, PartialEq)]
pub struct CallGroupCfg {
    /// Number of calls (default 1).
    pub count: u32,
    pub from: String,
    pub to: String,
    /// Codec name from the codec table (`voice::codec`). Required.
    pub codec: String,
    /// Packetization time: a multiple of the codec frame, 10–80 ms inclusive
    /// where the frame allows (default: 20 ms, or the frame if longer).
    pub ptime: Option<SimDuration>,
    /// IP+UDP+RTP header bytes per packet (default 40, seed 001 Table 1).
    pub overhead_bytes: u32,
    pub speech: SpeechCfg,
    /// Silence suppression: no packets during silence (default true; it only
    /// matters for on/off speech).
    pub vad: bool,
    pub transport: TransportCfg,
    pub playout: PlayoutCfg,
    /// E-model advantage factor A (ITU-T G.107 §7.6; Table 3 allows 0–20,
    /// e.g. 10 for cellular, 20 for satellite hops). Default 0. Values up
    /// to 40 are accepted (seed 003) and flagged as extrapolated.
    pub advantage: f64,
    pub start: StartCfg,
    /// Call i of the group starts `i * stagger` after its start (default 0).
    pub stagger: SimDuration,
    /// Call length (default: until the end of the run).
    pub length: Option<SimDuration>,
    /// Label for the group in results (default "calls[i]").
    pub label: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SpeechCfg {
    /// Always talking: one talkspurt for the whole call.
    Continuous,
    /// Alternating talkspurts and silences with independent durations
    /// (Sriram–Whitt exponential model: talk 1 s, silence 1.5 s, seed 000).
    OnOff { talk: DurationDist, silence: DurationDist },
}


#[derive(Clone, Debug, PartialEq)]
pub enum TransportCfg {
    /// RFC 768: no congestion control; sends each packet at once.
    /// `send_buffer` (packets, default 5 as in seed 000) bounds the sender
    /// buffer between codec and transport.
    Udp { send_buffer: u32 },
    /// Test-only transport: the receiver echoes an acknowledgement of
    /// `ack_bytes` (default 40) per packet; the sender records RTT samples.
    Echo { send_buffer: u32, ack_bytes: u32 },
    /// TCP (transport::tcp::TcpConfig documents every option).
    Tcp(TcpConfig),
}

#[derive(Clone, Debug, PartialEq)]
pub enum StartCfg {
    Fixed(SimDuration),
    /// Uniform in [from, to), drawn per call from the call's own stream.
    Uniform { from: SimDuration, to: SimDuration },
}

/// Generic UDP traffic sources (cross traffic).
#[derive(Clone, Debug, PartialEq)]
pub struct TrafficCfg {
    /// Number of identical sources (default 1).
    pub count: u32,
    pub from: String,
    pub to: String,
    pub kind: TrafficKind,
    /// The transport the source writes into (default UDP).
    pub transport: TransportCfg,
    /// IP packet size (required).
    pub packet: SizeDist,
    pub start: StartCfg,
    pub stagger: SimDuration,
    /// Stop time (default: end of run).
    pub stop: Option<SimDuration>,
    pub label: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TrafficKind {
    /// Constant bit rate.
    Cbr { rate_bps: u64 },
    /// Poisson packet arrivals with mean bit rate `rate_bps`.
    Poisson { rate_bps: u64 },
    /// Sends at `rate_bps` (CBR) during on periods, nothing during off
    /// periods (seed 004: on 2 s, off 2 s, 128 kb/s, 1 kB packets).
    OnOff { rate_bps: u64, on: DurationDist, off: DurationDist },
    /// Greedy bulk transfer over a byte stream (FTP-like); with `on_off`,
    /// greedy during on periods only.
    Bulk { on_off: Option<(DurationDist, DurationDist)> },
    /// A finite transfer of `size_bytes` written at the start.
    Transfer { size_bytes: u64 },
}


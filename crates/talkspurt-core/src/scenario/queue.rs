//! The AQM queue tables of a link direction (`queue = { kind = "red", … }`
//! etc.): their keys, defaults, checks across keys, and the network's
//! `Discipline` they configure. Equations and sources:
//! docs/models/network.md, "Queues and ECN"; each net module cites its spec.

use serde::{Deserialize, Deserializer, Serialize};

use super::error::ScenarioError;
use super::fields::{self, Bytes, Int};
use super::model::QueueLimit;
use crate::net::queue::{CoDelParams, Discipline, FqCoDelParams, PieParams, RedParams};
use crate::time::SimDuration;

fn limit_50() -> QueueLimit {
    QueueLimit::Packets(50)
}
/// Linux's codel and pie default limit.
fn limit_1000() -> QueueLimit {
    QueueLimit::Packets(1000)
}
/// Linux's fq_codel default limit.
fn limit_10240() -> QueueLimit {
    QueueLimit::Packets(10240)
}
// Defaults not given by a key come from the net module's parameter
// structs (one place; each documents its source).
fn red() -> RedParams {
    RedParams::default()
}
fn red_max_p() -> f64 {
    red().max_p
}
fn red_gentle() -> bool {
    red().gentle
}
fn red_wait() -> bool {
    red().wait
}
fn red_mean_packet() -> u32 {
    red().mean_packet
}
fn codel_target() -> SimDuration {
    CoDelParams::default().target
}
fn codel_interval() -> SimDuration {
    CoDelParams::default().interval
}
fn codel_mtu() -> u32 {
    CoDelParams::default().mtu
}
fn fq_flows() -> u32 {
    FqCoDelParams::default().flows
}
fn fq_quantum() -> u32 {
    FqCoDelParams::default().quantum
}
fn fq_ecn() -> bool {
    FqCoDelParams::default().codel.ecn
}
fn pie() -> PieParams {
    PieParams::default()
}
fn pie_target() -> SimDuration {
    pie().target
}
fn pie_t_update() -> SimDuration {
    pie().t_update
}
fn pie_alpha() -> f64 {
    pie().alpha
}
fn pie_beta() -> f64 {
    pie().beta
}
fn pie_max_burst() -> SimDuration {
    pie().max_burst
}
fn pie_mark_ecnth() -> f64 {
    pie().mark_ecnth
}

fn positive_number_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    fields::positive_number(d).map(Some)
}
fn open_fraction_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    fields::open_fraction(d).map(Some)
}
fn max_p_value<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let p = fields::positive_number(d)?;
    if p > 1.0 {
        return Err(serde::de::Error::custom("a probability with 0 < max_p <= 1, e.g. 0.1"));
    }
    Ok(p)
}

/// RED's unit of queue size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub enum RedMode {
    /// ns-2.35's default (bytes_ and queue_in_bytes_ true).
    #[serde(rename = "bytes")]
    Bytes,
    #[serde(rename = "packets")]
    Packets,
}

fn bytes_mode() -> RedMode {
    if red().bytes {
        RedMode::Bytes
    } else {
        RedMode::Packets
    }
}

/// `kind = "red"`: Floyd–Jacobson RED with ns-2.35's defaults.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RedCfg {
    /// Hard limit (default 50p, ns-2's limit_).
    #[serde(default = "limit_50")]
    pub limit: QueueLimit,
    /// Thresholds in packets (of `mean_packet` bytes in byte mode);
    /// default ns-2's automatic: min_th = max(5, packets sent in 2.5 ms),
    /// max_th = 3·min_th.
    #[serde(default, deserialize_with = "positive_number_opt", skip_serializing_if = "Option::is_none")]
    pub min_th: Option<f64>,
    #[serde(default, deserialize_with = "positive_number_opt", skip_serializing_if = "Option::is_none")]
    pub max_th: Option<f64>,
    /// p_b at max_th (default 0.1), 0 < max_p ≤ 1.
    #[serde(default = "red_max_p", deserialize_with = "max_p_value")]
    pub max_p: f64,
    /// EWMA weight w_q, 0 < w < 1; default ns-2's automatic.
    #[serde(default, deserialize_with = "open_fraction_opt", skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// Gentle RED (default true).
    #[serde(default = "red_gentle")]
    pub gentle: bool,
    /// ns-2's wait_: uniform gaps on 1/p_b…2/p_b (default true).
    #[serde(default = "red_wait")]
    pub wait: bool,
    /// "bytes" (default) or "packets".
    #[serde(default = "bytes_mode")]
    pub mode: RedMode,
    /// ns-2 mean_pktsize_ (default 500B).
    #[serde(default = "red_mean_packet", with = "Bytes::<1, 65535>")]
    pub mean_packet: u32,
    /// Mark ECN-capable packets instead of early drops (default false).
    #[serde(default)]
    pub ecn: bool,
    /// Record the queue's series (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub series: bool,
}

/// `kind = "codel"` (RFC 8289).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CoDelCfg {
    /// Default 1000p (Linux).
    #[serde(default = "limit_1000")]
    pub limit: QueueLimit,
    /// Default 5 ms.
    #[serde(default = "codel_target", deserialize_with = "fields::positive")]
    pub target: SimDuration,
    /// Default 100 ms.
    #[serde(default = "codel_interval", deserialize_with = "fields::positive")]
    pub interval: SimDuration,
    /// Default 1514B.
    #[serde(default = "codel_mtu", with = "Bytes::<1, 65535>")]
    pub mtu: u32,
    /// Default false (Linux codel).
    #[serde(default)]
    pub ecn: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub series: bool,
}

/// `kind = "fq_codel"` (RFC 8290).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FqCoDelCfg {
    /// Default 10240p (Linux).
    #[serde(default = "limit_10240")]
    pub limit: QueueLimit,
    #[serde(default = "codel_target", deserialize_with = "fields::positive")]
    pub target: SimDuration,
    #[serde(default = "codel_interval", deserialize_with = "fields::positive")]
    pub interval: SimDuration,
    /// DRR quantum (default 1514B).
    #[serde(default = "fq_quantum", with = "Bytes::<1, 65535>")]
    pub quantum: u32,
    /// Number of flow queues (default 1024).
    #[serde(default = "fq_flows", with = "Int::<1, 65536>")]
    pub flows: u32,
    /// Default true (Linux fq_codel).
    #[serde(default = "fq_ecn")]
    pub ecn: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub series: bool,
}

/// `kind = "pie"` (RFC 8033).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PieCfg {
    /// Default 1000p (Linux).
    #[serde(default = "limit_1000")]
    pub limit: QueueLimit,
    /// QDELAY_REF, default 15 ms.
    #[serde(default = "pie_target", deserialize_with = "fields::positive")]
    pub target: SimDuration,
    /// T_UPDATE, default 15 ms.
    #[serde(default = "pie_t_update", deserialize_with = "fields::positive")]
    pub t_update: SimDuration,
    /// α (default 0.125) and β (default 1.25), per second.
    #[serde(default = "pie_alpha", deserialize_with = "fields::positive_number")]
    pub alpha: f64,
    #[serde(default = "pie_beta", deserialize_with = "fields::positive_number")]
    pub beta: f64,
    /// MAX_BURST, default 150 ms.
    #[serde(default = "pie_max_burst")]
    pub max_burst: SimDuration,
    /// Default false; marks while p ≤ mark_ecnth (default 0.1).
    #[serde(default)]
    pub ecn: bool,
    #[serde(default = "pie_mark_ecnth", deserialize_with = "fields::probability")]
    pub mark_ecnth: f64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub series: bool,
}

impl RedCfg {
    pub fn params(&self) -> RedParams {
        RedParams {
            min_th: self.min_th,
            max_th: self.max_th,
            max_p: self.max_p,
            weight: self.weight,
            gentle: self.gentle,
            wait: self.wait,
            bytes: self.mode == RedMode::Bytes,
            mean_packet: self.mean_packet,
            ecn: self.ecn,
        }
    }

    /// min_th < max_th, with ns-2's automatic min_th where not given (it
    /// depends on the link's rate); an automatic max_th (3·min_th) is
    /// always above. `path` is the queue table's key path.
    pub fn check(&self, rate_bps: u64, path: &str, err: impl Fn(&str, String) -> ScenarioError) -> Result<(), ScenarioError> {
        let Some(max) = self.max_th else { return Ok(()) };
        let ptc = rate_bps as f64 / (8.0 * self.mean_packet as f64);
        let min = self.min_th.unwrap_or_else(|| (0.005 * ptc / 2.0).max(5.0));
        if min < max {
            return Ok(());
        }
        let what = if self.min_th.is_some() { "" } else { ", ns-2's automatic value for this link" };
        Err(err(&format!("{path}.max_th"), format!("a threshold above min_th ({min}{what})")))
    }
}

impl CoDelCfg {
    fn params(&self) -> CoDelParams {
        CoDelParams { target: self.target, interval: self.interval, mtu: self.mtu, ecn: self.ecn }
    }
}

/// The network discipline a queue table configures.
pub fn discipline(q: &super::model::QueueCfg) -> Discipline {
    use super::model::QueueCfg as Q;
    match q {
        Q::DropTail { .. } => Discipline::DropTail,
        Q::Red(r) => Discipline::Red(r.params()),
        Q::CoDel(c) => Discipline::CoDel(c.params()),
        Q::FqCoDel(f) => Discipline::FqCoDel(FqCoDelParams {
            codel: CoDelParams { target: f.target, interval: f.interval, mtu: 1514, ecn: f.ecn },
            flows: f.flows,
            quantum: f.quantum,
        }),
        Q::Pie(p) => Discipline::Pie(PieParams {
            target: p.target,
            t_update: p.t_update,
            alpha: p.alpha,
            beta: p.beta,
            max_burst: p.max_burst,
            ecn: p.ecn,
            mark_ecnth: p.mark_ecnth,
            mtu: 1514,
        }),
    }
}

impl super::model::QueueCfg {
    /// The hard limit.
    pub fn limit(&self) -> QueueLimit {
        use super::model::QueueCfg as Q;
        match self {
            Q::DropTail { limit, .. } => *limit,
            Q::Red(r) => r.limit,
            Q::CoDel(c) => c.limit,
            Q::FqCoDel(f) => f.limit,
            Q::Pie(p) => p.limit,
        }
    }

    /// Whether the queue's series are recorded.
    pub fn series(&self) -> bool {
        use super::model::QueueCfg as Q;
        match self {
            Q::DropTail { series, .. } => *series,
            Q::Red(r) => r.series,
            Q::CoDel(c) => c.series,
            Q::FqCoDel(f) => f.series,
            Q::Pie(p) => p.series,
        }
    }
}

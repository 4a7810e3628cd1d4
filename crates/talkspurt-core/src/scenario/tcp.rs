//! The `transport = { kind = "tcp", … }` table: one key per field of
//! `transport::tcp::TcpConfig` (defaults and sources there and in
//! cc/mod.rs), plus one table per controller's parameters (`vegas`,
//! `cubic`, `westwood`, `real`) of which only the chosen `cc`'s may be
//! given. Read here as `TcpDoc`; validate/ checks what spans keys
//! (rto ordering, window ≥ one segment, SACK, controller tables) and fills
//! in `recovery` and `sack`. This module is the `with` of the model's
//! `TransportCfg::Tcp` field.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::fields::{self, Bytes, Int};
use super::model::QueueLimit;
use super::units;
use crate::cc::{CcAlgorithm, CcParams, CubicParams, RealParams, Recovery, VegasParams, WestwoodParams};
use crate::time::SimDuration;
use crate::transport::tcp::{IdleRestart, InitialWindow, SendLimit, TcpConfig};

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<TcpConfig, D::Error> {
    TcpDoc::deserialize(d).map(TcpConfig::from)
}

pub fn serialize<S: Serializer>(t: &TcpConfig, s: S) -> Result<S::Ok, S::Error> {
    TcpDoc::from(t).serialize(s)
}

/// Largest MSS: the largest IPv4 packet less 40 bytes of IP and TCP headers.
pub const MAX_MSS: u64 = 65_495;
/// Largest receive window with window scaling (RFC 7323 §2.3: 2^30).
pub const MAX_RCV_WINDOW: u64 = 1 << 30;

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(
    default,
    deny_unknown_fields,
    expecting = "a tcp transport table, e.g. { kind = \"tcp\", cc = \"newreno\" }"
)]
struct TcpDoc {
    #[serde(with = "cc_name")]
    cc: CcAlgorithm,
    #[serde(with = "recovery_name", skip_serializing_if = "Option::is_none")]
    recovery: Option<Recovery>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sack: Option<bool>,
    #[serde(with = "Bytes::<1, MAX_MSS>")]
    mss: u32,
    #[serde(with = "initial_window")]
    initial_window: InitialWindow,
    nodelay: bool,
    limited_transmit: bool,
    delayed_ack: bool,
    #[serde(deserialize_with = "fields::delack")]
    delack_timeout: SimDuration,
    #[serde(deserialize_with = "fields::positive")]
    initial_rto: SimDuration,
    min_rto: SimDuration,
    #[serde(deserialize_with = "fields::positive")]
    max_rto: SimDuration,
    granularity: SimDuration,
    #[serde(with = "rcv_window")]
    rcv_window: RcvWindow,
    #[serde(with = "send_limit")]
    send_buffer: SendLimit,
    #[serde(with = "idle_restart")]
    idle_restart: IdleRestart,
    ecn: bool,
    timestamps: bool,
    handshake: bool,
    #[serde(with = "Bytes::<0, 8>")]
    framing: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    vegas: Option<Vegas>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cubic: Option<Cubic>,
    #[serde(skip_serializing_if = "Option::is_none")]
    westwood: Option<Westwood>,
    #[serde(skip_serializing_if = "Option::is_none")]
    real: Option<Real>,
}

impl Default for TcpDoc {
    fn default() -> Self {
        let mut d = TcpDoc::from(&TcpConfig::default());
        (d.vegas, d.cubic, d.westwood, d.real) = (None, None, None, None);
        d
    }
}

/// The controllers whose parameter table `key` is (`westwood` serves
/// both Westwoods: `tau` is the 2001 filter's, `gain` Westwood+'s).
pub fn table_owners(key: &str) -> &'static [CcAlgorithm] {
    match key {
        "vegas" => &[CcAlgorithm::Vegas],
        "cubic" => &[CcAlgorithm::Cubic],
        "westwood" => &[CcAlgorithm::Westwood, CcAlgorithm::WestwoodPlus],
        "real" => &[CcAlgorithm::Real],
        _ => &[],
    }
}

pub const CC_TABLES: [&str; 4] = ["vegas", "cubic", "westwood", "real"];

impl From<TcpDoc> for TcpConfig {
    fn from(d: TcpDoc) -> Self {
        let mut t = TcpConfig {
            cc: d.cc,
            recovery: d.recovery,
            sack: d.sack,
            mss: d.mss,
            initial_window: d.initial_window,
            nodelay: d.nodelay,
            limited_transmit: d.limited_transmit,
            delayed_ack: d.delayed_ack,
            delack_timeout: d.delack_timeout,
            initial_rto: d.initial_rto,
            min_rto: d.min_rto,
            max_rto: d.max_rto,
            granularity: d.granularity,
            rcv_window: 0,
            send_buffer: d.send_buffer,
            idle_restart: d.idle_restart,
            ecn: d.ecn,
            timestamps: d.timestamps,
            handshake: d.handshake,
            framing: d.framing,
            params: CcParams {
                vegas: d.vegas.map(|t| t.0).unwrap_or_default(),
                cubic: d.cubic.map(|t| t.0).unwrap_or_default(),
                westwood: d.westwood.map(|t| t.0).unwrap_or_default(),
                real: d.real.map(|t| t.0).unwrap_or_default(),
            },
        };
        // "20p": 20 full segments (ns-2 states windows in packets) of
        // SMSS data bytes each (mss less the timestamps option, RFC 6691
        // §2); validate/ bounds the product.
        t.rcv_window = match d.rcv_window {
            RcvWindow::Bytes(b) => b,
            RcvWindow::Segments(n) => n.saturating_mul(t.smss()),
        };
        t
    }
}

/// Every field written; of the controller tables only the chosen `cc`'s.
impl From<&TcpConfig> for TcpDoc {
    fn from(t: &TcpConfig) -> Self {
        let cc = t.cc;
        let p = &t.params;
        TcpDoc {
            cc,
            recovery: t.recovery,
            sack: t.sack,
            mss: t.mss,
            initial_window: t.initial_window,
            nodelay: t.nodelay,
            limited_transmit: t.limited_transmit,
            delayed_ack: t.delayed_ack,
            delack_timeout: t.delack_timeout,
            initial_rto: t.initial_rto,
            min_rto: t.min_rto,
            max_rto: t.max_rto,
            granularity: t.granularity,
            rcv_window: RcvWindow::Bytes(t.rcv_window),
            send_buffer: t.send_buffer,
            idle_restart: t.idle_restart,
            ecn: t.ecn,
            timestamps: t.timestamps,
            handshake: t.handshake,
            framing: t.framing,
            vegas: (cc == CcAlgorithm::Vegas).then_some(Vegas(p.vegas)),
            cubic: (cc == CcAlgorithm::Cubic).then_some(Cubic(p.cubic)),
            westwood: matches!(cc, CcAlgorithm::Westwood | CcAlgorithm::WestwoodPlus).then_some(Westwood(p.westwood)),
            real: (cc == CcAlgorithm::Real).then_some(Real(p.real)),
        }
    }
}

// ---------------------------------------------------------------------------
// Controller tables

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(transparent)]
struct Vegas(#[serde(with = "VegasDef")] VegasParams);

#[derive(Deserialize, Serialize)]
#[serde(
    remote = "VegasParams",
    default = "VegasParams::default",
    deny_unknown_fields,
    expecting = "a vegas table, e.g. { alpha = 1, beta = 3, gamma = 1 }"
)]
struct VegasDef {
    #[serde(deserialize_with = "fields::non_negative")]
    alpha: f64,
    #[serde(deserialize_with = "fields::non_negative")]
    beta: f64,
    #[serde(deserialize_with = "fields::non_negative")]
    gamma: f64,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(transparent)]
struct Cubic(#[serde(with = "CubicDef")] CubicParams);

#[derive(Deserialize, Serialize)]
#[serde(
    remote = "CubicParams",
    default = "CubicParams::default",
    deny_unknown_fields,
    expecting = "a cubic table, e.g. { c = 0.4, beta = 0.7 }"
)]
struct CubicDef {
    #[serde(deserialize_with = "fields::positive_number")]
    c: f64,
    #[serde(deserialize_with = "fields::open_fraction")]
    beta: f64,
    fast_convergence: bool,
    tcp_friendliness: bool,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(transparent)]
struct Westwood(#[serde(with = "WestwoodDef")] WestwoodParams);

#[derive(Deserialize, Serialize)]
#[serde(
    remote = "WestwoodParams",
    default = "WestwoodParams::default",
    deny_unknown_fields,
    expecting = "a westwood table, e.g. { gain = 0.9 } (westwood+) or { tau = \"0.5s\" } (westwood)"
)]
struct WestwoodDef {
    /// Westwood+'s per-RTT filter weight.
    #[serde(deserialize_with = "fields::open_fraction")]
    gain: f64,
    /// Westwood (2001)'s filter time constant (> 0).
    #[serde(deserialize_with = "fields::positive")]
    tau: SimDuration,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(transparent)]
struct Real(#[serde(with = "RealDef")] RealParams);

#[derive(Deserialize, Serialize)]
#[serde(
    remote = "RealParams",
    default = "RealParams::default",
    deny_unknown_fields,
    expecting = "a real table, e.g. { wave = 1, congestion_threshold = 0.1 }"
)]
struct RealDef {
    /// Sender rounds per wave.
    #[serde(with = "Int::<1, 1000>")]
    wave: u32,
    #[serde(deserialize_with = "fields::open_fraction")]
    congestion_threshold: f64,
    /// A gap longer than this inside a wave is a sender pause (> 0).
    #[serde(deserialize_with = "fields::positive")]
    max_gap: SimDuration,
}

// ---------------------------------------------------------------------------
// Named choices and the two mixed-form values

/// Names `cc` accepts: the algorithms' names.
pub fn cc_names() -> Vec<&'static str> {
    CcAlgorithm::ALL.iter().map(|a| a.name()).collect()
}

mod cc_name {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<CcAlgorithm, D::Error> {
        fields::named(d, &cc_names(), CcAlgorithm::from_name)
    }
    pub fn serialize<S: Serializer>(v: &CcAlgorithm, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.name())
    }
}

mod recovery_name {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Recovery>, D::Error> {
        let names: Vec<&str> = Recovery::ALL.iter().map(|r| r.name()).collect();
        fields::named(d, &names, Recovery::from_name).map(Some)
    }
    pub fn serialize<S: Serializer>(v: &Option<Recovery>, s: S) -> Result<S::Ok, S::Error> {
        v.map(Recovery::name).serialize(s)
    }
}

mod idle_restart {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<IdleRestart, D::Error> {
        let names = IdleRestart::ALL.map(IdleRestart::name);
        fields::named(d, &names, IdleRestart::from_name)
    }
    pub fn serialize<S: Serializer>(v: &IdleRestart, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.name())
    }
}

/// Largest initial window in segments.
pub const MAX_IW_SEGMENTS: u64 = 1000;

mod initial_window {
    use super::*;

    const NAMES: [(&str, InitialWindow); 3] = [
        ("rfc2581", InitialWindow::Rfc2581),
        ("rfc3390", InitialWindow::Rfc3390),
        ("rfc6928", InitialWindow::Rfc6928),
    ];
    const ALLOWED: &str =
        "a number of segments between 1 and 1000, or one of \"rfc2581\", \"rfc3390\", \"rfc6928\"";

    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = InitialWindow;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(ALLOWED)
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<InitialWindow, E> {
            match n {
                1..=MAX_IW_SEGMENTS => Ok(InitialWindow::Segments(n as u32)),
                _ => Err(E::custom(ALLOWED)),
            }
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<InitialWindow, E> {
            Err(E::custom(ALLOWED))
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<InitialWindow, E> {
            NAMES.iter().find(|(n, _)| *n == s).map(|(_, w)| *w).ok_or_else(|| E::custom(ALLOWED))
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<InitialWindow, D::Error> {
        d.deserialize_any(V)
    }
    pub fn serialize<S: Serializer>(v: &InitialWindow, s: S) -> Result<S::Ok, S::Error> {
        match v {
            InitialWindow::Segments(n) => s.serialize_u32(*n),
            w => s.serialize_str(&w.name()),
        }
    }
}

/// `rcv_window` as written: bytes, or full segments (`"20p"`) of SMSS
/// bytes (`TcpConfig::smss`: mss, less 12 B with timestamps).
#[derive(Clone, Copy, Debug)]
enum RcvWindow {
    Bytes(u64),
    Segments(u64),
}

mod rcv_window {
    use super::*;

    const ALLOWED: &str = "a window in bytes (\"64KiB\", 1B–1073741824B) or in segments of mss bytes \
                           (\"20p\" = 20 × mss, as ns-2 states windows; 20 × (mss − 12B) with \
                           timestamps, RFC 6691 §2)";

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<RcvWindow, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RcvWindow;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(ALLOWED)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RcvWindow, E> {
                match units::parse_queue_limit(s) {
                    Ok(QueueLimit::Packets(p)) if p >= 1 => Ok(RcvWindow::Segments(p as u64)),
                    Ok(QueueLimit::Bytes(b)) if (1..=MAX_RCV_WINDOW).contains(&b) => Ok(RcvWindow::Bytes(b)),
                    _ => Err(E::custom(ALLOWED)),
                }
            }
        }
        d.deserialize_str(V)
    }
    pub fn serialize<S: Serializer>(v: &RcvWindow, s: S) -> Result<S::Ok, S::Error> {
        match v {
            RcvWindow::Bytes(b) => s.serialize_str(&units::format_bytes(*b)),
            RcvWindow::Segments(n) => s.serialize_str(&units::format_packets(*n)),
        }
    }
}

mod send_limit {
    use super::*;

    const ALLOWED: &str = "a send buffer in application writes (\"5p\", 1–10000000) \
                           or bytes (\"64kB\", 1B–10000000000B)";

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SendLimit, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SendLimit;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(ALLOWED)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<SendLimit, E> {
                match units::parse_queue_limit(s) {
                    Ok(QueueLimit::Packets(p)) if p >= 1 => Ok(SendLimit::Writes(p)),
                    Ok(QueueLimit::Bytes(b)) if b >= 1 => Ok(SendLimit::Bytes(b)),
                    _ => Err(E::custom(ALLOWED)),
                }
            }
        }
        d.deserialize_str(V)
    }
    pub fn serialize<S: Serializer>(v: &SendLimit, s: S) -> Result<S::Ok, S::Error> {
        match v {
            SendLimit::Writes(p) => s.serialize_str(&units::format_packets(*p as u64)),
            SendLimit::Bytes(b) => s.serialize_str(&units::format_bytes(*b)),
        }
    }
}

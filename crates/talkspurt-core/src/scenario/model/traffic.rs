//! Cross-traffic sources as the scenario states them (read as
//! doc::TrafficDoc, checked by validate/).

use super::*;

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
    /// One host pair per source (`spread = true`): `from`/`to` are host-name
    /// prefixes and source i (from 1) runs `{from}{i}` → `{to}{i}`.
    pub spread: bool,
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

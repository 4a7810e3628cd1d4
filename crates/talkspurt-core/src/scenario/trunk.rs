//! `calls[i].trunk`: the group's calls multiplexed into one connection as
//! IAX2 trunks do (RFC 5456 Meta Trunk Frames; `voice::trunk`).
//!
//! ```toml
//! trunk = {}                                   # Asterisk's defaults
//! trunk = { interval = "20ms", header = "8B", entry = "4B", mtu = "1240B" }
//! ```

use serde::{Deserialize, Serialize};

use super::fields::{self, Bytes};
use crate::time::SimDuration;
use crate::voice::trunk::{TrunkConfig, DEFAULT_INTERVAL, ENTRY_WITH_TIMESTAMP, TRUNK_HEADER};

/// The trunk's timer and framing; each default is `TrunkConfig`'s.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a trunk table, e.g. {} or { interval = \"20ms\", entry = \"4B\" }")]
pub struct TrunkCfg {
    /// Trunk timer (Asterisk's `trunkfreq`, default 20 ms; 1 ms to 1 s).
    #[serde(default = "interval", deserialize_with = "fields::positive")]
    pub interval: SimDuration,
    /// Trunk header bytes per packet (default 8: RFC 5456's Meta Trunk
    /// Frame header).
    #[serde(default = "header", with = "Bytes::<0, 1024>")]
    pub header: u32,
    /// Entry header bytes per call frame (default 6: with per-call
    /// time-stamps; 4 without, Asterisk's `trunktimestamps = no`).
    #[serde(default = "entry", with = "Bytes::<0, 1024>")]
    pub entry: u32,
    /// Largest trunk frame per packet (Asterisk's `trunkmtu`, e.g. 1240 B);
    /// default none: one packet per tick.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "mtu", serialize_with = "mtu_ser")]
    pub mtu: Option<u32>,
}

fn mtu<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    Bytes::<64, 65535>::deserialize(d).map(Some)
}
fn mtu_ser<S: serde::Serializer>(v: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
    v.map(|b| super::units::format_bytes(b as u64)).serialize(s)
}
fn interval() -> SimDuration {
    DEFAULT_INTERVAL
}
fn header() -> u32 {
    TRUNK_HEADER
}
fn entry() -> u32 {
    ENTRY_WITH_TIMESTAMP
}

impl Default for TrunkCfg {
    fn default() -> Self {
        TrunkCfg { interval: interval(), header: header(), entry: entry(), mtu: None }
    }
}

impl TrunkCfg {
    pub fn config(&self) -> TrunkConfig {
        TrunkConfig { interval: self.interval, header: self.header, entry: self.entry, mtu: self.mtu }
    }
}

/// The longest trunk timer accepted (Asterisk accepts 10 ms to 1 s).
pub const MAX_INTERVAL: SimDuration = SimDuration(1_000_000_000);
/// The shortest (below a codec frame a trunk only adds packets).
pub const MIN_INTERVAL: SimDuration = SimDuration(1_000_000);

//! The `transport = { kind = "dccp", … }` and `{ kind = "tfrc", … }`
//! tables: one key per field of `transport::tfrc::RateConfig` and
//! `cc::tfrc::TfrcConfig` (defaults and sources there). Read as `RateDoc`;
//! the kind-specific keys (`ccid`, `handshake`, `loss_intervals` for DCCP,
//! `header`, `ack`, `small_packets` for TFRC) are checked by validate/,
//! which also rejects a variant that does not apply. This module is the
//! `with` of the model's `TransportCfg::Dccp` and `TransportCfg::Tfrc`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::fields::{self, Bytes, Int, Packets};
use crate::cc::tfrc::{FasterRestart, RtoRule, TfrcSpec, Variant};
use crate::time::SimDuration;
use crate::transport::ccid2::Ccid2Config;
use crate::transport::dccp_conn::Closer;
use crate::transport::tfrc::{RateConfig, Wire};

/// The DCCP table's own keys, and the TFRC table's.
pub const DCCP_ONLY: [&str; 7] = ["ccid", "handshake", "loss_intervals", "ack_ratio", "ack_delay", "closer", "timewait"];
/// Keys of CCID 2 (RFC 4341) only, and the keys CCID 2 takes.
pub const CCID2_ONLY: [&str; 2] = ["ack_ratio", "ack_delay"];
pub const CCID2_KEYS: [&str; 10] =
    ["kind", "ccid", "send_buffer", "handshake", "packet", "ack_ratio", "ack_delay", "ecn", "closer", "timewait"];
pub const TFRC_ONLY: [&str; 3] = ["header", "ack", "small_packets"];

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a dccp or tfrc transport table, e.g. { kind = \"dccp\", ccid = 4 }"
)]
pub struct RateDoc {
    #[serde(default, skip_serializing_if = "Option::is_none", with = "ccid")]
    pub ccid: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "spec_name")]
    pub tfrc: Option<TfrcSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "faster_restart")]
    pub faster_restart: Option<FasterRestart>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "variant_name")]
    pub variant: Option<Variant>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_packets")]
    pub send_buffer: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub small_packets: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_bytes")]
    pub sp_header: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_interval: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_intervals: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dynamic_feedback: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "fields::positive_opt")]
    pub nominal_rtt: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "rto_name")]
    pub rto: Option<RtoRule>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discounting: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub erratum_1458: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oscillation_reduction: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "fields::positive_opt")]
    pub t_mbi: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_bytes")]
    pub packet: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_intervals: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_bytes0")]
    pub header: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_ack_ratio")]
    pub ack_ratio: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_delay: Option<SimDuration>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_bytes")]
    pub ack: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "closer_name")]
    pub closer: Option<Closer>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "fields::positive_opt")]
    pub timewait: Option<SimDuration>,
}

impl RateDoc {
    /// The configuration: the kind's defaults (CCID 3/4 or plain TFRC)
    /// with every given key applied.
    pub fn config(&self, dccp: bool) -> RateConfig {
        let mut c = if dccp { RateConfig::dccp(self.ccid.unwrap_or(3)) } else { RateConfig::plain() };
        if !dccp && self.small_packets == Some(true) {
            c.tfrc = c.tfrc.small_packets(40);
        }
        let t = &mut c.tfrc;
        macro_rules! set {
            ($dst:expr, $src:expr) => {
                if let Some(v) = $src {
                    $dst = v;
                }
            };
        }
        set!(t.spec, self.tfrc);
        set!(t.faster_restart, self.faster_restart);
        set!(t.variant, self.variant);
        set!(t.header, self.sp_header);
        set!(t.min_interval, self.min_interval);
        set!(t.short_intervals, self.short_intervals);
        set!(t.dynamic_feedback, self.dynamic_feedback);
        set!(t.oscillation_reduction, self.oscillation_reduction);
        set!(t.nominal_rtt, self.nominal_rtt);
        set!(t.rto, self.rto);
        set!(t.granularity, self.granularity);
        set!(t.discounting, self.discounting);
        set!(t.erratum_1458, self.erratum_1458);
        set!(t.t_mbi, self.t_mbi);
        set!(c.send_buffer, self.send_buffer);
        set!(c.handshake, self.handshake);
        set!(c.ecn, self.ecn);
        set!(c.packet, self.packet);
        set!(c.loss_intervals, self.loss_intervals);
        set!(c.closer, self.closer);
        set!(c.timewait, self.timewait);
        if let Wire::Plain { header, ack } = &mut c.wire {
            set!(*header, self.header);
            set!(*ack, self.ack);
        }
        c
    }

    /// CCID 2's configuration: its defaults with the given keys applied.
    pub fn ccid2_config(&self) -> Ccid2Config {
        let mut c = Ccid2Config::default();
        macro_rules! set {
            ($dst:expr, $src:expr) => {
                if let Some(v) = $src {
                    $dst = v;
                }
            };
        }
        set!(c.send_buffer, self.send_buffer);
        set!(c.handshake, self.handshake);
        set!(c.packet, self.packet);
        set!(c.ack_ratio, self.ack_ratio);
        set!(c.ack_delay, self.ack_delay);
        set!(c.ecn, self.ecn);
        set!(c.closer, self.closer);
        set!(c.timewait, self.timewait);
        c
    }

    /// A CCID 2 table with every key written.
    pub fn from_ccid2(c: &Ccid2Config) -> Self {
        RateDoc {
            ccid: Some(2),
            send_buffer: Some(c.send_buffer),
            handshake: Some(c.handshake),
            packet: Some(c.packet),
            ack_ratio: Some(c.ack_ratio),
            ack_delay: Some(c.ack_delay),
            ecn: Some(c.ecn),
            closer: Some(c.closer),
            timewait: Some(c.timewait),
            ..RateDoc::default()
        }
    }

    /// Every key written, as resolved.
    pub fn from_config(c: &RateConfig) -> Self {
        let t = &c.tfrc;
        let (dccp, ccid, header, ack) = match c.wire {
            Wire::Dccp { ccid } => (true, Some(ccid), None, None),
            Wire::Plain { header, ack } => (false, None, Some(header), Some(ack)),
        };
        RateDoc {
            ccid,
            tfrc: Some(t.spec),
            faster_restart: Some(t.faster_restart),
            variant: Some(t.variant),
            send_buffer: Some(c.send_buffer),
            handshake: dccp.then_some(c.handshake),
            ecn: Some(c.ecn),
            small_packets: (!dccp).then_some(t.small_packets),
            sp_header: t.small_packets.then_some(t.header),
            min_interval: t.small_packets.then_some(t.min_interval),
            short_intervals: t.small_packets.then_some(t.short_intervals),
            dynamic_feedback: Some(t.dynamic_feedback),
            oscillation_reduction: Some(t.oscillation_reduction),
            nominal_rtt: Some(t.nominal_rtt),
            rto: Some(t.rto),
            granularity: Some(t.granularity),
            discounting: Some(t.discounting),
            erratum_1458: (t.spec == TfrcSpec::Rfc3448).then_some(t.erratum_1458),
            t_mbi: Some(t.t_mbi),
            packet: Some(c.packet),
            loss_intervals: dccp.then_some(c.loss_intervals),
            header,
            ack,
            ack_ratio: None,
            ack_delay: None,
            closer: dccp.then_some(c.closer),
            timewait: dccp.then_some(c.timewait),
        }
    }
}

mod ccid {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u8>, D::Error> {
        let v: u8 = Int::<0, 255>::deserialize(d)?;
        Ok(Some(v))
    }
    pub fn serialize<S: Serializer>(v: &Option<u8>, s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }
}

mod opt_ack_ratio {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u16>, D::Error> {
        Int::<1, 1000>::deserialize(d).map(Some)
    }
    pub fn serialize<S: Serializer>(v: &Option<u16>, s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }
}

mod opt_packets {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        Packets::<1, 10_000_000>::deserialize(d).map(Some)
    }
    pub fn serialize<S: Serializer>(v: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
        Packets::<1, 10_000_000>::serialize(&v.unwrap_or(0), s)
    }
}

mod opt_bytes {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        Bytes::<1, 65_535>::deserialize(d).map(Some)
    }
    pub fn serialize<S: Serializer>(v: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
        Bytes::<1, 65_535>::serialize(&v.unwrap_or(0), s)
    }
}

/// A size that may be 0 (a datagram header already counted in the segment).
mod opt_bytes0 {
    use super::*;
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        Bytes::<0, 65_535>::deserialize(d).map(Some)
    }
    pub fn serialize<S: Serializer>(v: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
        Bytes::<0, 65_535>::serialize(&v.unwrap_or(0), s)
    }
}

macro_rules! named_opt {
    ($m:ident, $t:ty) => {
        mod $m {
            use super::*;
            pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<$t>, D::Error> {
                let names = <$t>::ALL.map(<$t>::name);
                fields::named(d, &names, <$t>::from_name).map(Some)
            }
            pub fn serialize<S: Serializer>(v: &Option<$t>, s: S) -> Result<S::Ok, S::Error> {
                v.map(<$t>::name).serialize(s)
            }
        }
    };
}
named_opt!(spec_name, TfrcSpec);
named_opt!(variant_name, Variant);
named_opt!(rto_name, RtoRule);
named_opt!(closer_name, Closer);

/// `faster_restart = true` (the draft), `false`, or a name.
mod faster_restart {
    use super::*;
    use serde::de::{self, Visitor};
    use std::fmt;

    const ALLOWED: &str = "true, false, or one of \"off\", \"draft\", \"emulated\"";
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = FasterRestart;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(ALLOWED)
        }
        fn visit_bool<E: de::Error>(self, b: bool) -> Result<FasterRestart, E> {
            Ok(if b { FasterRestart::Draft } else { FasterRestart::Off })
        }
        fn visit_str<E: de::Error>(self, s: &str) -> Result<FasterRestart, E> {
            FasterRestart::from_name(s).ok_or_else(|| E::custom(ALLOWED))
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<FasterRestart>, D::Error> {
        d.deserialize_any(V).map(Some)
    }
    pub fn serialize<S: Serializer>(v: &Option<FasterRestart>, s: S) -> Result<S::Ok, S::Error> {
        v.map(FasterRestart::name).serialize(s)
    }
}

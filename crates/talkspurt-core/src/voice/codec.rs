//! Codecs as traffic sources: frame duration, frame size, look-ahead, and
//! the key of their E-model impairment figures (`quality::codec_impairments`).
//!
//! Frame sizes are the codecs' own bitstreams rounded up to whole octets
//! (RTP payload formats carry octet-aligned frames, RFC 3551 §4.5, RFC 4867
//! for AMR in bandwidth-efficient mode rounded per frame). Sources:
//! G.711 (RFC 3551 §4.5.14: 8 bits per sample, 10 ms frame convention for
//! packetization), G.729 (ITU-T G.729 §1: 10 ms frames, 80 bits, 5 ms
//! look-ahead), G.723.1 (§1: 30 ms frames of 24/20 octets, 7.5 ms look-ahead),
//! GSM 06.10 full rate (20 ms, 33 octets in RTP, RFC 3551 §4.5.8),
//! AMR-NB (3GPP TS 26.071/26.101: 20 ms frames, 5 ms look-ahead; class
//! A+B+C bits per mode 95…244), Speex narrowband (Valin, Speex manual:
//! 20 ms frames, 10 ms look-ahead; bits per frame per mode 43…492).

use crate::time::SimDuration;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Codec {
    /// Name as written in scenario files.
    pub name: &'static str,
    /// Duration of one codec frame.
    pub frame: SimDuration,
    /// Octets per frame on the wire (payload only).
    pub frame_bytes: u32,
    /// Algorithmic look-ahead (adds to mouth-to-ear delay).
    pub lookahead: SimDuration,
    /// Key into `quality::codec_impairments` for Ie and Bpl.
    pub emodel_key: &'static str,
    /// Cole–Rosenbluth loss coefficients (λ1, λ2, λ3), seed 000 Table 4.1,
    /// where published; the simplified E-model is undefined otherwise.
    pub lambda: Option<[f64; 3]>,
}

impl Codec {
    /// Nominal payload bit rate in bits per second.
    pub fn bitrate_bps(&self) -> f64 {
        self.frame_bytes as f64 * 8.0 / self.frame.as_secs_f64()
    }
}

const MS: u64 = 1_000_000;

const fn c(
    name: &'static str,
    frame_us: u64,
    frame_bytes: u32,
    lookahead_us: u64,
    emodel_key: &'static str,
    lambda: Option<[f64; 3]>,
) -> Codec {
    Codec {
        name,
        frame: SimDuration::from_micros(frame_us),
        frame_bytes,
        lookahead: SimDuration::from_micros(lookahead_us),
        emodel_key,
        lambda,
    }
}

/// Cole & Rosenbluth 2001 via seed 000 Table 4.1.
const L_G711: Option<[f64; 3]> = Some([0.0, 30.0, 15.0]);
const L_G729: Option<[f64; 3]> = Some([10.0, 47.82, 18.0]);
const L_G729A_VAD: Option<[f64; 3]> = Some([11.0, 30.0, 16.0]);

pub const CODECS: &[Codec] = &[
    c("G.711", 10_000, 80, 0, "G.711", L_G711),
    c("G.711-noPLC", 10_000, 80, 0, "G.711-noPLC", L_G711),
    c("G.729", 10_000, 10, 5_000, "G.729", L_G729),
    c("G.729A+VAD", 10_000, 10, 5_000, "G.729A+VAD", L_G729A_VAD),
    c("G.723.1-5.3", 30_000, 20, 7_500, "G.723.1-5.3", None),
    c("G.723.1-6.3", 30_000, 24, 7_500, "G.723.1-6.3", None),
    c("GSM-FR", 20_000, 33, 0, "GSM-FR", None),
    c("AMR-NB-4.75", 20_000, 12, 5_000, "AMR-NB-4.75", None),
    c("AMR-NB-5.15", 20_000, 13, 5_000, "AMR-NB-5.15", None),
    c("AMR-NB-5.9", 20_000, 15, 5_000, "AMR-NB-5.9", None),
    c("AMR-NB-6.7", 20_000, 17, 5_000, "AMR-NB-6.7", None),
    c("AMR-NB-7.4", 20_000, 19, 5_000, "AMR-NB-7.4", None),
    c("AMR-NB-7.95", 20_000, 20, 5_000, "AMR-NB-7.95", None),
    c("AMR-NB-10.2", 20_000, 26, 5_000, "AMR-NB-10.2", None),
    c("AMR-NB-12.2", 20_000, 31, 5_000, "AMR-NB-12.2", None),
    // Speex narrowband modes 1–8 by bit rate; seed 003 scores Speex with
    // G.729's impairment figures (no ITU values exist).
    c("Speex-NB-2.15", 20_000, 6, 10_000, "Speex-NB", None),
    c("Speex-NB-3.95", 20_000, 10, 10_000, "Speex-NB", None),
    c("Speex-NB-5.95", 20_000, 15, 10_000, "Speex-NB", None),
    c("Speex-NB-8", 20_000, 20, 10_000, "Speex-NB", None),
    c("Speex-NB-11", 20_000, 28, 10_000, "Speex-NB", None),
    c("Speex-NB-15", 20_000, 38, 10_000, "Speex-NB", None),
    c("Speex-NB-18.2", 20_000, 46, 10_000, "Speex-NB", None),
    c("Speex-NB-24.6", 20_000, 62, 10_000, "Speex-NB", None),
];

/// RTP payload type and clock rate (RFC 3551 Table 4: PCMU 0, GSM 3,
/// G723 4, G729 18, all 8000 Hz; the others take dynamic type 96, and
/// AMR-NB (RFC 4867 §8.1) and narrowband Speex (RFC 5574 §6) run at 8000 Hz).
pub fn rtp_format(codec: &Codec) -> (u8, u32) {
    let pt = match codec.name {
        n if n.starts_with("G.711") => 0,
        "GSM-FR" => 3,
        n if n.starts_with("G.723.1") => 4,
        n if n.starts_with("G.729") => 18,
        _ => 96,
    };
    (pt, 8000)
}

/// Look a codec up by its scenario name (exact match).
pub fn lookup(name: &str) -> Option<&'static Codec> {
    CODECS.iter().find(|c| c.name == name)
}

/// The families whose modes an adaptation may switch between (the issue's
/// AMR-NB and Speex narrowband; G.723.1's two rates are left fixed).
pub const MODE_FAMILIES: [&str; 2] = ["AMR-NB", "Speex-NB"];

/// A multi-rate codec's family: "AMR-NB-7.4" → "AMR-NB".
pub fn family(codec: &Codec) -> Option<&'static str> {
    MODE_FAMILIES.into_iter().find(|f| codec.name.strip_prefix(f).is_some_and(|r| r.starts_with('-')))
}

/// The modes of a multi-rate codec's family (AMR-NB's eight, 4.75–12.2
/// kb/s; Speex narrowband's modes 1–8), in ascending bit rate; empty for a
/// single-rate codec. All share the frame, so a switch changes only the
/// octets per frame (AMR may change mode at any frame, the receiver
/// asking through RFC 4867's codec mode request).
pub fn modes(codec: &Codec) -> Vec<&'static Codec> {
    let Some(fam) = family(codec) else { return Vec::new() };
    let mut v: Vec<&'static Codec> = CODECS.iter().filter(|c| family(c) == Some(fam)).collect();
    v.sort_by_key(|c| c.frame_bytes);
    v
}

/// All codec names, for error messages.
pub fn names() -> Vec<&'static str> {
    CODECS.iter().map(|c| c.name).collect()
}

/// Packetization limits: ptime must be a whole number of frames within
/// [10 ms, 1 s], or exactly one frame where the frame alone exceeds 10 ms.
/// 80 ms (`PTIME_MAX`) is the usual ceiling (seed 001's adaptation range);
/// longer ptimes (seed 004's 125 ms interval) are allowed up to `PTIME_LIMIT`.
pub const PTIME_MIN: SimDuration = SimDuration(10 * MS);
pub const PTIME_MAX: SimDuration = SimDuration(80 * MS);
pub const PTIME_LIMIT: SimDuration = SimDuration(1000 * MS);

/// Check a ptime against a codec (10 ms – 1 s); `Err` says what is allowed.
pub fn check_ptime(codec: &Codec, ptime: SimDuration) -> Result<u32, String> {
    check_ptime_within(codec, ptime, PTIME_LIMIT)
}

/// Check a ptime against a codec and an upper bound (`PTIME_MAX` for the
/// adaptation ranges of seed 001, `PTIME_LIMIT` for a fixed ptime).
pub fn check_ptime_within(codec: &Codec, ptime: SimDuration, max: SimDuration) -> Result<u32, String> {
    let f = codec.frame.as_nanos();
    let allowed = || {
        let mut v = Vec::new();
        let mut k = 1;
        while f * k <= PTIME_MAX.as_nanos().min(max.as_nanos()) {
            if f * k >= PTIME_MIN.as_nanos() {
                v.push(format!("{}ms", (f * k) as f64 / MS as f64));
            }
            k += 1;
        }
        let (top, more) = if max > PTIME_MAX { ("1 s", ", … up to 1000ms") } else { ("80 ms", "") };
        format!("a multiple of the {} frame ({} ms) between 10 ms and {top}: {}{more}",
            codec.name, f as f64 / MS as f64, v.join(", "))
    };
    let p = ptime.as_nanos();
    if p == 0 || !p.is_multiple_of(f) || p < PTIME_MIN.as_nanos() || p > max.as_nanos() {
        return Err(allowed());
    }
    Ok((p / f) as u32)
}

/// Default ptime: 20 ms, or one frame where the frame is longer (G.723.1).
pub fn default_ptime(codec: &Codec) -> SimDuration {
    let twenty = SimDuration(20 * MS);
    if codec.frame > twenty {
        codec.frame
    } else {
        twenty
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nominal_rates() {
        // G.711 64 kb/s, G.729 8 kb/s, G.723.1 6.4/5.33 kb/s (octet-aligned),
        // GSM-FR 13.2 kb/s (33 octets / 20 ms), AMR 12.2 → 12.4 kb/s.
        let r = |n| lookup(n).unwrap().bitrate_bps();
        assert_eq!(r("G.711"), 64_000.0);
        assert_eq!(r("G.729"), 8_000.0);
        assert!((r("G.723.1-6.3") - 6_400.0).abs() < 1e-9);
        assert_eq!(r("GSM-FR"), 13_200.0);
        assert_eq!(r("AMR-NB-12.2"), 12_400.0);
    }

    #[test]
    fn mode_families() {
        let amr: Vec<&str> = modes(lookup("AMR-NB-7.4").unwrap()).iter().map(|c| c.name).collect();
        assert_eq!(amr, ["AMR-NB-4.75", "AMR-NB-5.15", "AMR-NB-5.9", "AMR-NB-6.7", "AMR-NB-7.4", "AMR-NB-7.95", "AMR-NB-10.2", "AMR-NB-12.2"]);
        let speex = modes(lookup("Speex-NB-8").unwrap());
        assert_eq!((speex.len(), speex[0].name, speex[7].name), (8, "Speex-NB-2.15", "Speex-NB-24.6"));
        assert!(modes(lookup("G.711").unwrap()).is_empty());
        assert!(modes(lookup("G.723.1-6.3").unwrap()).is_empty());
    }

    #[test]
    fn ptime_rules() {
        let g711 = lookup("G.711").unwrap();
        assert_eq!(check_ptime(g711, SimDuration::from_millis(20)), Ok(2));
        assert!(check_ptime(g711, SimDuration::from_millis(25)).is_err());
        // Beyond 80 ms (seed 004's long intervals) up to 1 s.
        assert_eq!(check_ptime(g711, SimDuration::from_millis(120)), Ok(12));
        assert!(check_ptime(g711, SimDuration::from_millis(1010)).is_err());
        let g723 = lookup("G.723.1-6.3").unwrap();
        assert_eq!(check_ptime(g723, SimDuration::from_millis(30)), Ok(1));
        assert!(check_ptime(g723, SimDuration::from_millis(20)).is_err());
        assert_eq!(default_ptime(g723), SimDuration::from_millis(30));
        let e = check_ptime(lookup("GSM-FR").unwrap(), SimDuration::from_millis(30)).unwrap_err();
        assert!(e.contains("20ms, 40ms, 60ms, 80ms"), "{e}");
    }
}

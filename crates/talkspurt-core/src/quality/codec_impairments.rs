//! Equipment impairment Ie and packet-loss robustness Bpl per codec, for
//! `EModelParams::{ie, bpl}`. Planning values after ITU-T G.113 (11/2007)
//! Appendix I: Table I.1 (Ie, no loss) and the Bpl table of the same
//! appendix. Where G.113 has no figure, the source string says what was used
//! and why.

/// `(name, Ie, Bpl, source)`.
pub const CODEC_IMPAIRMENTS: &[(&str, f64, f64, &str)] = &[
    (
        "G.711",
        0.0,
        25.1,
        "G.113 App. I: Ie 0 (Table I.1); Bpl 25.1 with G.711 Appendix I PLC, 10 ms packets",
    ),
    (
        "G.711-noPLC",
        0.0,
        4.3,
        "G.113 App. I: Ie 0 (Table I.1); Bpl 4.3 without PLC (silence insertion)",
    ),
    (
        "G.729",
        10.0,
        19.0,
        "G.113 App. I: Ie 10 (Table I.1, CS-ACELP 8 kbit/s); no Bpl for plain G.729: \
         used 19.0 of G.729A+VAD, which shares the CS-ACELP bitstream and concealment",
    ),
    (
        "G.729A+VAD",
        11.0,
        19.0,
        "G.113 App. I: Ie 11 (Table I.1); Bpl 19.0 (PLC, 2 frames = 20 ms per packet)",
    ),
    (
        "G.723.1-5.3",
        19.0,
        16.1,
        "G.113 App. I: Ie 19 (Table I.1, ACELP 5.3 kbit/s); no Bpl for 5.3: used 16.1 of \
         the 6.3 kbit/s mode (same codec, same 30 ms frame and concealment)",
    ),
    (
        "G.723.1-6.3",
        15.0,
        16.1,
        "G.113 App. I: Ie 15 (Table I.1, MP-MLQ 6.3 kbit/s); Bpl 16.1 (+VAD, PLC, 30 ms)",
    ),
    (
        "GSM-FR",
        20.0,
        10.0,
        "G.113 App. I: Ie 20 (Table I.1, GSM 06.10 RPE-LTP 13 kbit/s); no Bpl for GSM-FR: \
         used 10.0 of GSM-EFR, the nearest GSM codec with a G.113 Bpl (both use GSM \
         substitution-and-muting concealment)",
    ),
    ("AMR-NB-4.75", 21.0, 10.0, AMR_SOURCE),
    ("AMR-NB-5.15", 19.0, 10.0, AMR_SOURCE),
    ("AMR-NB-5.9", 16.0, 10.0, AMR_SOURCE),
    ("AMR-NB-6.7", 13.0, 10.0, AMR_SOURCE),
    ("AMR-NB-7.4", 11.0, 10.0, AMR_SOURCE),
    ("AMR-NB-7.95", 10.0, 10.0, AMR_SOURCE),
    ("AMR-NB-10.2", 6.0, 10.0, AMR_SOURCE),
    (
        "AMR-NB-12.2",
        5.0,
        10.0,
        "AMR-NB 12.2 is bit-exact with GSM-EFR: Ie 5 (G.113 Table I.1, GSM 06.60) and \
         Bpl 10.0 (G.113 App. I, GSM-EFR, 20 ms)",
    ),
    (
        "Speex-NB",
        10.0,
        19.0,
        "no ITU figure (Speex is not an ITU codec); seed 003 §7.2 approximates Speex by \
         G.729, so this copies the G.729 row",
    ),
];

/// Source of the AMR-NB modes below 12.2 kbit/s.
const AMR_SOURCE: &str = "no G.113 figure found for this AMR-NB mode: Ie is the integer \
    recovered by inverting the tolerable-delay bounds (EL = inf) of De Vleeschauwer et al., \
    'Controlling voice quality', Table 3, through G.107 Idd, calibrated on the G.113 codecs \
    of the same table (residual < 0.25); Bpl 10.0 of GSM-EFR (= AMR 12.2, G.113 App. I), \
    as AMR's concealment derives from EFR's";

/// The packet size, ms, at which the Bpl of [`CODEC_IMPAIRMENTS`] was
/// given: G.113 App. I lists each Bpl for one packet size (G.711: 10 ms;
/// G.729A+VAD: 2 frames, 20 ms; G.723.1: 30 ms; GSM-EFR: 20 ms), and
/// borrowed rows inherit their donor's. talkspurt applies the Bpl at every
/// ptime, as G.113 gives no other value; where ptime differs the figure is
/// an extrapolation (docs/models/emodel.md, "Codec Ie and Bpl").
pub fn bpl_packet_ms(name: &str) -> Option<f64> {
    Some(match name {
        "G.711" | "G.711-noPLC" => 10.0,
        "G.723.1-5.3" | "G.723.1-6.3" => 30.0,
        "G.729" | "G.729A+VAD" | "Speex-NB" | "GSM-FR" => 20.0,
        n if n.starts_with("AMR-NB-") => 20.0,
        _ => return None,
    })
}

/// Looks up `(Ie, Bpl)` by the exact name used in [`CODEC_IMPAIRMENTS`].
pub fn codec_impairment(name: &str) -> Option<(f64, f64)> {
    CODEC_IMPAIRMENTS
        .iter()
        .find(|c| c.0 == name)
        .map(|c| (c.1, c.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_complete() {
        let want = [
            "G.711",
            "G.711-noPLC",
            "G.729",
            "G.729A+VAD",
            "G.723.1-5.3",
            "G.723.1-6.3",
            "GSM-FR",
            "AMR-NB-4.75",
            "AMR-NB-5.15",
            "AMR-NB-5.9",
            "AMR-NB-6.7",
            "AMR-NB-7.4",
            "AMR-NB-7.95",
            "AMR-NB-10.2",
            "AMR-NB-12.2",
            "Speex-NB",
        ];
        let names: Vec<&str> = CODEC_IMPAIRMENTS.iter().map(|c| c.0).collect();
        assert_eq!(names, want);
    }

    #[test]
    fn values_fit_g107_ranges_and_cite_a_source() {
        for (name, ie, bpl, src) in CODEC_IMPAIRMENTS {
            assert!(
                (0.0..=40.0).contains(ie),
                "{name}: Ie {ie} outside G.107 0..40"
            );
            assert!(
                (1.0..=40.0).contains(bpl),
                "{name}: Bpl {bpl} outside G.107 1..40"
            );
            assert!(src.len() > 20, "{name}: source string too short");
        }
    }

    #[test]
    fn every_bpl_states_its_packet_size() {
        for (name, ..) in CODEC_IMPAIRMENTS {
            assert!(bpl_packet_ms(name).is_some(), "{name}");
        }
        assert_eq!(bpl_packet_ms("G.711"), Some(10.0));
        assert_eq!(bpl_packet_ms("G.723.1-6.3"), Some(30.0));
    }

    #[test]
    fn lookup_key_rows() {
        assert_eq!(codec_impairment("G.711"), Some((0.0, 25.1)));
        assert_eq!(codec_impairment("G.711-noPLC"), Some((0.0, 4.3)));
        assert_eq!(codec_impairment("G.729A+VAD"), Some((11.0, 19.0)));
        assert_eq!(codec_impairment("G.723.1-6.3"), Some((15.0, 16.1)));
        assert_eq!(codec_impairment("Speex-NB"), codec_impairment("G.729"));
        assert_eq!(codec_impairment("g.711"), None);
        // Ie must fall as the AMR bit rate rises.
        let amr: Vec<f64> = CODEC_IMPAIRMENTS
            .iter()
            .filter(|c| c.0.starts_with("AMR"))
            .map(|c| c.1)
            .collect();
        assert!(amr.windows(2).all(|w| w[0] > w[1]), "{amr:?}");
    }
}

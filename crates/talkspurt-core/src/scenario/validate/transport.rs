//! Transport tables shared by calls and traffic: DCCP/TFRC (`rate`) and
//! TCP (`tcp`).

use super::*;

// ---------------------------------------------------------------------------
// DCCP and TFRC

/// Checks keys that span the table and resolves it (every key written).
pub(super) fn rate(cx: &Ctx, p: &str, d: &mut RateDoc, dccp: bool) -> R<()> {
    let (kind, other) = if dccp { ("dccp", "tfrc") } else { ("tfrc", "dccp") };
    let foreign: &[&str] = if dccp { &TFRC_ONLY } else { &DCCP_ONLY };
    for key in foreign {
        if cx.given(&format!("{p}.{key}")) {
            return Err(cx.err(&format!("{p}.{key}"), format!("no {key} key: it is a kind = \"{other}\" option, and kind is \"{kind}\"")));
        }
    }
    if d.ccid.is_some_and(|c| !matches!(c, 2..=4)) {
        return Err(cx.err(
            &format!("{p}.ccid"),
            "2 (CCID 2, TCP-like, RFC 4341), 3 (CCID 3, TFRC, RFC 4342) or 4 (CCID 4, TFRC-SP, RFC 5622)",
        ));
    }
    if dccp && d.ccid == Some(2) {
        for key in cx.keys_of(p) {
            if !CCID2_KEYS.contains(&key.as_str()) {
                return Err(cx.err(&format!("{p}.{key}"), format!("no {key} key with ccid = 2: it is a CCID 3/4 (TFRC) option; CCID 2 takes {}", CCID2_KEYS[1..].join(", "))));
            }
        }
        *d = RateDoc::from_ccid2(&d.ccid2_config());
        return Ok(());
    }
    for key in CCID2_ONLY {
        if cx.given(&format!("{p}.{key}")) {
            return Err(cx.err(&format!("{p}.{key}"), format!("no {key} key: it is a CCID 2 option (ccid = 2)")));
        }
    }
    let c = d.config(dccp);
    let sp = c.tfrc.small_packets;
    let sp_what = if dccp { "ccid = 4" } else { "small_packets = true" };
    if matches!(c.tfrc.variant, Variant::N | Variant::N100) && !sp {
        return Err(cx.err(
            &format!("{p}.variant"),
            format!(
                "\"standard\" or \"fr-md\" here: \"{}\" is seed 003's CCID 4 variant (TFRC-SP), which needs {sp_what}",
                c.tfrc.variant.name()
            ),
        ));
    }
    if c.tfrc.variant == Variant::FrMd && c.tfrc.faster_restart == FasterRestart::Off {
        return Err(cx.err(
            &format!("{p}.variant"),
            "\"fr-md\" only with Faster Restart: seed 000's FR-MD is Faster Restart with an 8-packet floor; set faster_restart = \"emulated\" (seed 000 §2.2.4's emulation, the rate quadrupling per feedback in congestion avoidance) or \"draft\" (the Faster Restart draft's X_fast_max rule, which behaves differently; true means \"draft\"), or choose another variant",
        ));
    }
    if c.tfrc.spec != TfrcSpec::Rfc3448 && cx.given(&format!("{p}.erratum_1458")) {
        return Err(cx.err(
            &format!("{p}.erratum_1458"),
            format!("no erratum_1458 key with tfrc = \"{}\": it selects RFC 3448's nofeedback rule, so set tfrc = \"rfc3448\"", c.tfrc.spec.name()),
        ));
    }
    for key in ["sp_header", "min_interval", "short_intervals"] {
        if !sp && cx.given(&format!("{p}.{key}")) {
            return Err(cx.err(&format!("{p}.{key}"), format!("no {key} key without TFRC-SP ({sp_what})")));
        }
    }
    *d = RateDoc::from_config(&c);
    Ok(())
}

// ---------------------------------------------------------------------------
// TCP

/// One full segment's data in words: "mss = 1460B", or with timestamps
/// "mss = 1460B less 12 B of timestamps = 1448B" (`TcpConfig::smss`).
fn segment(t: &TcpConfig) -> String {
    match t.data_segment_options() {
        0 => format!("mss = {}B", t.mss),
        o => format!("mss = {}B less {o} B of timestamps = {}B", t.mss, t.smss()),
    }
}

pub(super) fn tcp(cx: &Ctx, p: &str, t: &mut TcpConfig) -> R<()> {
    let cc = t.cc.name();
    for key in CC_TABLES {
        let owners = table_owners(key);
        if cx.given(&format!("{p}.{key}")) && !owners.contains(&t.cc) {
            let owner = owners.iter().map(|o| format!("cc = \"{}\"", o.name())).collect::<Vec<_>>().join(" or ");
            return Err(cx.err(&format!("{p}.{key}"), format!("no {key} table: it configures {owner}, and cc is \"{cc}\"")));
        }
    }
    let recovery = t.recovery();
    if recovery == Recovery::Sack && t.sack == Some(false) {
        let why =
            if t.recovery.is_some() { String::new() } else { format!(", the default for cc = \"{cc}\"") };
        return Err(cx.err(
            &format!("{p}.sack"),
            format!("true: recovery is \"sack\"{why}, which needs SACK blocks (RFC 6675)"),
        ));
    }
    t.recovery = Some(recovery);
    t.sack = Some(t.sack());
    // RFC 6298 §2: the RTO starts at initial_rto and stays within [min_rto, max_rto].
    cx.order(p, ("min_rto", t.min_rto), ("max_rto", t.max_rto), true, ("a duration", dur))?;
    cx.order(p, ("min_rto", t.min_rto), ("initial_rto", t.initial_rto), true, ("a duration", dur))?;
    cx.order(p, ("initial_rto", t.initial_rto), ("max_rto", t.max_rto), false, ("a duration", dur))?;
    // RFC 6691 §2: the options of a data segment come out of the mss, so
    // the mss must leave data: more than the 12 B of timestamps.
    let opts = t.data_segment_options();
    if t.mss <= opts {
        return Err(cx.err(
            &format!("{p}.mss"),
            format!("an mss above {opts}B with timestamps = true: the timestamps option's {opts} B come out of the mss of every data segment (RFC 6691 §2, RFC 7323 §3), leaving mss − {opts} B of data"),
        ));
    }
    // "Np" is N full segments of SMSS bytes (tcp.rs): the product within window scaling's 2^30 B.
    if t.rcv_window > super::super::tcp::MAX_RCV_WINDOW {
        return Err(cx.err(
            &format!("{p}.rcv_window"),
            format!("a window of at most 1073741824B (2^30, RFC 7323 §2.3); that many segments of {} is {}B", segment(t), t.rcv_window),
        ));
    }
    // A window below one segment could never send a full segment (SMSS
    // data bytes: mss less the timestamps option, RFC 6691 §2).
    if t.rcv_window < t.smss() {
        return Err(if cx.given(&format!("{p}.rcv_window")) {
            cx.err(&format!("{p}.rcv_window"), format!("a window of at least one segment ({}); a window below one segment cannot carry a full segment", segment(t)))
        } else {
            cx.err(
                &format!("{p}.mss"),
                if opts == 0 {
                    format!("an mss of at most rcv_window ({}B, the default)", t.rcv_window)
                } else {
                    format!("an mss of at most {}B: rcv_window ({}B, the default) plus the {opts} B of timestamps, which a segment's data leaves out (RFC 6691 §2)", t.rcv_window + opts as u64, t.rcv_window)
                },
            )
        });
    }
    if t.cc == crate::cc::CcAlgorithm::Vegas {
        let v = t.params.vegas;
        // Brakmo & Peterson: grow below α, shrink above β, so α ≤ β.
        cx.order(
            &format!("{p}.vegas"),
            ("alpha", v.alpha),
            ("beta", v.beta),
            true,
            ("a number", |x: f64| x.to_string()),
        )?;
    }
    Ok(())
}

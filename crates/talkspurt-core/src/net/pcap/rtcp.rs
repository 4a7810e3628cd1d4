//! A compound RTCP packet (RFC 3550 §6.1) as bytes: SR or RR (§6.4), SDES
//! with a CNAME (§6.5), then a Generic NACK (RFC 4585 §6.2.1) and an XR
//! VoIP Metrics block (RFC 3611 §4.7) and an APP packet carrying the
//! mean one-way delay (RFC 3550 §6.7, seed 004's AVoIP) when present. The byte counts are
//! `Rtcp::wire_len`'s.

use crate::net::wire::Rtcp;

const PT_SR: u8 = 200;
const PT_RR: u8 = 201;
const PT_SDES: u8 = 202;
const PT_RTPFB: u8 = 205;
const PT_XR: u8 = 207;
const PT_APP: u8 = 204;

/// The common header: V = 2, no padding, a 5-bit count, the type, and the
/// length in 32-bit words minus one.
fn common(out: &mut Vec<u8>, count: u8, pt: u8, bytes: usize) {
    out.push(0x80 | (count & 0x1f));
    out.push(pt);
    out.extend_from_slice(&((bytes / 4 - 1) as u16).to_be_bytes());
}

fn u32be(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes());
}

pub(super) fn compound(out: &mut Vec<u8>, r: &Rtcp) {
    let blocks = 24 * r.blocks.len();
    match &r.sender {
        Some(si) => {
            common(out, r.blocks.len() as u8, PT_SR, 28 + blocks);
            u32be(out, r.ssrc);
            out.extend_from_slice(&si.ntp.to_be_bytes());
            for v in [si.rtp_ts, si.packets, si.octets] {
                u32be(out, v);
            }
        }
        None => {
            common(out, r.blocks.len() as u8, PT_RR, 8 + blocks);
            u32be(out, r.ssrc);
        }
    }
    for b in &r.blocks {
        u32be(out, b.ssrc);
        u32be(out, (b.fraction_lost as u32) << 24 | (b.cum_lost as u32 & 0x00ff_ffff));
        for v in [b.ext_high_seq, b.jitter, b.lsr, b.dlsr] {
            u32be(out, v);
        }
    }
    // SDES: one chunk, a CNAME item (type 1), a null terminator and nulls
    // to the next 32-bit boundary. The text is the SSRC in hex, repeated.
    let n = r.cname_len as usize;
    let chunk = (4 + 2 + n + 1).div_ceil(4) * 4;
    common(out, 1, PT_SDES, 4 + chunk);
    u32be(out, r.ssrc);
    out.extend_from_slice(&[1, r.cname_len]);
    let hex = format!("{:08x}", r.ssrc);
    out.extend(hex.bytes().cycle().take(n));
    out.resize(out.len() + chunk - 4 - 2 - n, 0);
    let media = r.blocks.first().map_or(0, |b| b.ssrc);
    if !r.nacks.is_empty() {
        common(out, 1, PT_RTPFB, 12 + 4 * r.nacks.len()); // FMT 1: Generic NACK
        u32be(out, r.ssrc);
        u32be(out, media);
        for k in &r.nacks {
            out.extend_from_slice(&k.pid.to_be_bytes());
            out.extend_from_slice(&k.blp.to_be_bytes());
        }
    }
    if let Some(m) = &r.xr {
        common(out, 0, PT_XR, 8 + 36);
        u32be(out, r.ssrc);
        out.extend_from_slice(&[7, 0, 0, 8]); // BT = 7, block length 8 words
        u32be(out, media);
        out.extend_from_slice(&[m.loss_rate, m.discard_rate, m.burst_density, m.gap_density]);
        for v in [m.burst_duration, m.gap_duration, m.round_trip_delay, 0] {
            out.extend_from_slice(&v.to_be_bytes());
        }
        // Signal, noise, RERL: 127 "unavailable"; Gmin 16 (the default);
        // R factors and MOS: 127 "unavailable"; RX config 0; jitter
        // buffer sizes 0 (unreported).
        out.extend_from_slice(&[127, 127, 127, 16, 127, 127, 127, 127, 0, 0, 0, 0, 0, 0, 0, 0]);
    }
    if let Some(d) = r.owd {
        // APP (RFC 3550 §6.7), subtype 0, name "OWDM", one word: the mean
        // one-way delay in 1/65536 s.
        common(out, 0, PT_APP, 16);
        u32be(out, r.ssrc);
        out.extend_from_slice(b"OWDM");
        u32be(out, d);
    }
}

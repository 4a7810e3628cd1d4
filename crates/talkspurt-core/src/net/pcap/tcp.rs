//! The TCP header (RFC 9293 §3.1) with the model's options. Sequence
//! numbers are the stream offsets modulo 2³² (initial sequence number 0).

use super::Endpoints;
use crate::net::wire::{TcpFlags, TcpHeader};

/// Write the header; the checksum is left zero (the caller fills it).
pub(super) fn header(out: &mut Vec<u8>, h: &TcpHeader, ep: &Endpoints) {
    let start = out.len();
    let len = h.wire_len() as usize;
    out.extend_from_slice(&ep.sport.to_be_bytes());
    out.extend_from_slice(&ep.dport.to_be_bytes());
    out.extend_from_slice(&(h.seq as u32).to_be_bytes());
    let ack = if h.flags.has(TcpFlags::ACK) { h.ack as u32 } else { 0 };
    out.extend_from_slice(&ack.to_be_bytes());
    out.push(((len / 4) as u8) << 4);
    let mut bits = 0u8;
    for (ours, wire) in [
        (TcpFlags::FIN, 0x01),
        (TcpFlags::SYN, 0x02),
        (TcpFlags::ACK, 0x10),
        (TcpFlags::ECE, 0x40),
        (TcpFlags::CWR, 0x80),
    ] {
        if h.flags.has(ours) {
            bits |= wire;
        }
    }
    if h.len > 0 {
        bits |= 0x08; // PSH: every segment is handed over at once
    }
    out.push(bits);
    // The model assumes window scaling without negotiating it: the field
    // holds the window capped at 65535 (no scale option on the SYN).
    out.extend_from_slice(&(h.wnd.min(65_535) as u16).to_be_bytes());
    out.extend_from_slice(&[0; 4]); // checksum, urgent pointer
    if h.timestamps {
        // RFC 7323 §3: NOP, NOP, kind 8, length 10, TSval, TSecr (the model
        // keeps no clock values: zero).
        out.extend_from_slice(&[1, 1, 8, 10, 0, 0, 0, 0, 0, 0, 0, 0]);
    }
    if let Some(s) = h.sack().filter(|s| !s.is_empty()) {
        // RFC 2018 §3: kind 5, length 2 + 8n, left and right edges.
        out.extend_from_slice(&[5, 2 + 8 * s.len() as u8]);
        for &(a, b) in s.blocks() {
            out.extend_from_slice(&(a as u32).to_be_bytes());
            out.extend_from_slice(&(b as u32).to_be_bytes());
        }
    }
    if let Some(r) = &h.cc_report() {
        // Experimental option kind 254 (RFC 4727, RFC 6994), 8 bytes:
        // 16-bit report number, code, 24-bit value (the f32 truncated).
        out.extend_from_slice(&[254, 8]);
        out.extend_from_slice(&(r.seq as u16).to_be_bytes());
        out.push(r.code);
        let v = (r.value.max(0.0) as u32).min(0xff_ffff);
        out.extend_from_slice(&v.to_be_bytes()[1..]);
    }
    out.resize(start + len, 0); // End of Option List, then zero padding
}

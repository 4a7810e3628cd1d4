//! The DCCP header (RFC 4340 §5) with 48-bit sequence numbers (X = 1) and
//! the options the CCIDs exchange (RFC 4340 §11.3–11.4, §13.2; RFC 4342
//! §8). Options are written in the order `DccpHeader::wire_len` counts
//! them and padded with Padding options (type 0) to its length.

use super::Endpoints;
use crate::net::wire::dccp::{opt_elapsed, ACK_VECTOR_RUN};
use crate::net::wire::{DccpHeader, DccpType};

/// Write the header; the checksum is left zero (the caller fills it).
pub(super) fn header(out: &mut Vec<u8>, h: &DccpHeader, ep: &Endpoints) {
    let start = out.len();
    let len = h.wire_len() as usize;
    out.extend_from_slice(&ep.sport.to_be_bytes());
    out.extend_from_slice(&ep.dport.to_be_bytes());
    out.push((len / 4) as u8);
    out.push((h.ccval & 0x0f) << 4); // CsCov = 0: the whole packet
    out.extend_from_slice(&[0, 0]); // checksum
    let ptype = match h.ptype {
        DccpType::Request => 0,
        DccpType::Response => 1,
        DccpType::Data => 2,
        DccpType::Ack => 3,
        DccpType::DataAck => 4,
        DccpType::CloseReq => 5,
        DccpType::Close => 6,
        DccpType::Reset => 7,
    };
    out.push(ptype << 1 | 1); // Res = 0, Type, X = 1
    out.push(0);
    out.extend_from_slice(&seq48(h.seq));
    if h.ptype.has_ack() {
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&seq48(h.ack));
    }
    match h.ptype {
        DccpType::Request | DccpType::Response => out.extend_from_slice(&[0; 4]), // Service Code 0
        DccpType::Reset => out.extend_from_slice(&[h.reset_code, 0, 0, 0]), // Reset Code, Data 1–3
        _ => {}
    }
    if h.ack_vector > 0 {
        ack_vector(out, h, h.ack_vector as usize - 2);
    }
    if h.ack_ratio > 0 {
        // Change R (type 34), feature 5 = Ack Ratio, 2-byte value.
        out.extend_from_slice(&[34, 5, 5]);
        out.extend_from_slice(&h.ack_ratio.to_be_bytes());
    }
    if let Some(t) = &h.tfrc {
        // Elapsed Time (type 43) in units of 10 µs, 2 or 4 bytes.
        let units = t.elapsed.as_nanos() / 10_000;
        if opt_elapsed(t.elapsed) == 4 {
            out.extend_from_slice(&[43, 4]);
            out.extend_from_slice(&(units as u16).to_be_bytes());
        } else {
            out.extend_from_slice(&[43, 6]);
            out.extend_from_slice(&(units.min(u32::MAX as u64) as u32).to_be_bytes());
        }
        // Receive Rate (194), bytes per second.
        out.extend_from_slice(&[194, 6]);
        out.extend_from_slice(&(t.x_recv.clamp(0.0, u32::MAX as f64) as u32).to_be_bytes());
        // Loss Event Rate (192): the inverse of p rounded up, all ones
        // for no loss (RFC 4342 §8.5).
        let inv = if t.p > 0.0 { (1.0 / t.p).ceil().min(u32::MAX as f64) as u32 } else { u32::MAX };
        out.extend_from_slice(&[192, 6]);
        out.extend_from_slice(&inv.to_be_bytes());
        if t.intervals > 0 {
            // Loss Intervals (193): skip length, then 9 bytes per interval.
            // The model keeps no interval lengths on the wire: zeros.
            out.extend_from_slice(&[193, 3 + 9 * t.intervals, 0]);
            out.resize(out.len() + 9 * t.intervals as usize, 0);
        }
    }
    out.resize(start + len, 0);
}

fn seq48(s: u64) -> [u8; 6] {
    let b = s.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

/// Ack Vector [Nonce 0] (type 38): cells from the acknowledged number
/// down, each a state (0 received, 1 ECN-marked, 3 not received) and a
/// run length of up to 64 packets (RFC 4340 §11.4), from the received
/// ranges the model carries. `cells` is the count the model sized the
/// option by (its window's runs, the missing stretch below the oldest
/// range included), so walking down until that many cells are written
/// reproduces it; the length byte says what was written.
fn ack_vector(out: &mut Vec<u8>, h: &DccpHeader, cells: usize) {
    let cells = cells.min(253);
    let at = out.len();
    out.extend_from_slice(&[38, 2]);
    let state = |s: u64| -> u8 {
        if !h.received.iter().any(|&(a, b)| s >= a && s < b) {
            3
        } else if h.marked.binary_search(&s).is_ok() {
            1
        } else {
            0
        }
    };
    let (mut written, mut s) = (0usize, h.ack as i64);
    while s >= 0 && written < cells {
        let st = state(s as u64);
        let mut run = 1u64;
        while run < ACK_VECTOR_RUN && s - run as i64 >= 0 && state((s - run as i64) as u64) == st {
            run += 1;
        }
        out.push(st << 6 | (run - 1) as u8);
        written += 1;
        s -= run as i64;
    }
    out[at + 1] = 2 + written as u8;
}

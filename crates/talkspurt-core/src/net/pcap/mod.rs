//! Packets as bytes: a simulated packet rebuilt as the IPv4 datagram it
//! stands for, and the classic libpcap file format around it, so that
//! Wireshark and tshark read a simulated trace like a captured one.
//!
//! - File: libpcap with nanosecond timestamps (magic 0xa1b23c4d), link type
//!   LINKTYPE_RAW (101: the record starts at the IPv4 header), whole
//!   packets (snaplen 65535).
//! - IPv4 (RFC 791): the packet's simulated size is the total length; the
//!   ECN field (RFC 3168) is the packet's; DF set, TTL 64, identification a
//!   per-file counter; header checksum computed.
//! - UDP (RFC 768), TCP (RFC 9293), DCCP (RFC 4340): checksums computed over
//!   the RFC's pseudo-header. The payload after the headers the model knows
//!   (RTP, RTCP) is zero bytes filled to the simulated size.
//! - Headers without a standard wire format (the plain TFRC transport's,
//!   the echo test transport's) travel as UDP with an opaque zero payload.
//!
//! Addresses and ports are the caller's (`Endpoints`); `sim::capture` maps
//! nodes and flows to them.

mod dccp;
mod rtcp;
mod tcp;

use super::packet::{AppHeader, Header, Packet};
use super::wire::{IPV4_HEADER, UDP_HEADER};

/// LINKTYPE_RAW: records begin with the IP header.
pub const LINKTYPE_RAW: u32 = 101;
const MAGIC_NS: u32 = 0xa1b2_3c4d;
const SNAPLEN: u32 = 65_535;

const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
const PROTO_DCCP: u8 = 33;

/// The pcap global header (24 bytes, little-endian).
pub fn file_header() -> Vec<u8> {
    let mut b = Vec::with_capacity(24);
    b.extend_from_slice(&MAGIC_NS.to_le_bytes());
    b.extend_from_slice(&2u16.to_le_bytes());
    b.extend_from_slice(&4u16.to_le_bytes());
    b.extend_from_slice(&0i32.to_le_bytes()); // thiszone
    b.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
    b.extend_from_slice(&SNAPLEN.to_le_bytes());
    b.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
    b
}

/// Source and destination of one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endpoints {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub sport: u16,
    pub dport: u16,
}

/// Append one pcap record: `pkt` at simulated time `t_ns`, as an IPv4
/// datagram from `ep`. `ip_id` is the IPv4 identification field.
pub fn write_record(out: &mut Vec<u8>, t_ns: u64, pkt: &Packet, ep: &Endpoints, ip_id: u16) {
    let start = out.len();
    out.extend_from_slice(&((t_ns / 1_000_000_000) as u32).to_le_bytes());
    out.extend_from_slice(&((t_ns % 1_000_000_000) as u32).to_le_bytes());
    out.extend_from_slice(&[0; 8]); // lengths, filled below
    let ip = out.len();
    let proto = match &pkt.hdr {
        Header::Tcp(_) => PROTO_TCP,
        Header::Dccp(_) => PROTO_DCCP,
        _ => PROTO_UDP,
    };
    ipv4_header(out, pkt, ep, proto, ip_id);
    let l4 = out.len();
    match &pkt.hdr {
        Header::Tcp(h) => tcp::header(out, h, ep),
        Header::Dccp(h) => dccp::header(out, h, ep),
        _ => {
            out.extend_from_slice(&ep.sport.to_be_bytes());
            out.extend_from_slice(&ep.dport.to_be_bytes());
            out.extend_from_slice(&[0; 4]); // length, checksum: below
        }
    }
    match &pkt.app {
        AppHeader::Rtp(h) => {
            // V = 2, P when padded (RFC 3550 §5.1), no extension or CSRCs.
            out.push(0x80 | ((h.pad > 0) as u8) << 5);
            out.push((h.marker as u8) << 7 | (h.pt & 0x7f));
            out.extend_from_slice(&h.seq.to_be_bytes());
            out.extend_from_slice(&h.ts.to_be_bytes());
            out.extend_from_slice(&h.ssrc.to_be_bytes());
        }
        AppHeader::Rtcp(r) => rtcp::compound(out, r),
        AppHeader::None => {}
    }
    // Fill to the simulated size; a model whose size undercounts the
    // headers written above would show as a longer packet (never seen:
    // the tests check every record's length against its size).
    let want = ip + pkt.size as usize;
    if out.len() < want {
        out.resize(want, 0);
    }
    // RTP padding's last octet counts the padding octets (RFC 3550 §5.1).
    if let AppHeader::Rtp(h) = &pkt.app {
        if h.pad > 0 && !matches!(pkt.hdr, Header::Tcp(_)) {
            out[want - 1] = h.pad;
        }
    }
    let total = (out.len() - ip) as u16;
    out[ip + 2..ip + 4].copy_from_slice(&total.to_be_bytes());
    let sum = checksum(&[&out[ip..ip + IPV4_HEADER as usize]], 0);
    out[ip + 10..ip + 12].copy_from_slice(&sum.to_be_bytes());
    let seg_len = out.len() - l4;
    let pseudo = pseudo_sum(ep, proto, seg_len as u32);
    let at = match proto {
        PROTO_UDP => {
            out[l4 + 4..l4 + 6].copy_from_slice(&(seg_len as u16).to_be_bytes());
            6
        }
        PROTO_TCP => 16,
        _ => 6, // DCCP, CsCov = 0: the whole packet (RFC 4340 §9)
    };
    let mut sum = checksum(&[&out[l4..]], pseudo);
    if proto == PROTO_UDP && sum == 0 {
        sum = 0xffff; // RFC 768: a computed zero is sent as all ones
    }
    out[l4 + at..l4 + at + 2].copy_from_slice(&sum.to_be_bytes());
    let len = (out.len() - ip) as u32;
    out[start + 8..start + 12].copy_from_slice(&len.to_le_bytes());
    out[start + 12..start + 16].copy_from_slice(&len.to_le_bytes());
}

fn ipv4_header(out: &mut Vec<u8>, pkt: &Packet, ep: &Endpoints, proto: u8, id: u16) {
    out.push(0x45); // version 4, IHL 5
    out.push(pkt.ecn as u8); // DSCP 0 (best effort), ECN
    out.extend_from_slice(&[0, 0]); // total length: below
    out.extend_from_slice(&id.to_be_bytes());
    out.extend_from_slice(&0x4000u16.to_be_bytes()); // DF
    out.push(64);
    out.push(proto);
    out.extend_from_slice(&[0, 0]); // checksum: below
    out.extend_from_slice(&ep.src);
    out.extend_from_slice(&ep.dst);
}

/// The pseudo-header's one's-complement partial sum (RFC 768, RFC 9293
/// §3.1, RFC 4340 §9.1: the same layout for UDP, TCP and DCCP).
fn pseudo_sum(ep: &Endpoints, proto: u8, len: u32) -> u32 {
    let w = |b: [u8; 4]| u16::from_be_bytes([b[0], b[1]]) as u32 + u16::from_be_bytes([b[2], b[3]]) as u32;
    w(ep.src) + w(ep.dst) + proto as u32 + (len >> 16) + (len & 0xffff)
}

/// The Internet checksum (RFC 1071) of the bytes in `parts`, plus `acc`.
fn checksum(parts: &[&[u8]], mut acc: u32) -> u16 {
    for p in parts {
        let mut it = p.chunks_exact(2);
        for c in &mut it {
            acc += u16::from_be_bytes([c[0], c[1]]) as u32;
        }
        if let [x] = it.remainder() {
            acc += (*x as u32) << 8;
        }
        while acc > 0xffff {
            acc = (acc & 0xffff) + (acc >> 16);
        }
    }
    !(acc as u16)
}

/// Bytes of the IPv4 and transport headers `write_record` writes for a
/// packet (the RTP/RTCP part excluded): what its size must cover.
pub fn header_bytes(pkt: &Packet) -> u32 {
    IPV4_HEADER
        + match &pkt.hdr {
            Header::Tcp(h) => h.wire_len(),
            Header::Dccp(h) => h.wire_len(),
            _ => UDP_HEADER,
        }
}

#[cfg(test)]
mod tests;

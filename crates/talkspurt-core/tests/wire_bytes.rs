//! `packets.wire_bytes` is what the first link carries for each voice
//! packet, over every transport a call can use: the sum of a call's
//! `wire_bytes` equals the bytes of its voice packets in a capture of the
//! first link (the IP total lengths, as the channel counts them), and each
//! packet has the size the RFCs' headers give.
//!
//! G.711 at 20 ms: 160 B of payload; the call's `overhead` is the default
//! 40 B = IPv4 20 (RFC 791 §3.1) + UDP 8 (RFC 768) + RTP 12 (RFC 3550 §5.1).
//! Over another transport the IP and RTP headers stay and the transport's
//! header replaces UDP's.

use talkspurt_core::run::{run_with, RunOptions};
use talkspurt_core::scenario::from_toml_str;
use talkspurt_core::trace::Column;

/// Per transport: the IP protocol number and whether a packet of it is one
/// of the call's voice packets, from its IP datagram.
#[derive(Clone, Copy)]
enum Proto {
    Udp,
    Dccp,
    Tcp,
}

impl Proto {
    fn carries_voice(self, ip: &[u8]) -> bool {
        let l4 = &ip[20..];
        match self {
            Proto::Udp => ip[9] == 17,
            // RFC 4340 §5.1: Type in bits 3–6 of byte 8; Data 2, DataAck 4.
            Proto::Dccp => ip[9] == 33 && matches!((l4[8] >> 1) & 0xf, 2 | 4),
            // RFC 9293 §3.1: a segment with payload (Data Offset in words).
            Proto::Tcp => {
                let total = u16::from_be_bytes([ip[2], ip[3]]) as usize;
                ip[9] == 6 && total > 20 + (l4[12] >> 4) as usize * 4
            }
        }
    }
}

/// Runs one G.711 call over `transport` from a to b (one 10 Mb/s link,
/// lossless) for 5 s with the link's forward direction captured. Returns
/// (every packet's wire_bytes and whether it was sent, the bytes of the
/// voice packets in the capture).
fn run(transport: &str, proto: Proto) -> (Vec<(u32, bool)>, u64) {
    let src = format!(
        r#"
[run]
duration = "5s"
[[links]]
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"
queue = {{ kind = "droptail", limit = "1000p" }}
[[calls]]
from = "a"
to = "b"
codec = "G.711"
ptime = "20ms"
speech = {{ model = "continuous" }}
transport = {transport}
playout = {{ kind = "fixed", delay = "150ms" }}
"#
    );
    let s = from_toml_str(&src).unwrap_or_else(|e| panic!("{e}"));
    let opts = RunOptions { capture: vec!["link:0:forward".into()], capture_key: "capture".into(), ..Default::default() };
    let out = run_with(&s, &opts, &mut |_| true).unwrap();
    let p = out.report.packets.unwrap().table();
    let Some(Column::U32(wire)) = p.get("wire_bytes") else { panic!("no wire_bytes") };
    let rows = wire.iter().zip(p.f64("t_sent")).map(|(&w, t)| (w, t.is_finite())).collect();
    let (_, pcap) = &out.captures[0];
    // libpcap: 24 B file header, then per record 16 B (seconds, ns,
    // included and original length) and the packet from its IP header.
    let (mut at, mut bytes) = (24, 0u64);
    while at < pcap.len() {
        let len = |o: usize| u32::from_le_bytes(pcap[at + o..at + o + 4].try_into().unwrap()) as usize;
        let (incl, orig) = (len(8), len(12));
        let ip = &pcap[at + 16..at + 16 + incl];
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]) as usize, orig);
        if proto.carries_voice(ip) {
            bytes += orig as u64;
        }
        at += 16 + incl;
    }
    (rows, bytes)
}

/// The sum check, and every sent packet's size in `sizes`; a packet never
/// sent has 0. Returns how many were sent.
fn check(transport: &str, proto: Proto, sizes: &[u32]) -> usize {
    let (rows, captured) = run(transport, proto);
    let sent: Vec<u32> = rows.iter().filter(|r| r.1).map(|r| r.0).collect();
    assert!(sent.len() > 200, "{transport}: {} packets sent", sent.len());
    assert!(rows.iter().all(|&(w, s)| s || w == 0), "{transport}: a packet never sent has wire bytes");
    let sum: u64 = sent.iter().map(|&w| w as u64).sum();
    assert_eq!(sum, captured, "{transport}: Σ wire_bytes against the first link's voice packets");
    for &w in &sent {
        assert!(sizes.contains(&w), "{transport}: a packet of {w} B, expected one of {sizes:?}");
    }
    sent.len()
}

#[test]
fn udp() {
    // 160 + 20 + 8 + 12 = 200 B.
    check(r#"{ kind = "udp" }"#, Proto::Udp, &[200]);
}

#[test]
fn dccp_ccid3_and_ccid4() {
    // RFC 4340 §5.1: the generic header with 48-bit sequence numbers
    // (X = 1) is 16 B, and a DCCP-Data packet has nothing more; DCCP has no
    // UDP header: 160 + 20 (IP) + 16 (DCCP) + 12 (RTP) = 208 B, 8 more
    // than over UDP. CCID 3 and 4 senders send only Data (their feedback
    // goes the other way).
    check(r#"{ kind = "dccp", ccid = 3 }"#, Proto::Dccp, &[208]);
    check(r#"{ kind = "dccp", ccid = 4 }"#, Proto::Dccp, &[208]);
}

#[test]
fn dccp_ccid2() {
    // CCID 2 acknowledges the receiver's Acks with a DataAck (RFC 4341
    // §6.1.4): 24 B, the generic header plus the 8 B Acknowledgement
    // Number subheader (RFC 4340 §5.3), so 216 B; one that also changes
    // the Ack Ratio carries a Change R option (RFC 4340 §6.1, §11.3:
    // type, length, feature, 2-byte value = 5 B, padded to a 4-byte
    // multiple, §5.8): 24 B.
    let n = check(r#"{ kind = "dccp", ccid = 2 }"#, Proto::Dccp, &[208, 216, 224]);
    assert!(n > 200);
}

#[test]
fn plain_tfrc() {
    // ns-2 Agent/TFRC's header, `header = "40B"`: IP 20 + UDP 8 + TFRC 12
    // (sequence number, timestamp, RTT; RFC 5348 §3.2.1), with the RTP
    // header in the segment: 160 + 12 + 40 = 212 B.
    check(r#"{ kind = "tfrc" }"#, Proto::Udp, &[212]);
}

#[test]
fn tcp() {
    // A frame in the stream is the 2-byte length prefix (RFC 4571 §2), RTP
    // 12 B and the payload: 174 B. With Nagle off each leaves in its own
    // segment: + IP 20 + TCP 20 (RFC 9293 §3.1, no options) = 214 B.
    check(r#"{ kind = "tcp", nodelay = true }"#, Proto::Tcp, &[214]);
    // With Nagle on (RFC 896) and delayed ACKs, frames written while a
    // segment is unacknowledged leave together: the first frame a segment
    // completes has the segment's 40 B of headers, the others only their
    // 174 B; the sum is still the segments' bytes.
    let (rows, _) = run(r#"{ kind = "tcp" }"#, Proto::Tcp);
    assert!(rows.iter().any(|r| r.1 && r.0 == 174), "no frame shared a segment");
    check(r#"{ kind = "tcp" }"#, Proto::Tcp, &[174, 214]);
}

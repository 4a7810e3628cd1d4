//! TCP options and the data a segment carries, read from a capture of the
//! wire. RFC 6691 §2 (and RFC 9293 §3.7.1): the MSS counts no options, and
//! "the sender MUST reduce the TCP data length to account for any IP or
//! TCP options that it is including in the packets that it sends". So with
//! timestamps (RFC 7323 §3: 10 B + 2 B of padding in every segment) a full
//! segment of the default mss = 1460 B carries 1448 B of data and is
//! 20 (IP) + 20 (TCP) + 12 + 1448 = 1500 B on the wire, as Linux's
//! mss_cache on a 1500 B path; without timestamps 20 + 20 + 1460 = 1500 B.
//! SACK blocks (RFC 2018 §3: 2 + 8n B, padded to 4) ride only on the
//! receiver's pure ACKs, which carry no data: a data segment has none.

use talkspurt_core::run::{run_with, RunOptions};
use talkspurt_core::scenario::from_toml_str;

/// One segment read from its IP datagram: total length, TCP header length
/// (data offset, RFC 9293 §3.1), data bytes, and the option kinds present.
#[derive(Debug)]
struct Seg {
    total: usize,
    header: usize,
    data: usize,
    kinds: Vec<u8>,
    /// Blocks of the SACK option (kind 5), if any.
    sack_blocks: usize,
}

fn segments(pcap: &[u8]) -> Vec<Seg> {
    // libpcap: 24 B file header, then per record 16 B (seconds, ns,
    // included and original length) and the packet from its IP header.
    let (mut at, mut out) = (24, Vec::new());
    while at < pcap.len() {
        let len = |o: usize| u32::from_le_bytes(pcap[at + o..at + o + 4].try_into().unwrap()) as usize;
        let incl = len(8);
        let ip = &pcap[at + 16..at + 16 + incl];
        at += 16 + incl;
        if ip[9] != 6 {
            continue;
        }
        let total = u16::from_be_bytes([ip[2], ip[3]]) as usize;
        let ihl = (ip[0] & 0xf) as usize * 4;
        let tcp = &ip[ihl..];
        let header = (tcp[12] >> 4) as usize * 4;
        // RFC 9293 §3.1: options are EOL (0), NOP (1) or kind, length, value.
        let (mut kinds, mut sack_blocks, mut o) = (Vec::new(), 0, 20);
        while o < header {
            match tcp[o] {
                0 => break,
                1 => o += 1,
                k => {
                    let l = tcp[o + 1] as usize;
                    if k == 5 {
                        sack_blocks = (l - 2) / 8;
                    }
                    kinds.push(k);
                    o += l;
                }
            }
        }
        out.push(Seg { total, header, data: total - ihl - header, kinds, sack_blocks });
    }
    out
}

/// A greedy TCP flow a → b (10 Mb/s, 20 ms, random loss `p` on the data
/// direction so SACK blocks appear) for 10 s; both directions captured.
/// Returns (data segments, segments from the receiver).
fn run(transport: &str, p: f64) -> (Vec<Seg>, Vec<Seg>) {
    let src = format!(
        r#"
[run]
duration = "10s"
seed = 3
[[links]]
between = ["a", "b"]
rate = "10Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "100p" }}
forward = {{ loss = {{ kind = "bernoulli", p = {p} }} }}
[[traffic]]
from = "a"
to = "b"
kind = "bulk"
transport = {transport}
"#
    );
    let s = from_toml_str(&src).unwrap_or_else(|e| panic!("{e}"));
    let opts = RunOptions {
        capture: vec!["link:0:forward".into(), "link:0:reverse".into()],
        capture_key: "capture".into(),
        ..Default::default()
    };
    let out = run_with(&s, &opts, &mut |_| true).unwrap();
    let fwd = segments(&out.captures[0].1).into_iter().filter(|s| s.data > 0).collect::<Vec<_>>();
    let rev = segments(&out.captures[1].1);
    assert!(fwd.len() > 1000, "{transport}: {} data segments", fwd.len());
    (fwd, rev)
}

/// Every data segment is at most `full` B on the wire and carries at most
/// `smss` B; the full ones (the bulk of a greedy flow) are exactly that,
/// with a TCP header of `header` B. No data segment has a SACK option.
fn check_data(transport: &str, segs: &[Seg], header: usize, smss: usize, full: usize) {
    assert!(segs.iter().all(|s| s.header == header), "{transport}: a data segment's TCP header is not {header} B");
    assert!(segs.iter().all(|s| !s.kinds.contains(&5)), "{transport}: a data segment carries SACK blocks");
    let largest = segs.iter().map(|s| s.total).max().unwrap();
    assert_eq!(largest, full, "{transport}: largest data segment on the wire");
    let top = segs.iter().filter(|s| s.total == full).count();
    assert!(segs.iter().all(|s| s.data <= smss), "{transport}: a segment above {smss} B of data");
    assert!(segs.iter().filter(|s| s.total == full).all(|s| s.data == smss));
    // A greedy sender's segments are full but for none at all here (the
    // stream never runs dry): all of them are.
    assert_eq!(top, segs.len(), "{transport}: {} of {} data segments full", top, segs.len());
}

/// Timestamps on, default mss: 1448 B of data, a 32 B TCP header (20 +
/// the option's 12), 1500 B packets. Before 2026-11-29 talkspurt sent
/// 1460 B of data in 1512 B packets.
#[test]
fn timestamps_come_out_of_the_mss() {
    let t = r#"{ kind = "tcp", sack = true, timestamps = true }"#;
    let (data, acks) = run(t, 0.01);
    check_data(t, &data, 20 + 12, 1460 - 12, 1500);
    assert!(data.iter().all(|s| s.kinds == [8]), "{t}: a data segment without the timestamps option (kind 8)");
    // The receiver's ACKs: timestamps always, SACK blocks after a loss,
    // at most 3 with timestamps (RFC 2018 §3: 12 + 2 + 8·3 = 38 ≤ 40);
    // each padded to 4 B: 20 + 12 + 4·⌈(2 + 8n)/4⌉.
    assert!(acks.iter().all(|s| s.data == 0 && s.kinds.contains(&8)));
    let sacks: Vec<&Seg> = acks.iter().filter(|s| s.kinds.contains(&5)).collect();
    assert!(!sacks.is_empty(), "{t}: no ACK carried SACK blocks at p = 0.01");
    for s in &sacks {
        assert!((1..=3).contains(&s.sack_blocks), "{} SACK blocks", s.sack_blocks);
        assert_eq!(s.header, 20 + 12 + (2 + 8 * s.sack_blocks).div_ceil(4) * 4);
        assert_eq!(s.total, 20 + s.header);
    }
}

/// Timestamps off: 1460 B of data, a 20 B header, 1500 B packets; SACK
/// blocks only on ACKs (up to 4).
#[test]
fn without_timestamps_a_full_segment_is_the_mss() {
    let t = r#"{ kind = "tcp", sack = true }"#;
    let (data, acks) = run(t, 0.01);
    check_data(t, &data, 20, 1460, 1500);
    assert!(data.iter().all(|s| s.kinds.is_empty()));
    assert!(acks.iter().any(|s| s.kinds == [5]), "{t}: no ACK carried SACK blocks at p = 0.01");
    assert!(acks.iter().all(|s| s.data == 0 && s.sack_blocks <= 4));
}

/// RFC 9293 §3.7.1's default send MSS of 536 B with timestamps: 524 B of
/// data in 576 B datagrams (the minimum every host accepts, RFC 791).
#[test]
fn the_default_send_mss_with_timestamps() {
    let t = r#"{ kind = "tcp", mss = "536B", timestamps = true }"#;
    let (data, _) = run(t, 0.0);
    check_data(t, &data, 32, 524, 576);
}

/// TCP-Real's receiver report (8 B, an ACK option) rides beside the SACK
/// blocks and timestamps: the blocks are cut to what fits in the 40 option
/// bytes (RFC 2018 §3, RFC 9293 §3.1), 2 beside timestamps and a report.
/// Before 2026-11-29 an ACK could carry 3 blocks, timestamps and the
/// report: a 68 B TCP header, which no data offset can say (at p = 0.03,
/// 22 such ACKs in 10 s, written to the capture as a 4 B header).
#[test]
fn ack_options_fit_in_forty_bytes() {
    for t in [
        r#"{ kind = "tcp", cc = "real", sack = true, timestamps = true }"#,
        r#"{ kind = "tcp", cc = "real", sack = true }"#,
    ] {
        let (_, acks) = run(t, 0.03);
        // A pure ACK's IP packet is its headers: one whose options overflow
        // the data offset shows a short header and phantom data.
        assert!(acks.iter().all(|s| (20..=60).contains(&s.header) && s.data == 0), "{t}: an ACK's header overflows");
        let both: Vec<&Seg> = acks.iter().filter(|s| s.kinds.contains(&5) && s.kinds.contains(&254)).collect();
        assert!(!both.is_empty(), "{t}: no ACK carried SACK blocks and the report at p = 0.03");
        let ts = if t.contains("timestamps") { 12 } else { 0 };
        for s in both {
            assert!(ts + 8 + 2 + 8 * s.sack_blocks <= 40, "{t}: {} blocks beside {ts} + 8 B", s.sack_blocks);
        }
    }
}

use super::*;
use crate::net::packet::{Dir, Ecn, NO_APP};
use crate::net::wire::{DccpHeader, DccpType, Nack, ReportBlock, Rtcp, RtpHeader, SackBlocks, SenderInfo, TcpFlags, TcpHeader, TfrcOptions, VoipMetrics};
use crate::time::SimDuration;

const EP: Endpoints = Endpoints { src: [10, 0, 0, 1], dst: [10, 0, 0, 3], sport: 16384, dport: 16384 };

fn pkt(size: u32, hdr: Header, app: AppHeader) -> Packet {
    Packet { flow: 0, dir: Dir::Forward, ecn: Ecn::Ect0, dst: 2, size, app_seq: NO_APP, hdr, app }
}

/// One record: its IP datagram, after checking the record header.
fn datagram(p: &Packet, t_ns: u64) -> Vec<u8> {
    let mut b = Vec::new();
    write_record(&mut b, t_ns, p, &EP, 7);
    assert_eq!(u32::from_le_bytes(b[0..4].try_into().unwrap()) as u64, t_ns / 1_000_000_000);
    assert_eq!(u32::from_le_bytes(b[4..8].try_into().unwrap()) as u64, t_ns % 1_000_000_000);
    let len = u32::from_le_bytes(b[8..12].try_into().unwrap());
    assert_eq!(len, u32::from_le_bytes(b[12..16].try_into().unwrap()));
    assert_eq!(len as usize, b.len() - 16);
    b.split_off(16)
}

/// RFC 1071: a header or segment with its checksum in place sums to zero.
fn check_sums(ip: &[u8], proto: u8) {
    assert_eq!(ip[0], 0x45);
    assert_eq!(u16::from_be_bytes([ip[2], ip[3]]) as usize, ip.len());
    assert_eq!(ip[9], proto);
    assert_eq!(checksum(&[&ip[..20]], 0), 0, "IPv4 header checksum");
    let seg = &ip[20..];
    assert_eq!(checksum(&[seg], pseudo_sum(&EP, proto, seg.len() as u32)), 0, "transport checksum");
}

#[test]
fn udp_rtp_record() {
    let h = RtpHeader { pt: 0, marker: true, seq: 0xbeef, ts: 0x0102_0304, ssrc: 0xdead_beef, pad: 0 };
    let p = pkt(200, Header::Datagram, AppHeader::Rtp(h));
    let ip = datagram(&p, 3_000_000_123);
    assert_eq!(ip.len(), 200);
    check_sums(&ip, PROTO_UDP);
    assert_eq!(ip[1], Ecn::Ect0 as u8);
    assert_eq!(u16::from_be_bytes([ip[24], ip[25]]), 180, "UDP length");
    assert_eq!(&ip[28..40], &[0x80, 0x80, 0xbe, 0xef, 1, 2, 3, 4, 0xde, 0xad, 0xbe, 0xef]);
    assert!(ip[40..].iter().all(|&x| x == 0));
}

/// RTP padding (RFC 3550 §5.1): the P bit is set and the last octet of the
/// payload counts the padding octets, itself included.
#[test]
fn udp_rtp_padding() {
    let h = RtpHeader { pt: 96, marker: false, seq: 1, ts: 2, ssrc: 3, pad: 57 };
    let p = pkt(200, Header::Datagram, AppHeader::Rtp(h));
    let ip = datagram(&p, 1);
    check_sums(&ip, PROTO_UDP);
    assert_eq!(ip[28], 0xa0, "V = 2, P = 1");
    assert_eq!(ip[199], 57);
    assert!(ip[40..199].iter().all(|&x| x == 0));
}

#[test]
fn rtcp_compound_lengths_chain() {
    let mut r = Rtcp {
        ssrc: 9,
        sender: Some(SenderInfo { ntp: 1 << 32, rtp_ts: 8000, packets: 50, octets: 8000 }),
        blocks: vec![ReportBlock { ssrc: 5, fraction_lost: 26, cum_lost: -1, ext_high_seq: 70000, jitter: 12, lsr: 3, dlsr: 4 }],
        cname_len: 17,
        nacks: vec![Nack { pid: 4, blp: 3 }, Nack { pid: 40, blp: 0 }],
        xr: Some(VoipMetrics::default()),
        owd: Some(3 << 14),
        early: false,
    };
    for sr in [true, false] {
        if !sr {
            r.sender = None;
        }
        let n = r.wire_len();
        let p = pkt(28 + n, Header::Datagram, AppHeader::Rtcp(Box::new(r.clone())));
        let ip = datagram(&p, 1);
        check_sums(&ip, PROTO_UDP);
        // Walk the compound by its length fields (RFC 3550 §6.4.1): the
        // parts end exactly at the end of the datagram.
        let (mut at, mut types) = (28usize, Vec::new());
        while at < ip.len() {
            assert_eq!(ip[at] >> 6, 2, "version");
            types.push(ip[at + 1]);
            at += 4 * (u16::from_be_bytes([ip[at + 2], ip[at + 3]]) as usize + 1);
        }
        assert_eq!(at, ip.len());
        assert_eq!(types, vec![if sr { 200 } else { 201 }, 202, 205, 207, 204]);
        // Cumulative lost −1 is 0xffffff in 24 bits.
        let b = if sr { 28 + 28 } else { 28 + 8 };
        assert_eq!(&ip[b + 4..b + 8], &[26, 0xff, 0xff, 0xff]);
    }
}

#[test]
fn tcp_header_with_options() {
    let mut h = TcpHeader { seq: (1 << 32) + 5, ack: 77, len: 100, wnd: 1 << 20, flags: TcpFlags(TcpFlags::ACK | TcpFlags::ECE), timestamps: true, ..Default::default() };
    h.set_sack(Some(SackBlocks::from_slice(&[(200, 300), (400, 500)])));
    let hl = h.wire_len();
    let p = pkt(20 + hl + 100, Header::Tcp(h), AppHeader::None);
    let ip = datagram(&p, 5);
    check_sums(&ip, PROTO_TCP);
    let t = &ip[20..];
    assert_eq!(u32::from_be_bytes(t[4..8].try_into().unwrap()), 5, "sequence number modulo 2^32");
    assert_eq!((t[12] >> 4) as u32 * 4, hl, "data offset");
    assert_eq!(t[13], 0x10 | 0x40 | 0x08);
    assert_eq!(u16::from_be_bytes([t[14], t[15]]), 65535);
    assert_eq!(&t[20..24], &[1, 1, 8, 10]);
    assert_eq!(&t[32..34], &[5, 18]);
}

/// CCID 2 Ack Vector: 0–9 received, 10–14 missing, 15–19 received, 20
/// marked; ack 20: cells from 20 down are [marked 1], [received 5],
/// [missing 5], [received 10] = 4 cells (RFC 4340 §11.4).
#[test]
fn dccp_ack_vector_and_ccid3_options() {
    let mut h = DccpHeader::new(DccpType::Ack, 3);
    h.ack = 20;
    h.received = vec![(0, 10), (15, 21)];
    h.marked = vec![20];
    h.ack_vector = 2 + 4;
    h.ack_ratio = 2;
    let hl = h.wire_len();
    let p = pkt(20 + hl, Header::Dccp(Box::new(h)), AppHeader::None);
    let ip = datagram(&p, 5);
    check_sums(&ip, PROTO_DCCP);
    let d = &ip[20..];
    assert_eq!(d[4] as u32 * 4, hl);
    assert_eq!(d[8], 3 << 1 | 1, "type Ack, X = 1");
    assert_eq!(&d[24..30], &[38, 6, 0x40, 0x04, 0xc4, 0x09]);
    assert_eq!(&d[30..35], &[34, 5, 5, 0, 2]);

    let mut h = DccpHeader::new(DccpType::Ack, 3);
    h.tfrc = Some(TfrcOptions { elapsed: SimDuration::from_millis(1), x_recv: 1000.0, p: 0.01, intervals: 2 });
    let hl = h.wire_len();
    let ip = datagram(&pkt(20 + hl, Header::Dccp(Box::new(h)), AppHeader::None), 5);
    check_sums(&ip, PROTO_DCCP);
    let o = &ip[20 + 24..];
    assert_eq!(&o[..4], &[43, 4, 0, 100], "elapsed 1 ms in 10 µs units");
    assert_eq!(&o[4..10], &[194, 6, 0, 0, 3, 232]);
    assert_eq!(&o[10..16], &[192, 6, 0, 0, 0, 100]);
    assert_eq!(&o[16..19], &[193, 21, 0]);
}

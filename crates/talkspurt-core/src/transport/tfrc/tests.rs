//! The endpoints over a synthetic lossless pipe: handshake, sizes on the
//! wire (RFC 4340 §5), the window counter (RFC 4342 §8.1) and the feedback
//! rhythm (RFC 4342 §10.3, RFC 5348 §6.2).

use super::*;
use crate::net::wire::{DccpType, Header};
use crate::net::{Dir, Packet};
use crate::time::SimTime;
use crate::transport::{AppUnit, Endpoint, FlowAddr, SenderEndpoint};

/// Voice units of 160 B payload + 40 B IP/UDP/RTP every 20 ms for `secs`,
/// over a pipe of `owd` one-way delay. Returns every packet with its send
/// time, in order.
fn pipe(cfg: RateConfig, owd: SimDuration, secs: u64) -> Vec<(SimTime, Packet)> {
    let fwd = FlowAddr { flow: 0, peer: 1, dir: Dir::Forward };
    let rev = FlowAddr { flow: 0, peer: 0, dir: Dir::Reverse };
    let mut s = RateSender::new(fwd, cfg.clone(), false);
    let mut r = RateReceiver::new(rev, cfg, false);
    let mut in_flight: Vec<(SimTime, Packet)> = Vec::new();
    let mut log = Vec::new();
    let end = SimTime(secs * 1_000_000_000);
    let mut next_unit = SimTime::ZERO;
    let mut seq = 0;
    let mut now = SimTime::ZERO;
    while now < end {
        if now >= next_unit {
            let _ = s.send(now, AppUnit { app_seq: seq, payload: 160, overhead: 40, rtp: None });
            seq += 1;
            next_unit = next_unit + SimDuration::from_millis(20);
        }
        let mut i = 0;
        while i < in_flight.len() {
            if in_flight[i].0 <= now {
                let (_, p) = in_flight.remove(i);
                match p.dir {
                    Dir::Forward => r.handle_packet(now, &p),
                    Dir::Reverse => s.handle_packet(now, &p),
                }
            } else {
                i += 1;
            }
        }
        if s.poll_timeout().is_some_and(|t| t <= now) {
            s.handle_timeout(now);
        }
        if r.poll_timeout().is_some_and(|t| t <= now) {
            r.handle_timeout(now);
        }
        while let Some(p) = s.poll_transmit(now).or_else(|| r.poll_transmit(now)) {
            log.push((now, p.clone()));
            in_flight.push((now + owd, p));
        }
        // 1 ms steps: fine enough for 20 ms packets and ≥ 50 ms paths.
        now = now + SimDuration::from_millis(1);
    }
    log
}

fn dccp(p: &Packet) -> &crate::net::wire::DccpHeader {
    match &p.hdr {
        Header::Dccp(h) => h,
        h => panic!("not DCCP: {h:?}"),
    }
}

/// RFC 4340 §8.1.1 and §5: Request (20 + 20 B IP), Response (28 + 20),
/// Ack (24 + 20), then Data of 20 + 16 + 12 RTP + 160 = 208 B, the first
/// one RTT after the Request (100 ms each way here).
#[test]
fn handshake_and_sizes() {
    let log = pipe(RateConfig::dccp(3), SimDuration::from_millis(100), 2);
    let kinds: Vec<(DccpType, u32)> = log.iter().take(4).map(|(_, p)| (dccp(p).ptype, p.size)).collect();
    assert_eq!(kinds, vec![(DccpType::Request, 40), (DccpType::Response, 48), (DccpType::Ack, 44), (DccpType::Data, 208)]);
    assert_eq!(log[3].0, SimTime(200_000_000), "data starts when the Response arrives");
}

/// RFC 4342 §8.1: while sending steadily, CCVal advances by one per quarter
/// RTT (RTT 200 ms: one step per 50 ms, so 2–3 packets share a value),
/// and the receiver reports about once per RTT (CCVal 4 past the last
/// reported, §10.3): 5 reports per second, ±1.
#[test]
fn window_counter_and_feedback_rhythm() {
    let log = pipe(RateConfig::dccp(3), SimDuration::from_millis(100), 6);
    let data: Vec<(SimTime, u8)> = log
        .iter()
        .filter(|(t, p)| p.dir == Dir::Forward && dccp(p).ptype == DccpType::Data && *t >= SimTime(2_000_000_000))
        .map(|(t, p)| (*t, dccp(p).ccval))
        .collect();
    for w in data.windows(2) {
        let step = w[1].1.wrapping_sub(w[0].1) & 15;
        assert!(step <= 1, "steady sending advances CCVal by at most one per packet: {w:?}");
    }
    let steps: u32 = data.windows(2).map(|w| (w[1].1.wrapping_sub(w[0].1) & 15) as u32).sum();
    let span = data.last().unwrap().0.saturating_since(data[0].0).as_secs_f64();
    let per_rtt = steps as f64 / (span / 0.2);
    assert!((per_rtt - 4.0).abs() < 0.3, "{per_rtt} CCVal steps per RTT");
    let reports = log
        .iter()
        .filter(|(t, p)| p.dir == Dir::Reverse && dccp(p).tfrc.is_some() && *t >= SimTime(2_000_000_000))
        .count() as f64;
    assert!((reports / 4.0 - 5.0).abs() <= 1.0, "{reports} reports in 4 s");
}

/// Plain TFRC: 40-byte data headers (no handshake, first packet at t = 0),
/// 44-byte feedback once per RTT from a timer (RFC 5348 §6.2).
#[test]
fn plain_tfrc_sizes_and_timer() {
    let log = pipe(RateConfig::plain(), SimDuration::from_millis(50), 5);
    assert_eq!(log[0].0, SimTime::ZERO);
    assert_eq!(log[0].1.size, 40 + 12 + 160);
    let fb: Vec<SimTime> = log.iter().filter(|(_, p)| p.dir == Dir::Reverse).map(|(t, _)| *t).collect();
    assert!(log.iter().filter(|(_, p)| p.dir == Dir::Reverse).all(|(_, p)| p.size == 44));
    let late: Vec<_> = fb.iter().filter(|t| **t >= SimTime(2_000_000_000)).collect();
    // RTT 100 ms: 10 reports per second, ±1 over 3 s.
    assert!((late.len() as f64 - 30.0).abs() <= 1.5, "{} reports", late.len());
}

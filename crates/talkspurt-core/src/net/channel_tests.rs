//! Tests of `channel.rs`.

use super::*;
use crate::net::packet::{Dir, Header, NO_APP};

fn pkt(size: u32) -> Packet {
    Packet { flow: 0, dir: Dir::Forward, ecn: Ecn::NotEct, dst: 1, size, app_seq: NO_APP, hdr: Header::Datagram, app: Default::default() }
}

fn ch(limit: QueueLimit) -> Channel {
    // 1 Mb/s: 125 B take 1 ms; 10 ms propagation.
    Channel::new("a->b".into(), 0, 1, 1_000_000, SimDuration::from_millis(10), limit, LossModel::None)
}

#[test]
fn back_to_back_packets_serialize_in_order() {
    let mut c = ch(QueueLimit::Packets(10));
    let t0 = SimTime::ZERO;
    let ms = |x: u64| SimTime(x * 1_000_000);
    assert_eq!(c.offer(t0, &mut pkt(125)), Offer::Accepted { arrive: ms(11), lost: false });
    assert_eq!(c.offer(t0, &mut pkt(125)), Offer::Accepted { arrive: ms(12), lost: false });
    assert_eq!(c.offer(t0, &mut pkt(250)), Offer::Accepted { arrive: ms(14), lost: false });
    assert_eq!(c.queue_len(t0), 2);
    // At 1 ms the second packet starts: one left waiting.
    assert_eq!(c.queue_len(ms(1)), 1);
    // Idle again after 4 ms: a new packet goes straight on the wire.
    assert_eq!(c.offer(ms(5), &mut pkt(125)), Offer::Accepted { arrive: ms(16), lost: false });
    assert_eq!(c.stats.wait_sum_ns, 3_000_000);
}

#[test]
fn drop_tail_limit_counts_waiting_packets_only() {
    // Limit 2: one on the wire plus two waiting are accepted; the 4th drops.
    let mut c = ch(QueueLimit::Packets(2));
    let r: Vec<_> = (0..4).map(|_| c.offer(SimTime::ZERO, &mut pkt(125))).collect();
    assert!(matches!(r[2], Offer::Accepted { .. }));
    assert_eq!(r[3], Offer::Dropped);
    // Byte limit 300: waiting bytes 250 + 125 > 300 drops.
    let mut c = ch(QueueLimit::Bytes(300));
    c.offer(SimTime::ZERO, &mut pkt(125));
    assert!(matches!(c.offer(SimTime::ZERO, &mut pkt(250)), Offer::Accepted { .. }));
    assert_eq!(c.offer(SimTime::ZERO, &mut pkt(125)), Offer::Dropped);
}

#[test]
fn enqueue_loss_skips_the_queue_wire_loss_uses_the_link() {
    use crate::net::loss::{LossTrace, TraceLoss};
    use std::sync::Arc;
    // Every other packet lost; three offered back to back at t = 0.
    let trace = || LossModel::Trace(TraceLoss::new(Arc::new(LossTrace::Packets(vec![false, true]))));
    let ms = |x: u64| SimTime(x * 1_000_000);
    let mut c = Channel::new("a->b".into(), 0, 1, 1_000_000, SimDuration::from_millis(10), QueueLimit::Packets(10), trace())
        .with_loss_at(LossAt::Enqueue);
    let r: Vec<_> = (0..3).map(|_| c.offer(SimTime::ZERO, &mut pkt(125))).collect();
    // The lost one takes no link time: the third finishes at 2 ms.
    assert_eq!(r, [Offer::Accepted { arrive: ms(11), lost: false }, Offer::Lost, Offer::Accepted { arrive: ms(12), lost: false }]);
    assert_eq!((c.stats.served, c.stats.link_losses), (2, 1));
    let mut c = Channel::new("a->b".into(), 0, 1, 1_000_000, SimDuration::from_millis(10), QueueLimit::Packets(10), trace());
    let r: Vec<_> = (0..3).map(|_| c.offer(SimTime::ZERO, &mut pkt(125))).collect();
    assert_eq!(r[1], Offer::Accepted { arrive: ms(12), lost: true });
    assert_eq!(r[2], Offer::Accepted { arrive: ms(13), lost: false });
}

#[test]
fn plain_path_matches_the_general_one() {
    // A queue series switches the general path on and changes nothing
    // else: the same offers must give the same outcomes and stats.
    for seed in 0..5u64 {
        let mut rng = crate::rng::Rng::stream(seed, 0, crate::rng::StreamId::new(99, 3));
        let limit = if seed % 2 == 0 { QueueLimit::Packets(5) } else { QueueLimit::Bytes(900) };
        let (mut a, mut b) = (ch(limit), ch(limit).with_series(true));
        assert!(a.plain && !b.plain);
        let mut t = 0u64;
        for i in 0..3000 {
            t += rng.below(1_500_000);
            let size = 40 + rng.below(300) as u32;
            let (ra, rb) = (a.offer(SimTime(t), &mut pkt(size)), b.offer(SimTime(t), &mut pkt(size)));
            assert_eq!(ra, rb, "seed {seed}, offer {i}");
        }
        assert_eq!(a.stats, b.stats, "seed {seed}");
        assert!(a.stats.queue_drops > 0 && a.stats.wait_max_ns > 0, "seed {seed}: the queue was exercised");
    }
}

#[test]
fn queue_integral_within_clips_waits_past_the_end() {
    // 1 Mb/s, 125 B: 1 ms each. Four at t = 0: one on the wire, three
    // waiting until 1, 2 and 3 ms. The queue holds 3 on [0, 1), 2 on
    // [1, 2), 1 on [2, 3): ∫ over [0, 2.5 ms] = 3 + 2 + 0.5 = 5.5 ms
    // (time-average 5.5 / 2.5 = 2.2 packets), where the raw integral, the
    // three whole waits, is 1 + 2 + 3 = 6 ms.
    let mut c = ch(QueueLimit::Packets(10));
    for _ in 0..4 {
        c.offer(SimTime::ZERO, &mut pkt(125));
    }
    let us = |x: u64| SimTime(x * 1_000);
    assert_eq!(c.stats.queue_integral_ns, 6_000_000);
    assert_eq!(c.queue_integral_within(us(2_500)), 5_500_000);
    // At or after the last start nothing is clipped.
    assert_eq!(c.queue_integral_within(us(3_000)), 6_000_000);
    assert_eq!(c.queue_integral_within(us(9_000)), 6_000_000);
    // A later offer purges the entries started by then (the first three);
    // the new packet waits from 2.2 to 4 ms, 0.3 ms of it by 2.5 ms.
    c.offer(us(2_200), &mut pkt(125));
    assert_eq!(c.stats.queue_integral_ns, 7_800_000);
    assert_eq!(c.queue_integral_within(us(2_500)), 5_500_000 + 300_000);
}

#[test]
fn queue_integral_within_counts_what_a_holding_queue_still_holds() {
    // CoDel holds its packets: three enqueued at t = 0, the first dequeued
    // at 0 (on the wire until 1 ms), two held. Over [0, 0.5 ms] the queue
    // holds 2: ∫ = 1 ms, though no held packet has added its wait yet.
    let mut c = ch(QueueLimit::Packets(10)).with_discipline(&Discipline::CoDel(Default::default()), crate::rng::Rng::stream(1, 0, crate::rng::StreamId::new(0, 0)));
    for _ in 0..3 {
        c.enqueue(SimTime::ZERO, pkt(125));
    }
    let out = c.dequeue(SimTime::ZERO, &mut Vec::new());
    assert!(out.sent.is_some());
    assert_eq!(c.stats.queue_integral_ns, 0);
    assert_eq!(c.queue_integral_within(SimTime(500_000)), 1_000_000);
}

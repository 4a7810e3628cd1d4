//! Tests of `real.rs`.

use super::*;

const MSS: u64 = 1000;
const MS: u64 = 1_000_000;

/// One sender round at the receiver: segments `[first, first + n)`
/// (segment numbers), the first marked as a wave start and arriving at
/// `*now`, the rest every `spacing_ms`, skipping those in `lost`; then
/// `*now` moves to the next wave's start, `period_ms` after this one's.
/// Returns the last report.
fn wave(r: &mut RealReceiver, now: &mut SimTime, first: u64, n: u64, period_ms: u64, lost: &[u64]) -> Option<RealFeedback> {
    let start = *now;
    let mut fb = r.feedback();
    for (i, s) in (first..first + n).enumerate() {
        let at = start + SimDuration(i as u64 * MS);
        if !lost.contains(&s) {
            fb = r.on_segment(at, s * MSS, MSS as u32, false, i == 0);
        }
    }
    *now = start + SimDuration(period_ms * MS);
    fb
}

/// `count` identical waves of `n` segments, `period_ms` apart, from
/// segment `*next` on.
fn steady(r: &mut RealReceiver, now: &mut SimTime, next: &mut u64, n: u64, period_ms: u64, count: u32) -> Option<RealFeedback> {
    let mut fb = None;
    for _ in 0..count {
        fb = wave(r, now, *next, n, period_ms, &[]);
        *next += n;
    }
    fb
}

fn sender(cwnd_segments: u64) -> Real {
    let mut s = Real::new(MSS, cwnd_segments * MSS);
    s.inner.set_ssthresh(cwnd_segments * MSS); // congestion avoidance
    s.on_ack(&AckSample {
        now: SimTime(0),
        acked: 0,
        flight: 0,
        rtt: None,
        srtt: SimDuration::from_millis(100),
        min_rtt: SimDuration::from_millis(100),
        delivered: 0,
        recovery: false,
    });
    s
}

/// The transport's NewReno recovery after the controller set ssthresh:
/// cwnd = ssthresh + 3·SMSS, deflated to ssthresh at the full ACK.
fn recover(s: &mut Real, now: SimTime, flight: u64) {
    s.on_congestion_event(now, flight);
    s.set_cwnd(s.ssthresh() + 3 * MSS);
    s.set_cwnd(s.ssthresh());
    s.on_recovery_exit(now);
}

/// Waves of 10 segments every 100 ms (no queue: every wave lasts the
/// shortest round trip) measure 10 kB / 0.1 s = 100 kB/s; a segment
/// lost after the bottleneck (its slot stays, the rate holds) is
/// non-congestive, and the sender retransmits without shrinking its
/// 20-segment window.
#[test]
fn random_loss_without_queue_keeps_the_window() {
    let mut r = RealReceiver::new(RealParams::default());
    let (mut now, mut next) = (SimTime(0), 0);
    let fb = steady(&mut r, &mut now, &mut next, 10, 100, 5).unwrap();
    assert_eq!(fb.verdict, Verdict::Clear);
    assert!((r.last_rate().unwrap() - 100_000.0).abs() < 1e-6);
    let fb = wave(&mut r, &mut now, next, 10, 100, &[next + 4]).unwrap();
    assert_eq!(fb.verdict, Verdict::NonCongestiveLoss);
    let mut s = sender(20);
    s.on_receiver_verdict(now, &fb);
    recover(&mut s, now, 20 * MSS);
    assert_eq!((s.cwnd(), s.ssthresh()), (20 * MSS, 20 * MSS));
    // The wave with the hole is not measured (the sender's recovery
    // shapes it); the report stays until the next clean wave, which
    // measures the same 100 kB/s.
    next += 10;
    steady(&mut r, &mut now, &mut next, 10, 100, 1);
    assert_eq!(r.feedback().unwrap().verdict, Verdict::NonCongestiveLoss);
    steady(&mut r, &mut now, &mut next, 10, 100, 1);
    assert_eq!(r.feedback().unwrap().verdict, Verdict::Clear);
    assert!((r.last_rate().unwrap() - 100_000.0).abs() < 1e-6);
}

/// A wave that took 20 % longer than the shortest (θ = 0.1: more than
/// 1/0.9 = 1.11 times) ran through a queue: the pipe is full, so the
/// loss that follows is congestion and the sender halves (RFC 5681
/// eq. 4). Its rate did not fall (the window grew with the queue).
#[test]
fn loss_behind_a_queue_is_congestion() {
    let mut r = RealReceiver::new(RealParams::default());
    let (mut now, mut next) = (SimTime(0), 0);
    steady(&mut r, &mut now, &mut next, 10, 100, 3);
    let fb = steady(&mut r, &mut now, &mut next, 12, 120, 2).unwrap();
    assert_eq!(fb.verdict, Verdict::Clear);
    let fb = wave(&mut r, &mut now, next, 12, 120, &[next + 5]).unwrap();
    assert_eq!(fb.verdict, Verdict::Congestion);
    let mut s = sender(20);
    s.on_receiver_verdict(now, &fb);
    recover(&mut s, now, 20 * MSS);
    assert_eq!((s.cwnd(), s.ssthresh()), (10 * MSS, 10 * MSS));
    // Just below the threshold (110 ms < 111.1 ms) is not a queue.
    let mut r = RealReceiver::new(RealParams::default());
    let (mut now, mut next) = (SimTime(0), 0);
    steady(&mut r, &mut now, &mut next, 10, 100, 3);
    steady(&mut r, &mut now, &mut next, 11, 110, 2);
    let fb = wave(&mut r, &mut now, next, 11, 110, &[next + 5]).unwrap();
    assert_eq!(fb.verdict, Verdict::NonCongestiveLoss);
}

/// The same 10 segments taking 125 ms instead of 100 ms: the receiving
/// rate fell to 0.8 of the last wave's — contention. The sender's
/// window follows it (20 → 16 segments, ssthresh 16) at most once per
/// SRTT; a smaller wave in a shorter round (the sender cut its window)
/// is not a decrease.
#[test]
fn rate_decrease_cuts_the_window_once_per_rtt() {
    let mut r = RealReceiver::new(RealParams::default());
    let (mut now, mut next) = (SimTime(0), 0);
    steady(&mut r, &mut now, &mut next, 10, 100, 3);
    steady(&mut r, &mut now, &mut next, 10, 125, 1);
    let fb = steady(&mut r, &mut now, &mut next, 10, 125, 1).unwrap();
    let Verdict::RateDecrease { ratio } = fb.verdict else { panic!("{fb:?}") };
    assert!((ratio - 0.8).abs() < 1e-9, "ratio {ratio}");
    let mut s = sender(20);
    s.on_receiver_verdict(SimTime(0), &fb);
    assert_eq!((s.cwnd(), s.ssthresh()), (16 * MSS, 16 * MSS));
    s.on_receiver_verdict(SimTime(50 * MS), &RealFeedback { seq: fb.seq + 1, verdict: fb.verdict });
    assert_eq!(s.cwnd(), 16 * MSS, "one cut per SRTT");
    s.on_receiver_verdict(SimTime(150 * MS), &RealFeedback { seq: fb.seq + 2, verdict: Verdict::RateDecrease { ratio: 0.2 } });
    assert_eq!(s.cwnd(), 8 * MSS, "never more than a halving");
    // Halved by the sender: 5 segments in a 90 ms round.
    let fb = steady(&mut r, &mut now, &mut next, 5, 90, 2).unwrap();
    assert_eq!(fb.verdict, Verdict::Clear);
}

/// A timeout reduces as Reno. After a non-congestive loss, if the next
/// report shows the rate held, ssthresh returns to the pre-timeout
/// window (slow start climbs back), otherwise the reduction stands;
/// after a congestive loss it always stands.
#[test]
fn timeout_cancelled_when_rate_holds() {
    for (before, after, want) in [
        (Verdict::NonCongestiveLoss, Verdict::Clear, (MSS, 20 * MSS)),
        (Verdict::NonCongestiveLoss, Verdict::Congestion, (MSS, 10 * MSS)),
        (Verdict::Congestion, Verdict::Clear, (MSS, 10 * MSS)),
    ] {
        let mut s = sender(20);
        s.on_receiver_verdict(SimTime(0), &RealFeedback { seq: 6, verdict: before });
        s.on_rto(SimTime(0), 20 * MSS);
        s.on_rto(SimTime(MS), 20 * MSS); // backed off: still the first's state
        assert_eq!((s.cwnd(), s.ssthresh()), (MSS, 10 * MSS));
        s.on_receiver_verdict(SimTime(2 * MS), &RealFeedback { seq: 7, verdict: after });
        assert_eq!((s.cwnd(), s.ssthresh()), want, "{before:?} then {after:?}");
    }
}

/// Without a measured wave there is no evidence against congestion; and
/// a stale non-congestive verdict (older than an RTT) spares nothing.
#[test]
fn conservative_without_evidence() {
    let mut r = RealReceiver::new(RealParams::default());
    let mut now = SimTime(0);
    let fb = wave(&mut r, &mut now, 0, 3, 100, &[1]).unwrap();
    assert_eq!(fb.verdict, Verdict::Congestion);
    let mut s = sender(20);
    s.on_receiver_verdict(SimTime(0), &RealFeedback { seq: 0, verdict: Verdict::NonCongestiveLoss });
    recover(&mut s, SimTime(500 * MS), 20 * MSS);
    assert_eq!(s.cwnd(), 10 * MSS);
}

/// A silence (talkspurt end, idle) between waves is not a rate drop nor
/// a queue: the wave before it is not measured, and the next compares
/// with the rate before the silence.
#[test]
fn sender_pause_is_not_a_rate_drop() {
    let mut r = RealReceiver::new(RealParams::default());
    let (mut now, mut next) = (SimTime(0), 0);
    steady(&mut r, &mut now, &mut next, 5, 100, 3);
    let seq = r.feedback().unwrap().seq;
    steady(&mut r, &mut now, &mut next, 5, 900, 1);
    assert_eq!(r.feedback().unwrap().seq, seq + 1, "the wave before the pause gives no report");
    let fb = steady(&mut r, &mut now, &mut next, 5, 100, 2).unwrap();
    assert_eq!(fb.verdict, Verdict::Clear);
    assert!((r.last_rate().unwrap() - 50_000.0).abs() < 1e-6);
    let fb = wave(&mut r, &mut now, next, 5, 100, &[next + 2]).unwrap();
    assert_eq!(fb.verdict, Verdict::NonCongestiveLoss);
}

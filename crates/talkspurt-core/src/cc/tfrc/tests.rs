//! The TFRC rules against worked examples built from the RFCs by hand.

use super::loss_history::LossHistory;
use super::sender::{w_init, TfrcSender};
use super::*;

fn t_ms(ms: u64) -> SimTime {
    SimTime(ms * 1_000_000)
}

/// Packets 0..=`last`, one every 10 ms, all but `lost` arriving; each loss
/// its own event (R = 1 ms ≪ spacing).
fn history(lost: &[u64], last: u64, small: bool, discount: bool) -> LossHistory {
    let mut h = LossHistory::new(small, discount);
    for seq in 0..=last {
        if !lost.contains(&seq) {
            h.on_packet(seq, t_ms(10 * seq), false, 0.001);
        }
    }
    h
}

/// RFC 5348 §5.4 by hand. Losses at 100, 1100, 1180, 1250, 1310, 1360,
/// 1400, 1430, 1450, 1460, highest received 1464: closed intervals (most
/// recent first) 10, 20, 30, 40, 50, 60, 70, 80 (the 1000 one is the ninth,
/// dropped), open I_0 = 1464 − 1460 + 1 = 5.
/// Without I_0: (10+20+30+40 + 0.8·50 + 0.6·60 + 0.4·70 + 0.2·80)/6 = 220/6
/// = 36.667; with I_0: (5+10+20+30 + 0.8·40 + 0.6·50 + 0.4·60 + 0.2·70)/6
/// = 165/6 = 27.5. I_0 lowers the mean, so it is left out: p = 6/220.
#[test]
fn weights_and_open_interval() {
    let lost = [100, 1100, 1180, 1250, 1310, 1360, 1400, 1430, 1450, 1460];
    let h = history(&lost, 1464, false, true);
    let m = h.i_mean().unwrap();
    assert!((m - 220.0 / 6.0).abs() < 1e-9, "I_mean {m}");
    assert!((h.p() - 6.0 / 220.0).abs() < 1e-12);
    assert_eq!(h.intervals(), 9);
}

/// The open interval counts once it raises the mean, and history
/// discounting (§5.5) then lowers the weight of the old intervals.
/// Losses at 100, 200, 300: closed 100, 100.
/// - highest 349: I_0 = 50; with I_0 (50+100+100)/3 = 83.3 < 100 → 100.
/// - highest 599: I_0 = 300 > 2·100, DF = max(0.5, 200/300) = 2/3;
///   with I_0: (300 + (100+100)·2/3)/(1 + 2·2/3) = 433.33/2.3333 = 185.714;
///   without discounting (300+100+100)/3 = 166.667.
/// - highest 2099: I_0 = 1800, DF = max(0.5, 200/1800) = 0.5:
///   (1800 + 200·0.5)/(1 + 2·0.5) = 950.
#[test]
fn open_interval_and_discounting() {
    let h = history(&[100, 200, 300], 349, false, true);
    assert!((h.i_mean().unwrap() - 100.0).abs() < 1e-9);
    let h = history(&[100, 200, 300], 599, false, true);
    assert!((h.i_mean().unwrap() - 1300.0 / 7.0).abs() < 1e-9, "{:?}", h.i_mean());
    let h = history(&[100, 200, 300], 599, false, false);
    assert!((h.i_mean().unwrap() - 500.0 / 3.0).abs() < 1e-9);
    let h = history(&[100, 200, 300], 2099, false, true);
    assert!((h.i_mean().unwrap() - 950.0).abs() < 1e-9);
}

/// §5.5: the discount in force when an interval closes stays with the
/// older ones. Losses at 100, 200 (closed: 100), then I_0 grows to 400
/// (DF = 0.5) and a loss at 600 closes it: closed 400 (DF 1), 100 (DF 0.5).
/// Highest 610, I_0 = 11: without I_0 (400 + 100·0.5)/(1 + 0.5) = 300;
/// with I_0 (11 + 400 + 50)/(1 + 1 + 0.5) = 184.4 → 300.
#[test]
fn discount_persists() {
    let h = history(&[100, 200, 600], 610, false, true);
    assert!((h.i_mean().unwrap() - 300.0).abs() < 1e-9, "{:?}", h.i_mean());
}

/// Losses within one RTT of an event's first loss belong to it (§5.2);
/// a burst is one event. R = 50 ms, packets 10 ms apart: losses at 100,
/// 101, 102 are one event; the next at 200 starts another: I_1 = 100.
#[test]
fn burst_is_one_event() {
    let mut h = LossHistory::new(false, true);
    let mut events = 0;
    for seq in 0..=220u64 {
        if [100, 101, 102, 200].contains(&seq) {
            continue;
        }
        events += u32::from(h.on_packet(seq, t_ms(10 * seq), false, 0.05).new_event);
    }
    assert_eq!(events, 2);
    assert_eq!(h.intervals(), 2);
    // Closed 100; open 220 − 200 + 1 = 21 lowers the mean: I_mean = 100.
    assert!((h.i_mean().unwrap() - 100.0).abs() < 1e-9);
}

/// TFRC-SP (RFC 4828 §4.4): in an interval shorter than two RTTs each
/// lost packet counts. R = 50 ms, packets 10 ms apart: a burst of 3 losses
/// at 100–102, next event at 108 (80 ms later, < 2R): that interval is
/// 8 packets / 3 losses = 2.667 instead of 8.
#[test]
fn small_packets_short_interval() {
    let run = |small| {
        let mut h = LossHistory::new(small, false);
        for seq in 0..=300u64 {
            if ![100, 101, 102, 108].contains(&seq) {
                h.on_packet(seq, t_ms(10 * seq), false, 0.05);
            }
        }
        h
    };
    // Closed interval only (the open one, 193, is far above it and raises
    // the mean): compare via a fresh event right after.
    let plain = run(false);
    let sp = run(true);
    // With I_0 = 193 and one closed interval: max((193+I_1)/2, I_1).
    assert!((plain.i_mean().unwrap() - (193.0 + 8.0) / 2.0).abs() < 1e-9, "{:?}", plain.i_mean());
    assert!((sp.i_mean().unwrap() - (193.0 + 8.0 / 3.0) / 2.0).abs() < 1e-9, "{:?}", sp.i_mean());
}

/// A CE mark is a loss event (RFC 5348 §5) though the packet arrived.
#[test]
fn ce_mark_is_a_loss() {
    let mut h = LossHistory::new(false, true);
    for seq in 0..50u64 {
        let up = h.on_packet(seq, t_ms(10 * seq), seq == 20, 0.001);
        assert_eq!(up.new_event, seq == 20);
    }
    assert!((h.i_mean().unwrap() - 30.0).abs() < 1e-9);
}

fn fb(t_recvdata_ms: u64, x_recv: f64, p: f64) -> Feedback {
    Feedback { t_recvdata: t_ms(t_recvdata_ms), t_delay: SimDuration::ZERO, x_recv, p }
}

/// Seed 003 Table 9, initial slow start: RFC 3448 starts at 1 packet/s and
/// its first feedback gives max(min(2X, 2X_recv), s/R) = 1 packet per RTT;
/// RFC 5348 gives W_init/R = 4 packets per RTT for small packets.
#[test]
fn initial_rates() {
    let s = 160;
    let mut a = TfrcSender::new(TfrcConfig { spec: TfrcSpec::Rfc3448, ..TfrcConfig::default() }, s, SimTime::ZERO);
    assert_eq!(a.rate(), 160.0);
    a.on_packet_sent(SimTime::ZERO, s);
    a.on_feedback(t_ms(100), &fb(0, 160.0, 0.0)); // R = 100 ms
    assert!((a.rate() - 1600.0).abs() < 1e-6, "{}", a.rate());
    let mut b = TfrcSender::new(TfrcConfig::default(), s, SimTime::ZERO);
    b.on_packet_sent(SimTime::ZERO, s);
    b.on_feedback(t_ms(100), &fb(0, 160.0, 0.0));
    assert!((b.rate() - w_init(160.0) / 0.1).abs() < 1e-6 && w_init(160.0) == 640.0);
}

/// §4.3 step 4: in slow start X doubles at most once per RTT, limited by
/// 2·X_recv; with p > 0, X = min(X_Bps, 2·max X_recv_set).
#[test]
fn slow_start_and_equation() {
    let s = 1000;
    let mut x = TfrcSender::new(TfrcConfig::default(), s, SimTime::ZERO);
    x.on_packet_sent(SimTime::ZERO, s);
    x.on_rate_limited(SimTime(1));
    // R = 0.1: X = W_init/R = min(4000, max(2000, 4380))/0.1.
    x.on_feedback(t_ms(100), &fb(0, 1000.0, 0.0));
    assert!((x.rate() - 40_000.0).abs() < 1e-6);
    // One RTT later, receive rate 40 kB/s, sender not data-limited.
    x.on_rate_limited(t_ms(150));
    x.on_feedback(t_ms(200), &fb(100, 40_000.0, 0.0));
    assert!((x.rate() - 80_000.0).abs() < 1e-6, "{}", x.rate());
    // 50 ms later: no doubling within an RTT.
    x.on_rate_limited(t_ms(240));
    x.on_feedback(t_ms(250), &fb(150, 80_000.0, 0.0));
    assert!((x.rate() - 80_000.0).abs() < 1e-6, "{}", x.rate());
    // A loss: p = 0.01, R stays 0.1 s: X_Bps = 1000/(0.1·√(0.02/3) + 0.4·3√(0.03/8)·0.01·1.0032).
    x.on_rate_limited(t_ms(300));
    x.on_feedback(t_ms(350), &fb(250, 80_000.0, 0.01));
    let want = crate::cc::equation::tfrc_rate(1000.0, 0.1, 0.01, 0.4);
    assert!((x.rate() - want).abs() / want < 1e-9, "{} vs {want}", x.rate());
}

/// §4.4 with an idle sender: an RFC 5348 sender whose rate is below twice
/// the recover rate keeps it across nofeedback expiries; RFC 3448 halves
/// X_recv unless it is below 4 packets per RTT.
#[test]
fn idle_nofeedback() {
    let s = 160;
    let mut x = TfrcSender::new(TfrcConfig::default(), s, SimTime::ZERO);
    x.on_packet_sent(SimTime::ZERO, s);
    x.on_feedback(t_ms(100), &fb(0, 160.0, 0.0)); // X = 6400 B/s = 4 pkt/RTT
    let before = x.rate();
    for k in 1..=5 {
        let at = x.nofeedback_at();
        assert!(at <= t_ms(100 + 1000 * k));
        x.on_nofeedback(at); // idle since the timer was set
    }
    assert_eq!(x.rate(), before, "RFC 5348 keeps the recover rate while idle");
    // Not idle: the timer halves it.
    x.on_packet_sent(x.nofeedback_at(), s);
    x.on_nofeedback(x.nofeedback_at());
    assert!((x.rate() - before / 2.0).abs() < 1e-9);

    // RFC 3448 with p = 0.01: X_recv 8000 B/s = 5 packets per RTT ≥ 4, so
    // it is halved to 4000 although the sender was idle (X_calc = 17 973
    // B/s > 2·X_recv, the first branch of §4.4 item 1).
    let mut y = TfrcSender::new(TfrcConfig { spec: TfrcSpec::Rfc3448, ..TfrcConfig::default() }, s, SimTime::ZERO);
    y.on_packet_sent(SimTime::ZERO, s);
    y.on_feedback(t_ms(100), &fb(0, 8000.0, 0.01));
    assert!(y.x_calc() > 16_000.0, "{}", y.x_calc());
    y.on_nofeedback(y.nofeedback_at());
    assert!((y.x_recv() - 4000.0).abs() < 1e-9, "{}", y.x_recv());
    // Idle below 4 packets per RTT (X_recv 4800 < 4·160/0.1 = 6400):
    // nothing is reduced, p = 0 or not.
    for p in [0.0, 0.01] {
        let mut z = TfrcSender::new(TfrcConfig { spec: TfrcSpec::Rfc3448, ..TfrcConfig::default() }, s, SimTime::ZERO);
        z.on_packet_sent(SimTime::ZERO, s);
        z.on_feedback(t_ms(100), &fb(0, 4800.0, p));
        let (x, xr) = (z.rate(), z.x_recv());
        z.on_nofeedback(z.nofeedback_at());
        assert_eq!((z.rate(), z.x_recv()), (x, xr), "p = {p}");
    }
}

/// RFC 5348 §4.4 step 1 with p > 0 and an idle sender: the expiry that
/// finds X_recv (the largest entry of X_recv_set) at or above
/// recover_rate halves as usual; once X_recv is below recover_rate the
/// idle sender keeps X. Worked by hand from a seed 000 trace (G.729 over
/// CCID 3, 50 ms one-way, 0.1 % loss; issue 23): s = 32 B, R = 100 ms, so
/// recover_rate = W_init/R = min(4·32, max(2·32, 4380))/0.1 = 1280 B/s.
/// A feedback reports X_recv = 2250 B/s and p = 0.01535 while the sender is
/// not data-limited: X_Bps = 32/(0.1·√(2p/3) + 0.4·3√(3p/8)·p·(1 + 32p²))
/// = 32/0.0115241 = 2776.8 B/s (√(2p/3)·R = 0.0101160; t_RTO term
/// 0.4·0.227610·p·1.00754 = 0.0014081) and X = min(X_Bps, 2·2250) = 2776.8. The talkspurt ends.
/// First expiry (idle, X_recv 2250 ≥ 1280): X_Bps ≤ 2·X_recv, so
/// Update_Limits(X_Bps/2): X_recv_set = {694.2}, X = 1388.4. Second
/// expiry: X_recv = 694.2 < 1280 and idle: nothing changes, nor on any
/// later one. The old test on X_Bps < recover_rate (2776.8 < 1280, never
/// true) halved X at every expiry of the silence: 694, 347, 174, … B/s.
#[test]
fn rfc5348_idle_sender_stops_halving_once_x_recv_is_below_recover_rate() {
    let s = 32;
    let mut x = TfrcSender::new(TfrcConfig::default(), s, SimTime::ZERO);
    x.on_packet_sent(SimTime::ZERO, s);
    x.on_rate_limited(SimTime(1));
    x.on_feedback(t_ms(100), &fb(0, 1600.0, 0.0)); // R = 0.1 s
    x.on_rate_limited(t_ms(150));
    x.on_feedback(t_ms(200), &fb(100, 2250.0, 0.01535));
    let x_bps = crate::cc::equation::tfrc_rate(32.0, 0.1, 0.01535, 0.4);
    assert!((x_bps - 2776.8).abs() < 0.1, "{x_bps}");
    assert!((x.rate() - x_bps).abs() < 1e-9, "{} vs {x_bps}", x.rate());
    x.on_nofeedback(x.nofeedback_at());
    assert!((x.rate() - x_bps / 2.0).abs() < 1e-9, "first expiry: {}", x.rate());
    assert!((x.x_recv() - x_bps / 4.0).abs() < 1e-9, "{}", x.x_recv());
    for k in 2..=6 {
        x.on_nofeedback(x.nofeedback_at());
        assert!((x.rate() - x_bps / 2.0).abs() < 1e-9, "expiry {k}: {}", x.rate());
    }
    // A sender that was not idle is halved again: Update_Limits(X_Bps/2)
    // once more since X_Bps > 2·X_recv now, i.e. Update_Limits(X_recv).
    x.on_packet_sent(x.nofeedback_at(), s);
    x.on_nofeedback(x.nofeedback_at());
    assert!((x.rate() - x_bps / 4.0).abs() < 1e-9, "not idle: {}", x.rate());
}

/// RFC 3448 §4.4 item (2) with verified erratum 1458: while p == 0 a
/// nofeedback expiry halves X itself, X = max(X/2, s/t_mbi), and leaves
/// X_recv alone. Worked by hand: s = 160 B, R = 100 ms, the first feedback
/// reports X_recv = 16 000 B/s and p = 0, so X = max(min(2·160, 2·16 000),
/// 160/0.1) = 1600 B/s. Without the erratum, X_recv would become 8000 and
/// X = min(X, 2·8000) = 1600: no cut at all. With it: 800, then 400 on the
/// next expiry (the sender sends between them, so it is not idle); the
/// floor s/t_mbi = 160/64 = 2.5 B/s is reached after ten halvings
/// (1600/2^10 = 1.5625 → 2.5).
#[test]
fn rfc3448_erratum_1458_halves_x_while_p_is_zero() {
    let s = 160;
    let mut y = TfrcSender::new(TfrcConfig { spec: TfrcSpec::Rfc3448, ..TfrcConfig::default() }, s, SimTime::ZERO);
    y.on_packet_sent(SimTime::ZERO, s);
    y.on_feedback(t_ms(100), &fb(0, 16_000.0, 0.0));
    assert!((y.rate() - 1600.0).abs() < 1e-9, "{}", y.rate());
    let mut want = 1600.0;
    for k in 1..=11 {
        let at = y.nofeedback_at();
        y.on_packet_sent(SimTime(at.0 - 1_000_000), s);
        y.on_nofeedback(at);
        want = f64::max(want / 2.0, 2.5);
        assert!((y.rate() - want).abs() < 1e-9, "expiry {k}: {} vs {want}", y.rate());
        assert!((y.x_recv() - 16_000.0).abs() < 1e-9, "X_recv untouched: {}", y.x_recv());
    }
    assert_eq!(want, 2.5);
}

/// RFC 3448 as published (`erratum_1458 = false`, as ns-2.35's
/// Agent/DCCP/TFRC `tfrc_time_no_feedback`): the same case as above, but
/// an expiry while p = 0 takes §4.4 item (1), X_calc = ∞ > 2·X_recv, so
/// X_recv = max(X_recv/2, s/(2·t_mbi)) = 8000, 4000, 2000, 1000, 500,
/// 250; item (2) recomputes X by §4.3's p = 0 rule (each expiry is R or
/// more after tld): X = max(min(2X, 2·X_recv), s/R) = 3200, 6400, 4000,
/// 2000, 1600, 1600. The expiry can raise X: the cut reaches X only once
/// 2·X_recv falls below 2X (the erratum's "often no cut at all").
#[test]
fn rfc3448_as_published_halves_x_recv_while_p_is_zero() {
    let s = 160;
    let cfg = TfrcConfig { spec: TfrcSpec::Rfc3448, erratum_1458: false, ..TfrcConfig::default() };
    let mut y = TfrcSender::new(cfg, s, SimTime::ZERO);
    y.on_packet_sent(SimTime::ZERO, s);
    y.on_feedback(t_ms(100), &fb(0, 16_000.0, 0.0));
    assert!((y.rate() - 1600.0).abs() < 1e-9, "{}", y.rate());
    let want = [(8000.0, 3200.0), (4000.0, 6400.0), (2000.0, 4000.0), (1000.0, 2000.0), (500.0, 1600.0), (250.0, 1600.0)];
    for (k, (x_recv, x)) in want.into_iter().enumerate() {
        let at = y.nofeedback_at();
        y.on_packet_sent(SimTime(at.0 - 1_000_000), s);
        y.on_nofeedback(at);
        assert!((y.x_recv() - x_recv).abs() < 1e-9, "expiry {}: X_recv {} vs {x_recv}", k + 1, y.x_recv());
        assert!((y.rate() - x).abs() < 1e-9, "expiry {}: X {} vs {x}", k + 1, y.rate());
    }
}

/// Seed 000's FR-MD: never below 8 packets per RTT. Seed 003's N100: the
/// first rate is 43800·s/(s+H) whatever the RTT.
#[test]
fn seed_variants() {
    let s = 60;
    let cfg = TfrcConfig { variant: Variant::FrMd, faster_restart: FasterRestart::Emulated, ..TfrcConfig::default().small_packets(40) };
    let mut x = TfrcSender::new(cfg, s, SimTime::ZERO);
    x.on_packet_sent(SimTime::ZERO, s);
    x.on_feedback(t_ms(300), &fb(0, 1.0, 0.0)); // R = 0.3
    assert!(x.rate() >= 8.0 * 60.0 / 0.3 - 1e-9, "{}", x.rate());
    x.on_nofeedback(x.nofeedback_at());
    x.on_packet_sent(x.nofeedback_at(), s);
    x.on_nofeedback(x.nofeedback_at());
    assert!(x.rate() >= 8.0 * 60.0 / 0.3 - 1e-9, "{}", x.rate());

    let cfg = TfrcConfig { variant: Variant::N100, ..TfrcConfig::default().small_packets(36) };
    let mut n = TfrcSender::new(cfg, 172, SimTime::ZERO);
    n.on_handshake_rtt(SimTime::ZERO, SimDuration::from_millis(900));
    assert!((n.rate() - 43_800.0 * 172.0 / 208.0).abs() < 1e-6);
}

/// Seed 000's FR-MD floor holds from the DCCP handshake's R on, before any
/// feedback, under RFC 3448 too: the thesis's "minimal sending rate"
/// 8(s + H)/R (§5.1, l. 703; "at all times", l. 727) is FR-MD's initial
/// rate it compares with TCP's RFC 3390 window (§5.2, l. 829–833). RFC 3448
/// §4.2's one packet per second (32 B/s for a G.729 segment of 32 B) is
/// below it: G.729, R = 200 ms gives 8·32/0.2 = 1280 B/s (40 packets/s).
/// The same after the call's segment is hinted, and after a nofeedback
/// expiry before the first feedback (RFC 3448 §4.4 halves X there).
#[test]
fn fr_md_floor_from_the_handshake_rtt() {
    let cfg = TfrcConfig {
        spec: TfrcSpec::Rfc3448,
        variant: Variant::FrMd,
        faster_restart: FasterRestart::Emulated,
        ..TfrcConfig::default().small_packets(40)
    };
    let mut x = TfrcSender::new(cfg.clone(), 1460, SimTime::ZERO);
    x.hint_segment(32);
    assert_eq!(x.rate(), 32.0); // no R yet: one packet per second (§4.2)
    x.on_handshake_rtt(t_ms(200), SimDuration::from_millis(200));
    assert!((x.rate() - 1280.0).abs() < 1e-9, "{}", x.rate());
    x.on_nofeedback(x.nofeedback_at());
    assert!((x.rate() - 1280.0).abs() < 1e-9, "{}", x.rate());

    // Segment known only after the handshake: the floor follows s.
    let mut y = TfrcSender::new(cfg.clone(), 1460, SimTime::ZERO);
    y.on_handshake_rtt(t_ms(200), SimDuration::from_millis(200));
    assert!((y.rate() - 8.0 * 1460.0 / 0.2).abs() < 1e-6, "{}", y.rate());
    y.hint_segment(32);
    assert!((y.rate() - 1280.0).abs() < 1e-9, "{}", y.rate());

    // Plain TFRC-SP under RFC 3448 keeps one packet per second.
    let mut z = TfrcSender::new(TfrcConfig { variant: Variant::Standard, ..cfg }, 32, SimTime::ZERO);
    z.on_handshake_rtt(t_ms(200), SimDuration::from_millis(200));
    assert_eq!(z.rate(), 32.0);
}

/// Faster Restart in congestion avoidance: the rate may reach 4·X_recv
/// below X_fast_max (draft) and always (seed 000's emulation); 2·X_recv
/// without it.
#[test]
fn faster_restart_limits() {
    let run = |fr| {
        let cfg = TfrcConfig { faster_restart: fr, ..TfrcConfig::default() };
        let mut x = TfrcSender::new(cfg, 1000, SimTime::ZERO);
        x.on_packet_sent(SimTime::ZERO, 1000);
        x.on_rate_limited(SimTime(1));
        x.on_feedback(t_ms(100), &fb(0, 1000.0, 0.0));
        x.on_rate_limited(t_ms(150));
        x.on_feedback(t_ms(200), &fb(100, 100_000.0, 0.0)); // X_fast_max = 100 kB/s
        x.on_rate_limited(t_ms(250));
        x.on_feedback(t_ms(300), &fb(200, 10_000.0, 0.0001)); // loss: X_fast_max 50 kB/s
        x.on_rate_limited(t_ms(350));
        x.on_feedback(t_ms(400), &fb(300, 10_000.0, 0.0001));
        x.rate()
    };
    assert!((run(FasterRestart::Off) - 20_000.0).abs() < 1e-6);
    assert!((run(FasterRestart::Draft) - 40_000.0).abs() < 1e-6);
    assert!((run(FasterRestart::Emulated) - 40_000.0).abs() < 1e-6);
}

/// RFC 5348 §4.5 oscillation reduction: the pacing rate is
/// X_inst = X·R_sqmean/√R_sample with R_sqmean = q2·R_sqmean + (1 − q2)·√R_sample
/// seeded by the first sample. Samples 0.1 s then 0.4 s (a queue building):
/// R_sqmean = 0.9·√0.1 + 0.1·√0.4 = 0.347851, so X_inst/X = 0.347851/√0.4
/// = 0.55000 (by hand: 0.9·0.316228 + 0.1·0.632456 = 0.347851).
#[test]
fn oscillation_reduction_scales_by_the_rtt_root_ratio() {
    let s = 1000;
    let on = TfrcConfig { oscillation_reduction: true, ..TfrcConfig::default() };
    let mut a = TfrcSender::new(on, s, SimTime::ZERO);
    let mut b = TfrcSender::new(TfrcConfig::default(), s, SimTime::ZERO);
    for x in [&mut a, &mut b] {
        x.on_packet_sent(SimTime::ZERO, s);
        x.on_feedback(t_ms(100), &fb(0, 1000.0, 0.0)); // sample 0.1 s
    }
    assert_eq!(a.rate(), b.rate()); // one sample: R_sqmean = √R_sample
    for x in [&mut a, &mut b] {
        x.on_feedback(t_ms(600), &fb(200, 40_000.0, 0.01)); // sample 0.4 s
    }
    let ratio = a.rate() / b.rate();
    assert!((ratio - 0.55).abs() < 1e-5, "X_inst/X = {ratio}");
}

/// Seed 003 eq. (8) with its observation interval O = R/N_Fb (§6.2): on a
/// 1 s RTT path, packets of 56 B every 20 ms (2800 B/s) give N_Fb =
/// min(max(round(1/0.1), 1), ⌊1·2800/56⌋) = min(10, 50) = 10 reports per RTT,
/// each 100 ms apart, and each report's X_recv is the rate over its own
/// 100 ms (2800 B/s), not its bytes spread over a whole RTT (280 B/s).
#[test]
fn dynamic_feedback_reports_the_rate_of_its_observation_interval() {
    use super::receiver::{DataInfo, FeedbackMode, TfrcReceiver};
    let cfg = TfrcConfig { dynamic_feedback: true, ..TfrcConfig::default() };
    let mut rx = TfrcReceiver::new(cfg, FeedbackMode::Timer);
    let mut seq = 0u64;
    let mut reports = Vec::new();
    for ms in (0..5000u64).step_by(20) {
        let now = t_ms(ms);
        let d = DataInfo { seq, sent: now, bytes: 56, ce: false, ccval: 0, rtt: Some(SimDuration::from_secs(1)) };
        seq += 1;
        let due = rx.on_data(now, &d) | rx.on_timeout(now);
        if due {
            reports.push((ms, rx.report(now).x_recv, rx.n_fb()));
        }
    }
    // Skip the start-up reports (before a whole observation interval).
    let steady: Vec<_> = reports.iter().filter(|r| r.0 >= 2000).collect();
    assert!(steady.len() >= 25, "{} reports in 3 s", steady.len());
    for &&(ms, x_recv, n_fb) in &steady {
        assert_eq!(n_fb, 10, "at {ms} ms");
        assert!((x_recv - 2800.0).abs() <= 0.21 * 2800.0, "X_recv {x_recv} B/s at {ms} ms");
    }
    let gaps: Vec<u64> = steady.windows(2).map(|w| w[1].0 - w[0].0).collect();
    assert!(gaps.iter().all(|&g| (100..=120).contains(&g)), "report gaps {gaps:?}");
}

/// RFC 5348 §4.2 (RFC 3448 §4.2): the first rate is one packet of the
/// sender's own segment size per second, and W_init/R of that size once a
/// handshake measured R. A sender built with the 1460 B bulk default and
/// told before its first packet that its segments are 172 B (G.711, 20 ms,
/// RTP) starts at 172 B/s = 1376 b/s, not 1460 B/s = 11 680 b/s; after a
/// 1 s handshake RTT under RFC 5348 at W_init(172)/R = min(688, 4380) =
/// 688 B/s, not 4380 B/s. Seed 003's CCID4-N/N100 (H = 36 B) start at
/// 1460·172/208 = 1207.3 B/s, and eq. (7)/(13) of the real s. A nofeedback
/// halving before the hint is kept (the rate is rescaled, not reset).
#[test]
fn first_rate_uses_the_hinted_segment() {
    let r = SimDuration::from_secs(1);
    for (spec, handshake, want) in [
        (TfrcSpec::Rfc3448, false, 172.0),
        (TfrcSpec::Rfc5348, false, 172.0),
        (TfrcSpec::Rfc3448, true, 172.0),
        (TfrcSpec::Rfc5348, true, w_init(172.0)),
        (TfrcSpec::Linux2008, true, w_init(172.0)),
    ] {
        let cfg = TfrcConfig { spec, ..TfrcConfig::default() };
        let mut s = TfrcSender::new(cfg, 1460, SimTime::ZERO);
        if handshake {
            s.on_handshake_rtt(SimTime::ZERO, r);
        }
        s.hint_segment(172);
        assert!((s.rate() - want).abs() < 1e-9, "{spec:?} handshake {handshake}: {} vs {want}", s.rate());
    }
    assert_eq!(w_init(172.0), 688.0);
    let sp = TfrcConfig::default().small_packets(36);
    for (variant, handshake, want) in [
        (Variant::N, false, 1460.0 * 172.0 / 208.0),
        (Variant::N100, false, 1460.0 * 172.0 / 208.0),
        (Variant::N, true, 4380.0 * 172.0 / 208.0),
        (Variant::N100, true, 43800.0 * 172.0 / 208.0),
    ] {
        let cfg = TfrcConfig { variant, ..sp.clone() };
        let mut s = TfrcSender::new(cfg, 1460, SimTime::ZERO);
        if handshake {
            s.on_handshake_rtt(SimTime::ZERO, r);
        }
        s.hint_segment(172);
        assert!((s.rate() - want).abs() < 1e-6, "{variant:?} handshake {handshake}: {} vs {want}", s.rate());
    }
    // Halved once before the hint (no feedback, RFC 3448 §4.4): stays halved.
    let mut s = TfrcSender::new(TfrcConfig { spec: TfrcSpec::Rfc3448, ..TfrcConfig::default() }, 1460, SimTime::ZERO);
    s.on_nofeedback(SimTime::ZERO + SimDuration::from_secs(2));
    s.hint_segment(172);
    assert!((s.rate() - 86.0).abs() < 1e-9, "{}", s.rate());
}

fn rfc3448(fr: FasterRestart) -> TfrcConfig {
    TfrcConfig { spec: TfrcSpec::Rfc3448, faster_restart: fr, ..TfrcConfig::default() }
}

/// Faster Restart under RFC 3448 while p = 0 (seed 003 §9: FR "quadruples
/// the sending rate after idle periods (instead of doubling as in both
/// RFCs) and increases the idle period recovery rate to 8 packets/RTT for
/// small packet size"), by hand: s = 160 B, R = 100 ms, every feedback
/// X_recv = 16 000 B/s (so X_fast_max = 16 000).
/// - first feedback: max(min(2·160, 32 000), s/R = 1600) = 1600 B/s, all;
/// - second, 100 ms later: RFC 3448 doubles to 3200, the draft quadruples
///   (X < X_fast_max; limit max(2·X_recv, min(4·X_recv, X_fast_max)) =
///   32 000) to 6400; seed 000's emulation (congestion avoidance only)
///   doubles;
/// - a nofeedback expiry with the sender idle: RFC 3448 keeps X only while
///   X_recv < 4s/R = 6400, so it halves X to 1600; under the draft the
///   floor is 8 packets per RTT, min(8s, max(2s, 4380))/R = 12 800, so
///   X_recv = 16 000 < 2·12 800 and X stays 6400.
#[test]
fn faster_restart_acts_under_rfc3448_while_p_is_zero() {
    let run = |fr| {
        let mut a = TfrcSender::new(rfc3448(fr), 160, SimTime::ZERO);
        a.on_packet_sent(SimTime::ZERO, 160);
        a.on_feedback(t_ms(100), &fb(0, 16_000.0, 0.0));
        let x1 = a.rate();
        a.on_packet_sent(t_ms(150), 160);
        a.on_feedback(t_ms(200), &fb(100, 16_000.0, 0.0));
        let x2 = a.rate();
        a.on_nofeedback(a.nofeedback_at());
        (x1, x2, a.rate())
    };
    assert_eq!(run(FasterRestart::Off), (1600.0, 3200.0, 1600.0));
    assert_eq!(run(FasterRestart::Draft), (1600.0, 6400.0, 6400.0));
    assert_eq!(run(FasterRestart::Emulated).1, 3200.0);
}

/// Seed 003 §6.2 (eqs. 10–12): with dynamic feedback the slow-start
/// increase applies once per observation interval R/N_Fb, not once per R.
/// R = 1 s, RTT_ref = 100 ms, X_recv large: N_Fb = min(round(1/0.1), R·X_recv/s)
/// = 10. After the first feedback (X = max(min(2·160, 2·X_recv), s/R) =
/// 320 B/s, RFC 3448), four feedbacks 250 ms apart each allow a doubling
/// with dynamic feedback (×16 = 5120 B/s) and one (at +1 s) without
/// (×2 = 640 B/s).
#[test]
fn dynamic_feedback_doubles_per_observation_interval() {
    for (df, want) in [(false, 640.0), (true, 5120.0)] {
        let mut a = TfrcSender::new(TfrcConfig { dynamic_feedback: df, ..rfc3448(FasterRestart::Off) }, 160, SimTime::ZERO);
        a.on_packet_sent(SimTime::ZERO, 160);
        a.on_feedback(t_ms(1000), &fb(0, 1e6, 0.0));
        assert_eq!(a.rate(), 320.0);
        for k in 1..=4u64 {
            a.on_feedback(t_ms(1000 + 250 * k), &fb(250 * k, 1e6, 0.0));
        }
        assert!((a.rate() - want).abs() < 1e-6, "dynamic {df}: {} vs {want}", a.rate());
    }
}

/// The `linux2008` rule set, by hand against the 2008 Linux CCID 3 sender
/// (2.6.25–2.6.28; docs/models/tfrc.md "Linux 2008"). s = 160 B, R = 1 s:
/// - first feedback (X_recv 0 as Linux's receiver reports it): X =
///   W_init/R = 640 B/s; RFC 3448 gives max(min(320, 0), s/R) = 160;
/// - feedback at 2 s, X_recv 500: Linux X = min(1280, 1000) = 1000,
///   RFC 3448 min(320, 1000) = 320;
/// - nofeedback expiry, idle: Linux halves to 500; RFC 3448 keeps 320
///   (X_recv 500 < 4s/R = 640);
/// - next feedback, X_recv 100, p = 0: Linux leaves X at 500 (first
///   feedback after an expiry); RFC 3448: max(min(640, 200), 160) = 200;
/// - one more at +1 s, still idle (nothing sent for ≥ 2R): the limit is
///   max(2·X_recv, W_init/R) = 640, so X = 640; had a packet gone out
///   within 2R, 2·X_recv = 200.
#[test]
fn linux2008_rules_by_hand() {
    let cfg = |spec| TfrcConfig { spec, ..TfrcConfig::default() };
    let mut l = TfrcSender::new(cfg(TfrcSpec::Linux2008), 160, SimTime::ZERO);
    let mut r = TfrcSender::new(cfg(TfrcSpec::Rfc3448), 160, SimTime::ZERO);
    for a in [&mut l, &mut r] {
        a.on_packet_sent(SimTime::ZERO, 160);
        a.on_feedback(t_ms(1000), &fb(0, 0.0, 0.0));
    }
    assert_eq!((l.rate(), r.rate()), (640.0, 160.0));
    for a in [&mut l, &mut r] {
        a.on_feedback(t_ms(2000), &fb(1000, 500.0, 0.0));
    }
    assert_eq!((l.rate(), r.rate()), (1000.0, 320.0));
    for a in [&mut l, &mut r] {
        a.on_nofeedback(a.nofeedback_at());
    }
    assert_eq!((l.rate(), r.rate()), (500.0, 320.0));
    for a in [&mut l, &mut r] {
        a.on_feedback(t_ms(7000), &fb(6000, 100.0, 0.0));
    }
    assert_eq!((l.rate(), r.rate()), (500.0, 200.0));
    let mut busy = l.clone();
    l.on_feedback(t_ms(8000), &fb(7000, 100.0, 0.0));
    assert_eq!(l.rate(), 640.0);
    busy.on_packet_sent(t_ms(7500), 160);
    busy.on_feedback(t_ms(8000), &fb(7000, 100.0, 0.0));
    assert_eq!(busy.rate(), 200.0);
}

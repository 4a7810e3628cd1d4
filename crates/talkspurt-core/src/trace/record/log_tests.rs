//! Unit tests of `trace::record::log`.

use super::*;
use crate::time::SimTime;
use crate::rng::{Rng, StreamId};
use crate::trace::record::NO_WHERE;

/// One call's write, as the world makes them: a new packet (perhaps
/// arrived at once), or a send, arrival, fate or size of one already
/// pushed (late ones and repeats included).
#[derive(Clone, Copy, Debug)]
enum Write {
    Push { t_gen: u64, talkspurt: u32, frames: u32, payload: u32, wire: u32 },
    PushArrived { t_gen: u64, talkspurt: u32, frames: u32, payload: u32, wire: u32, at: u64 },
    Sent(u32, u64),
    Arrived(u32, u64),
    Fate(u32, NetFate, u32),
    Wire(u32, u32),
}

/// Apply `w` to `r`; the sequence number a push handed out.
fn write(r: &mut CallRecord, w: Write) -> Option<u32> {
    match w {
        Write::Push { t_gen, talkspurt, frames, payload, wire } => Some(r.push(SimTime(t_gen), talkspurt, frames, payload, wire)),
        Write::PushArrived { t_gen, talkspurt, frames, payload, wire, at } => {
            r.push_arrived(SimTime(t_gen), talkspurt, frames, payload, wire, SimTime(at));
            None
        }
        Write::Sent(seq, t) => {
            r.sent(seq, SimTime(t));
            None
        }
        Write::Arrived(seq, t) => {
            r.arrived(seq, SimTime(t));
            None
        }
        Write::Fate(seq, f, at) => {
            r.set_fate(seq, f, at);
            None
        }
        Write::Wire(seq, b) => {
            r.set_wire(seq, b);
            None
        }
    }
}

/// `n` writes over `calls` calls: generation times rising per call (with
/// gaps past a u32 of ns now and then), values past the narrow slots,
/// writes to packets blocks behind the newest (late arrivals, losses).
fn writes(seed: u64, calls: usize, n: usize) -> Vec<(usize, Write)> {
    let mut rng = Rng::stream(seed, 0, StreamId::new(77, 1));
    let (mut next_gen, mut pushed) = (vec![0u64; calls], vec![0u32; calls]);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let c = rng.below(calls as u64) as usize;
        let t = next_gen[c];
        let old = |rng: &mut Rng| rng.below(pushed[c] as u64) as u32;
        let w = match rng.below(10) {
            0..=3 => {
                let (talkspurt, payload) = ((t / 1_000_000_000) as u32, if rng.below(50) == 0 { 70_000 } else { 160 });
                // Beyond a byte (the side map) and beyond u16 (kept as u16::MAX) now and then.
                let frames = [1, 2, 3, 300, 70_000][if rng.below(40) == 0 { 3 + rng.below(2) as usize } else { rng.below(3) as usize }];
                let wire = payload + 40;
                next_gen[c] += if rng.below(200) == 0 { 5_000_000_000 } else { 20_000_000 };
                pushed[c] += 1;
                if rng.below(2) == 0 {
                    let at = t + if rng.below(100) == 0 { 6_000_000_000 } else { 30_000_000 + rng.below(4) * 160 };
                    Write::PushArrived { t_gen: t, talkspurt, frames, payload, wire, at }
                } else {
                    Write::Push { t_gen: t, talkspurt, frames, payload, wire }
                }
            }
            _ if pushed[c] == 0 => continue,
            4 | 5 => Write::Sent(old(&mut rng), t),
            6 | 7 => Write::Arrived(old(&mut rng), t + 40_000_000),
            8 => Write::Fate(old(&mut rng), [NetFate::QueueDrop, NetFate::LinkLoss, NetFate::SenderDrop][rng.below(3) as usize], if rng.below(2) == 0 { NO_WHERE } else { 2 }),
            _ => Write::Wire(old(&mut rng), 1_000 + rng.below(100_000) as u32),
        };
        out.push((c, w));
    }
    out
}

/// An op is at most 40 bytes, so a chunk is `CHUNK` × 40 B (the module's
/// memory figure). (32 B, with the arrival as a u32 offset and frames as
/// u16, cost the loop 1 % more instructions on m10 for no measurable
/// gain in time.)
#[test]
fn an_op_fits_forty_bytes() {
    assert!(std::mem::size_of::<Op>() <= 40, "{} B", std::mem::size_of::<Op>());
}

/// Writes through stand-ins that log them leave every record as the same
/// writes made directly, over many chunks (`CHUNK`) and both kinds of
/// record (with the trace's columns or without); each push hands out the
/// sequence number the direct record does. Seeds 1–6.
#[test]
fn logged_writes_leave_the_records_of_direct_ones() {
    const CALLS: usize = 7;
    for seed in 1..=6u64 {
        for full in [false, true] {
            let ws = writes(seed, CALLS, 3 * CHUNK + 123);
            let mut direct: Vec<CallRecord> = (0..CALLS).map(|_| CallRecord::new(full, 64)).collect();
            let mut logged: Vec<CallRecord> = (0..CALLS).map(|_| CallRecord::new(full, 64)).collect();
            let log = RecordLog::start(logged.iter_mut());
            for &(c, w) in &ws {
                let (a, b) = (write(&mut direct[c], w), write(&mut logged[c], w));
                assert_eq!(a, b, "seed {seed}: {w:?}");
                assert_eq!(direct[c].len(), logged[c].len(), "seed {seed}");
            }
            log.finish(logged.iter_mut());
            for (c, (d, l)) in direct.iter().zip(&logged).enumerate() {
                assert!(!l.logged, "seed {seed}: call {c} still a stand-in");
                assert!(d.len() > 0 && d.columns(full) == l.columns(full), "seed {seed} full {full}: call {c} differs");
            }
        }
    }
}

/// A stand-in must not be made of a record that folds its packets
/// (streaming scoring): `run_with` never defers those.
#[test]
#[should_panic(expected = "a stand-in for a record that is written directly")]
fn streaming_records_are_not_logged() {
    #[derive(Debug)]
    struct Null;
    impl crate::trace::record::RecordSink for Null {
        fn push(&mut self, _: u64, _: u32, _: u32, _: u32) -> u32 {
            0
        }
        fn sent(&mut self, _: u32, _: u64) {}
        fn arrived(&mut self, _: u32, _: u64) {}
        fn set_fate(&mut self, _: u32, _: NetFate) {}
        fn len(&self) -> usize {
            0
        }
        fn finish(&mut self) {}
        fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
            self
        }
    }
    let mut r = vec![CallRecord::streaming(Box::new(Null))];
    let _ = RecordLog::start(r.iter_mut());
}

/// A stand-in written once its log has finished (here: never put back)
/// panics instead of writing anywhere.
#[test]
#[should_panic(expected = "after the log finished")]
fn a_stand_in_after_its_log_panics() {
    let mut r = vec![CallRecord::new(false, 8)];
    RecordLog::start(r.iter_mut()).finish(std::iter::empty());
    r[0].push(SimTime(0), 0, 1, 160, 200);
}

/// A stand-in written on another thread than its log's finds no log
/// there and panics; the log's own thread goes on.
#[test]
fn a_stand_in_away_from_its_log_panics() {
    let mut r = vec![CallRecord::new(false, 8)];
    let log = RecordLog::start(r.iter_mut());
    let mut stand_in = std::mem::take(&mut r[0]);
    let away = std::thread::spawn(move || stand_in.push(SimTime(0), 0, 1, 160, 200)).join();
    assert!(away.is_err());
    r[0] = CallRecord::default();
    log.finish(r.iter_mut());
    assert_eq!(r[0].len(), 0);
}

/// One log at a time on a thread.
#[test]
#[should_panic(expected = "already open")]
fn one_log_a_thread() {
    let (mut a, mut b) = (vec![CallRecord::new(false, 8)], vec![CallRecord::new(false, 8)]);
    let _first = RecordLog::start(a.iter_mut());
    let _second = RecordLog::start(b.iter_mut());
}

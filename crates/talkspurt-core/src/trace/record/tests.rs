//! Unit tests of `trace::record`.

use super::*;
use crate::time::SimTime;

/// Values at and beyond every narrow slot's reach decode exactly.
#[test]
fn escapes_decode_exactly() {
    let mut r = CallRecord::new(true, 4);
    let big = 5_000_000_000u64; // beyond a u32 of ns
    let gens = [0u64, 20_000_000, 20_000_000 + big, 20_000_000 + 2 * big];
    let spurts = [0u32, 300, 2, 2];
    for (k, (&g, &s)) in gens.iter().zip(&spurts).enumerate() {
        let seq = r.push(SimTime(g), s, [1, 70_000, 255, 254][k], [160, 65_535, 70_000, 0][k], [200, 65_534, 1 << 20, 40][k]);
        assert_eq!(seq as usize, k);
    }
    r.sent(0, SimTime(5));
    r.sent(1, SimTime(gens[1] + big));
    r.arrived(1, SimTime(gens[1] + 2 * big));
    r.set_fate(2, NetFate::QueueDrop, 70_000);
    r.set_fate(3, NetFate::LinkLoss, 3);
    r.set_fate(1, NetFate::LinkLoss, 9); // delivered: keeps its fate
    let c = r.columns(true);
    assert_eq!(c.t_gen, gens);
    assert_eq!(c.talkspurt, spurts);
    assert_eq!(c.frames, [1, u16::MAX, 255, 254]);
    assert_eq!(c.payload, [160, 65_535, 70_000, 0]);
    assert_eq!(c.wire, [200, 65_534, 1 << 20, 40]);
    assert_eq!(c.t_sent, [5, gens[1] + big, NEVER, NEVER]);
    assert_eq!(c.t_arr, [NEVER, gens[1] + 2 * big, NEVER, NEVER]);
    assert_eq!(c.fate, [NetFate::InFlight, NetFate::Arrived, NetFate::QueueDrop, NetFate::LinkLoss]);
    assert_eq!(c.where_, [NO_WHERE, NO_WHERE, 70_000, 3]);
    assert_eq!(r.t_arr(1), gens[1] + 2 * big);
}

/// A call without escapes (the columns' fast paths) decodes as the
/// per-index accessors do, lost, unsent and in-flight packets included.
#[test]
fn plain_calls_decode_as_the_accessors() {
    for full in [false, true] {
        let mut r = CallRecord::new(full, 300);
        for i in 0..300u64 {
            let g = i * 20_000_000 + (i / 7) * 1_000;
            let seq = r.push(SimTime(g), (i / 40) as u32 * 3, 1 + (i % 3) as u32, 160 + i as u32, 200 + i as u32);
            if i % 5 != 0 {
                r.sent(seq, SimTime(g + i * 10));
            }
            match i % 11 {
                0 => r.set_fate(seq, NetFate::QueueDrop, 2),
                1 => {}
                _ => r.arrived(seq, SimTime(g + 30_000_000 + i * 1_000)),
            }
        }
        let c = r.columns(true);
        let n = r.len();
        assert_eq!(c.t_gen, (0..n).map(|i| r.t_gen(i)).collect::<Vec<_>>());
        assert_eq!(c.t_sent, (0..n).map(|i| r.t_sent(i)).collect::<Vec<_>>());
        assert_eq!(c.t_arr, (0..n).map(|i| r.t_arr(i)).collect::<Vec<_>>());
        assert_eq!(c.talkspurt, r.talkspurts().collect::<Vec<_>>());
        assert_eq!(c.talkspurt, (0..n).map(|i| (i / 40) as u32 * 3).collect::<Vec<_>>());
        assert_eq!(c.frames, (0..n).map(|i| r.frames(i) as u16).collect::<Vec<_>>());
        assert_eq!(c.payload, (0..n).map(|i| r.payload(i)).collect::<Vec<_>>());
        if full {
            assert_eq!(c.wire, (0..n).map(|i| r.wire(i)).collect::<Vec<_>>());
            assert_eq!(c.where_, (0..n).map(|i| r.where_(i)).collect::<Vec<_>>());
        }
    }
}

/// The latest packet's fast path (`latest`) gives way to the general
/// one for offsets beyond a slot, and a second send or arrival of the
/// same packet changes nothing.
#[test]
fn latest_packet_escapes_and_repeats() {
    let big = 5_000_000_000u64;
    for full in [false, true] {
        let mut r = CallRecord::new(full, 2);
        r.push(SimTime(7), 0, 1, 160, 200);
        r.sent(0, SimTime(7 + big));
        r.arrived(0, SimTime(7 + 2 * big));
        r.sent(0, SimTime(8 + big));
        r.arrived(0, SimTime(9 + 2 * big));
        r.push(SimTime(100), 0, 1, 160, 200);
        r.sent(1, SimTime(101));
        r.arrived(1, SimTime(102));
        r.arrived(1, SimTime(103));
        let c = r.columns(true);
        assert_eq!((c.t_sent, c.t_arr), (vec![7 + big, 101], vec![7 + 2 * big, 102]), "full={full}");
        assert_eq!(c.fate, [NetFate::Arrived; 2]);
    }
}

/// A record whose current block is a slot of the world's slab
/// (`trace::slab`) holds and decodes exactly what an owned one does:
/// several full blocks copied out of the reused slot, rebases, escapes,
/// fates; and the slab stays mapped while a record holds it.
#[test]
fn slab_blocks_decode_as_owned_ones() {
    let slab = CallRecord::block_slab(3);
    #[cfg(target_os = "linux")]
    assert!(slab.is_some(), "mmap of three blocks failed");
    let Some(slab) = slab else { return };
    let big = 5_000_000_000u64;
    for full in [false, true] {
        let mut owned = CallRecord::new(full, 300);
        let mut held = CallRecord::new(full, 300);
        assert!(held.attach_slab(&slab, usize::from(full)));
        for r in [&mut owned, &mut held] {
            for i in 0..300u64 {
                let g = i * 20_000_000 + (i / 50) * 6_000_000_000 + (i / 7) * 1_000;
                let seq = r.push(SimTime(g), (i / 40) as u32 * 3, 1 + (i % 3) as u32, 160 + i as u32, 200 + i as u32);
                if i % 5 != 0 {
                    r.sent(seq, SimTime(g + if i == 77 { big } else { i * 10 }));
                }
                match i % 11 {
                    0 => r.set_fate(seq, NetFate::QueueDrop, 2),
                    1 => {}
                    _ => r.arrived(seq, SimTime(g + 30_000_000 + i * 1_000)),
                }
            }
        }
        assert_eq!(held.cold.done.len(), 4, "300 packets: 4 full blocks copied out, the 5th in the slot");
        let (a, b) = (owned.columns(true), held.columns(true));
        assert_eq!((a.t_gen, a.t_sent, a.t_arr), (b.t_gen, b.t_sent, b.t_arr), "full={full}");
        assert_eq!((a.talkspurt, a.frames, a.payload, a.fate), (b.talkspurt, b.frames, b.payload, b.fate), "full={full}");
        assert_eq!((a.wire, a.where_), (b.wire, b.where_), "full={full}");
        assert!(!held.attach_slab(&slab, 2), "a started record keeps its block");
    }
    // The records outlive the test's handle: the slab is theirs too.
    let mut r = CallRecord::new(false, 1);
    assert!(r.attach_slab(&slab, 2));
    drop(slab);
    r.push(SimTime(1), 0, 1, 160, 200);
    assert_eq!(r.t_gen(0), 1);
}

/// Long silences inside a block rebase it: one side entry per gap,
/// exact times before and after.
#[test]
fn long_gaps_rebase_the_block() {
    let mut r = CallRecord::new(false, 200);
    let mut t = Vec::new();
    for i in 0..200u64 {
        let g = i * 20_000_000 + (i / 10) * 6_000_000_000; // a 6 s silence every 10 packets
        t.push(g);
        r.push(SimTime(g), (i / 10) as u32, 1, 160, 0);
        r.arrived(i as u32, SimTime(g + 1));
    }
    assert_eq!(r.columns(false).t_gen, t);
    assert!((0..200).all(|i| r.t_gen(i) == t[i] && r.t_arr(i) == t[i] + 1));
    assert_eq!(r.cold.rebase.len(), 19, "one per silence (none at a block start here)");
}

/// A block is packed once the next one is full (`trace::pack`): a
/// constant-rate call with a constant delay then costs its blocks'
/// headers, 80 bytes a block of 64 packets here (72 of header and 8 for
/// the talkspurt steps, one bit each, as the talkspurt changes every 50
/// packets) plus the vector's entry (24 bytes) — 1.625 bytes a packet
/// against 17 as rows; the trace's two columns (`slots::Runs`) add one
/// run each, a few bytes a call. The last full block (`LAG`) and the
/// current one stay rows.
#[test]
fn bytes_per_packet() {
    let n = 64_000;
    let blocks = n / BLOCK;
    for (full, extra) in [(false, 0.0), (true, 0.0)] {
        let mut r = CallRecord::new(full, n);
        for i in 0..n as u64 {
            let seq = r.push(SimTime(i * 20_000_000), (i / 50) as u32, 1, 160, 200);
            r.sent(seq, SimTime(i * 20_000_000));
            r.arrived(seq, SimTime(i * 20_000_000 + 32_019_200));
        }
        let packed = (blocks - 1 - LAG) as f64 * 80.0;
        let rows = (1 + LAG) as f64 * std::mem::size_of::<Block>() as f64;
        let entries = (blocks as f64) * std::mem::size_of::<Stored>() as f64;
        let want = (packed + rows + entries) / n as f64 + extra;
        // The call's constant part (its side maps' headers) apart.
        let per = (r.heap_bytes() - std::mem::size_of::<RecordCold>()) as f64 / n as f64;
        assert!((per - want).abs() < 0.01, "full={full}: {per} bytes a packet, want {want}");
        assert!(per < 1.7 + extra, "full={full}: {per}");
    }
}

/// Packed blocks decode as rows do, whatever reaches them late: a packet
/// sent, lost or arriving after its block was packed unpacks it (the
/// write lands, exactly) and the next block packs it again. Compared
/// with the same call written with every packet settled at once.
#[test]
fn late_packets_reach_packed_blocks() {
    for full in [false, true] {
        let (mut late, mut early) = (CallRecord::new(full, 1000), CallRecord::new(full, 1000));
        let mut pending = Vec::new();
        for i in 0..1000u64 {
            // On/off: a talkspurt of 30 packets, then 400 ms of silence.
            let g = i * 20_000_000 + (i / 30) * 400_000_000;
            for r in [&mut late, &mut early] {
                r.push(SimTime(g), (i / 30) as u32, 1, 160 + (i % 2) as u32, 200);
            }
            let sent = g + (i % 4) * 1_000;
            let arr = sent + 30_000_000 + (i * 7919 % 5_000_000);
            early.sent(i as u32, SimTime(sent));
            match i % 13 {
                // Held back: sent and delivered 3 s later (blocks packed meanwhile).
                0 => pending.push((i as u32, sent + 3_000_000_000, Some(arr + 3_000_000_000))),
                5 => pending.push((i as u32, sent + 3_000_000_000, None)),
                _ => {
                    late.sent(i as u32, SimTime(sent));
                    late.arrived(i as u32, SimTime(arr));
                }
            }
            match i % 13 {
                0 => early.arrived(i as u32, SimTime(arr + 3_000_000_000)),
                5 => early.set_fate(i as u32, NetFate::QueueDrop, 1),
                _ => early.arrived(i as u32, SimTime(arr)),
            }
            // Settle what is 150 packets old.
            while pending.first().is_some_and(|&(s, _, _)| s as u64 + 150 <= i) {
                let (s, t, a) = pending.remove(0);
                late.sent(s, SimTime(t));
                match a {
                    Some(a) => late.arrived(s, SimTime(a)),
                    None => late.set_fate(s, NetFate::QueueDrop, 1),
                }
            }
        }
        for (s, t, a) in pending {
            late.sent(s, SimTime(t));
            match a {
                Some(a) => late.arrived(s, SimTime(a)),
                None => late.set_fate(s, NetFate::QueueDrop, 1),
            }
        }
        // Sends differ (late ones 3 s later); everything else is the same.
        let (a, b) = (late.columns(true), early.columns(true));
        assert_eq!(a.t_gen, b.t_gen, "full={full}");
        assert_eq!(a.t_arr, b.t_arr, "full={full}");
        assert_eq!((&a.talkspurt, &a.frames, &a.payload, &a.fate), (&b.talkspurt, &b.frames, &b.payload, &b.fate));
        let n = late.len();
        assert_eq!(a.t_sent, (0..n).map(|i| late.t_sent(i)).collect::<Vec<_>>());
        assert_eq!(a.t_arr, (0..n).map(|i| late.t_arr(i)).collect::<Vec<_>>());
        assert_eq!(a.fate, (0..n).map(|i| late.fate(i)).collect::<Vec<_>>());
        assert_eq!(a.payload, (0..n).map(|i| late.payload(i)).collect::<Vec<_>>());
        assert_eq!(a.fate, late.fates());
        let packed = late.cold.done.iter().filter(|s| !matches!(s, Stored::Rows(_))).count();
        assert_eq!(packed, late.cold.done.len() - LAG - late.cold.loose.len(), "every settled block packed again");
    }
}

/// A block whose packets all arrived alike is packed as soon as it is
/// full (`Block::settled`), as settling it `LAG` blocks later does (the
/// same `Line`); `push_arrived` writes what `push`, `sent` and `arrived` do; and
/// writes that reach a settled block afterwards (a copy arriving, a loss
/// of a copy, a second send) change nothing.
#[test]
fn settled_blocks_pack_at_once() {
    for full in [false, true] {
        let (mut one, mut three) = (CallRecord::new(full, 300), CallRecord::new(full, 300));
        for i in 0..300u64 {
            let g = i * 20_000_000;
            one.push_arrived(SimTime(g), 0, 1, 160, 200, SimTime(g + 32_019_200));
            let seq = three.push(SimTime(g), 0, 1, 160, 200);
            three.sent(seq, SimTime(g));
            three.arrived(seq, SimTime(g + 32_019_200));
        }
        // 4 full blocks, every one packed already (the newest included).
        assert!(one.cold.done.iter().all(|s| matches!(s, Stored::Line(_))), "full={full}");
        let before = one.columns(true);
        let at_once: Vec<Vec<u32>> = one.cold.done.iter().map(|s| s.cols(&one.cold.lines).1.concat()).collect();
        let cold = &mut *three.cold;
        for b in cold.done.iter_mut() {
            b.settle(&mut cold.lines);
        }
        assert!(cold.done.iter().all(|s| matches!(s, Stored::Line(_))), "full={full}");
        let packed: Vec<Vec<u32>> = cold.done.iter().map(|s| s.cols(&cold.lines).1.concat()).collect();
        assert_eq!(at_once, packed, "full={full}");
        let b = three.columns(true);
        assert_eq!((&before.t_gen, &before.t_sent, &before.t_arr, &before.fate), (&b.t_gen, &b.t_sent, &b.t_arr, &b.fate));
        assert_eq!((&before.wire, &before.where_), (&b.wire, &b.where_));
        one.arrived(10, SimTime(10 * 20_000_000 + 90_000_000));
        one.set_fate(70, NetFate::LinkLoss, 2);
        one.sent(130, SimTime(130 * 20_000_000 + 5));
        let after = one.columns(true);
        assert_eq!((before.t_sent, before.t_arr, before.fate, before.where_), (after.t_sent, after.t_arr, after.fate, after.where_));
    }
}

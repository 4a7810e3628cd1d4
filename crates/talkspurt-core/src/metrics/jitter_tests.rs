//! Tests of `jitter.rs`.

use super::super::{close, ms, MS, X};
use super::*;


#[test]
fn hand_computed_receiver() {
    // Arrivals 0, 20, 45, 60, 80 ms: gaps 20, 25, 15, 20 →
    // samples |25−20| = 5, |15−25| = 10, |20−15| = 5 ms;
    // mean 20/3 ms, max 10 ms.
    let t = ms(&[0, 20, 45, 60, 80]);
    let ts = [0u32; 5];
    assert_eq!(gap_jitter_samples(&ts, &t), vec![5e6, 10e6, 5e6]);
    let j = gap_jitter(&ts, &t);
    assert_eq!(j.samples, 3);
    close(j.mean_ns.unwrap(), 20e6 / 3.0, 1e-6);
    close(j.max_ns.unwrap(), 10e6, 0.0);
}

#[test]
fn regular_sender_is_zero() {
    let t: Vec<u64> = (0..50).map(|i| 1_000 + i * 20 * MS).collect();
    let j = gap_jitter(&[3u32; 50], &t);
    assert_eq!(j.samples, 48);
    assert_eq!((j.mean_ns, j.max_ns), (Some(0.0), Some(0.0)));
}

#[test]
fn missing_packets_are_not_bridged() {
    // 0, 20, X, 60, 85, 100: only triple (3, 4, 5) is complete →
    // gaps 25, 15 → one sample of 10 ms. (Bridging the hole would give
    // gaps 20, 40, 25, 15 and samples 20, 15, 10.)
    let t = ms(&[0, 20, X, 60, 85, 100]);
    assert_eq!(gap_jitter_samples(&[0; 6], &t), vec![10e6]);
    // Sender drops in t_sent are handled the same way.
    assert!(gap_jitter_samples(&[0; 4], &ms(&[0, X, 40, X])).is_empty());
}

#[test]
fn talkspurt_boundaries_are_not_crossed() {
    // Talkspurts [0 0 0 | 1 1 1]: triples (0,1,2) → |20−20| = 0 and
    // (3,4,5) → |25−20| = 5 ms; the two triples spanning the silence are out.
    let t = ms(&[0, 20, 40, 1000, 1020, 1045]);
    assert_eq!(gap_jitter_samples(&[0, 0, 0, 1, 1, 1], &t), vec![0.0, 5e6]);
}

#[test]
fn reordering_gives_negative_gap() {
    // Arrivals 0, 30, 20, 60 ms: gaps 30, −10, 40 → samples 40, 50 ms.
    let j = gap_jitter(&[0; 4], &ms(&[0, 30, 20, 60]));
    close(j.mean_ns.unwrap(), 45e6, 0.0);
    close(j.max_ns.unwrap(), 50e6, 0.0);
}

/// The run-at-a-time loop and the one-pass statistics equal the
/// definition taken literally (every triple tested, samples collected,
/// `mean`, `reduce(max)`, `jitter_exceedance`), bit for bit, on random
/// columns with losses, talkspurt changes, reordering and huge times.
#[test]
fn streaming_equals_the_definition() {
    let mut x = 0x51ED_5EEDu64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for case in 0..400 {
        let n = (next() % 60) as usize;
        let (mut ts, mut t) = (Vec::new(), Vec::new());
        let (mut spurt, mut now) = (0u32, next() % 1000);
        if case % 7 == 0 {
            now += (1 << 62) - 500; // crosses the i64 fast path's limit
        }
        for _ in 0..n {
            spurt += (next() % 9 == 0) as u32;
            now += next() % 50;
            ts.push(spurt);
            t.push(if next() % 6 == 0 { NOT_ARRIVED } else { now.saturating_sub(next() % 30) });
        }
        let mut want = Vec::new();
        for i in 0..n.saturating_sub(2) {
            let (a, b, c) = (t[i], t[i + 1], t[i + 2]);
            if a != NOT_ARRIVED && b != NOT_ARRIVED && c != NOT_ARRIVED && ts[i] == ts[i + 2] {
                want.push((c as i128 - 2 * b as i128 + a as i128).unsigned_abs() as f64);
            }
        }
        let got = gap_jitter_samples(&ts, &t);
        assert_eq!(got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "case {case}");
        let thr = (next() % 40) as f64;
        let (g, over) = gap_jitter_over(&ts, &t, thr);
        let w = GapJitter::of_samples(&want);
        assert_eq!(g.samples, w.samples, "case {case}");
        assert_eq!(g.mean_ns.map(f64::to_bits), w.mean_ns.map(f64::to_bits), "case {case}");
        assert_eq!(g.max_ns.map(f64::to_bits), w.max_ns.map(f64::to_bits), "case {case}");
        assert_eq!(over.map(f64::to_bits), jitter_exceedance(&want, thr).map(f64::to_bits), "case {case}");
        assert_eq!(gap_jitter(&ts, &t), g, "case {case}");
    }
}

#[test]
fn second_difference_matches_i128_across_the_limit() {
    // Below, at and above 2^62, up to just under NOT_ARRIVED: the fast
    // path and the 128-bit one must give the same f64.
    let wide = |a: u64, b: u64, c: u64| (c as i128 - 2 * b as i128 + a as i128).unsigned_abs() as f64;
    let edges = [0u64, 1, 7, (1 << 53) + 1, (1 << 62) - 3, (1 << 62) - 1, 1 << 62, (1 << 62) + 5, u64::MAX - 1];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for &a in &edges {
        for &b in &edges {
            for &c in &edges {
                assert_eq!(second_difference(a, b, c).to_bits(), wide(a, b, c).to_bits(), "{a} {b} {c}");
            }
        }
    }
    for _ in 0..100_000 {
        let (a, b, c) = (next() >> (next() % 3), next() >> (next() % 3), next() >> (next() % 3));
        assert_eq!(second_difference(a, b, c).to_bits(), wide(a, b, c).to_bits(), "{a} {b} {c}");
    }
}

/// The streaming summary equals the summary of the collected samples,
/// bit for bit, on random columns with losses and talkspurt changes.
#[test]
fn streaming_equals_collected() {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for case in 0..300 {
        let n = (next() % 80) as usize;
        let mut ts = Vec::with_capacity(n);
        let mut t = Vec::with_capacity(n);
        let (mut spurt, mut now) = (0u32, 0u64);
        for _ in 0..n {
            spurt += (next() % 10 == 0) as u32;
            now += 20 * MS;
            ts.push(spurt);
            t.push(if next() % 7 == 0 { X } else { now + next() % (50 * MS) });
        }
        let a = gap_jitter(&ts, &t);
        let b = GapJitter::of_samples(&gap_jitter_samples(&ts, &t));
        assert_eq!(a.samples, b.samples, "case {case}");
        assert_eq!(a.mean_ns.map(f64::to_bits), b.mean_ns.map(f64::to_bits), "case {case}");
        assert_eq!(a.max_ns.map(f64::to_bits), b.max_ns.map(f64::to_bits), "case {case}");
    }
}

#[test]
fn edge_cases() {
    let e = gap_jitter(&[], &[]);
    assert_eq!((e.samples, e.mean_ns, e.max_ns), (0, None, None));
    assert_eq!(gap_jitter(&[0, 0], &[0, 5]).samples, 0);
    assert_eq!(gap_jitter(&[0; 3], &[X, X, X]).samples, 0);
}

#[test]
fn exceedance() {
    // Samples 5, 10, 5 ms: > 6 ms → 1 of 3; > 10 ms (strict) → 0.
    let s = [5e6, 10e6, 5e6];
    close(jitter_exceedance(&s, 6e6).unwrap(), 1.0 / 3.0, 1e-12);
    close(jitter_exceedance(&s, 10e6).unwrap(), 0.0, 0.0);
    close(jitter_exceedance(&s, 0.0).unwrap(), 1.0, 0.0);
    assert_eq!(jitter_exceedance(&[], 1.0), None);
}

/// `push_stretch` against one `push` a packet on random streams:
/// talkspurt changes, absent packets, times at and above SAFE, stretches
/// of every length, some on a line (a constant step, which a later
/// stretch may continue); every field the same bits (seed printed).
#[test]
fn push_stretch_equals_pushes() {
    for seed in 1..400u64 {
        let mut x = seed;
        let mut r = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let (mut a, mut b) = (GapJitterStream::default(), GapJitterStream::default());
        let (mut spurt, mut t) = (0u32, if r(8) == 0 { SAFE - 50_000_000 } else { 1_000_000 });
        for _ in 0..60 {
            if r(6) == 0 {
                spurt += 1;
            }
            let k = r(9) as usize;
            let line = r(3) == 0;
            let ts: Vec<u64> = (0..k)
                .map(|_| {
                    t += if line { 20_000_000 } else { 15_000_000 + r(10_000_000) };
                    t
                })
                .collect();
            let thr = [f64::INFINITY, 3e6, 0.0][r(3) as usize];
            if r(5) == 0 {
                // An absent packet between stretches.
                a.push(spurt, NOT_ARRIVED, thr);
                b.push(spurt, NOT_ARRIVED, thr);
            }
            for &t in &ts {
                a.push(spurt, t, thr);
            }
            b.push_stretch(spurt, &ts, thr);
            let same = a.samples == b.samples && a.sum.to_bits() == b.sum.to_bits() && a.max.to_bits() == b.max.to_bits();
            assert!(same && a.over == b.over && a.last == b.last, "seed {seed}: {a:?} vs {b:?}");
        }
    }
}

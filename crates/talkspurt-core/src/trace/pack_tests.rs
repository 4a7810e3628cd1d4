//! `Packed` round trips: every value decodes exactly; common divisors and their reciprocals; uniform blocks.

use super::*;

fn roundtrip(cols: &[[u32; N]; FIELDS]) -> usize {
    let p = Packed::pack(12_345, cols);
    assert_eq!(p.base(), 12_345);
    assert_eq!(&p.unpack(), cols);
    p.heap_bytes()
}

/// A constant-rate block with constant delays packs to its header;
/// spreads, unset values and the extremes of u32 decode exactly.
#[test]
fn packs_exactly() {
    let mut c = [[0u32; N]; FIELDS];
    for j in 0..N {
        c[0][j] = j as u32 * 20_000_000;
        c[2][j] = 32_019_200;
        c[3][j] = 4;
        c[5][j] = 1;
        c[6][j] = 160;
    }
    // Headers only: 8 + 14 + 13 + 6 × 5 + 7 = 72 bytes for 64 rows of 17.
    assert_eq!(roundtrip(&c), 72);
    // Jitter of up to 2^20 ns on arrivals: 20 bits a value.
    for j in 0..N {
        c[2][j] += (j as u32 * 7919) % (1 << 20);
    }
    c[1][5] = NONE; // unsent
    c[2][9] = NONE; // lost
    c[2][10] = u32::MAX - 1; // an escaped value
    c[0][40] += 3_000_000_000; // a silence inside the block
    c[4][63] = 255;
    roundtrip(&c);
    assert_eq!(Packed::pack(0, &c).line(), None);
    let all_none = [[NONE; N]; FIELDS];
    let mut a = all_none;
    a[0] = [0; N];
    roundtrip(&a);
    let mut wild = [[0u32; N]; FIELDS];
    for (f, col) in wild.iter_mut().enumerate() {
        for (j, x) in col.iter_mut().enumerate() {
            *x = (j as u32).wrapping_mul(2_654_435_761).rotate_left(f as u32);
        }
    }
    roundtrip(&wild);
}

/// Distances sharing a divisor are stored divided by it, and only
/// when that is shorter; `get` and `unpack` give every value back.
#[test]
fn common_divisors() {
    let mut c = [[0u32; N]; FIELDS];
    for j in 0..N {
        // Talkspurts: generation offsets 20 ms apart, with gaps.
        c[0][j] = j as u32 * 20_000_000 + if j >= 30 { 700_000_000 } else { 0 };
        // Queueing delays a multiple of 160 ns, up to ~4 ms.
        c[2][j] = 31_000_000 + 160 * ((j as u32 * 7919) % 26_000);
        c[3][j] = 4;
    }
    c[2][7] = NONE;
    c[3][7] = 2;
    let p = Packed::pack(5, &c);
    // Column 0: one bit a value (0 or 700 ms off the line) instead of
    // 30; column 2: 15 bits (160 × 0..26 000) instead of 22; fates 2
    // and 4 keep their two bits (a column under 8 bits is not
    // searched). Head 22, column 0 1 + 8 + 4 + 4 + 8, column 2 1 + 8
    // + 4 + 4 + ⌈63 × 15 / 8⌉, column 3 1 + 4 + 16, four columns of
    // one value 5 each, slack 7.
    assert_eq!((p.col(0).5, p.col(2).5, p.col(3).5, p.col(1).5), (700_000_000, 160, 1, 1));
    assert_eq!(p.heap_bytes(), 22 + 25 + 136 + 21 + 20 + 7);
    assert_eq!(p.unpack(), c);
    for f in 0..FIELDS {
        for j in 0..N {
            assert_eq!(p.get(f, j), c[f][j], "column {f}, value {j}");
        }
    }
    // Random columns with random divisors, mask holes and extremes.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..300 {
        let mut c = [[0u32; N]; FIELDS];
        for col in c.iter_mut() {
            let g = [1, 2, 3, 80, 160, 1 << 20, u32::MAX / 3][next() as usize % 7];
            let lo = next() as u32;
            let k = 1 + next() % 4096;
            for v in col.iter_mut() {
                *v = lo.wrapping_add(g.wrapping_mul((next() % k) as u32));
                if next() % 9 == 0 {
                    *v = NONE;
                }
            }
        }
        let p = Packed::pack(1, &c);
        assert_eq!(p.unpack(), c);
        let (f, j) = (next() as usize % FIELDS, next() as usize % N);
        assert_eq!(p.get(f, j), c[f][j]);
    }
}

/// The reciprocal's quotients and divisibility equal `/` and `%`.
#[test]
fn divisor_is_exact() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for g in (2..2000).chain([160, 800, 65_537, u32::MAX / 3, u32::MAX - 1, u32::MAX]) {
        let d = Divisor::new(g);
        for n in [0, 1, g - 1, g, g.saturating_add(1), u32::MAX, u32::MAX - 1, (u32::MAX / g) * g] {
            assert_eq!((d.quotient(n), d.divides(n)), (n / g, n % g == 0), "{n} / {g}");
        }
        for _ in 0..50 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Half of them multiples of g (no overflow: (r / g) * g <= r).
            let r = x as u32;
            let n = if x >> 63 == 1 { r / g * g } else { r };
            assert_eq!((d.quotient(n), d.divides(n)), (n / g, n % g == 0), "{n} / {g}");
        }
    }
}

/// A uniform block packs to its header, which `line` reads back (the
/// record keeps such blocks as `Line`s: `record::run_tests`).
#[test]
fn uniform_blocks_read_as_lines() {
    for (g0, step, vals) in [(0, 20_000_000, [0, 32_019_200, 4, 0, 1, 160]), (7, u32::MAX, [u32::MAX - 1, 0, 0, 255, 255, 65_535])] {
        let mut c = [[0u32; N]; FIELDS];
        for j in 0..N {
            c[0][j] = on_line(g0, step, j);
            for f in 1..FIELDS {
                c[f][j] = vals[f - 1];
            }
        }
        let a = Packed::pack(99, &c);
        assert_eq!(a.unpack(), c);
        assert_eq!(a.line(), Some((g0, step, vals)));
    }
}

//! A full record block packed once its packets have settled (issue 26
//! target 3): each field of the block's 64 rows stored with as many bits
//! as its spread needs (frame-of-reference bit packing), exactly.
//!
//! A block holds `N` values of each of `FIELDS` u32 columns. Column 0 (the
//! generation offsets) is coded against a line through its first two
//! values (a constant-rate source's offsets lie on it: no bits); the others
//! against their minimum, with `u32::MAX` ("never": unsent, not arrived)
//! kept as a presence mask instead of widening the column. Where every
//! value's distance from the reference is a multiple of some g > 1, the
//! distances are stored divided by it when that is shorter (the delays of
//! a voice call behind a queue: departures are serialisation times apart,
//! so on bench/tcp_mix_big.toml every arrival offset in a block is
//! typically a multiple of 160 ns and 21 bits a value become 14). Any
//! value decodes exactly: a spread of 2^32 takes 32 bits, as the plain row
//! did. Values are read one at a time (`get`, O(1)) or a block at a time
//! (`unpack`).
//!
//! Layout: base time (u64), the columns' byte offsets (u16 each), then
//! per column a head byte (bits 0–5 the width; bit 7: mask follows; bit
//! 6: a divisor follows the reference), the mask (u64, if any), for
//! column 0 its first value and step (u32 each), the reference (u32), the
//! divisor (u32, if any) and the values' bits, least significant first;
//! 7 zero bytes at the end so any value is read with one unaligned u64
//! load. A block is allocated at its exact length (planned first).

/// Values per column (the record's `BLOCK`).
pub(super) const N: usize = 64;
/// Columns per block (the record's row fields).
pub(super) const FIELDS: usize = 7;
const NONE: u32 = u32::MAX;
const MASKED: u8 = 0x80;
const SCALED: u8 = 0x40;
const WIDTH: u8 = 0x3f;
const HEAD: usize = 8 + 2 * FIELDS;
const SLACK: usize = 7;

/// One packed block (see the module note).
#[derive(Clone, Debug)]
pub(super) struct Packed(Box<[u8]>);

#[inline]
fn rd32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

#[inline]
fn rd64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn bits(spread: u32) -> u8 {
    (32 - spread.leading_zeros()) as u8
}

/// Bytes of `n` values of `w` bits.
fn span(w: u8, n: u32) -> usize {
    (w as usize * n as usize).div_ceil(8)
}

/// Column 0's line: first value and step.
#[inline]
fn line(v: &[u32; N]) -> (u32, u32) {
    (v[0], v[1].wrapping_sub(v[0]))
}

#[inline]
fn on_line(g0: u32, step: u32, j: usize) -> u32 {
    g0.wrapping_add(step.wrapping_mul(j as u32))
}

fn gcd(mut a: u32, mut b: u32) -> u32 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A divisor g ≥ 2 with its 64-bit reciprocal ⌈2^64 / g⌉, for exact
/// quotients and divisibility of u32 values by multiplication instead of
/// a division each (Lemire, Kaser & Kurz, "Faster remainder by direct
/// computation", Software: Practice and Experience 49(6), 2019, §3–4).
#[derive(Clone, Copy)]
struct Divisor(u32, u64);

impl Divisor {
    fn new(g: u32) -> Divisor {
        debug_assert!(g >= 2);
        Divisor(g, u64::MAX / g as u64 + 1)
    }

    /// n / g.
    #[inline]
    fn quotient(self, n: u32) -> u32 {
        ((self.1 as u128 * n as u128) >> 64) as u32
    }

    /// Whether g divides n.
    #[inline]
    fn divides(self, n: u32) -> bool {
        (n as u64).wrapping_mul(self.1) <= self.1 - 1
    }
}

/// How a column is stored: which values are present (`mask`), their
/// reference `lo`, divisor `g` (1: none) and width `w` in bits.
struct Plan {
    mask: u64,
    lo: u32,
    g: u32,
    w: u8,
}

impl Plan {
    /// The plan for values `r` (`NONE` absent where `masked`).
    #[inline]
    fn of(r: &[u32; N], masked: bool) -> Plan {
        let x0 = r[0];
        if r.iter().all(|&x| x == x0) && !(masked && x0 == NONE) {
            // One value throughout (the usual send offset, fate, frames,
            // payload): no bits.
            return Plan { mask: u64::MAX, lo: x0, g: 1, w: 0 };
        }
        // `NONE` is u32::MAX: it moves the minimum only if all are absent.
        let lo = r.iter().fold(u32::MAX, |l, &x| l.min(x));
        let (mask, lo, hi) = if masked && r.contains(&NONE) {
            let mask = r.iter().enumerate().fold(0u64, |m, (j, &x)| m | ((x != NONE) as u64) << j);
            let hi = r.iter().fold(0, |h, &x| h.max(if x == NONE { 0 } else { x }));
            (mask, if mask == 0 { 0 } else { lo }, hi)
        } else {
            (u64::MAX, lo, r.iter().fold(0, |h, &x| h.max(x)))
        };
        let w = bits(hi - lo);
        let mut p = Plan { mask, lo, g: 1, w };
        // Narrow columns (fates) would save a few bytes for the search.
        if w >= 8 {
            // A common divisor of the distances from `lo`, starting from
            // the largest: a division a value while it holds (predicted,
            // so the divisions overlap), Euclid's steps where it does not.
            let mut g = Divisor::new(hi - lo);
            for &x in r {
                // An absent value (`NONE`, above `hi`) has no distance.
                let d = x.wrapping_sub(lo);
                if d <= hi - lo && !g.divides(d) {
                    let e = gcd(g.0, d % g.0);
                    if e == 1 {
                        return p;
                    }
                    g = Divisor::new(e);
                }
            }
            let g = g.0;
            let n = mask.count_ones();
            let ws = bits((hi - lo) / g);
            if 4 + span(ws, n) < span(w, n) {
                (p.g, p.w) = (g, ws);
            }
        }
        p
    }

    /// The head byte for column `f`.
    fn head(&self, f: usize) -> u8 {
        let mut h = self.w;
        if f != 0 && self.mask != u64::MAX {
            h |= MASKED;
        }
        if self.g != 1 {
            h |= SCALED;
        }
        h
    }

    /// Bytes the column takes.
    fn len(&self, f: usize) -> usize {
        let h = self.head(f);
        1 + if h & MASKED != 0 { 8 } else { 0 } + if f == 0 { 8 } else { 0 } + 4 + if h & SCALED != 0 { 4 } else { 0 } + span(self.w, self.mask.count_ones())
    }
}

/// Append `vals` at `w` bits each (`w` > 0), least significant first.
fn put_bits(out: &mut Vec<u8>, vals: impl Iterator<Item = u32>, w: u8) {
    let (mut acc, mut nb) = (0u64, 0u32);
    for v in vals {
        acc |= (v as u64) << nb;
        nb += w as u32;
        if nb >= 32 {
            out.extend_from_slice(&(acc as u32).to_le_bytes());
            acc >>= 32;
            nb -= 32;
        }
    }
    out.extend_from_slice(&acc.to_le_bytes()[..nb.div_ceil(8) as usize]);
}

impl Packed {
    /// Pack `cols` (column 0 the generation offsets) with `base`.
    pub(super) fn pack(base: u64, cols: &[[u32; N]; FIELDS]) -> Packed {
        let (g0, step) = line(&cols[0]);
        let res: [u32; N] = std::array::from_fn(|j| cols[0][j].wrapping_sub(on_line(g0, step, j)));
        let plans: [Plan; FIELDS] = std::array::from_fn(|f| if f == 0 { Plan::of(&res, false) } else { Plan::of(&cols[f], true) });
        let len = HEAD + plans.iter().enumerate().map(|(f, p)| p.len(f)).sum::<usize>() + SLACK;
        let mut out = Vec::with_capacity(len);
        out.extend_from_slice(&base.to_le_bytes());
        out.resize(HEAD, 0);
        for (f, p) in plans.iter().enumerate() {
            let at = out.len() as u16;
            out[8 + 2 * f..10 + 2 * f].copy_from_slice(&at.to_le_bytes());
            let (head, v) = (p.head(f), if f == 0 { &res } else { &cols[f] });
            out.push(head);
            if head & MASKED != 0 {
                out.extend_from_slice(&p.mask.to_le_bytes());
            }
            if f == 0 {
                out.extend_from_slice(&g0.to_le_bytes());
                out.extend_from_slice(&step.to_le_bytes());
            }
            out.extend_from_slice(&p.lo.to_le_bytes());
            if head & SCALED != 0 {
                out.extend_from_slice(&p.g.to_le_bytes());
            }
            if p.w == 0 {
                continue;
            }
            let (lo, g, mask) = (p.lo, p.g, p.mask);
            match (mask == u64::MAX, g == 1) {
                (true, true) => put_bits(&mut out, v.iter().map(|&x| x - lo), p.w),
                (true, false) => {
                    let g = Divisor::new(g);
                    put_bits(&mut out, v.iter().map(|&x| g.quotient(x - lo)), p.w)
                }
                (false, true) => put_bits(&mut out, v.iter().filter(|&&x| x != NONE).map(|&x| x - lo), p.w),
                (false, false) => {
                    let g = Divisor::new(g);
                    put_bits(&mut out, v.iter().filter(|&&x| x != NONE).map(|&x| g.quotient(x - lo)), p.w)
                }
            }
        }
        out.resize(out.len() + SLACK, 0);
        debug_assert_eq!(out.len(), len);
        Packed(out.into_boxed_slice())
    }

    pub(super) fn base(&self) -> u64 {
        rd64(&self.0, 0)
    }

    /// The `k`-th stored value of width `w` whose bits start at byte `at`.
    #[inline]
    fn nth(&self, at: usize, w: u8, k: usize) -> u32 {
        if w == 0 {
            return 0;
        }
        let bit = k * w as usize;
        let x = rd64(&self.0, at + bit / 8) >> (bit % 8);
        (x & ((1u64 << w) - 1)) as u32
    }

    /// Column `f`'s header: width, presence mask (all set: none stored),
    /// column 0's line (else zeros), reference, divisor (1: none) and
    /// where its bits start.
    #[inline(always)]
    fn col(&self, f: usize) -> (u8, u64, u32, u32, u32, u32, usize) {
        let b = &self.0;
        let mut at = u16::from_le_bytes([b[8 + 2 * f], b[9 + 2 * f]]) as usize;
        let head = b[at];
        at += 1;
        let mut mask = u64::MAX;
        if head & MASKED != 0 {
            mask = rd64(b, at);
            at += 8;
        }
        let (mut g0, mut step) = (0, 0);
        if f == 0 {
            (g0, step) = (rd32(b, at), rd32(b, at + 4));
            at += 8;
        }
        let lo = rd32(b, at);
        at += 4;
        let mut g = 1;
        if head & SCALED != 0 {
            g = rd32(b, at);
            at += 4;
        }
        (head & WIDTH, mask, g0, step, lo, g, at)
    }

    /// Value `j` of column `f`.
    #[inline]
    pub(super) fn get(&self, f: usize, j: usize) -> u32 {
        let (w, mask, g0, step, lo, g, at) = self.col(f);
        if f == 0 {
            return on_line(g0, step, j).wrapping_add(lo + g * self.nth(at, w, j));
        }
        if mask >> j & 1 == 0 {
            return NONE;
        }
        let rank = (mask & ((1u64 << j) - 1)).count_ones() as usize;
        lo + g * self.nth(at, w, rank)
    }

    /// Every column back, a column at a time (the header read once).
    pub(super) fn unpack(&self) -> [[u32; N]; FIELDS] {
        let mut cols = [[0u32; N]; FIELDS];
        for (f, col) in cols.iter_mut().enumerate() {
            let (w, mask, g0, step, lo, g, at) = self.col(f);
            if mask != u64::MAX {
                let mut k = 0;
                for (j, x) in col.iter_mut().enumerate() {
                    *x = if mask >> j & 1 == 0 {
                        NONE
                    } else {
                        k += 1;
                        lo + g * self.nth(at, w, k - 1)
                    };
                }
                continue;
            }
            if w == 0 {
                col.fill(lo);
            } else {
                for (j, x) in col.iter_mut().enumerate() {
                    *x = lo + g * self.nth(at, w, j);
                }
            }
            if f == 0 {
                for (j, x) in col.iter_mut().enumerate() {
                    *x = on_line(g0, step, j).wrapping_add(*x);
                }
            }
        }
        cols
    }

    /// The block's description if it is uniform (generation offsets on a line): column 0's
    /// line `(g0, step)` and the one value of every other column. Read
    /// from the header alone (every width byte 0, no mask), so a reader
    /// can take the block as a steady run without decoding its columns
    /// (score::steady, issue 26).
    pub(super) fn line(&self) -> Option<(u32, u32, [u32; FIELDS - 1])> {
        let b = &self.0;
        let at = |f: usize| u16::from_le_bytes([b[8 + 2 * f], b[9 + 2 * f]]) as usize;
        if (0..FIELDS).any(|f| b[at(f)] != 0) {
            return None;
        }
        let a0 = at(0);
        // Width 0: the residuals are all 0 (the first is), so `lo` is 0.
        debug_assert_eq!(rd32(b, a0 + 9), 0);
        Some((rd32(b, a0 + 1), rd32(b, a0 + 5), std::array::from_fn(|f| rd32(b, at(f + 1) + 1))))
    }

    /// Heap bytes held.
    pub(super) fn heap_bytes(&self) -> usize {
        self.0.len()
    }
}

#[cfg(test)]
#[path = "pack_tests.rs"]
mod tests;

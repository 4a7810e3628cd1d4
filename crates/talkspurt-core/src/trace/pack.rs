//! A full record block packed once its packets have settled (issue 26
//! target 3): each field of the block's 64 rows stored with as many bits
//! as its spread needs (frame-of-reference bit packing), exactly.
//!
//! A block holds `N` values of each of `FIELDS` u32 columns. Column 0 (the
//! generation offsets) is coded against a line through its first two
//! values (a constant-rate source's offsets lie on it: no bits); the others
//! against their minimum, with `u32::MAX` ("never": unsent, not arrived)
//! kept as a presence mask instead of widening the column. Any value
//! decodes exactly: a spread of 2^32 takes 32 bits, as the plain row did.
//! Values are read one at a time (`get`, O(1)) or a block at a time
//! (`unpack`).
//!
//! Layout: base time (u64), the columns' byte offsets (u16 each), then
//! per column a width byte (bit 7: mask follows), the mask (u64, if any),
//! for column 0 its first value and step (u32 each), the reference (u32)
//! and the values' bits, least significant first; 7 zero bytes at the end
//! so any value is read with one unaligned u64 load.

/// Values per column (the record's `BLOCK`).
pub(super) const N: usize = 64;
/// Columns per block (the record's row fields).
pub(super) const FIELDS: usize = 7;
const NONE: u32 = u32::MAX;
const MASKED: u8 = 0x80;
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

/// Column 0's line: first value and step.
#[inline]
fn line(v: &[u32; N]) -> (u32, u32) {
    (v[0], v[1].wrapping_sub(v[0]))
}

#[inline]
fn on_line(g0: u32, step: u32, j: usize) -> u32 {
    g0.wrapping_add(step.wrapping_mul(j as u32))
}

fn put_bits(out: &mut Vec<u8>, vals: impl Iterator<Item = u32>, width: u8) {
    if width == 0 {
        return;
    }
    let (mut acc, mut nb) = (0u64, 0u32);
    for v in vals {
        acc |= (v as u64) << nb;
        nb += width as u32;
        while nb >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            nb -= 8;
        }
    }
    if nb > 0 {
        out.push(acc as u8);
    }
}

impl Packed {
    /// Pack `cols` (column 0 the generation offsets) with `base`.
    pub(super) fn pack(base: u64, cols: &[[u32; N]; FIELDS]) -> Packed {
        let mut out = Vec::with_capacity(HEAD + FIELDS * 13 + SLACK);
        out.extend_from_slice(&base.to_le_bytes());
        out.resize(HEAD, 0);
        for (f, v) in cols.iter().enumerate() {
            let at = out.len() as u16;
            out[8 + 2 * f..10 + 2 * f].copy_from_slice(&at.to_le_bytes());
            if f == 0 && (0..N).all(|j| v[j] == on_line(v[0], v[1].wrapping_sub(v[0]), j)) {
                // On the line (a constant-rate source): no bits.
                out.push(0);
                for x in [v[0], v[1].wrapping_sub(v[0]), 0] {
                    out.extend_from_slice(&x.to_le_bytes());
                }
            } else if f != 0 && v[0] != NONE && v.iter().all(|&x| x == v[0]) {
                // One value throughout (the usual fate, frames, payload): no bits.
                out.push(0);
                out.extend_from_slice(&v[0].to_le_bytes());
            } else if f == 0 {
                let (g0, step) = line(v);
                let res = |j: usize| v[j].wrapping_sub(on_line(g0, step, j));
                let (lo, hi) = (0..N).map(res).fold((u32::MAX, 0), |(l, h), x| (l.min(x), h.max(x)));
                let w = bits(hi - lo);
                out.push(w);
                for x in [g0, step, lo] {
                    out.extend_from_slice(&x.to_le_bytes());
                }
                put_bits(&mut out, (0..N).map(|j| res(j) - lo), w);
            } else {
                let (mut mask, mut lo, mut hi) = (0u64, u32::MAX, 0u32);
                for (j, &x) in v.iter().enumerate() {
                    if x != NONE {
                        mask |= 1 << j;
                        lo = lo.min(x);
                        hi = hi.max(x);
                    }
                }
                let lo = if mask == 0 { 0 } else { lo };
                let w = bits(hi.saturating_sub(lo));
                if mask == u64::MAX {
                    out.push(w);
                } else {
                    out.push(w | MASKED);
                    out.extend_from_slice(&mask.to_le_bytes());
                }
                out.extend_from_slice(&lo.to_le_bytes());
                put_bits(&mut out, v.iter().filter(|&&x| x != NONE).map(|&x| x - lo), w);
            }
        }
        out.resize(out.len() + SLACK, 0);
        Packed(out.into_boxed_slice())
    }

    /// What `pack` makes of a block whose generation offsets lie on the
    /// line `(g0, step)` and whose every other column holds one value
    /// throughout, none of them `NONE` (`vals`, columns 1..): the same
    /// bytes, written without reading the columns (the caller checked
    /// them; `Block::pack`). The usual block of a constant-rate call with
    /// a steady delay: packing it from columns was ~38 instructions a
    /// packet of the headline's loop (bench/README.md, Profiles).
    pub(super) fn uniform(base: u64, g0: u32, step: u32, vals: [u32; FIELDS - 1]) -> Packed {
        const LEN: usize = HEAD + 13 + 5 * (FIELDS - 1) + SLACK;
        let mut out = [0u8; LEN];
        out[..8].copy_from_slice(&base.to_le_bytes());
        let mut at = HEAD;
        for f in 0..FIELDS {
            out[8 + 2 * f..10 + 2 * f].copy_from_slice(&(at as u16).to_le_bytes());
            // Width byte 0 (already zero), then the column's constants.
            at += 1;
            if f == 0 {
                out[at..at + 4].copy_from_slice(&g0.to_le_bytes());
                out[at + 4..at + 8].copy_from_slice(&step.to_le_bytes());
                at += 12; // the reference, 0
            } else {
                debug_assert_ne!(vals[f - 1], NONE);
                out[at..at + 4].copy_from_slice(&vals[f - 1].to_le_bytes());
                at += 4;
            }
        }
        debug_assert_eq!(at + SLACK, LEN);
        Packed(Box::new(out))
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

    /// Value `j` of column `f`.
    #[inline]
    pub(super) fn get(&self, f: usize, j: usize) -> u32 {
        let b = &self.0;
        let at = u16::from_le_bytes([b[8 + 2 * f], b[9 + 2 * f]]) as usize;
        let head = b[at];
        let w = head & !MASKED;
        if f == 0 {
            let (g0, step, lo) = (rd32(b, at + 1), rd32(b, at + 5), rd32(b, at + 9));
            return on_line(g0, step, j).wrapping_add(lo + self.nth(at + 13, w, j));
        }
        if head & MASKED == 0 {
            return rd32(b, at + 1) + self.nth(at + 5, w, j);
        }
        let mask = rd64(b, at + 1);
        if mask >> j & 1 == 0 {
            return NONE;
        }
        let rank = (mask & ((1u64 << j) - 1)).count_ones() as usize;
        rd32(b, at + 9) + self.nth(at + 13, w, rank)
    }

    /// Every column back, a column at a time (the header read once).
    pub(super) fn unpack(&self) -> [[u32; N]; FIELDS] {
        let b = &self.0;
        let mut cols = [[0u32; N]; FIELDS];
        for (f, col) in cols.iter_mut().enumerate() {
            let at = u16::from_le_bytes([b[8 + 2 * f], b[9 + 2 * f]]) as usize;
            let head = b[at];
            let w = head & !MASKED;
            if f == 0 {
                let (g0, step, lo) = (rd32(b, at + 1), rd32(b, at + 5), rd32(b, at + 9));
                for (j, x) in col.iter_mut().enumerate() {
                    *x = on_line(g0, step, j).wrapping_add(lo + self.nth(at + 13, w, j));
                }
            } else if head & MASKED == 0 {
                let lo = rd32(b, at + 1);
                if w == 0 {
                    col.fill(lo);
                } else {
                    for (j, x) in col.iter_mut().enumerate() {
                        *x = lo + self.nth(at + 5, w, j);
                    }
                }
            } else {
                let (mask, lo) = (rd64(b, at + 1), rd32(b, at + 9));
                let mut k = 0;
                for (j, x) in col.iter_mut().enumerate() {
                    *x = if mask >> j & 1 == 0 {
                        NONE
                    } else {
                        k += 1;
                        lo + self.nth(at + 13, w, k - 1)
                    };
                }
            }
        }
        cols
    }

    /// The block's description if it is uniform (`uniform`): column 0's
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
mod tests {
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

    /// `uniform` writes what `pack` writes for such a block, byte for byte.
    #[test]
    fn uniform_is_pack() {
        for (g0, step, vals) in [(0, 20_000_000, [0, 32_019_200, 4, 0, 1, 160]), (7, u32::MAX, [u32::MAX - 1, 0, 0, 255, 255, 65_535])] {
            let mut c = [[0u32; N]; FIELDS];
            for j in 0..N {
                c[0][j] = on_line(g0, step, j);
                for f in 1..FIELDS {
                    c[f][j] = vals[f - 1];
                }
            }
            let (a, b) = (Packed::pack(99, &c), Packed::uniform(99, g0, step, vals));
            assert_eq!(a.0, b.0);
            assert_eq!(b.unpack(), c);
            assert_eq!(b.line(), Some((g0, step, vals)));
        }
    }
}

//! Reading a call's records back: one packet's fields (`t_gen`,
//! `t_sent`, ...), and whole columns a block at a time (`columns`,
//! `t_gens`) for scoring and the per-packet table.

use super::row::*;
use super::{CallRecord, NetFate, RecordCold, Wide, NEVER, NO_WHERE};
use crate::trace::pack::FIELDS;
use crate::trace::slots::Slot;

/// A call's records as plain vectors (`CallRecord::columns`).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Columns {
    pub talkspurt: Vec<u32>,
    pub t_gen: Vec<u64>,
    pub t_sent: Vec<u64>,
    pub t_arr: Vec<u64>,
    pub fate: Vec<NetFate>,
    pub frames: Vec<u16>,
    pub payload: Vec<u32>,
    /// Trace-only columns, empty unless asked for and recorded.
    pub wire: Vec<u32>,
    pub where_: Vec<u32>,
}

impl Columns {
    pub fn len(&self) -> usize {
        self.t_gen.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t_gen.is_empty()
    }
}

/// `len` values `f(0)`, `f(1)`, ... onto `v`: written by an indexed loop
/// into its spare capacity, which vectorises and is inlined (`extend` with
/// an iterator went through an out-of-line `extend_trusted` writing a value
/// at a time: ~120 instructions a block and column; issue 26).
#[inline(always)]
fn push_n<T: Copy>(v: &mut Vec<T>, len: usize, f: impl Fn(usize) -> T) {
    v.reserve(len);
    for (j, x) in v.spare_capacity_mut()[..len].iter_mut().enumerate() {
        x.write(f(j));
    }
    // SAFETY: the first `len` slots past the length were written above.
    unsafe { v.set_len(v.len() + len) };
}

/// Rows `..len` of `b` as `Packed::line` describes a uniform block:
/// generation offsets on a line (`len` ≥ 2), every other field one value
/// (compared as the bytes after `GEN`, two u64 loads a row). The rows of
/// a pending run (`run.rs`; at least two rows are written before one) are
/// told from its header, as `Block::uniform` tells them.
fn rows_line(b: &Block, len: usize) -> Option<(u32, u32, [u32; FIELDS - 1])> {
    let (r0, r1) = (b.rows[..len].first()?, b.rows[..len].get(1)?);
    let (g0, step) = (get32(r0, GEN), get32(r1, GEN).wrapping_sub(get32(r0, GEN)));
    let (written, tail) = b.written_and_tail(step);
    let rows = &b.rows[..len.min(written)];
    let rest = |r: &[u8; ROW]| (u64::from_le_bytes(r[SENT..SENT + 8].try_into().expect("8 bytes")), u64::from_le_bytes(r[ROW - 8..].try_into().expect("8 bytes")));
    let first = rest(r0);
    let on = rows.iter().enumerate().fold(len <= written || tail, |a, (j, r)| a & (get32(r, GEN) == g0.wrapping_add(step.wrapping_mul(j as u32))) & (rest(r) == first));
    on.then(|| (g0, step, std::array::from_fn(|f| row_field(r0, f + 1))))
}

/// Every value below `Wide::ESC` (see `columns`; may say no when all are).
#[inline]
fn below_esc(x: &[u32]) -> bool {
    x.iter().fold(0, |a, &x| a | x) < Wide::ESC
}

impl CallRecord {
    /// Block `b`'s base time (`b` below the block count).
    #[inline]
    fn base_of(&self, b: usize) -> u64 {
        match self.cold.done.get(b) {
            Some(x) => x.base(&self.cold.lines),
            None => self.cur_ref().expect("a recorded packet").base,
        }
    }

    /// Field `f` (`FIELD_AT`) of packet `i`'s row, from its block's rows
    /// or packed columns.
    #[inline]
    fn field(&self, i: usize, f: usize) -> u32 {
        debug_assert!(i < self.n);
        let (b, j) = (i / BLOCK, i % BLOCK);
        match self.cold.done.get(b) {
            Some(Stored::Rows(x)) => row_field(&x.rows[j], f),
            Some(Stored::Packed(p)) => p.get(f, j),
            Some(Stored::Line(l)) => self.cold.lines[*l as usize].get(f, j),
            None => row_field(&self.cur_ref().expect("a recorded packet").row(j), f),
        }
    }

    /// The field at row offset `at`.
    #[inline]
    fn field_at(&self, i: usize, at: usize) -> u32 {
        let f = match at {
            GEN => 0,
            SENT => 1,
            ARR => 2,
            FATE => 3,
            SPURT => 4,
            FRAMES => 5,
            _ => 6,
        };
        debug_assert_eq!(FIELD_AT[f].0, at);
        self.field(i, f)
    }

    /// The u32-slot field at `at` of packet `i`, whole (`NEVER` if unset).
    #[inline]
    fn wide_at(&self, i: usize, at: usize, w: usize) -> u64 {
        let x = self.field_at(i, at);
        if x < Wide::ESC {
            x as u64
        } else {
            self.wide_cold(i, x, w)
        }
    }

    #[cold]
    #[inline(never)]
    fn wide_cold(&self, i: usize, x: u32, w: usize) -> u64 {
        if x == Wide::NONE {
            NEVER
        } else {
            self.cold.wide[w][&(i as u32)]
        }
    }

    /// A narrow field's value whole: its slot, or the side entry at `esc`.
    #[inline]
    fn narrow_at(&self, i: usize, c: u32, esc: u32, m: usize) -> u32 {
        if c < esc {
            c
        } else {
            self.cold.narrow[m][&(i as u32)]
        }
    }

    #[inline]
    pub fn t_gen(&self, i: usize) -> u64 {
        let b = self.base_of(i / BLOCK);
        let base = if b & REBASED == 0 { b } else { self.rebased(i, b) };
        base + self.wide_at(i, GEN, W_GEN)
    }

    /// The base of packet `i` in a block with a long gap.
    #[cold]
    #[inline(never)]
    fn rebased(&self, i: usize, b: u64) -> u64 {
        let first = (i / BLOCK * BLOCK) as u32;
        self.cold.rebase.range(first..=i as u32).next_back().map_or(b & !REBASED, |(_, &t)| t)
    }

    fn at(&self, i: usize, at: usize, w: usize) -> u64 {
        match self.wide_at(i, at, w) {
            NEVER => NEVER,
            d => self.t_gen(i) + d,
        }
    }

    pub fn t_sent(&self, i: usize) -> u64 {
        self.at(i, SENT, W_SENT)
    }

    pub fn t_arr(&self, i: usize) -> u64 {
        self.at(i, ARR, W_ARR)
    }

    pub fn frames(&self, i: usize) -> u32 {
        self.narrow_at(i, self.field_at(i, FRAMES), u8::ESC, N_FRAMES)
    }

    pub fn payload(&self, i: usize) -> u32 {
        self.narrow_at(i, self.field_at(i, PAYLOAD), u16::ESC, N_PAYLOAD)
    }

    /// Wire bytes (trace only).
    pub fn wire(&self, i: usize) -> u32 {
        match self.trace_counted() {
            Some((from, wire)) if i >= from => wire,
            _ => self.cold.wire.get(i),
        }
    }

    /// Channel where lost, `NO_WHERE` if none (trace only).
    pub fn where_(&self, i: usize) -> u32 {
        match self.trace_counted() {
            Some((from, _)) if i >= from => NO_WHERE,
            _ => self.cold.where_.get(i).wrapping_sub(1),
        }
    }

    /// The packets from the first index returned on, to the last, were
    /// counted by the pending run without their trace entries, which are
    /// its wire (returned) and no loss (`write.rs`, `trace_catch_up`).
    pub(super) fn trace_counted(&self) -> Option<(usize, u32)> {
        let have = self.cold.wire.len();
        if !self.full || have >= self.n {
            return None;
        }
        let b = self.cur_ref().filter(|b| b.run_from() != 0).expect("trace entries missing only while a run is pending");
        Some((have, b.run_wire()))
    }

    /// Every block with the number of its rows in use, in order, packed
    /// ones unpacked (one at a time, as the iterator reaches them).
    fn blocks(&self) -> impl Iterator<Item = (std::borrow::Cow<'_, Block>, usize)> + '_ {
        use std::borrow::Cow;
        let n = self.n;
        let done = self.cold.done.iter().map(|s| match s {
            Stored::Rows(b) => Cow::Borrowed(&**b),
            s => {
                let (base, cols) = s.cols(&self.cold.lines);
                Cow::Owned(Block::from_cols(base, &cols))
            }
        });
        let cur = self.cur_ref().map(|b| b.filled(n - self.cold.done.len() * BLOCK));
        done.chain(cur).enumerate().map(move |(k, b)| (b, (n - k * BLOCK).min(BLOCK)))
    }

    /// Talkspurt ids in sequence order.
    pub fn talkspurts(&self) -> impl Iterator<Item = u32> + '_ {
        let mut out = Vec::with_capacity(self.n);
        let mut spurt = 0u32;
        for (k, (b, len)) in self.blocks().enumerate() {
            for (j, r) in b.rows[..len].iter().enumerate() {
                spurt = match r[SPURT] {
                    u8::MAX => self.cold.narrow[N_SPURT][&((k * BLOCK + j) as u32)],
                    s => spurt + s as u32,
                };
                out.push(spurt);
            }
        }
        out.into_iter()
    }

    pub fn fate(&self, i: usize) -> NetFate {
        fate_of(self.field_at(i, FATE) as u8)
    }

    /// Every packet's fate, in sequence order.
    pub fn fates(&self) -> Vec<NetFate> {
        self.blocks().flat_map(|(b, len)| b.rows[..len].iter().map(|r| fate_of(r[FATE])).collect::<Vec<_>>()).collect()
    }

    /// Block `k`'s base time and its fields as columns (`FIELD_AT` order):
    /// a packed block decoded straight into columns, not into rows first.
    fn block_cols(&self, k: usize) -> (u64, [[u32; BLOCK]; FIELDS]) {
        match self.cold.done.get(k) {
            Some(s) => s.cols(&self.cold.lines),
            None => {
                let b = self.cur_ref().expect("a recorded packet").filled(self.n - k * BLOCK);
                (b.base, b.cols())
            }
        }
    }

    /// The records as plain vectors; `trace` adds wire bytes and where
    /// lost (when recorded).
    pub fn columns(&self, trace: bool) -> Columns {
        self.columns_lined(trace, &mut Vec::new())
    }

    /// `columns`, and onto `lines` the packets of each block stored
    /// uniform (`Packed::line`: generation times on a line, every other
    /// field one value), in order. Such a block is written from its
    /// description without decoding it, and scoring takes it as a steady
    /// run without testing its packets again (score::steady; issue 26:
    /// decoding and finding the runs were ~75 instructions a packet of the
    /// headline's scoring).
    pub fn columns_lined(&self, trace: bool, lines: &mut Vec<std::ops::Range<usize>>) -> Columns {
        let n = self.len();
        let trace = trace && self.full;
        // Decoded a block at a time, as the accessors above decode one
        // value (issue 14: the per-index path cost ~90 instructions a
        // packet), every field in one pass over the block's columns: a
        // packed block is unpacked once, into columns (issue 26: rows
        // first, and a second pass for the talkspurts, cost twice that).
        let mut t_gen: Vec<u64> = Vec::with_capacity(n);
        let (mut t_sent, mut t_arr) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut fate, mut frames, mut payload) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        let mut talkspurt = Vec::with_capacity(n);
        let escapes = self.cold.narrow.iter().any(|m| !m.is_empty());
        let mut spurt = 0u32;
        // The multiples of a uniform block's step, for its generation times
        // (a multiply a value did not vectorise: ~4 instructions a packet).
        let (mut steps_of, mut multiples) = (None, [0u64; BLOCK]);
        for k in 0..n.div_ceil(BLOCK) {
            let (i0, len) = (k * BLOCK, (n - k * BLOCK).min(BLOCK));
            // A packed block says whether it is uniform in its header; a
            // block of rows (the current one, or one not yet packed) is
            // tested, ~3 instructions a row.
            let (base, line) = match self.cold.done.get(k) {
                Some(Stored::Packed(p)) => (p.base(), p.line()),
                Some(Stored::Line(l)) => {
                    let l = &self.cold.lines[*l as usize];
                    (l.base, Some(l.parts()))
                }
                Some(Stored::Rows(b)) => (b.base, rows_line(b, len)),
                None => self.cur_ref().map_or((0, None), |b| (b.base, rows_line(b, len))),
            };
            // The fast path's conditions are the general path's with
            // no escape anywhere in the block: the same values.
            match line {
                Some((g0, step, [sent, arr, f, 0, fr, pay]))
                    if base & REBASED == 0
                        && !escapes
                        && g0 as u64 + step as u64 * (len as u64 - 1) < Wide::ESC as u64
                        && sent.max(arr) < Wide::ESC =>
                {
                    // Written by loops that vectorise, into the
                    // vectors' spare capacity (zeroing them first is a
                    // `memset` per column; issue 26).
                    if steps_of != Some(step) {
                        for (j, x) in multiples.iter_mut().enumerate() {
                            *x = step as u64 * j as u64;
                        }
                        steps_of = Some(step);
                    }
                    let g0 = base + g0 as u64;
                    push_n(&mut t_gen, len, |j| g0 + multiples[j]);
                    push_n(&mut t_sent, len, |j| g0 + multiples[j] + sent as u64);
                    push_n(&mut t_arr, len, |j| g0 + multiples[j] + arr as u64);
                    let f = fate_of(f as u8);
                    push_n(&mut fate, len, |_| f);
                    push_n(&mut talkspurt, len, |_| spurt);
                    push_n(&mut frames, len, |_| fr as u16);
                    push_n(&mut payload, len, |_| pay);
                    lines.push(i0..i0 + len);
                    continue;
                }
                _ => {}
            }
            let (base, c) = self.block_cols(k);
            let gen = &c[0][..len];
            // Escapes tested with an OR over the block, which vectorises
            // where `all` tests a value at a time (issue 26): below ESC,
            // the OR is below it only if every value is; a false alarm
            // (values below ESC whose OR is not) takes the general path.
            if base & REBASED == 0 && below_esc(gen) {
                t_gen.extend(gen.iter().map(|&x| base + x as u64));
            } else {
                t_gen.extend((i0..i0 + len).map(|i| self.t_gen(i)));
            }
            let g = &t_gen[i0..];
            for (f, w, out) in [(1, W_SENT, &mut t_sent), (2, W_ARR, &mut t_arr)] {
                let x = &c[f][..len];
                if below_esc(x) {
                    // No escape in the block (the usual case): one add a
                    // value, which vectorises (issue 26).
                    out.extend(x.iter().zip(g).map(|(&x, &g)| g + x as u64));
                    continue;
                }
                out.extend(x.iter().zip(g).enumerate().map(|(j, (&x, &g))| match x {
                    x if x < Wide::ESC => g + x as u64,
                    x => match self.wide_cold(i0 + j, x, w) {
                        NEVER => NEVER,
                        d => g + d,
                    },
                }));
            }
            fate.extend(c[3][..len].iter().map(|&x| fate_of(x as u8)));
            let steps = &c[4][..len];
            if steps.iter().fold(0, |a, &s| a | s) == 0 {
                // One talkspurt throughout the block.
                talkspurt.resize(i0 + len, spurt);
            } else {
                for (j, &s) in steps.iter().enumerate() {
                    spurt = match s {
                        s if s == u8::MAX as u32 => self.cold.narrow[N_SPURT][&((i0 + j) as u32)],
                        s => spurt + s,
                    };
                    talkspurt.push(spurt);
                }
            }
            if escapes {
                frames.extend((i0..i0 + len).map(|i| self.frames(i) as u16));
                payload.extend((i0..i0 + len).map(|i| self.payload(i)));
            } else {
                frames.extend(c[5][..len].iter().map(|&x| x as u16));
                payload.extend_from_slice(&c[6][..len]);
            }
        }
        let (wire, where_) = if trace {
            let (mut wire, mut where_) = (self.cold.wire.all(|x| x), self.cold.where_.all(|x| x.wrapping_sub(1)));
            if let Some((from, w)) = self.trace_counted() {
                wire.resize(n, w);
                where_.resize(n, NO_WHERE);
                debug_assert_eq!(from, self.cold.wire.len());
            }
            (wire, where_)
        } else {
            (Vec::new(), Vec::new())
        };
        Columns { talkspurt, t_gen, t_sent, t_arr, fate, frames, payload, wire, where_ }
    }

    /// Generation times of block `blk` (packets `i0..i0 + len`) onto `out`.
    #[inline]
    fn extend_gen(&self, out: &mut Vec<u64>, i0: usize, blk: &Block, len: usize) {
        let (b, rows) = (blk.base, &blk.rows[..len]);
        if b & REBASED == 0 && rows.iter().all(|r| get32(r, GEN) < Wide::ESC) {
            out.extend(rows.iter().map(|r| b + get32(r, GEN) as u64));
        } else {
            out.extend((i0..i0 + len).map(|i| self.t_gen(i)));
        }
    }

    /// Every packet's generation time, decoded a block at a time (the
    /// per-index `t_gen` reads a packed block's header for each packet).
    pub fn t_gens(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.len());
        for (k, (blk, len)) in self.blocks().enumerate() {
            self.extend_gen(&mut out, k * BLOCK, &blk, len);
        }
        out
    }

    /// Heap bytes the records hold: the run's memory per recorded packet.
    pub fn heap_bytes(&self) -> usize {
        let stored: usize = self.cold.done.iter().map(|s| match s {
            Stored::Rows(_) => std::mem::size_of::<Block>(),
            Stored::Packed(p) => p.heap_bytes(),
            Stored::Line(_) => 0,
        }).sum();
        std::mem::size_of::<RecordCold>()
            + self.cold.done.capacity() * std::mem::size_of::<Stored>()
            + self.cold.loose.capacity() * 4
            + self.cold.lines.capacity() * std::mem::size_of::<Line>()
            + stored
            + self.cur.is_some() as usize * std::mem::size_of::<Block>()
            + self.cold.rebase.len() * 32
            + self.cold.wide.iter().map(|m| m.len() * 32).sum::<usize>()
            + self.cold.narrow.iter().map(|m| m.len() * 32).sum::<usize>()
            + self.cold.wire.heap_bytes()
            + self.cold.where_.heap_bytes()
    }
}

//! The packets table, kept as the calls' compact records and playout
//! offsets (issue 14: 25 bytes a packet with the trace's columns, against
//! 88 as a table) and built a column at a time when read: Python takes one
//! column, then the next, so the wide table is never held twice, and a run
//! that never reads it never builds it.
//!
//! Columns, in table order: the trace's (`trace::packets`) under each
//! call's playout, then the windowed impairments (seed 000 Fig. 5.7) —
//! `window` packets, under each call's playout buffer, with the reduced
//! E-model (NaN for codecs without λ).

use super::row::CallInfo;
use crate::metrics::windowed_impairments;
use crate::trace::packets::{fate_code, FATES};
use crate::trace::record::{CallRecord, NetFate, Wide, NEVER, NO_WHERE};
use crate::trace::table::{digest_column, secs};
use crate::trace::{Column, Table};
use std::ops::Range;

pub struct Packets {
    records: Vec<CallRecord>,
    /// Playout minus generation per packet (`NEVER`: not played).
    played: Vec<Wide>,
    /// Per call: playout offset (ms) and the codec's λ (NaN without).
    calls: Vec<(f64, [f64; 3])>,
    window: usize,
    where_cats: Vec<String>,
    /// Every call kept the trace's columns (wire bytes, where lost).
    full: bool,
}

/// The window columns, computed together per call.
const WINDOW_COLUMNS: [&str; 3] = ["id", "window_loss", "window_ie"];

impl Packets {
    /// `played[c]` is call `c`'s playout time per packet (`NEVER` where
    /// not played), as offsets from generation (`played_offsets`).
    pub fn new(records: Vec<CallRecord>, played: Vec<Wide>, infos: &[CallInfo], window: usize, where_cats: &[String]) -> Self {
        let full = records.iter().all(|r| r.full);
        let calls = infos.iter().map(|i| (i.offset_ms(), i.codec.lambda.unwrap_or([f64::NAN; 3]))).collect();
        Packets { records, played, calls, window, where_cats: where_cats.to_vec(), full }
    }

    pub fn rows(&self) -> usize {
        self.records.iter().map(|r| r.len()).sum()
    }

    /// Column names, in table order.
    pub fn names(&self) -> Vec<&'static str> {
        let mut n = vec!["call", "seq", "talkspurt", "frames", "payload_bytes"];
        if self.full {
            n.push("wire_bytes");
        }
        n.extend(["t_generated", "t_sent", "t_arrived", "t_played", "fate"]);
        if self.full {
            n.push("where");
        }
        n.extend(WINDOW_COLUMNS);
        n
    }

    /// Rows (packets) of each call, in table order: a writer can cut the
    /// table into row groups of whole calls (`column_of_calls`).
    pub fn call_rows(&self) -> Vec<usize> {
        self.records.iter().map(|r| r.len()).collect()
    }

    /// One value per packet, call by call, for the calls in `calls`.
    fn each<T>(&self, calls: &Range<usize>, f: impl Fn(usize, &CallRecord, &Wide, usize) -> T) -> Vec<T> {
        let mut v = Vec::with_capacity(self.records[calls.clone()].iter().map(|r| r.len()).sum());
        for c in calls.clone() {
            let (r, p) = (&self.records[c], &self.played[c]);
            v.extend((0..r.len()).map(|i| f(c, r, p, i)));
        }
        v
    }

    /// `each` with every packet's generation time, decoded a block at a
    /// time (`CallRecord::t_gens`; the per-index `t_gen` reads a packed
    /// block's header for each packet).
    fn each_gen<T>(&self, calls: &Range<usize>, f: impl Fn(&CallRecord, &Wide, usize, u64) -> T) -> Vec<T> {
        let mut v = Vec::with_capacity(self.records[calls.clone()].iter().map(|r| r.len()).sum());
        for c in calls.clone() {
            let (r, p) = (&self.records[c], &self.played[c]);
            v.extend(r.t_gens().into_iter().enumerate().map(|(i, g)| f(r, p, i, g)));
        }
        v
    }

    /// One column, built now; None for a name not in `names`.
    pub fn column(&self, name: &str) -> Option<Column> {
        self.column_of_calls(name, 0..self.records.len())
    }

    /// The rows of the calls in `calls` of one column (the table's rows
    /// `Σ call_rows[..start] ..`): a large table written a slice at a
    /// time never holds a whole column (issue 14). None for a name not in
    /// `names` or calls out of range.
    pub fn column_of_calls(&self, name: &str, calls: Range<usize>) -> Option<Column> {
        if calls.start > calls.end || calls.end > self.records.len() {
            return None;
        }
        // Packet i's playout time from its generation time g.
        let played = |p: &Wide, i: usize, g: u64| match p.get(i) {
            NEVER => NEVER,
            d => g + d,
        };
        let full = self.full;
        Some(match name {
            "call" => Column::U32(self.each(&calls, |c, _, _, _| c as u32)),
            "seq" => Column::U32(self.each(&calls, |_, _, _, i| i as u32)),
            "talkspurt" => Column::U32(self.records[calls].iter().flat_map(|r| r.talkspurts()).collect()),
            "frames" => Column::U32(self.each(&calls, |_, r, _, i| r.frames(i))),
            "payload_bytes" => Column::U32(self.each(&calls, |_, r, _, i| r.payload(i))),
            "wire_bytes" if full => Column::U32(self.each(&calls, |_, r, _, i| r.wire(i))),
            "t_generated" => Column::F64(self.each_gen(&calls, |_, _, _, g| secs(g))),
            "t_sent" => Column::F64(self.each(&calls, |_, r, _, i| secs(r.t_sent(i)))),
            "t_arrived" => Column::F64(self.each(&calls, |_, r, _, i| secs(r.t_arr(i)))),
            "t_played" => Column::F64(self.each_gen(&calls, |_, p, i, g| secs(played(p, i, g)))),
            "fate" => Column::Cat {
                codes: self.each_gen(&calls, |r, p, i, g| fate_code(r.fate(i), played(p, i, g))),
                cats: FATES.iter().map(|s| s.to_string()).collect(),
            },
            // Where codes: 0 = none, 1 = sender, 2.. = channels.
            "where" if full => {
                let mut cats = vec![String::new(), "sender".to_string()];
                cats.extend(self.where_cats.iter().cloned());
                let codes = self.each(&calls, |_, r, _, i| match (r.fate(i), r.where_(i)) {
                    (NetFate::SenderDrop, _) => 1,
                    (_, NO_WHERE) => 0,
                    (_, ch) => ch + 2,
                });
                Column::Cat { codes, cats }
            }
            _ => {
                let k = WINDOW_COLUMNS.iter().position(|&w| w == name)?;
                let mut want = [false; 3];
                want[k] = true;
                let [a, b, c] = self.window_columns(calls, want);
                Column::F64([a, b, c].into_iter().nth(k).expect("three window columns"))
            }
        })
    }

    /// Several columns of the calls in `calls`, as `column_of_calls` gives
    /// each, in the order of `names`: the window columns asked for are
    /// computed in one pass over each call (one at a time costs a pass
    /// each: three on the headline's 3 M packets, ~0.3 s of a Parquet
    /// write). None if any name is not in `names()` or the calls are out
    /// of range.
    pub fn columns_of_calls(&self, names: &[&str], calls: Range<usize>) -> Option<Vec<Column>> {
        if calls.start > calls.end || calls.end > self.records.len() {
            return None;
        }
        let mut want = [false; 3];
        for n in names {
            if let Some(k) = WINDOW_COLUMNS.iter().position(|w| w == n) {
                want[k] = true;
            }
        }
        let mut window = if want.iter().filter(|&&w| w).count() > 1 {
            Some(self.window_columns(calls.clone(), want).map(Some))
        } else {
            None
        };
        names
            .iter()
            .map(|n| match (WINDOW_COLUMNS.iter().position(|w| w == n), window.as_mut()) {
                (Some(k), Some(w)) => w[k].take().map(Column::F64).or_else(|| self.column_of_calls(n, calls.clone())),
                _ => self.column_of_calls(n, calls.clone()),
            })
            .collect()
    }

    /// The window columns (`WINDOW_COLUMNS`) of the calls in `calls`, the
    /// ones `want` asks for (the others empty), from one pass of
    /// `windowed_impairments` per call.
    fn window_columns(&self, calls: Range<usize>, want: [bool; 3]) -> [Vec<f64>; 3] {
        let rows: usize = self.records[calls.clone()].iter().map(|r| r.len()).sum();
        let mut out: [Vec<f64>; 3] = std::array::from_fn(|k| Vec::with_capacity(if want[k] { rows } else { 0 }));
        for c in calls {
            let (r, p, &(offset_ms, lambda)) = (&self.records[c], &self.played[c], &self.calls[c]);
            let t_gen = r.t_gens();
            let pl: Vec<u64> = (0..r.len())
                .map(|i| match p.get(i) {
                    NEVER => NEVER,
                    d => t_gen[i] + d,
                })
                .collect();
            for w in windowed_impairments(&t_gen, &pl, offset_ms, lambda, self.window) {
                for (k, x) in [w.id.unwrap_or(f64::NAN), w.loss_fraction, w.ie].into_iter().enumerate() {
                    if want[k] {
                        out[k].push(x);
                    }
                }
            }
        }
        out
    }

    /// Every column.
    pub fn table(&self) -> Table {
        let mut t = Table::default();
        for name in self.names() {
            t.push(name, self.column(name).expect("a listed column"));
        }
        t
    }

    /// `trace::table::digest` of `table()`, a column at a time.
    pub fn digest(&self, h: &mut u64) {
        for name in self.names() {
            digest_column(h, name, &self.column(name).expect("a listed column"));
        }
    }

    /// Heap bytes held (records and playout offsets).
    pub fn heap_bytes(&self) -> usize {
        self.records.iter().map(|r| r.heap_bytes()).sum::<usize>() + self.played.iter().map(|p| p.heap_bytes()).sum::<usize>()
    }
}

/// A call's playout times as offsets from generation, packet by packet
/// (scoring gives them from its columns: `Scored::offsets`; this is the
/// reference its test compares with).
#[cfg(test)]
pub fn played_offsets(r: &CallRecord, played: &[u64]) -> Wide {
    let mut w = Wide::with_capacity(played.len());
    for (&p, g) in played.iter().zip(r.t_gens()) {
        w.push(if p == NEVER { NEVER } else { p - g });
    }
    w
}

//! Call scoring: turns a call's per-packet records (`trace::record`) into
//! its row — the playout buffer's outcome, the metrics, the E-model in both
//! forms and the offline bounds — and builds the tables of scored calls.
//! It reads records; `trace` does not own it.
//!
//! Files: `config.rs` the `[analysis]` settings; `row.rs` what a call was
//! and its row; `calls.rs` scores one call, `pass.rs` its one
//! pass over the columns, `steady.rs` the runs that pass folds at once;
//! `modes.rs` a
//! mode-switching call's shares per mode; `bounds.rs` its offline bounds;
//! `summary.rs` the tables; `packets.rs` the packets table.

pub mod bounds;
pub mod calls;
pub mod config;
pub mod modes;
pub mod packets;
mod gaps;
mod pass;
mod steady;
#[cfg(test)]
mod lined_tests;
pub mod row;
pub mod stream;
pub mod summary;

pub use calls::{score_call, score_call_keeping, Bin, Scored};
pub use config::{AnalysisCfg, DelayModel, Scoring};
pub use row::{CallInfo, CallSummary};

use crate::trace::record::Wide;
use std::borrow::Borrow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use crate::trace::{CallRecord, Table};
use packets::Packets;
use summary::{bursts_table, calls_table, groups_table, talkspurts_table};

/// The tables that depend only on the calls' records and how they are
/// scored: what a rescore recomputes.
pub struct CallTables {
    pub calls: Table,
    /// Built a column at a time when read (`packets::Packets`).
    pub packets: Option<Packets>,
    pub groups: Table,
    pub bursts: Table,
    pub talkspurts: Option<Table>,
    /// Each call's `Scored::congestion_onset`, in call order.
    pub congestion_onsets: Vec<Option<u64>>,
}

/// Score every call, in parallel over the machine's cores. Each call is
/// scored on its own, so the result does not depend on the split; threads
/// claim small blocks of calls as they go rather than one fixed share each,
/// so a thread the machine slows (or a run of long calls) does not hold the
/// others up (issue 14). With `keep_played` each call's playout times are
/// kept as offsets from generation (the packets table reads them), else
/// dropped as soon as the call is scored.
///
/// Results are written in place into the returned vectors (sized once):
/// collecting them per thread and then moving them into call order held
/// every `Scored` two or three times over at 100 000 calls (issue 14).
pub fn score_all(records: &[&CallRecord], infos: &[CallInfo], a: &AnalysisCfg, keep_played: bool) -> (Vec<Scored>, Vec<Wide>) {
    score_each(records.iter().copied(), infos, a, keep_played, &AtomicBool::new(false))
}

/// [`score_all`] over records given by reference or by value; a record
/// given by value is dropped as soon as its call is scored, so that
/// without the trace the records' memory goes down as the scores' goes up.
///
/// Once `stop` is set (an interrupted run, `run::RunOptions::interrupt`)
/// the calls not yet scored are skipped: the caller discards the tables.
fn score_each<R: Borrow<CallRecord> + Send, I: ExactSizeIterator<Item = R> + Send>(records: I, infos: &[CallInfo], a: &AnalysisCfg, keep_played: bool, stop: &AtomicBool) -> (Vec<Scored>, Vec<Wide>) {
    let score = |r: R, i: &CallInfo| {
        if stop.load(Ordering::Relaxed) {
            return (Scored::empty(), Wide::default());
        }
        let r = r.borrow();
        let mut s = score_call_keeping(r, i, a, keep_played);
        s.played = Vec::new();
        let played = std::mem::take(&mut s.offsets);
        (s, played)
    };
    let n = records.len();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(n.div_ceil(BLOCK)).max(1);
    if threads == 1 {
        return records.zip(infos).map(|(r, i)| score(r, i)).unzip();
    }
    let mut scored: Vec<Scored> = (0..n).map(|_| Scored::empty()).collect();
    let mut played: Vec<Wide> = (0..n).map(|_| Wide::default()).collect();
    // The next block of results to fill, its infos, and the records.
    let blocks = scored.chunks_mut(BLOCK).zip(played.chunks_mut(BLOCK)).zip(infos.chunks(BLOCK));
    let next = Mutex::new((blocks, records));
    std::thread::scope(|sc| {
        let work = || {
            let mut recs: Vec<R> = Vec::with_capacity(BLOCK);
            loop {
                let ((s, p), i) = {
                    let mut next = next.lock().expect("a scoring thread panicked");
                    let Some(block) = next.0.next() else { return };
                    recs.extend(next.1.by_ref().take(block.1.len()));
                    block
                };
                for (k, r) in recs.drain(..).enumerate() {
                    (s[k], p[k]) = score(r, &i[k]);
                }
            }
        };
        for h in (0..threads).map(|_| sc.spawn(work)).collect::<Vec<_>>() {
            h.join().expect("scoring thread panicked");
        }
    });
    (scored, played)
}

/// Each folded call's row (`stream::scored`: with exact scoring its
/// offline bounds are solved here), in parallel as `score_each`; after
/// `stop` the rest are left empty.
fn score_streams(sinks: Vec<Box<dyn crate::trace::record::RecordSink>>, stop: &AtomicBool) -> Vec<Scored> {
    let n = sinks.len();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(n.div_ceil(BLOCK)).max(1);
    let one = |s| if stop.load(Ordering::Relaxed) { Scored::empty() } else { stream::scored(s) };
    if threads == 1 {
        return sinks.into_iter().map(one).collect();
    }
    let mut scored: Vec<Scored> = (0..n).map(|_| Scored::empty()).collect();
    let next = Mutex::new((scored.chunks_mut(BLOCK), sinks.into_iter()));
    std::thread::scope(|sc| {
        let work = || loop {
            let (out, mine): (&mut [Scored], Vec<_>) = {
                let mut next = next.lock().expect("a scoring thread panicked");
                let Some(out) = next.0.next() else { return };
                let mine = next.1.by_ref().take(out.len()).collect();
                (out, mine)
            };
            for (o, s) in out.iter_mut().zip(mine) {
                *o = one(s);
            }
        };
        for h in (0..threads).map(|_| sc.spawn(work)).collect::<Vec<_>>() {
            h.join().expect("scoring thread panicked");
        }
    });
    scored
}

/// Calls a scoring thread claims at a time.
const BLOCK: usize = 8;

/// Score the calls and build their tables; `trace` keeps the records for
/// the packets table (else they are dropped here).
pub fn call_tables(records: Vec<CallRecord>, infos: &[CallInfo], a: &AnalysisCfg, trace: bool, where_cats: &[String]) -> CallTables {
    call_tables_until(records, infos, a, trace, where_cats, &AtomicBool::new(false))
}

/// [`call_tables`] that skips the calls left once `stop` is set (the
/// tables are then incomplete: the caller checks `stop` and discards them).
pub fn call_tables_until(mut records: Vec<CallRecord>, infos: &[CallInfo], a: &AnalysisCfg, trace: bool, where_cats: &[String], stop: &AtomicBool) -> CallTables {
    if records.iter().any(|r| r.sink().is_some()) {
        // Streaming scoring: the calls were scored as they ran.
        let sinks: Vec<_> = records.iter_mut().map(|r| r.take_sink().expect("every call streams")).collect();
        let scored = score_streams(sinks, stop);
        return tables(records, Vec::new(), infos, a, false, where_cats, scored);
    }
    if !trace {
        // Without the packets table each call's records are done with once
        // it is scored: freed then, not after every call (peak memory,
        // issue 14).
        let (scored, played) = score_each(records.into_iter(), infos, a, false, stop);
        return tables(Vec::new(), played, infos, a, false, where_cats, scored);
    }
    let refs: Vec<&CallRecord> = records.iter().collect();
    let (scored, played) = score_each(refs.iter().copied(), infos, a, trace, stop);
    drop(refs);
    tables(records, played, infos, a, trace, where_cats, scored)
}

fn tables(records: Vec<CallRecord>, played: Vec<Wide>, infos: &[CallInfo], a: &AnalysisCfg, trace: bool, where_cats: &[String], scored: Vec<Scored>) -> CallTables {
    CallTables {
        calls: calls_table(infos, &scored),
        packets: trace.then(|| Packets::new(records, played, infos, a.window as usize, where_cats)),
        groups: groups_table(infos, &scored),
        bursts: bursts_table(&scored),
        talkspurts: talkspurts_table(&scored),
        congestion_onsets: scored.iter().map(|s| s.congestion_onset).collect(),
    }
}

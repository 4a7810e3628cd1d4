//! Call scoring: turns a call's per-packet records (`trace::record`) into
//! its row — the playout buffer's outcome, the metrics, the E-model in both
//! forms and the offline bounds — and builds the tables of scored calls.
//! It reads records; `trace` does not own it.
//!
//! Files: `config.rs` the `[analysis]` settings; `row.rs` what a call was
//! and its row; `calls.rs` scores one call; `modes.rs` a
//! mode-switching call's shares per mode; `bounds.rs` its offline bounds;
//! `summary.rs` the tables; `packets.rs` the packets table.

pub mod bounds;
pub mod calls;
pub mod config;
pub mod modes;
pub mod packets;
pub mod row;
pub mod stream;
pub mod summary;

pub use calls::{score_call, Scored};
pub use config::{AnalysisCfg, DelayModel, Scoring};
pub use row::{CallInfo, CallSummary};

use crate::trace::record::Wide;
use std::sync::Mutex;
use crate::trace::{CallRecord, Table};
use packets::{played_offsets, Packets};
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
/// others up (issue 14). With `keep` each call's playout times are kept as
/// offsets from generation and its records stay (the packets table reads
/// both); else both are dropped as soon as the call is scored, on its
/// scoring thread, while the records are still in cache (issue 14: freeing
/// 1000 calls' records afterwards took the main thread ~6 ms).
pub fn score_all(records: &mut [CallRecord], infos: &[CallInfo], a: &AnalysisCfg, keep: bool) -> (Vec<Scored>, Vec<Wide>) {
    let score = |r: &mut CallRecord, i: &CallInfo| {
        let mut s = score_call(r, i, a);
        let played = if keep { played_offsets(r, &s.played) } else { Wide::default() };
        s.played = Vec::new();
        if !keep {
            *r = CallRecord::default();
        }
        (s, played)
    };
    let n = records.len();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(n.div_ceil(BLOCK)).max(1);
    if threads == 1 {
        return records.iter_mut().zip(infos).map(|(r, i)| score(r, i)).unzip();
    }
    let blocks = Mutex::new(records.chunks_mut(BLOCK).zip(infos.chunks(BLOCK)).enumerate());
    let mut out: Vec<Option<(Scored, Wide)>> = (0..n).map(|_| None).collect();
    std::thread::scope(|sc| {
        let work = || {
            let mut done = Vec::new();
            loop {
                let Some((b, (recs, infos))) = blocks.lock().expect("a scoring thread panicked").next() else {
                    return done;
                };
                for (j, (r, i)) in recs.iter_mut().zip(infos).enumerate() {
                    done.push((b * BLOCK + j, score(r, i)));
                }
            }
        };
        let handles: Vec<_> = (0..threads).map(|_| sc.spawn(work)).collect();
        for h in handles {
            for (k, x) in h.join().expect("scoring thread panicked") {
                out[k] = Some(x);
            }
        }
    });
    out.into_iter().map(|x| x.expect("every call is scored")).unzip()
}

/// Calls a scoring thread claims at a time.
const BLOCK: usize = 8;

/// Score the calls and build their tables; `trace` keeps the records for
/// the packets table (else they are dropped here).
pub fn call_tables(mut records: Vec<CallRecord>, infos: &[CallInfo], a: &AnalysisCfg, trace: bool, where_cats: &[String]) -> CallTables {
    if records.iter().any(|r| r.sink().is_some()) {
        // Streaming scoring: the calls were scored as they ran.
        let scored = records.iter_mut().map(|r| stream::scored(r.take_sink().expect("every call streams"))).collect();
        return tables(records, Vec::new(), infos, a, false, where_cats, scored);
    }
    let (scored, played) = score_all(&mut records, infos, a, trace);
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

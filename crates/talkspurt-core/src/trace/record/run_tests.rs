//! Pending runs (`run.rs`): a record written by `push_arrived`, whose
//! packets alike are only counted, reads back and stores exactly what one
//! written row by row (`push`, `sent`, `arrived`) does, whatever comes
//! between: breaks of every field, rebases, escapes, late writes to the
//! current and older blocks, reads while a run is pending.

use super::*;
use crate::trace::record::{CallRecord, Columns};
use crate::rng::{Rng, StreamId};
use crate::time::SimTime;

/// Everything a reader can see of a record, and how its full blocks are
/// stored (decoded, and whether packed).
type Seen = (Columns, Vec<std::ops::Range<usize>>, Vec<(std::mem::Discriminant<Stored>, Vec<u32>)>, Vec<u64>, Vec<u32>, Vec<NetFate>);

fn seen(r: &CallRecord) -> Seen {
    let mut lines = Vec::new();
    let c = r.columns_lined(true, &mut lines);
    let stored = r.cold.done.iter().map(|s| (std::mem::discriminant(s), s.cols(&r.cold.lines).1.concat())).collect();
    let each: Vec<u64> = (0..r.len()).flat_map(|i| [r.t_gen(i), r.t_sent(i), r.t_arr(i), r.frames(i) as u64, r.payload(i) as u64]).collect();
    (c, lines, stored, each, r.talkspurts().collect(), r.fates())
}

/// `a` and `b` read back the same; `what` says where when not.
fn same(a: &CallRecord, b: &CallRecord, what: &str) {
    let (x, y) = (seen(a), seen(b));
    let (c, d) = (&x.0, &y.0);
    for (name, same) in [("t_gen", c.t_gen == d.t_gen), ("t_sent", c.t_sent == d.t_sent), ("t_arr", c.t_arr == d.t_arr), ("fate", c.fate == d.fate), ("talkspurt", c.talkspurt == d.talkspurt), ("frames", c.frames == d.frames), ("payload", c.payload == d.payload), ("wire", c.wire == d.wire), ("where", c.where_ == d.where_)] {
        assert!(same, "{what}: column {name} differs");
    }
    assert_eq!(x.1, y.1, "{what}: uniform blocks differ");
    assert!(x.2 == y.2, "{what}: stored blocks differ");
    assert!(x.3 == y.3, "{what}: per-packet reads differ");
    assert!((&x.4, &x.5) == (&y.4, &y.5), "{what}: talkspurts or fates differ");
}

/// One of `xs`: one of the first three, or a quarter of the time any.
fn edge<T: Copy>(pick: &mut impl FnMut(u64) -> u64, xs: &[T]) -> T {
    match pick(4) {
        0 => xs[pick(xs.len() as u64) as usize],
        _ => xs[pick(3) as usize],
    }
}

/// One random call: mostly packets alike (a run), with every field of
/// the run broken now and then, escapes, long gaps, and late writes.
/// Returns the packets after which a run was pending, and of how many.
fn random_call(seed: u64, full: bool, slab: Option<&std::sync::Arc<crate::trace::slab::Slab>>) -> (usize, usize) {
    let mut rng = Rng::stream(seed, 0, StreamId::new(0, 0));
    let mut pick = |n: u64| rng.next_u64() % n;
    let (mut fast, mut rows) = (CallRecord::new(full, 64), CallRecord::new(full, 64));
    if let Some(s) = slab {
        assert!(fast.attach_slab(s, 0) && rows.attach_slab(s, 1));
    }
    let n = 64 * 5 + pick(64) as usize;
    // How rare breaks are: runs of a few packets, or whole blocks.
    let calm = [40, 400, 4000][seed as usize % 3];
    let mut pending = 0;
    let (mut t, mut step, mut delay, mut spurt, mut frames, mut payload) = (pick(1_000_000), 20_000_000u64, 31_000_000u64, 0u32, 1u32, 160u32);
    for i in 0..n {
        // Each break is rare, so that runs form and break at any row.
        match pick(calm) {
            // Ordinary values first, then the edges (no step, a rebase
            // each packet, escapes), picked a quarter of the time.
            0 => step = edge(&mut pick, &[10_000_000, 20_000_000, 30_000_000, 0, 1, 5_000_000_000]),
            1 => delay = edge(&mut pick, &[31_000_000, 31_000_001, 80_000_000, 0, 4_294_967_293, 4_294_967_294, 6_000_000_000]),
            2 => spurt += edge(&mut pick, &[1, 2, 3, 255, 300]),
            3 => frames = edge(&mut pick, &[1, 2, 3, 0, 254, 255, 300]),
            4 => payload = edge(&mut pick, &[160, 320, 80, 0, 65_534, 65_535, 70_000]),
            _ => {}
        }
        t += if pick(calm + 20) == 0 { 5_000_000_000 } else { step };
        let (g, at) = (SimTime(t), SimTime(t + delay));
        let wire = 200 + pick(3) as u32;
        match pick(calm) {
            // Still in flight, or lost later.
            0 => {
                let (a, b) = (fast.push(g, spurt, frames, payload, wire), rows.push(g, spurt, frames, payload, wire));
                assert_eq!(a, b);
            }
            _ => {
                fast.push_arrived(g, spurt, frames, payload, wire, at);
                let seq = rows.push(g, spurt, frames, payload, wire);
                rows.sent(seq, g);
                rows.arrived(seq, at);
            }
        }
        assert_eq!(fast.len(), rows.len());
        pending += (fast.cur_ref().expect("a block").run_from() != 0) as usize;
        // Late writes: to the latest packet, or any earlier one.
        if pick(calm / 2 + 5) == 0 {
            let seq = if pick(2) == 0 { i as u32 } else { pick(i as u64 + 1) as u32 };
            let (later, op) = (SimTime(t + 90_000_000), pick(4));
            for r in [&mut fast, &mut rows] {
                match op {
                    0 => r.arrived(seq, later),
                    1 => r.sent(seq, later),
                    2 => r.set_wire(seq, 999),
                    _ => r.set_fate(seq, NetFate::LinkLoss, 3),
                }
            }
        }
        if pick(50) == 0 {
            same(&fast, &rows, &format!("seed {seed} full={full} slab={}: after packet {i}", slab.is_some()));
        }
    }
    same(&fast, &rows, &format!("seed {seed} full={full} slab={}: at the end", slab.is_some()));
    assert_eq!(fast.block_counts(), rows.block_counts(), "seed {seed}");
    assert_eq!(fast.heap_bytes(), rows.heap_bytes(), "seed {seed}");
    (pending, n)
}

#[test]
fn counted_runs_read_back_as_written_rows() {
    let (mut pending, mut all) = (0, 0);
    for seed in 0..300 {
        let full = seed % 2 == 0;
        let (p, n) = random_call(seed, full, None);
        (pending, all) = (pending + p, all + n);
        if let Some(slab) = CallRecord::block_slab(2) {
            random_call(seed, full, Some(&slab));
        }
    }
    // The runs the test is about did form.
    assert!(pending > all / 2, "a run pending after {pending} packets of {all}");
}

/// The headline's call: every block after its first three rows is counted,
/// packed from its header, and reads back as a line.
#[test]
fn steady_calls_pack_every_block_from_its_run() {
    let mut r = CallRecord::new(false, 640);
    for i in 0..640u64 {
        let g = 7 + i * 20_000_000;
        r.push_arrived(SimTime(g), 0, 1, 160, 200, SimTime(g + 32_019_200));
        let k = (i % 64) as usize;
        let from = r.cur_ref().expect("a block").run_from();
        assert_eq!(from, if k >= 2 { 3 } else { 0 }, "packet {i}");
    }
    assert!(r.cold.done.iter().all(|s| matches!(s, Stored::Line(_))));
    assert_eq!(r.block_counts(), (9, 0));
    let mut lines = Vec::new();
    let c = r.columns_lined(false, &mut lines);
    assert_eq!(lines, (0..10).map(|k| k * 64..k * 64 + 64).collect::<Vec<_>>());
    assert_eq!(c.t_arr, (0..640u64).map(|i| 7 + i * 20_000_000 + 32_019_200).collect::<Vec<_>>());
}

/// A run whose template started a talkspurt, as the rows before it did:
/// its counted rows (talkspurt step 0) differ from them, so the block is
/// not uniform, whether full (`Block::uniform`) or current (`rows_line`).
#[test]
fn a_template_starting_a_talkspurt_breaks_the_line() {
    for n in [64 * 3, 64 * 3 + 40] {
        let (mut fast, mut rows) = (CallRecord::new(false, n), CallRecord::new(false, n));
        for i in 0..n as u64 {
            let (g, spurt) = (i * 20_000_000, 3 * (i / 64) as u32 + 1 + (i % 64).min(2) as u32);
            fast.push_arrived(SimTime(g), spurt, 1, 160, 200, SimTime(g + 31_000_000));
            let seq = rows.push(SimTime(g), spurt, 1, 160, 200);
            rows.sent(seq, SimTime(g));
            rows.arrived(seq, SimTime(g + 31_000_000));
        }
        same(&fast, &rows, &format!("{n} packets"));
        let mut lines = Vec::new();
        fast.columns_lined(false, &mut lines);
        assert!(lines.is_empty(), "{n} packets: {lines:?}");
        assert_eq!(fast.block_counts(), ((n - 1) / 64, (n as u32 - 1) / 64), "{n} packets: every full block kept as rows");
    }
}

/// A uniform block kept as a `Line` reads back as `Packed::pack` stores it,
/// whole and a value at a time, the line included.
#[test]
fn lines_read_as_packed_blocks() {
    let mut r = CallRecord::new(false, 64);
    for i in 0..65u64 {
        let g = 3 + i * 30_000_000;
        r.push_arrived(SimTime(g), 0, 3, 240, 280, SimTime(g + 45_000_123));
    }
    let Stored::Line(k) = r.cold.done[0] else { panic!("the full block is not a line") };
    let line = r.cold.lines[k as usize];
    let p = crate::trace::pack::Packed::pack(line.base, &line.cols());
    assert_eq!((p.base(), p.unpack(), p.line()), (line.base, line.cols(), Some(line.parts())));
    for f in 0..crate::trace::pack::FIELDS {
        for j in 0..BLOCK {
            assert_eq!(p.get(f, j), line.get(f, j), "field {f}, row {j}");
        }
    }
}

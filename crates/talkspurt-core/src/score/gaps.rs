//! Seed 003's gap jitters (Sarwar, Boreli & Lochin §5: the sender's,
//! the application's and the receiver's, `metrics::jitter`) and the
//! not-played flags, read in a second loop after scoring's pass
//! (`pass.rs`): with them in its loop, the pass's ~25 accumulators spill
//! from registers (issue 26). The pass hands over where it folded steady
//! runs and stretches; the packets between are pushed one at a time.

use crate::metrics::GapJitterStream;
use crate::playout::NOT_ARRIVED;
use crate::trace::record::Columns;

/// The gap jitters and flags of one call.
pub(super) struct Gaps {
    pub sender: GapJitterStream,
    /// `None` when the send column equals the generation column (the same
    /// samples as `sender`).
    pub app: Option<GapJitterStream>,
    pub receiver: GapJitterStream,
    /// Per packet: not played (lost, late or in flight).
    pub lost: Vec<bool>,
}

/// The streams over `rec`'s time columns. `folds`: the pass's steady runs
/// (`(start, k, true)`) and stretches (`(start, k, false)`), in order;
/// `app_same`: the send column is the generation column.
#[inline]
pub(super) fn gaps(rec: &Columns, played: &[u64], folds: &[(usize, usize, bool)], app_same: bool, jitter_threshold: f64) -> Gaps {
    let n = rec.len();
    let (t_gen, t_sent, t_arr, ids, played) = (&rec.t_gen[..n], &rec.t_sent[..n], &rec.t_arr[..n], &rec.talkspurt[..n], &played[..n]);
    let (mut sender, mut app, mut receiver) = (GapJitterStream::default(), GapJitterStream::default(), GapJitterStream::default());
    // A steady run's packets are all played, and on a line in every
    // time column: its samples are 0 (`push_on_line`).
    let mut lost = vec![false; n];
    let mut i = 0;
    for (start, s, steady) in folds.iter().copied().chain([(n, 0, false)]) {
        for i in i..start {
            let spurt = ids[i];
            sender.push(spurt, t_sent[i], f64::INFINITY);
            if !app_same {
                app.push(spurt, t_gen[i], f64::INFINITY);
            }
            receiver.push(spurt, t_arr[i], jitter_threshold);
            lost[i] = played[i] == NOT_ARRIVED;
        }
        if s > 0 && !steady {
            // A stretch: arrived, sent and played (`lost` stays false), of
            // one talkspurt.
            let (r, spurt) = (start..start + s, ids[start]);
            sender.push_stretch(spurt, &t_sent[r.clone()], f64::INFINITY);
            if !app_same {
                app.push_stretch(spurt, &t_gen[r.clone()], f64::INFINITY);
            }
            receiver.push_stretch(spurt, &t_arr[r], jitter_threshold);
        } else if s > 0 {
            let (e, spurt) = (start + s, ids[start]);
            sender.push_on_line(spurt, s, [t_sent[e - 2], t_sent[e - 1]], f64::INFINITY);
            if !app_same {
                app.push_on_line(spurt, s, [t_gen[e - 2], t_gen[e - 1]], f64::INFINITY);
            }
            receiver.push_on_line(spurt, s, [t_arr[e - 2], t_arr[e - 1]], jitter_threshold);
        }
        i = start + s;
    }
    Gaps { sender, app: (!app_same).then_some(app), receiver, lost }
}

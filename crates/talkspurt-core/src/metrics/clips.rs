//! Clips and lost-speech time, after seed 001 (Avella & Kakani §5, §7,
//! §7.55.2–3). The seed never defines a clip formally; its usage fixes it:
//! "hundreds of clips of 2 to 4 packets which is as much as 120 ms of lost
//! speech" (4 × 30 ms packets), "short clips of one or two packets", a
//! "Clips Histogram" per receiver, the criterion "duration of clips less than
//! 50 ms" and at most 5 clips in 300 s. So a **clip is a maximal run of
//! consecutive packets not played out**, its duration the speech those
//! packets carried. "Total Packet Loss (sec)" is the speech duration of all
//! lost packets ("record the number of packets lost in ms and add them up"),
//! and "Average Clip (ms)" = total lost speech / number of clips.
//!
//! Readings (see `docs/models/metrics.md`): a packet is lost when it was not
//! played (network loss or late); a run of lost packets is cut at a
//! talkspurt boundary (the silence between is not lost speech, and the
//! listener hears two separate holes); durations come from a per-packet
//! speech column because ptime changes during a seed-001 call.

use crate::playout::NOT_ARRIVED;

/// Clips of one call. Durations in ns.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipStats {
    /// Number of clips.
    pub clips: usize,
    /// Packets in each clip, in order.
    pub clip_packets: Vec<usize>,
    /// Speech duration of each clip, in order.
    pub clip_ns: Vec<u64>,
    /// Speech duration of every packet not played (= Σ `clip_ns`).
    pub lost_speech_ns: u64,
    /// lost_speech_ns / clips ("Average Clip"); `None` without clips (the
    /// seed's table prints 0 there).
    pub mean_clip_ns: Option<f64>,
    /// Longest clip; `None` without clips.
    pub max_clip_ns: Option<u64>,
}

impl ClipStats {
    /// Lost speech in seconds (seed 001's "Total Packet Loss (sec)" per call).
    pub fn lost_speech_s(&self) -> f64 {
        self.lost_speech_ns as f64 * 1e-9
    }

    /// Clips lasting `min_ns` or longer (seed 001 wants every clip < 50 ms).
    pub fn clips_at_least(&self, min_ns: u64) -> usize {
        self.clip_ns.iter().filter(|&&d| d >= min_ns).count()
    }
}

/// Clips of one call from its talkspurt ids, playout column (`NOT_ARRIVED` =
/// not played) and the speech duration each packet carries (frames × frame
/// duration, i.e. its ptime). Panics if the columns differ in length.
pub fn clips(talkspurt: &[u32], played: &[u64], speech_ns: &[u64]) -> ClipStats {
    assert_eq!(speech_ns.len(), played.len(), "talkspurt, played and speech columns differ in length");
    clips_by(talkspurt, played, |i| speech_ns[i], 0)
}

/// [`clips`] with packet `i`'s speech given as `speech_ns(i)`, read for
/// unplayed packets only (issue 14: no speech column is built). `room`:
/// the clips expected (any value gives the same result), e.g. the runs
/// of packets not played, one clip each unless a talkspurt boundary
/// splits it (issue 26: the two lists, pushed one at a time, were
/// regrown ~6 times a call on the mixed preset).
pub fn clips_by(talkspurt: &[u32], played: &[u64], speech_ns: impl Fn(usize) -> u64, room: usize) -> ClipStats {
    let n = played.len();
    assert!(talkspurt.len() == n, "talkspurt, played and speech columns differ in length");
    let mut clip_packets = Vec::with_capacity(room);
    let mut clip_ns = Vec::with_capacity(room);
    let mut i = 0;
    while i < n {
        // Played packets skipped 16 at a time (issue 26: a branch a packet
        // was ~7 instructions a packet): an OR of the times below 2^63
        // has no NOT_ARRIVED (u64::MAX) among them, and vectorises; a time
        // of 2^63 or more (never a run's) only sends the chunk below.
        if i + 16 <= n && played[i..i + 16].iter().fold(0, |a, &p| a | p) < 1 << 63 {
            i += 16;
            continue;
        }
        // Else straight to the chunk's first packet not played (issue 26:
        // a loss every ~16 packets made each packet before it test a chunk
        // of its own).
        if i + 16 <= n {
            match played[i..i + 16].iter().position(|&p| p == NOT_ARRIVED) {
                Some(0) => {}
                Some(k) => {
                    i += k;
                    continue;
                }
                None => {
                    i += 16;
                    continue;
                }
            }
        }
        if played[i] != NOT_ARRIVED {
            i += 1;
            continue;
        }
        let start = i;
        let mut dur = 0u64;
        while i < n && played[i] == NOT_ARRIVED && talkspurt[i] == talkspurt[start] {
            dur += speech_ns(i);
            i += 1;
        }
        clip_packets.push(i - start);
        clip_ns.push(dur);
    }
    let lost_speech_ns: u64 = clip_ns.iter().sum();
    let k = clip_ns.len();
    ClipStats {
        clips: k,
        mean_clip_ns: if k == 0 {
            None
        } else {
            Some(lost_speech_ns as f64 / k as f64)
        },
        max_clip_ns: clip_ns.iter().copied().max(),
        clip_packets,
        clip_ns,
        lost_speech_ns,
    }
}

#[cfg(test)]
mod tests {
    use super::super::close;
    use super::*;

    const MS: u64 = 1_000_000;
    const X: u64 = NOT_ARRIVED;
    const P: u64 = 1; // any playout time

    #[test]
    fn hand_computed_clips() {
        // Talkspurts [0 0 0 0 0 | 1 1 1], lost packets 1, 2, 4 | 5, 6;
        // speech 20 20 30 30 30 | 30 20 20 ms.
        // Clips: {1,2} = 50 ms, {4} = 30 ms, then a new talkspurt {5,6} = 50 ms.
        // Lost speech 130 ms; mean 130/3 ms; max 50 ms; ≥ 50 ms: 2 clips.
        let ts = [0, 0, 0, 0, 0, 1, 1, 1];
        let played = [P, X, X, P, X, X, X, P];
        let sp: Vec<u64> = [20, 20, 30, 30, 30, 30, 20, 20]
            .iter()
            .map(|d| d * MS)
            .collect();
        let c = clips(&ts, &played, &sp);
        assert_eq!(c.clips, 3);
        assert_eq!(c.clip_packets, vec![2, 1, 2]);
        assert_eq!(c.clip_ns, vec![50 * MS, 30 * MS, 50 * MS]);
        assert_eq!(c.lost_speech_ns, 130 * MS);
        close(c.lost_speech_s(), 0.13, 1e-12);
        close(c.mean_clip_ns.unwrap(), 130e6 / 3.0, 1e-6);
        assert_eq!(c.max_clip_ns, Some(50 * MS));
        assert_eq!(c.clips_at_least(50 * MS), 2);
        assert_eq!(c.clips_at_least(50 * MS + 1), 0);
        // Same losses in one talkspurt: {1,2} = 50 ms and {4,5,6} = 80 ms.
        let c1 = clips(&[0; 8], &played, &sp);
        assert_eq!(c1.clip_ns, vec![50 * MS, 80 * MS]);
        assert_eq!(c1.lost_speech_ns, 130 * MS);
        close(c1.mean_clip_ns.unwrap(), 65e6, 1e-6);
    }

    #[test]
    fn edge_cases() {
        let e = clips(&[], &[], &[]);
        assert_eq!(
            (e.clips, e.lost_speech_ns, e.mean_clip_ns, e.max_clip_ns),
            (0, 0, None, None)
        );
        let none = clips(&[0; 3], &[P, P, P], &[20 * MS; 3]);
        assert_eq!((none.clips, none.lost_speech_ns), (0, 0));
        // All lost in one talkspurt: one clip of 3 × 20 ms.
        let all = clips(&[4; 3], &[X; 3], &[20 * MS; 3]);
        assert_eq!(
            (all.clips, all.clip_ns.clone(), all.mean_clip_ns),
            (1, vec![60 * MS], Some(60e6))
        );
    }
}

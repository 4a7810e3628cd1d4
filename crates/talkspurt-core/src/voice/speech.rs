//! Speech activity: continuous, or alternating talkspurts and silences with
//! independent durations (Sriram & Whitt 1986's on/off model; seed 000 uses
//! exponential talk 1 s / silence 1.5 s, seed 002 Pareto on/off), or
//! talkspurts at given frames (a VAD's decisions on real speech, seed 000
//! §4.1: the Python package resolves `model = "vad"` into such a schedule).

use std::sync::Arc;

use crate::rng::{DurationDist, Rng};
use crate::time::SimDuration;

#[derive(Clone, Debug, PartialEq)]
pub enum SpeechModel {
    Continuous,
    OnOff { talk: DurationDist, silence: DurationDist },
    /// Talkspurts as `[begin, end)` frame indices from the call's start,
    /// ascending and separated by at least one silent frame (validated).
    Schedule(Arc<[(u64, u64)]>),
}

/// Silence after the last scheduled talkspurt: longer than any call.
const NEVER: u64 = u64::MAX / 4;

/// Draws talkspurt and silence lengths in whole codec frames from the
/// call's own stream. A talkspurt or silence is at least one frame: VAD
/// decides per frame.
#[derive(Debug)]
pub struct SpeechProcess {
    model: SpeechModel,
    frame: SimDuration,
    rng: Rng,
    /// Next talkspurt of a schedule.
    next: usize,
}

impl SpeechProcess {
    pub fn new(model: SpeechModel, frame: SimDuration, rng: Rng) -> Self {
        SpeechProcess { model, frame, rng, next: 0 }
    }

    /// Silent frames before the first talkspurt: a schedule's first begin;
    /// the drawn models start talking at once.
    pub fn lead_frames(&self) -> u64 {
        match &self.model {
            SpeechModel::Schedule(s) => s.first().map_or(NEVER, |x| x.0),
            _ => 0,
        }
    }

    pub fn is_continuous(&self) -> bool {
        matches!(self.model, SpeechModel::Continuous)
    }

    fn frames(&mut self, d: DurationDist) -> u64 {
        let ns = d.sample(&mut self.rng).as_nanos();
        let f = self.frame.as_nanos();
        ((ns + f / 2) / f).max(1)
    }

    /// Length of the next talkspurt in frames (`u64::MAX` if continuous).
    pub fn talk_frames(&mut self) -> u64 {
        match &self.model {
            SpeechModel::Continuous => u64::MAX,
            SpeechModel::OnOff { talk, .. } => self.frames(*talk),
            // Past the last talkspurt the source is beyond its stop anyway.
            SpeechModel::Schedule(s) => s.get(self.next).map_or(1, |&(b, e)| e - b),
        }
    }

    /// Length of the next silence in frames (0 if continuous).
    pub fn silence_frames(&mut self) -> u64 {
        match &self.model {
            SpeechModel::Continuous => 0,
            SpeechModel::OnOff { silence, .. } => self.frames(*silence),
            SpeechModel::Schedule(s) => {
                let i = self.next;
                self.next += 1;
                match (s.get(i), s.get(i + 1)) {
                    (Some(&(_, e)), Some(&(b, _))) => b - e,
                    _ => NEVER,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamId;

    #[test]
    fn mean_durations_match_configuration() {
        // 100k talkspurts of exp(1 s) in 20 ms frames: rounding to the
        // nearest frame is unbiased to well under 0.1 %; the sampling
        // standard error of the mean is 1/√1e5 = 0.32 %, so 2 % is > 6 σ.
        let model = SpeechModel::OnOff {
            talk: DurationDist::Exponential { mean: SimDuration::from_millis(1000) },
            silence: DurationDist::Exponential { mean: SimDuration::from_millis(1500) },
        };
        let mut p = SpeechProcess::new(model, SimDuration::from_millis(20), crate::rng::Rng::stream(5, 0, StreamId::new(1, 0)));
        let n = 100_000;
        let (mut t, mut s) = (0u64, 0u64);
        for _ in 0..n {
            t += p.talk_frames();
            s += p.silence_frames();
        }
        let talk_ms = t as f64 * 20.0 / n as f64;
        let sil_ms = s as f64 * 20.0 / n as f64;
        assert!((talk_ms - 1000.0).abs() / 1000.0 < 0.02, "talk mean {talk_ms} ms");
        assert!((sil_ms - 1500.0).abs() / 1500.0 < 0.02, "silence mean {sil_ms} ms");
    }
}

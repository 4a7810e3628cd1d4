//! Scheduled talkspurts (`speech = { model = "schedule", … }`): their
//! checks and their frames. A schedule is explicit data, often a VAD's
//! decisions per codec frame (seed 000 §4.1), so every bound is an error
//! naming the talkspurt, not something rounded away.

use std::sync::Arc;

use super::model::{Spurt, SpurtsCfg};
use super::units::format_duration;
use crate::time::SimDuration;

/// (key path, what is allowed) of the first bad entry.
pub(super) type Bad = (String, String);

/// Checks a group's schedule: exactly one of `spurts` and `calls`, `calls`
/// one list per call (`count`), and in each list talkspurts that are
/// frame-aligned, non-empty, ascending with at least one silent frame
/// between them, and ending by `limit` (the call's longest length).
pub(super) fn check(p: &str, s: &SpurtsCfg, count: u32, frame: SimDuration, limit: SimDuration) -> Result<(), Bad> {
    match (&s.spurts, &s.calls) {
        (Some(_), Some(_)) => Err((format!("{p}.calls"), "no calls with spurts: spurts for every call, or calls with one list per call".into())),
        (None, None) => Err((p.to_string(), "spurts = [[\"0s\", \"1s\"], …] (every call) or calls = [[[…]], …] (one list per call)".into())),
        (Some(v), None) => list(&format!("{p}.spurts"), v, frame, limit),
        (None, Some(c)) => {
            if c.len() != count as usize {
                return Err((format!("{p}.calls"), format!("one list of talkspurts per call: {count} (the group's count), not {}", c.len())));
            }
            c.iter().enumerate().try_for_each(|(i, v)| list(&format!("{p}.calls[{i}]"), v, frame, limit))
        }
    }
}

fn list(p: &str, v: &[Spurt], frame: SimDuration, limit: SimDuration) -> Result<(), Bad> {
    let f = frame.as_nanos();
    let mut prev_end: Option<SimDuration> = None;
    for (k, &Spurt(b, e)) in v.iter().enumerate() {
        for (j, t) in [(0, b), (1, e)] {
            if t.as_nanos() % f != 0 {
                return Err((format!("{p}[{k}][{j}]"), format!("a multiple of the call's frame ({})", format_duration(frame))));
            }
        }
        if e <= b {
            return Err((format!("{p}[{k}][1]"), format!("an end after the talkspurt's begin ({})", format_duration(b))));
        }
        if let Some(pe) = prev_end.filter(|pe| b <= *pe) {
            return Err((
                format!("{p}[{k}][0]"),
                format!("a begin after the previous talkspurt's end ({}): talkspurts in order, a silence between them", format_duration(pe)),
            ));
        }
        if e > limit {
            return Err((format!("{p}[{k}][1]"), format!("an end within the call's length ({}: its length or the run's duration)", format_duration(limit))));
        }
        prev_end = Some(e);
    }
    Ok(())
}

/// Call `i`'s talkspurts in frames (`[begin, end)` frame indices).
pub(super) fn frames(s: &SpurtsCfg, i: usize, frame: SimDuration) -> Arc<[(u64, u64)]> {
    let f = frame.as_nanos();
    s.for_call(i).iter().map(|Spurt(b, e)| (b.as_nanos() / f, e.as_nanos() / f)).collect()
}

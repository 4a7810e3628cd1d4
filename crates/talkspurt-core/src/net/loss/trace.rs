//! Replay of a recorded loss trace: per packet (a 0/1 per packet, cycled)
//! or time-stamped (loss instants and loss periods, not repeated). The
//! text formats are read here (pure); the scenario reads the file.

use std::sync::Arc;

use crate::time::SimTime;

/// A parsed loss trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LossTrace {
    /// `1` = lost, `0` = delivered, one per packet in channel order; the
    /// sequence repeats from the start when it runs out.
    Packets(Vec<bool>),
    /// Loss events `(start, end)` in ns, starts non-decreasing. `end ==
    /// start` is one loss instant: the first packet at or after it is lost.
    /// Otherwise every packet in `[start, end)` is lost. After the last
    /// event nothing is lost.
    Times(Vec<(u64, u64)>),
    /// Not yet read (a scenario before validation).
    #[default]
    Unread,
}

/// Which of the two text formats a file is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    Packets,
    Times,
}

/// A line-numbered parse failure (lines count from 1).
pub type LineError = (usize, String);

impl LossTrace {
    /// Reads a trace. Blank lines and `#` comments are skipped everywhere.
    ///
    /// - `Packets`: every `0` or `1` character is one packet (so `0 0 1`,
    ///   `001` and one digit per line all work); anything else is an error.
    /// - `Times`: per line `<time>` (one loss instant) or `<time> <length>`
    ///   (a loss period), durations with units as in the scenario, e.g.
    ///   `12.5s 200ms`; starts must not decrease.
    pub fn parse(
        text: &str,
        format: TraceFormat,
        duration: impl Fn(&str) -> Result<u64, String>,
    ) -> Result<LossTrace, LineError> {
        let lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").trim()));
        match format {
            TraceFormat::Packets => {
                let mut out = Vec::new();
                for (n, line) in lines {
                    for c in line.chars().filter(|c| !c.is_whitespace()) {
                        match c {
                            '0' => out.push(false),
                            '1' => out.push(true),
                            _ => return Err((n, format!("'{c}' is not 0 (delivered) or 1 (lost)"))),
                        }
                    }
                }
                if out.is_empty() {
                    return Err((0, "no packets (a 0 or 1 per packet)".into()));
                }
                Ok(LossTrace::Packets(out))
            }
            TraceFormat::Times => {
                let mut out: Vec<(u64, u64)> = Vec::new();
                for (n, line) in lines.filter(|(_, l)| !l.is_empty()) {
                    let words: Vec<&str> = line.split_whitespace().collect();
                    let at = |w: &str| duration(w).map_err(|e| (n, format!("\"{w}\": {e}")));
                    let (start, len) = match words.as_slice() {
                        [t] => (at(t)?, 0),
                        [t, l] => (at(t)?, at(l)?),
                        _ => return Err((n, "one or two durations: <time> [<length>], e.g. \"12.5s 200ms\"".into())),
                    };
                    if let Some(&(prev, _)) = out.last() {
                        if start < prev {
                            return Err((n, "a start no earlier than the previous line's".into()));
                        }
                    }
                    out.push((start, start.saturating_add(len)));
                }
                if out.is_empty() {
                    return Err((0, "no loss events (a line `<time> [<length>]` per event)".into()));
                }
                Ok(LossTrace::Times(out))
            }
        }
    }
}

/// A trace being replayed.
#[derive(Debug)]
pub struct TraceLoss {
    trace: Arc<LossTrace>,
    next: usize,
}

impl TraceLoss {
    pub fn new(trace: Arc<LossTrace>) -> Self {
        TraceLoss { trace, next: 0 }
    }

    /// `now` never decreases between calls (a channel asks in FIFO order).
    pub fn lose(&mut self, now: SimTime) -> bool {
        match &*self.trace {
            LossTrace::Packets(bits) => {
                let lost = bits[self.next];
                self.next = if self.next + 1 == bits.len() { 0 } else { self.next + 1 };
                lost
            }
            LossTrace::Times(ev) => {
                while let Some(&(start, end)) = ev.get(self.next) {
                    if now.0 < start {
                        return false;
                    }
                    if end == start {
                        self.next += 1;
                        return true;
                    }
                    if now.0 < end {
                        return true;
                    }
                    self.next += 1;
                }
                false
            }
            LossTrace::Unread => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(s: &str) -> Result<u64, String> {
        s.strip_suffix("ms").and_then(|x| x.parse::<u64>().ok()).map(|x| x * 1_000_000).ok_or("a duration".into())
    }

    #[test]
    fn packet_traces_cycle() {
        let t = LossTrace::parse("# header\n0 1\n1\n\n0", TraceFormat::Packets, ms).unwrap();
        let mut l = TraceLoss::new(Arc::new(t));
        let got: Vec<bool> = (0..8).map(|_| l.lose(SimTime::ZERO)).collect();
        assert_eq!(got, [false, true, true, false, false, true, true, false]);
        assert_eq!(LossTrace::parse("0\n1\nx1", TraceFormat::Packets, ms).unwrap_err().0, 3);
        assert_eq!(LossTrace::parse("# none", TraceFormat::Packets, ms).unwrap_err().0, 0);
    }

    #[test]
    fn timed_traces_lose_instants_and_periods() {
        let t = LossTrace::parse("10ms\n20ms 5ms\n", TraceFormat::Times, ms).unwrap();
        assert_eq!(t, LossTrace::Times(vec![(10_000_000, 10_000_000), (20_000_000, 25_000_000)]));
        let mut l = TraceLoss::new(Arc::new(t));
        let at = |m: u64| SimTime(m * 1_000_000);
        let got: Vec<bool> = [5, 12, 13, 19, 20, 24, 25, 40].iter().map(|&m| l.lose(at(m))).collect();
        assert_eq!(got, [false, true, false, false, true, true, false, false]);
        let e = LossTrace::parse("10ms\n5ms\n", TraceFormat::Times, ms).unwrap_err();
        assert_eq!(e.0, 2);
        let e = LossTrace::parse("10ms\n\nabc\n", TraceFormat::Times, ms).unwrap_err();
        assert_eq!(e.0, 3, "{e:?}");
    }
}

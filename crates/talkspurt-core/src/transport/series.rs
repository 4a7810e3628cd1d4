//! Per-endpoint time series (cwnd, RTT, allowed rate, …). Recording is a
//! branch on a flag when off.

use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub t: SimTime,
    pub name: &'static str,
    pub value: f64,
}

#[derive(Clone, Debug, Default)]
pub struct SeriesBuf {
    on: bool,
    samples: Vec<Sample>,
}

impl SeriesBuf {
    pub fn new(on: bool) -> Self {
        SeriesBuf { on, samples: Vec::new() }
    }
    #[inline]
    pub fn record(&mut self, t: SimTime, name: &'static str, value: f64) {
        if self.on {
            self.samples.push(Sample { t, name, value });
        }
    }
    pub fn take(&mut self) -> Vec<Sample> {
        std::mem::take(&mut self.samples)
    }
}

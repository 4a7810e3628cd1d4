//! Distributions of durations, parameterised by their mean so scenario
//! files read as the papers do ("talk 1 s, silence 1.5 s").

use super::Rng;
use crate::time::SimDuration;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DurationDist {
    Constant { mean: SimDuration },
    Exponential { mean: SimDuration },
    /// Shape k > 0.
    Weibull { shape: f64, mean: SimDuration },
    /// Shape alpha > 1 (a finite mean is needed to parameterise by mean).
    Pareto { shape: f64, mean: SimDuration },
}

impl DurationDist {
    pub fn mean(&self) -> SimDuration {
        match *self {
            DurationDist::Constant { mean }
            | DurationDist::Exponential { mean }
            | DurationDist::Weibull { mean, .. }
            | DurationDist::Pareto { mean, .. } => mean,
        }
    }

    /// One draw, rounded to the nanosecond.
    pub fn sample(&self, rng: &mut Rng) -> SimDuration {
        let m = self.mean().as_secs_f64();
        let s = match *self {
            DurationDist::Constant { .. } => m,
            DurationDist::Exponential { .. } => rng.exponential(m),
            DurationDist::Weibull { shape, .. } => rng.weibull_mean(shape, m),
            DurationDist::Pareto { shape, .. } => rng.pareto_mean(shape, m),
        };
        SimDuration::from_secs_f64(s.min(1e9))
    }
}

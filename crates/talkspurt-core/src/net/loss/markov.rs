//! Markov-modulated loss: the Gilbert–Elliott two-state channel and a
//! general k-state chain. One transition per packet, so "burst length" is
//! counted in packets (the packet-level reading of Gilbert 1960 and Elliott
//! 1963 used by ns-3's `BurstErrorModel`, netem's `gemodel` and RFC 3611
//! §4.7.2's burst metrics).

use crate::rng::Rng;

/// Two states, Good and Bad. Per packet: the packet is lost with the
/// current state's loss probability, then the state moves
/// (Good → Bad with probability `p`, Bad → Good with `r`).
///
/// Closed forms (docs/models/network.md): π_B = p / (p + r), long-run loss
/// `(1 − π_B)·loss_good + π_B·loss_bad`; with `loss_good = 0`,
/// `loss_bad = 1` (Gilbert's simple model) loss bursts are exactly the
/// Bad sojourns: geometric with mean 1 / r.
#[derive(Debug)]
pub struct GilbertElliott {
    p: f64,
    r: f64,
    loss_good: f64,
    loss_bad: f64,
    bad: bool,
    rng: Rng,
}

/// A draw with probability `x`, skipping the draw when `x` is 0 or 1 (the
/// simple Gilbert model then costs one draw per packet, as Bernoulli).
#[inline]
fn chance(rng: &mut Rng, x: f64) -> bool {
    if x <= 0.0 {
        false
    } else if x >= 1.0 {
        true
    } else {
        rng.bernoulli(x)
    }
}

impl GilbertElliott {
    /// The chain starts in a state drawn from its stationary distribution,
    /// so statistics hold from the first packet.
    pub fn new(p: f64, r: f64, loss_good: f64, loss_bad: f64, mut rng: Rng) -> Self {
        let pi_bad = if p + r > 0.0 { p / (p + r) } else { 0.0 };
        let bad = rng.bernoulli(pi_bad);
        GilbertElliott { p, r, loss_good, loss_bad, bad, rng }
    }

    /// Gilbert's simple model from a mean loss rate and a mean burst
    /// length in packets: r = 1 / burst, p = loss·r / (1 − loss).
    /// Needs 0 ≤ loss < 1, burst ≥ 1 and p ≤ 1 (see [`Self::simple_p`]).
    pub fn simple_p(loss: f64, burst: f64) -> f64 {
        loss / ((1.0 - loss) * burst)
    }

    #[inline]
    pub fn lose(&mut self) -> bool {
        let lost = chance(&mut self.rng, if self.bad { self.loss_bad } else { self.loss_good });
        let flip = if self.bad { self.r } else { self.p };
        if chance(&mut self.rng, flip) {
            self.bad = !self.bad;
        }
        lost
    }
}

/// A k-state chain: row `i` of `transition` gives the next state's
/// distribution from state `i`; `loss[i]` is the loss probability in state
/// `i`. Starts in state 0. Per packet, as Gilbert–Elliott: lose, then move.
#[derive(Debug)]
pub struct MarkovLoss {
    /// Row-wise cumulative transition probabilities, flattened (k × k).
    cum: Vec<f64>,
    loss: Vec<f64>,
    state: usize,
    rng: Rng,
}

impl MarkovLoss {
    /// `transition` rows must each sum to 1 (the scenario checks it).
    pub fn new(transition: &[Vec<f64>], loss: &[f64], rng: Rng) -> Self {
        let k = loss.len();
        let mut cum = Vec::with_capacity(k * k);
        for row in transition {
            let mut acc = 0.0;
            for &x in row {
                acc += x;
                cum.push(acc);
            }
        }
        MarkovLoss { cum, loss: loss.to_vec(), state: 0, rng }
    }

    #[inline]
    pub fn lose(&mut self) -> bool {
        let k = self.loss.len();
        let lost = chance(&mut self.rng, self.loss[self.state]);
        let u = self.rng.uniform();
        let row = &self.cum[self.state * k..(self.state + 1) * k];
        // Rounding may leave the last cumulative value a hair under 1.
        self.state = row.iter().position(|&c| u < c).unwrap_or(k - 1);
        lost
    }
}

/// The stationary distribution of a k-state chain (power iteration; the
/// scenario's chains are small). Used by the docs' closed forms and tests.
pub fn stationary(transition: &[Vec<f64>]) -> Vec<f64> {
    let k = transition.len();
    let mut pi = vec![1.0 / k as f64; k];
    for _ in 0..100_000 {
        let mut next = vec![0.0; k];
        for (i, row) in transition.iter().enumerate() {
            for (j, &x) in row.iter().enumerate() {
                next[j] += pi[i] * x;
            }
        }
        // Lazy step (average with the old vector) so periodic chains converge too.
        let next: Vec<f64> = next.iter().zip(&pi).map(|(a, b)| 0.5 * (a + b)).collect();
        let delta: f64 = next.iter().zip(&pi).map(|(a, b)| (a - b).abs()).sum();
        pi = next;
        if delta < 1e-15 {
            break;
        }
    }
    pi
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamId;

    const N: usize = 1_000_000;

    /// Loss bursts (maximal runs of consecutive losses) of a packet sequence.
    fn bursts(mut lose: impl FnMut() -> bool) -> (usize, Vec<usize>) {
        let (mut lost, mut run, mut out) = (0, 0, Vec::new());
        for _ in 0..N {
            if lose() {
                lost += 1;
                run += 1;
            } else if run > 0 {
                out.push(run);
                run = 0;
            }
        }
        (lost, out)
    }

    /// Gilbert's simple model over 10⁶ packets: loss rate and mean burst
    /// length within 2 % of π_B = p/(p+r) and 1/r (the tolerance;
    /// with these parameters the sampling error of either is ~1 %), and
    /// burst lengths geometric: P(len = k) = (1 − r)^(k−1)·r within 3
    /// binomial standard errors for k = 1..6, and a χ² goodness of fit.
    #[test]
    fn gilbert_matches_closed_forms() {
        let seed = 20240611;
        let (loss, burst) = (0.05, 3.0);
        let r = 1.0 / burst;
        let p = GilbertElliott::simple_p(loss, burst);
        let mut g = GilbertElliott::new(p, r, 0.0, 1.0, Rng::stream(seed, 0, StreamId::new(99, 1)));
        let (lost, b) = bursts(|| g.lose());
        let rate = lost as f64 / N as f64;
        let want = p / (p + r);
        assert!((want - loss).abs() < 1e-12);
        assert!((rate - want).abs() / want < 0.02, "seed {seed}: loss {rate} vs {want}");
        let mean = b.iter().sum::<usize>() as f64 / b.len() as f64;
        assert!((mean - burst).abs() / burst < 0.02, "seed {seed}: mean burst {mean} vs {burst}");
        // Geometric shape: χ² over k = 1..10 plus a tail bin, 10 degrees of
        // freedom; the 0.1 % critical value is 29.6.
        let n = b.len() as f64;
        let mut counts = [0usize; 11];
        for &k in &b {
            counts[(k - 1).min(10)] += 1;
        }
        let mut chi2 = 0.0;
        for (i, &c) in counts.iter().enumerate() {
            let pk = if i < 10 { (1.0 - r).powi(i as i32) * r } else { (1.0 - r).powi(10) };
            let e = n * pk;
            chi2 += (c as f64 - e).powi(2) / e;
            if i < 6 {
                let se = (n * pk * (1.0 - pk)).sqrt();
                assert!((c as f64 - e).abs() < 3.0 * se + 1.0, "seed {seed}: P(len={}) count {c} vs {e}", i + 1);
            }
        }
        assert!(chi2 < 29.6, "seed {seed}: chi2 {chi2}");
    }

    /// General Gilbert–Elliott (loss in both states): long-run loss within
    /// 2 % of (1 − π_B)·loss_good + π_B·loss_bad over 10⁶ packets.
    #[test]
    fn gilbert_elliott_long_run_loss() {
        let seed = 7;
        let (p, r, lg, lb) = (0.01, 0.1, 0.002, 0.6);
        let mut g = GilbertElliott::new(p, r, lg, lb, Rng::stream(seed, 0, StreamId::new(99, 2)));
        let lost = (0..N).filter(|_| g.lose()).count();
        let pi_b = p / (p + r);
        let want = (1.0 - pi_b) * lg + pi_b * lb;
        let got = lost as f64 / N as f64;
        assert!((got - want).abs() / want < 0.02, "seed {seed}: loss {got} vs {want}");
    }

    /// A 3-state chain: long-run loss within 2 % of Σ π_i·loss_i.
    #[test]
    fn markov_long_run_loss() {
        let seed = 3;
        let t = vec![vec![0.98, 0.015, 0.005], vec![0.2, 0.7, 0.1], vec![0.1, 0.3, 0.6]];
        let loss = [0.0, 0.3, 0.9];
        let pi = stationary(&t);
        let want: f64 = pi.iter().zip(&loss).map(|(a, b)| a * b).sum();
        let mut m = MarkovLoss::new(&t, &loss, Rng::stream(seed, 0, StreamId::new(99, 3)));
        let lost = (0..N).filter(|_| m.lose()).count();
        let got = lost as f64 / N as f64;
        assert!((got - want).abs() / want < 0.02, "seed {seed}: loss {got} vs {want} (pi {pi:?})");
        // The 2-state chain with loss [0, 1] is Gilbert's: same closed form.
        let pi2 = stationary(&[vec![0.9, 0.1], vec![0.4, 0.6]]);
        assert!((pi2[1] - 0.1 / 0.5).abs() < 1e-9);
    }
}

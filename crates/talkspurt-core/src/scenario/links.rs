//! Checks of a link direction's models that no single value can make:
//! a Gilbert–Elliott table's two parameterisations, a Markov chain's
//! matrix, trace files (read here, errors with their line number). Called
//! by validate/ with the key path of the table as written.

use std::sync::Arc;

use super::error::ScenarioError;
use super::doc::ChannelDoc;
use super::model::{BackgroundCfg, LossAt, QueueCfg, QueueLimit, JitterCfg, LossCfg, ScheduleCfg, ScheduleData, ScheduleFormat, StepCfg, TraceFormatCfg};
use super::units;
use super::validate::Ctx;
use crate::time::SimDuration;
use crate::net::capacity::{parse_mahimahi, Deliveries};
use crate::net::loss::{GilbertElliott, LossTrace, TraceFormat};

type R<T> = Result<T, ScenarioError>;

/// Rows of a transition matrix sum to 1 within this (written decimals).
const ROW_SUM_TOL: f64 = 1e-9;

pub(super) fn loss(cx: &Ctx, p: &str, cfg: &mut LossCfg) -> R<()> {
    match cfg {
        LossCfg::GilbertElliott { p: gp, r, mean_loss, mean_burst, .. } => {
            match (*gp, *r, *mean_loss, *mean_burst) {
                (Some(_), Some(_), None, None) => {}
                (None, None, Some(l), Some(b)) => {
                    let gp = GilbertElliott::simple_p(l, b);
                    if gp > 1.0 {
                        return Err(cx.err(
                            &format!("{p}.mean_loss"),
                            format!(
                                "a mean loss with mean_loss/(1 − mean_loss) <= mean_burst ({b}), so that \
                                 p = mean_loss/((1 − mean_loss)·mean_burst) <= 1"
                            ),
                        ));
                    }
                }
                _ => {
                    let bad = [("p", gp.is_some()), ("r", r.is_some()), ("mean_loss", mean_loss.is_some()), ("mean_burst", mean_burst.is_some())];
                    let first = bad.iter().find(|(_, g)| *g).map_or("p", |(k, _)| k);
                    return Err(cx.err(
                        &format!("{p}.{first}"),
                        "either p and r (transition probabilities), or mean_loss and mean_burst \
                         (Gilbert's simple model), not a mix",
                    ));
                }
            }
        }
        LossCfg::Markov { transition, loss, .. } => {
            let k = transition.len();
            if k == 0 {
                return Err(cx.err(&format!("{p}.transition"), "a square matrix of at least one row"));
            }
            for (i, row) in transition.iter().enumerate() {
                if row.len() != k {
                    return Err(cx.err(&format!("{p}.transition[{i}]"), format!("a row of {k} probabilities (the matrix is {k} × {k})")));
                }
                for (j, &x) in row.iter().enumerate() {
                    if !(0.0..=1.0).contains(&x) {
                        return Err(cx.err(&format!("{p}.transition[{i}][{j}]"), "a probability with 0 <= p <= 1"));
                    }
                }
                let sum: f64 = row.iter().sum();
                if (sum - 1.0).abs() > ROW_SUM_TOL {
                    return Err(cx.err(&format!("{p}.transition[{i}]"), format!("a row summing to 1 (it sums to {sum})")));
                }
            }
            if loss.len() != k {
                return Err(cx.err(&format!("{p}.loss"), format!("{k} loss probabilities, one per state")));
            }
            for (i, &x) in loss.iter().enumerate() {
                if !(0.0..=1.0).contains(&x) {
                    return Err(cx.err(&format!("{p}.loss[{i}]"), "a probability with 0 <= p <= 1"));
                }
            }
        }
        LossCfg::Trace { file, format, data, .. } => {
            let fmt = match format {
                TraceFormatCfg::Packets => TraceFormat::Packets,
                TraceFormatCfg::Times => TraceFormat::Times,
            };
            let text = read(cx, &format!("{p}.file"), file)?;
            let parsed = LossTrace::parse(&text, fmt, |s| units::parse_duration(s).map(|d| d.0))
                .map_err(|e| file_error(cx, &format!("{p}.file"), file, e))?;
            *data = Arc::new(parsed);
        }
        _ => {}
    }
    Ok(())
}

/// A trace file's text, or an error naming the key and the OS's reason.
pub(super) fn read(cx: &Ctx, key: &str, file: &str) -> R<String> {
    std::fs::read_to_string(file).map_err(|e| {
        cx.err(key, format!("a readable trace file ({file}: {e}; relative paths start at the working directory)"))
    })
}

/// A parse failure at a line of a trace file.
pub(super) fn file_error(cx: &Ctx, key: &str, file: &str, (line, why): (usize, String)) -> ScenarioError {
    if line == 0 {
        cx.err(key, format!("a trace file with entries ({file}: {why})"))
    } else {
        cx.err(key, format!("a trace file that parses ({file}, line {line}: {why})"))
    }
}

/// A schedule: steps or a file, steps in time order, within `repeat`.
/// Reads the file. Returns the mean rate of a mahimahi trace (it sets
/// the capacity), else None.
pub(super) fn schedule(cx: &Ctx, p: &str, s: &mut ScheduleCfg) -> R<Option<u64>> {
    let mut mean = None;
    match (&s.file, s.steps.is_empty()) {
        (Some(_), false) => return Err(cx.err(&format!("{p}.file"), "either steps or a file, not both")),
        (None, true) => return Err(cx.err(p, "steps = [{ at = \"40s\", rate = \"2.5Mbps\" }, …] or a file")),
        (None, false) => check_steps(cx, &s.steps, s.repeat.is_some(), |i| format!("{p}.steps[{i}]"))?,
        (Some(file), true) => {
            let key = format!("{p}.file");
            let text = read(cx, &key, file)?;
            s.data = Arc::new(match s.format {
                ScheduleFormat::Mahimahi => {
                    if s.repeat.is_some() {
                        return Err(cx.err(&format!("{p}.repeat"), "no repeat with a mahimahi trace (it loops at its last timestamp)"));
                    }
                    let (times, period) = parse_mahimahi(&text).map_err(|e| file_error(cx, &key, file, e))?;
                    mean = Some(Deliveries::mean_rate_bps(&times, period));
                    ScheduleData::Mahimahi(times, period)
                }
                ScheduleFormat::Steps => {
                    let steps = parse_steps(&text).map_err(|e| file_error(cx, &key, file, e))?;
                    check_steps(cx, &steps, s.repeat.is_some(), |i| format!("{key} (step {})", i + 1))?;
                    ScheduleData::Steps(steps)
                }
            });
        }
    }
    let steps = match &*s.data {
        ScheduleData::Steps(v) => v.as_slice(),
        _ => s.steps.as_slice(),
    };
    if let (Some(rep), Some(last)) = (s.repeat, steps.last()) {
        if last.at >= rep {
            return Err(cx.err(&format!("{p}.repeat"), format!("a period after the last step ({})", units::format_duration(last.at))));
        }
    }
    Ok(mean)
}

/// Steps in time order, each setting something; a zero rate (an outage)
/// must be followed by a positive one: without `repeat` the last rate
/// holds for ever, with it some rate of the cycle (the link's own `rate`
/// from 0 unless a step at 0 s replaces it) is positive. Otherwise a
/// packet would never finish serializing.
fn check_steps(cx: &Ctx, steps: &[StepCfg], repeat: bool, name: impl Fn(usize) -> String) -> R<()> {
    for (i, st) in steps.iter().enumerate() {
        if st.rate.is_none() && st.delay.is_none() {
            return Err(cx.err(&name(i), "a step that sets rate, delay or both"));
        }
        if i > 0 && st.at <= steps[i - 1].at {
            return Err(cx.err(&format!("{}.at", name(i)), format!("a time after the previous step's ({})", units::format_duration(steps[i - 1].at))));
        }
    }
    let rated: Vec<(usize, u64)> = steps.iter().enumerate().filter_map(|(i, st)| st.rate.map(|r| (i, r))).collect();
    let Some(&(last, last_rate)) = rated.last() else { return Ok(()) };
    let base_replaced = rated.first().is_some_and(|&(i, _)| steps[i].at == SimDuration::ZERO);
    let stuck = if repeat { base_replaced && rated.iter().all(|&(_, r)| r == 0) } else { last_rate == 0 };
    if stuck {
        let why = if repeat {
            "a rate above 0 somewhere in the repeated schedule (an outage must end)"
        } else {
            "a rate above 0: the last rate holds to the end of the run, so an outage (0) needs a later step, or repeat"
        };
        return Err(cx.err(&format!("{}.rate", name(last)), why));
    }
    Ok(())
}

/// A `steps` schedule file: `<at> [<rate>] [<delay>]` per line, units as in
/// the scenario (`40s 2.5Mbps 50ms`); `#` comments.
fn parse_steps(text: &str) -> Result<Vec<StepCfg>, (usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let words: Vec<&str> = line.split('#').next().unwrap_or("").split_whitespace().collect();
        let Some((first, rest)) = words.split_first() else { continue };
        let at = units::parse_duration(first).map_err(|e| (i + 1, format!("\"{first}\": {e}")))?;
        let mut step = StepCfg { at, rate: None, delay: None };
        for w in rest {
            if let Ok(r) = units::parse_step_rate(w) {
                step.rate = Some(r);
            } else if let Ok(d) = units::parse_duration(w) {
                step.delay = Some(d);
            } else {
                return Err((i + 1, format!("\"{w}\" is neither a rate (\"2.5Mbps\") nor a delay (\"50ms\")")));
            }
        }
        out.push(step);
    }
    if out.is_empty() {
        return Err((0, "no steps (a line `<at> [<rate>] [<delay>]` per step)".into()));
    }
    Ok(out)
}

/// Jitter bounds in order.
pub(super) fn jitter(cx: &Ctx, p: &str, j: &JitterCfg) -> R<()> {
    match *j {
        JitterCfg::Uniform { min, max, .. } if max <= min => {
            Err(cx.err(&format!("{p}.max"), format!("a bound above min ({})", units::format_duration(min))))
        }
        JitterCfg::Normal { mean, min, max, .. } => {
            if let Some(lo) = min.filter(|&lo| lo > mean) {
                let _ = lo;
                return Err(cx.err(&format!("{p}.min"), format!("a bound at most mean ({})", units::format_duration(mean))));
            }
            if let Some(hi) = max.filter(|&hi| hi < mean) {
                let _ = hi;
                return Err(cx.err(&format!("{p}.max"), format!("a bound at least mean ({})", units::format_duration(mean))));
            }
            Ok(())
        }
        JitterCfg::Bursty { stall, stall_every: Some(every), .. } if every <= stall => Err(cx.err(
            &format!("{p}.stall_every"),
            format!("a mean time between stalls longer than the stall ({})", units::format_duration(stall)),
        )),
        _ => Ok(()),
    }
}

pub(super) const PROFILES: &str = "one of the link profiles satellite-ipstar, satellite-bgan, wireless-per";

/// Named link profiles: (forward, reverse) defaults, `forward` being
/// between[0] → between[1]. For the satellite profiles between[0] is the
/// gateway (Internet) side and between[1] the user terminal, so forward is
/// the downlink. Figures and their reading: docs/models/network.md.
pub(super) fn profile(name: &str) -> Option<(ChannelDoc, ChannelDoc)> {
    let ms = SimDuration::from_millis;
    let dir = |rate: u64, delay: SimDuration, loss: LossCfg, jitter: JitterCfg| ChannelDoc {
        rate: Some(rate),
        delay: Some(delay),
        loss: Some(loss),
        jitter: Some(jitter),
        ..Default::default()
    };
    // Seed 003 §4: "operating bit error rate (BER) of 10^-7" (IPSTAR).
    let ber = LossCfg::Ber { ber: 1e-7, at: LossAt::Wire };
    match name {
        "satellite-ipstar" => {
            // Seed 003 §4: 1 Mb/s down, 256 kb/s up, RTT > 1 s; Table 4:
            // receiver jitter 30.6 ms mean, 862 ms max; §7.2: P(jitter >
            // 400 ms) = 0.01 %. One-way 470 ms + ≈ 26 ms mean burst wait
            // each way gives RTT ≈ 1 s.
            let bursty = JitterCfg::Bursty { interval: ms(26), stall: ms(900), stall_every: Some(SimDuration::from_secs(400)) };
            // §4: the beam is shared ("oversubscription on each satellite
            // channel"), with "both congestion and errors on the link,
            // although the congestion … is low". The other users' load on
            // the downlink is an on/off source sharing a 25-packet queue,
            // CALIBRATED (the paper gives no figure) to Table 3's UDP rows:
            // G.711 0.15 %, G.729 0.1 %, 12 G.711 calls 1.55 %, the last
            // as the IAX2 trunk it is (one 2028 B packet per 20 ms;
            // docs/models/trunk.md). Measured, runs of 10 min: 0.168,
            // 0.081, 1.61 % over seeds 1-12 (the fit); 0.146, 0.068,
            // 1.52 % over seeds 13-32 (held out). Episodes of 3 s at
            // 1.0 Mb/s (other users fill the 1 Mb/s plan), one per 68 s:
            // 44 kb/s mean, 4.4 % of the time.
            // The queue holds 300 ms of 1500 B packets, under the 400 ms
            // buffer the paper's P_J of 0.01 % implies is rarely exceeded
            // (§7.2); 50 packets (600 ms) made 0.57 % of G.711 packets late.
            // docs/models/network.md, "Seed 003's beam congestion".
            let mut down = dir(1_000_000, ms(470), ber.clone(), bursty.clone());
            down.queue = Some(QueueCfg::DropTail { limit: QueueLimit::Packets(25), series: false });
            down.background = Some(BackgroundCfg::OnOff {
                rate: 1_000_000,
                packet: 1500,
                on: SimDuration::from_secs(3),
                off: SimDuration::from_secs(65),
            });
            Some((down, dir(256_000, ms(470), ber, bursty)))
        }
        "satellite-bgan" => {
            // Seed 003 §4: 492 kb/s both ways, RTT > 1.3 s, "very occasional
            // packet errors" (read as IPSTAR's BER); no jitter figures.
            let d = dir(492_000, ms(650), ber, JitterCfg::None);
            Some((d.clone(), d))
        }
        "wireless-per" => {
            // Seed 002: 1 % packet error rate on the wireless access links,
            // both ways. Rate and delay come from the link's own keys.
            let d = ChannelDoc { loss: Some(LossCfg::Bernoulli { p: 0.01, at: LossAt::Wire }), ..Default::default() };
            Some((d.clone(), d))
        }
        _ => None,
    }
}

//! Checks of a link direction's models that no single value can make:
//! a Gilbert–Elliott table's two parameterisations, a Markov chain's
//! matrix, trace files (read here, errors with their line number). Called
//! by validate.rs with the key path of the table as written.

use std::sync::Arc;

use super::error::ScenarioError;
use super::model::{LossCfg, TraceFormatCfg};
use super::units;
use super::validate::Ctx;
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

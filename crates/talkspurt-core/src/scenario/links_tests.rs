//! Tests of the link models' keys: loss models (Gilbert–Elliott, Markov,
//! trace files), their placement, and their bad-input corpus.
use super::tests::{check_all, with};
use super::*;
use crate::scenario::model::*;
use crate::net::loss::LossTrace;

fn loss_of(table: &str) -> LossCfg {
    let src = with("link", &format!("loss = {table}"));
    let s = from_toml_str(&src).unwrap_or_else(|e| panic!("{table}: {e}"));
    s.links[0].forward.loss.clone()
}

/// A file under the target's temp dir, unique per test.
pub(super) fn temp_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("talkspurt-links-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn loss_models_read_and_round_trip() {
    let g = loss_of("{ kind = \"gilbert-elliott\", mean_loss = 0.02, mean_burst = 2.5, at = \"enqueue\" }");
    assert_eq!(
        g,
        LossCfg::GilbertElliott {
            p: None,
            r: None,
            loss_good: 0.0,
            loss_bad: 1.0,
            mean_loss: Some(0.02),
            mean_burst: Some(2.5),
            at: LossAt::Enqueue
        }
    );
    let m = loss_of("{ kind = \"markov\", transition = [[0.9, 0.1], [0.5, 0.5]], loss = [0, 1] }");
    assert!(matches!(m, LossCfg::Markov { ref loss, at: LossAt::Wire, .. } if loss == &[0.0, 1.0]));
    let f = temp_file("rt.loss", "0 0 1\n");
    let t = loss_of(&format!("{{ kind = \"trace\", file = \"{f}\" }}"));
    match &t {
        LossCfg::Trace { data, .. } => assert_eq!(**data, LossTrace::Packets(vec![false, false, true])),
        other => panic!("{other:?}"),
    }
    // to_json writes what was read; reading it back gives the same model.
    for src in [
        with("link", "loss = { kind = \"gilbert-elliott\", p = 0.01, r = 0.3, loss_good = 0.001 }"),
        with("link", "loss = { kind = \"ber\", ber = 1e-7 }"),
        with("link", &format!("loss = {{ kind = \"trace\", file = \"{f}\", at = \"enqueue\" }}")),
    ] {
        let s = from_toml_str(&src).unwrap();
        assert_eq!(from_value(&to_json(&s)).unwrap(), s, "{src}");
    }
}

#[test]
fn loss_model_errors_name_the_key() {
    let f = temp_file("bad.loss", "0\n1\n2\n");
    let t = temp_file("bad.times", "1s 10ms\n500ms\n");
    let cases: &[(String, &str, &str)] = &[
        (with("link", "loss = { kind = \"gilbert-elliott\", p = 1.5, r = 0.1 }"), "links[0].loss.p", "0 <= p <= 1"),
        (with("link", "loss = { kind = \"gilbert-elliott\", p = 0.1, r = -0.1 }"), "links[0].loss.r", "0 <= p <= 1"),
        (
            with("link", "loss = { kind = \"gilbert-elliott\", p = 0.1, r = 0.2, loss_bad = 2 }"),
            "links[0].loss.loss_bad",
            "0 <= p <= 1",
        ),
        (with("link", "loss = { kind = \"gilbert-elliott\", p = 0.1 }"), "links[0].loss.p", "either p and r"),
        (
            with("link", "loss = { kind = \"gilbert-elliott\", p = 0.1, r = 0.1, mean_loss = 0.01 }"),
            "links[0].loss.p",
            "not a mix",
        ),
        (
            with("link", "loss = { kind = \"gilbert-elliott\", mean_loss = 0.01, mean_burst = 0.5 }"),
            "links[0].loss.mean_burst",
            ">= 1",
        ),
        (
            with("link", "loss = { kind = \"gilbert-elliott\", mean_loss = 0.9, mean_burst = 2 }"),
            "links[0].loss.mean_loss",
            "p = mean_loss/((1 − mean_loss)·mean_burst) <= 1",
        ),
        (
            with("link", "loss = { kind = \"markov\", transition = [[0.9, 0.2], [0.5, 0.5]], loss = [0, 1] }"),
            "links[0].loss.transition[0]",
            "summing to 1",
        ),
        (
            with("link", "loss = { kind = \"markov\", transition = [[1.1, -0.1], [0.5, 0.5]], loss = [0, 1] }"),
            "links[0].loss.transition[0][0]",
            "0 <= p <= 1",
        ),
        (
            with("link", "loss = { kind = \"markov\", transition = [[1], [0.5, 0.5]], loss = [0, 1] }"),
            "links[0].loss.transition[0]",
            "a row of 2",
        ),
        (
            with("link", "loss = { kind = \"markov\", transition = [[1, 0], [0.5, 0.5]], loss = [0] }"),
            "links[0].loss.loss",
            "2 loss probabilities",
        ),
        (
            with("link", "loss = { kind = \"markov\", transition = [[1, 0], [0.5, 0.5]], loss = [0, 1.2] }"),
            "links[0].loss.loss[1]",
            "0 <= p <= 1",
        ),
        (with("link", "loss = { kind = \"ber\", ber = 1 }"), "links[0].loss.ber", "0 <= p < 1"),
        (
            with("link", "loss = { kind = \"trace\", file = \"/nonexistent/x.loss\" }"),
            "links[0].loss.file",
            "a readable trace file (/nonexistent/x.loss",
        ),
        (with("link", &format!("loss = {{ kind = \"trace\", file = \"{f}\" }}")), "links[0].loss.file", "line 3"),
        (
            with("link", &format!("loss = {{ kind = \"trace\", file = \"{t}\", format = \"times\" }}")),
            "links[0].loss.file",
            "line 2: a start no earlier",
        ),
        (
            with("link", &format!("loss = {{ kind = \"trace\", file = \"{f}\", format = \"bits\" }}")),
            "links[0].loss.format",
            "\"packets\", \"times\"",
        ),
        (with("link", "loss = { kind = \"bernoulli\", p = 0.1, at = \"queue\" }"), "links[0].loss.at", "\"enqueue\", \"wire\""),
        (
            with("link", "reverse = { loss = { kind = \"gilbert-elliott\", p = 2, r = 0.5 } }"),
            "links[0].reverse.loss.p",
            "0 <= p <= 1",
        ),
        (
            with("link", "forward = { loss = { kind = \"markov\", transition = [[0.5]], loss = [0] } }"),
            "links[0].forward.loss.transition[0]",
            "summing to 1",
        ),
    ];
    check_all(cases);
}

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

#[test]
fn jitter_and_schedule_read_and_round_trip() {
    let mm = temp_file("cell.mahi", "1\n1\n2\n4\n");
    let st = temp_file("steps.txt", "# at rate delay\n0s 1Mbps\n40s 2.5Mbps 60ms\n60s 600kbps\n");
    let outage = temp_file("outage.txt", "2s 0bps\n3s 1Mbps\n");
    for src in [
        with("link", "jitter = { kind = \"uniform\", max = \"40ms\" }"),
        with("link", "jitter = { kind = \"normal\", mean = \"20ms\", sd = \"5ms\", reorder = true }"),
        with("link", "jitter = { kind = \"bursty\", interval = \"26ms\", stall_every = \"400s\" }"),
        with("link", "schedule = { steps = [{ at = \"40s\", rate = \"2.5Mbps\" }, { at = \"60s\", delay = \"80ms\" }], repeat = \"100s\" }"),
        with("link", &format!("schedule = {{ file = \"{st}\", format = \"steps\" }}")),
        // Outages: a zero rate that a positive one follows, or in a cycle
        // whose link rate (from 0) is positive.
        with("link", "schedule = { steps = [{ at = \"4s\", rate = \"0bps\" }, { at = \"5s\", rate = \"1Mbps\" }] }"),
        with("link", "schedule = { steps = [{ at = \"4s\", rate = \"0kbps\" }], repeat = \"6s\" }"),
        with("link", &format!("schedule = {{ file = \"{outage}\", format = \"steps\" }}")),
        format!("{}[[links]]\nbetween = [\"a\", \"b\"]\nschedule = {{ file = \"{mm}\" }}\n{}", "[run]\nduration = \"10s\"\n", "[[calls]]\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.711\"\n"),
    ] {
        let s = from_toml_str(&src).unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(from_value(&to_json(&s)).unwrap(), s, "{src}");
    }
    // A mahimahi trace's mean rate is the nominal rate: 4 × 1504 B per 4 ms.
    let src = format!("[run]\nduration = \"10s\"\n[[links]]\nbetween = [\"a\", \"b\"]\nschedule = {{ file = \"{mm}\" }}\n[[calls]]\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.711\"\n");
    let s = from_toml_str(&src).unwrap();
    assert_eq!(s.links[0].forward.rate_bps, 4 * 1504 * 8 * 250);
}

#[test]
fn jitter_and_schedule_errors_name_the_key() {
    let bad_mm = temp_file("bad.mahi", "1\n2\nfoo\n");
    let bad_st = temp_file("bad.steps", "0s 1Mbps\n10s fast\n");
    let cases: &[(String, &str, &str)] = &[
        (with("link", "jitter = { kind = \"uniform\", min = \"50ms\", max = \"40ms\" }"), "links[0].jitter.max", "above min (50ms)"),
        (with("link", "jitter = { kind = \"normal\", mean = \"20ms\", sd = \"0ms\" }"), "links[0].jitter.sd", "positive duration"),
        (with("link", "jitter = { kind = \"normal\", mean = \"20ms\", sd = \"5ms\", max = \"10ms\" }"), "links[0].jitter.max", "at least mean"),
        (
            with("link", "jitter = { kind = \"bursty\", interval = \"26ms\", stall = \"1s\", stall_every = \"500ms\" }"),
            "links[0].jitter.stall_every",
            "longer than the stall (1s)",
        ),
        (with("link", "jitter = { kind = \"gauss\" }"), "links[0].jitter.kind", "\"uniform\", \"normal\", \"bursty\""),
        (with("link", "schedule = { }"), "links[0].schedule", "steps = "),
        (
            with("link", "schedule = { steps = [{ at = \"40s\", rate = \"2Mbps\" }, { at = \"30s\", rate = \"1Mbps\" }] }"),
            "links[0].schedule.steps[1].at",
            "after the previous step's (40s)",
        ),
        (with("link", "schedule = { steps = [{ at = \"40s\" }] }"), "links[0].schedule.steps[0]", "sets rate, delay or both"),
        (
            with("link", "schedule = { steps = [{ at = \"40s\", rate = \"2Mbps\" }], repeat = \"30s\" }"),
            "links[0].schedule.repeat",
            "after the last step (40s)",
        ),
        (with("link", "schedule = { steps = [{ at = \"4s\", rate = \"fast\" }] }"), "links[0].schedule.steps[0].rate", "with a unit"),
        (with("link", "schedule = { file = \"/nonexistent/trace\" }"), "links[0].schedule.file", "a readable trace file"),
        (with("link", &format!("schedule = {{ file = \"{bad_mm}\" }}")), "links[0].schedule.file", "line 3"),
        (with("link", &format!("schedule = {{ file = \"{bad_st}\", format = \"steps\" }}")), "links[0].schedule.file", "line 2"),
        (
            with("link", &format!("schedule = {{ file = \"{bad_mm}\" }}")).replace("bad.mahi", "x"),
            "links[0].schedule.file",
            "readable",
        ),
        (
            with("link", "reverse = { schedule = { steps = [{ at = \"4s\" }] } }"),
            "links[0].reverse.schedule.steps[0]",
            "sets rate",
        ),
    ];
    check_all(cases);
    // An outage must end: no zero rate last, nor only zeros in a cycle.
    let dead = temp_file("dead.steps", "2s 1Mbps\n3s 0bps\n");
    check_all(&[
        (
            with("link", "schedule = { steps = [{ at = \"4s\", rate = \"0bps\" }] }"),
            "links[0].schedule.steps[0].rate",
            "an outage (0) needs a later step, or repeat",
        ),
        (
            with("link", "schedule = { steps = [{ at = \"0s\", rate = \"0bps\" }, { at = \"1s\", delay = \"5ms\" }], repeat = \"2s\" }"),
            "links[0].schedule.steps[0].rate",
            "somewhere in the repeated schedule",
        ),
        (with("link", &format!("schedule = {{ file = \"{dead}\", format = \"steps\" }}")), "links[0].schedule.file (step 2).rate", "a later step"),
        (with("link", "schedule = { steps = [{ at = \"4s\", rate = \"-1bps\" }] }"), "links[0].schedule.steps[0].rate", "positive"),
    ]);
    // A rate next to a mahimahi trace is an error naming the rate.
    let mm = temp_file("ok.mahi", "1\n2\n");
    let e = from_toml_str(&with("link", &format!("schedule = {{ file = \"{mm}\" }}"))).unwrap_err();
    assert!(e.to_string().contains("links[0].rate") && e.to_string().contains("mahimahi"), "{e}");
}

#[test]
fn profiles_fill_what_the_link_leaves_out() {
    let run = "[run]\nduration = \"10s\"\n";
    let call = "[[calls]]\nfrom = \"gw\"\nto = \"t\"\ncodec = \"G.711\"\n";
    let src = format!("{run}[[links]]\nbetween = [\"gw\", \"t\"]\nprofile = \"satellite-ipstar\"\nreverse = {{ delay = \"300ms\" }}\n{call}");
    let s = from_toml_str(&src).unwrap();
    let (f, r) = (&s.links[0].forward, &s.links[0].reverse);
    assert_eq!((f.rate_bps, r.rate_bps), (1_000_000, 256_000));
    assert_eq!((f.delay.0, r.delay.0), (470_000_000, 300_000_000));
    assert!(matches!(f.jitter, JitterCfg::Bursty { .. }) && matches!(f.loss, LossCfg::Ber { .. }));
    assert_eq!(from_value(&to_json(&s)).unwrap(), s);
    let src = format!("{run}[[links]]\nbetween = [\"gw\", \"t\"]\nprofile = \"wireless-per\"\nrate = \"2Mbps\"\n{call}");
    let s = from_toml_str(&src).unwrap();
    assert_eq!(s.links[0].reverse.loss, LossCfg::Bernoulli { p: 0.01, at: LossAt::Wire });
    let cases: &[(String, &str, &str)] = &[
        (with("link", "profile = \"geo\""), "links[0].profile", "satellite-ipstar, satellite-bgan, wireless-per"),
        (
            format!("{run}[[links]]\nbetween = [\"gw\", \"t\"]\nprofile = \"wireless-per\"\n{call}"),
            "links[0].rate",
            "a rate with a unit",
        ),
    ];
    check_all(cases);
}

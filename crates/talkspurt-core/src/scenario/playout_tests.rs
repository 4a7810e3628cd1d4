//! Tests of the `playout`, `advantage` and `[analysis]` keys: each playout
//! kind with its defaults and with every parameter given, the bad-input
//! corpus with exact key paths, and no panics on any value.
use super::tests::{check_all, ms, with};
use super::*;
use crate::playout::{
    FixedDelay, FixedDepth, PlayoutKind, QuantileBuffer, RamjeeAsymmetric, RamjeeEwma, RamjeeMinDelay,
    RamjeeSpike,
};
use crate::scenario::model::*;

/// The first call group's playout, parsed from `playout = <table>`.
fn parse_playout(table: &str) -> PlayoutKind {
    let src = with("call", &format!("playout = {table}"));
    from_toml_str(&src).unwrap_or_else(|e| panic!("{table}: {e}")).calls[0].playout.clone()
}

#[test]
fn every_kind_parses_with_its_defaults() {
    // The documented defaults (docs/scenario.md), written out, not taken
    // from the structs: a changed default must show up here.
    let ramjee_alpha = 0.998002;
    let cases = [
        ("{}", PlayoutKind::Fixed(FixedDelay { delay: ms(150).0 })),
        ("{ kind = \"fixed\" }", PlayoutKind::Fixed(FixedDelay { delay: ms(150).0 })),
        (
            // G.711 in `with`: ptime 20 ms, filled in from the call.
            "{ kind = \"fixed-depth\" }",
            PlayoutKind::FixedDepth(FixedDepth { depth_packets: 2, ptime: Some(ms(20).0) }),
        ),
        (
            "{ kind = \"ramjee-1\" }",
            PlayoutKind::RamjeeEwma(RamjeeEwma { alpha: ramjee_alpha, beta: 4.0, initial_variation: None }),
        ),
        (
            "{ kind = \"ramjee-2\" }",
            PlayoutKind::RamjeeAsymmetric(RamjeeAsymmetric {
                alpha: ramjee_alpha,
                alpha_increase: 0.75,
                beta: 4.0,
                initial_variation: None,
            }),
        ),
        (
            "{ kind = \"ramjee-3\" }",
            PlayoutKind::RamjeeMinDelay(RamjeeMinDelay {
                alpha: ramjee_alpha,
                beta: 4.0,
                initial_variation: None,
            }),
        ),
        (
            "{ kind = \"ramjee-4\" }",
            PlayoutKind::RamjeeSpike(RamjeeSpike {
                alpha: 0.875,
                beta: 4.0,
                spike_threshold: ms(100).0,
                spike_end: 7_875_000,
                initial_variation: None,
            }),
        ),
        (
            "{ kind = \"quantile\" }",
            PlayoutKind::Quantile(QuantileBuffer {
                quantile: 0.95,
                window: 100,
                min_depth: 0,
                max_depth: ms(4000).0,
                min_packets: 1,
                ptime: Some(ms(20).0),
            }),
        ),
    ];
    for (table, expected) in &cases {
        assert_eq!(&parse_playout(table), expected, "{table}");
    }
    // No playout table at all: fixed 150 ms.
    assert_eq!(from_toml_str(&with("call", "")).unwrap().calls[0].playout, cases[0].1);
    // fixed-depth follows the call's ptime, given or codec default.
    let s = from_toml_str(&with("call", "ptime = \"40ms\"\nplayout = { kind = \"fixed-depth\" }")).unwrap();
    assert_eq!(
        s.calls[0].playout,
        PlayoutKind::FixedDepth(FixedDepth { depth_packets: 2, ptime: Some(ms(40).0) })
    );
    let s =
        from_toml_str(&with("call", "playout = { kind = \"fixed-depth\" }").replace("G.711", "G.723.1-6.3"))
            .unwrap();
    assert_eq!(
        s.calls[0].playout,
        PlayoutKind::FixedDepth(FixedDepth { depth_packets: 2, ptime: Some(ms(30).0) })
    );
}

#[test]
fn every_kind_parses_with_every_parameter_given() {
    let cases = [
        ("{ kind = \"fixed\", delay = \"80ms\" }", PlayoutKind::Fixed(FixedDelay { delay: ms(80).0 })),
        (
            "{ kind = \"fixed-depth\", depth = 3, ptime = \"10ms\" }",
            PlayoutKind::FixedDepth(FixedDepth { depth_packets: 3, ptime: Some(ms(10).0) }),
        ),
        (
            "{ kind = \"ramjee-1\", alpha = 0.9, beta = 3, initial_variation = \"5ms\" }",
            PlayoutKind::RamjeeEwma(RamjeeEwma { alpha: 0.9, beta: 3.0, initial_variation: Some(ms(5).0) }),
        ),
        (
            "{ kind = \"ramjee-2\", alpha = 0.99, alpha_increase = 0.5, beta = 2.5, initial_variation = \"1ms\" }",
            PlayoutKind::RamjeeAsymmetric(RamjeeAsymmetric {
                alpha: 0.99,
                alpha_increase: 0.5,
                beta: 2.5,
                initial_variation: Some(ms(1).0),
            }),
        ),
        (
            "{ kind = \"ramjee-3\", alpha = 0, beta = 6, initial_variation = \"2.5ms\" }",
            PlayoutKind::RamjeeMinDelay(RamjeeMinDelay { alpha: 0.0, beta: 6.0, initial_variation: Some(2_500_000) }),
        ),
        (
            "{ kind = \"ramjee-4\", alpha = 0.8, beta = 5, spike_threshold = \"50ms\", spike_end = \"5ms\", \
             initial_variation = \"3ms\" }",
            PlayoutKind::RamjeeSpike(RamjeeSpike {
                alpha: 0.8,
                beta: 5.0,
                spike_threshold: ms(50).0,
                spike_end: ms(5).0,
                initial_variation: Some(ms(3).0),
            }),
        ),
        (
            "{ kind = \"quantile\", quantile = 1, window = 50, min_depth = \"10ms\", max_depth = \"10ms\", \
             min_packets = 0, ptime = \"30ms\" }",
            PlayoutKind::Quantile(QuantileBuffer {
                quantile: 1.0,
                window: 50,
                min_depth: ms(10).0,
                max_depth: ms(10).0,
                min_packets: 0,
                ptime: Some(ms(30).0),
            }),
        ),
    ];
    for (table, expected) in cases {
        assert_eq!(parse_playout(table), expected, "{table}");
    }
}

#[test]
fn advantage_and_analysis_parse() {
    let s = from_toml_str(&with("call", "")).unwrap();
    assert_eq!((s.calls[0].advantage, &s.analysis), (0.0, &AnalysisCfg::default()));
    for (text, a) in [("advantage = 10", 10.0), ("advantage = 12.5", 12.5), ("advantage = 40", 40.0)] {
        assert_eq!(from_toml_str(&with("call", text)).unwrap().calls[0].advantage, a, "{text}");
    }
    let s = from_toml_str(&with(
        "top",
        "[analysis]\nrtpi_threshold = \"100ms\"\nrtpi_missing = \"previous-arrival\"\nrtpi_silence = \"exclude\"\nwindow = 50\n\
         bounds = false\njitter_threshold = \"250ms\"\nrun_cap = 1\ndelay = \"avella\"\nscoring = \"streaming\"",
    ))
    .unwrap();
    let expected = AnalysisCfg {
        rtpi_threshold: ms(100),
        rtpi_missing: MissingPredecessor::PreviousArrival,
        rtpi_silence: crate::metrics::RtpiSilence::Exclude,
        window: 50,
        bounds: false,
        jitter_threshold: ms(250),
        run_cap: 1,
        interval: None,
        delay: crate::score::DelayModel::Avella,
        scoring: crate::score::Scoring::Streaming,
    };
    assert_eq!(s.analysis, expected);
    let s = from_toml_str(&with("top", "[analysis]\nrtpi_missing = \"timely\"")).unwrap();
    assert_eq!(
        s.analysis,
        AnalysisCfg { rtpi_missing: MissingPredecessor::Timely, ..AnalysisCfg::default() }
    );
    assert_eq!(AnalysisCfg::default().rtpi_missing, MissingPredecessor::Delayed);
}

#[test]
fn to_json_writes_every_parameter() {
    let s = from_toml_str(&with("call", "advantage = 20\nplayout = { kind = \"fixed-depth\" }")).unwrap();
    let j = to_json(&s);
    assert_eq!(
        j["calls"][0]["playout"],
        serde_json::json!({ "kind": "fixed-depth", "depth": 2, "ptime": "20ms" })
    );
    assert_eq!(j["calls"][0]["advantage"], 20.0);
    assert_eq!(
        j["analysis"],
        serde_json::json!({
            "rtpi_threshold": "300ms", "rtpi_missing": "delayed", "rtpi_silence": "count", "window": 100, "bounds": true,
            "jitter_threshold": "400ms", "run_cap": 200, "delay": "playout",
        })
    );
    let s = from_toml_str(&with("call", "playout = { kind = \"ramjee-4\" }")).unwrap();
    let text = to_json(&s).to_string();
    assert!(text.contains("\"alpha\":0.875") && text.contains("\"spike_end\":\"7.875ms\""), "{text}");
    // The paper's α survives JSON text exactly.
    let s = from_toml_str(&with("call", "playout = { kind = \"ramjee-2\", alpha_increase = 0.1 }")).unwrap();
    let text = to_json(&s).to_string();
    assert!(text.contains("\"alpha\":0.998002") && text.contains("\"alpha_increase\":0.1"), "{text}");
    assert_eq!(from_json_str(&text).unwrap(), s);
}

#[test]
fn unknown_key_in_a_kind_names_the_allowed_keys() {
    let e = from_toml_str(&with("call", "playout = { kind = \"ramjee-1\", delay = \"100ms\" }")).unwrap_err();
    assert_eq!(e.path, "calls[0].playout.delay");
    assert_eq!(e.value, "unknown key with value \"100ms\"");
    assert_eq!(e.allowed, "one of the keys kind, alpha, beta, initial_variation (for kind = \"ramjee-1\")");
    let e = from_toml_str(&with("call", "playout = { kind = \"adaptive\" }")).unwrap_err();
    assert_eq!(e.path, "calls[0].playout.kind");
    for name in PlayoutKind::NAMES {
        assert!(e.allowed.contains(&format!("\"{name}\"")), "{name}: {e}");
    }
}

/// A second call group, appended after the first.
const SECOND: &str = "[[calls]]\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.729\"\n";

#[test]
fn invalid_playout_advantage_analysis_name_path_and_allowed() {
    let p = |table: &str| with("call", &format!("playout = {table}"));
    let a = |lines: &str| with("top", &format!("[analysis]\n{lines}"));
    let cases: &[(String, &str, &str)] = &[
        // Kind selection and table shape.
        (p("{ kind = \"adaptive\" }"), "calls[0].playout.kind", "\"fixed\", \"fixed-depth\", \"ramjee-1\""),
        (p("{ kind = 1 }"), "calls[0].playout.kind", "\"ramjee-4\", \"quantile\""),
        (with("call", "playout = \"fixed\""), "calls[0].playout", "a playout table"),
        // Keys of another kind.
        (p("{ delay = \"1s\", depth = 2 }"), "calls[0].playout.depth", "kind, delay (for kind = \"fixed\")"),
        (
            p("{ kind = \"ramjee-1\", delay = \"100ms\" }"),
            "calls[0].playout.delay",
            "(for kind = \"ramjee-1\")",
        ),
        (p("{ kind = \"ramjee-3\", alpha_increase = 0.5 }"), "calls[0].playout.alpha_increase", "beta"),
        (
            p("{ kind = \"quantile\", max_dept = \"1s\" }"),
            "calls[0].playout.max_dept",
            "did you mean \"max_depth\"",
        ),
        // Weights, multipliers, quantiles.
        (p("{ kind = \"ramjee-1\", alpha = 1.0 }"), "calls[0].playout.alpha", "0 <= w < 1"),
        (p("{ kind = \"ramjee-1\", alpha = -0.1 }"), "calls[0].playout.alpha", "0 <= w < 1"),
        (p("{ kind = \"ramjee-4\", alpha = nan }"), "calls[0].playout.alpha", "a finite number"),
        (p("{ kind = \"ramjee-2\", alpha = \"0.9\" }"), "calls[0].playout.alpha", "0 <= w < 1"),
        (p("{ kind = \"ramjee-2\", alpha_increase = 1.5 }"), "calls[0].playout.alpha_increase", "0 <= w < 1"),
        (p("{ kind = \"ramjee-3\", beta = 0 }"), "calls[0].playout.beta", "beta > 0"),
        (p("{ kind = \"ramjee-1\", beta = inf }"), "calls[0].playout.beta", "finite"),
        (p("{ kind = \"ramjee-1\", beta = -4 }"), "calls[0].playout.beta", "beta > 0"),
        (p("{ kind = \"quantile\", quantile = 0 }"), "calls[0].playout.quantile", "0 < q <= 1"),
        (p("{ kind = \"quantile\", quantile = 1.01 }"), "calls[0].playout.quantile", "0 < q <= 1"),
        // Packet counts.
        (p("{ kind = \"fixed-depth\", depth = 0 }"), "calls[0].playout.depth", "between 1 and 1000000"),
        (p("{ kind = \"fixed-depth\", depth = 2.0 }"), "calls[0].playout.depth", "integer"),
        (p("{ kind = \"fixed-depth\", depth = \"2p\" }"), "calls[0].playout.depth", "integer"),
        (p("{ kind = \"quantile\", window = 1000001 }"), "calls[0].playout.window", "between 1 and 1000000"),
        // Durations.
        (p("{ kind = \"fixed\", delay = 150 }"), "calls[0].playout.delay", "a duration with a unit"),
        (p("{ kind = \"fixed-depth\", ptime = \"0ms\" }"), "calls[0].playout.ptime", "positive duration"),
        (
            p("{ kind = \"ramjee-1\", initial_variation = \"-1ms\" }"),
            "calls[0].playout.initial_variation",
            "non-negative",
        ),
        (
            p("{ kind = \"ramjee-4\", spike_threshold = \"0s\" }"),
            "calls[0].playout.spike_threshold",
            "positive",
        ),
        (
            p("{ kind = \"ramjee-4\", spike_end = \"0ms\" }"),
            "calls[0].playout.spike_end",
            "positive duration",
        ),
        (
            p("{ kind = \"quantile\", min_depth = \"50ms\", max_depth = \"20ms\" }"),
            "calls[0].playout.max_depth",
            "at least min_depth (50ms)",
        ),
        (
            p("{ kind = \"quantile\", min_depth = \"5s\" }"),
            "calls[0].playout.min_depth",
            "at most max_depth (4s, the default)",
        ),
        // Advantage factor.
        (with("call", "advantage = 41"), "calls[0].advantage", "0 <= A <= 40"),
        (with("call", "advantage = 40.5"), "calls[0].advantage", "G.107 Table 3 allows 0–20"),
        (with("call", "advantage = -1"), "calls[0].advantage", "flagged as extrapolated"),
        (with("call", "advantage = \"10\""), "calls[0].advantage", "0 <= A <= 40"),
        (with("call", "advantage = nan"), "calls[0].advantage", "a finite number"),
        (with("call", "advantag = 10"), "calls[0].advantag", "did you mean \"advantage\""),
        // [analysis].
        (a("rtpi_threshold = \"0s\""), "analysis.rtpi_threshold", "positive duration"),
        (a("rtpi_threshold = 300"), "analysis.rtpi_threshold", "a duration with a unit"),
        (
            a("rtpi_missing = \"late\""),
            "analysis.rtpi_missing",
            "\"timely\", \"delayed\", \"previous-arrival\"",
        ),
        (a("rtpi_missing = \"previous_arrival\""), "analysis.rtpi_missing", "\"previous-arrival\""),
        (a("window = 0"), "analysis.window", "between 1 and 1000000"),
        // Group labels name groups in results and rescoring: unique.
        (
            with("call", &format!("label = \"x\"\n{SECOND}label = \"x\"")),
            "calls[1].label",
            "no other [[calls]] group",
        ),
        (with("call", &format!("label = \"calls[1]\"\n{SECOND}")), "calls[1]", "no other [[calls]] group"),
        (a("jitter_threshold = \"0ms\""), "analysis.jitter_threshold", "positive duration"),
        (a("window = 1000001"), "analysis.window", "between 1 and 1000000"),
        (a("window = \"100p\""), "analysis.window", "integer"),
        (a("bounds = \"yes\""), "analysis.bounds", "true or false"),
        (a("scoring = \"fast\""), "analysis.scoring", "\"exact\", \"streaming\""),
        (a("run_cap = 0"), "analysis.run_cap", "between 1 and 100000"),
        (a("run_cap = 100001"), "analysis.run_cap", "between 1 and 100000"),
        (
            a("threshold = \"1s\""),
            "analysis.threshold",
            "rtpi_threshold, rtpi_missing, rtpi_silence, window, bounds, jitter_threshold, run_cap",
        ),
        (a("run_capp = 10"), "analysis.run_capp", "did you mean \"run_cap\""),
        (with("top", "analysis = 3"), "analysis", "an [analysis] table"),
        (with("top", "[analyse]\nwindow = 10"), "analyse", "run, links, calls, traffic, analysis"),
    ];
    check_all(cases);
}

/// Every key of every kind (and the analysis and advantage keys) with
/// values of every type and edge: an error or a scenario, never a panic.
#[test]
fn any_value_is_an_error_or_a_scenario() {
    const VALUES: &[&str] = &[
        "0",
        "1",
        "-1",
        "0.5",
        "1.0",
        "1e308",
        "-0.0",
        "nan",
        "inf",
        "-inf",
        "9223372036854775807",
        "\"0s\"",
        "\"1ns\"",
        "\"43200min\"",
        "\"-1ms\"",
        "\"x\"",
        "true",
        "[1]",
        "{}",
    ];
    const PLAYOUT_KEYS: &[&str] = &[
        "delay",
        "depth",
        "ptime",
        "alpha",
        "alpha_increase",
        "beta",
        "initial_variation",
        "spike_threshold",
        "spike_end",
        "quantile",
        "window",
        "min_depth",
        "max_depth",
        "min_packets",
    ];
    const ANALYSIS_KEYS: &[&str] = &["rtpi_threshold", "rtpi_missing", "window", "bounds", "run_cap"];
    let mut parsed = 0;
    for v in VALUES {
        for kind in PlayoutKind::NAMES {
            for key in PLAYOUT_KEYS {
                let src = with("call", &format!("playout = {{ kind = \"{kind}\", {key} = {v} }}"));
                parsed += from_toml_str(&src).is_ok() as u32;
            }
        }
        for key in ANALYSIS_KEYS {
            parsed += from_toml_str(&with("top", &format!("[analysis]\n{key} = {v}"))).is_ok() as u32;
        }
        parsed += from_toml_str(&with("call", &format!("advantage = {v}"))).is_ok() as u32;
        parsed += from_toml_str(&with("call", &format!("playout = {v}"))).is_ok() as u32;
    }
    // Sanity: some combinations are valid (e.g. alpha = 0.5, window = 1).
    assert!(parsed > 20, "{parsed}");
}

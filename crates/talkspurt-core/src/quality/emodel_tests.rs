//! Tests of `emodel.rs`.

use super::*;

// Reference figures ("ref.py") come from the independent Python
// transcription of G.107 reproduced in docs/models/emodel.md (appendix),
// never from this code.

fn close(got: f64, want: f64, tol: f64) {
    assert!((got - want).abs() <= tol, "got {got}, want {want} ± {tol}");
}

#[test]
fn defaults_give_r_93_2() {
    let r = emodel(&EModelParams::default()).unwrap();
    close(r.r, 93.2062, 0.01); // G.107: R = 93.2 at Table 3 defaults
    close(r.no, -61.1792, 0.001);
    close(r.ro, 94.7688, 0.001);
    close(r.iolr, 0.4402, 0.001);
    close(r.ist, -0.0007, 0.001);
    close(r.iq, 0.9741, 0.001);
    close(r.is, 1.4136, 0.001);
    close(r.idte, 0.0, 1e-9);
    close(r.idle, 0.1490, 0.001);
    close(r.idd, 0.0, 1e-12);
    close(r.ie_eff, 0.0, 1e-12);
    close(r.mos, 4.4094, 0.001);
}

#[test]
fn delay_sweep_t_eq_ta_tr_eq_2ta() {
    // (Ta ms, Idte, Idle, Idd, R) from ref.py; tolerance 0.001 on each.
    let rows = [
        (0.0, 0.0, 0.149046, 0.0, 93.206208),
        (50.0, 1.022945, 0.576147, 0.0, 91.756161),
        (100.0, 1.963791, 0.727733, 0.0, 90.663730),
        (150.0, 2.811844, 0.840747, 0.163531, 89.539132),
        (200.0, 3.570849, 0.935273, 3.044414, 85.804718),
        (300.0, 4.833940, 1.094259, 14.760695, 72.666360),
        (400.0, 5.808211, 1.230127, 24.070089, 62.246827),
        (600.0, 7.159883, 1.464725, 35.246848, 49.483798),
    ];
    for (ta, idte, idle, idd, r) in rows {
        let p = EModelParams {
            t: ta,
            ta,
            tr: 2.0 * ta,
            ..Default::default()
        };
        // Ta = 600 and Tr = 1200 exceed Table 3: only the extended entry accepts them.
        let res = if ta <= 500.0 {
            emodel(&p).unwrap()
        } else {
            emodel_extended(&p).unwrap()
        };
        close(res.idte, idte, 0.001);
        close(res.idle, idle, 0.001);
        close(res.idd, idd, 0.001);
        close(res.r, r, 0.001);
    }
}

#[test]
fn loss_sweep_g711_and_g729() {
    // (Ie, Bpl, BurstR, [(Ppl %, Ie_eff)]) from ref.py; tolerance 0.001.
    let g711_r1 = [
        (0.0, 0.0),
        (1.0, 3.639847),
        (2.0, 7.011070),
        (5.0, 15.780731),
        (10.0, 27.065527),
        (20.0, 42.128603),
    ];
    let g711_r2 = [
        (0.0, 0.0),
        (1.0, 3.710938),
        (2.0, 7.279693),
        (5.0, 17.210145),
        (10.0, 31.561462),
        (20.0, 54.131054),
    ];
    let g729_r1 = [
        (0.0, 11.0),
        (1.0, 15.2),
        (2.0, 19.0),
        (5.0, 28.5),
        (10.0, 39.965517),
        (20.0, 54.076923),
    ];
    let g729_r2 = [
        (0.0, 11.0),
        (1.0, 15.307692),
        (2.0, 19.4),
        (5.0, 30.534884),
        (10.0, 46.0),
        (20.0, 68.931034),
    ];
    let cases = [
        (0.0, 25.1, 1.0, g711_r1),
        (0.0, 25.1, 2.0, g711_r2),
        (11.0, 19.0, 1.0, g729_r1),
        (11.0, 19.0, 2.0, g729_r2),
    ];
    for (ie, bpl, burst_r, rows) in cases {
        for (ppl, want) in rows {
            let p = EModelParams {
                ie,
                bpl,
                ppl,
                burst_r,
                ..Default::default()
            };
            let res = emodel(&p).unwrap();
            close(res.ie_eff, want, 0.001);
            // Everything else is at its default, so R = 93.206208 − Ie,eff.
            close(res.r, 93.206208 - want, 0.001);
        }
    }
}

#[test]
fn talker_echo_small_t_and_loud_echo() {
    // ref.py: small T exercises the (1 − e^−T) factor; Idte is slightly
    // negative there, as the G.107 formula gives. Tolerance 1e-4.
    for (t, idte, r) in [
        (0.5, -0.079873, 93.286081),
        (1.0, -0.108930, 93.315138),
        (2.0, -0.084342, 93.290550),
    ] {
        let res = emodel(&EModelParams {
            t,
            ..Default::default()
        })
        .unwrap();
        close(res.idte, idte, 1e-4);
        close(res.r, r, 1e-4);
    }
    // TELR 45 dB, T = Ta = 100 ms, Tr = 200 ms.
    let p = EModelParams {
        telr: 45.0,
        t: 100.0,
        ta: 100.0,
        tr: 200.0,
        ..Default::default()
    };
    let res = emodel(&p).unwrap();
    close(res.idte, 22.481827, 1e-4);
    close(res.r, 70.145693, 1e-4);
    close(res.mos, 3.603826, 1e-4);
}

#[test]
fn noisy_low_sidetone_connection() {
    // SLR 12, RLR 6, Ps 55, Pr 50, Nc −60, qdu 3, STMR 12, LSTR 15, WEPL 60,
    // Tr 100 ms (ref.py). Tolerance 1e-4.
    let p = EModelParams {
        slr: 12.0,
        rlr: 6.0,
        ps: 55.0,
        pr: 50.0,
        nc: -60.0,
        qdu: 3.0,
        stmr: 12.0,
        lstr: 15.0,
        wepl: 60.0,
        tr: 100.0,
        ..Default::default()
    };
    let res = emodel(&p).unwrap();
    close(res.no, -53.274375, 1e-4);
    close(res.ro, 76.911562, 1e-4);
    close(res.iolr, 0.005983, 1e-4);
    close(res.iq, 4.324717, 1e-4);
    close(res.idle, 1.156281, 1e-4);
    close(res.r, 71.424581, 1e-4);
}

#[test]
fn quantizing_distortion_and_advantage() {
    let base = emodel(&EModelParams::default()).unwrap();
    let p = EModelParams {
        qdu: 4.0,
        ..Default::default()
    };
    let res = emodel(&p).unwrap();
    assert!(
        res.iq > base.iq + 1.0,
        "Iq must grow with qdu: {} vs {}",
        res.iq,
        base.iq
    );
    let p = EModelParams {
        a: 20.0,
        ..Default::default()
    };
    close(emodel(&p).unwrap().r, 113.206208, 0.001); // R = 93.206 + A, not clamped
}

#[test]
fn range_errors_name_parameter_value_and_range() {
    let p = EModelParams {
        ta: 600.0,
        ..Default::default()
    };
    let e = emodel(&p).unwrap_err();
    assert!(
        e.contains("Ta") && e.contains("600") && e.contains("[0, 500]"),
        "{e}"
    );
    let p = EModelParams {
        a: 40.0,
        ..Default::default()
    };
    let e = emodel(&p).unwrap_err();
    assert!(e.contains("A = 40") && e.contains("[0, 20]"), "{e}");
    let p = EModelParams {
        ppl: 25.0,
        ..Default::default()
    };
    assert!(emodel(&p).unwrap_err().contains("Ppl = 25"));
    let p = EModelParams {
        burst_r: 0.5,
        ..Default::default()
    };
    assert!(emodel(&p).unwrap_err().contains("BurstR"));
    let p = EModelParams {
        nfor: f64::NAN,
        ..Default::default()
    };
    assert!(emodel(&p).unwrap_err().contains("Nfor"));
    // Extended keeps the other limits.
    let p = EModelParams {
        slr: 19.0,
        ..Default::default()
    };
    assert!(emodel_extended(&p).unwrap_err().contains("SLR = 19"));
    let p = EModelParams {
        ta: 2500.0,
        ..Default::default()
    };
    assert!(emodel_extended(&p).unwrap_err().contains("[0, 2000]"));
}

#[test]
fn curve_is_bitwise_emodel_extended() {
    let base = EModelParams { ie: 11.0, bpl: 19.0, a: 5.0, ..Default::default() };
    let curve = EModelCurve::new(base);
    for d in [0.0, 3.5, 50.0, 100.0, 177.3, 420.0, 1999.0, 2500.0] {
        for (loss, burst_r) in [(0.0, 1.0), (0.013, 1.0), (0.2, 2.5), (0.9, 8.0)] {
            let p = EModelParams { t: d, ta: d, tr: 2.0 * d, ppl: loss * 100.0, burst_r, ..base };
            assert_eq!(curve.at(d, loss, burst_r), emodel_extended(&p), "d {d} loss {loss}");
        }
    }
    // Delays alternating and repeating, more of them than are kept, so
    // the kept delay terms are both reused and replaced: every field
    // bit for bit.
    let curve = KeptCurve::new(base);
    let bits = |r: EModelResult| [r.no, r.ro, r.is, r.iolr, r.ist, r.iq, r.id, r.idte, r.idle, r.idd, r.ie_eff, r.r, r.mos].map(f64::to_bits);
    for (loss, burst_r) in [(0.0, 1.0), (0.2, 2.5), (0.0, 1.0)] {
        for d in [120.0, 120.0, 37.25, 120.0, 2500.0, 37.25, 37.25, 10.0, 20.0, 30.0, 40.0, 120.0, 37.25, 40.0] {
            let p = EModelParams { t: d, ta: d, tr: 2.0 * d, ppl: loss * 100.0, burst_r, ..base };
            match (curve.at(d, loss, burst_r), emodel_extended(&p)) {
                (Ok(a), Ok(b)) => assert_eq!(bits(a), bits(b), "d {d} loss {loss}"),
                (a, b) => assert_eq!(a, b, "d {d} loss {loss}"),
            }
        }
    }
}

#[test]
fn curve_of_the_last_parameters_is_reused_only_for_the_same_bits() {
    // Curves built in turn for parameter sets that differ in one field
    // (A, Ie, SLR, +0 vs −0 in T): each scores as emodel_extended of
    // its own parameters, whether built or copied from the last.
    let sets = [
        EModelParams { ie: 11.0, bpl: 19.0, a: 5.0, ..Default::default() },
        EModelParams { ie: 11.0, bpl: 19.0, a: 5.0, ..Default::default() },
        EModelParams { ie: 11.0, bpl: 19.0, a: 0.0, ..Default::default() },
        EModelParams { ie: 0.0, bpl: 25.1, ..Default::default() },
        EModelParams { ie: 0.0, bpl: 25.1, slr: 12.0, ..Default::default() },
        EModelParams { ie: 0.0, bpl: 25.1, slr: 12.0, t: -0.0, ..Default::default() },
        EModelParams { ie: 11.0, bpl: 19.0, a: 5.0, ..Default::default() },
    ];
    for base in sets {
        let curve = EModelCurve::new(base);
        for (d, loss, burst_r) in [(0.0, 0.0, 1.0), (150.0, 0.02, 1.0), (420.0, 0.2, 2.5)] {
            let p = EModelParams { t: d, ta: d, tr: 2.0 * d, ppl: loss * 100.0, burst_r, ..base };
            assert_eq!(curve.at(d, loss, burst_r), emodel_extended(&p), "{base:?} d {d}");
        }
    }
    // KeptCurves in turn, each dropped before the next starts with its
    // kept delay terms (same parameters) or without (other ones): every
    // field bit for bit, delays shared with the last curve and new ones.
    let bits = |r: EModelResult| [r.no, r.ro, r.is, r.iolr, r.ist, r.iq, r.id, r.idte, r.idle, r.idd, r.ie_eff, r.r, r.mos].map(f64::to_bits);
    for base in sets.iter().chain(&sets) {
        let curve = KeptCurve::new(*base);
        for (d, loss, burst_r) in [(150.0, 0.02, 1.0), (0.0, 0.0, 1.0), (150.0, 0.3, 1.7), (37.25, 0.0, 1.0), (420.0, 0.2, 2.5), (9.5, 0.01, 1.0)] {
            let p = EModelParams { t: d, ta: d, tr: 2.0 * d, ppl: loss * 100.0, burst_r, ..*base };
            assert_eq!(curve.at(d, loss, burst_r).map(bits), emodel_extended(&p).map(bits), "{base:?} d {d}");
        }
    }
}

#[test]
fn ie_eff_never_exceeds_95() {
    // The review's call: G.711 (Ie 0, Bpl 25.1), 99.9 % loss, BurstR 4:
    // 95·99.9/(99.9/4 + 25.1) = 189.526… uncapped, R ≈ −100.
    let (raw, capped) = (95.0 * 99.9 / (99.9 / 4.0 + 25.1), ie_eff(0.0, 25.1, 99.9, 4.0));
    assert!(raw > 189.5 && raw < 189.6, "{raw}");
    assert_eq!(capped, (95.0, true));
    let p = EModelParams { ie: 0.0, bpl: 25.1, ppl: 99.9, burst_r: 4.0, t: 150.0, ta: 150.0, tr: 300.0, ..Default::default() };
    let r = emodel_extended(&p).unwrap();
    assert_eq!(r.ie_eff, 95.0);
    assert!(r.r > 93.2 - 95.0 - r.id - 1e-9, "R {} not below Ro − Is − Id − 95", r.r);
    // Below the cap nothing changes: random loss never reaches 95.
    for (ie, bpl, ppl) in [(0.0, 25.1, 100.0), (11.0, 19.0, 100.0), (0.0, 4.3, 100.0)] {
        let (v, c) = ie_eff(ie, bpl, ppl, 1.0);
        assert!(!c && v < 95.0 && (v - (ie + (95.0 - ie) * ppl / (ppl + bpl))).abs() < 1e-12);
    }
    // Within Table 3 (Ppl ≤ 20, BurstR ≤ 8) the cap can bind too with a
    // low Bpl: G.711 without PLC (4.3) at 20 %, BurstR 8 → 95·20/6.8.
    assert_eq!(ie_eff(0.0, 4.3, 20.0, 8.0), (95.0, true));
}

#[test]
fn extended_accepts_heavy_and_bursty_loss() {
    // §7.5 eq. 7-29 by hand: Ie 0, Bpl 4.3, Ppl 40 %, BurstR 1 →
    // 95·40/(40 + 4.3) = 85.778781; Ie 11, Bpl 19, Ppl 60 %, BurstR 20
    // → 11 + 84·60/(3 + 19) = 240.090909, beyond 95: capped at 95.
    for (ie, bpl, ppl, burst_r, want) in [(0.0, 4.3, 40.0, 1.0, 85.778781), (11.0, 19.0, 60.0, 20.0, 95.0)] {
        let p = EModelParams { ie, bpl, ppl, burst_r, ..Default::default() };
        assert!(emodel(&p).is_err(), "outside Table 3 for the strict form");
        close(emodel_extended(&p).unwrap().ie_eff, want, 1e-5);
    }
}

#[test]
fn seed003_advantage_40_with_satellite_delay() {
    // G.711 (Ie 0), T = Ta = 400 ms, Tr = 800 ms, A = 40: ref.py gives R = 102.246827.
    let p = EModelParams {
        t: 400.0,
        ta: 400.0,
        tr: 800.0,
        a: 40.0,
        ..Default::default()
    };
    let res = emodel_extended(&p).unwrap();
    close(res.r, 102.246827, 0.001);
    close(res.mos, 4.5, 1e-12); // R > 100 clamps MOS to 4.5
}

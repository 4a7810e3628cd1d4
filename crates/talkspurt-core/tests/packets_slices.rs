//! The packets table written a slice of calls at a time (issue 14, Parquet
//! in row groups): every column cut at any call boundaries and joined
//! again equals the whole column, values and categories.

use std::path::Path;
use talkspurt_core::run::run;
use talkspurt_core::scenario::from_toml_str;
use talkspurt_core::time::SimDuration;
use talkspurt_core::trace::Column;

fn join(parts: Vec<Column>) -> Column {
    let mut it = parts.into_iter();
    let mut acc = it.next().expect("one part");
    for p in it {
        match (&mut acc, p) {
            (Column::F64(a), Column::F64(b)) => a.extend(b),
            (Column::U32(a), Column::U32(b)) => a.extend(b),
            (Column::Cat { codes: a, cats: ca }, Column::Cat { codes: b, cats: cb }) => {
                assert_eq!(*ca, cb, "categories are the same in every slice");
                a.extend(b)
            }
            (a, b) => panic!("unexpected columns {a:?} / {b:?}"),
        }
    }
    acc
}

#[test]
fn slices_of_calls_join_to_the_column() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/seeds/000/base.toml");
    let mut s = from_toml_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    s.run.duration = SimDuration::from_secs(10);
    s.run.trace = true;
    let p = run(&s, &mut |_| true).unwrap().report.packets.expect("trace on");
    let rows = p.call_rows();
    let n = rows.len();
    assert!(n >= 3 && rows.iter().sum::<usize>() == p.rows(), "{rows:?}");
    for cuts in [vec![0, n], vec![0, 1, n], vec![0, 1, 2, n], vec![0, n / 2, n / 2, n]] {
        for name in p.names() {
            let parts = cuts.windows(2).map(|w| p.column_of_calls(name, w[0]..w[1]).unwrap()).collect();
            let whole = p.column(name).unwrap();
            match (join(parts), whole) {
                // Bitwise, so that NaN (never played) compares equal.
                (Column::F64(a), Column::F64(b)) => assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()) && a.len() == b.len(), "{name} {cuts:?}"),
                (a, b) => assert_eq!(a, b, "{name} {cuts:?}"),
            }
        }
    }
    assert!(p.column_of_calls("t_sent", std::ops::Range { start: 2, end: 1 }).is_none() && p.column_of_calls("t_sent", 0..n + 1).is_none());
}

/// `columns_of_calls` (several columns at once; the window columns from one
/// pass per call) gives each column exactly as `column_of_calls` does, for
/// every subset of the window columns and in any order.
#[test]
fn columns_together_equal_columns_one_at_a_time() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/seeds/000/base.toml");
    let mut s = from_toml_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    s.run.duration = SimDuration::from_secs(10);
    s.run.trace = true;
    let p = run(&s, &mut |_| true).unwrap().report.packets.expect("trace on");
    let n = p.call_rows().len();
    let all = p.names();
    let sets: Vec<Vec<&str>> = vec![
        all.clone(),
        vec!["window_ie", "id"],
        vec!["window_loss", "window_ie", "window_loss"],
        vec!["id", "t_sent", "window_ie", "fate"],
        vec!["window_loss"],
    ];
    for names in &sets {
        for calls in [0..n, 1..n, 0..1] {
            let together = p.columns_of_calls(names, calls.clone()).expect("listed columns");
            assert_eq!(together.len(), names.len());
            for (name, got) in names.iter().zip(together) {
                match (got, p.column_of_calls(name, calls.clone()).unwrap()) {
                    (Column::F64(a), Column::F64(b)) => {
                        assert!(a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()), "{name} {names:?} {calls:?}")
                    }
                    (a, b) => assert_eq!(a, b, "{name} {names:?} {calls:?}"),
                }
            }
        }
    }
    assert!(p.columns_of_calls(&["t_sent", "nope"], 0..n).is_none() && p.columns_of_calls(&["id"], 0..n + 1).is_none());
}

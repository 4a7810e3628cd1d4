//! A TOML scenario document as the values JSON can carry: syntax errors as
//! one line with the line and column, and the TOML values a scenario never
//! uses (dates and times, `nan`, `inf`) refused at their key path.
//!
//! The native runner reads files through [`toml_value`] (parse.rs); the
//! Python front end through [`toml_to_json`], so that `import talkspurt`
//! need not load `tomllib` and `typing` (~9 ms of every process, issue 26).
//! Keys keep the document's order (the `toml` crate's `preserve_order`):
//! a `[sweep.grid]`'s axes, for one, are run in the order written.

use std::fmt::Write as _;

use super::error::ScenarioError;

type R<T> = Result<T, ScenarioError>;

/// What `allowed` says of a TOML date or time: the scenario has no such key.
pub const NO_DATES: &str = "a string, number, boolean, list or table (TOML dates and times are not used)";

/// Parses a TOML document (TOML 1.0), refusing `nan` and `inf`. Dates and
/// times are left in: the native runner's reader then says what the key
/// they are at expects (`run.duration`: "a duration with a unit").
pub fn toml_value(s: &str) -> R<toml::Value> {
    let t: toml::Value = toml::from_str(s).map_err(|e| {
        let at = e.span().map(|sp| {
            let before = &s[..sp.start.min(s.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let text = s.lines().nth(line - 1).unwrap_or("").trim();
            format!(" at line {line}, column {col} (`{text}`)")
        });
        let msg = e.message().trim().replace('\n', " ");
        ScenarioError::new("", format!("invalid TOML{}: {msg}", at.unwrap_or_default()), "a valid TOML document")
    })?;
    json_values(&t, "", false)?;
    Ok(t)
}

/// The document as JSON text, keys in the document's order; a date or time
/// is refused at its key path, as the Python front end refuses one in a
/// mapping (JSON has none).
pub fn toml_to_json(s: &str) -> R<String> {
    let t = toml_value(s)?;
    json_values(&t, "", true)?;
    let mut out = String::with_capacity(s.len() + s.len() / 2);
    write_json(&t, &mut out);
    Ok(out)
}

/// Rejects TOML's `nan` and `inf`, and with `dates` its dates and times, as
/// the Python front end does for mappings (`scenario._check_values`): JSON
/// has no such numbers, and converted they would become null, i.e. "not
/// given", so an optional key would silently take its default.
fn json_values(v: &toml::Value, path: &str, dates: bool) -> R<()> {
    match v {
        toml::Value::Float(x) if !x.is_finite() => {
            let text = if x.is_nan() {
                "nan"
            } else if *x > 0.0 {
                "inf"
            } else {
                "-inf"
            };
            Err(ScenarioError::new(path, text, "a finite number"))
        }
        toml::Value::Datetime(d) if dates => Err(ScenarioError::new(path, d.to_string(), NO_DATES)),
        toml::Value::Array(items) => {
            items.iter().enumerate().try_for_each(|(i, x)| json_values(x, &format!("{path}[{i}]"), dates))
        }
        toml::Value::Table(t) => t.iter().try_for_each(|(k, x)| {
            json_values(x, &if path.is_empty() { k.clone() } else { format!("{path}.{k}") }, dates)
        }),
        _ => Ok(()),
    }
}

/// JSON of a checked value (no dates, finite floats). Strings and floats
/// are written by serde_json: its escapes, and the shortest float text that
/// reads back to the same double.
fn write_json(v: &toml::Value, out: &mut String) {
    match v {
        toml::Value::String(s) => out.push_str(&serde_json::to_string(s).expect("a string serializes")),
        toml::Value::Integer(i) => {
            let _ = write!(out, "{i}");
        }
        toml::Value::Float(x) => out.push_str(&serde_json::to_string(x).expect("a finite float serializes")),
        toml::Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        toml::Value::Array(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(x, out);
            }
            out.push(']');
        }
        toml::Value::Table(t) => {
            out.push('{');
            for (i, (k, x)) in t.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).expect("a key serializes"));
                out.push(':');
                write_json(x, out);
            }
            out.push('}');
        }
        toml::Value::Datetime(_) => unreachable!("json_values refuses dates"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_the_documents_order_and_values_their_types() {
        let j = toml_to_json("z = 1\na = \"x\\\"y\"\n[m]\nb = [1.5, 2, true]\nc = { y = -0.0, x = 1e-9 }\n").unwrap();
        assert_eq!(j, r#"{"z":1,"a":"x\"y","m":{"b":[1.5,2,true],"c":{"y":-0.0,"x":1e-9}}}"#);
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["m"]["c"]["x"].as_f64(), Some(1e-9));
    }

    #[test]
    fn floats_read_back_to_the_same_double() {
        for x in [0.1f64, 1.0 / 3.0, 2.5e-300, 1.7976931348623157e308, 123456789.123456789] {
            let j = toml_to_json(&format!("x = {x:e}")).unwrap();
            let v: serde_json::Value = serde_json::from_str(&j).unwrap();
            assert_eq!(v["x"].as_f64().unwrap().to_bits(), x.to_bits(), "{x:e} -> {j}");
        }
    }

    #[test]
    fn dates_and_non_finite_floats_are_refused_at_their_key_path() {
        let e = toml_to_json("[run]\nwhen = 1979-05-27\n").unwrap_err();
        assert_eq!((e.path.as_str(), e.value.as_str(), e.allowed.as_str()), ("run.when", "1979-05-27", NO_DATES));
        let e = toml_to_json("[[links]]\nx = [1.0, -inf]\n").unwrap_err();
        assert_eq!((e.path.as_str(), e.value.as_str(), e.allowed.as_str()), ("links[0].x[1]", "-inf", "a finite number"));
        let e = toml_to_json("a = nan").unwrap_err();
        assert_eq!((e.path.as_str(), e.value.as_str()), ("a", "nan"));
    }

    #[test]
    fn a_syntax_error_is_one_line_with_its_line_and_column() {
        let e = toml_to_json("[run]\nduration = \n").unwrap_err();
        assert_eq!(e.path, "");
        assert!(e.value.starts_with("invalid TOML at line 2, column "), "{}", e.value);
        assert!(!e.value.contains('\n'), "{}", e.value);
    }
}

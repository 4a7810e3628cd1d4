//! Scenario files (TOML, or JSON from the Python front end) → [`Scenario`],
//! and back ([`to_json`]).
//!
//! Reading is two steps: the document is deserialized into the scenario
//! types (serde derives, read by de.rs, which keeps the key path of every
//! error), then validate/ runs the checks that span keys. An error names
//! the key path, the value as written (looked up in the document by that
//! path) and what is allowed. `to_json` writes the normalized scenario
//! back in the same format (ser.rs); `from_value(&to_json(s)) == s`.
//! docs/scenario.md is the reference.

use serde_json::Value;

use super::de::{self, lookup, path_string, Problem, Seg};
use super::doc::ScenarioDoc;
use super::error::ScenarioError;
use super::fields;
use super::model::Scenario;
use super::units::RATE_ALLOWED;
use super::validate;

type R<T> = Result<T, ScenarioError>;

/// Largest `count` of one call or traffic group.
pub const MAX_GROUP_COUNT: u64 = 100_000;

/// Parses and validates a TOML scenario file.
pub fn from_toml_str(s: &str) -> R<Scenario> {
    let t = super::toml_doc::toml_value(s)?;
    let v = serde_json::to_value(&t)
        .map_err(|e| ScenarioError::new("", format!("unreadable TOML: {e}"), "a valid TOML document"))?;
    from_value(&v)
}

/// Parses and validates a scenario given as JSON (the Python front end's dicts).
pub fn from_json_str(s: &str) -> R<Scenario> {
    let v: Value = serde_json::from_str(s)
        .map_err(|e| ScenarioError::new("", format!("invalid JSON: {e}"), "a valid JSON object"))?;
    from_value(&v)
}

/// Validates a scenario document (TOML or JSON already parsed to a `Value`).
pub fn from_value(v: &Value) -> R<Scenario> {
    match super::topology::expand(v)? {
        None => read(v),
        Some((x, map)) => read(&x).map_err(|e| more_hosts(v, map.restore(v, e))),
    }
}

/// A spread group larger than the hosts a `[topology]` made: the topology
/// can make more (access pairs a/b, or cross pairs xH_/yH_ per hop).
fn more_hosts(raw: &Value, mut e: ScenarioError) -> ScenarioError {
    let Some(group) = e.path.strip_suffix(".count") else { return e };
    if !e.allowed.ends_with(super::validate::LOWER_THE_COUNT) {
        return e;
    }
    let from = lookup(raw, &super::de::parse_path(&format!("{group}.from")));
    let cross = from.and_then(Value::as_str).is_some_and(|f| f.ends_with('_'));
    e.allowed.push_str(if cross { ", or raise topology.cross_pairs" } else { ", or raise topology.pairs" });
    e
}

/// Reads a document without `[topology]` or `both_ways` (expanded).
fn read(v: &Value) -> R<Scenario> {
    let doc: ScenarioDoc = de::from_value(v).map_err(|e| located(v, &e))?;
    validate::scenario(doc, v)
}

/// The scenario with every default filled in, in the file format (units
/// written out). `from_value(&to_json(s)) == s` for every parsed `s`.
pub fn to_json(s: &Scenario) -> Value {
    super::ser::to_value(&ScenarioDoc::from(s))
        .unwrap_or_else(|e| Value::String(format!("(scenario not writable: {e})")))
}

/// A value as shown in errors: JSON, cut at 80 characters.
pub(super) fn render(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(77).collect::<String>())
    } else {
        s
    }
}

/// A deserialization error as a `ScenarioError`: its path, the value found
/// there, and the allowed text (for a missing key, from [`required`]).
fn located(root: &Value, e: &de::Error) -> ScenarioError {
    let path = e.path();
    let at = path_string(&path);
    let value = lookup(root, &path);
    let nodes = endpoint_key(&path).then(|| node_list(root));
    match e.problem() {
        Problem::UnknownKey(allowed) => ScenarioError::new(
            at,
            format!("unknown key with value {}", value.map_or("null".into(), render)),
            allowed.clone(),
        ),
        Problem::Missing(allowed) => {
            ScenarioError::missing(at, nodes.or(allowed.clone()).unwrap_or_else(|| required(&path)))
        }
        Problem::Invalid(allowed) => match value.filter(|v| !v.is_null()) {
            Some(v) => ScenarioError::new(at, render(v), nodes.unwrap_or_else(|| allowed.clone())),
            None => ScenarioError::new(at, value.map_or("(missing)".into(), render), allowed.clone()),
        },
    }
}

/// `calls[i].from`, `traffic[i].to`, …: their text lists the nodes.
fn endpoint_key(path: &[Seg]) -> bool {
    matches!(path, [Seg::Key(g), Seg::Index(_), Seg::Key(k)]
        if (g == "calls" || g == "traffic") && (k == "from" || k == "to"))
}

fn node_list(root: &Value) -> String {
    let mut nodes: Vec<&str> = Vec::new();
    let links = root.get("links").and_then(Value::as_array).map_or(&[][..], |v| v);
    for name in links.iter().filter_map(|l| l.get("between")?.as_array()).flatten().filter_map(Value::as_str)
    {
        if !nodes.contains(&name) {
            nodes.push(name);
        }
    }
    format!("a node named in [[links]]: {}", nodes.join(", "))
}

/// What belongs at a required key, by the end of its path.
fn required(path: &[Seg]) -> String {
    let key = |i: usize| match path.len().checked_sub(i).and_then(|j| path.get(j)) {
        Some(Seg::Key(k)) => k.as_str(),
        _ => "",
    };
    match (key(2), key(1)) {
        ("", "run") if path.len() == 1 => "a [run] table, e.g. duration = \"60s\"".into(),
        ("", "links") if path.len() == 1 => fields::LINKS.into(),
        ("run", "duration") => "a positive duration of at most 30 days, e.g. \"60s\"".into(),
        (_, "between") => "two distinct node names, e.g. [\"a\", \"b\"]".into(),
        (_, "codec") => fields::codecs_text(),
        ("loss", "p") => "a probability p with 0 <= p < 1, e.g. 0.01".into(),
        ("start", "to") => "a duration after from, e.g. \"10s\"".into(),
        ("packet", "mean") => "a mean packet size, e.g. \"500B\"".into(),
        (_, "rate") => RATE_ALLOWED.into(),
        (_, "packet") => fields::PACKET.into(),
        (_, "size") => "a transfer size with a unit, e.g. \"10MB\"".into(),
        _ => "a value (the key is required)".into(),
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "roundtrip_tests.rs"]
mod roundtrip_tests;

#[cfg(test)]
#[path = "playout_tests.rs"]
mod playout_tests;

#[cfg(test)]
#[path = "tcp_tests.rs"]
mod tcp_tests;
#[cfg(test)]
#[path = "tfrc_tests.rs"]
mod tfrc_tests;
#[cfg(test)]
#[path = "sources_tests.rs"]
mod sources_tests;
#[cfg(test)]
#[path = "links_tests.rs"]
mod links_tests;
#[cfg(test)]
#[path = "speech_tests.rs"]
mod speech_tests;

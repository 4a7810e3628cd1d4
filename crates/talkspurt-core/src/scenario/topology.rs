//! Ready topologies (`[topology]`) and two-way groups (`both_ways`),
//! expanded in the document before it is read, so the rest of the scenario
//! layer and the engine see plain `[[links]]`, `[[calls]]` and
//! `[[traffic]]` tables, and `to_json` (`talkspurt validate`) prints the
//! expansion. Errors in the expanded tables are mapped back to the keys the
//! user wrote (`topology.access.rate`, `calls[1].codec`).
//!
//! Shapes (docs/scenario.md "Topologies", docs/models/network.md):
//! - `dumbbell`: hosts `a1..aN` on router `r1`, `b1..bN` on `r2`, one
//!   bottleneck `r1`–`r2` (seed 004 Fig. 3).
//! - `parking-lot`: routers `r1..r{k+1}` in a chain of k bottlenecks, main
//!   hosts `a1..aN` on `r1` and `b1..bN` on `r{k+1}`, and at each hop j
//!   cross hosts `xj_i` on `rj` and `yj_i` on `r{j+1}` whose traffic
//!   crosses that hop only (seed 002 Fig. 1 with k = 2: the main flows meet
//!   the cross flows at R2).
//!
//! Every link's forward direction points from the `a` side to the `b` side.

use serde_json::{json, Map, Value};

use super::de::{parse_path, path_string, Seg};
use super::error::ScenarioError;
use super::parse::render;

type R<T> = Result<T, ScenarioError>;

/// Most access pairs (and cross pairs per hop).
pub const MAX_PAIRS: u64 = 1000;
/// Most bottlenecks of a parking lot.
pub const MAX_HOPS: u64 = 16;
const KINDS: &str = "\"dumbbell\" or \"parking-lot\"";
const DUMBBELL_KEYS: &[&str] = &["kind", "pairs", "bottleneck", "access", "left", "right"];
const PARKING_KEYS: &[&str] =
    &["kind", "pairs", "hops", "cross_pairs", "bottleneck", "bottlenecks", "access", "left", "right", "cross"];

/// Where an expanded table came from: `expanded` is `links[k]`,
/// `calls[j]` or `traffic[j]`; `sources` the tables whose keys it holds,
/// the one that wins first (a key is blamed on the first source that has
/// it, else on the last one written); `swap` when from/to were exchanged.
#[derive(Debug, Default)]
pub(super) struct PathMap(Vec<(String, Vec<String>, bool)>);

impl PathMap {
    /// The error with its path as the user wrote it.
    pub(super) fn restore(&self, raw: &Value, mut e: ScenarioError) -> ScenarioError {
        let segs = parse_path(&e.path);
        let (Some(Seg::Key(g)), Some(Seg::Index(i))) = (segs.first(), segs.get(1)) else { return e };
        let head = format!("{g}[{i}]");
        let Some((_, sources, swap)) = self.0.iter().find(|(x, _, _)| *x == head) else { return e };
        let mut rest = segs[2..].to_vec();
        if *swap {
            if let Some(Seg::Key(k)) = rest.first_mut() {
                *k = match k.as_str() {
                    "from" => "to".into(),
                    "to" => "from".into(),
                    _ => k.clone(),
                };
            }
        }
        let has = |src: &str| {
            let Some(Seg::Key(k)) = rest.first() else { return false };
            super::de::lookup(raw, &parse_path(&format!("{src}.{k}"))).is_some()
        };
        let written = |src: &&String| super::de::lookup(raw, &parse_path(src)).is_some();
        let src = sources
            .iter()
            .find(|s| has(s))
            .or_else(|| sources.iter().rev().find(written))
            .or(sources.last())
            .cloned()
            .unwrap_or(head);
        let mut path = parse_path(&src);
        path.extend(rest);
        e.path = path_string(&path);
        e
    }
}

/// The document with `[topology]` and `both_ways` expanded, and the map
/// from expanded tables back to the written ones. `None` when there is
/// nothing to expand.
pub(super) fn expand(raw: &Value) -> R<Option<(Value, PathMap)>> {
    let Some(root) = raw.as_object() else { return Ok(None) };
    let groups_two_way = ["calls", "traffic"].iter().any(|g| {
        root.get(*g).and_then(Value::as_array).is_some_and(|a| a.iter().any(|t| t.get("both_ways").is_some()))
    });
    if root.get("topology").is_none() && !groups_two_way {
        return Ok(None);
    }
    let mut doc = root.clone();
    let mut map = PathMap::default();
    if let Some(t) = doc.remove("topology") {
        let generated = topology(raw, &t)?;
        let user = match doc.remove("links") {
            None => Vec::new(),
            Some(Value::Array(a)) => a,
            // Not a list: left for the reader to report at `links`.
            Some(other) => return Ok(Some((Value::Object(with_links(doc, other)), map))),
        };
        let n = generated.len();
        let mut links = Vec::with_capacity(n + user.len());
        for (k, (link, sources)) in generated.into_iter().enumerate() {
            map.0.push((format!("links[{k}]"), sources, false));
            links.push(link);
        }
        for (i, l) in user.into_iter().enumerate() {
            map.0.push((format!("links[{}]", n + i), vec![format!("links[{i}]")], false));
            links.push(l);
        }
        doc.insert("links".into(), Value::Array(links));
    }
    for g in ["calls", "traffic"] {
        if let Some(Value::Array(groups)) = doc.get(g).cloned() {
            doc.insert(g.into(), Value::Array(two_way(raw, g, groups, &mut map)?));
        }
    }
    Ok(Some((Value::Object(doc), map)))
}

fn with_links(mut doc: Map<String, Value>, links: Value) -> Map<String, Value> {
    doc.insert("links".into(), links);
    doc
}

fn err(raw: &Value, path: &str, allowed: impl Into<String>) -> ScenarioError {
    let value = super::de::lookup(raw, &parse_path(path))
        .filter(|v| !v.is_null())
        .map_or("(missing)".into(), render);
    ScenarioError::new(path, value, allowed)
}

/// `[[calls]]`/`[[traffic]]` with `both_ways = true` become two groups: the
/// one written and its mirror (`from` and `to` exchanged), labelled `L`
/// and `L:reverse`, where L is the group's label or `calls[i]` by its
/// written index. Once a group is doubled, later groups' indices move, so
/// every group without a label gets its written `calls[i]` as label.
fn two_way(raw: &Value, g: &str, groups: Vec<Value>, map: &mut PathMap) -> R<Vec<Value>> {
    let any = groups.iter().any(|t| t.get("both_ways").is_some());
    let mut out = Vec::with_capacity(groups.len());
    for (i, mut t) in groups.into_iter().enumerate() {
        let at = format!("{g}[{i}]");
        let Some(obj) = t.as_object_mut() else {
            map.0.push((format!("{g}[{}]", out.len()), vec![at], false));
            out.push(t);
            continue;
        };
        let both = match obj.remove("both_ways") {
            None => false,
            Some(Value::Bool(b)) => b,
            Some(_) => return Err(err(raw, &format!("{at}.both_ways"), "true or false")),
        };
        if any && !obj.contains_key("label") {
            obj.insert("label".into(), Value::String(at.clone()));
        }
        map.0.push((format!("{g}[{}]", out.len()), vec![at.clone()], false));
        out.push(t.clone());
        if both {
            let obj = t.as_object_mut().expect("checked above");
            let (from, to) = (obj.remove("from"), obj.remove("to"));
            if let Some(v) = to {
                obj.insert("from".into(), v);
            }
            if let Some(v) = from {
                obj.insert("to".into(), v);
            }
            if let Some(Value::String(l)) = obj.get("label") {
                let l = format!("{l}:reverse");
                obj.insert("label".into(), Value::String(l));
            }
            map.0.push((format!("{g}[{}]", out.len()), vec![at], true));
            out.push(t);
        }
    }
    Ok(out)
}

/// Shallow key-by-key merge: `over`'s keys replace `base`'s.
fn merge(base: &Map<String, Value>, over: Option<&Map<String, Value>>) -> Map<String, Value> {
    let mut m = base.clone();
    for (k, v) in over.into_iter().flatten() {
        m.insert(k.clone(), v.clone());
    }
    m
}

/// One generated link: `between` plus the channel keys of its tables.
fn link(a: &str, b: &str, keys: Map<String, Value>, sources: Vec<String>) -> (Value, Vec<String>) {
    let mut l = Map::new();
    l.insert("between".into(), json!([a, b]));
    l.extend(keys);
    (Value::Object(l), sources)
}

/// The `[[links]]` of a `[topology]` table, each with the tables (by key
/// path) its keys came from.
fn topology(raw: &Value, t: &Value) -> R<Vec<(Value, Vec<String>)>> {
    let Some(t) = t.as_object() else {
        return Err(err(raw, "topology", format!("a [topology] table with kind = {KINDS}")));
    };
    let kind = match t.get("kind") {
        Some(Value::String(k)) if k == "dumbbell" || k == "parking-lot" => k.as_str(),
        Some(_) => return Err(err(raw, "topology.kind", KINDS)),
        None => return Err(err(raw, "topology.kind", KINDS)),
    };
    let dumbbell = kind == "dumbbell";
    let keys = if dumbbell { DUMBBELL_KEYS } else { PARKING_KEYS };
    if let Some(k) = t.keys().find(|k| !keys.contains(&k.as_str())) {
        return Err(err(raw, &format!("topology.{k}"), format!("a key of a {kind} topology: {}", keys.join(", "))));
    }
    let table = |key: &str| -> R<Option<&Map<String, Value>>> {
        match t.get(key) {
            None => Ok(None),
            Some(Value::Object(m)) => {
                if m.contains_key("between") {
                    return Err(err(raw, &format!("topology.{key}.between"), "no between: the topology names the nodes"));
                }
                Ok(Some(m))
            }
            Some(_) => Err(err(raw, &format!("topology.{key}"), "a table of link keys, e.g. { rate = \"10Mbps\", delay = \"10ms\" }")),
        }
    };
    let count = |key: &str, dflt: u64, lo: u64, hi: u64| -> R<u64> {
        match t.get(key) {
            None => Ok(dflt),
            Some(v) => v
                .as_u64()
                .filter(|n| (lo..=hi).contains(n))
                .ok_or_else(|| err(raw, &format!("topology.{key}"), format!("an integer from {lo} to {hi}"))),
        }
    };
    let pairs = match t.get("pairs") {
        None => return Err(err(raw, "topology.pairs", format!("the number of access pairs, an integer from 1 to {MAX_PAIRS}"))),
        Some(_) => count("pairs", 1, 1, MAX_PAIRS)?,
    };
    let (hops, cross_pairs) =
        if dumbbell { (1, 0) } else { (count("hops", 2, 1, MAX_HOPS)?, count("cross_pairs", pairs, 0, MAX_PAIRS)?) };

    // Access links: the defaults, then `access`, then the side's table.
    let defaults = json!({ "rate": "100Mbps", "delay": "1ms" });
    let defaults = defaults.as_object().expect("a table");
    let access = merge(defaults, table("access")?);
    let side = |key: &str| -> R<(Map<String, Value>, Vec<String>)> {
        Ok((merge(&access, table(key)?), vec![format!("topology.{key}"), "topology.access".into()]))
    };
    let (left, left_src) = side("left")?;
    let (right, right_src) = side("right")?;

    // Bottlenecks: `bottleneck` for every hop, `bottlenecks[j]` over it.
    let common = table("bottleneck")?;
    let per_hop: Vec<Option<&Map<String, Value>>> = match t.get("bottlenecks") {
        None => vec![None; hops as usize],
        Some(Value::Array(a)) if a.len() as u64 == hops => a
            .iter()
            .enumerate()
            .map(|(j, v)| {
                v.as_object()
                    .filter(|m| !m.contains_key("between"))
                    .map(Some)
                    .ok_or_else(|| err(raw, &format!("topology.bottlenecks[{j}]"), "a table of link keys without between, e.g. { rate = \"2Mbps\" }"))
            })
            .collect::<R<_>>()?,
        Some(_) => {
            return Err(err(raw, "topology.bottlenecks", format!("a list of {hops} tables of link keys, one per hop (hops = {hops})")))
        }
    };
    if common.is_none() && t.get("bottlenecks").is_none() {
        let allowed = if dumbbell {
            "a table of link keys, e.g. { rate = \"1Mbps\", delay = \"20ms\" }"
        } else {
            "a table of link keys for every hop, e.g. { rate = \"1Mbps\", delay = \"20ms\" }, or bottlenecks = [ … ], one per hop"
        };
        return Err(err(raw, "topology.bottleneck", allowed));
    }
    let empty = Map::new();
    let mut out = Vec::new();
    for (j, own) in per_hop.iter().enumerate() {
        let mut src = Vec::new();
        if own.is_some() {
            src.push(format!("topology.bottlenecks[{j}]"));
        }
        src.push("topology.bottleneck".into());
        let keys = merge(common.unwrap_or(&empty), *own);
        out.push(link(&format!("r{}", j + 1), &format!("r{}", j + 2), keys, src));
    }
    let last = format!("r{}", hops + 1);
    for i in 1..=pairs {
        out.push(link(&format!("a{i}"), "r1", left.clone(), left_src.clone()));
    }
    for i in 1..=pairs {
        out.push(link(&last, &format!("b{i}"), right.clone(), right_src.clone()));
    }
    let (cross, cross_src) = side("cross")?;
    if cross_pairs > 0 {
        for j in 1..=hops {
            for i in 1..=cross_pairs {
                out.push(link(&format!("x{j}_{i}"), &format!("r{j}"), cross.clone(), cross_src.clone()));
                out.push(link(&format!("r{}", j + 1), &format!("y{j}_{i}"), cross.clone(), cross_src.clone()));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "topology_tests.rs"]
mod tests;

//! Columnar tables handed across the Python boundary without per-row
//! objects: each column is one typed vector.

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    I64(Vec<i64>),
    U32(Vec<u32>),
    Bool(Vec<bool>),
    Str(Vec<String>),
    /// Categorical: codes index into `cats`.
    Cat { codes: Vec<u32>, cats: Vec<String> },
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::Cat { codes, .. } => codes.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(&'static str, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &'static str, col: Column) {
        debug_assert!(self.columns.first().is_none_or(|(_, c)| c.len() == col.len()), "ragged column {name}");
        self.columns.push((name, col));
    }
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| *n == name).map(|(_, c)| c)
    }
    pub fn f64(&self, name: &str) -> &[f64] {
        match self.get(name) {
            Some(Column::F64(v)) => v,
            _ => panic!("no f64 column {name}"),
        }
    }
    pub fn str(&self, name: &str) -> &[String] {
        match self.get(name) {
            Some(Column::Str(v)) => v,
            _ => panic!("no string column {name}"),
        }
    }
    pub fn u32(&self, name: &str) -> &[u32] {
        match self.get(name) {
            Some(Column::U32(v)) => v,
            _ => panic!("no u32 column {name}"),
        }
    }
    pub fn i64(&self, name: &str) -> &[i64] {
        match self.get(name) {
            Some(Column::I64(v)) => v,
            _ => panic!("no i64 column {name}"),
        }
    }
    pub fn bool(&self, name: &str) -> &[bool] {
        match self.get(name) {
            Some(Column::Bool(v)) => v,
            _ => panic!("no bool column {name}"),
        }
    }
}

/// Seconds from integer nanoseconds, NaN for "never".
pub fn secs(ns: u64) -> f64 {
    if ns == u64::MAX {
        f64::NAN
    } else {
        ns as f64 * 1e-9
    }
}

/// FNV-1a (64-bit) over a table's column names and values, floats by
/// their bits: a fingerprint that changes when any result does. Written
/// out so that it does not depend on the standard hasher's version.
pub fn digest(t: &Table, h: &mut u64) {
    for (name, col) in &t.columns {
        digest_column(h, name, col);
    }
}

/// `digest` of one named column (the next in its table).
pub fn digest_column(h: &mut u64, name: &str, col: &Column) {
    fn eat(h: &mut u64, bytes: &[u8]) {
        for &b in bytes {
            *h ^= b as u64;
            *h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    eat(h, name.as_bytes());
    eat(h, &(col.len() as u64).to_le_bytes());
    match col {
        Column::F64(v) => v.iter().for_each(|x| eat(h, &x.to_bits().to_le_bytes())),
        Column::I64(v) => v.iter().for_each(|x| eat(h, &x.to_le_bytes())),
        Column::U32(v) => v.iter().for_each(|x| eat(h, &x.to_le_bytes())),
        Column::Bool(v) => v.iter().for_each(|&x| eat(h, &[x as u8])),
        Column::Str(v) => v.iter().for_each(|s| {
            eat(h, s.as_bytes());
            eat(h, &[0]);
        }),
        Column::Cat { codes, cats } => {
            codes.iter().for_each(|x| eat(h, &x.to_le_bytes()));
            cats.iter().for_each(|s| {
                eat(h, s.as_bytes());
                eat(h, &[0]);
            });
        }
    }
}

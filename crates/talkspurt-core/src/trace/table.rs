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
    /// Adds a column. NaNs are stored as the one canonical quiet NaN
    /// (`f64::NAN`): a NaN's sign and payload carry no result, but they
    /// depend on how it was computed — x86-64's `divsd` gives 0/0 the sign
    /// bit set (0xfff8…), a division the optimiser folds gives 0x7ff8… —
    /// so without this an undefined value (e.g. the groups table's loss
    /// fractions over zero calls) had other bits in `cargo test` builds
    /// than in release builds, and so other digests and Parquet bytes.
    pub fn push(&mut self, name: &'static str, mut col: Column) {
        if let Column::F64(v) = &mut col {
            v.iter_mut().filter(|x| x.is_nan()).for_each(|x| *x = f64::NAN);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A NaN with the sign bit set (what x86-64 computes for 0/0) is stored
    /// as `f64::NAN`, so tables and digests do not depend on the build.
    #[test]
    fn nans_are_stored_canonical() {
        let zero = std::hint::black_box(0.0_f64);
        let mut t = Table::default();
        t.push("x", Column::F64(vec![-f64::NAN, zero / zero, 1.5, f64::from_bits(0x7ff8_0000_0000_0001)]));
        let bits: Vec<u64> = t.f64("x").iter().map(|x| x.to_bits()).collect();
        assert_eq!(bits, [f64::NAN.to_bits(), f64::NAN.to_bits(), 1.5f64.to_bits(), f64::NAN.to_bits()]);
    }
}

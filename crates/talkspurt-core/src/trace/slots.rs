//! Narrow slots for record columns (issue 14): a u64 column as u32 slots
//! (`Wide`) and a u32 column as one- or two-byte slots (`Narrow`). A value
//! that does not fit its slot is stored whole in a side map, so decoding is
//! exact; the side maps stay empty on ordinary calls.

use super::record::NEVER;
use std::collections::BTreeMap;

/// A u64 column (times, or `NEVER`) as u32 slots; values from `ESC` up
/// live in `wide`. Exact for every u64.
#[derive(Clone, Debug, Default)]
pub struct Wide {
    v: Vec<u32>,
    wide: BTreeMap<u32, u64>,
}

impl Wide {
    pub(super) const NONE: u32 = u32::MAX;
    pub(super) const ESC: u32 = u32::MAX - 1;

    pub fn with_capacity(n: usize) -> Self {
        Wide { v: Vec::with_capacity(n), wide: BTreeMap::new() }
    }
    pub fn len(&self) -> usize {
        self.v.len()
    }
    pub fn is_empty(&self) -> bool {
        self.v.is_empty()
    }
    /// The slot code of `x` at index `i` (side entry if it does not fit).
    #[inline]
    fn code(&mut self, i: usize, x: u64) -> u32 {
        if x < Self::ESC as u64 {
            x as u32
        } else {
            self.code_cold(i, x)
        }
    }
    #[cold]
    #[inline(never)]
    fn code_cold(&mut self, i: usize, x: u64) -> u32 {
        if x == NEVER {
            Self::NONE
        } else {
            self.wide.insert(i as u32, x);
            Self::ESC
        }
    }
    #[inline]
    pub fn push(&mut self, x: u64) {
        let c = self.code(self.v.len(), x);
        self.v.push(c);
    }
    #[inline]
    pub fn set(&mut self, i: usize, x: u64) {
        self.v[i] = self.code(i, x);
    }
    #[inline]
    pub fn is_never(&self, i: usize) -> bool {
        self.v[i] == Self::NONE
    }
    #[inline]
    pub fn get(&self, i: usize) -> u64 {
        let x = self.v[i];
        if x < Self::ESC {
            x as u64
        } else {
            self.get_cold(i, x)
        }
    }
    #[cold]
    #[inline(never)]
    fn get_cold(&self, i: usize, x: u32) -> u64 {
        if x == Self::NONE {
            NEVER
        } else {
            self.wide[&(i as u32)]
        }
    }
    /// Heap bytes held (side map entries counted at 32 bytes each).
    pub fn heap_bytes(&self) -> usize {
        self.v.capacity() * 4 + self.wide.len() * 32
    }
}

/// A narrow slot type: its escape code is its largest value.
pub(super) trait Slot: Copy {
    const ESC: u32;
    fn from32(x: u32) -> Self;
    fn to32(self) -> u32;
}

macro_rules! slot {
    ($($t:ty),*) => {$(
        impl Slot for $t {
            const ESC: u32 = <$t>::MAX as u32;
            fn from32(x: u32) -> Self {
                x as $t
            }
            fn to32(self) -> u32 {
                self as u32
            }
        }
    )*};
}

slot!(u8, u16);

/// A u32 column in one or two bytes a value; larger values live in `wide`.
#[derive(Clone, Debug, Default)]
pub(super) struct Narrow<T> {
    v: Vec<T>,
    wide: BTreeMap<u32, u32>,
}

impl<T: Slot> Narrow<T> {
    pub(super) fn with_capacity(n: usize) -> Self {
        Narrow { v: Vec::with_capacity(n), wide: BTreeMap::new() }
    }
    #[inline]
    pub(super) fn code(&mut self, i: usize, x: u32) -> T {
        if x < T::ESC {
            T::from32(x)
        } else {
            self.wide.insert(i as u32, x);
            T::from32(T::ESC)
        }
    }
    #[inline]
    pub(super) fn push(&mut self, x: u32) {
        let c = self.code(self.v.len(), x);
        self.v.push(c);
    }
    #[inline]
    pub(super) fn set(&mut self, i: usize, x: u32) {
        self.v[i] = self.code(i, x);
    }
    #[inline]
    pub(super) fn get(&self, i: usize) -> u32 {
        let c = self.v[i].to32();
        if c < T::ESC {
            c
        } else {
            self.wide[&(i as u32)]
        }
    }
    pub(super) fn heap_bytes(&self) -> usize {
        self.v.capacity() * std::mem::size_of::<T>() + self.wide.len() * 32
    }
    /// Every value, in one pass over the slots.
    pub(super) fn all<U>(&self, to: impl Fn(u32) -> U) -> Vec<U> {
        if self.wide.is_empty() {
            // No escapes: a plain widening the compiler vectorises.
            return self.v.iter().map(|&c| to(c.to32())).collect();
        }
        self.v
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let c = c.to32();
                to(if c < T::ESC { c } else { self.wide[&(i as u32)] })
            })
            .collect()
    }
}

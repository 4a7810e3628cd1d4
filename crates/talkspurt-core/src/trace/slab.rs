//! One memory region for every call's current record block, on huge pages
//! where the kernel gives them (issue 14, target 2).
//!
//! At 10 000 calls each 20 ms round of voice packets writes one row in
//! every call's current block. Blocks carved one by one by malloc lie on
//! ~2700 separate 4 KB pages, and the page walks for them were most of the
//! extra cost per packet over 1000 calls (bench/README.md, "Headline at the
//! end of session 8": with glibc's own huge-page tunable the ratio went from
//! 1.83× to 1.15×). Here the blocks are slots of one anonymous mapping,
//! advised with `MADV_HUGEPAGE` before any page is touched: malloc would
//! touch every page as it writes its chunk headers, and a page already
//! mapped small stays small until khugepaged gets to it.
//!
//! Only the memory moves: which packets a block holds and every value in
//! it are unchanged (`CallRecord::new_block` copies a full block out and
//! reuses its slot).

use std::ptr::NonNull;

/// 2 MB, the x86-64 and arm64 huge page.
const HUGE: usize = 2 << 20;

/// `n` zeroed slots of `size` bytes each (`size` a multiple of 8), freed
/// when the last record holding one drops (records share it by `Arc`).
#[derive(Debug)]
pub(crate) struct Slab {
    map: NonNull<u8>,
    len: usize,
    first: NonNull<u8>,
}

// SAFETY: the slab is plain memory; each slot is written only through the
// one record that owns it (`CallRecord::cur`), and the mapping itself is
// only unmapped on drop.
unsafe impl Send for Slab {}
unsafe impl Sync for Slab {}

impl Slab {
    /// A mapping for `n` slots, or `None` where there is no `mmap` (then
    /// records allocate their blocks one by one, as before).
    #[cfg(target_os = "linux")]
    pub(crate) fn new(n: usize, size: usize) -> Option<Slab> {
        let want = n.checked_mul(size)?;
        if want == 0 {
            return None;
        }
        // Whole huge pages, plus room to start on a 2 MB boundary.
        let span = want.div_ceil(HUGE).checked_mul(HUGE)?;
        let len = span.checked_add(HUGE)?;
        // SAFETY: an anonymous private mapping; no pointer is passed in.
        let p = unsafe {
            libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        let map = NonNull::new(p as *mut u8)?;
        let skip = (HUGE - (p as usize) % HUGE) % HUGE;
        // SAFETY: `skip < HUGE`, inside the mapping.
        let first = unsafe { NonNull::new_unchecked(map.as_ptr().add(skip)) };
        // A hint: where the kernel says no (THP off), pages stay small.
        // Only the huge pages the slots fill: a partly used one holds 2 MB
        // of memory for what small pages hold in their slots' size (500
        // calls' blocks are 0.55 MB; the page walks it saves matter from
        // thousands of calls on, issue 14).
        let whole = want / HUGE * HUGE;
        if whole > 0 {
            // SAFETY: [first, first + whole) lies inside the mapping just made.
            unsafe { libc::madvise(first.as_ptr() as *mut libc::c_void, whole, libc::MADV_HUGEPAGE) };
        }
        Some(Slab { map, len, first })
    }

    #[cfg(not(target_os = "linux"))]
    pub(crate) fn new(_n: usize, _size: usize) -> Option<Slab> {
        None
    }

    /// Slot `i`'s address (`i` below the `n` it was made with).
    pub(crate) fn slot(&self, i: usize, size: usize) -> NonNull<u8> {
        debug_assert!((i + 1) * size + (self.first.as_ptr() as usize - self.map.as_ptr() as usize) <= self.len);
        // SAFETY: inside the mapping (the caller keeps i < n).
        unsafe { NonNull::new_unchecked(self.first.as_ptr().add(i * size)) }
    }
}

impl Drop for Slab {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe {
            libc::munmap(self.map.as_ptr() as *mut libc::c_void, self.len);
        }
    }
}

/// Ask for huge pages over the untouched spare capacity of `v` (its whole
/// 2 MB pages), before the caller fills it: the world's calls, read on
/// every packet (`scenario::build`). A hint; nothing changes where the
/// kernel says no.
pub(crate) fn advise_huge<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        let spare = v.spare_capacity_mut();
        let (at, len) = (spare.as_mut_ptr() as usize, std::mem::size_of_val(spare));
        let from = at.div_ceil(HUGE) * HUGE;
        let to = (at + len) / HUGE * HUGE;
        if to > from {
            // SAFETY: whole pages inside `v`'s own allocation, not yet
            // written; the hint does not change their contents.
            unsafe { libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

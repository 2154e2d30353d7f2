//! Memory for the pages the cache holds, in chunks backed by huge pages where the system
//! allows it (Linux transparent huge pages, asked for with `madvise`).
//!
//! Why: a random get touches two cached pages among tens of thousands. Each held in an
//! allocation of its own, nearly every touch also misses the processor's address
//! translation cache, and on a virtual machine each such miss walks two page tables: on
//! the machines measured here that cost a fifth of a cached get. In 2 MiB chunks mapped
//! by huge pages, the translations of the whole cache fit the TLB. And a page's handle
//! shares its chunk's reference count, which stays in the processor's cache, instead of
//! a count on the page's own first line.
//!
//! An arena's first chunk is small and in ordinary pages ([`FIRST`]): a one-off get
//! holds two or three pages, and the kernel would clear a whole huge page for them.
//!
//! A chunk is filled from its start and never written again where it has been filled:
//! handles ([`Page`]) give shared views of filled parts only, and the chunk is freed when
//! the last handle to it and the arena's own are gone. Pages too large for a quarter of a
//! chunk (compressed pages decoded, very large page sizes) are held in allocations of
//! their own, as before.

use std::alloc::Layout;
use std::ops::Deref;
use std::ptr::NonNull;
use std::rc::Rc;

/// The size and alignment of a chunk: one huge page on x86-64.
const CHUNK: usize = 2 << 20;

/// The size of an arena's first chunk, in ordinary pages: a one-off get holds two or
/// three pages, and a huge page would have the kernel clear 2 MiB for them.
const FIRST: usize = 64 << 10;

/// Pages start on cache lines.
const LINE: usize = 64;

/// A chunk of memory holding pages: [`CHUNK`] bytes in a huge page, or [`FIRST`].
struct Chunk {
    ptr: NonNull<u8>,
    size: usize,
}

impl Chunk {
    fn layout(size: usize) -> Layout {
        let align = if size == CHUNK { CHUNK } else { 4096 };
        Layout::from_size_align(size, align).expect("a power of two")
    }

    fn new(size: usize) -> Chunk {
        let layout = Chunk::layout(size);
        #[allow(unsafe_code)]
        // SAFETY: the layout has a non-zero size. The memory is left uninitialised: no
        // byte of it is read before it is written (see `Arena::hold`).
        let p = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(p) else {
            std::alloc::handle_alloc_error(layout)
        };
        #[cfg(all(target_os = "linux", not(miri)))]
        if size == CHUNK {
            #[allow(unsafe_code)]
            // SAFETY: the range is exactly the allocation just made (aligned to 2 MiB, so
            // to the page size); MADV_HUGEPAGE only lets the kernel back it with huge
            // pages, which changes neither its contents nor its validity. A refusal (a
            // kernel without transparent huge pages) leaves ordinary pages.
            let _ = unsafe {
                rustix::mm::madvise(
                    ptr.as_ptr().cast(),
                    CHUNK,
                    rustix::mm::Advice::LinuxHugepage,
                )
            };
        }
        Chunk { ptr, size }
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        #[allow(unsafe_code)]
        // SAFETY: allocated in `Chunk::new` with this layout, freed once (the last
        // `Rc<Chunk>` is being dropped, so no view into it remains).
        unsafe {
            std::alloc::dealloc(self.ptr.as_ptr(), Chunk::layout(self.size))
        }
    }
}

/// A page held: a shared view of a filled part of a chunk, or a page of its own.
#[derive(Clone)]
pub enum Page {
    /// In a chunk, at `start`, `len` bytes.
    Chunked {
        /// The chunk.
        chunk: Rc<ChunkRef>,
        /// Where the page starts in it.
        start: u32,
        /// Its length.
        len: u32,
    },
    /// In an allocation of its own.
    Own(Rc<[u8]>),
}

/// A chunk, shared by the handles of its pages.
pub struct ChunkRef(Chunk);

impl Deref for Page {
    type Target = [u8];

    #[inline]
    fn deref(&self) -> &[u8] {
        match self {
            Page::Chunked { chunk, start, len } => {
                #[allow(unsafe_code)]
                // SAFETY: `start..start + len` lies inside the chunk's allocation and was
                // written in full before this handle was made (`Arena::hold`); nothing
                // writes it again while the chunk lives (the arena writes only past its
                // fill mark, which is past every handle's range), and the chunk lives
                // at least as long as this handle's `Rc`.
                unsafe {
                    std::slice::from_raw_parts(
                        chunk.0.ptr.as_ptr().add(*start as usize),
                        *len as usize,
                    )
                }
            }
            Page::Own(p) => p,
        }
    }
}

impl From<Rc<[u8]>> for Page {
    fn from(p: Rc<[u8]>) -> Page {
        Page::Own(p)
    }
}

impl From<&[u8]> for Page {
    fn from(p: &[u8]) -> Page {
        Page::Own(Rc::from(p))
    }
}

/// Places pages in chunks.
#[derive(Default)]
pub struct Arena {
    /// The chunk being filled, and its fill mark.
    open: Option<(Rc<ChunkRef>, usize)>,
    /// A chunk was made (the next is a huge one).
    started: bool,
}

impl Arena {
    /// A copy of `bytes` as a held page.
    pub fn hold(&mut self, bytes: &[u8]) -> Page {
        let len = bytes.len();
        if len > CHUNK / 4 {
            return Page::from(bytes);
        }
        let fits = matches!(&self.open, Some((c, fill)) if fill + len <= c.0.size);
        if !fits {
            let size = if !self.started && len <= FIRST {
                FIRST
            } else {
                CHUNK
            };
            self.started = true;
            self.open = Some((Rc::new(ChunkRef(Chunk::new(size))), 0));
        }
        let (chunk, fill) = self.open.as_mut().expect("opened above");
        let start = *fill;
        #[allow(unsafe_code)]
        // SAFETY: `start..start + len` lies inside the chunk (checked above) and past its
        // fill mark, so no handle views it and nothing else points into it; `bytes` is
        // another allocation (or another chunk's filled part, never this range).
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), chunk.0.ptr.as_ptr().add(start), len);
        }
        *fill = (start + len).next_multiple_of(LINE);
        Page::Chunked {
            chunk: chunk.clone(),
            start: start as u32,
            len: len as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(32))]
        /// Every page held reads back as written, however many chunks it takes and
        /// whatever is dropped meanwhile (the chunks outlive their last page).
        #[test]
        fn pages_read_back_as_held(
            sizes in proptest::collection::vec(0usize..CHUNK / 2, 1..60),
            keep in proptest::collection::vec(proptest::prelude::any::<bool>(), 60),
        ) {
            let mut arena = Arena::default();
            let mut held: Vec<(Page, u8, usize)> = Vec::new();
            for (i, n) in sizes.iter().enumerate() {
                let fill = (i * 37 % 251) as u8;
                let p = arena.hold(&vec![fill; *n]);
                proptest::prop_assert_eq!(p.len(), *n);
                if keep[i] {
                    held.push((p, fill, *n));
                }
            }
            drop(arena);
            for (p, fill, n) in &held {
                proptest::prop_assert_eq!(p.len(), *n);
                proptest::prop_assert!(p.iter().all(|b| b == fill));
            }
        }
    }

    #[test]
    fn pages_start_on_cache_lines_and_share_their_chunk() {
        let mut arena = Arena::default();
        let a = arena.hold(&[1u8; 100]);
        let b = arena.hold(&[2u8; 4068]);
        assert_eq!(a.as_ptr() as usize % LINE, 0);
        assert_eq!(b.as_ptr() as usize % LINE, 0);
        match (&a, &b) {
            (Page::Chunked { chunk: x, .. }, Page::Chunked { chunk: y, .. }) => {
                assert!(Rc::ptr_eq(x, y))
            }
            _ => panic!("small pages go to chunks"),
        }
        assert!(matches!(arena.hold(&vec![0u8; CHUNK / 2]), Page::Own(_)));
    }

    fn chunk_size(p: &Page) -> usize {
        match p {
            Page::Chunked { chunk, .. } => chunk.0.size,
            Page::Own(_) => 0,
        }
    }

    /// The first chunk is the small one; when it is full, or for a first page larger
    /// than it, huge ones follow.
    #[test]
    fn a_small_chunk_first_then_huge_ones() {
        let mut arena = Arena::default();
        let first: Vec<Page> = (0..FIRST / 4096)
            .map(|_| arena.hold(&[7u8; 4096]))
            .collect();
        assert!(first.iter().all(|p| chunk_size(p) == FIRST));
        let next = arena.hold(&[8u8; 4096]);
        assert_eq!(chunk_size(&next), CHUNK);
        assert_eq!(next.as_ptr() as usize % CHUNK, 0);
        assert!(first.iter().all(|p| p.iter().all(|&b| b == 7)));
        let mut big_first = Arena::default();
        assert_eq!(chunk_size(&big_first.hold(&vec![1u8; FIRST + 1])), CHUNK);
        assert_eq!(chunk_size(&big_first.hold(&[2u8; 10])), CHUNK);
    }
}

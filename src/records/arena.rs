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
//!
//! The arena keeps its chunks by number while the cache holds a page in them (the
//! cache tells it of each page it lets go: [`Arena::release`]), so that a place in a
//! chunk, its number and an offset, leads to the bytes there without a page handle
//! ([`Arena::bytes`]): the cache's record table names records so, and a get reaches the
//! record without first reading the page's handle. A number is given again only after
//! its chunk has no page held.

use std::alloc::Layout;
use std::ops::Deref;
use std::ptr::NonNull;
use std::rc::Rc;

/// The size and alignment of a chunk: one huge page on x86-64.
pub const CHUNK: usize = 2 << 20;

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
        /// The chunk's number in its arena.
        number: u32,
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
            Page::Chunked {
                chunk, start, len, ..
            } => {
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

impl Page {
    /// Where the page is in its arena: its chunk's number and its offset there; `None`
    /// for a page in an allocation of its own.
    #[inline]
    pub fn place(&self) -> Option<(u32, u32)> {
        match self {
            Page::Chunked { number, start, .. } => Some((*number, *start)),
            Page::Own(_) => None,
        }
    }
}

/// A chunk an arena keeps by number: how far it is filled, and how many of the pages
/// placed in it are still held.
struct Kept {
    chunk: Rc<ChunkRef>,
    filled: usize,
    held: u32,
}

/// Places pages in chunks.
#[derive(Default)]
pub struct Arena {
    /// Chunks by number; `None`: a number free to be given again.
    chunks: Vec<Option<Kept>>,
    free: Vec<u32>,
    /// The number of the chunk being filled.
    open: Option<u32>,
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
        let number = match self.open_with_room(len) {
            Some(n) => n,
            None => {
                let size = if !self.started && len <= FIRST {
                    FIRST
                } else {
                    CHUNK
                };
                self.started = true;
                if let Some(old) = self.open.take() {
                    self.let_go_if_empty(old);
                }
                let Some(n) = self.number_for(Chunk::new(size)) else {
                    return Page::from(bytes);
                };
                self.open = Some(n);
                n
            }
        };
        let kept = self.chunks[number as usize]
            .as_mut()
            .expect("the open chunk is kept");
        let start = kept.filled;
        // The page, then zeros up to the next line (so that every byte before the fill
        // mark is written: [`Arena::bytes`] views them all).
        let end = (start + len).next_multiple_of(LINE);
        #[allow(unsafe_code)]
        // SAFETY: `start..end` lies inside the chunk (`open_with_room`, or a new chunk
        // of at least `len` bytes; its size is a multiple of `LINE`, so the line's end is
        // too) and past its fill mark, so no handle or slice views it and nothing else
        // points into it; `bytes` is another allocation (or another chunk's filled part,
        // never this range).
        unsafe {
            let at = kept.chunk.0.ptr.as_ptr().add(start);
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), at, len);
            std::ptr::write_bytes(at.add(len), 0, end - start - len);
        }
        kept.filled = end;
        kept.held += 1;
        Page::Chunked {
            chunk: kept.chunk.clone(),
            number,
            start: start as u32,
            len: len as u32,
        }
    }

    /// The open chunk's number, when `len` more bytes fit in it.
    fn open_with_room(&self, len: usize) -> Option<u32> {
        let n = self.open?;
        let kept = self.chunks[n as usize].as_ref()?;
        (kept.filled + len <= kept.chunk.0.size).then_some(n)
    }

    /// Keeps a new chunk under a free number (`None` past `u32` numbers).
    fn number_for(&mut self, chunk: Chunk) -> Option<u32> {
        let kept = Kept {
            chunk: Rc::new(ChunkRef(chunk)),
            filled: 0,
            held: 0,
        };
        if let Some(n) = self.free.pop() {
            self.chunks[n as usize] = Some(kept);
            return Some(n);
        }
        let n = u32::try_from(self.chunks.len()).ok()?;
        self.chunks.push(Some(kept));
        Some(n)
    }

    /// Drops the arena's hold of chunk `n` if no page in it is held (and it is not being
    /// filled), making its number free.
    fn let_go_if_empty(&mut self, n: u32) {
        if self.open != Some(n)
            && let Some(slot) = self.chunks.get_mut(n as usize)
            && slot.as_ref().is_some_and(|k| k.held == 0)
        {
            *slot = None;
            self.free.push(n);
        }
    }

    /// Tells the arena that the cache no longer holds `page` (made by [`Arena::hold`] of
    /// this arena): once a chunk has no page held, its number is free and
    /// [`Arena::bytes`] no longer gives it (handles still out keep its memory).
    pub fn release(&mut self, page: &Page) {
        let Page::Chunked { chunk, number, .. } = page else {
            return;
        };
        let Some(Some(kept)) = self.chunks.get_mut(*number as usize) else {
            return;
        };
        if Rc::ptr_eq(&kept.chunk, chunk) {
            kept.held = kept.held.saturating_sub(1);
            self.let_go_if_empty(*number);
        }
    }

    /// The filled bytes of chunk `number`, while the arena keeps it.
    #[inline]
    pub fn bytes(&self, number: u32) -> Option<&[u8]> {
        let kept = self.chunks.get(number as usize)?.as_ref()?;
        #[allow(unsafe_code)]
        // SAFETY: the first `filled` bytes of the chunk have been written (`hold` writes
        // a page and the zeros after it before it moves the mark past them), nothing
        // writes them again while the chunk lives, and the chunk lives while the arena
        // keeps it, so for the borrow of `self`.
        unsafe {
            Some(std::slice::from_raw_parts(
                kept.chunk.0.ptr.as_ptr(),
                kept.filled,
            ))
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

    /// A chunk is kept by number, its bytes there for a place, while a page in it is
    /// held; once none is (and it is no longer filled), its number is given again to a
    /// new chunk, and handles still out keep reading their own bytes.
    #[test]
    fn chunks_are_kept_by_number_while_their_pages_are_held() {
        let mut arena = Arena::default();
        // The first (small) chunk, then huge ones of 512 pages each.
        let pages: Vec<Page> = (0..FIRST / 4096 + 1100)
            .map(|i| arena.hold(&[i as u8; 4096]))
            .collect();
        let place = |p: &Page| p.place().expect("chunked");
        for (i, p) in pages.iter().enumerate() {
            let (n, start) = place(p);
            let bytes = arena.bytes(n).unwrap();
            assert_eq!(&bytes[start as usize..start as usize + 4096], &p[..]);
            assert!(p.iter().all(|&b| b == i as u8));
        }
        let numbers = |pages: &[Page]| {
            let mut n: Vec<u32> = pages.iter().map(|p| place(p).0).collect();
            n.dedup();
            n
        };
        assert_eq!(numbers(&pages), [0, 1, 2, 3]);
        // Chunk 1 let go page by page: kept until its last page goes.
        let in_one: Vec<&Page> = pages.iter().filter(|p| place(p).0 == 1).collect();
        for p in &in_one[1..] {
            arena.release(p);
        }
        assert!(arena.bytes(1).is_some());
        arena.release(in_one[0]);
        assert!(arena.bytes(1).is_none());
        // A page of another arena, or one of a chunk let go, changes nothing.
        arena.release(in_one[0]);
        arena.release(&Arena::default().hold(&[1u8; 10]));
        assert!(arena.bytes(0).is_some());
        // The open chunk (3) is kept with no page held, until it is full.
        for p in pages.iter().filter(|p| place(p).0 == 3) {
            arena.release(p);
        }
        assert!(arena.bytes(3).is_some());
        let more: Vec<Page> = (0..600).map(|_| arena.hold(&[9u8; 4096])).collect();
        assert_eq!(
            numbers(&more),
            [3, 1],
            "chunk 3 filled, then number 1 again"
        );
        assert!(arena.bytes(3).is_some(), "its new pages are held");
        for (i, p) in pages.iter().enumerate() {
            assert!(
                p.iter().all(|&b| b == i as u8),
                "a handle outlives its number"
            );
        }
    }
}

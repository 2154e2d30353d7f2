//! SIGBUS, what reading a mapped file past its end (another program shortened it) or a
//! disk error under a map raises: the process ends with status 2 and one line naming the
//! file, instead of the shell's "Bus error". Indexes, record files and the whole inputs
//! of `records seal`/`append` are mapped.
//!
//! The handler may only make async-signal-safe calls: it finds the file by reading
//! `/proc/self/maps` (`open`, `read`, `close`) into a buffer on its stack and looking for
//! the mapping that holds the faulting address, then `write`s the line and `_exit`s. No
//! allocation, no lock, nothing that a map's owner registers. Where the file cannot be
//! found (no `/proc`: systems other than Linux), the line says "a file read through a
//! memory map".

/// The line's start, and its end after the file's name.
const START: &[u8] = b"veilkit: ";
const NAMED: &[u8] = b": became unreadable through its memory map (shortened by another \
program while in use, or a read error of the disk): stopped\n";
const UNNAMED: &[u8] = b"veilkit: a file read through a memory map became unreadable \
(shortened by another program while in use, or a read error of the disk): stopped\n";

/// Installs the handler: one system call at start-up, no thread. A killed writer's
/// temporary output is removed by the next write of that output, as after `kill -9`.
pub fn install() {
    #[cfg(unix)]
    {
        extern "C" fn handler(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
            let mut buf = [0u8; 8192];
            let name = file_of(info, &mut buf);
            // SAFETY: write(2) and _exit(2) are async-signal-safe; the buffers are static
            // or on this stack.
            #[allow(unsafe_code)]
            unsafe {
                match name {
                    Some(r) => {
                        write_all(START);
                        write_all(&buf[r]);
                        write_all(NAMED);
                    }
                    None => write_all(UNNAMED),
                }
                libc::_exit(2);
            }
        }
        // SAFETY: a zeroed sigaction is a valid value to fill; the handler above only
        // makes async-signal-safe calls and never returns; failure leaves the default.
        #[allow(unsafe_code)]
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler
                as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
                as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    }
}

/// Where, in `buf`, the name of the file mapped at the faulting address is (Linux: from
/// `/proc/self/maps`).
#[cfg(target_os = "linux")]
fn file_of(info: *mut libc::siginfo_t, buf: &mut [u8]) -> Option<std::ops::Range<usize>> {
    // SAFETY: the kernel passes a valid siginfo to a handler installed with SA_SIGINFO;
    // si_addr is the faulting address for SIGBUS.
    #[allow(unsafe_code)]
    let addr = unsafe { (*info).si_addr() } as usize;
    find_mapping(addr, buf)
}

/// Elsewhere the file is not named (there is no `/proc/self/maps` to read).
#[cfg(all(unix, not(target_os = "linux")))]
fn file_of(_: *mut libc::siginfo_t, _: &mut [u8]) -> Option<std::ops::Range<usize>> {
    None
}

/// write(2) of all of `bytes` to stderr, as far as it goes (async-signal-safe).
#[cfg(unix)]
fn write_all(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: the pointer and length describe `bytes`.
        #[allow(unsafe_code)]
        let n = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

/// Reads `/proc/self/maps` through `buf` and returns where, in `buf`, the path of the
/// file mapped at `addr` is; `None` when no named mapping holds it or the file cannot be
/// read. Async-signal-safe: only open, read and close.
#[cfg(target_os = "linux")]
fn find_mapping(addr: usize, buf: &mut [u8]) -> Option<std::ops::Range<usize>> {
    // SAFETY: a NUL-terminated static path; the descriptor is closed below.
    #[allow(unsafe_code)]
    let fd = unsafe {
        libc::open(
            c"/proc/self/maps".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return None;
    }
    let found = scan_lines(buf, addr, |to| {
        // SAFETY: `to` is a writable part of `buf`.
        #[allow(unsafe_code)]
        let n = unsafe { libc::read(fd, to.as_mut_ptr().cast(), to.len()) };
        usize::try_from(n).ok()
    });
    // SAFETY: `fd` was opened above and is closed once.
    #[allow(unsafe_code)]
    unsafe {
        libc::close(fd)
    };
    found
}

/// The lines `read` gives (up to a line end, or a line longer than `buf`, which is
/// passed over), each looked at by [`path_holding`]; returns where in `buf` the path of
/// the first line whose range holds `addr` is. `read` fills part of its argument and
/// says how many bytes (0 at the end, `None` on an error).
fn scan_lines(
    buf: &mut [u8],
    addr: usize,
    mut read: impl FnMut(&mut [u8]) -> Option<usize>,
) -> Option<std::ops::Range<usize>> {
    let mut filled = 0;
    let mut skipping = false;
    loop {
        let n = read(&mut buf[filled..])?;
        let end = filled + n;
        let mut at = 0;
        while let Some(nl) = buf[at..end].iter().position(|&c| c == b'\n') {
            if !skipping && let Some(r) = path_holding(&buf[at..at + nl], addr) {
                return Some(at + r.start..at + r.end);
            }
            skipping = false;
            at += nl + 1;
        }
        if n == 0 {
            // The last line, without a line end.
            return if skipping {
                None
            } else {
                path_holding(&buf[at..end], addr).map(|r| at + r.start..at + r.end)
            };
        }
        buf.copy_within(at..end, 0);
        filled = end - at;
        if filled == buf.len() {
            // A line longer than the buffer: not one of ours to name; passed over.
            filled = 0;
            skipping = true;
        }
    }
}

/// Where the path is in one line of `/proc/self/maps` (`start-end perms offset dev inode
/// path`, addresses in hex), if its range holds `addr` and it names one.
fn path_holding(line: &[u8], addr: usize) -> Option<std::ops::Range<usize>> {
    let hex = |s: &[u8]| -> Option<usize> {
        if s.is_empty() || s.len() > 16 {
            return None;
        }
        s.iter().try_fold(0usize, |v, &c| {
            let d = (c as char).to_digit(16)?;
            Some(v << 4 | d as usize)
        })
    };
    let dash = line.iter().position(|&c| c == b'-')?;
    let space = line.iter().position(|&c| c == b' ')?;
    let (start, end) = (hex(&line[..dash])?, hex(line.get(dash + 1..space)?)?);
    if !(start <= addr && addr < end) {
        return None;
    }
    // Past four more fields (perms, offset, dev, inode), then the spaces before the path.
    let mut at = space;
    for _ in 0..4 {
        at += line[at..].iter().position(|&c| c != b' ')?;
        at += line[at..].iter().position(|&c| c == b' ')?;
    }
    at += line[at..].iter().position(|&c| c != b' ')?;
    Some(at..line.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAPS: &str = "\
55d0c0a00000-55d0c0a2c000 r--p 00000000 fd:01 1835 /usr/bin/veilkit
7f1c2a000000-7f1c2b000000 r--s 00000000 fd:01 99 /srv/hibp index.idx
7f1c2b000000-7f1c2b021000 rw-p 00000000 00:00 0 
7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0                          [stack]
7f1c2c000000-7f1c2c001000 r--s 00000000 00:1f 12 /tmp/#12 (deleted)";

    /// Feeds `text` in pieces of `step` bytes.
    fn scan(text: &str, addr: usize, buf_len: usize, step: usize) -> Option<String> {
        let mut buf = vec![0u8; buf_len];
        let mut rest = text.as_bytes();
        let r = scan_lines(&mut buf, addr, |to| {
            let n = step.min(to.len()).min(rest.len());
            to[..n].copy_from_slice(&rest[..n]);
            rest = &rest[n..];
            Some(n)
        })?;
        Some(String::from_utf8(buf[r].to_vec()).unwrap())
    }

    #[test]
    fn the_mapping_holding_the_address_is_named() {
        for (buf, step) in [(8192, 8192), (128, 7), (100, 1), (96, 96)] {
            let at = |a: usize| scan(MAPS, a, buf, step);
            assert_eq!(at(0x7f1c2a000000).as_deref(), Some("/srv/hibp index.idx"));
            assert_eq!(at(0x7f1c2affffff).as_deref(), Some("/srv/hibp index.idx"));
            assert_eq!(at(0x55d0c0a00010).as_deref(), Some("/usr/bin/veilkit"));
            assert_eq!(at(0x7f1c2c000fff).as_deref(), Some("/tmp/#12 (deleted)"));
            assert_eq!(at(0x7ffd1c000000).as_deref(), Some("[stack]"));
            // Anonymous memory has no name; outside every range, none either.
            assert_eq!(at(0x7f1c2b000010), None);
            assert_eq!(at(0x7f1c2b021000), None);
            assert_eq!(at(0), None);
        }
    }

    #[test]
    fn a_line_longer_than_the_buffer_is_passed_over() {
        let long = format!(
            "10-20 r--s 00000000 fd:01 1 /{}\n30-40 r--s 00000000 fd:01 2 /short\n",
            "x".repeat(300)
        );
        assert_eq!(scan(&long, 0x15, 64, 10), None);
        assert_eq!(scan(&long, 0x35, 64, 10).as_deref(), Some("/short"));
    }

    /// A maps line: a range, the four fields, and a path (empty, with spaces, or
    /// long) after one to twenty spaces; with its range and the name it should give.
    fn maps_line()
    -> impl proptest::strategy::Strategy<Value = (String, usize, usize, Option<String>)> {
        use proptest::prelude::*;
        (0usize..64, 1usize..16, 1usize..20, "[ a-z/#()\\[\\]]{0,60}").prop_map(
            |(start, len, pad, path)| {
                let (start, end) = (start * 16, (start + len) * 16);
                let line = format!(
                    "{start:x}-{end:x} r--s 00000000 fd:01 7{}{path}",
                    " ".repeat(pad)
                );
                let name = Some(path.trim_start_matches(' ').to_string()).filter(|p| !p.is_empty());
                (line, start, end, name)
            },
        )
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        /// Whatever the reads' sizes and the buffer's, the name found is the one made:
        /// that of the first line shorter than the buffer whose range holds the address
        /// and which names a file.
        #[test]
        fn names_are_found_as_they_were_written(
            lines in proptest::collection::vec(maps_line(), 0..12),
            unit in 0usize..80,
            within in proptest::sample::select(vec![0usize, 1, 15]),
            buf_len in 24usize..160,
            step in 1usize..300,
            last_newline in proptest::prelude::any::<bool>(),
        ) {
            // Addresses at and around the ranges' ends, where an off-by-one would show.
            let addr = unit * 16 + within;
            let mut text = lines.iter().map(|l| l.0.as_str()).collect::<Vec<_>>().join("\n");
            if last_newline {
                text.push('\n');
            }
            let want = lines
                .iter()
                .filter(|(line, start, end, _)| line.len() < buf_len && (*start..*end).contains(&addr))
                .find_map(|(_, _, _, name)| name.clone());
            proptest::prop_assert_eq!(scan(&text, addr, buf_len, step), want);
        }
    }

    #[test]
    fn a_read_error_names_nothing() {
        let mut buf = [0u8; 64];
        assert_eq!(scan_lines(&mut buf, 1, |_| None), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_maps_are_read() {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), [7u8; 4096]).unwrap();
        // SAFETY: a read-only map of a file this test owns and does not change.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(f.as_file()) }.unwrap();
        let mut buf = [0u8; 8192];
        let r = find_mapping(map.as_ptr() as usize + 100, &mut buf).unwrap();
        assert_eq!(&buf[r], f.path().as_os_str().as_encoded_bytes());
    }
}

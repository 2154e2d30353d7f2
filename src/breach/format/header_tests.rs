//! Each consistency check of an index header, just inside and just past its bound: a
//! header that holds together passes, one changed past a bound is refused naming it
//! (the header's checksum guards against damage; these checks against a header written
//! by something else, and against a bound loosened by a later edit).

use super::*;

/// A consistent header: `records` records of 10 table bits, `overflow` overflow
/// entries, every section where the writer puts it (each at the next 4 KiB boundary).
fn laid_out(version: u32, records: u64, overflow: u64) -> Header {
    let params = Params::new(HashKind::Sha1, 10);
    let mut end = HEADER_SIZE as u64;
    let mut place = |len: u64| {
        let off = align(end);
        end = off + len;
        (off, len)
    };
    let records_len = records * params.record_size as u64;
    let records_at = place(records_len);
    let overflow_at = place(overflow * OVERFLOW_ENTRY as u64);
    let table_at = place(params.table_len());
    let blocks_at = place(records_len.div_ceil(BLOCK_SIZE) * 8);
    let sums_at = if version >= 2 {
        place(
            params
                .table_len()
                .div_ceil(super::super::checked::CHUNK as u64)
                * 8,
        )
    } else {
        (0, 0)
    };
    let lookup_at = if version >= 3 {
        place(
            records_len.div_ceil(super::super::checked::LOOKUP_BLOCK as u64)
                * super::super::checked::LOOKUP_SUM as u64,
        )
    } else {
        (0, 0)
    };
    Header {
        params,
        records,
        overflow_entries: overflow,
        max_count: 0,
        total_count: 0,
        records_at,
        overflow_at,
        table_at,
        blocks_at,
        overflow_sum: 0,
        table_sum: 0,
        blocks_sum: 0,
        file_len: end,
        version,
        flags: 0,
        sums_at,
        lookup_at,
    }
}

/// What `check` says of `h` on a file of its declared length (plus `extra` bytes).
fn verdict(h: &Header, extra: i64) -> Result<(), HeaderError> {
    h.check(h.file_len.wrapping_add_signed(extra))
}

#[test]
fn each_check_of_a_header_refuses_just_past_its_bound() {
    let inconsistent = HeaderError::Inconsistent;
    for version in [1, 2, 3] {
        let h = laid_out(version, 100, 3);
        assert_eq!(verdict(&h, 0), Ok(()));
        // As many overflow entries as records: the most there can be.
        assert_eq!(verdict(&laid_out(version, 3, 3), 0), Ok(()));
        assert_eq!(
            verdict(&laid_out(version, 3, 4), 0),
            Err(inconsistent("overflow entries"))
        );
        assert_eq!(verdict(&laid_out(version, 0, 0), 0), Ok(()));
        type Edit = fn(&mut Header);
        let cases: [(Edit, &str); 13] = [
            (|h| h.records += 1, "records length"),
            (|h| h.records = u64::MAX, "records length"),
            (|h| h.overflow_entries += 1, "overflow length"),
            (|h| h.overflow_entries = u64::MAX, "overflow length"),
            (|h| h.table_at.1 += 4, "table length"),
            (|h| h.blocks_at.1 += 8, "block checksums length"),
            (|h| h.records_at.0 = 0, "section offsets"),
            (|h| h.overflow_at.0 += 8, "section offsets"),
            // Sections overlapping: the table where the overflow entries are.
            (|h| h.table_at.0 = h.overflow_at.0, "section offsets"),
            // Sections in another order.
            (
                |h| (h.records_at, h.overflow_at) = (h.overflow_at, h.records_at),
                "records length",
            ),
            (
                |h| h.table_at.0 = u64::MAX / ALIGN * ALIGN,
                "section lengths",
            ),
            (|h| h.file_len += 1, "file length"),
            (|h| h.file_len -= 1, "file length"),
        ];
        for (i, (edit, want)) in cases.iter().enumerate() {
            let mut bad = h.clone();
            edit(&mut bad);
            assert_eq!(
                verdict(&bad, 0),
                Err(inconsistent(want)),
                "version {version}, case {i}"
            );
        }
        // Version 2's table checksums; version 1 has none, and ignores the field.
        let mut sums = h.clone();
        sums.sums_at.1 += 8;
        let want = if version >= 2 {
            Err(inconsistent("table checksums length"))
        } else {
            Ok(())
        };
        assert_eq!(verdict(&sums, 0), want);
        // Version 3's lookup block checksums: one of 4 bytes per 512 bytes of records;
        // older versions have none, and ignore the field.
        let mut lookup = h.clone();
        lookup.lookup_at.1 += 4;
        let want = if version >= 3 {
            Err(inconsistent("lookup checksums length"))
        } else {
            Ok(())
        };
        assert_eq!(verdict(&lookup, 0), want);
        if version >= 3 {
            assert_eq!(h.lookup_at.1, (100u64 * 21).div_ceil(512) * 4);
            // Written and read back through the header's bytes.
            let back = Header::decode(&h.encode(), h.file_len);
            assert_eq!(back.as_ref().map(|b| b.lookup_at), Ok(h.lookup_at));
        }
        // The file itself: shorter than the header says, or longer.
        assert_eq!(
            verdict(&h, -1),
            Err(HeaderError::Truncated {
                expected: h.file_len,
                actual: h.file_len - 1
            })
        );
        assert_eq!(
            verdict(&h, 1),
            Err(inconsistent("trailing bytes after the last section"))
        );
    }
}

//! The range server's routing on arbitrary methods, paths, queries and padding: never a
//! panic, always a status among those documented (204: the CORS preflight).
use crate::breach::serve::Service;
use crate::breach::tier::AnyIndex;
use std::sync::OnceLock;

fn service() -> &'static Service {
    static S: OnceLock<Service> = OnceLock::new();
    S.get_or_init(|| {
        let dump = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3\n";
        let dir = std::env::temp_dir();
        let mut out = tempfile::tempfile_in(&dir).unwrap();
        let mut input = dump.as_bytes();
        crate::breach::build::build(
            crate::breach::build::Source::Stream {
                reader: &mut input,
                name: "d".into(),
                size: None,
            },
            &mut out,
            Default::default(),
            &dir,
            &crate::progress::NoProgress,
        )
        .unwrap();
        let index = crate::breach::index::Index::open_file(&out).unwrap();
        Service::new(vec![AnyIndex::Exact(index)]).unwrap()
    })
}

/// One input.
pub fn run(data: &[u8]) {
    // Eight bytes of seed, a byte of flags (bit 0: padding; bit 1: a query), then the
    // method, path and query separated by NUL bytes (lossily as text).
    let [s0, s1, s2, s3, s4, s5, s6, s7, flags, rest @ ..] = data else {
        return;
    };
    let mut seed = u64::from_le_bytes([*s0, *s1, *s2, *s3, *s4, *s5, *s6, *s7]);
    let mut parts = rest.split(|&b| b == 0).map(String::from_utf8_lossy);
    let method = parts.next().unwrap_or_default().into_owned();
    let path = parts.next().unwrap_or_default().into_owned();
    let query = (flags & 2 != 0).then(|| parts.next().unwrap_or_default().into_owned());
    let padding = flags & 1 != 0;
    let mut random = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        seed
    };
    let reply = service().respond(&method, &path, query.as_deref(), padding, &mut random);
    assert!([200, 204, 400, 404, 405, 500, 501].contains(&reply.status));
}

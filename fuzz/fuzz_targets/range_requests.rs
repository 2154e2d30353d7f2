//! The range server's routing on arbitrary methods, paths, queries and padding: never a
//! panic, always a status among those documented (204: the CORS preflight).
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use veilkit::breach::serve::Service;
use veilkit::breach::tier::AnyIndex;

fn service() -> &'static Service {
    static S: OnceLock<Service> = OnceLock::new();
    S.get_or_init(|| {
        let dump = "5BAA61E4C9B93F3F0682250B6CF8331B7EE68FD8:3\n";
        let dir = std::env::temp_dir();
        let mut out = tempfile::tempfile_in(&dir).unwrap();
        let mut input = dump.as_bytes();
        veilkit::breach::build::build(
            veilkit::breach::build::Source::Stream { reader: &mut input, name: "d".into(), size: None },
            &mut out,
            Default::default(),
            &dir,
            &veilkit::progress::NoProgress,
        )
        .unwrap();
        let index = veilkit::breach::index::Index::open_file(&out).unwrap();
        Service::new(vec![AnyIndex::Exact(index)]).unwrap()
    })
}

fuzz_target!(|data: (String, String, Option<String>, bool, u64)| {
    let (method, path, query, padding, mut seed) = data;
    let mut random = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        seed
    };
    let reply = service().respond(&method, &path, query.as_deref(), padding, &mut random);
    assert!([200, 204, 400, 404, 405, 500, 501].contains(&reply.status));
});

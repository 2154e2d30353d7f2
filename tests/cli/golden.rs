//! Golden cases (trycmd): arguments, stdin, and the exact stdout, stderr and exit status,
//! kept as data files under `tests/cmd/`. Refresh after a deliberate change of wording with
//! `TRYCMD=overwrite cargo test --test cli golden`.

#[test]
fn golden() {
    trycmd::TestCases::new()
        .default_bin_path(super::common::bin())
        .env("VEILKIT_GOLDEN", "1")
        .case("tests/cmd/*.toml");
}

//! The `veilkit` binary: everything lives in the library; see `veilkit::cli`.

fn main() -> std::process::ExitCode {
    veilkit::cli::main()
}

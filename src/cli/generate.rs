//! Shell completions and man pages, generated from the clap definition.
//!
//! The generated files are committed under `completions/` and `man/`. The integration
//! test `generated_files_are_fresh` renders them in memory and fails when they are stale;
//! refresh them with:
//!
//! ```sh
//! VEILKIT_REGENERATE=1 cargo test --test cli generated_files_are_fresh
//! ```

use super::manual::{ENV_COMMON, ENV_KEYS, ManExtra, TOP};
use clap::CommandFactory;
use clap_complete::Shell;
use roff::{Roff, bold, italic, roman};

/// The command that rewrites the generated files.
pub const REFRESH_COMMAND: &str =
    "VEILKIT_REGENERATE=1 cargo test --test cli generated_files_are_fresh";

/// The extra man page sections of the command at `path` (e.g. `["keygen"]`).
fn extra_for(path: &[&str]) -> ManExtra {
    match path {
        ["keygen"] => super::keygen::MAN,
        ["keys"] => super::keys::MAN,
        ["breach"] => super::breach::MAN,
        ["breach", "build"] => super::breach::build::MAN,
        ["breach", "download"] => super::breach::download::MAN,
        ["breach", "update"] => super::breach::update::MAN,
        ["breach", "query"] => super::breach::query::MAN,
        ["breach", "check"] => super::breach::check::MAN,
        ["breach", "info"] => super::breach::info::MAN,
        ["breach", "verify"] => super::breach::verify::MAN,
        ["breach", "export-ranges"] => super::breach::export_ranges::MAN,
        ["breach", "compress-ranges"] => super::breach::compress_ranges::MAN,
        ["breach", "merge"] => super::breach::merge::MAN,
        ["breach", "diff"] => super::breach::diff::MAN,
        ["breach", "serve"] => super::breach::serve::MAN,
        ["breach", "okon"] => super::breach::okon::MAN,
        ["encode"] => super::encode::MAN,
        ["decode"] => super::decode::MAN,
        ["reencode"] => super::reencode::MAN,
        ["ids"] | ["ids", "sql"] => super::ids::MAN,
        ["nonce"] => super::nonce::MAN,
        ["records"] => super::records::MAN,
        ["records", "seal"] => super::records::seal::MAN,
        ["records", "open"] => super::records::open::MAN,
        ["records", "get"] => super::records::get::MAN,
        ["records", "append"] => super::records::append::MAN,
        ["records", "delete"] => super::records::delete::MAN,
        ["records", "rekey"] => super::records::rekey::MAN,
        ["records", "verify"] => super::records::verify::MAN,
        ["records", "info"] => super::records::info::MAN,
        ["records", "encrypt-fields"] => super::records::encrypt_fields::MAN,
        ["records", "decrypt-fields"] => super::records::decrypt_fields::MAN,
        ["bench"] => super::bench::MAN,
        ["completions"] => super::completions::MAN,
        ["man"] => super::man::MAN,
        _ => TOP,
    }
}

/// The shells completions are generated for, with their file names.
pub const SHELLS: &[(Shell, &str)] = &[
    (Shell::Bash, "veilkit.bash"),
    (Shell::Zsh, "_veilkit"),
    (Shell::Fish, "veilkit.fish"),
    (Shell::Elvish, "veilkit.elv"),
    (Shell::PowerShell, "_veilkit.ps1"),
];

/// Completion scripts: (file name under `completions/`, contents).
pub fn completions() -> Vec<(String, Vec<u8>)> {
    SHELLS
        .iter()
        .map(|(shell, file)| (file.to_string(), completion(*shell)))
        .collect()
}

/// The completion script of `shell`.
pub fn completion(shell: Shell) -> Vec<u8> {
    let mut cmd = super::tree::Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "veilkit", &mut buf);
    buf
}

/// Man pages: (file name under `man/`, contents), one per command and subcommand.
pub fn man_pages() -> Vec<(String, Vec<u8>)> {
    // `veilkit help SUB` prints SUB's help, which has a page of its own: no page for it.
    fn without_help(cmd: clap::Command) -> clap::Command {
        cmd.disable_help_subcommand(true)
            .mut_subcommands(without_help)
    }
    let mut cmd = without_help(super::tree::Cli::command());
    cmd.build();
    let mut pages = Vec::new();
    collect_pages(&cmd, &mut Vec::new(), &mut pages);
    pages
}

fn collect_pages<'a>(
    cmd: &'a clap::Command,
    path: &mut Vec<&'a str>,
    out: &mut Vec<(String, Vec<u8>)>,
) {
    out.push(render_page(cmd, path));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        path.push(sub.get_name());
        collect_pages(sub, path, out);
        path.pop();
    }
}

fn render_page(cmd: &clap::Command, path: &[&str]) -> (String, Vec<u8>) {
    let name = std::iter::once("veilkit")
        .chain(path.iter().copied())
        .collect::<Vec<_>>()
        .join("-");
    let version = env!("CARGO_PKG_VERSION");
    // The `--help` examples are rendered below as EXAMPLES; keep them out of DESCRIPTION.
    let page_cmd = cmd
        .clone()
        .after_help(None::<&str>)
        .after_long_help(None::<&str>);
    let man = clap_mangen::Man::new(page_cmd.clone())
        .title(name.to_uppercase())
        .section("1")
        .date("")
        .source(format!("veilkit {version}"))
        .manual("veilkit manual");
    let mut buf = Vec::new();
    type Section = fn(&clap_mangen::Man, &mut dyn std::io::Write) -> std::io::Result<()>;
    let sections: [Section; 4] = [
        clap_mangen::Man::render_title,
        clap_mangen::Man::render_name_section,
        clap_mangen::Man::render_synopsis_section,
        clap_mangen::Man::render_description_section,
    ];
    for render in sections {
        render(&man, &mut buf).expect("writing to memory");
    }
    if page_cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut buf)
            .expect("writing to memory");
    }
    if page_cmd.has_subcommands() {
        man.render_subcommands_section(&mut buf)
            .expect("writing to memory");
    }

    let extra = extra_for(path);
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    for (code, meaning) in extra.exit_status {
        roff.control("TP", [])
            .text([bold(*code)])
            .text([roman(*meaning)]);
    }
    roff.control("SH", ["ENVIRONMENT"]);
    let env_keys: &[(&str, &str)] = if extra.uses_keys { ENV_KEYS } else { &[] };
    for (var, meaning) in env_keys.iter().chain(extra.environment).chain(ENV_COMMON) {
        roff.control("TP", [])
            .text([bold(*var)])
            .text([roman(*meaning)]);
    }
    if !extra.examples.is_empty() {
        roff.control("SH", ["EXAMPLES"]);
        for (what, line) in extra.examples {
            roff.control("TP", [])
                .text([roman(*what)])
                .control("EX", [])
                .text([roman(*line)])
                .control("EE", []);
        }
    }
    roff.control("SH", ["SEE ALSO"]);
    let see_also: Vec<String> = if path.is_empty() {
        cmd.get_subcommands()
            .filter(|s| !s.is_hide_set())
            .map(|s| format!("veilkit-{}(1)", s.get_name()))
            .collect()
    } else {
        vec!["veilkit(1)".to_string()]
    };
    roff.text([italic(see_also.join(", "))]);
    roff.control("SH", ["VERSION"]);
    roff.text([roman(format!("v{version}"))]);
    roff.to_writer(&mut buf).expect("writing to memory");
    (format!("{name}.1"), buf)
}

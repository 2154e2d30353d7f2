//! `veilkit bench`: the published figures for these techniques, reproduced on this
//! machine.

use super::manual::ManExtra;
use super::output::Bar;
use super::status::{Global, Status};
use crate::bench::{self, Figure, Machine, Options, Scale, Section, Table};
use crate::progress::Progress;
use anyhow::Context;
use std::io::Write;
use std::path::PathBuf;

/// One line for the command list.
pub const ABOUT: &str =
    "Measure ids, nonces, codecs, breach lookups and record files on this machine";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Measure, on this machine, the figures people quote for these \
techniques, in the tables their sources publish, each beside the published figure it \
reproduces:

  ids      latency of one encode and decode in a dependent chain, in cycles (timestamp \
counter) and ns, and batch throughput (Khuong's table)
  nonces   nonces per second for each kind and width, with 1, 4 and all threads, beside \
the operating system's random source (NoNoncense's table)
  codecs   encrypting and decrypting 10,000-byte texts with each AEAD and mode, beside a \
memory copy (Tkrzw's codec table)
  breach   lookup latency cold, warm and hot, median and p99 (the \"50 µs\" article)
  records  set and get rates and file size, plaintext against encrypted (Tkrzw's and SQL \
Server's tables)

By default the sources' workloads are scaled down so that `all` finishes within a minute; \
per-operation figures stay comparable with the published ones. --quick finishes within \
10 seconds; --full runs the published sizes. Every figure is the median of repeated runs; \
a figure whose runs disagree by more than 25% is marked `*` (`noisy` in JSON): the machine \
was too busy to trust it, so run again on a quieter machine. Nothing is pinned to a core.

The breach section builds a temporary index from generated hashes unless --index names \
one; cold lookups evict the index from the page cache where the OS allows it (with the \
temporary index on a memory file system they cannot be cold: set TMPDIR to a disk-backed \
directory). Run a release build: a debug build is many times slower, and says so.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: &[
        ("0", "every section ran"),
        (
            "2",
            "error: a bad option, an unusable --index, scratch files that cannot be written",
        ),
        ("130", "interrupted (SIGINT; 128 + N for signal N)"),
    ],
    uses_keys: false,
    environment: &[(
        "TMPDIR",
        "Where scratch files (the generated breach index, record files) are written.",
    )],
    examples: &[
        ("Every table, about a minute", "veilkit bench"),
        (
            "A quick look, under 10 seconds",
            "veilkit bench all --quick",
        ),
        (
            "Lookup latency of your own index",
            "veilkit bench breach --index pwned.idx",
        ),
        (
            "Nonce rates with 1, 8 and all threads, as JSON",
            "veilkit bench nonces --threads 1,8,max --json",
        ),
    ],
};

/// Which tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Which {
    /// Every section.
    All,
    /// Opaque ids.
    Ids,
    /// Nonces.
    Nonces,
    /// Ciphers and AEADs.
    Codecs,
    /// Breach index lookups.
    Breach,
    /// Record files.
    Records,
}

// Arguments of `veilkit bench`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = super::manual::examples_help(&MAN))]
pub struct Args {
    /// The section to run.
    #[arg(value_enum, default_value = "all")]
    pub section: Which,

    /// Small workloads: everything within 10 seconds.
    #[arg(long, conflicts_with = "full")]
    pub quick: bool,

    /// The published workload sizes (minutes).
    #[arg(long)]
    pub full: bool,

    /// Print JSON (schema in docs/BENCH.md) instead of tables.
    #[arg(long)]
    pub json: bool,

    /// Thread counts for the nonce table, comma-separated; `max` is every core.
    #[arg(short = 'j', long, value_delimiter = ',', value_parser = parse_threads, default_value = "1,4,max", value_name = "N,...")]
    pub threads: Vec<usize>,

    /// Measure this breach index instead of a generated one.
    #[arg(long, value_name = "INDEX")]
    pub index: Option<PathBuf>,

    /// A handful of iterations (tests of the output's shape; figures mean nothing).
    #[arg(long, hide = true, conflicts_with_all = ["quick", "full"])]
    pub tiny: bool,
}

fn parse_threads(s: &str) -> Result<usize, String> {
    match s {
        "max" | "all" => Ok(0),
        _ => match s.parse::<usize>() {
            Ok(n) if (1..=1024).contains(&n) => Ok(n),
            _ => Err(format!("`{s}` is not a thread count (1 to 1024, or max)")),
        },
    }
}

/// Progress over several sections: each section's total restarts the bar.
struct Sections<'a>(&'a Bar);

impl Progress for Sections<'_> {
    fn set_total(&self, total: u64) {
        self.0.restart(total);
    }
    fn advance(&self, delta: u64) {
        self.0.advance(delta);
    }
    fn phase(&self, what: &str) {
        self.0.phase(&format!("bench {what}"));
    }
}

/// Runs `veilkit bench`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let scale = if args.tiny {
        Scale::Tiny
    } else if args.quick {
        Scale::Quick
    } else if args.full {
        Scale::Full
    } else {
        Scale::Default
    };
    if args.threads.len() > 8 {
        anyhow::bail!("--threads: at most 8 thread counts");
    }
    let options = Options {
        scale,
        threads: args.threads.clone(),
        index: args.index.clone(),
        scratch: std::env::temp_dir(),
    };
    let sections: Vec<Section> = match args.section {
        Which::All => Section::ALL.to_vec(),
        Which::Ids => vec![Section::Ids],
        Which::Nonces => vec![Section::Nonces],
        Which::Codecs => vec![Section::Codecs],
        Which::Breach => vec![Section::Breach],
        Which::Records => vec![Section::Records],
    };
    // Scratch files live in temporary directories: remove them on SIGINT.
    super::signals::install();
    let machine = bench::machine();
    if !machine.optimized && !args.tiny {
        eprintln!(
            "veilkit: warning: this is a debug build; its figures are many times below a release build's"
        );
    }
    let bar = Bar::items(global, "bench", "steps");
    let progress = Sections(&bar);
    let mut out = super::output::stdout_text();
    if !args.json {
        write!(out, "{}", header(&machine, scale)).context("stdout")?;
        out.flush().context("stdout")?;
    }
    let mut tables = Vec::new();
    for section in sections {
        let table = bench::run(section, &options, &progress)
            .with_context(|| format!("bench {}", section.name()))?;
        if !args.json {
            bar.suspend(|| -> anyhow::Result<()> {
                write!(out, "\n{}", render(&table)).context("stdout")?;
                out.flush().context("stdout")
            })?;
        }
        tables.push(table);
    }
    bar.finish();
    if args.json {
        let json = bench::to_json(&machine, scale, &tables);
        writeln!(out, "{json:#}").context("stdout")?;
    } else if tables.iter().any(Table::noisy) {
        writeln!(
            out,
            "\n* runs of this figure disagreed by more than {:.0}%: the machine was too noisy to trust it",
            bench::NOISY_SPREAD * 100.0
        )
        .context("stdout")?;
    }
    out.flush().context("stdout")?;
    Ok(Status::Success)
}

fn header(m: &Machine, scale: Scale) -> String {
    format!(
        "veilkit {} bench ({} scale)\nmachine: {}, {} logical CPU(s), {}; {}{}\n",
        env!("CARGO_PKG_VERSION"),
        scale.name(),
        m.cpu,
        m.cores,
        if m.features.is_empty() {
            "no AES/SHA instructions detected".to_string()
        } else {
            m.features.join(" ")
        },
        m.os,
        if m.optimized { "" } else { "; DEBUG BUILD" }
    )
}

/// A figure with three significant digits or so, and `*` when noisy.
fn cell(f: &Option<Figure>) -> String {
    let Some(f) = f else {
        return "-".into();
    };
    let v = f.median;
    let text = if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    };
    if f.noisy() { format!("{text}*") } else { text }
}

/// A table with aligned columns: label, figures (heading over unit), reference.
pub fn render(t: &Table) -> String {
    let label_w = t
        .rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(10);
    let cells: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| r.figures.iter().map(cell).collect())
        .collect();
    let widths: Vec<usize> = t
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .chain([c.label.chars().count(), c.unit.chars().count()])
                .max()
                .unwrap_or(1)
        })
        .collect();
    let mut s = format!("{}\n", t.title);
    let pad = |text: &str, w: usize| {
        format!(
            "{}{text}",
            " ".repeat(w.saturating_sub(text.chars().count()))
        )
    };
    let left = |text: &str, w: usize| {
        format!(
            "{text}{}",
            " ".repeat(w.saturating_sub(text.chars().count()))
        )
    };
    let mut head = left("", label_w);
    let mut unit = left("", label_w);
    for (c, w) in t.columns.iter().zip(&widths) {
        head.push_str("  ");
        head.push_str(&pad(&c.label, *w));
        unit.push_str("  ");
        unit.push_str(&pad(&c.unit, *w));
    }
    let any_ref = t.rows.iter().any(|r| r.reference.is_some());
    if any_ref {
        head.push_str("  published / peers");
    }
    s.push_str(head.trim_end());
    s.push('\n');
    s.push_str(unit.trim_end());
    s.push('\n');
    for (r, row_cells) in t.rows.iter().zip(&cells) {
        let mut line = left(&r.label, label_w);
        for (c, w) in row_cells.iter().zip(&widths) {
            line.push_str("  ");
            line.push_str(&pad(c, *w));
        }
        if let Some(reference) = &r.reference {
            line.push_str("  ");
            line.push_str(reference);
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    for n in &t.notes {
        s.push_str("  note: ");
        s.push_str(n);
        s.push('\n');
    }
    s
}

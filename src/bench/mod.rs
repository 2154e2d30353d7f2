//! `veilkit bench`: the figures people quote for these techniques, measured on the
//! user's own machine (issue: veilkit bench). Each section returns a [`Table`]; the
//! command line renders tables or JSON (schema in `docs/BENCH.md`).
//!
//! Rules every section follows: results feed `std::hint::black_box` so the work cannot
//! be optimised away; nothing is pinned (threads are left to the scheduler, and the
//! report says so); every figure is the median of repeated runs, with the spread
//! between runs kept so that a noisy machine is reported as such.

pub mod breach;
pub mod codecs;
pub mod ids;
pub mod nonces;
pub mod records;

use crate::progress::Progress;
use std::path::PathBuf;

/// Errors of a benchmark run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// Scratch files could not be written or read.
    #[error("scratch files")]
    Scratch(#[source] std::io::Error),
    /// The index given with `--index` could not be used.
    #[error("index: {0}")]
    Index(String),
    /// A library call failed (a bug: the inputs are generated).
    #[error("{section}: {what}")]
    Failed {
        /// The section.
        section: &'static str,
        /// What failed.
        what: String,
    },
}

impl BenchError {
    pub(crate) fn failed(section: &'static str, what: impl std::fmt::Display) -> BenchError {
        BenchError::Failed {
            section,
            what: what.to_string(),
        }
    }
}

/// The sections, in the order `all` runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// Opaque id latency and throughput (Khuong's table).
    Ids,
    /// Nonce generation rates (NoNoncense's table).
    Nonces,
    /// Cipher and AEAD throughput on 10,000-byte texts (Tkrzw's codec table).
    Codecs,
    /// Breach index lookup latency, cold, warm and hot.
    Breach,
    /// Record file set and get rates, plaintext against encrypted.
    Records,
}

impl Section {
    /// Every section.
    pub const ALL: [Section; 5] = [
        Section::Ids,
        Section::Nonces,
        Section::Codecs,
        Section::Breach,
        Section::Records,
    ];

    /// Its name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Section::Ids => "ids",
            Section::Nonces => "nonces",
            Section::Codecs => "codecs",
            Section::Breach => "breach",
            Section::Records => "records",
        }
    }
}

/// How much work: `Quick` (the whole run within 10 s), `Default` (within 60 s) or `Full`
/// (the sources' published workload sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Within 10 seconds for all sections.
    Quick,
    /// Within 60 seconds for all sections.
    Default,
    /// The published sizes.
    Full,
    /// A handful of iterations: for tests of the report's shape only.
    Tiny,
}

impl Scale {
    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Scale::Quick => "quick",
            Scale::Default => "default",
            Scale::Full => "full",
            Scale::Tiny => "tiny",
        }
    }

    /// Picks one of four values by scale.
    pub(crate) fn pick<T>(self, tiny: T, quick: T, default: T, full: T) -> T {
        match self {
            Scale::Tiny => tiny,
            Scale::Quick => quick,
            Scale::Default => default,
            Scale::Full => full,
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Workload sizes.
    pub scale: Scale,
    /// Thread counts for the multi-threaded rows (0 means every core).
    pub threads: Vec<usize>,
    /// An existing breach index to measure instead of a generated one.
    pub index: Option<PathBuf>,
    /// Where scratch files go (a temporary directory is made inside).
    pub scratch: PathBuf,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            scale: Scale::Default,
            threads: vec![1, 4, 0],
            index: None,
            scratch: std::env::temp_dir(),
        }
    }
}

/// One measured figure: the median of repeated runs (or of per-operation samples), in
/// the column's unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    /// The median.
    pub median: f64,
    /// The 99th percentile, for latency distributions.
    pub p99: Option<f64>,
    /// (largest - smallest) / median over the repeated runs, outliers at both ends
    /// dropped from five runs on; `None` for distributions of single operations.
    pub spread: Option<f64>,
    /// Runs (or samples) behind the median.
    pub runs: usize,
}

/// Relative spread above which a figure is reported as untrustworthy.
pub const NOISY_SPREAD: f64 = 0.25;

impl Figure {
    /// The median of repeated runs, each giving one value.
    pub fn of_runs(mut values: Vec<f64>) -> Figure {
        values.sort_by(f64::total_cmp);
        let n = values.len();
        let median = median_sorted(&values);
        let trimmed = if n >= 5 {
            &values[1..n - 1]
        } else {
            &values[..]
        };
        let spread = match (trimmed.first(), trimmed.last()) {
            (Some(lo), Some(hi)) if median > 0.0 => (hi - lo) / median,
            _ => 0.0,
        };
        Figure {
            median,
            p99: None,
            spread: Some(spread),
            runs: n,
        }
    }

    /// The median and 99th percentile of single-operation samples.
    pub fn of_samples(mut samples: Vec<f64>) -> Figure {
        samples.sort_by(f64::total_cmp);
        let p99 = samples
            .get(((samples.len().saturating_sub(1)) as f64 * 0.99).round() as usize)
            .copied();
        Figure {
            median: median_sorted(&samples),
            p99,
            spread: None,
            runs: samples.len(),
        }
    }

    /// Whether repeated runs disagreed too much to trust the median.
    pub fn noisy(&self) -> bool {
        self.spread.is_some_and(|s| s > NOISY_SPREAD)
    }

    /// The same figure in another unit (`factor` times).
    pub fn scaled(self, factor: f64) -> Figure {
        Figure {
            median: self.median * factor,
            p99: self.p99.map(|v| v * factor),
            ..self
        }
    }
}

fn median_sorted(v: &[f64]) -> f64 {
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// A column of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Key in JSON.
    pub key: String,
    /// Heading in the table.
    pub label: String,
    /// Unit of its figures.
    pub unit: String,
}

/// A column.
pub(crate) fn col(key: impl Into<String>, label: impl Into<String>, unit: &str) -> Column {
    Column {
        key: key.into(),
        label: label.into(),
        unit: unit.to_string(),
    }
}

/// A row: a label, one figure per column (or none), and the published figure it
/// reproduces, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// What was measured.
    pub label: String,
    /// One per column.
    pub figures: Vec<Option<Figure>>,
    /// The published (or peer) figure this row sets itself beside.
    pub reference: Option<String>,
}

/// One section's results.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The section.
    pub section: Section,
    /// A one-line title naming the source table.
    pub title: String,
    /// Columns.
    pub columns: Vec<Column>,
    /// Rows.
    pub rows: Vec<Row>,
    /// Workload, method and caveats.
    pub notes: Vec<String>,
}

impl Table {
    pub(crate) fn new(section: Section, title: impl Into<String>, columns: Vec<Column>) -> Table {
        Table {
            section,
            title: title.into(),
            columns,
            rows: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub(crate) fn row(
        &mut self,
        label: impl Into<String>,
        figures: Vec<Option<Figure>>,
        reference: Option<&str>,
    ) {
        debug_assert_eq!(figures.len(), self.columns.len());
        self.rows.push(Row {
            label: label.into(),
            figures,
            reference: reference.map(str::to_string),
        });
    }

    /// Whether any figure of the table is noisy.
    pub fn noisy(&self) -> bool {
        self.rows
            .iter()
            .flat_map(|r| r.figures.iter().flatten())
            .any(Figure::noisy)
    }
}

/// The machine the figures come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// The processor's model name.
    pub cpu: String,
    /// Logical CPUs available to this process.
    pub cores: usize,
    /// Instruction set extensions that matter here, detected at run time.
    pub features: Vec<&'static str>,
    /// Operating system and architecture.
    pub os: String,
    /// Whether this is an optimised build (debug builds are far slower).
    pub optimized: bool,
}

/// Describes this machine.
pub fn machine() -> Machine {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name") || l.starts_with("Model"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown processor".to_string());
    let features = crate::cpu::features();
    Machine {
        cpu,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        features,
        os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        optimized: !cfg!(debug_assertions),
    }
}

/// Xorshift64: reproducible workload data (not for anything secret).
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The timestamp counter, where the processor has one readable from user space.
pub(crate) fn ticks() -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: RDTSC has no preconditions; it reads a counter and changes nothing.
        #[allow(unsafe_code)]
        let t = unsafe { std::arch::x86_64::_rdtsc() };
        Some(t)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// Runs `section`, reporting each measurement to `progress` (phase and one unit each).
pub fn run(
    section: Section,
    options: &Options,
    progress: &dyn Progress,
) -> Result<Table, BenchError> {
    progress.phase(section.name());
    match section {
        Section::Ids => Ok(ids::run(options, progress)),
        Section::Nonces => nonces::run(options, progress),
        Section::Codecs => Ok(codecs::run(options, progress)),
        Section::Breach => breach::run(options, progress),
        Section::Records => records::run(options, progress),
    }
}

/// Thread counts from the options: 0 becomes every core; duplicates dropped.
pub(crate) fn thread_counts(options: &Options) -> Vec<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut out: Vec<usize> = Vec::new();
    for &t in &options.threads {
        let t = if t == 0 { cores } else { t };
        if !out.contains(&t) {
            out.push(t);
        }
    }
    if out.is_empty() {
        out.push(1);
    }
    out
}

/// The report as JSON (schema `veilkit-bench/1`, see `docs/BENCH.md`).
pub fn to_json(machine: &Machine, scale: Scale, tables: &[Table]) -> serde_json::Value {
    use serde_json::json;
    let figure = |f: &Option<Figure>| match f {
        None => serde_json::Value::Null,
        Some(f) => json!({
            "median": f.median,
            "p99": f.p99,
            "spread": f.spread,
            "runs": f.runs,
            "noisy": f.noisy(),
        }),
    };
    json!({
        "schema": "veilkit-bench/1",
        "veilkit": env!("CARGO_PKG_VERSION"),
        "scale": scale.name(),
        "machine": {
            "cpu": machine.cpu,
            "cores": machine.cores,
            "features": machine.features,
            "os": machine.os,
            "optimized": machine.optimized,
        },
        "noisy": tables.iter().any(Table::noisy),
        "sections": tables.iter().map(|t| json!({
            "name": t.section.name(),
            "title": t.title,
            "columns": t.columns.iter().map(|c| json!({
                "key": c.key, "label": c.label, "unit": c.unit,
            })).collect::<Vec<_>>(),
            "rows": t.rows.iter().map(|r| json!({
                "label": r.label,
                "figures": t.columns.iter().zip(&r.figures)
                    .map(|(c, f)| (c.key.clone(), figure(f)))
                    .collect::<serde_json::Map<_, _>>(),
                "reference": r.reference,
            })).collect::<Vec<_>>(),
            "noisy": t.noisy(),
            "notes": t.notes,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests;

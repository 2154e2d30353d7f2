//! `veilkit breach serve`: the HIBP range API on a local port.

use super::super::manual::ManExtra;
use super::super::output::Bar;
use super::super::report::{info, warn};
use super::super::status::{Global, Status};
use crate::breach::serve::{self, Current, Limits, Service};
use anyhow::Context;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// One line for the command list.
pub const ABOUT: &str = "Serve the HIBP range API (and /check) from indexes on a local port";

/// The description in `--help` and the man page.
pub const LONG_ABOUT: &str = "Serve the Have I Been Pwned \"Pwned Passwords\" range API from \
an index, so that existing clients can call it instead of the public API:

  GET /range/{5 hex digits}   the hashes starting with that prefix, `SUFFIX:COUNT` lines \
joined by CRLF, byte for byte what the public API and `veilkit breach export-ranges` give; \
with the request header `Add-Padding: true`, count-0 lines of random suffixes are added so \
that every response has at least 800 to 1,000 lines, as the public API does; `?mode=ntlm` \
asks the NTLM index.
  GET /check/{hash}           the count of one full hash (40 hex digits SHA-1, 32 NTLM), 0 \
when absent; on a filter 1 (probably present) or 0.

Give one index per hash kind (-i twice for SHA-1 and NTLM). Ranges need an exact index; \
/check works on any tier. The server listens on the loopback interface unless --listen \
says otherwise (it warns when the address is not a loopback one: anyone who reaches the \
port can query); with --tls-cert and --tls-key it speaks HTTPS (rustls, TLS 1.2 and 1.3). \
Ranges carry a strong ETag of their content and the index's modification time as \
Last-Modified; If-None-Match and If-Modified-Since are answered 304 (Not Modified), so \
mirrors and `breach update` fetch only what changed. Bodies are compressed with \
Zstandard or gzip, whichever the client prefers (with --zstd-bodies, Zstandard \
answers are sent as `breach compress-ranges` made them, without compressing anything: \
about 1.5 times the requests a second at 100 million hashes); CORS preflights (OPTIONS) are answered as the public API does. Requests are bounded: at most --max-connections at once (more wait in the \
kernel's queue), request heads up to 8 KiB, 10 seconds to send one; GET, HEAD and OPTIONS. \
Malformed requests get a 400 answer, never a crash. SIGINT or SIGTERM stops the server \
cleanly with status 0. SIGHUP reloads a server that runs detached from a terminal \
(systemd, a container, nohup: neither standard input nor error a terminal): the indexes now \
at the paths given (after `breach update` replaced one, say) are opened and verified while \
the server goes on answering, then answer from the next request on; if one cannot be opened \
or fails verification, the server keeps serving what it served, with a warning. On a \
terminal, SIGHUP is the terminal hanging up, and stops the server as SIGTERM does.";

/// Extra man page sections.
pub const MAN: ManExtra = ManExtra {
    exit_status: &[
        (
            "0",
            "Stopped by SIGINT or SIGTERM (or SIGHUP on a terminal).",
        ),
        (
            "2",
            "An error: an index cannot be opened, the address cannot be bound.",
        ),
    ],
    uses_keys: false,
    environment: &[],
    examples: &[
        (
            "Serve an index on 127.0.0.1:8000",
            "veilkit breach serve -i hibp.idx",
        ),
        (
            "Ask it as a client would",
            "curl -s http://127.0.0.1:8000/range/5BAA6 | grep 1E4C9B93F3F0682250B6CF8331B7EE68FD8",
        ),
        (
            "SHA-1 and NTLM on another port",
            "veilkit breach serve -i hibp.idx -i ntlm.idx --listen 127.0.0.1:8080",
        ),
    ],
};

// Arguments of `veilkit breach serve`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_long_help = super::super::manual::examples_help(&MAN))]
pub struct Args {
    /// An index to serve (give -i twice for a SHA-1 and an NTLM index).
    #[arg(short, long = "index", value_name = "INDEX", required = true)]
    pub indexes: Vec<PathBuf>,

    /// The address or host name and port to listen on (`localhost:8000`, `[::1]:8000`;
    /// port 0: any free port). The first line on stderr is `veilkit: listening on
    /// http://ADDR:PORT`, with --quiet or without it.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8000")]
    pub listen: String,

    /// Worker threads [default: the number of processors].
    ///
    /// Where other busy processes share the machine's processors (clients on the same
    /// host, say), fewer workers may serve more: workers beyond the free processors wake
    /// each other and take turns (measured in docs/BENCHMARKS.md, "breach serve beside
    /// nginx").
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,

    /// Connections served at once.
    #[arg(long, value_name = "N", default_value_t = 1024)]
    pub max_connections: usize,

    /// Read the indexes into memory (huge pages where the system allows) instead of
    /// mapping them: single lookups (/check) about 1.6x faster at 100M hashes, for the
    /// memory of the files; ranges are bound by formatting and HTTP, not memory. A reload
    /// (SIGHUP) reads the new files while the old ones are served, so it needs their memory
    /// again meanwhile: a file larger than the memory available is refused, at the start
    /// and on a reload (which then keeps serving the old ones).
    #[arg(long)]
    pub in_memory: bool,

    /// Serve HTTPS with this certificate chain (PEM, the server's certificate first), as
    /// openssl, mkcert or certbot write it; needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 RSA or SEC1 EC).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Range bodies compressed ahead by `breach compress-ranges` from one of the indexes
    /// (give it once per index): sent as they are to clients that ask for Zstandard,
    /// instead of compressing each answer. Refused unless made from that very index.
    #[arg(long, value_name = "FILE")]
    pub zstd_bodies: Vec<PathBuf>,

    /// Start without verifying the indexes first (every checksum, about 1 s per GB):
    /// lookups still check the tables they read, but a damaged record would go
    /// unnoticed.
    #[arg(long)]
    pub no_verify: bool,
}

/// Opens and verifies the indexes of `args` (unless --no-verify): the service, and a
/// description of what it serves.
fn load(args: &Args, global: Global) -> anyhow::Result<(Service, String)> {
    let mut indexes = Vec::new();
    let mut described = Vec::new();
    for p in &args.indexes {
        let index = if args.in_memory {
            use super::super::report::HintExt;
            super::refuse_stdin(p)?;
            let opened = crate::breach::tier::AnyIndex::open_in_memory(p);
            let hint = match &opened {
                Err(crate::breach::index::IndexError::Memory { .. }) => {
                    "serve it mapped (without --in-memory): a mapped index takes no memory of \
                     its own (the page cache keeps what lookups read)"
                }
                _ => super::OPEN_HINT,
            };
            opened.with_context(|| p.display().to_string()).hint(hint)?
        } else {
            super::open_any(p, None)?
        };
        if args.no_verify {
            info(
                global,
                format!(
                    "{}: not verified (--no-verify): {}",
                    p.display(),
                    if index.lookups_verified() {
                        "each part is verified when a request first reads it, and a damaged one is an error (500), never an answer"
                    } else {
                        "an index of an older format, so a damaged record would go unnoticed"
                    }
                ),
            );
        } else {
            let bar = Bar::bytes(global, "verifying");
            let checked = index.verify(&bar);
            bar.finish();
            let checked = checked
                .with_context(|| p.display().to_string())
                .map_err(|e| {
                    super::super::report::hinted(
                        format!("{e:#}"),
                        "rebuild the index (or pass --no-verify to serve it anyway)",
                    )
                })?;
            super::warn_verified_empty(&p.display().to_string(), &index, &checked);
        }
        if index.partial() {
            super::warn_partial(p);
        }
        described.push(format!(
            "{} {} index {}{}",
            index.kind().name(),
            index.tier().name(),
            p.display(),
            if args.no_verify { "" } else { " (verified)" }
        ));
        indexes.push(index);
    }
    let mut service = Service::new(indexes).map_err(anyhow::Error::new)?;
    for p in &args.zstd_bodies {
        described.push(add_bodies(&mut service, p, args.no_verify, global)?);
    }
    // Ranges carry the newest index's modification time as Last-Modified.
    if let Some(t) = args
        .indexes
        .iter()
        .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .max()
    {
        service.set_last_modified(t);
    }
    Ok((service, described.join(" and ")))
}

/// Opens the bodies file at `path`, verifies every frame (unless `no_verify`) and serves
/// it beside the index it was made from; describes it.
fn add_bodies(
    service: &mut Service,
    path: &std::path::Path,
    no_verify: bool,
    global: Global,
) -> anyhow::Result<String> {
    use crate::breach::bodies::{Bodies, BodiesError};
    use crate::breach::serve::ServiceError;
    let shown = path.display().to_string();
    let remake =
        "make it from the index served: `veilkit breach compress-ranges -i INDEX -o FILE --force`";
    super::refuse_stdin(path)?;
    let bodies = Bodies::open(path).map_err(|e| {
        let hint = match e {
            BodiesError::Io(_) | BodiesError::NotFile => {
                "give the file `veilkit breach compress-ranges` wrote"
            }
            _ => remake,
        };
        super::super::report::hinted(format!("--zstd-bodies {shown}: {e}"), hint)
    })?;
    if !no_verify {
        let bar = Bar::bytes(global, "verifying");
        let checked = bodies.verify(&bar);
        bar.finish();
        checked.map_err(|e| {
            super::super::report::hinted(format!("--zstd-bodies {shown}: {e}"), remake)
        })?;
    }
    let kind = bodies.kind().name();
    service.add_bodies(bodies).map_err(|e| {
        let hint = match e {
            ServiceError::Bodies(_) => remake,
            _ => "give one bodies file per index, each made from that index",
        };
        super::super::report::hinted(format!("--zstd-bodies {shown}: {e}"), hint)
    })?;
    Ok(format!(
        "Zstandard {kind} bodies {shown}{}",
        if no_verify { "" } else { " (verified)" }
    ))
}

/// Runs `veilkit breach serve`.
pub fn run(args: &Args, global: Global) -> anyhow::Result<Status> {
    let (service, described) = load(args, global)?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => {
            // Capped as every file of secrets or settings is (1 MiB): `/dev/zero` or a
            // wrong path to a large file is an error, not all of memory.
            let read = |p: &PathBuf, what| {
                super::super::input::read_small(p, what)
                    .with_context(|| format!("{what} {}: cannot read", p.display()))
            };
            let (cert_pem, key_pem) = (read(cert, "--tls-cert")?, read(key, "--tls-key")?);
            let config =
                crate::breach::serve::tls_config(&cert_pem, &key_pem).with_context(|| {
                    format!("--tls-cert {} --tls-key {}", cert.display(), key.display())
                })?;
            Some(config)
        }
        _ => None,
    };
    let listener = bind(&args.listen)?;
    let local = listener.local_addr().context("listening socket")?;
    // The address is printed even with --quiet: with port 0 it is the only way to know
    // it.
    let scheme = if tls.is_some() { "https" } else { "http" };
    let url = match local {
        SocketAddr::V6(a) => format!("{scheme}://[{}]:{}", a.ip(), a.port()),
        SocketAddr::V4(a) => format!("{scheme}://{a}"),
    };
    // Said once the signals are handled (a script that signals the server as soon as
    // it has read this line must not find the signals' default actions).
    // The same first line in both modes (docs/BREACH-FORMAT.md), so that a script
    // reading it finds the address whether or not it passed --quiet.
    let announce = move || {
        super::super::report::line_error(&format!("listening on {url}"));
        if !local.ip().is_loopback() {
            warn(format!(
                "{local} is not a loopback address: anyone who can reach it can query"
            ));
        }
        info(global, format!("serving {described} (Ctrl-C stops)"));
    };
    let mut limits = Limits {
        max_connections: args.max_connections,
        ..Limits::default()
    };
    if let Some(t) = args.threads {
        limits.threads = t;
    }
    let current = Arc::new(Current::new(service));
    let stop = signals(args.clone(), global, current.clone(), announce);
    serve::run(listener, current, limits, tls, stop).context("server")?;
    info(global, "stopped");
    Ok(Status::Success)
}

/// Completes on SIGINT or SIGTERM (the server then stops), and on SIGHUP when on a
/// terminal. Detached, on SIGHUP the indexes are opened again at their paths and
/// verified, off the serving threads, and served from the next request on; if that fails
/// the server keeps serving what it served, and says why.
async fn signals(
    args: Args,
    global: Global,
    current: Arc<Current>,
    announce: impl FnOnce() + Send,
) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let handlers = (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
            signal(SignalKind::interrupt()),
        );
        announce();
        let (Ok(mut term), Ok(mut hup), Ok(mut int)) = handlers else {
            let _ = tokio::signal::ctrl_c().await;
            return;
        };
        // A server on a terminal takes SIGHUP as the terminal's hangup, and stops (left
        // running, it would keep the port after its window closed); a detached one
        // (systemd, a container, nohup: neither standard input nor error a terminal)
        // takes it as the daemons' reload signal.
        use std::io::IsTerminal;
        let on_terminal = std::io::stdin().is_terminal() || std::io::stderr().is_terminal();
        // The reload under way: it runs on a thread of its own, not joined, so that a
        // stop during a long verification does not wait for it.
        let mut reloading: Option<
            tokio::sync::oneshot::Receiver<anyhow::Result<(Service, String)>>,
        > = None;
        loop {
            tokio::select! {
                _ = int.recv() => return,
                _ = term.recv() => return,
                _ = hup.recv() => {
                    if on_terminal {
                        return;
                    }
                    if reloading.is_some() {
                        info(global, "SIGHUP: a reload is already under way");
                        continue;
                    }
                    info(global, "SIGHUP: opening and verifying the indexes again");
                    let (tx, rx) = tokio::sync::oneshot::channel();
                    let a = args.clone();
                    // No progress bar: the server's terminal is not the reload's.
                    std::thread::spawn(move || {
                        let _ = tx.send(load(&a, Global { quiet: true }));
                    });
                    reloading = Some(rx);
                }
                loaded = async { reloading.as_mut().expect("checked").await }, if reloading.is_some() => {
                    reloading = None;
                    match loaded {
                        Ok(Ok((service, described))) => {
                            current.replace(service);
                            info(global, format!("reloaded: serving {described}"));
                        }
                        Ok(Err(e)) => warn(format!(
                            "reload failed, still serving the indexes loaded before: {e:#}"
                        )),
                        Err(_) => warn(
                            "reload failed, still serving the indexes loaded before: the reload stopped",
                        ),
                    }
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (args, global, current);
        let stop = tokio::signal::ctrl_c();
        announce();
        let _ = stop.await;
    }
}

/// Binds `--listen`: an address, or a host name resolved to its addresses (the first that
/// binds).
fn bind(listen: &str) -> anyhow::Result<std::net::TcpListener> {
    use std::net::ToSocketAddrs;
    let addrs: Vec<SocketAddr> = listen
        .to_socket_addrs()
        .with_context(|| format!("--listen {listen}: not HOST:PORT, or the host is unknown"))?
        .collect();
    let mut last = None;
    for a in &addrs {
        match std::net::TcpListener::bind(a) {
            Ok(l) => return Ok(l),
            Err(e) => last = Some(e),
        }
    }
    Err(match last {
        Some(e) => anyhow::Error::new(e).context(format!("--listen {listen}")),
        None => anyhow::anyhow!("--listen {listen}: the host has no address"),
    })
}

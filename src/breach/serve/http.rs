//! The HTTP layer of the range server: hyper's HTTP/1.1 on a single-threaded tokio
//! runtime a worker thread, over TCP or TLS, with bounded connections, header sizes and
//! time limits; each request answered by [`super::answer`].

use super::Current;
use super::answer::answer;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Limits of the HTTP server.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Worker threads.
    pub threads: usize,
    /// Connections served at once; more wait in the kernel's backlog.
    pub max_connections: usize,
    /// Time to receive a request's headers (also the idle keep-alive limit).
    pub header_timeout: Duration,
    /// Largest request head, bytes.
    pub max_head: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
            max_connections: 1024,
            header_timeout: Duration::from_secs(10),
            max_head: 8192,
        }
    }
}

/// Serves `service` on `listener` until `stop` completes: HTTPS with `tls`, else plain
/// HTTP. Each request answers from the service current when it arrives.
///
/// One thread a worker, each with a single-threaded runtime serving the connections it
/// is given, as nginx's workers do: no task moves between threads and no thread wakes
/// another for a request (a shared work-stealing runtime spent about a tenth of a range
/// request's CPU in wake-ups). The calling thread accepts and gives each connection to
/// the worker serving the fewest (workers accepting for themselves took them unevenly:
/// one thread could hold most of a client's connections while the other waited), until
/// `stop` completes; then the workers stop, dropping their connections.
pub fn run(
    listener: std::net::TcpListener,
    service: Arc<Current>,
    limits: Limits,
    tls: Option<Arc<rustls::ServerConfig>>,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    let (stopping, stopped) = tokio::sync::watch::channel(false);
    let mut workers = Vec::new();
    let mut handoffs = Vec::new();
    for n in 0..limits.threads.max(1) {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (handoff, incoming) = tokio::sync::mpsc::unbounded_channel();
        let worker = Worker {
            service: service.clone(),
            limits,
            acceptor: acceptor.clone(),
        };
        let serving = Arc::new(AtomicUsize::new(0));
        handoffs.push((handoff, serving.clone()));
        let stopped = stopped.clone();
        workers.push(
            std::thread::Builder::new()
                .name(format!("serve-{n}"))
                .spawn(move || runtime.block_on(worker.serve(incoming, serving, stopped)))?,
        );
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let accepted = runtime.block_on(accept(listener, limits, handoffs, stop));
    let _ = stopping.send(true);
    for w in workers {
        if w.join().is_err() {
            return Err(std::io::Error::other("a server thread panicked"));
        }
    }
    accepted
}

/// A worker's end of the hand-off: a connection and its slot among
/// [`Limits::max_connections`].
type Handoff = (std::net::TcpStream, tokio::sync::OwnedSemaphorePermit);

/// Accepts connections on `listener` until `stop` completes, each given to the worker
/// serving the fewest (`handoffs`: each worker's channel and count).
async fn accept(
    listener: std::net::TcpListener,
    limits: Limits,
    handoffs: Vec<(
        tokio::sync::mpsc::UnboundedSender<Handoff>,
        Arc<AtomicUsize>,
    )>,
    stop: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections.max(1)));
    tokio::pin!(stop);
    loop {
        let permit = tokio::select! {
            _ = &mut stop => return Ok(()),
            p = slots.clone().acquire_owned() => p.expect("the semaphore is never closed"),
        };
        let (stream, _) = tokio::select! {
            _ = &mut stop => return Ok(()),
            a = listener.accept() => match a {
                Ok(a) => a,
                // Out of descriptors and the like: wait a little, keep serving.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        // Unregistered from this thread's runtime, registered with the worker's.
        let Ok(stream) = stream.into_std() else {
            continue;
        };
        let (handoff, serving) = handoffs
            .iter()
            .min_by_key(|(_, serving)| serving.load(Ordering::Relaxed))
            .expect("at least one worker");
        serving.fetch_add(1, Ordering::Relaxed);
        if handoff.send((stream, permit)).is_err() {
            return Err(std::io::Error::other("a server thread stopped"));
        }
    }
}

/// What a worker thread serves with.
struct Worker {
    service: Arc<Current>,
    limits: Limits,
    acceptor: Option<tokio_rustls::TlsAcceptor>,
}

impl Worker {
    /// Serves each connection `incoming` gives, on this thread, until `stopped` turns
    /// true; `serving` counts those not yet closed.
    async fn serve(
        self,
        mut incoming: tokio::sync::mpsc::UnboundedReceiver<Handoff>,
        serving: Arc<AtomicUsize>,
        mut stopped: tokio::sync::watch::Receiver<bool>,
    ) {
        let this = Arc::new(self);
        loop {
            let (stream, permit) = tokio::select! {
                _ = stopped.wait_for(|s| *s) => return,
                c = incoming.recv() => match c {
                    Some(c) => c,
                    None => return,
                },
            };
            let this = this.clone();
            let serving = serving.clone();
            tokio::spawn(async move {
                if let Ok(stream) = tokio::net::TcpStream::from_std(stream) {
                    this.connection(stream).await;
                }
                serving.fetch_sub(1, Ordering::Relaxed);
                drop(permit);
            });
        }
    }

    /// Serves one connection until the client closes it or a limit ends it.
    async fn connection(&self, stream: tokio::net::TcpStream) {
        use hyper::server::conn::http1;
        use hyper::service::service_fn;
        use hyper_util::rt::{TokioIo, TokioTimer};

        let (service, limits) = (&self.service, self.limits);
        let seed = std::cell::Cell::new(rand_seed());
        let handler = service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
            let mut random = || {
                let mut x = seed.get();
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                seed.set(x);
                x
            };
            std::future::ready(Ok::<_, std::convert::Infallible>(answer(
                &service.get(),
                &req,
                &mut random,
            )))
        });
        let mut http = http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .max_buf_size(limits.max_head.max(8192))
            .keep_alive(true);
        match &self.acceptor {
            None => {
                let _ = http.serve_connection(TokioIo::new(stream), handler).await;
            }
            Some(acceptor) => {
                // The handshake has the same time limit as a request head, so a
                // silent client cannot hold a connection slot.
                let handshake =
                    tokio::time::timeout(limits.header_timeout, acceptor.accept(stream));
                if let Ok(Ok(tls)) = handshake.await {
                    let _ = http.serve_connection(TokioIo::new(tls), handler).await;
                }
            }
        }
    }
}

fn rand_seed() -> u64 {
    let mut b = [0u8; 8];
    let _ = getrandom::fill(&mut b);
    u64::from_le_bytes(b) | 1
}

//! The operator's HTTP endpoints: `/metrics` on `--metrics-listen-address`, and `/healthz` and
//! `/readyz` on `--health-listen-address` (also under upstream's paths `/-/healthy` and
//! `/-/ready`). Given the same address, one listener serves all of them.

use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use prometheus_client::registry::Registry;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(
        "--{flag}: invalid listen address {value:?}: expected HOST:PORT, IP:PORT, [IPv6]:PORT \
         or :PORT ({reason})"
    )]
    Address {
        flag: &'static str,
        value: String,
        reason: String,
    },
    #[error("--{flag}: cannot listen on {addr}: {source}")]
    Bind {
        flag: &'static str,
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// A parsed `--*-listen-address` value; `:PORT` listens on every interface, as in Go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListenAddress(pub SocketAddr);

impl ListenAddress {
    /// `None` for an empty value (the endpoint is disabled).
    pub fn parse(flag: &'static str, value: &str) -> Result<Option<Self>, HttpError> {
        let invalid = |reason: &str| HttpError::Address {
            flag,
            value: value.to_string(),
            reason: reason.to_string(),
        };
        if value.is_empty() {
            return Ok(None);
        }
        let (host, port) = value
            .rsplit_once(':')
            .ok_or_else(|| invalid("missing port"))?;
        let port: u16 = port.parse().map_err(|_| invalid("port is not 0-65535"))?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let host = if host.is_empty() { "0.0.0.0" } else { host };
        let addr = (host, port)
            .to_socket_addrs()
            .map_err(|e| invalid(&e.to_string()))?
            .next()
            .ok_or_else(|| invalid("host has no address"))?;
        Ok(Some(ListenAddress(addr)))
    }
}

impl fmt::Display for ListenAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Whether the operator is ready to do its job, or why not; read on every `/readyz`.
pub type ReadyCheck = Arc<dyn Fn() -> Result<(), &'static str> + Send + Sync>;

/// What the endpoints report.
#[derive(Clone)]
pub struct Probes {
    /// Fully registered before the servers start; encoded on every scrape.
    pub registry: Arc<Registry>,
    pub ready: ReadyCheck,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Routes {
    metrics: bool,
    health: bool,
}

/// Bound listeners, ready to serve.
pub struct HttpServers {
    listeners: Vec<(TcpListener, Routes)>,
    probes: Probes,
}

impl HttpServers {
    /// Binds now, so a taken or forbidden port fails startup with the flag's name.
    pub async fn bind(
        metrics: Option<ListenAddress>,
        health: Option<ListenAddress>,
        probes: Probes,
    ) -> Result<Self, HttpError> {
        let mut wanted: Vec<(&'static str, SocketAddr, Routes)> = Vec::new();
        if let Some(ListenAddress(addr)) = metrics {
            wanted.push((
                "metrics-listen-address",
                addr,
                Routes {
                    metrics: true,
                    health: false,
                },
            ));
        }
        if let Some(ListenAddress(addr)) = health {
            // Port 0 asks for a fresh port each time, so it never names the same listener.
            match wanted
                .iter_mut()
                .find(|(_, a, _)| *a == addr && addr.port() != 0)
            {
                Some((_, _, routes)) => routes.health = true,
                None => wanted.push((
                    "health-listen-address",
                    addr,
                    Routes {
                        metrics: false,
                        health: true,
                    },
                )),
            }
        }
        let mut listeners = Vec::with_capacity(wanted.len());
        for (flag, addr, routes) in wanted {
            let listener = TcpListener::bind(addr)
                .await
                .map_err(|source| HttpError::Bind { flag, addr, source })?;
            listeners.push((listener, routes));
        }
        Ok(HttpServers { listeners, probes })
    }

    /// The bound addresses (port 0 resolved): metrics first when both are set and differ.
    pub fn local_addrs(&self) -> Vec<SocketAddr> {
        self.listeners
            .iter()
            .filter_map(|(listener, _)| listener.local_addr().ok())
            .collect()
    }

    /// Serves until `stop` is cancelled; connections are tokio tasks.
    pub async fn serve(self, stop: CancellationToken) {
        let probes = self.probes;
        let servers = self.listeners.into_iter().map(|(listener, routes)| {
            let probes = probes.clone();
            let stop = stop.clone();
            async move {
                if let Ok(addr) = listener.local_addr() {
                    info!(%addr, metrics = routes.metrics, health = routes.health, "serving HTTP");
                }
                loop {
                    let accepted = tokio::select! {
                        () = stop.cancelled() => return,
                        accepted = listener.accept() => accepted,
                    };
                    let (stream, peer) = match accepted {
                        Ok(accepted) => accepted,
                        Err(e) => {
                            warn!(error = %e, "accepting an HTTP connection");
                            continue;
                        }
                    };
                    let probes = probes.clone();
                    tokio::spawn(async move {
                        let service = service_fn(move |request| {
                            let response = respond(&request, routes, &probes);
                            async move { Ok::<_, std::convert::Infallible>(response) }
                        });
                        if let Err(e) = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await
                        {
                            debug!(%peer, error = %e, "HTTP connection");
                        }
                    });
                }
            }
        });
        futures::future::join_all(servers).await;
    }
}

fn respond(request: &Request<Incoming>, routes: Routes, probes: &Probes) -> Response<Full<Bytes>> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return text(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n");
    }
    match request.uri().path() {
        "/metrics" if routes.metrics => {
            let mut body = String::new();
            match prometheus_client::encoding::text::encode(&mut body, &probes.registry) {
                Ok(()) => with_type(StatusCode::OK, body, OPENMETRICS),
                Err(e) => text(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    &format!("encoding metrics: {e}\n"),
                ),
            }
        }
        "/healthz" | "/-/healthy" if routes.health => text(StatusCode::OK, "ok\n"),
        "/readyz" | "/-/ready" if routes.health => match (probes.ready)() {
            Ok(()) => text(StatusCode::OK, "ok\n"),
            Err(reason) => text(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!("not ready: {reason}\n"),
            ),
        },
        _ => text(StatusCode::NOT_FOUND, "not found\n"),
    }
}

fn text(status: StatusCode, body: &str) -> Response<Full<Bytes>> {
    with_type(status, body.to_string(), TEXT)
}

fn with_type(
    status: StatusCode,
    body: String,
    content_type: &'static str,
) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses_parse_like_go() {
        let parse = |v| ListenAddress::parse("metrics-listen-address", v);
        assert_eq!(parse("").unwrap(), None);
        assert_eq!(
            parse(":8080").unwrap().unwrap().0,
            "0.0.0.0:8080".parse().unwrap()
        );
        assert_eq!(
            parse("127.0.0.1:9").unwrap().unwrap().0,
            "127.0.0.1:9".parse().unwrap()
        );
        assert_eq!(
            parse("[::1]:9").unwrap().unwrap().0,
            "[::1]:9".parse().unwrap()
        );
        assert!(parse("localhost:9").unwrap().unwrap().0.ip().is_loopback());
        for bad in [
            "8080",
            ":http",
            "127.0.0.1:70000",
            "no such host.invalid:80",
        ] {
            let error = parse(bad).unwrap_err().to_string();
            assert!(
                error.starts_with("--metrics-listen-address: invalid listen address"),
                "{error}"
            );
        }
    }
}

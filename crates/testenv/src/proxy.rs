//! A loopback proxy in front of a backend, for faults the real control plane cannot be made
//! to produce on demand: every request is passed to the backend through the admin client (its
//! answers, watches included, stream back unchanged), except the watches of the resources
//! [`Proxy::expire_watches`] names, which start and then report 410 Gone as their only event,
//! as kube-apiserver does for an expired resourceVersion, and the requests [`Proxy::delay`]
//! names, which wait before they are passed on, and the watches [`Proxy::stall_watches`]
//! silences, which stay open and pass nothing more on. It counts the requests it serves.

use std::collections::{BTreeMap, BTreeSet};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::UnsyncBoxBody};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

use crate::Error;

type Body = UnsyncBoxBody<Bytes, Box<dyn std::error::Error + Send + Sync>>;

#[derive(Default)]
struct State {
    expired: BTreeSet<String>,
    delays: BTreeMap<(String, String), Duration>,
    /// Per resource, how many times its open watches were stalled: a watch started at a lower
    /// count than the current one is silent.
    stalls: BTreeMap<String, u64>,
    /// Requests served, by (verb, resource): `list`, `watch`, or the HTTP method.
    counts: BTreeMap<(String, String), u64>,
}

/// A running proxy; it stops when dropped.
pub struct Proxy {
    addr: SocketAddr,
    kubeconfig: PathBuf,
    state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Listens on 127.0.0.1 and forwards to the backend `client` talks to.
    pub(crate) async fn start(client: kube::Client, kubeconfig: PathBuf) -> Result<Proxy, Error> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(Error::Proxy)?;
        let addr = listener.local_addr().map_err(Error::Proxy)?;
        let config = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: proxy\n  cluster: {{server: 'http://{addr}'}}\n\
             users:\n- name: proxy\n  user: {{}}\ncontexts:\n- name: proxy\n  context: {{cluster: proxy, user: proxy, namespace: default}}\n\
             current-context: proxy\n"
        );
        std::fs::write(&kubeconfig, config).map_err(|source| Error::WriteKubeconfig {
            path: kubeconfig.clone(),
            source,
        })?;
        let state = Arc::new(Mutex::new(State::default()));
        let shared = state.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (client, state) = (client.clone(), shared.clone());
                tokio::spawn(async move {
                    let service = service_fn(move |request| {
                        let (client, state) = (client.clone(), state.clone());
                        async move { Ok::<_, Infallible>(forward(&client, &state, request).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(Proxy {
            addr,
            kubeconfig,
            state,
            task,
        })
    }

    /// A kubeconfig for the proxy (plain HTTP on loopback, no credentials: the proxy adds the
    /// admin's).
    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// From now on, every watch of `resource` (plural, e.g. `servicemonitors`) reports 410
    /// Gone at once (`true`), or is served again (`false`).
    pub fn expire_watches(&self, resource: &str, expire: bool) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if expire {
            state.expired.insert(resource.to_owned());
        } else {
            state.expired.remove(resource);
        }
    }

    /// From now on, requests with this verb (`list`, `watch`, or an HTTP method in lower
    /// case) on this resource wait `delay` before they are passed on.
    pub fn delay(&self, verb: &str, resource: &str, delay: Duration) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .delays
            .insert((verb.to_owned(), resource.to_owned()), delay);
    }

    /// Every watch of `resource` open now goes silent: it passes nothing more on (no event,
    /// no bookmark, not even its end) yet stays open, as a connection that died without
    /// closing, until the client gives up on it. Watches started afterwards are served.
    pub fn stall_watches(&self, resource: &str) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        *state.stalls.entry(resource.to_owned()).or_default() += 1;
    }

    /// Requests served so far with this verb (`list`, `watch`, or an HTTP method) on this
    /// resource.
    pub fn count(&self, verb: &str, resource: &str) -> u64 {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .counts
            .get(&(verb.to_owned(), resource.to_owned()))
            .copied()
            .unwrap_or_default()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.kubeconfig);
    }
}

async fn forward(
    client: &kube::Client,
    state: &Arc<Mutex<State>>,
    request: Request<Incoming>,
) -> Response<Body> {
    let (mut parts, body) = request.into_parts();
    let query = parts.uri.query().unwrap_or_default();
    let path = parts.uri.path().trim_end_matches('/');
    let resource = path.rsplit('/').next().unwrap_or_default().to_owned();
    let watch = query
        .split('&')
        .any(|pair| pair == "watch=true" || pair == "watch=1");
    let verb = match (parts.method.as_str(), watch) {
        ("GET", true) => "watch".to_owned(),
        ("GET", false) => "list".to_owned(),
        (method, _) => method.to_lowercase(),
    };
    let (expired, delay, stalls) = {
        let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (verb, resource.clone());
        *state.counts.entry(key.clone()).or_default() += 1;
        (
            watch && state.expired.contains(&key.1),
            state.delays.get(&key).copied(),
            state.stalls.get(&key.1).copied().unwrap_or_default(),
        )
    };
    if let Some(delay) = delay {
        tokio::time::sleep(delay).await;
    }
    if expired {
        let event = serde_json::json!({"type": "ERROR", "object": {
            "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "too old resource version (injected by the test proxy)",
            "reason": "Expired", "code": 410,
        }});
        let mut line = event.to_string().into_bytes();
        line.push(b'\n');
        return respond(StatusCode::OK, Bytes::from(line));
    }
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return respond(StatusCode::BAD_REQUEST, Bytes::from(e.to_string())),
    };
    parts.headers.remove(hyper::header::HOST);
    let request = Request::from_parts(parts, kube::client::Body::from(body.to_vec()));
    match client.send(request).await {
        Ok(response) => response.map(|body| {
            let body = body.map_err(|e| Box::new(e) as _).boxed_unsync();
            if watch {
                Stallable {
                    inner: body,
                    resource,
                    started: stalls,
                    state: state.clone(),
                }
                .boxed_unsync()
            } else {
                body
            }
        }),
        Err(e) => respond(StatusCode::BAD_GATEWAY, Bytes::from(e.to_string())),
    }
}

/// A watch's response body, silent once its resource is stalled after the watch started.
struct Stallable {
    inner: Body,
    resource: String,
    started: u64,
    state: Arc<Mutex<State>>,
}

impl Stallable {
    fn stalled(&self) -> bool {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .stalls
            .get(&self.resource)
            .copied()
            .unwrap_or_default()
            > self.started
    }
}

impl hyper::body::Body for Stallable {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if this.stalled() {
            // Never woken again: the client sees a connection that stays open and says nothing.
            return Poll::Pending;
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            // What arrives after the stall, the end of the watch included, is swallowed.
            Poll::Ready(_) if this.stalled() => Poll::Pending,
            polled => polled,
        }
    }
}

fn respond(status: StatusCode, body: Bytes) -> Response<Body> {
    let mut response = Response::new(
        Full::new(body)
            .map_err(|never| match never {})
            .boxed_unsync(),
    );
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

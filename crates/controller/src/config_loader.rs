//! `agent-operator config-loader`: in each agent pod, writes the agent's config file from its
//! config Secrets and has the agent reload it (it replaces prometheus-config-reloader; issue
//! 35, ARCHITECTURE.md "Config loader").
//!
//! The config is stored as a head Secret (`--secret`) holding the first segment and, when
//! there are more, a manifest naming every other segment Secret with the MD5 of its text
//! (`render::segments`). The loader reads the head from a watch of that one name (list and
//! watch with `fieldSelector=metadata.name=<head>`), GETs only the segments whose MD5 it does
//! not hold yet, and writes the file only when every segment matches the head it read: a
//! partial or mixed set is never written, whatever order the operator's writes reach it in.
//! The only variables it substitutes are the operator's own (`render::loader_variables`).
//!
//! * `--once` (the init container): waits until a complete config assembles, writes it and
//!   returns, so the agent starts with a complete config.
//! * otherwise (the `config-reloader` sidecar): on every change of the head, writes the file
//!   when the assembled config differs from it (atomically: a temporary file in the same
//!   directory renamed over it) and POSTs `--reload-url`. A refused reload (a non-2xx answer)
//!   puts the last config the agent accepted back in the file, so that a restarted agent starts
//!   with it too, and makes `/ready` answer 503 with the agent's reason until a config is
//!   accepted. An API server that cannot be reached only delays a change: reads are retried
//!   with a backoff, and the file keeps the last good config meanwhile.
//!
//! Its access is the pods' ServiceAccount's: `get`, `list` and `watch` on the agent's config
//! Secrets by name, nothing else.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::{FutureExt, StreamExt};
use http_body_util::{BodyExt, Empty, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HOST, HeaderValue};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use k8s_openapi::api::core::v1::Secret;
use kube::Api;
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use render::desired::CONFIG_KEY;
use render::loader_variables::{LoaderVariableError, substitute};
use render::segments::{self, AssembleError, MANIFEST_KEY, Manifest};
use tokio::net::{TcpListener, TcpStream};
use tracing::{debug, info, warn};

use crate::backoff::Backoff;
use crate::error::one_line;
use crate::http::ListenAddress;

/// How long one GET of a Secret may take before it is tried again.
const GET_TIMEOUT: Duration = Duration::from_secs(30);
/// How long connecting to the agent for a reload may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the agent may take to answer a reload (applying a large config takes a while).
const RELOAD_TIMEOUT: Duration = Duration::from_secs(300);
/// The most of a refused reload's answer kept for `/ready` and the log.
const REASON_MAX_BYTES: usize = 4096;

/// What the loader is asked to do (the `config-loader` flags).
#[derive(Debug, Clone)]
pub struct LoaderOptions {
    /// `--namespace`: the namespace of the config Secrets (the pod's).
    pub namespace: String,
    /// `--secret`: the head Secret's name.
    pub secret: String,
    /// `--output`: the config file the agent reads.
    pub output: PathBuf,
    /// `--reload-url`: POSTed after each write; `None` writes without reloading.
    pub reload_url: Option<ReloadUrl>,
    /// `--listen-address`: where `/ready` is served (not with `--once`); `None`: nowhere.
    pub listen_address: Option<ListenAddress>,
    /// The loader's environment, from which the operator's variables are read.
    pub env: BTreeMap<String, String>,
}

/// Why the loader stopped, or could not start.
#[derive(Debug, thiserror::Error)]
pub enum LoaderError {
    #[error("--reload-url {value:?}: {reason}")]
    ReloadUrl { value: String, reason: String },
    #[error("--output {path}: {reason}")]
    Output { path: PathBuf, reason: String },
    #[error("--listen-address: cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("Secret {namespace}/{secret}: key {CONFIG_KEY}: {source}")]
    Variables {
        namespace: String,
        secret: String,
        #[source]
        source: LoaderVariableError,
    },
    #[error("writing {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A parsed `--reload-url`: plain HTTP to the agent in the same pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReloadUrl {
    /// `host:port`, to connect to and to send as `Host`.
    authority: String,
    /// The path (and query) to POST.
    path: String,
}

impl ReloadUrl {
    /// `None` for an empty value (no reload).
    pub fn parse(value: &str) -> Result<Option<ReloadUrl>, LoaderError> {
        if value.is_empty() {
            return Ok(None);
        }
        let invalid = |reason: &str| LoaderError::ReloadUrl {
            value: value.to_owned(),
            reason: reason.to_owned(),
        };
        let uri: Uri = value
            .parse()
            .map_err(|e: hyper::http::uri::InvalidUri| invalid(&format!("not a URL: {e}")))?;
        if uri.scheme_str() != Some("http") {
            return Err(invalid(
                "only http:// is supported (the agent in the same pod)",
            ));
        }
        let authority = uri
            .authority()
            .ok_or_else(|| invalid("no host"))?
            .as_str()
            .to_owned();
        let authority = if uri.port().is_some() {
            authority
        } else {
            format!("{authority}:80")
        };
        let path = uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
        Ok(Some(ReloadUrl { authority, path }))
    }
}

impl std::fmt::Display for ReloadUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "http://{}{}", self.authority, self.path)
    }
}

/// `--once`: waits until the config assembles completely, writes it and returns. Reads are
/// retried until `shutdown` resolves (then `Ok(false)`: nothing was written). An operator
/// variable the config refers to but the environment lacks is an error: nothing is written.
pub async fn run_once(
    client: kube::Client,
    options: LoaderOptions,
    shutdown: impl Future<Output = ()>,
) -> Result<bool, LoaderError> {
    check_output(&options.output)?;
    let mut source = Source::new(client, &options);
    let mut backoff = Backoff::new(Duration::from_millis(200), Duration::from_secs(10));
    tokio::pin!(shutdown);
    loop {
        let pending = match source.read_head().await {
            Ok(Some(head)) => match source.assemble(&head).await {
                Ok(text) => {
                    let config =
                        substitute(&text, &options.env).map_err(|e| LoaderError::Variables {
                            namespace: options.namespace.clone(),
                            secret: options.secret.clone(),
                            source: e,
                        })?;
                    write_atomic(&options.output, Arc::new(config.clone()))
                        .await
                        .map_err(|source| LoaderError::Write {
                            path: options.output.clone(),
                            source,
                        })?;
                    info!(path = %options.output.display(), bytes = config.len(), secret = %source.head_name(), "wrote the config");
                    return Ok(true);
                }
                Err(pending) => pending.reason,
            },
            Ok(None) => format!("Secret {} does not exist yet", source.head_name()),
            Err(reason) => reason,
        };
        let delay = backoff.next_delay();
        info!(reason = %pending, retry_in = ?delay, "no complete config yet");
        tokio::select! {
            () = &mut shutdown => return Ok(false),
            () = tokio::time::sleep(delay) => {}
        }
    }
}

/// The sidecar: keeps the file equal to the config the head names and the agent running it,
/// serving `/ready` on the listen address, until `shutdown` resolves.
pub async fn run_sidecar(
    client: kube::Client,
    options: LoaderOptions,
    shutdown: impl Future<Output = ()>,
) -> Result<(), LoaderError> {
    check_output(&options.output)?;
    let found = tokio::fs::read_to_string(&options.output).await.ok();
    let readiness = Readiness::new(match found {
        // The agent started from this file (the init container wrote it).
        Some(_) => Ok(()),
        None => Err(format!(
            "no config in {} yet: waiting for Secret {}/{}",
            options.output.display(),
            options.namespace,
            options.secret
        )),
    });
    let server = match options.listen_address {
        Some(ListenAddress(addr)) => {
            let listener = TcpListener::bind(addr)
                .await
                .map_err(|source| LoaderError::Bind { addr, source })?;
            if let Ok(addr) = listener.local_addr() {
                info!(%addr, "serving /ready");
            }
            Some(tokio::spawn(serve_readiness(listener, readiness.clone())))
        }
        None => None,
    };
    let found = found.map(Arc::new);
    let mut sidecar = Sidecar {
        source: Source::new(client.clone(), &options),
        options: options.clone(),
        file: found.clone(),
        loaded: found,
        refused: None,
        readiness,
    };
    let api: Api<Secret> = Api::namespaced(client, &options.namespace);
    let config = watcher::Config::default().fields(&format!("metadata.name={}", options.secret));
    let mut events = watcher::watcher(api, config).default_backoff().boxed();
    let mut head: Option<Secret> = None;
    // The head as the current relist found it, until the relist is done.
    let mut listed: Option<Secret> = None;
    let mut backoff = Backoff::new(Duration::from_millis(200), Duration::from_secs(10));
    let mut retry_at: Option<tokio::time::Instant> = None;
    tokio::pin!(shutdown);
    loop {
        let retry = async {
            match retry_at {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        let mut changed = tokio::select! {
            () = &mut shutdown => break,
            () = retry => true,
            event = events.next() => match on_event(event, &mut head, &mut listed, &sidecar.source) {
                Some(changed) => changed,
                // The watcher retries for ever; it never ends.
                None => break,
            },
        };
        // The events already waiting too (the head written again while the agent reloaded):
        // only the newest head is loaded, not each one in turn.
        while let Some(event) = events.next().now_or_never() {
            match on_event(event, &mut head, &mut listed, &sidecar.source) {
                Some(more) => changed |= more,
                None => break,
            }
        }
        if !changed {
            continue;
        }
        retry_at = None;
        match sidecar.step(head.as_ref(), Instant::now()).await {
            Step::Done => backoff.reset(),
            Step::WaitForChange(reason) => {
                backoff.reset();
                debug!(%reason, "waiting for the head to change");
            }
            Step::Retry(reason) => {
                let delay = backoff.next_delay();
                info!(%reason, retry_in = ?delay, "config not loaded yet");
                retry_at = Some(tokio::time::Instant::now() + delay);
            }
        }
    }
    if let Some(server) = server {
        server.abort();
    }
    Ok(())
}

/// Applies one event of the head's watch to `head` (`listed` holds a relist in progress):
/// whether the head changed; `None` when the stream ended.
fn on_event(
    event: Option<Result<Event<Secret>, watcher::Error>>,
    head: &mut Option<Secret>,
    listed: &mut Option<Secret>,
    source: &Source,
) -> Option<bool> {
    Some(match event? {
        Ok(Event::Apply(secret)) => {
            *head = Some(secret);
            true
        }
        Ok(Event::Delete(_)) => {
            *head = None;
            true
        }
        Ok(Event::Init) => {
            *listed = None;
            false
        }
        Ok(Event::InitApply(secret)) => {
            *listed = Some(secret);
            false
        }
        Ok(Event::InitDone) => {
            *head = listed.take();
            true
        }
        Err(e) => {
            warn!(secret = %source.head_name(), error = %one_line(&e), "watching the config Secret; retrying");
            false
        }
    })
}

/// The output's directory must exist: the temporary file is written beside the output.
fn check_output(output: &Path) -> Result<(), LoaderError> {
    let invalid = |reason: &str| LoaderError::Output {
        path: output.to_path_buf(),
        reason: reason.to_owned(),
    };
    if output.file_name().is_none() {
        return Err(invalid("not a file name"));
    }
    let dir = directory_of(output);
    if !dir.is_dir() {
        return Err(invalid(&format!(
            "directory {} does not exist",
            dir.display()
        )));
    }
    Ok(())
}

fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The config Secrets, and the segments read so far by name.
struct Source {
    api: Api<Secret>,
    namespace: String,
    head: String,
    segments: HashMap<String, Segment>,
}

struct Segment {
    md5: String,
    text: String,
}

/// Why no complete config could be assembled from a head (yet).
struct Pending {
    reason: String,
    /// Whether reading again can help before the head changes (a segment not read yet, the
    /// API server away), or only a new head can (the head itself is unreadable).
    retry: bool,
}

impl Source {
    fn new(client: kube::Client, options: &LoaderOptions) -> Source {
        Source {
            api: Api::namespaced(client, &options.namespace),
            namespace: options.namespace.clone(),
            head: options.secret.clone(),
            segments: HashMap::new(),
        }
    }

    fn head_name(&self) -> String {
        format!("{}/{}", self.namespace, self.head)
    }

    /// The head, `None` when it does not exist; `Err` with the reason when it could not be
    /// read.
    async fn read_head(&self) -> Result<Option<Secret>, String> {
        self.get(&self.head).await
    }

    async fn get(&self, name: &str) -> Result<Option<Secret>, String> {
        match tokio::time::timeout(GET_TIMEOUT, self.api.get_opt(name)).await {
            Ok(Ok(found)) => Ok(found),
            Ok(Err(e)) => Err(format!(
                "reading Secret {}/{name}: {}",
                self.namespace,
                one_line(&e)
            )),
            Err(_) => Err(format!(
                "reading Secret {}/{name}: no answer within {GET_TIMEOUT:?}",
                self.namespace
            )),
        }
    }

    /// The whole config `head` names, reading the segments it does not hold with the MD5 the
    /// head names; nothing unless every segment matches.
    async fn assemble(&mut self, head: &Secret) -> Result<String, Pending> {
        let data = head.data.as_ref();
        let head_text = match data.and_then(|d| d.get(CONFIG_KEY)) {
            Some(bytes) => segments::decode(&bytes.0).map_err(|reason| Pending {
                reason: format!("Secret {}: key {CONFIG_KEY}: {reason}", self.head_name()),
                retry: false,
            })?,
            None => {
                return Err(Pending {
                    reason: format!("Secret {} has no key {CONFIG_KEY}", self.head_name()),
                    retry: false,
                });
            }
        };
        let manifest = match data.and_then(|d| d.get(MANIFEST_KEY)) {
            Some(bytes) => {
                segments::parse_manifest(&self.head_name(), &bytes.0).map_err(|e| Pending {
                    reason: e.to_string(),
                    retry: false,
                })?
            }
            None => Manifest::default(),
        };
        // Only the segments this head names are kept.
        self.segments
            .retain(|name, _| manifest.segments.iter().any(|e| &e.secret == name));
        for entry in &manifest.segments {
            if self
                .segments
                .get(&entry.secret)
                .is_some_and(|s| s.md5 == entry.md5)
            {
                continue;
            }
            let Some(secret) = self.get(&entry.secret).await.map_err(|reason| Pending {
                reason,
                retry: true,
            })?
            else {
                self.segments.remove(&entry.secret);
                continue;
            };
            let bytes = secret.data.as_ref().and_then(|d| d.get(CONFIG_KEY));
            let Some(text) = bytes.and_then(|b| segments::decode(&b.0).ok()) else {
                // Unreadable: as good as missing; a rewrite by the operator fixes it.
                self.segments.remove(&entry.secret);
                continue;
            };
            let md5 = segments::md5_hex(text.as_bytes());
            self.segments
                .insert(entry.secret.clone(), Segment { md5, text });
        }
        let segments = &self.segments;
        segments::assemble(&head_text, &manifest, |name| {
            segments.get(name).map(|s| s.text.as_str())
        })
        .map_err(|e| {
            let reason = match &e {
                AssembleError::Missing { secret } => format!(
                    "segment Secret {}/{secret} of {}: not there yet, or unreadable",
                    self.namespace,
                    self.head_name()
                ),
                AssembleError::Stale {
                    secret,
                    found,
                    wanted,
                } => format!(
                    "segment Secret {}/{secret} of {}: holds a text of MD5 {found}, the head \
                     names {wanted}",
                    self.namespace,
                    self.head_name()
                ),
                other => format!("in namespace {}: {other}", self.namespace),
            };
            Pending {
                reason,
                retry: true,
            }
        })
    }
}

/// What a step of the sidecar came to.
enum Step {
    /// The file holds the newest config, and the agent runs it (or refused it: see `/ready`).
    Done,
    /// Nothing more can be done until the head changes.
    WaitForChange(String),
    /// Try again after a backoff.
    Retry(String),
}

struct Sidecar {
    options: LoaderOptions,
    source: Source,
    /// What the output file holds (as this process last wrote or read it).
    file: Option<Arc<String>>,
    /// The last config the agent accepted (or started from).
    loaded: Option<Arc<String>>,
    /// The last config the agent refused: not offered again until the head changes it.
    refused: Option<Arc<String>>,
    readiness: Readiness,
}

/// Milliseconds since `since`, for the log: how long each part of delivering a change took.
fn millis_since(since: Instant) -> String {
    format!("{:.1}", since.elapsed().as_secs_f64() * 1000.0)
}

impl Sidecar {
    /// Loads the config `head` names; `changed` is when its change reached the loader (the
    /// log says how long assembling, writing and the agent's reload took from there).
    async fn step(&mut self, head: Option<&Secret>, changed: Instant) -> Step {
        let Some(head) = head else {
            return Step::WaitForChange(format!(
                "Secret {} does not exist",
                self.source.head_name()
            ));
        };
        let version = head.metadata.resource_version.clone().unwrap_or_default();
        let text = match self.source.assemble(head).await {
            Ok(text) => text,
            Err(Pending {
                reason,
                retry: true,
            }) => return Step::Retry(reason),
            Err(Pending { reason, .. }) => {
                warn!(%reason, "the config Secret cannot be loaded");
                self.readiness.set(Err(reason.clone()));
                return Step::WaitForChange(reason);
            }
        };
        let config = match substitute(&text, &self.options.env) {
            Ok(config) => Arc::new(config),
            Err(e) => {
                let reason = format!("Secret {}: key {CONFIG_KEY}: {e}", self.source.head_name());
                warn!(%reason, "not writing the config");
                self.readiness.set(Err(reason.clone()));
                return Step::WaitForChange(reason);
            }
        };
        let assembled_ms = millis_since(changed);
        if self.refused.as_ref() == Some(&config) {
            return Step::WaitForChange("the agent refused this config".to_owned());
        }
        if self.file.as_ref() != Some(&config) {
            if let Err(e) = write_atomic(&self.options.output, config.clone()).await {
                let reason = format!("writing {}: {e}", self.options.output.display());
                self.readiness.set(Err(reason.clone()));
                return Step::Retry(reason);
            }
            info!(path = %self.options.output.display(), bytes = config.len(), secret = %self.source.head_name(), %version, assembled_ms = %assembled_ms, written_ms = %millis_since(changed), "wrote the config");
            self.file = Some(config.clone());
        }
        if self.loaded.as_ref() == Some(&config) {
            self.readiness.loaded(&text);
            return Step::Done;
        }
        let Some(url) = self.options.reload_url.clone() else {
            self.loaded = Some(config);
            self.readiness.loaded(&text);
            return Step::Done;
        };
        let reloading = Instant::now();
        match reload(&url).await {
            Ok(()) => {
                info!(%url, %version, reload_ms = %millis_since(reloading), since_change_ms = %millis_since(changed), "the agent reloaded the config");
                self.loaded = Some(config);
                self.refused = None;
                self.readiness.loaded(&text);
                Step::Done
            }
            Err(Reload::Refused { status, body }) => {
                let reason = format!(
                    "the agent refused the config of Secret {} (resourceVersion {version}): \
                     {url} answered {status}: {body}",
                    self.source.head_name()
                );
                warn!(%reason, "putting the last config the agent accepted back");
                self.readiness.set(Err(reason.clone()));
                self.refused = Some(config);
                if let Err(e) = self.restore().await {
                    return Step::Retry(format!(
                        "restoring {}: {e}",
                        self.options.output.display()
                    ));
                }
                Step::WaitForChange(reason)
            }
            Err(Reload::Unanswered(e)) => {
                let reason = format!("reloading the agent at {url}: {e}");
                self.readiness.set(Err(reason.clone()));
                Step::Retry(reason)
            }
        }
    }

    /// Puts the last config the agent accepted back in the file (none: removes the file).
    async fn restore(&mut self) -> std::io::Result<()> {
        let output = &self.options.output;
        match self.loaded.clone() {
            Some(previous) => write_atomic(output, previous).await?,
            None => match tokio::fs::remove_file(output).await {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            },
        }
        self.file = self.loaded.clone();
        Ok(())
    }
}

/// Writes `text` to `path` at once for every reader: a temporary file beside it, renamed over
/// it. A reader sees the old file or the new one, never part of one. Not synced to disk: the
/// file only has to outlive the agent's process, not the node (after a node restart the init
/// container writes it anew from the Secrets before the agent starts), and a sync waited on
/// the disk behind every other write of the node (the write took up to 0.3 s of a change on
/// the loaded real node with it; BENCHMARKS.md, issue 35).
async fn write_atomic(path: &Path, text: Arc<String>) -> std::io::Result<()> {
    let path = path.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let dir = directory_of(&path);
        let temporary = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        let written = (|| {
            std::fs::File::create(&temporary)?.write_all(text.as_bytes())?;
            std::fs::rename(&temporary, &path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written
    })
    .await
    .map_err(std::io::Error::other)?
}

enum Reload {
    /// The agent answered, not with 2xx.
    Refused { status: StatusCode, body: String },
    /// No answer: the agent is not listening (yet), or took too long.
    Unanswered(String),
}

/// POSTs the reload URL; `Ok` on a 2xx answer.
async fn reload(url: &ReloadUrl) -> Result<(), Reload> {
    let unanswered = |e: &dyn std::fmt::Display| Reload::Unanswered(e.to_string());
    let stream = tokio::time::timeout(CONNECT_TIMEOUT, TcpStream::connect(&url.authority))
        .await
        .map_err(|_| Reload::Unanswered(format!("no connection within {CONNECT_TIMEOUT:?}")))?
        .map_err(|e| unanswered(&e))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake::<_, Empty<Bytes>>(TokioIo::new(stream))
            .await
            .map_err(|e| unanswered(&e))?;
    let connection = tokio::spawn(connection);
    let request = Request::post(url.path.as_str())
        .header(HOST, url.authority.as_str())
        .body(Empty::new())
        .map_err(|e| unanswered(&e))?;
    let answered = tokio::time::timeout(RELOAD_TIMEOUT, async {
        let response = sender.send_request(request).await?;
        let status = response.status();
        // The reason only: a body cut at the limit is still a reason.
        let body = match Limited::new(response.into_body(), REASON_MAX_BYTES)
            .collect()
            .await
        {
            Ok(body) => String::from_utf8_lossy(&body.to_bytes()).into_owned(),
            Err(_) => "(an answer longer than 4 KiB)".to_owned(),
        };
        Ok::<_, hyper::Error>((status, body))
    })
    .await;
    connection.abort();
    let (status, body) = answered
        .map_err(|_| Reload::Unanswered(format!("no answer within {RELOAD_TIMEOUT:?}")))?
        .map_err(|e| unanswered(&e))?;
    if status.is_success() {
        Ok(())
    } else {
        Err(Reload::Refused {
            status,
            body: body.trim().replace('\n', " "),
        })
    }
}

/// Whether the file holds the newest config and the agent accepted it, or why not; and which
/// config the agent last accepted.
#[derive(Clone)]
struct Readiness(Arc<Mutex<LoaderStatus>>);

/// What `GET /status` answers: whether the loader is ready (the reason when not), and the MD5
/// of the config the agent last accepted, as assembled from the Secrets (before the pod's
/// variables), which anyone can compute from the Secrets to tell whether an edit is running.
#[derive(Clone, Debug, Default, serde::Serialize)]
struct LoaderStatus {
    ready: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    loaded_md5: Option<String>,
}

impl Readiness {
    fn new(state: Result<(), String>) -> Readiness {
        let readiness = Readiness(Arc::default());
        readiness.set(state);
        readiness
    }

    fn set(&self, state: Result<(), String>) {
        let mut status = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        status.ready = state.is_ok();
        status.reason = state.err();
    }

    /// Ready, the agent running the config assembled as `assembled`.
    fn loaded(&self, assembled: &str) {
        self.set(Ok(()));
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .loaded_md5 = Some(segments::md5_hex(assembled.as_bytes()));
    }

    fn get(&self) -> Result<(), String> {
        let status = self.status();
        match status.reason {
            Some(reason) if !status.ready => Err(reason),
            _ => Ok(()),
        }
    }

    fn status(&self) -> LoaderStatus {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// `GET /ready` (200, or 503 with the reason), `GET /status` (JSON: `ready`, `reason`, and
/// `loaded_md5`, the MD5 of the config the agent last accepted as the Secrets hold it) and
/// `GET /healthz` (200 while the process runs).
async fn serve_readiness(listener: TcpListener, readiness: Readiness) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                warn!(error = %e, "accepting an HTTP connection");
                continue;
            }
        };
        let readiness = readiness.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<Incoming>| {
                let response = respond(&request, &readiness);
                async move { Ok::<_, Infallible>(response) }
            });
            if let Err(e) = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                debug!(%peer, error = %e, "HTTP connection");
            }
        });
    }
}

fn respond(request: &Request<Incoming>, readiness: &Readiness) -> Response<Full<Bytes>> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "only GET and HEAD\n".to_owned(),
        );
    }
    match request.uri().path() {
        "/ready" => match readiness.get() {
            Ok(()) => text(StatusCode::OK, "ok\n".to_owned()),
            Err(reason) => text(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("not ready: {reason}\n"),
            ),
        },
        "/status" => {
            let mut response = text(
                StatusCode::OK,
                serde_json::to_string(&readiness.status()).unwrap_or_default(),
            );
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
        }
        "/healthz" => text(StatusCode::OK, "ok\n".to_owned()),
        _ => text(StatusCode::NOT_FOUND, "not found\n".to_owned()),
    }
}

fn text(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reload_urls_are_plain_http_with_a_port() {
        let url = ReloadUrl::parse("http://127.0.0.1:8080/-/reload")
            .expect("parses")
            .expect("set");
        assert_eq!(url.authority, "127.0.0.1:8080");
        assert_eq!(url.path, "/-/reload");
        assert_eq!(url.to_string(), "http://127.0.0.1:8080/-/reload");
        let url = ReloadUrl::parse("http://localhost")
            .expect("parses")
            .expect("set");
        assert_eq!(
            (url.authority.as_str(), url.path.as_str()),
            ("localhost:80", "/")
        );
        assert_eq!(ReloadUrl::parse("").expect("empty is none"), None);
        for bad in [
            "https://127.0.0.1:8080/-/reload",
            "127.0.0.1:8080",
            "http://",
        ] {
            let e = ReloadUrl::parse(bad).expect_err(bad).to_string();
            assert!(e.starts_with("--reload-url"), "{e}");
        }
    }

    #[tokio::test]
    async fn a_write_replaces_the_file_whole_and_leaves_no_temporary_file() {
        let dir = std::env::temp_dir().join(format!("config-loader-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("agent.yml");
        std::fs::write(&path, "old: 1\n").expect("old");
        write_atomic(&path, Arc::new("new: 2\n".to_owned()))
            .await
            .expect("written");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new: 2\n");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, ["agent.yml"]);
        assert!(check_output(&dir.join("missing/agent.yml")).is_err());
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }
}

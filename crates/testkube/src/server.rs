//! HTTP front end: routing of Kubernetes API paths to the store, discovery, watch streaming.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Full, Limited, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper_util::rt::TokioIo;
use parking_lot::Mutex;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use crate::error::ApiError;
use crate::faults::{CounterTable, FaultRules};
use crate::patch::PatchKind;
use crate::presentation::{self, Presentation};
use crate::resources::ResourceInfo;
use crate::selector::{FieldSelector, LabelSelector};
use crate::store::{
    DeleteOptions, Deleted, ListOptions, Propagation, Selection, State, WatchItem, WatchStart,
    WriteOptions,
};
use crate::table;

/// Largest request body accepted; real servers cap at 3 MiB per object, lists of patches are
/// smaller still.
const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

pub type Body = BoxBody<Bytes, Infallible>;

/// Tunables of a server instance.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// How often watches that allow bookmarks receive one.
    pub bookmark_interval: Duration,
    /// How many changes are kept for watches resuming from an older resourceVersion.
    pub history_limit: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bookmark_interval: Duration::from_secs(5),
            history_limit: 50_000,
        }
    }
}

/// State shared by the connection tasks and the test-side handles.
pub struct Shared {
    pub(crate) state: Mutex<State>,
    pub(crate) faults: Mutex<FaultRules>,
    pub(crate) counters: Mutex<CounterTable>,
    pub(crate) config: ServerConfig,
    pub(crate) addr: SocketAddr,
}

impl Shared {
    pub fn new(config: ServerConfig, addr: SocketAddr) -> Self {
        Shared {
            state: Mutex::new(State::new(config.history_limit)),
            faults: Mutex::new(FaultRules::default()),
            counters: Mutex::new(CounterTable::default()),
            config,
            addr,
        }
    }
}

/// Accepts connections until `shutdown` flips; dropping the join set ends open connections.
pub async fn serve(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                let _ = stream.set_nodelay(true);
                let shared = shared.clone();
                connections.spawn(async move {
                    let service = hyper::service::service_fn(move |request| handle(shared.clone(), request));
                    let connection = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service);
                    if let Err(error) = connection.await {
                        tracing::debug!(%error, "connection ended with an error");
                    }
                });
            }
            _ = shutdown.changed() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).boxed()
}

fn json_response(status: StatusCode, body: &Value) -> Response<Body> {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    bytes_response(status, bytes)
}

fn bytes_response(status: StatusCode, bytes: Vec<u8>) -> Response<Body> {
    let mut response = Response::new(full(bytes));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    response
}

fn error_response(error: &ApiError) -> Response<Body> {
    let status = StatusCode::from_u16(error.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    json_response(status, &error.to_status())
}

/// The addressed resource of a request path.
struct Target {
    info: ResourceInfo,
    namespace: Option<String>,
    name: Option<String>,
    subresource: Option<String>,
}

impl Target {
    fn counted_resource(&self) -> String {
        match &self.subresource {
            Some(subresource) => format!("{}/{subresource}", self.info.plural),
            None => self.info.plural.clone(),
        }
    }
}

enum Route {
    Document(Value),
    NotFound,
    Resource(Box<Target>),
}

fn route(state: &State, addr: SocketAddr, path: &str) -> Result<Route, ApiError> {
    let segments: Vec<&str> = path
        .trim_matches('/')
        .split('/')
        .filter(|segment| !segment.is_empty())
        .collect();
    let registry = &state.registry;
    let (group, version, rest) = match segments.as_slice() {
        ["version"] => return Ok(Route::Document(version_document())),
        ["healthz" | "livez" | "readyz", ..] => return Ok(Route::Document(json!("ok"))),
        ["api"] => {
            return Ok(Route::Document(json!({
                "kind": "APIVersions",
                "versions": ["v1"],
                "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": addr.to_string()}],
            })));
        }
        ["apis"] => return Ok(Route::Document(registry.group_list())),
        ["apis", group] => {
            return Ok(registry
                .group(group)
                .map_or(Route::NotFound, Route::Document));
        }
        ["api", "v1", rest @ ..] => ("", "v1", rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return Ok(Route::NotFound),
    };
    if rest.is_empty() {
        return Ok(registry
            .resource_list(group, version)
            .map_or(Route::NotFound, Route::Document));
    }
    let lookup = |plural: &str| registry.lookup(group, version, plural).cloned();
    let not_found = || {
        ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
    };
    // `namespaces/<ns>/<resource>...` addresses namespaced objects; `namespaces/<name>[/status]`
    // addresses Namespace objects themselves.
    if let ["namespaces", namespace, plural, tail @ ..] = rest
        && let Some(info) = lookup(plural).filter(|info| info.namespaced)
    {
        if tail.len() > 2 {
            return Err(not_found());
        }
        return Ok(Route::Resource(Box::new(Target {
            info,
            namespace: Some(namespace.to_string()),
            name: tail.first().map(|name| name.to_string()),
            subresource: tail.get(1).map(|sub| sub.to_string()),
        })));
    }
    let [plural, tail @ ..] = rest else {
        return Err(not_found());
    };
    let info = lookup(plural).ok_or_else(not_found)?;
    if tail.len() > 2 || (info.namespaced && !tail.is_empty()) {
        return Err(not_found());
    }
    Ok(Route::Resource(Box::new(Target {
        info,
        namespace: None,
        name: tail.first().map(|name| name.to_string()),
        subresource: tail.get(1).map(|sub| sub.to_string()),
    })))
}

fn version_document() -> Value {
    json!({
        "major": "1",
        "minor": "35",
        "emulationMajor": "1",
        "emulationMinor": "35",
        "minCompatibilityMajor": "1",
        "minCompatibilityMinor": "34",
        "gitVersion": "v1.35.0-testkube",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2025-01-01T00:00:00Z",
        "goVersion": "go1.24.0",
        "compiler": "gc",
        "platform": "linux/amd64",
    })
}

fn parse_query(query: Option<&str>) -> HashMap<String, String> {
    form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .map(|(key, value)| (key.into_owned(), value.into_owned()))
        .collect()
}

fn flag(query: &HashMap<String, String>, key: &str) -> bool {
    matches!(query.get(key).map(String::as_str), Some("true" | "1"))
}

/// Parses JSON, or YAML (server-side apply bodies and `application/yaml` requests).
fn parse_body(bytes: &[u8], content_type: &str) -> Result<Value, ApiError> {
    if content_type.contains("protobuf") {
        return crate::protobuf::decode(bytes)
            .map_err(|error| ApiError::unsupported_media_type(error.to_string()));
    }
    if content_type.contains("cbor") {
        // Clients that offer CBOR fall back to JSON on 415.
        return Err(ApiError::unsupported_media_type(format!(
            "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (got {content_type})"
        )));
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request("the request body is empty"));
    }
    match serde_json::from_slice(bytes) {
        Ok(value) => Ok(value),
        Err(json_error) if content_type.contains("yaml") => {
            let text = std::str::from_utf8(bytes)
                .map_err(|error| ApiError::bad_request(error.to_string()))?;
            serde_saphyr::from_str::<Value>(text).map_err(|yaml_error| {
                ApiError::bad_request(format!(
                    "the body is neither JSON ({json_error}) nor YAML ({yaml_error})"
                ))
            })
        }
        Err(error) => Err(ApiError::bad_request(format!(
            "the body is not valid JSON: {error}"
        ))),
    }
}

/// The default field manager: the User-Agent up to its first `/`, as the real server derives it.
fn default_manager(user_agent: Option<&str>) -> String {
    user_agent
        .and_then(|agent| agent.split('/').next())
        .filter(|manager| !manager.is_empty())
        .unwrap_or("unknown")
        .chars()
        .take(128)
        .collect()
}

fn verb_of(
    method: &Method,
    target: &Target,
    query: &HashMap<String, String>,
) -> Result<&'static str, ApiError> {
    let on_subresource = target.subresource.is_some();
    let verb = match (method, target.name.is_some()) {
        // `GET .../name?watch=true` is the deprecated single-object watch.
        (&Method::GET, _) if flag(query, "watch") && !on_subresource => "watch",
        (&Method::GET, false) => "list",
        (&Method::GET, true) => "get",
        (&Method::PUT | &Method::PATCH, true) if on_subresource => {
            if method == Method::PUT {
                "update"
            } else {
                "patch"
            }
        }
        _ if on_subresource => {
            return Err(ApiError::method_not_allowed(format!(
                "the server does not allow this method on the requested resource ({method})"
            )));
        }
        (&Method::POST, false) => "create",
        (&Method::PUT, true) => "update",
        (&Method::PATCH, true) => "patch",
        (&Method::DELETE, true) => "delete",
        (&Method::DELETE, false) => "deletecollection",
        _ => {
            return Err(ApiError::method_not_allowed(format!(
                "the server does not allow this method on the requested resource ({method})"
            )));
        }
    };
    Ok(verb)
}

pub async fn handle(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    Ok(match handle_inner(&shared, request).await {
        Ok(response) => response,
        Err(error) => error_response(&error),
    })
}

async fn handle_inner(
    shared: &Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<Body>, ApiError> {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_string();
    if let Some(openapi) = path.strip_prefix("/openapi/") {
        // Only skeletal v3 documents (see `Registry::openapi_root`); v2 is absent, so kubectl
        // builds strategic merge patches from its compiled-in types.
        let document = {
            let state = shared.state.lock();
            match openapi.trim_end_matches('/') {
                "v3" => Some(state.registry.openapi_root()),
                other => other
                    .strip_prefix("v3/")
                    .and_then(|key| state.registry.openapi_group_version(key)),
            }
        };
        return Ok(match document {
            Some(document) => json_response(StatusCode::OK, &document),
            None => error_response(&ApiError::new(
                404,
                "NotFound",
                "the server could not find the requested resource",
            )),
        });
    }
    let query = parse_query(parts.uri.query());
    let routed = route(&shared.state.lock(), shared.addr, &path)?;
    let target = match routed {
        Route::Document(document) => return Ok(json_response(StatusCode::OK, &document)),
        Route::NotFound => {
            return Err(ApiError::new(
                404,
                "NotFound",
                "the server could not find the requested resource",
            ));
        }
        Route::Resource(target) => *target,
    };
    if let Some(subresource) = &target.subresource
        && (subresource != "status" || !target.info.has_status)
    {
        return Err(ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ));
    }
    let verb = verb_of(&parts.method, &target, &query)?;
    let resource = target.counted_resource();
    shared.counters.lock().increment(verb, &resource);
    let (delay, failure) = {
        let mut faults = shared.faults.lock();
        (
            faults.delay_for(verb, &resource),
            faults.take_failure(verb, &resource),
        )
    };
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    if let Some(code) = failure {
        return Err(ApiError::from_code(
            code,
            format!("injected fault: {verb} {resource} fails with {code}"),
        ));
    }
    let header_text = |name: header::HeaderName| {
        parts
            .headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    let content_type = header_text(header::CONTENT_TYPE);
    let accept = header_text(header::ACCEPT);
    let user_agent = header_text(header::USER_AGENT);
    let body = Limited::new(body, MAX_BODY_BYTES)
        .collect()
        .await
        .map_err(|error| ApiError::new(413, "RequestEntityTooLarge", error.to_string()))?
        .to_bytes();
    let write_options = WriteOptions {
        field_manager: query.get("fieldManager").cloned().unwrap_or_else(|| {
            default_manager(
                Some(&user_agent)
                    .filter(|agent| !agent.is_empty())
                    .map(String::as_str),
            )
        }),
        dry_run: query.get("dryRun").is_some_and(|value| value == "All"),
        force: flag(&query, "force"),
    };
    let info = &target.info;
    let namespace = target.namespace.as_deref();
    let status = target.subresource.is_some();
    let presentation = Presentation::from_accept(&accept);
    match verb {
        "get" => {
            let presentation = presentation.check(verb)?;
            let name = target.name.as_deref().unwrap_or_default();
            let object = shared.state.lock().get(info, namespace, name)?;
            Ok(match presentation {
                Presentation::Table => {
                    json_response(StatusCode::OK, &table::table(info, &[object], None))
                }
                Presentation::Metadata { .. } => {
                    json_response(StatusCode::OK, &presentation::partial(&object))
                }
                Presentation::Whole => json_response(StatusCode::OK, &object),
            })
        }
        "list" => {
            let presentation = presentation.check(verb)?;
            let options = list_options(&query, &target)?;
            let page = shared.state.lock().list(info, &options)?;
            if presentation == Presentation::Table {
                let metadata = list_metadata(&page);
                return Ok(json_response(
                    StatusCode::OK,
                    &table::table(info, &page.items, Some(metadata)),
                ));
            }
            Ok(bytes_response(
                StatusCode::OK,
                encode_list(info, &page, presentation)?,
            ))
        }
        "watch" => start_watch(shared, &target, &query, presentation.check(verb)?),
        "create" => {
            if target.subresource.is_some() {
                return Err(ApiError::method_not_allowed(
                    "create is not allowed on a subresource",
                ));
            }
            let object = parse_body(&body, &content_type)?;
            let created = shared
                .state
                .lock()
                .create(info, namespace, object, &write_options)?;
            Ok(json_response(StatusCode::CREATED, &created))
        }
        "update" => {
            let name = target.name.as_deref().unwrap_or_default();
            let object = parse_body(&body, &content_type)?;
            let updated = shared.state.lock().update(
                info,
                namespace,
                name,
                object,
                status,
                &write_options,
            )?;
            Ok(json_response(StatusCode::OK, &updated))
        }
        "patch" => {
            let name = target.name.as_deref().unwrap_or_default();
            let kind = PatchKind::from_content_type(&content_type)
                .map_err(|error| ApiError::unsupported_media_type(error.to_string()))?;
            let mut options = write_options;
            if kind == PatchKind::Apply && !query.contains_key("fieldManager") {
                options.field_manager = String::new();
            }
            let patch = parse_body(&body, &content_type)?;
            let patched = shared
                .state
                .lock()
                .patch(info, namespace, name, kind, &patch, status, &options)?;
            Ok(json_response(StatusCode::OK, &patched))
        }
        "delete" => {
            let name = target.name.as_deref().unwrap_or_default();
            let options = delete_options(&body, &query)?;
            let outcome = shared
                .state
                .lock()
                .delete(info, namespace, name, &options)?;
            Ok(match outcome {
                Deleted::Pending(object) => json_response(StatusCode::OK, &object),
                Deleted::Gone(object) => {
                    json_response(StatusCode::OK, &success_status(info, &object))
                }
            })
        }
        "deletecollection" => {
            let options = list_options(&query, &target)?;
            let delete = delete_options(&body, &query)?;
            let deleted = shared
                .state
                .lock()
                .delete_collection(info, &options, &delete)?;
            let page = crate::store::ListPage {
                items: deleted,
                resource_version: shared.state.lock().resource_version(),
                continue_token: None,
                remaining: None,
            };
            Ok(bytes_response(
                StatusCode::OK,
                encode_list(info, &page, Presentation::Whole)?,
            ))
        }
        other => Err(ApiError::method_not_allowed(format!(
            "unsupported verb {other}"
        ))),
    }
}

fn success_status(info: &ResourceInfo, object: &Value) -> Value {
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": {
            "name": object["metadata"]["name"],
            "group": info.group,
            "kind": info.plural,
            "uid": object["metadata"]["uid"],
        },
    })
}

fn selection(query: &HashMap<String, String>, target: &Target) -> Result<Selection, ApiError> {
    let labels = LabelSelector::parse(
        query
            .get("labelSelector")
            .map(String::as_str)
            .unwrap_or_default(),
    )
    .map_err(|error| ApiError::bad_request(error.to_string()))?;
    let fields = FieldSelector::parse(
        query
            .get("fieldSelector")
            .map(String::as_str)
            .unwrap_or_default(),
        &target.info.plural,
    )
    .map_err(|error| ApiError::bad_request(error.to_string()))?;
    Ok(Selection {
        namespace: target.namespace.clone().filter(|_| target.info.namespaced),
        labels,
        fields,
    })
}

fn list_options(query: &HashMap<String, String>, target: &Target) -> Result<ListOptions, ApiError> {
    let limit = match query.get("limit") {
        Some(text) => Some(
            text.parse::<usize>()
                .map_err(|_| ApiError::bad_request(format!("invalid limit {text:?}")))?,
        ),
        None => None,
    };
    Ok(ListOptions {
        selection: selection(query, target)?,
        limit,
        continue_token: query.get("continue").cloned(),
        resource_version: query.get("resourceVersion").cloned(),
        resource_version_match: query.get("resourceVersionMatch").cloned(),
    })
}

fn delete_options(body: &[u8], query: &HashMap<String, String>) -> Result<DeleteOptions, ApiError> {
    let parsed: Value = if body.iter().all(u8::is_ascii_whitespace) {
        json!({})
    } else {
        serde_json::from_slice(body)
            .map_err(|error| ApiError::bad_request(format!("invalid DeleteOptions: {error}")))?
    };
    let policy = parsed["propagationPolicy"]
        .as_str()
        .map(str::to_string)
        .or_else(|| query.get("propagationPolicy").cloned());
    let mut propagation = match policy.as_deref() {
        None => None,
        Some("Background") => Some(Propagation::Background),
        Some("Foreground") => Some(Propagation::Foreground),
        Some("Orphan") => Some(Propagation::Orphan),
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "propagationPolicy: Unsupported value: {other:?}: supported values: \"Foreground\", \"Background\", \"Orphan\""
            )));
        }
    };
    if propagation.is_none() && parsed["orphanDependents"] == json!(true) {
        propagation = Some(Propagation::Orphan);
    }
    let dry_run = parsed["dryRun"]
        .as_array()
        .is_some_and(|modes| modes.iter().any(|mode| mode == "All"))
        || query.get("dryRun").is_some_and(|value| value == "All");
    Ok(DeleteOptions {
        propagation,
        precondition_uid: parsed["preconditions"]["uid"].as_str().map(str::to_string),
        precondition_resource_version: parsed["preconditions"]["resourceVersion"]
            .as_str()
            .map(str::to_string),
        dry_run,
    })
}

fn list_metadata(page: &crate::store::ListPage) -> Value {
    let mut metadata = json!({"resourceVersion": page.resource_version.to_string()});
    if let Some(token) = &page.continue_token {
        metadata["continue"] = json!(token);
    }
    if let Some(remaining) = page.remaining {
        metadata["remainingItemCount"] = json!(remaining);
    }
    metadata
}

/// Writes the list document item by item, without building one big `Value`; metadata-only
/// when `presentation` asks for it.
fn encode_list(
    info: &ResourceInfo,
    page: &crate::store::ListPage,
    presentation: Presentation,
) -> Result<Vec<u8>, ApiError> {
    let encode_error =
        |error: serde_json::Error| ApiError::internal(format!("encoding a list: {error}"));
    let metadata_only = matches!(presentation, Presentation::Metadata { .. });
    let (kind, api_version) = if metadata_only {
        let (kind, api_version) = presentation::partial_list_type();
        (kind.to_owned(), api_version.to_owned())
    } else {
        (info.list_kind(), info.api_version())
    };
    let mut out = Vec::with_capacity(256 + page.items.len() * 512);
    out.extend_from_slice(b"{\"kind\":");
    serde_json::to_writer(&mut out, &kind).map_err(encode_error)?;
    out.extend_from_slice(b",\"apiVersion\":");
    serde_json::to_writer(&mut out, &api_version).map_err(encode_error)?;
    out.extend_from_slice(b",\"metadata\":");
    serde_json::to_writer(&mut out, &list_metadata(page)).map_err(encode_error)?;
    out.extend_from_slice(b",\"items\":[");
    for (index, item) in page.items.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        if metadata_only {
            serde_json::to_writer(&mut out, &presentation::partial(item)).map_err(encode_error)?;
        } else {
            serde_json::to_writer(&mut out, &**item).map_err(encode_error)?;
        }
    }
    out.extend_from_slice(b"]}");
    Ok(out)
}

fn encode_event(event_type: &str, object: &Value) -> Bytes {
    let mut line =
        serde_json::to_vec(&json!({"type": event_type, "object": object})).unwrap_or_default();
    line.push(b'\n');
    Bytes::from(line)
}

fn start_watch(
    shared: &Arc<Shared>,
    target: &Target,
    query: &HashMap<String, String>,
    presentation: Presentation,
) -> Result<Response<Body>, ApiError> {
    let info = target.info.clone();
    let mut selection = selection(query, target)?;
    if let Some(name) = &target.name {
        // Old-style single-object watch; fold into a name field selector.
        selection.fields = FieldSelector::parse(&format!("metadata.name={name}"), &info.plural)
            .map_err(|error| ApiError::bad_request(error.to_string()))?;
    }
    let send_initial = flag(query, "sendInitialEvents");
    let start =
        match query.get("resourceVersion").map(String::as_str) {
            _ if send_initial => WatchStart::Snapshot { end_bookmark: true },
            None | Some("") | Some("0") => WatchStart::Snapshot {
                end_bookmark: false,
            },
            Some(text) => WatchStart::After(text.parse().map_err(|_| {
                ApiError::bad_request(format!("invalid resource version: {text:?}"))
            })?),
        };
    let allow_bookmarks = flag(query, "allowWatchBookmarks");
    let timeout = query
        .get("timeoutSeconds")
        .and_then(|text| text.parse::<u64>().ok())
        .map(Duration::from_secs);
    let (frames, receiver) = mpsc::channel::<Bytes>(1024);
    let mut response = Response::new(
        StreamBody::new(futures_util::stream::unfold(
            receiver,
            |mut receiver| async move {
                receiver
                    .recv()
                    .await
                    .map(|bytes| (Ok::<_, Infallible>(Frame::data(bytes)), receiver))
            },
        ))
        .boxed(),
    );
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    let subscription = shared.state.lock().watch(&info, selection, start);
    let (initial, live) = match subscription {
        Ok(subscription) => subscription,
        Err(error) => {
            // Watch errors after the handshake travel as an ERROR event, as on a real server.
            let event = encode_event("ERROR", &error.to_status());
            tokio::spawn(async move {
                let _ = frames.send(event).await;
            });
            return Ok(response);
        }
    };
    let shared = shared.clone();
    tokio::spawn(stream_watch(
        shared,
        info,
        initial,
        live,
        frames,
        WatchSettings {
            allow_bookmarks,
            timeout,
            presentation,
        },
    ));
    Ok(response)
}

struct WatchSettings {
    allow_bookmarks: bool,
    timeout: Option<Duration>,
    presentation: Presentation,
}

fn render(info: &ResourceInfo, item: &WatchItem, presentation: Presentation) -> Bytes {
    let object = State::presented(info, &item.object);
    match presentation {
        Presentation::Table if item.event_type != "BOOKMARK" && item.event_type != "ERROR" => {
            encode_event(item.event_type, &table::table(info, &[object], None))
        }
        Presentation::Metadata { .. } if item.event_type != "ERROR" => {
            encode_event(item.event_type, &presentation::partial(&object))
        }
        _ => encode_event(item.event_type, &object),
    }
}

async fn stream_watch(
    shared: Arc<Shared>,
    info: ResourceInfo,
    initial: Vec<WatchItem>,
    mut live: mpsc::UnboundedReceiver<WatchItem>,
    frames: mpsc::Sender<Bytes>,
    settings: WatchSettings,
) {
    for item in &initial {
        if frames
            .send(render(&info, item, settings.presentation))
            .await
            .is_err()
        {
            return;
        }
    }
    let deadline = settings
        .timeout
        .map(|timeout| tokio::time::Instant::now() + timeout);
    let period = shared.config.bookmark_interval;
    let mut bookmarks = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    loop {
        tokio::select! {
            item = live.recv() => {
                let Some(item) = item else { break };
                if frames.send(render(&info, &item, settings.presentation)).await.is_err() {
                    break;
                }
            }
            _ = bookmarks.tick(), if settings.allow_bookmarks => {
                // Drain under the lock so that the bookmark is newer than every event sent.
                let (pending, bookmark) = {
                    let state = shared.state.lock();
                    let mut pending = Vec::new();
                    while let Ok(item) = live.try_recv() {
                        pending.push(item);
                    }
                    (pending, state.bookmark(&info))
                };
                for item in &pending {
                    if frames.send(render(&info, item, settings.presentation)).await.is_err() {
                        return;
                    }
                }
                let marker = WatchItem { event_type: "BOOKMARK", object: bookmark };
                if frames.send(render(&info, &marker, settings.presentation)).await.is_err() {
                    break;
                }
            }
            _ = sleep_until(deadline) => break,
            _ = frames.closed() => break,
        }
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

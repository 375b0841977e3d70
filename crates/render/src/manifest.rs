//! Parsing user manifests (multi-document YAML, as `kubectl apply -f` takes them) into a
//! [`InputStore`], with diagnostics that name the source, the document, the object and the field.
//!
//! Our nine kinds are checked against the schemas of the CRDs we generate, as the API server
//! would: unknown fields are warnings (a typo must not pass silently), missing required fields
//! get a warning and their zero value (as upstream's Go code treats them), and a value of the
//! wrong type or outside the schema's `enum`/`pattern`/`minLength` ([`crate::admission`])
//! rejects the object. The `default`s our CRD schemas declare are applied, as the API
//! server applies them before the operator sees an object (`protocol: TCP` on a container port).
//! Kinds the operator does not read are skipped quietly.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::sync::Arc;

use base64::Engine;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use kube::core::Resource;

use crate::admission;
use crate::assets::AssetSource;
use crate::store::{InputStore, KeyValues, Labels, NamespacedName};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// One problem found in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The file (or `-` for stdin).
    pub source: String,
    /// 1-based index of the YAML document in the source.
    pub document: usize,
    /// `Kind namespace/name`, when known.
    pub object: Option<String>,
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{level}: {} (document {})", self.source, self.document)?;
        if let Some(o) = &self.object {
            write!(f, ": {o}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Accumulates objects from any number of sources.
#[derive(Debug, Default)]
pub struct Loader {
    store: InputStore,
    diagnostics: Vec<Diagnostic>,
    /// `Kind namespace/name` of every object accepted, to report duplicates.
    seen: BTreeMap<String, (String, usize)>,
    /// How many objects of a kind the operator reads were accepted.
    accepted: usize,
}

/// What loading produced.
#[derive(Debug)]
pub struct Loaded {
    /// Every object read, ready for discovery.
    pub store: InputStore,
    pub diagnostics: Vec<Diagnostic>,
    /// Objects of kinds the operator reads that were accepted.
    pub accepted: usize,
    /// Where each accepted object was read: `Kind namespace/name` → (source, document).
    pub origins: BTreeMap<String, (String, usize)>,
}

impl Loaded {
    /// `source (document N)` of `object`, as diagnostics name it, when it was read here.
    pub fn origin_of(&self, object: &crate::input_ref::InputRef) -> Option<String> {
        let (source, document) = self.origins.get(&object.to_string())?;
        Some(format!("{source} (document {document})"))
    }
}

struct DocContext<'a> {
    source: &'a str,
    document: usize,
    object: Option<String>,
}

impl DocContext<'_> {
    fn diag(
        &self,
        severity: Severity,
        field: Option<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            source: self.source.to_owned(),
            document: self.document,
            object: self.object.clone(),
            field,
            message: message.into(),
        }
    }
}

/// Splits a YAML stream into documents at `---` lines (and drops `...` end markers).
fn split_documents(text: &str) -> Vec<String> {
    let mut docs = vec![String::new()];
    for line in text.lines() {
        let is_marker = line == "---" || line.starts_with("--- ") || line.starts_with("---\t");
        if is_marker {
            docs.push(String::new());
            let rest = line[3..].trim_start();
            if !rest.is_empty()
                && !rest.starts_with('#')
                && let Some(d) = docs.last_mut()
            {
                d.push_str(rest);
                d.push('\n');
            }
        } else if line == "..." {
            continue;
        } else if let Some(d) = docs.last_mut() {
            d.push_str(line);
            d.push('\n');
        }
    }
    docs
}

/// An object read from one document, ready to go into the store.
// Each value is moved a couple of times on its way into an `Arc`; boxing it would add an
// allocation per object for nothing.
#[allow(clippy::large_enum_variant)]
enum Parsed {
    Agent(api::GrafanaAgent),
    MetricsInstance(api::MetricsInstance),
    LogsInstance(api::LogsInstance),
    PodLogs(api::PodLogs),
    Integration(api::Integration),
    ServiceMonitor(api::ServiceMonitor),
    PodMonitor(api::PodMonitor),
    Probe(api::Probe),
    ScrapeConfig(api::ScrapeConfig),
    Namespace(String, Labels),
    Secret(DataRead),
    ConfigMap(DataRead),
}

/// Adds `object` with the fields its schema check found unknown ([`unknown_fields`]), which
/// the plan then reports as the controller's does.
fn put<T: crate::store::Input>(store: &mut InputStore, object: T, unknown: Vec<String>) {
    let key = crate::input_ref::InputRef::of(T::KIND, &object);
    store.apply(Arc::new(object));
    store.set_unknown_fields(key, unknown);
}

/// A Secret or ConfigMap read whole from a file.
struct DataRead {
    key: NamespacedName,
    resource_version: Option<String>,
    data: KeyValues,
}

impl DataRead {
    fn new(
        meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
        data: KeyValues,
    ) -> Self {
        DataRead {
            key: (
                meta.namespace.clone().unwrap_or_default(),
                meta.name.clone().unwrap_or_default(),
            ),
            resource_version: meta.resource_version.clone(),
            data,
        }
    }

    fn store_in(self, store: &mut InputStore, source: AssetSource) {
        let (namespace, name) = self.key;
        store.apply_data(source, namespace, name, self.resource_version, self.data);
    }
}

/// What one document (or one item of a List) gives, before duplicates are known: reading
/// and checking documents is independent work, done in parallel; only accepting them into
/// the store, which needs to know what came before, is done in input order.
#[allow(clippy::large_enum_variant)]
enum Prepared {
    /// A problem reported whatever came before.
    Diagnostic(Diagnostic),
    /// A Secret or ConfigMap refused (its errors are its Candidate's): references to it say
    /// so instead of "does not exist".
    RefusedData(AssetSource, String, String),
    /// An object of a kind the operator reads, named `label` (`Kind namespace/name`).
    Candidate {
        label: String,
        document: usize,
        /// Problems found while checking it; reported unless it is a duplicate.
        diagnostics: Vec<Diagnostic>,
        /// `None` when it cannot be used.
        object: Option<Parsed>,
        /// The paths of its fields our schema does not have (warned of in `diagnostics`).
        unknown: Vec<String>,
    },
}

/// Fewer documents than this go to one rayon task: splitting further costs more than it gains.
const PARALLEL_THRESHOLD: usize = 64;

impl Loader {
    pub fn new() -> Self {
        Loader::default()
    }

    /// Adds every document of `text`, read from `source`.
    pub fn add_source(&mut self, source: &str, text: &str) {
        let docs: Vec<(usize, String)> = split_documents(text)
            .into_iter()
            .enumerate()
            .map(|(i, doc)| (i + 1, doc))
            .collect();
        let prepared: Vec<Vec<Prepared>> = docs
            .par_iter()
            .with_min_len(PARALLEL_THRESHOLD)
            .map(|(n, d)| prepare_document(source, *n, d))
            .collect();
        for item in prepared.into_iter().flatten() {
            self.commit(source, item);
        }
    }

    /// Accepts `item` unless an object of the same kind and name was accepted before.
    fn commit(&mut self, source: &str, item: Prepared) {
        match item {
            Prepared::Diagnostic(d) => self.diagnostics.push(d),
            Prepared::RefusedData(source, namespace, name) => {
                self.store.refuse_data(source, &namespace, &name)
            }
            Prepared::Candidate {
                label,
                document,
                diagnostics,
                object,
                unknown,
            } => {
                if let Some((first_source, first_document)) = self.seen.get(&label) {
                    let msg = format!(
                        "duplicate object: already defined in {first_source} (document {first_document}); this one is ignored"
                    );
                    let ctx = DocContext {
                        source,
                        document,
                        object: Some(label),
                    };
                    self.diagnostics.push(ctx.diag(Severity::Error, None, msg));
                    return;
                }
                self.diagnostics.extend(diagnostics);
                let Some(object) = object else { return };
                let s = &mut self.store;
                match object {
                    Parsed::Agent(o) => put(s, o, unknown),
                    Parsed::MetricsInstance(o) => put(s, o, unknown),
                    Parsed::LogsInstance(o) => put(s, o, unknown),
                    Parsed::PodLogs(o) => put(s, o, unknown),
                    Parsed::Integration(o) => put(s, o, unknown),
                    Parsed::ServiceMonitor(o) => put(s, o, unknown),
                    Parsed::PodMonitor(o) => put(s, o, unknown),
                    Parsed::Probe(o) => put(s, o, unknown),
                    Parsed::ScrapeConfig(o) => put(s, o, unknown),
                    Parsed::Namespace(name, labels) => s.apply_namespace(name, labels),
                    Parsed::Secret(d) => d.store_in(s, AssetSource::Secret),
                    Parsed::ConfigMap(d) => d.store_in(s, AssetSource::ConfigMap),
                }
                self.seen.insert(label, (source.to_owned(), document));
                self.accepted += 1;
            }
        }
    }

    /// The store and every diagnostic, warnings and errors in input order.
    pub fn finish(self) -> Loaded {
        Loaded {
            store: self.store,
            diagnostics: self.diagnostics,
            accepted: self.accepted,
            origins: self.seen,
        }
    }
}

/// Reads one document of `source` into what it gives.
fn prepare_document(source: &str, document: usize, doc: &str) -> Vec<Prepared> {
    let ctx = DocContext {
        source,
        document,
        object: None,
    };
    if doc
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Vec::new();
    }
    // Most manifests keep to a block-YAML subset that a much faster reader handles;
    // everything else (and every error) goes through the full parser.
    let parsed = match crate::yaml::read_simple_document(doc) {
        Some(value) => Ok(value),
        None => full_parse(doc),
    };
    let mut out = Vec::new();
    match parsed {
        Ok(value) => prepare_value(&ctx, value, &mut out),
        Err(e) => {
            // Our words and a position, never the text: the document may be a Secret.
            let msg = format!("not valid YAML: {}", crate::yaml::describe_parse_error(&e));
            out.push(Prepared::Diagnostic(ctx.diag(Severity::Error, None, msg)));
        }
    }
    out
}

/// The full parser, with its limits on nodes, events and scalar bytes sized to the document:
/// each node takes at least one byte of text, so those limits can only stop text that
/// expands (aliases, which keep their own limits), never a large input. Fixed limits refused
/// the List that `kubectl get ... -A -o yaml` prints for 10k ServiceMonitors (one YAML
/// document of 250k+ nodes).
fn full_parse(doc: &str) -> Result<Value, serde_saphyr::Error> {
    let mut options = serde_saphyr::options::Options::default();
    let mut budget = options.budget.take().unwrap_or_default();
    budget.max_nodes = budget.max_nodes.max(doc.len());
    budget.max_events = budget.max_events.max(doc.len().saturating_mul(4));
    budget.max_total_scalar_bytes = budget.max_total_scalar_bytes.max(doc.len());
    options.budget = Some(budget);
    serde_saphyr::from_str_with_options(doc, options)
}

fn prepare_value(ctx: &DocContext<'_>, value: Value, out: &mut Vec<Prepared>) {
    let error = |ctx: &DocContext<'_>, field: Option<String>, msg: &str| {
        Prepared::Diagnostic(ctx.diag(Severity::Error, field, msg))
    };
    let Value::Object(mut obj) = value else {
        if !value.is_null() {
            let msg = "not a Kubernetes object (a YAML mapping with apiVersion and kind)";
            out.push(error(ctx, None, msg));
        }
        return;
    };
    let api_version = obj
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let kind = obj
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if api_version.is_empty() || kind.is_empty() {
        let msg = "not a Kubernetes object: apiVersion and kind are required";
        out.push(error(ctx, None, msg));
        return;
    }
    if kind.ends_with("List") && obj.get("items").is_some_and(Value::is_array) {
        if let Some(Value::Array(items)) = obj.remove("items") {
            for item in items {
                prepare_value(ctx, item, out);
            }
        }
        return;
    }
    let name = obj
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let cluster_scoped = kind == "Namespace";
    if !cluster_scoped {
        default_namespace(&mut obj);
    }
    let namespace = obj
        .get("metadata")
        .and_then(|m| m.get("namespace"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    // Names longer than Kubernetes allows are reported (the API server refuses them), by their
    // length: the label shows only their start.
    let too_long = [
        (
            "metadata.name",
            &name,
            if cluster_scoped { 63 } else { 253 },
        ),
        ("metadata.namespace", &namespace, 63),
    ]
    .into_iter()
    .find(|(_, value, max)| value.chars().count() > *max)
    .map(|(field, value, max)| {
        let message = format!(
            "{} characters long; Kubernetes allows at most {max}",
            value.chars().count()
        );
        (field, message)
    });
    let (name_shown, namespace_shown) = (shortened(&name), shortened(&namespace));
    let label = if cluster_scoped {
        format!("{kind} {name_shown}")
    } else {
        format!("{kind} {namespace_shown}/{name_shown}")
    };
    let ctx = DocContext {
        source: ctx.source,
        document: ctx.document,
        object: Some(label.clone()),
    };
    let group = api_version.split('/').next().unwrap_or_default();
    let ours = matches!(group, api::GRAFANA_GROUP | api::COREOS_GROUP);
    let core = api_version == "v1" && matches!(kind.as_str(), "Secret" | "ConfigMap" | "Namespace");
    if !ours && !core {
        return;
    }
    if name.is_empty() {
        let f = Some("metadata.name".to_owned());
        out.push(error(&ctx, f, "an object needs a name"));
        return;
    }
    if let Some((field, message)) = too_long {
        out.push(error(&ctx, Some(field.to_owned()), &message));
        return;
    }
    let mut diagnostics = Vec::new();
    let object = if ours {
        custom_resource(
            &ctx,
            &api_version,
            &kind,
            Value::Object(obj),
            &mut diagnostics,
        )
    } else {
        core_object(&ctx, &kind, Value::Object(obj), &mut diagnostics)
    };
    if object.is_none() {
        let source = match kind.as_str() {
            "Secret" => Some(AssetSource::Secret),
            "ConfigMap" => Some(AssetSource::ConfigMap),
            _ => None,
        };
        if let Some(source) = source {
            out.push(Prepared::RefusedData(
                source,
                namespace.clone(),
                name.clone(),
            ));
        }
    }
    // What the schema check warned of as unknown, kept beside the object for the plan.
    let unknown = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning && d.message == UNKNOWN_FIELD)
        .filter_map(|d| d.field.clone())
        .collect();
    out.push(Prepared::Candidate {
        label,
        document: ctx.document,
        diagnostics,
        object,
        unknown,
    });
}

/// The parse error of `result`, as a diagnostic.
fn reported<T>(
    ctx: &DocContext<'_>,
    result: Result<T, (String, String)>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<T> {
    match result {
        Ok(v) => Some(v),
        Err((field, message)) => {
            let field = (!field.is_empty() && field != ".").then_some(field);
            diagnostics.push(ctx.diag(Severity::Error, field, message));
            None
        }
    }
}

fn custom_resource(
    ctx: &DocContext<'_>,
    api_version: &str,
    kind: &str,
    mut value: Value,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Parsed> {
    let Some(schema) = admission::crd_schemas().get(kind) else {
        let msg = format!("{api_version} has no kind {kind} that the operator reads");
        diagnostics.push(ctx.diag(Severity::Warning, None, msg));
        return None;
    };
    let Some(version_schema) = schema.schema(api_version) else {
        let msg = format!(
            "apiVersion {api_version} is not served for {kind}; use {}",
            schema.served()
        );
        diagnostics.push(ctx.diag(Severity::Error, Some("apiVersion".into()), msg));
        return None;
    };
    let mut problems = Vec::new();
    check_top_level(&mut value, version_schema, &mut problems);
    let mut fatal = false;
    for p in problems {
        fatal |= p.severity == Severity::Error;
        diagnostics.push(ctx.diag(p.severity, Some(p.field), p.message));
    }
    if fatal {
        return None;
    }
    let result = match kind {
        "GrafanaAgent" => parse(value).map(Parsed::Agent),
        "MetricsInstance" => parse(value).map(Parsed::MetricsInstance),
        "LogsInstance" => parse(value).map(Parsed::LogsInstance),
        "PodLogs" => parse(value).map(Parsed::PodLogs),
        "Integration" => parse(value).map(Parsed::Integration),
        "ServiceMonitor" => parse(value).map(Parsed::ServiceMonitor),
        "PodMonitor" => parse(value).map(Parsed::PodMonitor),
        "Probe" => parse(value).map(Parsed::Probe),
        "ScrapeConfig" => parse(value).map(Parsed::ScrapeConfig),
        _ => Err((
            String::new(),
            format!("kind {kind} is not read by the operator"),
        )),
    };
    reported(ctx, result, diagnostics)
}

fn core_object(
    ctx: &DocContext<'_>,
    kind: &str,
    value: Value,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Parsed> {
    match kind {
        "Namespace" => {
            let result = parse::<k8s_openapi::api::core::v1::Namespace>(value).map(|ns| {
                let meta = ns.meta();
                let labels = meta.labels.clone().unwrap_or_default();
                Parsed::Namespace(meta.name.clone().unwrap_or_default(), labels)
            });
            reported(ctx, result, diagnostics)
        }
        "Secret" => {
            let secret = reported(
                ctx,
                parse::<k8s_openapi::api::core::v1::Secret>(value).map_err(without_value("Secret")),
                diagnostics,
            )?;
            let mut data: KeyValues = secret
                .data
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k, v.0))
                .collect();
            // The API server merges stringData into data, stringData winning.
            for (k, v) in secret.string_data.unwrap_or_default() {
                data.insert(k, v.into_bytes());
            }
            Some(Parsed::Secret(DataRead::new(&secret.metadata, data)))
        }
        "ConfigMap" => {
            let cm = reported(
                ctx,
                parse::<k8s_openapi::api::core::v1::ConfigMap>(value)
                    .map_err(without_value("ConfigMap")),
                diagnostics,
            )?;
            let mut data: KeyValues = cm
                .binary_data
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k, v.0))
                .collect();
            for (k, v) in cm.data.unwrap_or_default() {
                data.insert(k, v.into_bytes());
            }
            Some(Parsed::ConfigMap(DataRead::new(&cm.metadata, data)))
        }
        _ => None,
    }
}

/// A Secret's or ConfigMap's parse error without the value: serde's messages quote it
/// (`invalid type: string "...", expected ...`), and these values are credentials. The
/// field says which key. A Secret's `data` and a ConfigMap's `binaryData` are base64.
fn without_value(kind: &'static str) -> impl Fn((String, String)) -> (String, String) {
    move |(field, _)| {
        let base64 = match kind {
            "Secret" => field.starts_with("data."),
            _ => field.starts_with("binaryData."),
        };
        let message = if base64 {
            "the value must be a base64-encoded string"
        } else if field.starts_with("data.") || field.starts_with("stringData.") {
            "the value must be a string"
        } else {
            "a value of the wrong type"
        };
        (field, message.to_owned())
    }
}

fn default_namespace(obj: &mut Map<String, Value>) {
    let meta = obj
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        let ns = meta.entry("namespace").or_insert(Value::Null);
        if ns.as_str().is_none_or(|s| s.is_empty()) {
            *ns = Value::String("default".to_owned());
        }
    }
}

/// `s`, or its first 64 characters and `…` when it is longer.
fn shortened(s: &str) -> String {
    match s.char_indices().nth(64) {
        Some((end, _)) => format!("{}…", &s[..end]),
        None => s.to_owned(),
    }
}

/// Deserializes `value`, giving the JSON path of the first error.
fn parse<T: DeserializeOwned>(value: Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value)
        .map_err(|e| (e.path().to_string(), e.inner().to_string()))
}

struct Problem {
    severity: Severity,
    field: String,
    message: String,
}

/// What the loader says of a field our schema does not have.
const UNKNOWN_FIELD: &str = "unknown field, ignored";

impl Problem {
    fn unknown_field(field: String) -> Self {
        Problem {
            severity: Severity::Warning,
            field,
            message: UNKNOWN_FIELD.into(),
        }
    }

    fn is_unknown_field(&self) -> bool {
        self.severity == Severity::Warning && self.message == UNKNOWN_FIELD
    }
}

/// Whether `kind` is one of ours, whose objects [`unknown_fields`] checks.
pub fn has_schema(kind: &str) -> bool {
    admission::crd_schemas().contains_key(kind)
}

/// Checks `value`, a live object of one of our kinds (`kind`, at the `apiVersion` it
/// carries), against the schema of the CRD we generate, with the walk the [`Loader`] checks a
/// manifest with, and returns the paths of the fields that schema does not have, in the
/// object's order (`spec.endpoints[0].futureEndpointField`, as `render` names them). Like the
/// loader, it applies the schema's `default`s and gives missing required fields their zero
/// value, so that the object deserialized from `value` afterwards is the one `render` reads.
/// `None` when `kind` (or its apiVersion) is not one of ours: nothing was checked.
///
/// For the controller, which reads objects the API server admitted against the cluster's
/// CRD: when that CRD is newer than ours (prometheus-operator's), the server keeps fields our
/// types lack, and deserializing would drop them without a word. The other problems the
/// loader reports (a value our schema refuses) are not returned: such an object is read as
/// before (deserializing it fails or keeps it), only its unknown fields are news. `status`
/// is never looked at: controllers write it, it sets nothing.
pub fn unknown_fields(kind: &str, value: &mut Value) -> Option<Vec<String>> {
    let api_version = value.get("apiVersion").and_then(Value::as_str)?;
    let schema = admission::crd_schemas().get(kind)?.schema(api_version)?;
    let mut problems = Vec::new();
    check_top_level(value, schema, &mut problems);
    Some(
        problems
            .into_iter()
            .filter(Problem::is_unknown_field)
            .map(|p| p.field)
            .collect(),
    )
}

fn check_top_level(value: &mut Value, schema: &JSONSchemaProps, problems: &mut Vec<Problem>) {
    let Value::Object(obj) = value else { return };
    let props = schema.properties.as_ref();
    let mut path = String::new();
    for (key, v) in obj.iter_mut() {
        match key.as_str() {
            // A status is written by controllers (prometheus-operator writes one on its
            // monitors that our CRD has no schema for) and sets nothing: never a warning.
            "apiVersion" | "kind" | "metadata" | "status" => {}
            _ => match props.and_then(|p| p.get(key)) {
                Some(s) => {
                    path.clear();
                    path.push_str(key);
                    check(v, s, &mut path, problems);
                }
                None => problems.push(Problem::unknown_field(key.clone())),
            },
        }
    }
    if !obj.contains_key("spec")
        && schema
            .required
            .as_ref()
            .is_some_and(|r| r.iter().any(|f| f == "spec"))
    {
        obj.insert("spec".into(), Value::Object(Map::new()));
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn zero_value(schema: &JSONSchemaProps) -> Value {
    match schema.type_.as_deref() {
        Some("string") => Value::String(String::new()),
        Some("integer") | Some("number") => Value::from(0),
        Some("boolean") => Value::Bool(false),
        Some("array") => Value::Array(Vec::new()),
        _ => Value::Object(Map::new()),
    }
}

/// Checks `value` at `path` against `schema` as the API server would, filling missing
/// properties that have a default with it and missing required fields with their zero value. `path` is a buffer extended for each child and
/// restored after it, so no path is built unless a problem is found.
fn check(
    value: &mut Value,
    schema: &JSONSchemaProps,
    path: &mut String,
    problems: &mut Vec<Problem>,
) {
    if value.is_null()
        || schema.x_kubernetes_preserve_unknown_fields == Some(true) && schema.properties.is_none()
    {
        return;
    }
    if schema.x_kubernetes_int_or_string == Some(true) {
        if !(value.is_string() || value.is_i64() || value.is_u64()) {
            problems.push(wrong_type(path, "an integer or a string", value));
        }
        return;
    }
    let ok = match schema.type_.as_deref() {
        Some("object") => value.is_object(),
        Some("array") => value.is_array(),
        Some("string") => value.is_string(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("number") => value.is_number(),
        Some("boolean") => value.is_boolean(),
        _ => true,
    };
    if !ok {
        let expected = match schema.type_.as_deref() {
            Some("object") => "a mapping",
            Some("array") => "a list",
            Some("string") => "a string",
            Some("integer") => "an integer",
            Some("number") => "a number",
            _ => "a boolean",
        };
        problems.push(wrong_type(path, expected, value));
        return;
    }
    if let Some(message) = admission::violation(value, schema) {
        problems.push(Problem {
            severity: Severity::Error,
            field: path.clone(),
            message,
        });
        return;
    }
    match value {
        Value::Object(obj) => {
            if let Some(props) = &schema.properties {
                apply_defaults(obj, props);
                for (key, v) in obj.iter_mut() {
                    match props.get(key) {
                        Some(s) => with_child(path, key, |path| check(v, s, path, problems)),
                        None if schema.x_kubernetes_preserve_unknown_fields == Some(true) => {}
                        None => problems.push(Problem::unknown_field(format!("{path}.{key}"))),
                    }
                }
                for required in schema.required.iter().flatten() {
                    if !obj.contains_key(required) {
                        let zero = props.get(required).map(zero_value).unwrap_or(Value::Null);
                        problems.push(Problem {
                            severity: Severity::Warning,
                            field: format!("{path}.{required}"),
                            message: format!("required field is missing; using {}", short(&zero)),
                        });
                        obj.insert(required.clone(), zero);
                    }
                }
            } else if let Some(JSONSchemaPropsOrBool::Schema(each)) = &schema.additional_properties
            {
                for (key, v) in obj.iter_mut() {
                    with_child(path, key, |path| check(v, each, path, problems));
                }
            }
        }
        Value::Array(items) => {
            if let Some(JSONSchemaPropsOrArray::Schema(each)) = &schema.items {
                for (i, v) in items.iter_mut().enumerate() {
                    let len = path.len();
                    let _ = write!(path, "[{i}]");
                    check(v, each, path, problems);
                    path.truncate(len);
                }
            }
        }
        _ => {}
    }
}

/// Structural defaulting, as the API server does it before anyone reads the object: each
/// property of `props` that has a `default` and is missing from `obj` (or null where the schema
/// does not allow null) gets the default. [`check`] then descends into every property, the
/// defaulted ones included, so defaults nested in objects, array items and maps apply wherever
/// their parent is present.
fn apply_defaults(obj: &mut Map<String, Value>, props: &BTreeMap<String, JSONSchemaProps>) {
    for (key, prop) in props {
        let Some(default) = &prop.default else {
            continue;
        };
        match obj.get_mut(key) {
            None => {
                obj.insert(key.clone(), default.0.clone());
            }
            Some(v) if v.is_null() && prop.nullable != Some(true) => *v = default.0.clone(),
            Some(_) => {}
        }
    }
}

/// Runs `f` with `path` extended by `.key`, then restores it.
fn with_child(path: &mut String, key: &str, f: impl FnOnce(&mut String)) {
    let len = path.len();
    path.push('.');
    path.push_str(key);
    f(path);
    path.truncate(len);
}

fn short(v: &Value) -> String {
    match v {
        Value::String(s) if s.is_empty() => "\"\"".into(),
        other => other.to_string(),
    }
}

fn wrong_type(path: &str, expected: &str, got: &Value) -> Problem {
    Problem {
        severity: Severity::Error,
        field: path.to_owned(),
        message: format!("expected {expected}, got {}", type_name(got)),
    }
}

/// Decodes standard base64, as the API server does for Secret `data`.
pub fn decode_base64(s: &str) -> Result<Vec<u8>, base64::DecodeError> {
    base64::engine::general_purpose::STANDARD.decode(s.trim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::InputView;

    /// Structural defaulting on a schema built for the purpose: defaults fill missing and
    /// non-nullable null properties, recursively (inside a defaulted object, array items and
    /// map values), never under an absent parent, and never over a value or a nullable null.
    #[test]
    fn defaults_are_applied_structurally() {
        let schema: JSONSchemaProps = serde_json::from_value(serde_json::json!({
            "type": "object",
            "properties": {
                "mode": {"type": "string", "default": "fast"},
                "limit": {"type": "integer", "default": 10},
                "optional": {"type": "string", "nullable": true, "default": "unused"},
                "tls": {
                    "type": "object",
                    "default": {},
                    "properties": {"verify": {"type": "boolean", "default": true}}
                },
                "absent": {
                    "type": "object",
                    "properties": {"x": {"type": "string", "default": "made up"}}
                },
                "ports": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["port"],
                        "properties": {
                            "port": {"type": "integer"},
                            "protocol": {"type": "string", "default": "TCP"}
                        }
                    }
                },
                "byName": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "properties": {"weight": {"type": "integer", "default": 1}}
                    }
                }
            }
        }))
        .expect("schema");
        let mut value = serde_json::json!({
            "limit": null,
            "optional": null,
            "ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}, {}],
            "byName": {"a": {}, "b": {"weight": 5}}
        });
        let (mut path, mut problems) = ("spec".to_owned(), Vec::new());
        check(&mut value, &schema, &mut path, &mut problems);
        assert_eq!(
            value,
            serde_json::json!({
                "limit": 10,
                "optional": null,
                "ports": [
                    {"port": 80, "protocol": "TCP"},
                    {"port": 53, "protocol": "UDP"},
                    {"protocol": "TCP", "port": 0}
                ],
                "byName": {"a": {"weight": 1}, "b": {"weight": 5}},
                "mode": "fast",
                "tls": {"verify": true}
            })
        );
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(
            fields,
            ["spec.ports[2].port"],
            "only the missing required field"
        );
    }

    fn monitor(name: &str) -> String {
        format!(
            "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: {name}\n  namespace: ns\nspec:\n  selector: {{}}\n  endpoints:\n  - port: web\n"
        )
    }

    /// What the API server would refuse on admission (a value outside an enum, a string
    /// against a pattern) rejects only that object, naming the field.
    #[test]
    fn values_our_crds_refuse_reject_the_object_and_name_the_field() {
        let text = [
            monitor("ok"),
            monitor("bad-scheme").replace("port: web", "port: web\n    scheme: htps"),
            monitor("bad-interval").replace("port: web", "port: web\n    interval: 30 s"),
            monitor("bad-action").replace(
                "port: web",
                "port: web\n    relabelings:\n    - action: REPLACE\n      targetLabel: x",
            ),
            monitor("bad-source").replace(
                "port: web",
                "port: web\n    relabelings:\n    - sourceLabels: [app.kubernetes.io/name]\n      action: keep",
            ),
        ]
        .join("---\n");
        let loaded = load("in.yaml", &text);
        assert_diagnostics_start_with(
            &loaded,
            &[
                "error: in.yaml (document 2): ServiceMonitor ns/bad-scheme: spec.endpoints[0].scheme: \"htps\" is not allowed: must be one of http, https",
                "error: in.yaml (document 3): ServiceMonitor ns/bad-interval: spec.endpoints[0].interval: \"30 s\" is not a duration",
                "error: in.yaml (document 4): ServiceMonitor ns/bad-action: spec.endpoints[0].relabelings[0].action: \"REPLACE\" is not allowed: must be one of replace, Replace, keep",
                "error: in.yaml (document 5): ServiceMonitor ns/bad-source: spec.endpoints[0].relabelings[0].sourceLabels[0]: \"app.kubernetes.io/name\" is not a label name",
            ],
        );
        assert_eq!(monitor_names(&loaded), ["ok"]);
    }

    /// The walk the controller runs on a live object is the loader's: the same paths, the
    /// schema's defaults applied, nothing reported of `status` (controllers write it), and
    /// nothing checked for a kind or apiVersion that is not ours.
    #[test]
    fn unknown_fields_of_a_live_object_are_the_loaders() {
        let mut value = serde_json::json!({
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "ServiceMonitor",
            "metadata": {"name": "web", "namespace": "ns", "futureMeta": 1},
            "spec": {
                "selector": {"matchLabels": {"a": "b"}, "futureMatch": 1},
                "endpoints": [{"port": "web"}, {"port": "x", "futureEndpointField": true}],
                "futureField": "x",
            },
            "status": {"bindings": [{"name": "prometheus"}]},
        });
        let text = value.to_string();
        let found = unknown_fields("ServiceMonitor", &mut value).expect("one of ours");
        assert_eq!(
            found,
            [
                "spec.selector.futureMatch",
                "spec.endpoints[1].futureEndpointField",
                "spec.futureField",
            ]
        );
        let loaded = load("live.json", &text);
        let warned: Vec<&str> = loaded
            .diagnostics
            .iter()
            .filter_map(|d| d.field.as_deref())
            .collect();
        assert_eq!(warned, found);
        assert_eq!(
            loaded
                .store
                .unknown_fields()
                .get(&crate::input_ref::InputRef::new(
                    crate::input_ref::Kind::ServiceMonitor,
                    "ns",
                    "web"
                )),
            Some(&found)
        );

        assert_eq!(
            unknown_fields("Secret", &mut serde_json::json!({"apiVersion": "v1"})),
            None
        );
        let mut old_version = serde_json::json!({"apiVersion": "monitoring.coreos.com/v0"});
        assert_eq!(unknown_fields("ServiceMonitor", &mut old_version), None);
        assert!(has_schema("PodLogs") && !has_schema("Pod"));
    }

    fn load(source: &str, text: &str) -> Loaded {
        let mut loader = Loader::new();
        loader.add_source(source, text);
        loader.finish()
    }

    fn assert_diagnostics_start_with(loaded: &Loaded, expected_starts: &[&str]) {
        let lines: Vec<String> = loaded.diagnostics.iter().map(ToString::to_string).collect();
        assert_eq!(lines.len(), expected_starts.len(), "{lines:#?}");
        for (line, start) in lines.iter().zip(expected_starts) {
            assert!(
                line.starts_with(start),
                "{line:?} should start with {start:?}"
            );
        }
    }

    fn monitor_names(loaded: &Loaded) -> Vec<&str> {
        loaded
            .store
            .objects::<api::ServiceMonitor>()
            .iter()
            .filter_map(|sm| sm.metadata.name.as_deref())
            .collect()
    }

    /// Enough documents to be read by several threads: results, diagnostics and duplicate
    /// detection are as if they were read one after the other.
    #[test]
    fn a_large_source_reads_as_if_documents_were_read_in_order() {
        let mut docs: Vec<String> = (0..300).map(|i| monitor(&format!("sm-{i:03}"))).collect();
        docs[120] = "a: [unclosed\n".to_owned();
        docs[250] = monitor("sm-010");
        docs[260] = monitor("sm-260").replace("port: web", "port: 7");
        docs[5] = monitor("sm-005").replace("spec:\n", "spec:\n  extra: x\n");
        let text = docs.join("---\n");
        let loaded = load("big.yaml", &text);
        assert_diagnostics_start_with(
            &loaded,
            &[
                "warning: big.yaml (document 6): ServiceMonitor ns/sm-005: spec.extra: unknown field, ignored",
                "error: big.yaml (document 121): not valid YAML: ",
                "error: big.yaml (document 251): ServiceMonitor ns/sm-010: duplicate object: already defined in big.yaml (document 11); this one is ignored",
                "error: big.yaml (document 261): ServiceMonitor ns/sm-260: spec.endpoints[0].port: ",
            ],
        );
        assert_eq!(loaded.accepted, 297);
        let names = monitor_names(&loaded);
        assert_eq!(names.len(), 297);
        assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted");
    }
}

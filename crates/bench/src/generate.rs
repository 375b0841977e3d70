//! Synthetic inputs at scale: GrafanaAgents with their instances, ServiceMonitors, PodMonitors,
//! Probes and PodLogs spread over many namespaces, and the Secrets they reference, as the YAML
//! files a user would give `agent-operator render -f`.
//!
//! Deterministic: the same [`Params`] give the same bytes. Each object draws from its own
//! random stream (seed, kind, index), so object `i` is the same whatever the total count: the
//! 1k input is a prefix of the 10k one, and growth between sizes is only more of the same.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The namespace of the agents, their instances and the remote-write credentials.
pub const AGENT_NAMESPACE: &str = "monitoring";
/// The ServiceAccount the generated GrafanaAgents run their pods as.
pub const AGENT_SERVICE_ACCOUNT: &str = "grafana-agent";
/// The label by which an agent's instances select their monitors, Probes and PodLogs.
pub const AGENT_LABEL: &str = "bench.example.com/agent";
/// The label every generated namespace carries; the instances select namespaces by it.
pub const MONITORED_NAMESPACE_LABEL: &str = "bench.example.com/monitored";
/// Documents per generated file, so no single file gets huge.
const DOCUMENTS_PER_FILE: usize = 2000;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Params {
    pub seed: u64,
    pub service_monitors: usize,
    pub pod_monitors: usize,
    pub probes: usize,
    pub pod_logs: usize,
    /// Namespaces the monitors are spread over (round-robin), at least 1.
    pub namespaces: usize,
    /// GrafanaAgents; monitor `i` is selected by agent `i % agents`. At least 1.
    pub agents: usize,
    /// Extra random (hardly compressible) text per ServiceMonitor endpoint, as a relabeling
    /// replacement: makes a config large after gzip with few monitors, for size-limit tests.
    pub payload_bytes: usize,
}

impl Params {
    /// The shape for `n` ServiceMonitors: `n/10` PodMonitors, `n/50` Probes and
    /// PodLogs, `n/20` namespaces, one GrafanaAgent.
    pub fn scaled(service_monitors: usize, seed: u64) -> Self {
        Params {
            seed,
            service_monitors,
            pod_monitors: service_monitors / 10,
            probes: service_monitors / 50,
            pod_logs: service_monitors / 50,
            namespaces: (service_monitors / 20).max(1),
            agents: 1,
            payload_bytes: 0,
        }
    }
}

/// The [`AGENT_LABEL`] value of the monitors every agent of an [`AgentsShape`] selects.
pub const SHARED_LABEL: &str = "shared";

/// Many agents, each with namespaces of its own, plus namespaces every agent selects (the
/// controller benchmark's "50k ServiceMonitors over 10 GrafanaAgents"). ServiceMonitors only:
/// no PodMonitors, Probes or PodLogs.
///
/// Namespace `a * namespaces_per_agent + k` is agent `a`'s `k`-th; the shared ones follow.
/// Own ServiceMonitor `i` (below `service_monitors`) belongs to agent `i % agents`, in its
/// namespace `(i / agents) % namespaces_per_agent`, labelled `agent-<a>`; each shared namespace
/// holds one more ServiceMonitor (`service_monitors + s`) labelled [`SHARED_LABEL`]. Every
/// agent's MetricsInstance selects its own label and the shared one. ServiceMonitor `i` has
/// the same contents as in [`Params`]' shape (its own random stream); only where it sits and
/// its agent label differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentsShape {
    pub seed: u64,
    /// The agents' own ServiceMonitors, all agents together.
    pub service_monitors: usize,
    /// At least 1.
    pub agents: usize,
    /// At least 1.
    pub namespaces_per_agent: usize,
    /// Each holds one ServiceMonitor every agent selects.
    pub shared_namespaces: usize,
}

impl AgentsShape {
    pub fn new(
        service_monitors: usize,
        agents: usize,
        namespaces_per_agent: usize,
        shared_namespaces: usize,
        seed: u64,
    ) -> Self {
        AgentsShape {
            seed,
            service_monitors,
            agents: agents.max(1),
            namespaces_per_agent: namespaces_per_agent.max(1),
            shared_namespaces,
        }
    }

    /// Namespaces in all (the agents' own and the shared ones; `monitoring` not counted).
    pub fn namespaces(&self) -> usize {
        self.agents * self.namespaces_per_agent + self.shared_namespaces
    }

    /// ServiceMonitors in all: the agents' own plus one per shared namespace.
    pub fn all_service_monitors(&self) -> usize {
        self.service_monitors + self.shared_namespaces
    }

    /// The agent own ServiceMonitor `i` belongs to.
    pub fn agent_of(&self, i: usize) -> usize {
        i % self.agents
    }

    /// The `k`-th own ServiceMonitor of agent `a` (`k` wraps around its share): its index.
    pub fn own_monitor(&self, a: usize, k: usize) -> usize {
        let share = self
            .service_monitors
            .saturating_sub(a)
            .div_ceil(self.agents)
            .max(1);
        (k % share) * self.agents + a
    }

    /// The index of shared ServiceMonitor `s`.
    pub fn shared_monitor(&self, s: usize) -> usize {
        self.service_monitors + s
    }

    /// ServiceMonitor `i`'s namespace and name (own or shared).
    pub fn locate(&self, i: usize) -> (String, String) {
        (
            namespace_name(self.placement(i).namespace),
            service_monitor_name(i),
        )
    }

    fn placement(&self, i: usize) -> Placement {
        if i < self.service_monitors {
            let a = self.agent_of(i);
            Placement {
                namespace: a * self.namespaces_per_agent
                    + (i / self.agents) % self.namespaces_per_agent,
                agent_label: agent_name(a),
            }
        } else {
            Placement {
                namespace: self.agents * self.namespaces_per_agent + (i - self.service_monitors),
                agent_label: SHARED_LABEL.to_owned(),
            }
        }
    }

    /// The input as files, as [`generate`] writes them.
    pub fn generate(&self) -> Corpus {
        let mut files = Vec::new();
        for (stem, docs) in self.sections() {
            push_files(&mut files, stem, &docs);
        }
        Corpus { files }
    }

    /// The same documents as [`Self::generate`], in the order they are meant to be created.
    pub fn documents(&self) -> Vec<Value> {
        self.sections()
            .into_iter()
            .flat_map(|(_, docs)| docs)
            .collect()
    }

    fn sections(&self) -> Vec<(&'static str, Vec<Value>)> {
        let namespaces = self.namespaces();
        let [namespace_docs, agent_docs, secret_docs] =
            common_sections(self.seed, namespaces, self.agents, Some(SHARED_LABEL));
        let monitors = (0..self.all_service_monitors())
            .map(|i| service_monitor(self.seed, 0, namespaces, i, &self.placement(i)))
            .collect();
        vec![
            ("00-namespaces", namespace_docs),
            ("10-agents", agent_docs),
            ("20-secrets", secret_docs),
            ("30-servicemonitors", monitors),
        ]
    }
}

/// The generated manifests: `(file name, YAML text)`, in the order they are meant to be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corpus {
    pub files: Vec<(String, String)>,
}

impl Corpus {
    /// Total size of all files, in bytes.
    pub fn bytes(&self) -> usize {
        self.files.iter().map(|(_, text)| text.len()).sum()
    }

    /// Writes every file into `dir` (created if missing). Generated files already there are
    /// replaced; a directory holding anything else is refused, so a typo cannot clobber a
    /// user's manifests.
    pub fn write_to(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if !is_generated_name(name) {
                return Err(std::io::Error::other(format!(
                    "{}: holds {name}, which the generator did not write; use an empty directory",
                    dir.display()
                )));
            }
        }
        for entry in std::fs::read_dir(dir)? {
            std::fs::remove_file(entry?.path())?;
        }
        let mut written = Vec::new();
        for (name, text) in &self.files {
            let path = dir.join(name);
            std::fs::write(&path, text)?;
            written.push(path);
        }
        Ok(written)
    }
}

/// Our file names: `NN-<kind>[-NNNN].yaml`.
fn is_generated_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes.len() > 8
        && bytes[0].is_ascii_digit()
        && bytes[1].is_ascii_digit()
        && bytes[2] == b'-'
        && name.ends_with(".yaml")
}

/// A small, fast, well-mixed generator (SplitMix64); no dependency, same numbers everywhere.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The stream of object `index` of kind `kind` (a small tag), independent of the others.
    fn for_object(seed: u64, kind: u64, index: usize) -> Self {
        let mut r = Rng(seed ^ kind.wrapping_mul(0xA076_1D64_78BD_642F));
        r.0 ^= (index as u64).wrapping_mul(0xE703_7ED1_A0B4_28DB);
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// `len` random characters from `[A-Za-z0-9]`.
    pub fn alphanumeric(&mut self, len: usize) -> String {
        const CHARS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..len).map(|_| char::from(*self.pick(CHARS))).collect()
    }
}

// Tags of the per-object random streams.
const SERVICE_MONITOR: u64 = 1;
const POD_MONITOR: u64 = 2;
const PROBE: u64 = 3;
const POD_LOGS: u64 = 4;
const NAMESPACE: u64 = 5;
const SECRETS: u64 = 6;

const APPS: &[&str] = &[
    "checkout",
    "payments",
    "cart",
    "search",
    "catalog",
    "auth",
    "gateway",
    "orders",
    "inventory",
    "billing",
    "shipping",
    "email",
    "recommend",
    "reviews",
    "profile",
    "ads",
];
const INTERVALS: &[&str] = &["15s", "30s", "30s", "60s"];
const TEAMS: &[&str] = &["shop", "platform", "data", "identity", "growth"];

/// Name of namespace `i`.
pub fn namespace_name(i: usize) -> String {
    format!("ns-{i:05}")
}

/// Name of agent `a`.
pub fn agent_name(a: usize) -> String {
    format!("agent-{a}")
}

/// Generates the whole input described by `p`.
pub fn generate(p: &Params) -> Corpus {
    let mut files = Vec::new();
    for (stem, docs) in sections(p) {
        push_files(&mut files, stem, &docs);
    }
    Corpus { files }
}

/// The same documents as [`generate`], as JSON values in the order they are meant to be
/// created (namespaces first), for loading into an API server.
pub fn documents(p: &Params) -> Vec<Value> {
    sections(p).into_iter().flat_map(|(_, docs)| docs).collect()
}

/// The documents of every file stem, in order.
fn sections(p: &Params) -> Vec<(&'static str, Vec<Value>)> {
    let namespaces = p.namespaces.max(1);
    let agents = p.agents.max(1);

    let [namespace_docs, agent_docs, secret_docs] =
        common_sections(p.seed, namespaces, agents, None);
    vec![
        ("00-namespaces", namespace_docs),
        ("10-agents", agent_docs),
        ("20-secrets", secret_docs),
        (
            "30-servicemonitors",
            (0..p.service_monitors)
                .map(|i| {
                    let at = Placement {
                        namespace: i % namespaces,
                        agent_label: agent_name(i % agents),
                    };
                    service_monitor(p.seed, p.payload_bytes, namespaces, i, &at)
                })
                .collect(),
        ),
        (
            "40-podmonitors",
            (0..p.pod_monitors)
                .map(|i| pod_monitor(p.seed, namespaces, agents, i))
                .collect(),
        ),
        (
            "50-probes",
            (0..p.probes)
                .map(|i| probe(p.seed, namespaces, agents, i))
                .collect(),
        ),
        (
            "60-podlogs",
            (0..p.pod_logs)
                .map(|i| pod_logs(p.seed, namespaces, agents, i))
                .collect(),
        ),
    ]
}

/// The namespaces (the agents' own first), the agents with their remote-write Secret, and the
/// namespaces' Secrets. `shared_label`: the agents' instances select their own label or this
/// one; `None`, their own only.
fn common_sections(
    seed: u64,
    namespaces: usize,
    agents: usize,
    shared_label: Option<&str>,
) -> [Vec<Value>; 3] {
    let mut namespace_docs: Vec<Value> = (0..namespaces).map(|i| namespace(seed, i)).collect();
    namespace_docs.insert(
        0,
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": AGENT_NAMESPACE}}),
    );

    let mut agent_docs = Vec::new();
    for a in 0..agents {
        agent_docs.extend(agent(a, shared_label));
    }
    agent_docs.push(json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "remote-write", "namespace": AGENT_NAMESPACE},
        "stringData": {"username": "bench", "password": "not-a-real-password"},
    }));
    let secret_docs = (0..namespaces)
        .flat_map(|i| namespace_secrets(seed, i))
        .collect();
    [namespace_docs, agent_docs, secret_docs]
}

/// Name of ServiceMonitor `i`.
pub fn service_monitor_name(i: usize) -> String {
    format!("sm-{i:06}")
}

/// Splits `docs` into files of at most [`DOCUMENTS_PER_FILE`] documents.
fn push_files(files: &mut Vec<(String, String)>, stem: &str, docs: &[Value]) {
    let chunks: Vec<&[Value]> = docs.chunks(DOCUMENTS_PER_FILE).collect();
    for (n, chunk) in chunks.iter().enumerate() {
        let name = if chunks.len() == 1 {
            format!("{stem}.yaml")
        } else {
            format!("{stem}-{n:04}.yaml")
        };
        let mut text = String::new();
        for doc in *chunk {
            text.push_str("---\n");
            render::yaml::write_document(&mut text, doc);
        }
        files.push((name, text));
    }
}

fn meta(name: &str, namespace: &str, labels: Value) -> Value {
    json!({
        "name": name,
        "namespace": namespace,
        "labels": labels,
        // The controller keys its render cache by resourceVersion; give it one, as the API
        // server would.
        "resourceVersion": "1",
    })
}

fn namespace(seed: u64, i: usize) -> Value {
    let mut rng = Rng::for_object(seed, NAMESPACE, i);
    json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": namespace_name(i),
            "labels": {
                MONITORED_NAMESPACE_LABEL: "true",
                "team": rng.pick(TEAMS),
                "environment": if rng.chance(70) { "production" } else { "staging" },
            },
        },
    })
}

/// A GrafanaAgent with one MetricsInstance and one LogsInstance selecting agent `a`'s share
/// (and the objects labelled `shared_label`, if any).
fn agent(a: usize, shared_label: Option<&str>) -> Vec<Value> {
    let name = agent_name(a);
    let selector = match shared_label {
        None => json!({"matchLabels": {AGENT_LABEL: name}}),
        Some(shared) => json!({"matchExpressions": [
            {"key": AGENT_LABEL, "operator": "In", "values": [name, shared]},
        ]}),
    };
    let monitored = json!({"matchExpressions": [
        {"key": MONITORED_NAMESPACE_LABEL, "operator": "In", "values": ["true"]},
    ]});
    vec![
        json!({
            "apiVersion": "monitoring.grafana.com/v1alpha1",
            "kind": "GrafanaAgent",
            "metadata": {"name": name, "namespace": AGENT_NAMESPACE, "uid": format!("00000000-0000-0000-0000-{a:012}")},
            "spec": {
                "serviceAccountName": AGENT_SERVICE_ACCOUNT,
                "logLevel": "info",
                "metrics": {
                    "scrapeInterval": "30s",
                    "externalLabels": {"cluster": "bench"},
                    "instanceSelector": {"matchLabels": {"agent": name}},
                },
                "logs": {"instanceSelector": {"matchLabels": {"agent": name}}},
            },
        }),
        json!({
            "apiVersion": "monitoring.grafana.com/v1alpha1",
            "kind": "MetricsInstance",
            "metadata": {"name": format!("metrics-{a}"), "namespace": AGENT_NAMESPACE, "labels": {"agent": name}},
            "spec": {
                "remoteWrite": [{
                    "url": "https://mimir.example.com/api/v1/push",
                    "basicAuth": {
                        "username": {"name": "remote-write", "key": "username"},
                        "password": {"name": "remote-write", "key": "password"},
                    },
                }],
                "serviceMonitorSelector": selector,
                "serviceMonitorNamespaceSelector": monitored,
                "podMonitorSelector": selector,
                "podMonitorNamespaceSelector": monitored,
                "probeSelector": selector,
                "probeNamespaceSelector": monitored,
            },
        }),
        json!({
            "apiVersion": "monitoring.grafana.com/v1alpha1",
            "kind": "LogsInstance",
            "metadata": {"name": format!("logs-{a}"), "namespace": AGENT_NAMESPACE, "labels": {"agent": name}},
            "spec": {
                "clients": [{"url": "https://loki.example.com/loki/api/v1/push", "tenantId": "bench"}],
                "podLogsSelector": selector,
                "podLogsNamespaceSelector": {},
            },
        }),
    ]
}

/// The TLS and credentials Secrets every namespace holds for its monitors.
fn namespace_secrets(seed: u64, i: usize) -> Vec<Value> {
    let mut rng = Rng::for_object(seed, SECRETS, i);
    let ns = namespace_name(i);
    let pem = |rng: &mut Rng, what: &str| {
        format!(
            "-----BEGIN {what}-----\n{}\n-----END {what}-----\n",
            rng.alphanumeric(64)
        )
    };
    vec![
        json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "scrape-tls", "namespace": ns},
            "stringData": {
                "ca.crt": pem(&mut rng, "CERTIFICATE"),
                "tls.crt": pem(&mut rng, "CERTIFICATE"),
                "tls.key": pem(&mut rng, "PRIVATE KEY"),
            },
        }),
        json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "scrape-auth", "namespace": ns},
            "stringData": {
                "username": format!("scraper-{i}"),
                "password": rng.alphanumeric(24),
                "token": rng.alphanumeric(40),
            },
        }),
    ]
}

/// A label selector of one of four shapes: labels only, labels and expressions, expressions only.
fn mixed_selector(rng: &mut Rng, app: &str) -> Value {
    match rng.below(4) {
        0 => json!({"matchLabels": {"app": app}}),
        1 => json!({"matchLabels": {"app": app, "tier": "backend"}}),
        2 => json!({"matchExpressions": [
            {"key": "app", "operator": "In", "values": [app, format!("{app}-canary")]},
        ]}),
        _ => json!({
            "matchLabels": {"app": app},
            "matchExpressions": [
                {"key": "track", "operator": "NotIn", "values": ["canary", "debug"]},
                {"key": "release", "operator": "Exists"},
            ],
        }),
    }
}

/// The targets' namespaces: the monitor's own (most), a list, or all.
fn target_namespaces(rng: &mut Rng, own: &str, namespaces: usize) -> Option<Value> {
    match rng.below(20) {
        0..=11 => None,
        12..=18 => Some(json!({"matchNames": [own, namespace_name(rng.below(namespaces))]})),
        _ => Some(json!({"any": true})),
    }
}

fn relabelings(rng: &mut Rng) -> Vec<Value> {
    let all = [
        json!({"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node_name"}),
        json!({"sourceLabels": ["__meta_kubernetes_pod_label_version"], "regex": "(v\\d+).*", "targetLabel": "version", "replacement": "$1"}),
        json!({"action": "labeldrop", "regex": "pod_template_hash"}),
        json!({"sourceLabels": ["__meta_kubernetes_pod_annotation_team"], "targetLabel": "team", "action": "replace"}),
    ];
    let first = rng.below(all.len());
    let count = 1 + rng.below(2);
    (0..count)
        .map(|k| all[(first + k) % all.len()].clone())
        .collect()
}

fn payload(rng: &mut Rng, bytes: usize) -> Option<Value> {
    (bytes > 0)
        .then(|| json!({"targetLabel": "bench_payload", "replacement": rng.alphanumeric(bytes)}))
}

/// Where a generated object goes: its namespace's index and its [`AGENT_LABEL`] value.
struct Placement {
    namespace: usize,
    agent_label: String,
}

/// ServiceMonitor `i` (its contents drawn from its own stream), placed at `at`; `namespaces`:
/// how many there are, for the targets' namespaces.
fn service_monitor(
    seed: u64,
    payload_bytes: usize,
    namespaces: usize,
    i: usize,
    at: &Placement,
) -> Value {
    let mut rng = Rng::for_object(seed, SERVICE_MONITOR, i);
    let ns = namespace_name(at.namespace);
    let app = format!("{}-{i}", rng.pick(APPS));
    let name = service_monitor_name(i);

    let mut metrics = json!({
        "port": "http-metrics",
        "interval": rng.pick(INTERVALS),
        "path": "/metrics",
        "relabelings": relabelings(&mut rng),
    });
    if rng.chance(50) {
        metrics["metricRelabelings"] =
            json!([{"sourceLabels": ["__name__"], "regex": "go_gc_.*", "action": "drop"}]);
    }
    if rng.chance(10) {
        metrics["honorLabels"] = json!(true);
    }

    let mut admin = json!({
        "port": "https",
        "scheme": "https",
        "path": "/admin/metrics",
        "interval": "60s",
        "scrapeTimeout": "10s",
    });
    if rng.chance(60) {
        admin["tlsConfig"] = json!({
            "ca": {"secret": {"name": "scrape-tls", "key": "ca.crt"}},
            "cert": {"secret": {"name": "scrape-tls", "key": "tls.crt"}},
            "keySecret": {"name": "scrape-tls", "key": "tls.key"},
            "serverName": format!("{app}.{ns}.svc"),
        });
    }
    if rng.chance(40) {
        admin["basicAuth"] = json!({
            "username": {"name": "scrape-auth", "key": "username"},
            "password": {"name": "scrape-auth", "key": "password"},
        });
    } else if rng.chance(20) {
        admin["bearerTokenSecret"] = json!({"name": "scrape-auth", "key": "token"});
    }
    if rng.chance(30) {
        admin["relabelings"] = json!(relabelings(&mut rng));
    }
    for endpoint in [&mut metrics, &mut admin] {
        if let Some(extra) = payload(&mut rng, payload_bytes) {
            let rules = endpoint["relabelings"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            endpoint["relabelings"] = Value::Array(rules.into_iter().chain([extra]).collect());
        }
    }

    let mut spec = json!({
        "selector": mixed_selector(&mut rng, &app),
        "endpoints": [metrics, admin],
    });
    if let Some(sel) = target_namespaces(&mut rng, &ns, namespaces) {
        spec["namespaceSelector"] = sel;
    }
    if rng.chance(30) {
        spec["jobLabel"] = json!("app.kubernetes.io/name");
    }
    if rng.chance(30) {
        spec["targetLabels"] = json!(["team"]);
    }
    if rng.chance(20) {
        spec["podTargetLabels"] = json!(["version"]);
    }
    if rng.chance(20) {
        spec["sampleLimit"] = json!(10_000);
    }
    let labels = json!({"app": app, AGENT_LABEL: at.agent_label});
    json!({
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": meta(&name, &ns, labels),
        "spec": spec,
    })
}

fn pod_monitor(seed: u64, namespaces: usize, agents: usize, i: usize) -> Value {
    let mut rng = Rng::for_object(seed, POD_MONITOR, i);
    let ns = namespace_name(i % namespaces);
    let app = format!("{}-{i}", rng.pick(APPS));
    let mut endpoints = vec![json!({
        "port": "metrics",
        "interval": rng.pick(INTERVALS),
        "relabelings": relabelings(&mut rng),
    })];
    if rng.chance(30) {
        endpoints[0]["tlsConfig"] = json!({
            "ca": {"secret": {"name": "scrape-tls", "key": "ca.crt"}},
            "serverName": format!("{app}.{ns}"),
        });
    }
    if rng.chance(40) {
        let mut second =
            json!({"targetPort": 9102, "path": "/stats/prometheus", "filterRunning": true});
        if rng.chance(50) {
            second["basicAuth"] = json!({
                "username": {"name": "scrape-auth", "key": "username"},
                "password": {"name": "scrape-auth", "key": "password"},
            });
        }
        endpoints.push(second);
    }
    let mut spec = json!({
        "selector": mixed_selector(&mut rng, &app),
        "podMetricsEndpoints": endpoints,
    });
    if let Some(sel) = target_namespaces(&mut rng, &ns, namespaces) {
        spec["namespaceSelector"] = sel;
    }
    if rng.chance(30) {
        spec["podTargetLabels"] = json!(["version"]);
    }
    let labels = json!({"app": app, AGENT_LABEL: agent_name(i % agents)});
    json!({
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PodMonitor",
        "metadata": meta(&format!("pm-{i:06}"), &ns, labels),
        "spec": spec,
    })
}

fn probe(seed: u64, namespaces: usize, agents: usize, i: usize) -> Value {
    let mut rng = Rng::for_object(seed, PROBE, i);
    let ns = namespace_name(i % namespaces);
    let app = rng.pick(APPS);
    let targets = if rng.chance(50) {
        json!({"staticConfig": {
            "static": (0..3).map(|k| format!("https://{app}-{i}-{k}.example.com")).collect::<Vec<_>>(),
            "labels": {"site": app},
        }})
    } else {
        json!({"ingress": {
            "selector": {"matchLabels": {"app": app}},
            "namespaceSelector": {"matchNames": [ns]},
        }})
    };
    let mut spec = json!({
        "module": "http_2xx",
        "prober": {"url": "blackbox-exporter.monitoring.svc:9115"},
        "interval": rng.pick(INTERVALS),
        "targets": targets,
    });
    if rng.chance(20) {
        spec["basicAuth"] = json!({
            "username": {"name": "scrape-auth", "key": "username"},
            "password": {"name": "scrape-auth", "key": "password"},
        });
    }
    let labels = json!({AGENT_LABEL: agent_name(i % agents)});
    json!({
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "Probe",
        "metadata": meta(&format!("probe-{i:06}"), &ns, labels),
        "spec": spec,
    })
}

fn pod_logs(seed: u64, namespaces: usize, agents: usize, i: usize) -> Value {
    let mut rng = Rng::for_object(seed, POD_LOGS, i);
    let ns = namespace_name(i % namespaces);
    let app = format!("{}-{i}", rng.pick(APPS));
    let mut stages = vec![json!({"cri": {}})];
    if rng.chance(50) {
        stages.push(json!({"json": {"expressions": {"level": "level", "msg": "msg"}}}));
        stages.push(json!({"labels": {"level": ""}}));
    }
    let labels = json!({"app": app, AGENT_LABEL: agent_name(i % agents)});
    json!({
        "apiVersion": "monitoring.grafana.com/v1alpha1",
        "kind": "PodLogs",
        "metadata": meta(&format!("podlogs-{i:06}"), &ns, labels),
        "spec": {
            "selector": mixed_selector(&mut rng, &app),
            "pipelineStages": stages,
            "relabelings": [
                {"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "__host__"},
            ],
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_streams_are_reproducible_and_distinct_per_object() {
        let a: Vec<u64> = (0..4)
            .map(|_| Rng::for_object(7, 1, 3).next_u64())
            .collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(
            Rng::for_object(7, 1, 3).next_u64(),
            Rng::for_object(7, 1, 4).next_u64()
        );
        assert_ne!(
            Rng::for_object(7, 1, 3).next_u64(),
            Rng::for_object(7, 2, 3).next_u64()
        );
        assert_ne!(
            Rng::for_object(7, 1, 3).next_u64(),
            Rng::for_object(8, 1, 3).next_u64()
        );
    }

    #[test]
    fn the_agents_shape_gives_each_agent_its_own_monitors_and_every_shared_one() {
        let shape = AgentsShape::new(100, 10, 2, 5, 4);
        let docs = shape.documents();
        let count = |kind: &str| docs.iter().filter(|d| d["kind"] == kind).count();
        assert_eq!(count("Namespace"), 10 * 2 + 5 + 1);
        assert_eq!(count("GrafanaAgent"), 10);
        assert_eq!(count("MetricsInstance"), 10);
        assert_eq!(count("ServiceMonitor"), 105);
        assert_eq!(count("Secret"), 2 * (10 * 2 + 5) + 1);
        for kind in ["PodMonitor", "Probe", "PodLogs"] {
            assert_eq!(count(kind), 0, "{kind}");
        }
        for doc in docs.iter().filter(|d| d["kind"] == "Namespace") {
            if doc["metadata"]["name"] != AGENT_NAMESPACE {
                assert_eq!(doc["metadata"]["labels"][MONITORED_NAMESPACE_LABEL], "true");
            }
        }

        let loaded = crate::measure::load(&shape.generate().files);
        let errors = crate::measure::errors(&loaded);
        assert!(errors.is_empty(), "{errors:#?}");
        let store = &loaded.store;
        let mut agents = 0;
        for agent in store.agents() {
            let name = agent.metadata.name.clone().unwrap_or_default();
            let a: usize = name.trim_start_matches("agent-").parse().expect(&name);
            let discovery = render::discover(agent, store);
            let rejections: Vec<String> = discovery
                .rejections
                .iter()
                .map(ToString::to_string)
                .collect();
            assert!(rejections.is_empty(), "{rejections:#?}");
            let metrics = &discovery.hierarchy.metrics;
            assert_eq!(metrics.len(), 1);
            let selected: std::collections::BTreeSet<(String, String)> = metrics[0]
                .service_monitors
                .iter()
                .map(|m| {
                    let meta = &m.metadata;
                    (
                        meta.namespace.clone().unwrap_or_default(),
                        meta.name.clone().unwrap_or_default(),
                    )
                })
                .collect();
            let expected: std::collections::BTreeSet<(String, String)> = (0..10)
                .map(|k| shape.own_monitor(a, k))
                .chain((0..5).map(|s| shape.shared_monitor(s)))
                .map(|i| shape.locate(i))
                .collect();
            assert_eq!(selected.len(), 15, "agent {a}");
            assert_eq!(selected, expected, "agent {a}");
            // Agent a's own monitors sit in its own two namespaces.
            let own: std::collections::BTreeSet<String> = (0..10)
                .map(|k| shape.locate(shape.own_monitor(a, k)).0)
                .collect();
            assert_eq!(own, (0..2).map(|k| namespace_name(a * 2 + k)).collect());
            agents += 1;
        }
        assert_eq!(agents, 10);
    }

    #[test]
    fn generated_file_names_are_recognised_and_others_are_not() {
        assert!(is_generated_name("30-servicemonitors-0001.yaml"));
        assert!(is_generated_name("00-namespaces.yaml"));
        assert!(!is_generated_name("kustomization.yaml"));
        assert!(!is_generated_name("1-x.yaml"));
    }
}

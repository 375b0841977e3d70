//! Live differential test against the upstream Grafana Agent Operator (v0.44.8, built from its
//! Go module by `scripts/build-grafana-agent`).
//!
//! One real control plane (upstream's client-go sends protobuf bodies testkube cannot read)
//! holds upstream's example manifests, our `examples/`, hierarchies made by the benchmark's
//! generator and a few generated here (metrics, logs, integrations, sharding, referenced
//! Secrets and ConfigMaps), and three Nodes for the kubelet Service. Each operator in turn
//! reconciles them all: ours, then (its objects deleted) upstream's. The objects each creates
//! (config and assets Secrets decoded, Services, StatefulSets, DaemonSets, Deployments, the
//! kubelet Endpoints and EndpointSlices; without uids, resourceVersions, timestamps, managed
//! fields and status) must be equal once the deviations `docs/compatibility.md` documents are
//! applied. Each deviation is applied by the name it has there (the test checks that it is
//! listed, and that it changed something), so a difference nobody documented fails the test.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Backend, Cluster, OperatorProcess, documented_quirks, root, upstream_binary};

/// `(kind, namespace, name)`.
type Id = (String, String, String);
type Objects = BTreeMap<Id, Value>;

/// What the operators create (the kubelet objects included).
const OUTPUTS: &str = "secrets,services,statefulsets,daemonsets,deployments,roles,rolebindings,\
     endpoints,endpointslices";
const MANAGED: &str = "app.kubernetes.io/managed-by=grafana-agent-operator";
const KUBELET_NAMESPACE: &str = "kube-system";
const KUBELET_SERVICE: &str = "kube-system/kubelet";

/// The upstream operator, running against the cluster with the admin kubeconfig.
struct Upstream {
    child: Child,
    log: PathBuf,
}

impl Upstream {
    fn start(binary: &PathBuf, cluster: &Cluster) -> Upstream {
        let log = cluster.dir.join("upstream-operator.log");
        let file = std::fs::File::create(&log).expect("log file");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = Command::new(binary)
            .arg(format!("-kubelet-service={KUBELET_SERVICE}"))
            .arg(format!("-metrics-listen-address=127.0.0.1:{port}"))
            .env("KUBECONFIG", &cluster.kubeconfig)
            .stdin(Stdio::null())
            .stdout(file.try_clone().expect("log file"))
            .stderr(file)
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", binary.display()));
        Upstream { child, log }
    }

    fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Nodes for the kubelet Service (the control plane has no kubelet to register any).
fn nodes() -> Vec<Value> {
    (0..3)
        .map(|i| {
            json!({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": format!("diff-node-{i}")},
                "status": {"addresses": [
                    {"type": "Hostname", "address": format!("diff-node-{i}")},
                    {"type": "InternalIP", "address": format!("10.9.0.{}", 3 - i)},
                ]},
            })
        })
        .collect()
}

/// The benchmark generator's input at a small size, two agents: ServiceMonitors of every
/// shape it makes (TLS and credentials from Secrets, four selector shapes, target namespaces),
/// PodMonitors, static and ingress Probes, PodLogs.
fn bench_generated() -> Vec<Value> {
    let params = bench::generate::Params {
        seed: 26,
        service_monitors: 24,
        pod_monitors: 6,
        probes: 4,
        pod_logs: 4,
        namespaces: 3,
        agents: 2,
        payload_bytes: 0,
    };
    bench::generate::documents(&params)
        .into_iter()
        .map(|mut doc| {
            // Stand-ins for server-set fields.
            if let Some(meta) = doc["metadata"].as_object_mut() {
                meta.remove("resourceVersion");
                meta.remove("uid");
            }
            doc
        })
        .collect()
}

/// One generated hierarchy's shape.
struct Shape {
    shards: u32,
    replicas: u32,
    logs: bool,
    integrations: bool,
    additional_scrape_configs: bool,
}

const SHAPES: &[Shape] = &[
    Shape {
        shards: 1,
        replicas: 1,
        logs: true,
        integrations: false,
        additional_scrape_configs: false,
    },
    Shape {
        shards: 3,
        replicas: 2,
        logs: false,
        integrations: true,
        additional_scrape_configs: true,
    },
    Shape {
        shards: 2,
        replicas: 1,
        logs: true,
        integrations: true,
        additional_scrape_configs: false,
    },
];

/// Hierarchies of every shape in [`SHAPES`], one namespace each: an agent with metrics
/// (remote_write credentials from a Secret, a ServiceMonitor with a CA from a ConfigMap and a
/// bearer token from a Secret and an endpoint with `authorization` and `followRedirects:
/// false`, a PodMonitor not following redirects, a static Probe with `authorization`), logs (a client with basic auth,
/// PodLogs with pipeline stages) and integrations (node_exporter on every node, redis
/// with a mounted Secret key), as the shape says.
fn shaped_hierarchies() -> Vec<Value> {
    let mut docs = Vec::new();
    for (i, shape) in SHAPES.iter().enumerate() {
        let ns = format!("diff-{i}");
        let agent = format!("agent-{i}");
        let select = json!({"matchLabels": {"agent": agent}});
        docs.push(json!({
            "apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": ns, "labels": {"diff": "generated"}},
        }));
        docs.push(json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "creds", "namespace": ns},
            "stringData": {
                "username": format!("user-{i}"),
                "password": format!("password-{i}"),
                "token": format!("token-{i}"),
            },
        }));
        docs.push(json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "scrape-ca", "namespace": ns},
            "data": {"ca.crt": format!("certificate-{i}")},
        }));
        let mut spec = json!({
            "serviceAccountName": "grafana-agent",
            "logLevel": "debug",
            "metrics": {
                "shards": shape.shards,
                "replicas": shape.replicas,
                "scrapeInterval": "15s",
                "externalLabels": {"cluster": format!("diff-{i}")},
                "instanceSelector": select,
            },
        });
        if shape.logs {
            spec["logs"] = json!({"instanceSelector": select});
        }
        if shape.integrations {
            spec["integrations"] = json!({"selector": select});
        }
        docs.push(json!({
            "apiVersion": "monitoring.grafana.com/v1alpha1", "kind": "GrafanaAgent",
            "metadata": {"name": agent, "namespace": ns},
            "spec": spec,
        }));
        let mut metrics = json!({
            "remoteWrite": [{
                "url": "https://mimir.example.com/api/v1/push",
                "basicAuth": {
                    "username": {"name": "creds", "key": "username"},
                    "password": {"name": "creds", "key": "password"},
                },
            }],
            "serviceMonitorSelector": select,
            "podMonitorSelector": select,
            "probeSelector": select,
        });
        if shape.additional_scrape_configs {
            metrics["additionalScrapeConfigs"] = json!({"name": "extra-jobs", "key": "jobs.yaml"});
            docs.push(json!({
                "apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": "extra-jobs", "namespace": ns},
                "stringData": {"jobs.yaml": "- job_name: extra\n  static_configs:\n  - targets: [extra.example.com:9100]\n"},
            }));
        }
        docs.push(json!({
            "apiVersion": "monitoring.grafana.com/v1alpha1", "kind": "MetricsInstance",
            "metadata": {"name": "metrics", "namespace": ns, "labels": {"agent": agent}},
            "spec": metrics,
        }));
        docs.push(json!({
            "apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor",
            "metadata": {"name": "api", "namespace": ns, "labels": {"agent": agent}},
            "spec": {
                "selector": {"matchLabels": {"app": "api"}},
                "endpoints": [
                    {"port": "http-metrics", "interval": "30s"},
                    {
                        "port": "https", "scheme": "https",
                        "tlsConfig": {"ca": {"configMap": {"name": "scrape-ca", "key": "ca.crt"}}, "serverName": "api"},
                        "bearerTokenSecret": {"name": "creds", "key": "token"},
                    },
                    {
                        "port": "authorized",
                        "authorization": {"credentials": {"name": "creds", "key": "token"}},
                        "followRedirects": false,
                    },
                ],
            },
        }));
        docs.push(json!({
            "apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor",
            "metadata": {"name": "workers", "namespace": ns, "labels": {"agent": agent}},
            "spec": {
                "selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["worker", "cron"]}]},
                "podMetricsEndpoints": [{"port": "metrics", "followRedirects": false, "relabelings": [
                    {"sourceLabels": ["__meta_kubernetes_pod_node_name"], "targetLabel": "node"},
                ]}],
            },
        }));
        docs.push(json!({
            "apiVersion": "monitoring.coreos.com/v1", "kind": "Probe",
            "metadata": {"name": "site", "namespace": ns, "labels": {"agent": agent}},
            "spec": {
                "module": "http_2xx",
                "prober": {"url": "blackbox.diff.svc:9115"},
                "authorization": {"type": "Bearer", "credentials": {"name": "creds", "key": "token"}},
                "targets": {"staticConfig": {"static": ["https://a.example.com", "https://b.example.com"]}},
            },
        }));
        if shape.logs {
            docs.push(json!({
                "apiVersion": "monitoring.grafana.com/v1alpha1", "kind": "LogsInstance",
                "metadata": {"name": "logs", "namespace": ns, "labels": {"agent": agent}},
                "spec": {
                    "clients": [{
                        "url": "https://loki.example.com/loki/api/v1/push",
                        "basicAuth": {
                            "username": {"name": "creds", "key": "username"},
                            "password": {"name": "creds", "key": "password"},
                        },
                    }],
                    "podLogsSelector": select,
                },
            }));
            docs.push(json!({
                "apiVersion": "monitoring.grafana.com/v1alpha1", "kind": "PodLogs",
                "metadata": {"name": "api", "namespace": ns, "labels": {"agent": agent}},
                "spec": {
                    "selector": {"matchLabels": {"app": "api"}},
                    "pipelineStages": [
                        {"cri": {}},
                        {"regex": {"expression": "level=(?P<level>\\w+)"}},
                        {"labels": {"level": ""}},
                    ],
                },
            }));
        }
        if shape.integrations {
            docs.push(json!({
                "apiVersion": "monitoring.grafana.com/v1alpha1", "kind": "Integration",
                "metadata": {"name": "node-exporter", "namespace": ns, "labels": {"agent": agent}},
                "spec": {
                    "name": "node_exporter",
                    "type": {"allNodes": true, "unique": true},
                    "config": {"autoscrape": {"enable": true, "metrics_instance": format!("{ns}/metrics")}, "rootfs_path": "/host/root"},
                    "volumes": [{"name": "rootfs", "hostPath": {"path": "/"}}],
                    "volumeMounts": [{"name": "rootfs", "mountPath": "/host/root", "readOnly": true}],
                },
            }));
            docs.push(json!({
                "apiVersion": "monitoring.grafana.com/v1alpha1", "kind": "Integration",
                "metadata": {"name": "redis", "namespace": ns, "labels": {"agent": agent}},
                "spec": {
                    "name": "redis",
                    "type": {"allNodes": false},
                    "config": {
                        "redis_addr": "redis:6379",
                        "redis_password_file": format!("/etc/grafana-agent/integrations/secrets/{ns}/creds/password"),
                    },
                    "secrets": [{"name": "creds", "key": "password"}],
                },
            }));
        }
    }
    docs
}

/// Applies `docs` (namespaces first) with kubectl.
fn apply_documents(cluster: &Cluster, docs: &[Value]) {
    let (namespaces, others): (Vec<&Value>, Vec<&Value>) =
        docs.iter().partition(|d| d["kind"] == "Namespace");
    for batch in [namespaces, others] {
        let list = json!({"apiVersion": "v1", "kind": "List", "items": batch});
        cluster.kubectl_with_input(
            &["apply", "--server-side", "-f", "-"],
            Some(&list.to_string()),
        );
    }
}

fn identity(o: &Value) -> Id {
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    (
        text(&o["kind"]),
        text(&o["metadata"]["namespace"]),
        text(&o["metadata"]["name"]),
    )
}

/// Whether an object is one an operator made, not one kube-controller-manager derives from
/// them: the Endpoints and EndpointSlices of the `-operated` Services (which copy their
/// labels), and the EndpointSlice mirrored from upstream's kubelet Endpoints.
fn made_by_an_operator(o: &Value) -> bool {
    match o["kind"].as_str().unwrap_or_default() {
        "Endpoints" => o["metadata"]["namespace"] == KUBELET_NAMESPACE,
        "EndpointSlice" => {
            o["metadata"]["namespace"] == KUBELET_NAMESPACE
                && !o["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"]
                    .as_str()
                    .is_some_and(|m| m.ends_with(".k8s.io"))
        }
        _ => true,
    }
}

/// The objects the operators manage now, raw.
fn managed(cluster: &Cluster) -> Vec<Value> {
    cluster.get_json(&[OUTPUTS, "-A", "-l", MANAGED])["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(made_by_an_operator)
        .collect()
}

/// Base64 `data` of a Secret, decoded: `agent.yml` (gunzipped when compressed) parsed as
/// YAML, every other value as text. A config in segments (ours, issue 35) keeps its parts as
/// text: the head's and each segment's `agent.yml` is a piece of a config, which the
/// `config-segments` deviation assembles.
fn decode_secret_data(data: &Value, config_piece: bool) -> Value {
    use base64::Engine;
    let Some(map) = data.as_object() else {
        return data.clone();
    };
    let decoded = map
        .iter()
        .map(|(key, value)| {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(value.as_str().unwrap_or_default())
                .expect("base64 from the API server");
            let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
                let mut out = Vec::new();
                flate2::read::MultiGzDecoder::new(bytes.as_slice())
                    .read_to_end(&mut out)
                    .expect("gunzip agent.yml");
                out
            } else {
                bytes
            };
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let value = if key == "agent.yml" && !config_piece {
                serde_saphyr::from_str::<Value>(&text)
                    .unwrap_or_else(|e| panic!("agent.yml does not parse: {e}\n{text}"))
            } else {
                Value::String(text)
            };
            (key.clone(), value)
        })
        .collect();
    Value::Object(decoded)
}

/// An object without what neither operator decides: uids, resourceVersions, timestamps,
/// managed fields, generation, status; Secret data decoded.
fn normalize(mut o: Value) -> Value {
    if let Some(meta) = o["metadata"].as_object_mut() {
        for key in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "managedFields",
            "generation",
            "selfLink",
        ] {
            meta.remove(key);
        }
        if let Some(owners) = meta
            .get_mut("ownerReferences")
            .and_then(Value::as_array_mut)
        {
            for owner in owners {
                if let Some(owner) = owner.as_object_mut() {
                    owner.remove("uid");
                }
            }
        }
    }
    if let Some(object) = o.as_object_mut() {
        object.remove("status");
    }
    let config_piece = o["data"].get(render::segments::MANIFEST_KEY).is_some()
        || o["metadata"]["labels"]
            .get(render::segments::SEGMENT_OF_LABEL)
            .is_some();
    if o["kind"] == "Secret"
        && let Some(data) = o.get_mut("data")
    {
        *data = decode_secret_data(data, config_piece);
    }
    o
}

/// Our configs stored in segments (issue 35): each head's `agent.yml` becomes the whole config
/// (its text, then its manifest's segments' in order, parsed), its manifest and its segment
/// Secrets go. Upstream stores one Secret, refused above 1 MiB.
fn config_segments(ours: &mut Objects, _upstream: &mut Objects) -> usize {
    let heads: Vec<Id> = ours
        .iter()
        .filter(|(_, o)| o["data"].get(render::segments::MANIFEST_KEY).is_some())
        .map(|(id, _)| id.clone())
        .collect();
    let mut changed = 0;
    for id in heads {
        let head = &ours[&id];
        let manifest: render::segments::Manifest = serde_json::from_str(
            head["data"][render::segments::MANIFEST_KEY]
                .as_str()
                .unwrap_or_default(),
        )
        .unwrap_or_else(|e| panic!("{id:?}: its manifest: {e}"));
        let mut text = head["data"]["agent.yml"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        for entry in &manifest.segments {
            let segment_id = ("Secret".to_owned(), id.1.clone(), entry.secret.clone());
            let segment = ours
                .remove(&segment_id)
                .unwrap_or_else(|| panic!("{id:?}: segment {} missing", entry.secret));
            text.push_str(segment["data"]["agent.yml"].as_str().unwrap_or_default());
            changed += 1;
        }
        let config: Value = serde_saphyr::from_str(&text)
            .unwrap_or_else(|e| panic!("{id:?}: the assembled agent.yml does not parse: {e}"));
        if let Some(data) = ours.get_mut(&id).and_then(|o| o["data"].as_object_mut()) {
            data.remove(render::segments::MANIFEST_KEY);
            data.insert("agent.yml".to_owned(), config);
        }
    }
    changed
}

fn snapshot(cluster: &Cluster) -> Objects {
    managed(cluster)
        .into_iter()
        .map(|o| (identity(&o), normalize(o)))
        .collect()
}

/// Polls until the managed objects include every one of `expected` and have not changed for
/// three seconds; returns them (or what there is after `timeout`).
fn settled(cluster: &Cluster, expected: &BTreeSet<Id>, timeout: Duration) -> Objects {
    let deadline = Instant::now() + timeout;
    let mut last = snapshot(cluster);
    let mut since = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let now = snapshot(cluster);
        let complete = expected.iter().all(|id| now.contains_key(id));
        if now != last || !complete {
            since = Instant::now();
        }
        last = now;
        if (complete && since.elapsed() >= Duration::from_secs(3)) || Instant::now() > deadline {
            return last;
        }
    }
}

/// Deletes every object the operators made and waits until they are gone.
fn delete_outputs(cluster: &Cluster) {
    cluster.kubectl(&[
        "delete",
        OUTPUTS,
        "-A",
        "-l",
        MANAGED,
        "--wait=true",
        "--timeout=60s",
    ]);
    support::eventually(
        "the first operator's objects are gone",
        Duration::from_secs(60),
        || {
            let left: Vec<Id> = managed(cluster).iter().map(identity).collect();
            if left.is_empty() {
                Ok(())
            } else {
                Err(format!("left: {left:?}"))
            }
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Deviations: each named as in docs/compatibility.md, each a change that makes one side look
// like the other where that page says the two differ on purpose.

/// One documented difference.
struct Deviation {
    /// The name it has in docs/compatibility.md (a row `| Qn |` of its tables).
    quirk: &'static str,
    what: &'static str,
    /// Brings both sides together; returns how many places it changed.
    apply: fn(&mut Objects, &mut Objects) -> usize,
    /// Whether the inputs must exercise it (false: it depends on upstream's unordered output).
    must_apply: bool,
}

const DEVIATIONS: &[Deviation] = &[
    Deviation {
        quirk: "config-segments",
        what: "a config of ours longer than 256 KiB is stored in its head Secret and \
               segment Secrets (<config Secret>-<hash>) that its manifest (segments.json) \
               names; upstream stores one Secret: ours compared assembled (the inputs' \
               configs are smaller: segments are proven by metrics_golden, the apply tests \
               and the real node)",
        apply: config_segments,
        must_apply: false,
    },
    Deviation {
        quirk: "Q5",
        what: "upstream's list order follows its informers' map iteration: configs, jobs, \
               integrations and their volumes are compared sorted",
        apply: q5_order,
        must_apply: false,
    },
    Deviation {
        quirk: "Q2",
        what: "with more than one shard, our Probe jobs end with the two sharding rules \
               (hashmod of __param_target, keep $(SHARD))",
        apply: q2_probe_sharding,
        must_apply: true,
    },
    Deviation {
        quirk: "Q11",
        what: "our <agent>-operated Service selects only metrics pods",
        apply: q11_operated_service_selector,
        must_apply: true,
    },
    Deviation {
        quirk: "Q13",
        what: "our integrations configs leave out the instances' additionalScrapeConfigs",
        apply: q13_integrations_without_additional_scrape_configs,
        must_apply: true,
    },
    Deviation {
        quirk: "Q21",
        what: "we annotate each object we write with the hash of its desired content",
        apply: q21_desired_hash,
        must_apply: true,
    },
    Deviation {
        quirk: "Q22",
        what: "our Secrets' ownerReference is a controller reference",
        apply: q22_secret_controller_reference,
        must_apply: true,
    },
    Deviation {
        quirk: "secret-agent-label",
        what: "our Secrets carry the operator.agent.grafana.com/name label",
        apply: secret_agent_label,
        must_apply: true,
    },
    Deviation {
        quirk: "subsystem-label",
        what: "each object we write for an agent is labelled with its subsystem",
        apply: subsystem_label,
        must_apply: true,
    },
    Deviation {
        quirk: "Q30",
        what: "the pods' app.kubernetes.io/version label is each operator's own version",
        apply: q30_version_label,
        must_apply: true,
    },
    Deviation {
        quirk: "dollar-escaping",
        what: "our configs write every $ of an object's or Secret's string as $$ (and shield \
               a $ before a parenthesis), which the reloader and the agent read back as the \
               string; compared as the agent reads them",
        apply: dollar_escaping,
        must_apply: true,
    },
    Deviation {
        quirk: "file-access-denied",
        what: "a ServiceMonitor reading a file of the agent pod is left out unless the agent \
               sets arbitraryFSAccessThroughSMs.deny: false; upstream renders its jobs",
        apply: file_access_denied,
        must_apply: false,
    },
    Deviation {
        quirk: "scrape-authorization",
        what: "our monitor and Probe jobs carry the authorization their objects set (type and \
               credentials); upstream leaves it out",
        apply: scrape_authorization,
        must_apply: true,
    },
    Deviation {
        quirk: "follow-redirects",
        what: "our monitor jobs carry follow_redirects: false where their endpoints set \
               followRedirects: false; upstream leaves it out",
        apply: follow_redirects,
        must_apply: true,
    },
    Deviation {
        quirk: "config-loader",
        what: "our pods load their config with the operator's config loader (the init \
               container config-loader-init and the config-reloader sidecar, reading the \
               config Secrets through the API, which each agent's Role and RoleBinding \
               <agent>-config-loader grant); upstream's run prometheus-config-reloader on a \
               volume of the config Secret: both compared without the config-reloader \
               container, ours without the init container, the Role and the RoleBinding, \
               upstream's without the volume",
        apply: config_loader,
        must_apply: true,
    },
    Deviation {
        quirk: "min-ready-seconds",
        what: "our metrics StatefulSets of two or more pods wait minReadySeconds (a scrape \
               interval and 30 s) before a rolled pod counts as available; upstream's set none",
        apply: min_ready_seconds,
        must_apply: true,
    },
    Deviation {
        quirk: "Q32",
        what: "we also maintain an EndpointSlice for the kubelet Service",
        apply: q32_kubelet_endpoint_slices,
        must_apply: true,
    },
];

/// Every `agent.yml` of a Secret in `objects`, mutably.
fn configs(objects: &mut Objects) -> impl Iterator<Item = (&Id, &mut Value)> {
    objects
        .iter_mut()
        .filter(|(id, _)| id.0 == "Secret")
        .filter_map(|(id, o)| o.pointer_mut("/data/agent.yml").map(|c| (id, c)))
}

/// The array at `pointer` (JSON pointer) in `v`, if there is one. Never inserts anything, unlike
/// indexing a `Value` mutably.
fn array_at<'a>(v: &'a mut Value, pointer: &str) -> Option<&'a mut Vec<Value>> {
    v.pointer_mut(pointer).and_then(Value::as_array_mut)
}

fn map_at<'a>(v: &'a mut Value, pointer: &str) -> Option<&'a mut serde_json::Map<String, Value>> {
    v.pointer_mut(pointer).and_then(Value::as_object_mut)
}

fn sort_by_key(list: Option<&mut Vec<Value>>, key: &str) -> usize {
    let Some(items) = list else {
        return 0;
    };
    let before = items.clone();
    items.sort_by(|a, b| a[key].to_string().cmp(&b[key].to_string()));
    usize::from(*items != before)
}

fn q5_order(ours: &mut Objects, upstream: &mut Objects) -> usize {
    let mut changed = 0;
    for side in [ours, upstream] {
        for (_, config) in configs(side) {
            for subsystem in ["/metrics/configs", "/logs/configs"] {
                changed += sort_by_key(array_at(config, subsystem), "name");
                for instance in array_at(config, subsystem).into_iter().flatten() {
                    changed += sort_by_key(array_at(instance, "/scrape_configs"), "job_name");
                }
            }
            for (_, list) in map_at(config, "/integrations").into_iter().flatten() {
                changed += sort_by_key(list.as_array_mut(), "instance");
            }
        }
        for (id, o) in side.iter_mut() {
            if !matches!(id.0.as_str(), "StatefulSet" | "DaemonSet" | "Deployment") {
                continue;
            }
            changed += sort_by_key(array_at(o, "/spec/template/spec/volumes"), "name");
            for container in array_at(o, "/spec/template/spec/containers")
                .into_iter()
                .flatten()
            {
                changed += sort_by_key(array_at(container, "/volumeMounts"), "mountPath");
            }
        }
    }
    changed
}

fn is_sharding_rule(rule: &Value) -> bool {
    (rule["action"] == "hashmod" && rule["target_label"] == "__tmp_hash")
        || (rule["action"] == "keep" && rule["source_labels"] == json!(["__tmp_hash"]))
}

/// Every scrape job of a metrics agent.yml.
fn jobs(config: &Value) -> Vec<Value> {
    config["metrics"]["configs"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|i| i["scrape_configs"].as_array().cloned().unwrap_or_default())
        .collect()
}

fn q2_probe_sharding(ours: &mut Objects, upstream: &mut Objects) -> usize {
    let mut changed = 0;
    let upstream_sharded: BTreeSet<(Id, String)> = configs(upstream)
        .flat_map(|(id, config)| {
            let id = id.clone();
            jobs(config).into_iter().filter_map(move |job| {
                let sharded = job["relabel_configs"]
                    .as_array()
                    .is_some_and(|r| r.iter().any(is_sharding_rule));
                sharded.then(|| (id.clone(), job["job_name"].to_string()))
            })
        })
        .collect();
    for (id, config) in configs(ours) {
        for instance in array_at(config, "/metrics/configs").into_iter().flatten() {
            for job in array_at(instance, "/scrape_configs").into_iter().flatten() {
                let probe = job["job_name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("probe/"));
                if !probe || upstream_sharded.contains(&(id.clone(), job["job_name"].to_string())) {
                    continue;
                }
                let Some(rules) = array_at(job, "/relabel_configs") else {
                    continue;
                };
                let before = rules.len();
                rules.retain(|r| !is_sharding_rule(r));
                if rules.len() != before {
                    changed += 1;
                }
            }
        }
    }
    changed
}

/// Every string of `value`, keys included, as the reloader and the agent read our escaping
/// back (issue 38): the shield removed, then each `$$` one `$`.
fn unescape_strings(value: &mut Value) -> usize {
    let unescape = |s: &str| {
        s.replace(render::expansion::EMPTY_EXPANSION, "")
            .replace("$$", "$")
    };
    match value {
        Value::String(s) => {
            let read = unescape(s);
            usize::from(std::mem::replace(s, read) != *s)
        }
        Value::Array(items) => items.iter_mut().map(unescape_strings).sum(),
        Value::Object(map) => {
            let mut changed = 0;
            let entries = std::mem::take(map);
            for (key, mut v) in entries {
                changed += unescape_strings(&mut v);
                let read = unescape(&key);
                changed += usize::from(read != key);
                map.insert(read, v);
            }
            changed
        }
        _ => 0,
    }
}

fn dollar_escaping(ours: &mut Objects, _upstream: &mut Objects) -> usize {
    configs(ours)
        .map(|(_, config)| unescape_strings(config))
        .sum()
}

/// Whether a scrape job reads a file of the agent pod other than the assets Secret's, which is
/// what a ServiceMonitor's `bearerTokenFile` or TLS `caFile`/`certFile`/`keyFile` renders to.
fn reads_pod_file(job: &Value) -> bool {
    let outside_assets = |v: &Value| {
        v.as_str()
            .is_some_and(|p| !p.starts_with(render::assets::ASSETS_MOUNT_PATH))
    };
    outside_assets(&job["bearer_token_file"])
        || ["ca_file", "cert_file", "key_file"]
            .iter()
            .any(|k| outside_assets(&job["tls_config"][*k]))
}

fn file_access_denied(_ours: &mut Objects, upstream: &mut Objects) -> usize {
    let mut changed = 0;
    for (_, config) in configs(upstream) {
        for instance in array_at(config, "/metrics/configs").into_iter().flatten() {
            let Some(jobs) = array_at(instance, "/scrape_configs") else {
                continue;
            };
            let before = jobs.len();
            jobs.retain(|job| {
                let monitor = job["job_name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with("serviceMonitor/"));
                !(monitor && reads_pod_file(job))
            });
            changed += before - jobs.len();
        }
    }
    changed
}

/// Removes `key` from our ServiceMonitor, PodMonitor and Probe jobs, which upstream writes
/// without it; returns how many jobs had it.
fn without_monitor_job_key(ours: &mut Objects, key: &str) -> usize {
    let mut changed = 0;
    for (_, config) in configs(ours) {
        for instance in array_at(config, "/metrics/configs").into_iter().flatten() {
            for job in array_at(instance, "/scrape_configs").into_iter().flatten() {
                let monitor = job["job_name"].as_str().is_some_and(|n| {
                    ["serviceMonitor/", "podMonitor/", "probe/"]
                        .iter()
                        .any(|prefix| n.starts_with(prefix))
                });
                if monitor
                    && let Some(job) = job.as_object_mut()
                    && job.remove(key).is_some()
                {
                    changed += 1;
                }
            }
        }
    }
    changed
}

fn scrape_authorization(ours: &mut Objects, _upstream: &mut Objects) -> usize {
    without_monitor_job_key(ours, "authorization")
}

fn follow_redirects(ours: &mut Objects, _upstream: &mut Objects) -> usize {
    without_monitor_job_key(ours, "follow_redirects")
}

fn q11_operated_service_selector(ours: &mut Objects, upstream: &mut Objects) -> usize {
    const KEY: &str = "operator.agent.grafana.com/type";
    let mut changed = 0;
    for (id, o) in ours.iter_mut() {
        if id.0 != "Service" || !id.2.ends_with("-operated") {
            continue;
        }
        let theirs_has = upstream
            .get(id)
            .is_some_and(|u| u["spec"]["selector"].get(KEY).is_some());
        if !theirs_has
            && let Some(selector) = map_at(o, "/spec/selector")
            && selector.remove(KEY).is_some()
        {
            changed += 1;
        }
    }
    changed
}

fn min_ready_seconds(ours: &mut Objects, upstream: &mut Objects) -> usize {
    let mut changed = 0;
    for (id, o) in ours.iter_mut() {
        let theirs_has = upstream
            .get(id)
            .is_some_and(|u| u.pointer("/spec/minReadySeconds").is_some());
        if id.0 == "StatefulSet"
            && !theirs_has
            && let Some(spec) = map_at(o, "/spec")
            && spec.remove("minReadySeconds").is_some()
        {
            changed += 1;
        }
    }
    changed
}

fn q13_integrations_without_additional_scrape_configs(
    ours: &mut Objects,
    upstream: &mut Objects,
) -> usize {
    let mut changed = 0;
    for (id, config) in configs(upstream) {
        if !id.2.contains("-integrations-") {
            continue;
        }
        let Some(ours_config) = ours.get(id).map(|o| o["data"]["agent.yml"].clone()) else {
            continue;
        };
        for (k, instance) in array_at(config, "/metrics/configs")
            .into_iter()
            .flatten()
            .enumerate()
        {
            let ours_jobs = &ours_config["metrics"]["configs"][k]["scrape_configs"];
            let ours_names: BTreeSet<String> = ours_jobs
                .as_array()
                .into_iter()
                .flatten()
                .map(|j| j["job_name"].to_string())
                .collect();
            let Some(list) = array_at(instance, "/scrape_configs") else {
                continue;
            };
            let before = list.len();
            // The instance's additionalScrapeConfigs: jobs no monitor gives and ours lacks.
            list.retain(|job| {
                let name = job["job_name"].as_str().unwrap_or_default();
                ours_names.contains(&job["job_name"].to_string())
                    || ["serviceMonitor/", "podMonitor/", "probe/"]
                        .iter()
                        .any(|p| name.starts_with(p))
            });
            if list.len() == before {
                continue;
            }
            changed += 1;
            if list.is_empty()
                && ours_jobs.is_null()
                && let Some(instance) = instance.as_object_mut()
            {
                instance.remove("scrape_configs");
            }
        }
    }
    changed
}

/// Removes `key` from the map at `pointer` of each of `ours`' objects where the same object of
/// `upstream` has no such key (`kinds`: only objects of these kinds; empty: all); a map left
/// empty goes too. Returns how many it removed.
fn remove_ours_only(
    ours: &mut Objects,
    upstream: &Objects,
    kinds: &[&str],
    pointer: &str,
    key: &str,
) -> usize {
    let mut changed = 0;
    for (id, o) in ours.iter_mut() {
        if !kinds.is_empty() && !kinds.contains(&id.0.as_str()) {
            continue;
        }
        let theirs_has = upstream
            .get(id)
            .and_then(|u| u.pointer(pointer))
            .is_some_and(|m| m.get(key).is_some());
        if theirs_has {
            continue;
        }
        let Some(map) = map_at(o, pointer) else {
            continue;
        };
        if map.remove(key).is_none() {
            continue;
        }
        changed += 1;
        if map.is_empty() {
            let (parent, last) = pointer.rsplit_once('/').expect("a JSON pointer");
            if let Some(parent) = map_at(o, parent) {
                parent.remove(last);
            }
        }
    }
    changed
}

fn q21_desired_hash(ours: &mut Objects, upstream: &mut Objects) -> usize {
    // On the agents' objects, and on the kubelet Service and Endpoints.
    let key = "operator.agent.grafana.com/desired-hash";
    remove_ours_only(ours, upstream, &[], "/metadata/annotations", key)
}

fn q22_secret_controller_reference(ours: &mut Objects, upstream: &mut Objects) -> usize {
    let mut changed = 0;
    for (id, o) in ours.iter_mut() {
        if id.0 != "Secret" {
            continue;
        }
        let theirs = upstream
            .get(id)
            .map(|u| u["metadata"]["ownerReferences"].clone())
            .unwrap_or_default();
        for (k, owner) in array_at(o, "/metadata/ownerReferences")
            .into_iter()
            .flatten()
            .enumerate()
        {
            if owner["controller"] == true
                && theirs[k]["controller"].is_null()
                && let Some(owner) = owner.as_object_mut()
            {
                owner.remove("controller");
                changed += 1;
            }
        }
    }
    changed
}

fn q30_version_label(ours: &mut Objects, upstream: &mut Objects) -> usize {
    const POINTER: &str = "/spec/template/metadata/labels/app.kubernetes.io~1version";
    let mut changed = 0;
    for (id, o) in ours.iter_mut() {
        let theirs = upstream.get(id).and_then(|u| u.pointer(POINTER)).cloned();
        if let Some(theirs) = theirs
            && let Some(label) = o.pointer_mut(POINTER)
            && *label != theirs
        {
            *label = theirs;
            changed += 1;
        }
    }
    changed
}

fn secret_agent_label(ours: &mut Objects, upstream: &mut Objects) -> usize {
    remove_ours_only(
        ours,
        upstream,
        &["Secret"],
        "/metadata/labels",
        "operator.agent.grafana.com/name",
    )
}

fn subsystem_label(ours: &mut Objects, upstream: &mut Objects) -> usize {
    remove_ours_only(
        ours,
        upstream,
        &[
            "Secret",
            "Service",
            "StatefulSet",
            "DaemonSet",
            "Deployment",
        ],
        "/metadata/labels",
        "operator.agent.grafana.com/subsystem",
    )
}

fn config_loader(ours: &mut Objects, upstream: &mut Objects) -> usize {
    let grants = ours.len();
    ours.retain(|id, _| !matches!(id.0.as_str(), "Role" | "RoleBinding"));
    let mut changed = grants - ours.len();
    for (side, ours_side) in [(ours, true), (upstream, false)] {
        for (id, o) in side.iter_mut() {
            if !matches!(id.0.as_str(), "StatefulSet" | "DaemonSet" | "Deployment") {
                continue;
            }
            let Some(pod) = o.pointer_mut("/spec/template/spec") else {
                continue;
            };
            if let Some(containers) = array_at(pod, "/containers") {
                let before = containers.len();
                containers.retain(|c| c["name"] != "config-reloader");
                changed += before - containers.len();
                if !ours_side {
                    for c in containers.iter_mut() {
                        if let Some(mounts) = array_at(c, "/volumeMounts") {
                            let before = mounts.len();
                            mounts.retain(|m| m["name"] != "config");
                            changed += before - mounts.len();
                        }
                    }
                }
            }
            if ours_side {
                if let Some(init) = array_at(pod, "/initContainers") {
                    let before = init.len();
                    init.retain(|c| c["name"] != "config-loader-init");
                    changed += before - init.len();
                    if init.is_empty()
                        && let Some(spec) = pod.as_object_mut()
                    {
                        spec.remove("initContainers");
                    }
                }
            } else if let Some(volumes) = array_at(pod, "/volumes") {
                let before = volumes.len();
                volumes.retain(|v| v["name"] != "config");
                changed += before - volumes.len();
            }
        }
    }
    changed
}

fn q32_kubelet_endpoint_slices(ours: &mut Objects, upstream: &mut Objects) -> usize {
    let ours_slices: Vec<Id> = ours
        .keys()
        .filter(|id| id.0 == "EndpointSlice" && !upstream.contains_key(*id))
        .cloned()
        .collect();
    for id in &ours_slices {
        ours.remove(id);
    }
    // Our Endpoints tell kube-controller-manager not to mirror them into a slice of its own.
    ours_slices.len()
        + remove_ours_only(
            ours,
            upstream,
            &["Endpoints"],
            "/metadata/labels",
            "endpointslice.kubernetes.io/skip-mirror",
        )
}

// ---------------------------------------------------------------------------------------------

/// Where `a` and `b` differ, as `path: ours ... upstream ...` lines.
fn differences(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let here = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(v), Some(w)) => differences(&here, v, w, out),
                    (Some(v), None) => out.push(format!("{here}: only ours: {v}")),
                    (None, Some(w)) => out.push(format!("{here}: only upstream's: {w}")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                differences(&format!("{path}[{i}]"), v, w, out);
            }
        }
        (Value::Number(x), Value::Number(y)) if x.as_f64() == y.as_f64() => {}
        _ if a == b => {}
        _ => out.push(format!("{path}: ours {a}, upstream's {b}")),
    }
}

fn compare(ours: &Objects, upstream: &Objects) -> Vec<String> {
    let mut out = Vec::new();
    let ids: BTreeSet<&Id> = ours.keys().chain(upstream.keys()).collect();
    for id in ids {
        let label = format!("{} {}/{}", id.0, id.1, id.2);
        match (ours.get(id), upstream.get(id)) {
            (Some(a), Some(b)) => {
                let mut here = Vec::new();
                differences("", a, b, &mut here);
                out.extend(here.into_iter().map(|d| format!("{label}: {d}")));
            }
            (Some(_), None) => out.push(format!("{label}: only ours created it")),
            (None, Some(_)) => out.push(format!("{label}: only upstream created it")),
            (None, None) => {}
        }
    }
    out
}

#[test]
fn every_deviation_is_documented_in_compatibility_md() {
    let documented = documented_quirks();
    for d in DEVIATIONS {
        assert!(
            documented.contains(d.quirk),
            "deviation {} ({}) is not in docs/compatibility.md's tables",
            d.quirk,
            d.what
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_and_ours_create_the_same_objects_but_for_documented_deviations() {
    let upstream_binary = tokio::task::spawn_blocking(upstream_binary)
        .await
        .expect("build");
    let cluster = Cluster::start(Backend::ControlPlane, "upstream-diff").await;
    tokio::task::spawn_blocking(move || run(cluster, upstream_binary))
        .await
        .expect("the differential test");
}

fn run(cluster: Cluster, upstream_binary: PathBuf) {
    let shared = root().join("../shared/upstream/examples");
    assert!(
        shared.is_dir(),
        "{} is missing: the upstream examples live in ../shared beside the checkout",
        shared.display()
    );
    cluster.kubectl(&[
        "apply",
        "--server-side",
        "-f",
        shared.to_str().expect("path"),
    ]);
    cluster.kubectl(&["apply", "--server-side", "-f", "examples/"]);
    let mut generated = nodes();
    generated.extend(bench_generated());
    generated.extend(shaped_hierarchies());
    apply_documents(&cluster, &generated);
    let started = Instant::now();

    // What both must create: what `render` prints for these inputs, and the kubelet objects.
    let mut expected: BTreeSet<Id> = cluster.rendered().into_keys().collect();
    let (kubelet_namespace, kubelet_name) =
        KUBELET_SERVICE.split_once('/').expect("namespace/name");
    for kind in ["Service", "Endpoints"] {
        expected.insert((
            kind.to_owned(),
            kubelet_namespace.to_owned(),
            kubelet_name.to_owned(),
        ));
    }

    let operator = OperatorProcess::start(
        &cluster,
        "info",
        &[&format!("--kubelet-service={KUBELET_SERVICE}")],
    );
    let ours = settled(&cluster, &expected, Duration::from_secs(90));
    let ours_log = operator.stop();
    let missing: Vec<&Id> = expected
        .iter()
        .filter(|id| !ours.contains_key(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "ours did not create {missing:?}; its log:\n{}",
        tail(&ours_log, 40)
    );
    let ours_took = started.elapsed();
    delete_outputs(&cluster);

    let started = Instant::now();
    let upstream_process = Upstream::start(&upstream_binary, &cluster);
    let upstream = settled(&cluster, &expected, Duration::from_secs(120));
    let upstream_log = upstream_process.stop();
    let upstream_took = started.elapsed();
    eprintln!(
        "ours: {} objects in {ours_took:.1?}; upstream: {} objects in {upstream_took:.1?}",
        ours.len(),
        upstream.len()
    );

    let (mut ours, mut upstream) = (ours, upstream);
    let mut unused = Vec::new();
    for d in DEVIATIONS {
        let changed = (d.apply)(&mut ours, &mut upstream);
        eprintln!("deviation {}: {changed} changes ({})", d.quirk, d.what);
        if changed == 0 && d.must_apply {
            unused.push(d.quirk);
        }
    }
    let left = compare(&ours, &upstream);
    assert!(
        left.is_empty(),
        "{} differences no deviation of docs/compatibility.md explains:\n{}\n\n\
         upstream's log (last 40 lines):\n{}\nours (last 20 lines):\n{}",
        left.len(),
        left.join("\n"),
        tail(&upstream_log, 40),
        tail(&ours_log, 20)
    );
    assert!(
        unused.is_empty(),
        "deviations the inputs no longer exercise (extend the inputs or drop them): {unused:?}"
    );
}

fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

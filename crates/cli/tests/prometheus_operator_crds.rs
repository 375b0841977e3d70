//! Issue 36, item 5: monitors written for today's prometheus-operator, on a cluster that has
//! its CRDs. The real control plane gets prometheus-operator v0.94.0's own ServiceMonitor,
//! PodMonitor, Probe and ScrapeConfig CRDs (vendored in `prometheus_operator_crds/`) in place
//! of ours, beside our `monitoring.grafana.com` ones, as docs/getting-started.md tells a
//! cluster with prometheus-operator to keep them. Monitors using the fields added since v0.66
//! are applied (the API server keeps every one), and `agent-operator run` renders them for
//! three agents: runtime agent, runtime alloy with `configFormat: static` (converted by Alloy)
//! and runtime alloy with `configFormat: native` (the default, written explicitly). Then:
//!
//! * each config Secret holds what each field asks, the scrape classes applied;
//! * the agent v0.44.8 runs its config without an error, its Kubernetes discoveries against
//!   this API server; Alloy v1.19.2 converts the static config for Alloy with no error and
//!   runs it as the pods do (`--config.format=static`) until ready; the native config is left
//!   unchanged by `alloy fmt` and runs in `alloy run` until ready, without an error logged;
//! * no field of those CRDs is reported unknown (`UnknownField`) in any status or Event: our
//!   types read every one;
//! * `agent-operator explain` names the scrape class each monitor took.
//!
//! On the host, a pod's paths under `/var/lib/grafana-agent/` are a scratch folder holding the
//! Secrets the pod mounts (the assets Secret and the GrafanaAgent's `spec.secrets`), and every
//! Kubernetes discovery without an API server is given this control plane's kubeconfig, as a
//! pod's in-cluster settings would point it at its own.

mod support;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Backend, Cluster, OperatorProcess, eventually};

/// The vendored CRDs, relative to the repository.
const CRD_DIR: &str = "crates/cli/tests/prometheus_operator_crds";
/// Their release, as their `operator.prometheus.io/version` annotation says.
const RELEASE: &str = "0.94.0";
const COREOS_PLURALS: [&str; 4] = ["servicemonitors", "podmonitors", "probes", "scrapeconfigs"];

/// What a certificate or key file the config names holds: a file the agent or Alloy parses.
const STAND_IN_CERT: &str = include_str!("../../render/tests/agent_loads/stand-in.crt");
const STAND_IN_KEY: &str = include_str!("../../render/tests/agent_loads/stand-in.key");

/// The folder a pod's files are under.
const POD_ROOT: &str = "/var/lib/grafana-agent/";

/// Three agents, each with its own MetricsInstance (same scrape classes, same remote write)
/// selecting the monitors of every namespace. The ServiceMonitor labelled `nhcb` is left out
/// of the agent's instance: the agent (Prometheus 2.x) cannot convert classic histograms and
/// rejects it.
const AGENTS: &str = r#"
apiVersion: v1
kind: Namespace
metadata: {name: monitoring}
---
apiVersion: v1
kind: Namespace
metadata: {name: apps}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: monitoring}
spec:
  runtime: agent
  secrets: [mesh-tls]
  metrics:
    instanceSelector: {matchLabels: {agent: agent}}
    # The ScrapeConfig's file discovery reads the mounted Secret's files.
    arbitraryFSAccessThroughSMs: {deny: false}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: alloy-static, namespace: monitoring}
spec:
  runtime: alloy
  alloy: {configFormat: static}
  secrets: [mesh-tls]
  metrics:
    instanceSelector: {matchLabels: {agent: alloy-static}}
    # The ScrapeConfig's file discovery reads the mounted Secret's files.
    arbitraryFSAccessThroughSMs: {deny: false}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: alloy-native, namespace: monitoring}
spec:
  runtime: alloy
  alloy: {configFormat: native}
  secrets: [mesh-tls]
  metrics:
    instanceSelector: {matchLabels: {agent: alloy-native}}
    arbitraryFSAccessThroughSMs: {deny: false}
"#;

/// The instance of agent `AGENT`; `EXTRA` adds its own selectors.
const INSTANCE: &str = r#"
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata:
  name: AGENT
  namespace: monitoring
  labels: {agent: AGENT}
spec:
  remoteWrite:
  - url: http://prometheus.monitoring.svc:9090/api/v1/write
  serviceMonitorNamespaceSelector: {}
  podMonitorSelector: {}
  podMonitorNamespaceSelector: {}
  probeSelector: {}
  probeNamespaceSelector: {}
  scrapeConfigSelector: {}
  scrapeConfigNamespaceSelector: {}
  scrapeClasses:
  - name: mesh
    default: true
    attachMetadata: {node: true}
    tlsConfig:
      caFile: /var/lib/grafana-agent/extra-secrets/mesh-tls/ca.crt
      certFile: /var/lib/grafana-agent/extra-secrets/mesh-tls/tls.crt
      keyFile: /var/lib/grafana-agent/extra-secrets/mesh-tls/tls.key
    relabelings:
    - {targetLabel: mesh, replacement: istio}
    metricRelabelings:
    - {sourceLabels: [__name__], regex: istio_debug_.*, action: drop}
  - name: strict
    tlsConfig:
      caFile: /var/lib/grafana-agent/extra-secrets/mesh-tls/ca.crt
    authorization:
      credentials: {name: class-token, key: token}
    relabelings:
    - {targetLabel: class, replacement: strict}
EXTRA"#;

/// The monitors, with every field prometheus-operator added to them since v0.66 that v0.94's
/// CRDs declare. `HTTP_SD_URL` is the test's own HTTP discovery endpoint.
const MONITORS: &str = r#"
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: every-field, namespace: apps}
spec:
  selector:
    matchLabels: {app: web}
    matchExpressions:
    - {key: canary, operator: DoesNotExist}
  selectorMechanism: RoleSelector
  serviceDiscoveryRole: EndpointSlice
  attachMetadata: {node: true}
  bodySizeLimit: 10MB
  labelLimit: 40
  labelNameLengthLimit: 128
  labelValueLengthLimit: 1024
  keepDroppedTargets: 100
  scrapeProtocols: [PrometheusProto, OpenMetricsText1.0.0, PrometheusText0.0.4]
  fallbackScrapeProtocol: PrometheusText0.0.4
  scrapeNativeHistograms: false
  scrapeClassicHistograms: true
  nativeHistogramBucketLimit: 160
  nativeHistogramMinBucketFactor: "1.1"
  endpoints:
  - port: web
    scheme: HTTPS
    honorTimestamps: true
    trackTimestampsStaleness: true
    enableHttp2: false
    followRedirects: false
    tlsConfig:
      serverName: web.apps.svc
      minVersion: TLS12
      maxVersion: TLS13
    proxyUrl: http://proxy.internal:3128
    noProxy: 10.0.0.0/8,.cluster.local
    proxyConnectHeader:
      Proxy-Authorization:
      - {name: scrape-auth, key: proxy-auth}
    oauth2:
      clientId:
        secret: {name: scrape-auth, key: client-id}
      clientSecret: {name: scrape-auth, key: client-secret}
      tokenUrl: https://auth.example.com/token
      scopes: [metrics]
      endpointParams: {audience: scrape}
      proxyUrl: http://proxy.internal:3128
      noProxy: 10.0.0.0/8
      proxyConnectHeader:
        Proxy-Authorization:
        - {name: scrape-auth, key: proxy-auth}
      tlsConfig:
        ca:
          secret: {name: scrape-auth, key: ca.crt}
        serverName: auth.example.com
        minVersion: TLS12
        maxVersion: TLS13
  - port: env-proxy
    proxyFromEnvironment: true
    trackTimestampsStaleness: false
    authorization:
      type: Bearer
      credentials: {name: scrape-auth, key: token}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: classed, namespace: apps}
spec:
  scrapeClass: strict
  selector:
    matchLabels: {app: api}
  endpoints:
  - port: web
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: nhcb
  namespace: apps
  labels: {nhcb: "true"}
spec:
  selector:
    matchLabels: {app: histograms}
  convertClassicHistogramsToNHCB: true
  scrapeClassicHistograms: true
  endpoints:
  - port: web
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {name: every-field, namespace: apps}
spec:
  scrapeClass: strict
  selector:
    matchLabels: {app: worker}
  selectorMechanism: RoleSelector
  attachMetadata: {node: true}
  bodySizeLimit: 1GiB
  labelLimit: 30
  labelNameLengthLimit: 100
  labelValueLengthLimit: 500
  keepDroppedTargets: 10
  scrapeProtocols: [OpenMetricsText1.0.0, PrometheusText0.0.4]
  fallbackScrapeProtocol: PrometheusText0.0.4
  scrapeClassicHistograms: true
  nativeHistogramBucketLimit: 80
  podMetricsEndpoints:
  - portNumber: 9100
    trackTimestampsStaleness: true
    enableHttp2: false
    followRedirects: false
    noProxy: .cluster.local
    proxyUrl: http://proxy.internal:3128
    proxyConnectHeader:
      Proxy-Authorization:
      - {name: scrape-auth, key: proxy-auth}
  - port: metrics
    proxyFromEnvironment: true
    oauth2:
      clientId:
        configMap: {name: oauth-client, key: id}
      clientSecret: {name: scrape-auth, key: client-secret}
      tokenUrl: https://auth.example.com/token
      proxyFromEnvironment: true
      tlsConfig:
        insecureSkipVerify: true
        minVersion: TLS12
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: blackbox, namespace: apps}
spec:
  prober:
    url: blackbox-exporter.monitoring.svc:9115
    noProxy: .svc
    proxyUrl: http://proxy.internal:3128
    proxyConnectHeader:
      Proxy-Authorization:
      - {name: scrape-auth, key: proxy-auth}
  module: http_2xx
  targets:
    staticConfig:
      static: [https://example.com]
  authorization:
    credentials: {name: scrape-auth, key: token}
  tlsConfig:
    minVersion: TLS12
  scrapeClass: strict
  scrapeProtocols: [PrometheusText0.0.4]
  fallbackScrapeProtocol: PrometheusText0.0.4
  params:
  - {name: debug, values: ["true"]}
  keepDroppedTargets: 5
  enableHttp2: false
  followRedirects: false
  scrapeNativeHistograms: false
  scrapeClassicHistograms: true
  nativeHistogramBucketLimit: 10
  nativeHistogramMinBucketFactor: "1.5"
---
apiVersion: monitoring.coreos.com/v1alpha1
kind: ScrapeConfig
metadata: {name: several, namespace: apps}
spec:
  scrapeClass: strict
  jobName: several-discoveries
  staticConfigs:
  - targets: ['127.0.0.1:9']
    labels: {rack: r1}
  fileSDConfigs:
  - files: [/var/lib/grafana-agent/extra-secrets/mesh-tls/*.json]
    refreshInterval: 1m
  httpSDConfigs:
  - url: HTTP_SD_URL
    refreshInterval: 30s
  kubernetesSDConfigs:
  - role: Pod
    namespaces:
      names: [apps]
    attachMetadata: {node: true}
  scrapeProtocols: [OpenMetricsText1.0.0, PrometheusText0.0.4]
  bodySizeLimit: 5MB
  keepDroppedTargets: 20
  labelLimit: 50
  trackTimestampsStaleness: true
  enableHTTP2: false
  noProxy: 10.0.0.0/8
  proxyUrl: http://proxy.internal:3128
"#;

/// The Secrets and the ConfigMap the monitors and classes name; certificates are stand-ins the
/// agent and Alloy parse.
fn credentials() -> Vec<Value> {
    let secret = |namespace: &str, name: &str, data: Value| {
        json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": name, "namespace": namespace},
            "stringData": data,
        })
    };
    vec![
        secret(
            "monitoring",
            "mesh-tls",
            json!({"ca.crt": STAND_IN_CERT, "tls.crt": STAND_IN_CERT, "tls.key": STAND_IN_KEY}),
        ),
        secret(
            "monitoring",
            "class-token",
            json!({"token": "class-secret"}),
        ),
        secret(
            "apps",
            "scrape-auth",
            json!({
                "client-id": "agent",
                "client-secret": "s3cret",
                "proxy-auth": "Basic dXNlcjpwYXNz",
                "token": "t0ken",
                "ca.crt": STAND_IN_CERT,
            }),
        ),
        json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "oauth-client", "namespace": "apps"},
            "data": {"id": "worker-agent"},
        }),
    ]
}

/// Replaces our `monitoring.coreos.com` CRDs (which `Cluster::start` installed) with
/// prometheus-operator's, applied by its field manager as its own install leaves them.
fn install_prometheus_operator_crds(cluster: &Cluster) -> Vec<String> {
    let names: Vec<String> = COREOS_PLURALS
        .iter()
        .map(|plural| format!("{plural}.monitoring.coreos.com"))
        .collect();
    let mut delete = vec!["delete", "crd"];
    delete.extend(names.iter().map(String::as_str));
    cluster.kubectl(&delete);
    for plural in COREOS_PLURALS {
        let file = format!("{CRD_DIR}/monitoring.coreos.com_{plural}.yaml");
        cluster.kubectl(&[
            "apply",
            "--server-side",
            "--field-manager=prometheus-operator",
            "-f",
            &file,
        ]);
    }
    cluster.kubectl(&[
        "wait",
        "--for",
        "condition=Established",
        "crd",
        "--all",
        "--timeout",
        "60s",
    ]);
    for name in &names {
        let crd = cluster.get_json(&["crd", name]);
        assert_eq!(
            crd["metadata"]["annotations"]["operator.prometheus.io/version"], RELEASE,
            "{name} is not prometheus-operator's"
        );
    }
    names
}

/// Applies `objects` until the API server holds every field of each (it serves a new CRD's
/// schema a moment after creating it, and prunes what it does not know until then).
fn apply_whole(cluster: &Cluster, objects: &[Value]) {
    let list = json!({"apiVersion": "v1", "kind": "List", "items": objects});
    eventually(
        "the API server keeps every field of the monitors",
        Duration::from_secs(60),
        || {
            cluster.apply(&list.to_string());
            for object in objects {
                let kind = object["kind"].as_str().unwrap_or_default();
                let namespace = object["metadata"]["namespace"].as_str().unwrap_or_default();
                let name = object["metadata"]["name"].as_str().unwrap_or_default();
                let live = cluster.get_json(&[kind, "-n", namespace, name]);
                support::contains(&object["spec"], &live["spec"], "spec")
                    .map_err(|e| format!("{kind} {namespace}/{name}: {e}"))?;
            }
            Ok(())
        },
    );
}

/// A minimal HTTP service discovery endpoint on loopback: every request gets an empty target
/// list, so the HTTP discovery of the agent and of Alloy runs without an error.
fn serve_http_sd() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let address = listener.local_addr().expect("local address");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = Vec::new();
            let mut buffer = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buffer[..n]),
                }
            }
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]",
            );
        }
    });
    format!("http://{address}/sd")
}

/// Every object of a YAML stream, as JSON.
fn documents(text: &str) -> Vec<Value> {
    serde_saphyr::from_multiple::<Value>(text)
        .expect("the test's manifests are YAML")
        .into_iter()
        .filter(|d| !d.is_null())
        .collect()
}

/// The inputs: namespaces and agents, the instances, the credentials, the monitors.
fn inputs(http_sd_url: &str) -> (Vec<Value>, Vec<Value>) {
    let mut setup = documents(AGENTS);
    for (agent, extra) in [
        (
            "agent",
            "  serviceMonitorSelector:\n    matchExpressions: [{key: nhcb, operator: DoesNotExist}]\n",
        ),
        ("alloy-static", "  serviceMonitorSelector: {}\n"),
        ("alloy-native", "  serviceMonitorSelector: {}\n"),
    ] {
        let text = INSTANCE.replace("AGENT", agent).replace("EXTRA", extra);
        setup.extend(documents(&text));
    }
    setup.extend(credentials());
    let monitors = documents(&MONITORS.replace("HTTP_SD_URL", http_sd_url));
    (setup, monitors)
}

/// What one agent's status says once it has rendered every object it selects.
struct Rendered {
    agent: String,
    config: String,
}

/// Waits until `agent` has rendered the counts given, then reads its config.
fn rendered(cluster: &Cluster, agent: &str, counts: [i64; 4]) -> Rendered {
    eventually(
        &format!("GrafanaAgent monitoring/{agent} reconciled with its monitors"),
        Duration::from_secs(120),
        || {
            let live = cluster.get_json(&["grafanaagent", "-n", "monitoring", agent]);
            let status = &live["status"];
            let have = ["serviceMonitors", "podMonitors", "probes", "scrapeConfigs"]
                .map(|k| status[k].as_i64().unwrap_or_default());
            let reconciled = condition(&status["conditions"], "Reconciled")
                .is_some_and(|c| c["status"] == "True");
            if have == counts && reconciled {
                Ok(())
            } else {
                Err(format!("{status}"))
            }
        },
    );
    let config = eventually(
        &format!("the config Secret of {agent}"),
        Duration::from_secs(60),
        || match cluster.config_text("monitoring", &format!("{agent}-config")) {
            text if text.is_empty() => Err("not written yet".to_owned()),
            text => Ok(text),
        },
    );
    Rendered {
        agent: agent.to_owned(),
        config,
    }
}

fn condition(conditions: &Value, kind: &str) -> Option<Value> {
    conditions
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["type"] == kind)
        .cloned()
}

/// The scrape job `name` of the first metrics instance of a static config.
fn job<'a>(config: &'a Value, name: &str) -> &'a Value {
    config["metrics"]["configs"][0]["scrape_configs"]
        .as_array()
        .and_then(|jobs| jobs.iter().find(|j| j["job_name"] == name))
        .unwrap_or_else(|| panic!("no job {name} in {config}"))
}

/// Whether `job` relabels `target_label` to `replacement` (a scrape class's relabeling).
fn sets_label(job: &Value, target_label: &str, replacement: &str) -> bool {
    job["relabel_configs"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|r| r["target_label"] == target_label && r["replacement"] == replacement)
}

/// The `$(NAME)` references of shard 0 of a one-shard agent, as its config loader writes them.
fn shard_zero(text: &str) -> String {
    text.replace("$(SHARDS)", "1")
        .replace("$(SHARD)", "0")
        .replace("$(STATEFULSET_ORDINAL_NUMBER)", "0")
}

/// `job` of `config` holds every key of `common` and of the runtime's own expectations (keys
/// under other names, or only where the runtime takes them: the rest are warned about).
fn expect_job(
    config: &Value,
    name: &str,
    common: Value,
    agent: Value,
    alloy: Value,
    is_alloy: bool,
) {
    let job = job(config, name);
    let own = if is_alloy { alloy } else { agent };
    for expected in [common, own] {
        support::contains(&expected, job, name).unwrap_or_else(|e| panic!("{e}\n{job}"));
    }
}

/// The fields each new setting asks for, in a static config: the agent's (`is_alloy` false) or
/// the one Alloy converts, which takes the Prometheus 3 keys and the histogram conversion.
fn assert_static_config(config: &Value, is_alloy: bool) {
    let class_files = json!({
        "ca_file": "/var/lib/grafana-agent/extra-secrets/mesh-tls/ca.crt",
        "cert_file": "/var/lib/grafana-agent/extra-secrets/mesh-tls/tls.crt",
        "key_file": "/var/lib/grafana-agent/extra-secrets/mesh-tls/tls.key",
    });
    // The endpoint's own TLS settings beside its class's files.
    let mut endpoint_tls = class_files.clone();
    endpoint_tls["server_name"] = json!("web.apps.svc");
    endpoint_tls["min_version"] = json!("TLS12");
    expect_job(
        config,
        "serviceMonitor/apps/every-field/0",
        json!({
            "scheme": "https",
            "honor_timestamps": true,
            "enable_http2": false,
            "follow_redirects": false,
            "proxy_url": "http://proxy.internal:3128",
            "no_proxy": "10.0.0.0/8,.cluster.local",
            "proxy_connect_header": {"Proxy-Authorization": ["Basic dXNlcjpwYXNz"]},
            "body_size_limit": "10MB",
            "label_limit": 40,
            "label_name_length_limit": 128,
            "label_value_length_limit": 1024,
            "oauth2": {
                "client_id": "agent",
                "token_url": "https://auth.example.com/token",
                "scopes": ["metrics"],
                "endpoint_params": {"audience": "scrape"},
                "proxy_url": "http://proxy.internal:3128",
                "no_proxy": "10.0.0.0/8",
                "proxy_connect_header": {"Proxy-Authorization": ["Basic dXNlcjpwYXNz"]},
                "tls_config": {
                    "ca_file": "/var/lib/grafana-agent/secrets/_secrets_apps_scrape_auth_ca_crt",
                    "server_name": "auth.example.com",
                    "min_version": "TLS12",
                },
            },
            "tls_config": endpoint_tls,
        }),
        json!({
            "tls_config": {"max_version": "TLS13"},
            "oauth2": {"tls_config": {"max_version": "TLS13"}},
            "track_timestamps_staleness": true,
            "scrape_classic_histograms": true,
            "native_histogram_bucket_limit": 160,
            "keep_dropped_targets": 100,
        }),
        json!({
            "scrape_protocols": ["PrometheusProto", "OpenMetricsText1.0.0", "PrometheusText0.0.4"],
            "fallback_scrape_protocol": "PrometheusText0.0.4",
            "always_scrape_classic_histograms": true,
            "native_histogram_min_bucket_factor": 1.1,
        }),
        is_alloy,
    );
    let every = job(config, "serviceMonitor/apps/every-field/0");
    // Alloy has no highest TLS version (warned): none is written for it.
    if is_alloy {
        assert!(every["tls_config"].get("max_version").is_none(), "{every}");
        assert!(
            every["oauth2"]["tls_config"].get("max_version").is_none(),
            "{every}"
        );
    }
    let discovery = &every["kubernetes_sd_configs"][0];
    assert_eq!(discovery["role"], "endpointslice", "{every}");
    assert_eq!(discovery["attach_metadata"]["node"], true, "{every}");
    // RoleSelector: the label selector goes to the discovery, not to keep rules.
    assert_eq!(
        discovery["selectors"][0],
        json!({"role": "endpointslice", "label": "app=web,!canary"}),
        "{every}"
    );
    assert!(sets_label(every, "mesh", "istio"), "default class: {every}");
    assert!(
        every["metric_relabel_configs"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r["regex"] == "istio_debug_.*"),
        "{every}"
    );

    expect_job(
        config,
        "serviceMonitor/apps/every-field/1",
        json!({
            "proxy_from_environment": true,
            "authorization": {"type": "Bearer", "credentials": "t0ken"},
            "tls_config": class_files,
        }),
        json!({}),
        json!({}),
        is_alloy,
    );
    let second = job(config, "serviceMonitor/apps/every-field/1");
    assert!(
        second.get("track_timestamps_staleness").is_none(),
        "{second}"
    );

    expect_job(
        config,
        "serviceMonitor/apps/classed/0",
        json!({
            "authorization": {"type": "Bearer", "credentials": "class-secret"},
            "tls_config": {"ca_file": "/var/lib/grafana-agent/extra-secrets/mesh-tls/ca.crt"},
        }),
        json!({}),
        json!({}),
        is_alloy,
    );
    let classed = job(config, "serviceMonitor/apps/classed/0");
    assert!(sets_label(classed, "class", "strict"), "{classed}");
    assert!(!sets_label(classed, "mesh", "istio"), "{classed}");

    expect_job(
        config,
        "podMonitor/apps/every-field/0",
        json!({
            "enable_http2": false,
            "follow_redirects": false,
            "proxy_url": "http://proxy.internal:3128",
            "no_proxy": ".cluster.local",
            "proxy_connect_header": {"Proxy-Authorization": ["Basic dXNlcjpwYXNz"]},
            "body_size_limit": "1GiB",
            "label_limit": 30,
            "label_name_length_limit": 100,
            "label_value_length_limit": 500,
            "authorization": {"type": "Bearer", "credentials": "class-secret"},
        }),
        json!({
            "track_timestamps_staleness": true,
            "scrape_classic_histograms": true,
            "native_histogram_bucket_limit": 80,
            "keep_dropped_targets": 10,
        }),
        json!({
            "scrape_protocols": ["OpenMetricsText1.0.0", "PrometheusText0.0.4"],
            "fallback_scrape_protocol": "PrometheusText0.0.4",
            "always_scrape_classic_histograms": true,
        }),
        is_alloy,
    );
    let pods = job(config, "podMonitor/apps/every-field/0");
    assert!(sets_label(pods, "class", "strict"), "{pods}");
    assert_eq!(
        pods["kubernetes_sd_configs"][0]["selectors"][0],
        json!({"role": "pod", "label": "app=worker"}),
        "{pods}"
    );
    assert_eq!(
        pods["kubernetes_sd_configs"][0]["attach_metadata"]["node"],
        true
    );
    // portNumber: kept by the container port's number.
    assert!(
        pods["relabel_configs"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r["action"] == "keep" && r["regex"] == "9100"),
        "{pods}"
    );
    expect_job(
        config,
        "podMonitor/apps/every-field/1",
        json!({
            "proxy_from_environment": true,
            "oauth2": {
                "client_id": "worker-agent",
                "token_url": "https://auth.example.com/token",
                "proxy_from_environment": true,
                "tls_config": {"insecure_skip_verify": true, "min_version": "TLS12"},
            },
        }),
        json!({}),
        json!({}),
        is_alloy,
    );

    let several = job(config, "scrapeConfig/apps/several");
    for discovery in [
        "static_configs",
        "file_sd_configs",
        "http_sd_configs",
        "kubernetes_sd_configs",
    ] {
        assert!(several[discovery].is_array(), "{discovery}: {several}");
    }
    expect_job(
        config,
        "scrapeConfig/apps/several",
        json!({
            "enable_http2": false,
            "proxy_url": "http://proxy.internal:3128",
            "no_proxy": "10.0.0.0/8",
            "body_size_limit": "5MB",
            "label_limit": 50,
            "authorization": {"type": "Bearer", "credentials": "class-secret"},
            "tls_config": {"ca_file": "/var/lib/grafana-agent/extra-secrets/mesh-tls/ca.crt"},
            "kubernetes_sd_configs": [{"role": "pod", "attach_metadata": {"node": true}}],
        }),
        json!({"track_timestamps_staleness": true, "keep_dropped_targets": 20}),
        json!({"scrape_protocols": ["OpenMetricsText1.0.0", "PrometheusText0.0.4"]}),
        is_alloy,
    );
    assert!(sets_label(several, "class", "strict"), "{several}");
    assert!(
        sets_label(several, "job", "several-discoveries"),
        "{several}"
    );

    expect_job(
        config,
        "probe/apps/blackbox",
        json!({
            "authorization": {"type": "Bearer", "credentials": "t0ken"},
            // The class's CA where the Probe sets none, beside the Probe's own minVersion.
            "tls_config": {
                "ca_file": "/var/lib/grafana-agent/extra-secrets/mesh-tls/ca.crt",
                "min_version": "TLS12",
            },
            "params": {"module": ["http_2xx"], "debug": ["true"]},
            "proxy_url": "http://proxy.internal:3128",
            "no_proxy": ".svc",
            "proxy_connect_header": {"Proxy-Authorization": ["Basic dXNlcjpwYXNz"]},
            "enable_http2": false,
            "follow_redirects": false,
        }),
        json!({
            "scrape_classic_histograms": true,
            "native_histogram_bucket_limit": 10,
            "keep_dropped_targets": 5,
        }),
        json!({
            "scrape_protocols": ["PrometheusText0.0.4"],
            "fallback_scrape_protocol": "PrometheusText0.0.4",
            "always_scrape_classic_histograms": true,
            "native_histogram_min_bucket_factor": 1.5,
        }),
        is_alloy,
    );
    let probe = job(config, "probe/apps/blackbox");
    assert!(sets_label(probe, "class", "strict"), "{probe}");

    let nhcb = config["metrics"]["configs"][0]["scrape_configs"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|j| j["job_name"] == "serviceMonitor/apps/nhcb/0");
    match (is_alloy, nhcb) {
        (true, Some(job)) => {
            assert_eq!(job["convert_classic_histograms_to_nhcb"], true, "{job}");
        }
        (false, None) => {}
        (_, job) => panic!("the NHCB monitor, alloy {is_alloy}: {job:?}"),
    }
}

/// The Warning Events of namespace `apps`: (reason, kind/name, note).
fn warning_events(cluster: &Cluster) -> Vec<(String, String, String)> {
    let events = cluster.get_json(&["events.v1.events.k8s.io", "-n", "apps"]);
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    events["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["type"] == "Warning")
        .map(|e| {
            (
                text(&e["reason"]),
                format!(
                    "{}/{}",
                    text(&e["regarding"]["kind"]),
                    text(&e["regarding"]["name"])
                ),
                text(&e["note"]),
            )
        })
        .collect()
}

/// Every warning of the agents' and instance entries' conditions that names unknown fields,
/// with where it was found (a condition lists its warnings joined by `; `).
fn unknown_field_lines(cluster: &Cluster) -> Vec<String> {
    let mut out = Vec::new();
    let agents = cluster.get_json(&["grafanaagent", "-n", "monitoring"]);
    let instances = cluster.get_json(&["metricsinstance", "-n", "monitoring"]);
    let mut sources: Vec<(String, Value)> = Vec::new();
    for agent in agents["items"].as_array().into_iter().flatten() {
        let name = agent["metadata"]["name"].as_str().unwrap_or_default();
        sources.push((
            format!("GrafanaAgent {name}"),
            agent["status"]["conditions"].clone(),
        ));
    }
    for instance in instances["items"].as_array().into_iter().flatten() {
        let name = instance["metadata"]["name"].as_str().unwrap_or_default();
        for entry in instance["status"]["agents"]
            .as_array()
            .into_iter()
            .flatten()
        {
            sources.push((
                format!("MetricsInstance {name} entry {}", entry["agent"]),
                entry["conditions"].clone(),
            ));
        }
    }
    for (source, conditions) in sources {
        for c in conditions.as_array().into_iter().flatten() {
            let message = c["message"].as_str().unwrap_or_default();
            for line in message.split("; ").filter(|l| l.contains("unknown field")) {
                out.push(format!("{source}: {}", line.trim()));
            }
        }
    }
    out
}

fn explain(cluster: &Cluster, object: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_agent-operator"))
        .args(["explain", object])
        .env("KUBECONFIG", &cluster.kubeconfig)
        .current_dir(support::root())
        .output()
        .expect("run agent-operator explain");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `scripts/<script>`'s cached binary (`scripts/test.sh` builds it before the tests), or `$env`.
fn built_binary(env: &str, script: &str, binary: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(env) {
        return PathBuf::from(path);
    }
    let output = Command::new(support::root().join("scripts").join(script))
        .env("GO_BUILD_QUIET", "1")
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("scripts/{script}: {e}"));
    assert!(output.status.success(), "scripts/{script} failed");
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()).join(binary)
}

/// The pod's folder on the host: the Secrets it mounts, as their volumes lay them out.
fn pod_root(cluster: &Cluster, agent: &str, dir: &Path) -> PathBuf {
    let root = dir.join(agent);
    for (secret, under) in [
        (format!("{agent}-secrets"), "secrets".to_owned()),
        ("mesh-tls".to_owned(), "extra-secrets/mesh-tls".to_owned()),
    ] {
        let folder = root.join(under);
        std::fs::create_dir_all(&folder).expect("pod folder");
        let live = cluster.get_json(&["secret", "-n", "monitoring", &secret]);
        for (key, value) in live["data"].as_object().into_iter().flatten() {
            let bytes = support::decode_base64_bytes(value.as_str().unwrap_or_default());
            std::fs::write(folder.join(key), bytes).expect("pod file");
        }
    }
    std::fs::create_dir_all(root.join("data")).expect("data folder");
    root
}

/// `value` with the pod's paths under `root`, and this control plane's kubeconfig for every
/// Kubernetes discovery that names no API server.
fn on_host(value: &mut Value, root: &Path, kubeconfig: &Path) {
    match value {
        Value::String(text) => {
            if let Some(rest) = text.strip_prefix(POD_ROOT) {
                *text = root.join(rest).display().to_string();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| on_host(v, root, kubeconfig)),
        Value::Object(map) => {
            if let Some(Value::Array(discoveries)) = map.get_mut("kubernetes_sd_configs") {
                for discovery in discoveries {
                    if discovery.get("api_server").is_none() {
                        discovery["kubeconfig_file"] = json!(kubeconfig.display().to_string());
                    }
                }
            }
            map.values_mut().for_each(|v| on_host(v, root, kubeconfig));
        }
        _ => {}
    }
}

/// Runs `command` for `run_for`; its log (stdout and stderr) and whether it was still running.
fn run_for(mut command: Command, log: &Path, run_for: Duration) -> (String, bool) {
    let file = std::fs::File::create(log).expect("log file");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(file.try_clone().expect("log file"))
        .stderr(file)
        .spawn()
        .expect("spawn");
    let start = Instant::now();
    let running = loop {
        if child.try_wait().expect("wait").is_some() {
            break false;
        }
        if start.elapsed() >= run_for {
            break true;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = child.kill();
    let _ = child.wait();
    (std::fs::read_to_string(log).unwrap_or_default(), running)
}

/// `rendered`'s static config as shard 0's pod reads it, laid out on the host under its pod
/// folder: the file to run.
fn static_on_host(cluster: &Cluster, rendered: &Rendered, dir: &Path) -> PathBuf {
    let root = pod_root(cluster, &rendered.agent, dir);
    let mut config: Value =
        serde_saphyr::from_str(&shard_zero(&rendered.config)).expect("the config is YAML");
    on_host(&mut config, &root, &cluster.kubeconfig);
    let file = root.join("agent.yml");
    std::fs::write(
        &file,
        render::yaml::to_string(&config).expect("the config as YAML"),
    )
    .expect("agent.yml");
    file
}

/// The agent v0.44.8 runs `rendered`'s config as shard 0's pod would, for 5 seconds: it must
/// not exit, nor log an error.
fn agent_runs(cluster: &Cluster, rendered: &Rendered, dir: &Path) {
    let agent = built_binary("GRAFANA_AGENT_BIN", "build-grafana-agent", "grafana-agent");
    let file = static_on_host(cluster, rendered, dir);
    let root = file.parent().expect("the pod folder");
    let mut command = Command::new(agent);
    command
        .arg(format!("-config.file={}", file.display()))
        .args([
            "-config.expand-env=true",
            "-enable-features=integrations-next",
            "-server.http.address=127.0.0.1:0",
            "-server.grpc.address=127.0.0.1:0",
            "-disable-reporting",
        ])
        .current_dir(root);
    let (log, running) = run_for(command, &root.join("agent.log"), Duration::from_secs(5));
    let errors: Vec<&str> = log.lines().filter(|l| l.contains("level=error")).collect();
    assert!(
        running && errors.is_empty(),
        "the agent refused {} (running: {running}):\n{log}",
        file.display()
    );
}

/// Alloy v1.19.2 converts the static config for Alloy as the pods' `--config.format=static`
/// does, with no error.
fn alloy_converts(alloy: &Path, rendered: &Rendered, dir: &Path) -> String {
    let folder = dir.join(&rendered.agent);
    std::fs::create_dir_all(&folder).expect("scratch folder");
    let file = folder.join("agent.yml");
    std::fs::write(&file, shard_zero(&rendered.config)).expect("agent.yml");
    let report = folder.join("report.txt");
    let converted = folder.join("converted.alloy");
    let output = Command::new(alloy)
        .args(["convert", "--source-format=static"])
        .arg(format!(
            "--extra-args={}",
            render::workloads::pod_template::ALLOY_EXTRA_ARGS
        ))
        .arg("--report")
        .arg(&report)
        .arg("--output")
        .arg(&converted)
        .arg(&file)
        .output()
        .expect("alloy convert");
    let report = std::fs::read_to_string(&report).unwrap_or_default();
    assert!(
        output.status.success(),
        "alloy convert refused {}:\n{}{report}",
        file.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let refusals: Vec<&str> = report
        .lines()
        .filter(|l| l.starts_with("(Critical)") || l.starts_with("(Error)"))
        .collect();
    assert!(refusals.is_empty(), "{report}");
    std::fs::read_to_string(&converted).expect("the converted config")
}

/// `alloy fmt` leaves the native config as it is.
fn alloy_formats(alloy: &Path, text: &str) {
    let mut child = Command::new(alloy)
        .arg("fmt")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("alloy fmt");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write to alloy fmt");
    let output = child.wait_with_output().expect("alloy fmt");
    assert!(
        output.status.success(),
        "alloy fmt refused the native config:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    pretty_assertions::assert_eq!(String::from_utf8_lossy(&output.stdout), text);
}

fn ready(port: u16) -> bool {
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let request = format!("GET /-/ready HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n");
    let mut answer = String::new();
    stream.write_all(request.as_bytes()).is_ok()
        && stream.read_to_string(&mut answer).is_ok()
        && (answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200"))
}

/// `rendered`'s native config as shard 0's pod reads it, laid out on the host under its pod
/// folder (each `discovery.kubernetes` given this control plane's kubeconfig): the file to run.
fn native_on_host(cluster: &Cluster, rendered: &Rendered, dir: &Path) -> PathBuf {
    let root = pod_root(cluster, &rendered.agent, dir);
    let kubeconfig = format!("\tkubeconfig_file = \"{}\"", cluster.kubeconfig.display());
    let mut text = String::new();
    for line in shard_zero(&rendered.config).lines() {
        text.push_str(&line.replace(POD_ROOT, &format!("{}/", root.display())));
        text.push('\n');
        if line.starts_with("discovery.kubernetes \"") {
            text.push_str(&kubeconfig);
            text.push('\n');
        }
    }
    let file = root.join("config.alloy");
    std::fs::write(&file, text).expect("config.alloy");
    file
}

/// Alloy v1.19.2 runs `file` with the pods' `format` arguments until it reports ready, and
/// logs no error.
fn alloy_runs(alloy: &Path, file: &Path, format: &[&str]) {
    let root = file.parent().expect("the pod folder");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let log = root.join("alloy.log");
    let mut child = Command::new(alloy)
        .arg("run")
        .arg(file)
        .args(format)
        .arg(format!("--server.http.listen-addr=127.0.0.1:{port}"))
        .arg(format!("--storage.path={}", root.join("data").display()))
        .arg("--disable-reporting")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).expect("log"))
        .spawn()
        .expect("alloy run");
    let deadline = Instant::now() + Duration::from_secs(60);
    let outcome = loop {
        if ready(port) {
            // A moment more, for what a component logs after the first evaluation.
            std::thread::sleep(Duration::from_secs(2));
            break Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            break Err(format!("alloy exited ({status})"));
        }
        if Instant::now() > deadline {
            break Err("not ready within 60 s".to_owned());
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let _ = child.kill();
    let _ = child.wait();
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    let errors: Vec<&str> = log.lines().filter(|l| l.contains("level=error")).collect();
    assert!(
        outcome.is_ok() && errors.is_empty(),
        "alloy run {}: {outcome:?}\n{log}",
        file.display()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn monitors_for_prometheus_operator_v0_94_crds_render_and_load_on_both_runtimes() {
    if !testenv::backends().contains(&Backend::ControlPlane) {
        return;
    }
    let cluster = Cluster::start(Backend::ControlPlane, "prometheus-operator-crds").await;
    let crds = install_prometheus_operator_crds(&cluster);
    let http_sd = serve_http_sd();
    let (setup, monitors) = inputs(&http_sd);
    let list = json!({"apiVersion": "v1", "kind": "List", "items": setup});
    cluster.apply(&list.to_string());
    apply_whole(&cluster, &monitors);
    let operator = OperatorProcess::start(&cluster, "info", &[]);

    // [ServiceMonitors, PodMonitors, Probes, ScrapeConfigs] each agent renders.
    let agent = rendered(&cluster, "agent", [2, 1, 1, 1]);
    let alloy_static = rendered(&cluster, "alloy-static", [3, 1, 1, 1]);
    let alloy_native = rendered(&cluster, "alloy-native", [3, 1, 1, 1]);

    for (r, is_alloy) in [(&agent, false), (&alloy_static, true)] {
        let config: Value = serde_saphyr::from_str(&r.config).expect("a static config");
        assert_static_config(&config, is_alloy);
    }
    // What a runtime cannot apply is said, field by field, in a Warning Event on the monitor.
    for (reason, wanted) in [
        (
            "UnusedSetting",
            "ServiceMonitor apps/every-field: spec.scrapeProtocols: not used by the agent",
        ),
        (
            "UnusedSetting",
            "ServiceMonitor apps/every-field: spec.nativeHistogramMinBucketFactor: not used by the agent",
        ),
        (
            "AlloyDifference",
            "ServiceMonitor apps/every-field: spec.keepDroppedTargets: not used by Alloy",
        ),
        (
            "UnusedSetting",
            "Probe apps/blackbox: spec.scrapeProtocols: not used by the agent",
        ),
        (
            "AlloyDifference",
            "Probe apps/blackbox: spec.keepDroppedTargets: not used by Alloy",
        ),
        (
            "AlloyDifference",
            "PodMonitor apps/every-field: spec.podMetricsEndpoints[0].trackTimestampsStaleness: not used by Alloy",
        ),
    ] {
        eventually(wanted, Duration::from_secs(60), || {
            let events = warning_events(&cluster);
            if events
                .iter()
                .any(|(r, _, note)| r == reason && note.contains(wanted))
            {
                Ok(())
            } else {
                Err(format!("{events:#?}"))
            }
        });
    }

    // Native: the attributes as `alloy fmt` aligns them, compared with single spaces.
    let native = &alloy_native.config;
    let flat: String = native
        .split([' ', '\t'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    for wanted in [
        "role = \"endpointslice\"",
        "attach_metadata {\n node = true",
        "label = \"app=web,!canary\"",
        "scrape_protocols = [\"PrometheusProto\", \"OpenMetricsText1.0.0\", \"PrometheusText0.0.4\"]",
        "scrape_fallback_protocol = \"PrometheusText0.0.4\"",
        "scrape_classic_histograms = true",
        "convert_classic_histograms_to_nhcb = true",
        "body_size_limit = \"10MB\"",
        "label_limit = 40",
        "label_name_length_limit = 128",
        "label_value_length_limit = 1024",
        "no_proxy = \"10.0.0.0/8,.cluster.local\"",
        "\"Proxy-Authorization\" = [\"Basic dXNlcjpwYXNz\"]",
        "proxy_from_environment = true",
        "follow_redirects = false",
        "enable_http2 = false",
        "oauth2 {\n client_id = \"agent\"",
        "no_proxy = \"10.0.0.0/8\"",
        "server_name = \"auth.example.com\"\n min_version = \"TLS12\"",
        "server_name = \"web.apps.svc\"\n min_version = \"TLS12\"",
        "proxy_from_environment = true\n\n tls_config {\n insecure_skip_verify = true",
        "authorization {\n type = \"Bearer\"\n credentials = \"t0ken\"",
        "credentials = \"class-secret\"",
        "cert_file = \"/var/lib/grafana-agent/extra-secrets/mesh-tls/tls.crt\"",
        "replacement = \"istio\"",
        "regex = \"istio_debug_.*\"",
        "replacement = \"strict\"",
        // The ScrapeConfig: each discovery its component, their targets joined.
        "discovery.file \"metrics_monitoring_alloy_native_scrapeConfig_apps_several\"",
        "discovery.http \"metrics_monitoring_alloy_native_scrapeConfig_apps_several\"",
        "discovery.kubernetes \"metrics_monitoring_alloy_native_scrapeConfig_apps_several\"",
        "targets = array.concat(discovery.file.metrics_monitoring_alloy_native_scrapeConfig_apps_several.targets,",
        "rack = \"r1\"",
        "job_name = \"scrapeConfig/apps/several\"",
        "replacement = \"several-discoveries\"",
        // The Probe's parameters and histogram settings.
        "debug = [\"true\"]",
        "native_histogram_min_bucket_factor = 1.5",
    ] {
        assert!(flat.contains(wanted), "{wanted}:\n{native}");
    }

    // Our types read every field of v0.94's CRDs: no status or Event names one unknown. Every
    // agent has warnings (above), so its conditions are written by now.
    for agent in ["agent", "alloy-static", "alloy-native"] {
        eventually(
            &format!("the RuntimeDifferences condition of {agent}"),
            Duration::from_secs(60),
            || {
                let live = cluster.get_json(&["grafanaagent", "-n", "monitoring", agent]);
                condition(&live["status"]["conditions"], "RuntimeDifferences")
                    .map(drop)
                    .ok_or_else(|| format!("{}", live["status"]))
            },
        );
    }
    assert_eq!(unknown_field_lines(&cluster), Vec::<String>::new());
    let unknown: Vec<_> = warning_events(&cluster)
        .into_iter()
        .filter(|(reason, _, _)| reason == "UnknownField")
        .collect();
    assert!(unknown.is_empty(), "{unknown:#?}");
    for object in [
        "servicemonitor/apps/every-field",
        "podmonitor/apps/every-field",
        "probe/apps/blackbox",
        "scrapeconfig/apps/several",
    ] {
        let text = explain(&cluster, object);
        assert!(!text.contains("unknown field"), "{object}:\n{text}");
    }

    // Our CRDs for monitoring.coreos.com were not put back: prometheus-operator's stay.
    for name in &crds {
        let crd = cluster.get_json(&["crd", name]);
        assert_eq!(
            crd["metadata"]["annotations"]["operator.prometheus.io/version"],
            RELEASE
        );
    }

    // explain names the class each monitor took.
    for (object, class) in [
        ("servicemonitor/apps/every-field", "mesh"),
        ("servicemonitor/apps/classed", "strict"),
        ("podmonitor/apps/every-field", "strict"),
    ] {
        let text = explain(&cluster, object);
        assert!(
            text.contains(&format!("scrape class: {class}")),
            "{object}:\n{text}"
        );
    }

    // The real binaries load what was rendered.
    let dir = cluster.dir.join("runtimes");
    agent_runs(&cluster, &agent, &dir);
    let alloy = built_binary("ALLOY_BIN", "build-alloy", "alloy");
    let converted = alloy_converts(&alloy, &alloy_static, &dir);
    assert!(
        converted.contains("convert_classic_histograms_to_nhcb = true"),
        "{converted}"
    );
    let extra_args = format!(
        "--config.extra-args={}",
        render::workloads::pod_template::ALLOY_EXTRA_ARGS
    );
    alloy_runs(
        &alloy,
        &static_on_host(&cluster, &alloy_static, &dir),
        &["--config.format=static", &extra_args],
    );
    alloy_formats(&alloy, native);
    alloy_runs(&alloy, &native_on_host(&cluster, &alloy_native, &dir), &[]);

    let log = operator.stop();
    assert!(!log.contains("panicked"), "{log}");
}

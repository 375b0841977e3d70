//! A fuzz target over typed inputs: well-formed manifests (GrafanaAgent, instances, monitors,
//! PodLogs, Secrets, ConfigMaps) built from our api types, with extreme values: huge numbers,
//! long and odd strings (unicode, control characters, YAML-special words), deep selectors,
//! many entries. Each case must render without a panic, within a generous time (a hang
//! detector, not a performance test), to configs that parse as YAML and objects that
//! round-trip through the k8s-openapi types.
//!
//! A second property checks the fast manifest reader (`render::yaml::read_simple_document`)
//! against serde-saphyr: a document the fast reader accepts must read the same in both.
//!
//! `cargo test` runs a few deterministic cases. For a long run (see README, "Fuzzing"):
//! `FUZZ_CASES=20000 FUZZ_SEED=random cargo test --release -p agent-operator-render --test
//! fuzz_typed -- --nocapture`.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use api::grafana_agent::{
    GrafanaAgent, GrafanaAgentSpec, LogsSubsystemSpec, MetricsSubsystemSpec, ShardingStrategy,
};
use api::logs_instance::{LogsClientSpec, LogsInstance, LogsInstanceSpec, LogsTargetConfigSpec};
use api::metrics_instance::{MetricsInstance, MetricsInstanceSpec, QueueConfig, RemoteWriteSpec};
use api::monitors::{Endpoint, ScrapeEndpoint, ServiceMonitor, ServiceMonitorSpec};
use api::pod_logs::{PipelineStageSpec, PodLogs, PodLogsSpec, ReplaceStageSpec, TemplateStageSpec};
use api::prometheus::{BasicAuth, OAuth2, RelabelConfig};
use api::selectors::{ConfigMapKeySelector, SecretKeySelector, SecretOrConfigMap};
use k8s_openapi::ByteString;
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{ConfigMap, Secret, Service};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    LabelSelector, LabelSelectorRequirement, ObjectMeta,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};
use render::desired::{DesiredObject, PlanOptions};
use render::manifest::Loader;
use render::output::plan_all;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A case taking longer than this is taken for a hang: the largest legal inputs (1000 shards,
/// many monitors) render in well under a second in a debug build.
const HANG_LIMIT: Duration = Duration::from_secs(10);

const NAMESPACE: &str = "fuzz";

/// `object` in the fuzz namespace, named `name`, with `labels`.
macro_rules! with_meta {
    ($object:expr, $name:expr, $labels:expr) => {{
        let mut object = $object;
        object.metadata = meta($name, $labels);
        object
    }};
}

/// Cases to run: `FUZZ_CASES`, or a few for the normal test run.
fn cases(default: u32) -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A fixed seed, so `cargo test` is deterministic; `FUZZ_SEED=<n>` picks another and
/// `FUZZ_SEED=random` a fresh one (printed, to replay a failure).
fn runner(default_cases: u32) -> TestRunner {
    let seed = match std::env::var("FUZZ_SEED").ok().as_deref() {
        None => 0x5eed_a6e7,
        Some("random") => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            (now.as_nanos() as u64) ^ (u64::from(std::process::id()) << 32)
        }
        Some(n) => n.parse().expect("FUZZ_SEED is a number or `random`"),
    };
    eprintln!("fuzz seed {seed} (replay with FUZZ_SEED={seed})");
    let config = Config {
        cases: cases(default_cases),
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes(seed));
    TestRunner::new_with_rng(config, rng)
}

fn seed_bytes(seed: u64) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_mut(8) {
        chunk.copy_from_slice(&seed.to_le_bytes());
    }
    bytes
}

// ---- strings ----------------------------------------------------------------------------

/// Words other YAML readers type as something other than a string, YAML and Kubernetes
/// syntax, env-expansion syntax, and characters that need escaping.
const ODD_WORDS: &[&str] = &[
    "yes",
    "no",
    "on",
    "off",
    "y",
    "n",
    "true",
    "False",
    "~",
    "null",
    "Null",
    "0x1",
    "0o17",
    "0755",
    "1e3",
    "-1e3",
    ".5",
    "1_000",
    ".inf",
    "-.Inf",
    ".nan",
    "1:20",
    "2001-12-14",
    ":",
    "- a",
    "-",
    "--",
    "---",
    "...",
    "? x",
    "#",
    "a #b",
    "a: b",
    "{",
    "}",
    "[",
    "]",
    "{}",
    "[]",
    "*alias",
    "&anchor",
    "!tag",
    "!!str",
    "%YAML",
    "@",
    "`",
    "|",
    ">",
    "'",
    "\"",
    "\\",
    "$",
    "$(SHARD)",
    "${HOSTNAME}",
    "$$",
    "",
    " ",
    "  lead",
    "trail ",
    "\t",
    "a\tb",
    "a\nb",
    "a\r\nb",
    "\u{0}",
    "\u{7}",
    "\u{1b}[31m",
    "\u{7f}",
    "\u{85}",
    "\u{a0}",
    "\u{2028}",
    "\u{feff}x",
    "é",
    "日本語",
    "🙂",
    "\u{202e}abc",
    "a/b",
    "a.b",
    "a-b",
    "_",
    "__name__",
    "9",
    "-9",
    "9223372036854775808",
    "-0",
    "0",
    "+1",
    "NaN",
];

fn odd_string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(ODD_WORDS).prop_map(str::to_owned),
        2 => "[a-z][a-z0-9_]{0,12}",
        2 => any::<String>().prop_map(|s| s.chars().take(40).collect()),
        1 => (proptest::sample::select(ODD_WORDS), 1usize..3000)
            .prop_map(|(w, n)| w.repeat(n.min(20_000 / w.len().max(1)))),
        1 => (proptest::sample::select(ODD_WORDS), proptest::sample::select(ODD_WORDS))
            .prop_map(|(a, b)| format!("{a}{b}")),
    ]
}

fn opt<T: std::fmt::Debug + Clone + 'static>(
    s: impl Strategy<Value = T> + 'static,
) -> impl Strategy<Value = Option<T>> {
    proptest::option::weighted(0.5, s)
}

/// Durations: fine ones, ones each parser refuses, overflowing ones, odd strings.
fn duration() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(vec![
            "0", "30s", "1m", "1h30m", "500ms", "2w", "1.5h", "292y", "2562047h",
            "9223372036854775807ns",
        ]).prop_map(str::to_owned),
        2 => proptest::sample::select(vec![
            "94522879700260684295381836h", "293y", "9223372036854775808ns", "106752d",
            "-9223372036854775809ns", "99999999999999999999999999999999999999999y", "1d",
            "30", "1m1h", "-1s", ".s", "1..5s",
        ]).prop_map(str::to_owned),
        1 => (any::<u64>(), proptest::sample::select(vec!["ns", "us", "µs", "ms", "s", "m", "h", "d", "w", "y"]))
            .prop_map(|(n, u)| format!("{n}{u}")),
        1 => odd_string(),
    ]
}

fn label_map(max: usize) -> impl Strategy<Value = BTreeMap<String, String>> {
    proptest::collection::btree_map(odd_string(), odd_string(), 0..max)
}

fn selector() -> impl Strategy<Value = LabelSelector> {
    let requirement = (
        odd_string(),
        prop_oneof![
            Just("In".to_owned()),
            Just("NotIn".to_owned()),
            Just("Exists".to_owned()),
            Just("DoesNotExist".to_owned()),
            odd_string(),
        ],
        opt(proptest::collection::vec(odd_string(), 0..40)),
    )
        .prop_map(|(key, operator, values)| LabelSelectorRequirement {
            key,
            operator,
            values,
        });
    prop_oneof![
        // Most select everything, so that the objects below are rendered.
        3 => Just(LabelSelector::default()),
        1 => (
            opt(label_map(6)),
            opt(proptest::collection::vec(requirement, 0..30)),
        )
            .prop_map(|(match_labels, match_expressions)| LabelSelector {
                match_labels,
                match_expressions,
            }),
    ]
}

fn meta(name: &str, labels: Option<BTreeMap<String, String>>) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        namespace: Some(NAMESPACE.to_owned()),
        labels,
        ..ObjectMeta::default()
    }
}

/// A name the API server would accept, sometimes at the length limits.
fn object_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]([a-z0-9-]{0,10}[a-z0-9])?",
        1 => "[a-z]{40,63}",
    ]
}

fn secret_ref() -> impl Strategy<Value = SecretKeySelector> {
    (
        proptest::sample::select(vec!["creds", "absent", ""]),
        proptest::sample::select(vec!["user", "password", "token", "missing", "bin", ""]),
        opt(any::<bool>()),
    )
        .prop_map(|(name, key, optional)| SecretKeySelector {
            name: name.to_owned(),
            key: key.to_owned(),
            optional,
        })
}

fn config_map_ref() -> impl Strategy<Value = ConfigMapKeySelector> {
    (
        proptest::sample::select(vec!["settings", "absent"]),
        proptest::sample::select(vec!["client-id", "missing", "binary"]),
        opt(any::<bool>()),
    )
        .prop_map(|(name, key, optional)| ConfigMapKeySelector {
            name: name.to_owned(),
            key: key.to_owned(),
            optional,
        })
}

fn basic_auth() -> impl Strategy<Value = BasicAuth> {
    (opt(secret_ref()), opt(secret_ref()))
        .prop_map(|(username, password)| BasicAuth { username, password })
}

fn oauth2() -> impl Strategy<Value = OAuth2> {
    (
        opt(secret_ref()),
        opt(config_map_ref()),
        secret_ref(),
        prop_oneof![Just("https://idp/token".to_owned()), odd_string()],
        proptest::collection::vec(odd_string(), 0..3),
        label_map(3),
    )
        .prop_map(
            |(secret, config_map, client_secret, token_url, scopes, endpoint_params)| OAuth2 {
                client_id: SecretOrConfigMap { secret, config_map },
                client_secret,
                token_url,
                scopes,
                endpoint_params,
            },
        )
}

fn relabel_rule() -> impl Strategy<Value = RelabelConfig> {
    (
        proptest::collection::vec(odd_string(), 0..4),
        opt(odd_string()),
        opt(prop_oneof![
            Just("__path__".to_owned()),
            Just("${1}".to_owned()),
            odd_string()
        ]),
        opt(prop_oneof![
            Just("__meta_kubernetes_pod_label_(.+)".to_owned()),
            Just(".*".to_owned()),
            Just("(a|b".to_owned()),
            Just("\\d+".to_owned()),
            odd_string()
        ]),
        opt(any::<u64>()),
        opt(odd_string()),
        opt(prop_oneof![
            proptest::sample::select(vec![
                "replace",
                "keep",
                "drop",
                "hashmod",
                "labelmap",
                "Keep",
                "lowercase"
            ])
            .prop_map(str::to_owned),
            odd_string()
        ]),
    )
        .prop_map(
            |(source_labels, separator, target_label, regex, modulus, replacement, action)| {
                RelabelConfig {
                    source_labels,
                    separator,
                    target_label,
                    regex,
                    modulus,
                    replacement,
                    action: action.unwrap_or_else(|| "replace".to_owned()),
                }
            },
        )
}

fn remote_write() -> impl Strategy<Value = RemoteWriteSpec> {
    let queue = (
        opt(any::<i64>()),
        opt(any::<i64>()),
        opt(duration()),
        opt(duration()),
    )
        .prop_map(
            |(capacity, max_shards, batch_send_deadline, max_backoff)| QueueConfig {
                capacity,
                max_shards,
                batch_send_deadline,
                max_backoff,
                ..QueueConfig::default()
            },
        );
    (
        prop_oneof![Just("http://remote/push".to_owned()), odd_string()],
        opt(odd_string()),
        opt(duration()),
        label_map(3),
        proptest::collection::vec(relabel_rule(), 0..4),
        opt(basic_auth()),
        opt(oauth2()),
        opt(queue),
    )
        .prop_map(
            |(
                url,
                name,
                remote_timeout,
                headers,
                write_relabel_configs,
                basic_auth,
                oauth2,
                queue_config,
            )| {
                RemoteWriteSpec {
                    url,
                    name,
                    remote_timeout,
                    headers,
                    write_relabel_configs,
                    basic_auth,
                    oauth2,
                    queue_config,
                    ..RemoteWriteSpec::default()
                }
            },
        )
}

fn logs_client() -> impl Strategy<Value = LogsClientSpec> {
    (
        prop_oneof![Just("http://loki/push".to_owned()), odd_string()],
        opt(duration()),
        opt(duration()),
        label_map(4),
        opt(basic_auth()),
        opt(oauth2()),
        opt(odd_string()),
    )
        .prop_map(
            |(url, batch_wait, timeout, external_labels, basic_auth, oauth2, tenant_id)| {
                LogsClientSpec {
                    url,
                    batch_wait,
                    timeout,
                    external_labels,
                    basic_auth,
                    oauth2,
                    tenant_id,
                    ..LogsClientSpec::default()
                }
            },
        )
}

fn shard_count() -> impl Strategy<Value = Option<i32>> {
    opt(prop_oneof![
        4 => -3i32..5,
        1 => 990i32..=1000,
        1 => any::<i32>(),
    ])
}

fn agent() -> impl Strategy<Value = GrafanaAgent> {
    let metrics = (
        proptest::collection::vec(remote_write(), 0..3),
        shard_count(),
        shard_count(),
        opt(prop_oneof![
            Just(ShardingStrategy::Hashmod),
            Just(ShardingStrategy::Consistent)
        ]),
        opt(odd_string()),
        opt(odd_string()),
        opt(duration()),
        opt(duration()),
        label_map(5),
        opt(odd_string()),
        opt(any::<u64>()),
    )
        .prop_map(
            |(
                remote_write,
                shards,
                replicas,
                sharding_strategy,
                replica_external_label_name,
                metrics_external_label_name,
                scrape_interval,
                scrape_timeout,
                external_labels,
                enforced_namespace_label,
                enforced_sample_limit,
            )| MetricsSubsystemSpec {
                remote_write,
                shards,
                replicas,
                sharding_strategy,
                replica_external_label_name,
                metrics_external_label_name,
                scrape_interval,
                scrape_timeout,
                external_labels,
                enforced_namespace_label,
                enforced_sample_limit,
                instance_selector: Some(LabelSelector::default()),
                ..MetricsSubsystemSpec::default()
            },
        );
    let logs = (
        proptest::collection::vec(logs_client(), 0..3),
        opt(odd_string()),
    )
        .prop_map(|(clients, logs_external_label_name)| LogsSubsystemSpec {
            clients,
            logs_external_label_name,
            instance_selector: Some(LabelSelector::default()),
            ..LogsSubsystemSpec::default()
        });
    (
        object_name(),
        opt(metrics),
        opt(logs),
        label_map(4),
        opt(odd_string()),
    )
        .prop_map(|(name, metrics, logs, node_selector, version)| {
            let spec = GrafanaAgentSpec {
                metrics,
                logs,
                node_selector,
                version,
                ..GrafanaAgentSpec::default()
            };
            with_meta!(GrafanaAgent::new(&name, spec), &name, None)
        })
}

fn metrics_instance() -> impl Strategy<Value = MetricsInstance> {
    (
        object_name(),
        (
            opt(duration()),
            opt(duration()),
            opt(duration()),
            opt(duration()),
        ),
        opt(selector()),
        opt(selector()),
        proptest::collection::vec(remote_write(), 0..3),
        opt(secret_ref()),
    )
        .prop_map(
            |(
                name,
                (truncate, min, max, flush),
                sm_selector,
                sm_ns_selector,
                remote_write,
                additional,
            )| {
                let spec = MetricsInstanceSpec {
                    wal_truncate_frequency: truncate,
                    min_wal_time: min,
                    max_wal_time: max,
                    remote_flush_deadline: flush,
                    service_monitor_selector: sm_selector,
                    service_monitor_namespace_selector: sm_ns_selector,
                    remote_write,
                    additional_scrape_configs: additional,
                    ..MetricsInstanceSpec::default()
                };
                with_meta!(MetricsInstance::new(&name, spec), &name, None)
            },
        )
}

fn endpoint() -> impl Strategy<Value = Endpoint> {
    (
        opt(odd_string()),
        opt(odd_string()),
        opt(duration()),
        opt(duration()),
        opt(secret_ref()),
        opt(basic_auth()),
        proptest::collection::vec(relabel_rule(), 0..5),
        opt(proptest::collection::vec(relabel_rule(), 0..3)),
        proptest::collection::btree_map(
            odd_string(),
            proptest::collection::vec(odd_string(), 0..3),
            0..3,
        ),
    )
        .prop_map(
            |(
                port,
                path,
                interval,
                scrape_timeout,
                bearer_token_secret,
                basic_auth,
                relabelings,
                metric_relabelings,
                params,
            )| Endpoint {
                common: ScrapeEndpoint {
                    port,
                    path,
                    interval,
                    scrape_timeout,
                    bearer_token_secret,
                    basic_auth,
                    relabelings,
                    metric_relabelings,
                    params,
                    ..ScrapeEndpoint::default()
                },
                ..Endpoint::default()
            },
        )
}

fn service_monitor() -> impl Strategy<Value = ServiceMonitor> {
    (
        object_name(),
        opt(label_map(4)),
        selector(),
        proptest::collection::vec(endpoint(), 0..4),
        proptest::collection::vec(odd_string(), 0..3),
        opt(odd_string()),
        opt(any::<i64>()),
    )
        .prop_map(
            |(name, labels, selector, endpoints, target_labels, job_label, sample_limit)| {
                let spec = ServiceMonitorSpec {
                    selector,
                    endpoints,
                    target_labels,
                    job_label,
                    sample_limit,
                    ..ServiceMonitorSpec::default()
                };
                with_meta!(ServiceMonitor::new(&name, spec), &name, labels)
            },
        )
}

fn logs_instance() -> impl Strategy<Value = LogsInstance> {
    (
        object_name(),
        proptest::collection::vec(logs_client(), 0..3),
        opt(selector()),
        opt(duration()),
    )
        .prop_map(|(name, clients, pod_logs_selector, sync_period)| {
            let spec = LogsInstanceSpec {
                clients,
                pod_logs_selector,
                target_config: sync_period.map(|sync_period| LogsTargetConfigSpec {
                    sync_period: Some(sync_period),
                }),
                ..LogsInstanceSpec::default()
            };
            with_meta!(LogsInstance::new(&name, spec), &name, None)
        })
}

/// Go template text: pieces of actions (delimiters, trim markers, comments, quotes, pipes,
/// parentheses, keywords, variables, functions allowed, unknown and forbidden) in any order,
/// and odd strings.
fn go_template() -> impl Strategy<Value = String> {
    const PIECES: &[&str] = &[
        "{{", "}}", "{{- ", " -}}", "/*", "*/", "\"", "`", "'", "\\", "|", "(", ")", " ", "\n",
        ".Value", "$", "$x", ":=", "=", ",", "if", "else", "end", "range", "with", "define",
        "break", "env", "ToUpper", "printf", "nope", "1", "-2", "0x1F", "1e3", ".5", "é",
    ];
    prop_oneof![
        3 => proptest::collection::vec(proptest::sample::select(PIECES), 0..40)
            .prop_map(|pieces| pieces.concat()),
        1 => odd_string(),
    ]
}

fn template_stage() -> impl Strategy<Value = PipelineStageSpec> {
    (any::<bool>(), go_template()).prop_map(|(replace, text)| {
        if replace {
            PipelineStageSpec {
                replace: Some(ReplaceStageSpec {
                    expression: "(x)".to_owned(),
                    replace: Some(text),
                    source: None,
                }),
                ..Default::default()
            }
        } else {
            PipelineStageSpec {
                template: Some(TemplateStageSpec {
                    source: "msg".to_owned(),
                    template: text,
                }),
                ..Default::default()
            }
        }
    })
}

fn pod_logs() -> impl Strategy<Value = PodLogs> {
    (
        object_name(),
        selector(),
        proptest::collection::vec(relabel_rule(), 0..4),
        proptest::collection::vec(template_stage(), 0..3),
    )
        .prop_map(|(name, selector, relabelings, pipeline_stages)| {
            let spec = PodLogsSpec {
                selector,
                relabelings,
                pipeline_stages,
                ..PodLogsSpec::default()
            };
            with_meta!(PodLogs::new(&name, spec), &name, None)
        })
}

/// The Secrets and ConfigMaps the references above point at ("absent" never exists), with
/// odd values, bytes that are not UTF-8 among them.
fn secrets_and_config_maps() -> impl Strategy<Value = (Secret, ConfigMap)> {
    (
        proptest::collection::btree_map(
            proptest::sample::select(vec!["user", "password", "token", "bin"]),
            prop_oneof![
                odd_string().prop_map(String::into_bytes),
                proptest::collection::vec(any::<u8>(), 0..64)
            ],
            0..4,
        ),
        proptest::collection::btree_map(
            proptest::sample::select(vec!["client-id", "other"]),
            odd_string(),
            0..2,
        ),
        opt(proptest::collection::vec(any::<u8>(), 0..16)),
    )
        .prop_map(|(secret_data, config_data, binary)| {
            let secret = Secret {
                metadata: meta("creds", None),
                data: Some(
                    secret_data
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), ByteString(v)))
                        .collect(),
                ),
                ..Secret::default()
            };
            let config_map = ConfigMap {
                metadata: meta("settings", None),
                data: Some(
                    config_data
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect(),
                ),
                binary_data: binary.map(|b| BTreeMap::from([("binary".to_owned(), ByteString(b))])),
                ..ConfigMap::default()
            };
            (secret, config_map)
        })
}

/// One generated input: a manifest stream of typed objects.
#[derive(Debug, Clone)]
struct Manifests {
    documents: Vec<String>,
}

fn to_document<T: Serialize>(kind: &str, api_version: &str, object: &T) -> String {
    let mut value = serde_json::to_value(object).expect("typed objects serialize");
    if let Value::Object(map) = &mut value {
        map.insert("apiVersion".to_owned(), api_version.into());
        map.insert("kind".to_owned(), kind.into());
    }
    serde_saphyr::to_string(&value).expect("JSON values serialize as YAML")
}

fn manifests() -> impl Strategy<Value = Manifests> {
    (
        proptest::collection::vec(agent(), 1..3),
        proptest::collection::vec(metrics_instance(), 0..3),
        proptest::collection::vec(service_monitor(), 0..12),
        proptest::collection::vec(logs_instance(), 0..2),
        proptest::collection::vec(pod_logs(), 0..4),
        secrets_and_config_maps(),
    )
        .prop_map(
            |(agents, instances, monitors, logs, pod_logs, (secret, config_map))| {
                const GRAFANA: &str = "monitoring.grafana.com/v1alpha1";
                let mut documents = Vec::new();
                documents.extend(
                    agents
                        .iter()
                        .map(|o| to_document("GrafanaAgent", GRAFANA, o)),
                );
                documents.extend(
                    instances
                        .iter()
                        .map(|o| to_document("MetricsInstance", GRAFANA, o)),
                );
                documents.extend(
                    monitors
                        .iter()
                        .map(|o| to_document("ServiceMonitor", "monitoring.coreos.com/v1", o)),
                );
                documents.extend(logs.iter().map(|o| to_document("LogsInstance", GRAFANA, o)));
                documents.extend(pod_logs.iter().map(|o| to_document("PodLogs", GRAFANA, o)));
                documents.push(to_document("Secret", "v1", &secret));
                documents.push(to_document("ConfigMap", "v1", &config_map));
                Manifests { documents }
            },
        )
}

// ---- checks -----------------------------------------------------------------------------

/// `object` serialized, read back as `T` and serialized again gives the same JSON.
fn round_trips<T: Serialize + DeserializeOwned>(
    object: &T,
    what: &str,
) -> Result<(), TestCaseError> {
    let json = serde_json::to_value(object)
        .map_err(|e| TestCaseError::fail(format!("{what}: does not serialize: {e}")))?;
    let back: T = serde_json::from_value(json.clone())
        .map_err(|e| TestCaseError::fail(format!("{what}: does not read back: {e}")))?;
    let again = serde_json::to_value(&back)
        .map_err(|e| TestCaseError::fail(format!("{what}: does not serialize again: {e}")))?;
    prop_assert_eq!(json, again, "{} changes in a round trip", what);
    Ok(())
}

fn check_object(object: &DesiredObject) -> Result<(), TestCaseError> {
    let what = format!("{} {}", object.kind(), object.name());
    match object {
        DesiredObject::Secret(o) => round_trips::<Secret>(o, &what),
        DesiredObject::Service(o) => round_trips::<Service>(o, &what),
        DesiredObject::StatefulSet(o) => round_trips::<StatefulSet>(o, &what),
        DesiredObject::DaemonSet(o) => round_trips::<DaemonSet>(o, &what),
        DesiredObject::Deployment(o) => round_trips::<Deployment>(o, &what),
        DesiredObject::Role(o) => round_trips::<k8s_openapi::api::rbac::v1::Role>(o, &what),
        DesiredObject::RoleBinding(o) => {
            round_trips::<k8s_openapi::api::rbac::v1::RoleBinding>(o, &what)
        }
    }
}

fn render_case(input: &Manifests) -> Result<(), TestCaseError> {
    let text = input.documents.join("---\n");
    let start = Instant::now();
    let mut loader = Loader::new();
    loader.add_source("fuzz.yaml", &text);
    let loaded = loader.finish();
    let plans = plan_all(&loaded.store, &PlanOptions::default(), None);
    let elapsed = start.elapsed();
    prop_assert!(
        elapsed < HANG_LIMIT,
        "rendering took {:?} (limit {:?})",
        elapsed,
        HANG_LIMIT
    );
    for plan in &plans {
        for config in plan.configs.iter().filter(|c| !c.alloy_syntax) {
            if let Err(e) = serde_saphyr::from_str::<Value>(config.text.as_str()) {
                return Err(TestCaseError::fail(format!(
                    "{} of {} does not parse: {e}\n{}",
                    config.secret_name, plan.agent, config.text
                )));
            }
        }
        for object in &plan.objects {
            check_object(&object.object)?;
        }
        for rejection in &plan.rejections {
            prop_assert!(!rejection.message.is_empty(), "{}", rejection);
        }
    }
    Ok(())
}

fn report(result: Result<(), TestError<impl std::fmt::Debug>>) {
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, input)) => {
            panic!("fuzz case failed: {reason}\nminimal input: {input:#?}")
        }
        Err(TestError::Abort(reason)) => panic!("fuzz run aborted: {reason}"),
    }
}

/// Runs `f` on a thread with a 64 MiB stack. The typed manifests' strategy nests a proptest
/// value tree per field, dozens deep, each a large value on the stack: with the dependencies
/// optimized (the dev profile) their frames passed the test thread's 2 MiB.
fn on_a_large_stack(f: impl FnOnce() + Send) {
    std::thread::scope(|scope| {
        let joined = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn_scoped(scope, f)
            .expect("spawning the fuzz thread")
            .join();
        if let Err(panic) = joined {
            std::panic::resume_unwind(panic);
        }
    });
}

#[test]
fn typed_manifests_with_extreme_values_render_safely() {
    on_a_large_stack(|| {
        let mut runner = runner(24);
        let started = Instant::now();
        report(runner.run(&manifests(), |input| render_case(&input)));
        eprintln!("fuzz_typed: {} cases in {:?}", cases(24), started.elapsed());
    });
}

// ---- the fast manifest reader against serde-saphyr ---------------------------------------

/// A YAML tree written by hand in block style, with scalars written plain whenever they
/// have no line break: the fast reader must either refuse a document or read it exactly as
/// serde-saphyr does.
#[derive(Debug, Clone)]
enum Node {
    Scalar(String),
    Quoted(String),
    Map(Vec<(String, Node)>),
    List(Vec<Node>),
    Flow(Vec<String>),
}

fn node() -> impl Strategy<Value = Node> {
    let leaf = prop_oneof![
        4 => odd_string().prop_map(Node::Scalar),
        1 => odd_string().prop_map(Node::Quoted),
        1 => proptest::collection::vec(odd_string(), 0..4).prop_map(Node::Flow),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            proptest::collection::vec((odd_string(), inner.clone()), 0..6).prop_map(Node::Map),
            proptest::collection::vec(inner, 0..6).prop_map(Node::List),
        ]
    })
}

fn write_node(out: &mut String, node: &Node, indent: usize) {
    let pad = " ".repeat(indent);
    match node {
        Node::Map(entries) if !entries.is_empty() => {
            for (key, value) in entries {
                out.push_str(&format!("{pad}{}:", one_line(key)));
                write_child(out, value, indent);
            }
        }
        Node::List(items) if !items.is_empty() => {
            for item in items {
                out.push_str(&format!("{pad}-"));
                write_child(out, item, indent);
            }
        }
        other => {
            out.push_str(&pad);
            out.push_str(&inline(other));
            out.push('\n');
        }
    }
}

fn write_child(out: &mut String, node: &Node, indent: usize) {
    match node {
        Node::Map(e) if !e.is_empty() => {
            out.push('\n');
            write_node(out, node, indent + 2);
        }
        Node::List(i) if !i.is_empty() => {
            out.push('\n');
            write_node(out, node, indent + 2);
        }
        other => {
            out.push(' ');
            out.push_str(&inline(other));
            out.push('\n');
        }
    }
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

fn inline(node: &Node) -> String {
    match node {
        Node::Scalar(s) => one_line(s),
        Node::Quoted(s) => serde_json::to_string(s).unwrap_or_default(),
        Node::Flow(items) => format!(
            "[{}]",
            items
                .iter()
                .map(|s| one_line(s))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Node::Map(_) => "{}".to_owned(),
        Node::List(_) => "[]".to_owned(),
    }
}

fn reader_agrees(doc: &str) -> Result<(), TestCaseError> {
    if let Some(fast) = render::yaml::read_simple_document(doc) {
        match serde_saphyr::from_str::<Value>(doc) {
            Ok(full) => prop_assert_eq!(fast, full, "document:\n{}", doc),
            Err(e) => {
                return Err(TestCaseError::fail(format!(
                    "the fast reader accepts a document serde-saphyr refuses ({e}):\n{doc}"
                )));
            }
        }
    }
    Ok(())
}

#[test]
fn the_fast_manifest_reader_reads_what_serde_saphyr_reads() {
    let mut runner = runner(256);
    report(runner.run(&node(), |tree| {
        let mut doc = String::new();
        write_node(&mut doc, &tree, 0);
        reader_agrees(&doc)
    }));
}

#[test]
fn the_fast_manifest_reader_reads_generated_manifests_as_serde_saphyr_does() {
    on_a_large_stack(|| {
        let mut runner = runner(24);
        report(runner.run(&manifests(), |input| {
            for doc in &input.documents {
                reader_agrees(doc)?;
                // Our own emitter's text (quoting for YAML 1.1 readers) must read the same too.
                let value: Value = serde_saphyr::from_str(doc).map_err(|e| {
                    TestCaseError::fail(format!("generated YAML does not parse: {e}"))
                })?;
                let ours = render::yaml::to_string(&value)
                    .map_err(|e| TestCaseError::fail(format!("our emitter fails: {e}")))?;
                reader_agrees(&ours)?;
                let back: Value = serde_saphyr::from_str(&ours).map_err(|e| {
                    TestCaseError::fail(format!("our emitter's YAML does not parse: {e}\n{ours}"))
                })?;
                prop_assert_eq!(back, value, "our emitter changes the value:\n{}", ours);
            }
            Ok(())
        }));
    });
}

//! The integrations written natively: each one's component, label and settings, either a
//! table of flat settings (agent key, Alloy attribute, type and Alloy's default) or, for an
//! integration with nested or fixed settings, a typed module of its own ([`super::blackbox`],
//! [`super::elasticsearch`], [`super::mongodb`], [`super::snmp`]).

use serde_json::{Map, Value};

use crate::alloy_syntax::{Body, Expr};

use super::super::{duration, milliseconds, optional};
use super::Untranslated;

/// The type of a setting, with Alloy's default for it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Setting {
    /// A string, left out when it equals this default.
    Text(&'static str),
    /// A string Alloy requires: always written (`""` when unset), as the converter does.
    RequiredText,
    /// A boolean whose default, in the agent and in Alloy, is false.
    Flag,
    /// A boolean whose default, in the agent and in Alloy, is true: written when false.
    FlagOn,
    /// A duration (Go's, as the agent reads it), left out when it is this long (ms).
    Duration(u128),
    /// A whole number, left out when it equals this default.
    Int(i64),
    /// A list of strings, left out when empty.
    Strings,
}

/// How an integration's settings are read and written.
#[derive(Clone, Copy)]
pub(super) enum Settings {
    /// Flat settings: (the agent's key, Alloy's attribute, its type).
    Table(&'static [(&'static str, &'static str, Setting)]),
    /// Settings a module of the integration's own reads into its typed arguments: `keys` are
    /// the agent's keys it translates; `arguments` gives the exporter's body from the
    /// settings (without `instance`, `extra_labels`, `autoscrape` and nulls), or the
    /// setting it does not translate.
    Typed {
        keys: &'static [&'static str],
        arguments: fn(Map<String, Value>) -> Result<Body, Untranslated>,
    },
}

impl Settings {
    /// The agent's keys written natively.
    pub(super) fn keys(&self) -> Vec<&'static str> {
        match self {
            Settings::Table(settings) => settings.iter().map(|(k, _, _)| *k).collect(),
            Settings::Typed { keys, .. } => keys.to_vec(),
        }
    }
}

/// One integration as the converter writes it.
pub(super) struct Exporter {
    /// The integration's name in the agent (`spec.name`).
    pub(super) integration: &'static str,
    /// `prometheus.exporter.<component>`.
    pub(super) component: &'static str,
    /// The name the converter labels the exporter after when the config has no `instance`
    /// (the agent's v1 name of the integration: `mysqld_exporter` for `mysql`).
    pub(super) config_name: &'static str,
    /// Whether the exporter has an `instance` argument the agent's `instance` key sets too
    /// (kafka's, which labels its metrics): written from it, as the converter writes it.
    pub(super) instance_argument: bool,
    /// How its settings are read and written.
    pub(super) settings: Settings,
}

/// The integrations written natively, and the settings of each: read from Alloy v1.19.2's
/// converter (`staticconvert/internal/build/<name>_exporter.go`) and its components'
/// arguments and defaults; `alloy_native_integrations.rs` proves each against the converter.
pub(super) const EXPORTERS: &[Exporter] = &[
    Exporter {
        integration: "apache_http",
        component: "apache",
        config_name: "apache_http",
        instance_argument: false,
        settings: Settings::Table(&[
            (
                "scrape_uri",
                "scrape_uri",
                Setting::Text("http://localhost/server-status?auto"),
            ),
            ("host_override", "host_override", Setting::Text("")),
            ("insecure", "insecure", Setting::Flag),
        ]),
    },
    Exporter {
        integration: "blackbox",
        component: "blackbox",
        config_name: "blackbox",
        instance_argument: false,
        settings: super::blackbox::SETTINGS,
    },
    Exporter {
        integration: "cadvisor",
        component: "cadvisor",
        config_name: "cadvisor",
        instance_argument: false,
        // `resctrl_interval` (nanoseconds, a whole number in the agent) is not translated.
        settings: Settings::Table(&[
            (
                "store_container_labels",
                "store_container_labels",
                Setting::FlagOn,
            ),
            (
                "allowlisted_container_labels",
                "allowlisted_container_labels",
                Setting::Strings,
            ),
            (
                "env_metadata_allowlist",
                "env_metadata_allowlist",
                Setting::Strings,
            ),
            (
                "raw_cgroup_prefix_allowlist",
                "raw_cgroup_prefix_allowlist",
                Setting::Strings,
            ),
            (
                "perf_events_config",
                "perf_events_config",
                Setting::Text(""),
            ),
            ("disabled_metrics", "disabled_metrics", Setting::Strings),
            ("enabled_metrics", "enabled_metrics", Setting::Strings),
            (
                "storage_duration",
                "storage_duration",
                Setting::Duration(120_000),
            ),
            (
                "containerd",
                "containerd_host",
                Setting::Text("/run/containerd/containerd.sock"),
            ),
            (
                "containerd_namespace",
                "containerd_namespace",
                Setting::Text("k8s.io"),
            ),
            (
                "docker",
                "docker_host",
                Setting::Text("unix:///var/run/docker.sock"),
            ),
            ("docker_tls", "use_docker_tls", Setting::Flag),
            (
                "docker_tls_cert",
                "docker_tls_cert",
                Setting::Text("cert.pem"),
            ),
            ("docker_tls_key", "docker_tls_key", Setting::Text("key.pem")),
            ("docker_tls_ca", "docker_tls_ca", Setting::Text("ca.pem")),
            ("docker_only", "docker_only", Setting::Flag),
            (
                "disable_root_cgroup_stats",
                "disable_root_cgroup_stats",
                Setting::Flag,
            ),
        ]),
    },
    Exporter {
        integration: "consul",
        component: "consul",
        config_name: "consul_exporter",
        instance_argument: false,
        settings: Settings::Table(&[
            ("server", "server", Setting::Text("http://localhost:8500")),
            ("ca_file", "ca_file", Setting::Text("")),
            ("cert_file", "cert_file", Setting::Text("")),
            ("key_file", "key_file", Setting::Text("")),
            ("server_name", "server_name", Setting::Text("")),
            ("timeout", "timeout", Setting::Duration(500)),
            (
                "insecure_skip_verify",
                "insecure_skip_verify",
                Setting::Flag,
            ),
            (
                "concurrent_request_limit",
                "concurrent_request_limit",
                Setting::Int(0),
            ),
            ("allow_stale", "allow_stale", Setting::FlagOn),
            ("require_consistent", "require_consistent", Setting::Flag),
            ("kv_prefix", "kv_prefix", Setting::Text("")),
            ("kv_filter", "kv_filter", Setting::Text(".*")),
            (
                "generate_health_summary",
                "generate_health_summary",
                Setting::FlagOn,
            ),
        ]),
    },
    Exporter {
        integration: "dnsmasq",
        component: "dnsmasq",
        config_name: "dnsmasq_exporter",
        instance_argument: false,
        settings: Settings::Table(&[
            ("dnsmasq_address", "address", Setting::Text("localhost:53")),
            (
                "leases_path",
                "leases_file",
                Setting::Text("/var/lib/misc/dnsmasq.leases"),
            ),
            ("expose_leases", "expose_leases", Setting::Flag),
        ]),
    },
    Exporter {
        integration: "elasticsearch",
        component: "elasticsearch",
        config_name: "elasticsearch_exporter",
        instance_argument: false,
        settings: super::elasticsearch::SETTINGS,
    },
    Exporter {
        integration: "github",
        component: "github",
        config_name: "github_exporter",
        instance_argument: false,
        settings: Settings::Table(&[
            (
                "api_url",
                "api_url",
                Setting::Text("https://api.github.com"),
            ),
            ("repositories", "repositories", Setting::Strings),
            ("organizations", "organizations", Setting::Strings),
            ("users", "users", Setting::Strings),
            ("api_token", "api_token", Setting::Text("")),
            ("api_token_file", "api_token_file", Setting::Text("")),
        ]),
    },
    Exporter {
        integration: "kafka",
        component: "kafka",
        config_name: "kafka_exporter",
        instance_argument: true,
        // Every key is Alloy's attribute; `metadata_refresh_interval` is a string in both.
        settings: Settings::Table(&[
            ("kafka_uris", "kafka_uris", Setting::Strings),
            ("use_sasl", "use_sasl", Setting::Flag),
            ("use_sasl_handshake", "use_sasl_handshake", Setting::FlagOn),
            ("sasl_username", "sasl_username", Setting::Text("")),
            ("sasl_password", "sasl_password", Setting::Text("")),
            ("sasl_mechanism", "sasl_mechanism", Setting::Text("")),
            (
                "sasl_disable_pafx_fast",
                "sasl_disable_pafx_fast",
                Setting::Flag,
            ),
            ("use_tls", "use_tls", Setting::Flag),
            ("tls_server_name", "tls_server_name", Setting::Text("")),
            ("ca_file", "ca_file", Setting::Text("")),
            ("cert_file", "cert_file", Setting::Text("")),
            ("key_file", "key_file", Setting::Text("")),
            (
                "insecure_skip_verify",
                "insecure_skip_verify",
                Setting::Flag,
            ),
            ("kafka_version", "kafka_version", Setting::Text("2.0.0")),
            ("use_zookeeper_lag", "use_zookeeper_lag", Setting::Flag),
            ("zookeeper_uris", "zookeeper_uris", Setting::Strings),
            (
                "kafka_cluster_name",
                "kafka_cluster_name",
                Setting::Text(""),
            ),
            (
                "metadata_refresh_interval",
                "metadata_refresh_interval",
                Setting::Text("1m"),
            ),
            (
                "gssapi_service_name",
                "gssapi_service_name",
                Setting::Text(""),
            ),
            (
                "gssapi_kerberos_config_path",
                "gssapi_kerberos_config_path",
                Setting::Text(""),
            ),
            ("gssapi_realm", "gssapi_realm", Setting::Text("")),
            (
                "gssapi_key_tab_path",
                "gssapi_key_tab_path",
                Setting::Text(""),
            ),
            (
                "gssapi_kerberos_auth_type",
                "gssapi_kerberos_auth_type",
                Setting::Text(""),
            ),
            ("offset_show_all", "offset_show_all", Setting::FlagOn),
            ("topic_workers", "topic_workers", Setting::Int(100)),
            ("allow_concurrency", "allow_concurrency", Setting::FlagOn),
            (
                "allow_auto_topic_creation",
                "allow_auto_topic_creation",
                Setting::Flag,
            ),
            ("max_offsets", "max_offsets", Setting::Int(1000)),
            (
                "prune_interval_seconds",
                "prune_interval_seconds",
                Setting::Int(30),
            ),
            (
                "topics_filter_regex",
                "topics_filter_regex",
                Setting::Text(".*"),
            ),
            (
                "topics_exclude_regex",
                "topics_exclude_regex",
                Setting::Text("^$"),
            ),
            (
                "groups_filter_regex",
                "groups_filter_regex",
                Setting::Text(".*"),
            ),
            (
                "groups_exclude_regex",
                "groups_exclude_regex",
                Setting::Text("^$"),
            ),
        ]),
    },
    Exporter {
        integration: "memcached",
        component: "memcached",
        config_name: "memcached_exporter",
        instance_argument: false,
        settings: Settings::Table(&[(
            "memcached_address",
            "address",
            Setting::Text("localhost:11211"),
        )]),
    },
    Exporter {
        integration: "mongodb",
        component: "mongodb",
        config_name: "mongodb_exporter",
        instance_argument: false,
        settings: super::mongodb::SETTINGS,
    },
    Exporter {
        integration: "mysql",
        component: "mysql",
        config_name: "mysqld_exporter",
        instance_argument: false,
        settings: Settings::Table(&[("data_source_name", "data_source_name", Setting::Text(""))]),
    },
    Exporter {
        integration: "node_exporter",
        component: "unix",
        config_name: "node_exporter",
        instance_argument: false,
        settings: Settings::Table(&[
            (
                "include_exporter_metrics",
                "include_exporter_metrics",
                Setting::Flag,
            ),
            ("procfs_path", "procfs_path", Setting::Text("/proc")),
            ("sysfs_path", "sysfs_path", Setting::Text("/sys")),
            ("rootfs_path", "rootfs_path", Setting::Text("/")),
            (
                "udev_data_path",
                "udev_data_path",
                Setting::Text("/run/udev/data"),
            ),
        ]),
    },
    Exporter {
        integration: "postgres",
        component: "postgres",
        config_name: "postgres_exporter",
        instance_argument: false,
        settings: Settings::Table(&[
            ("data_source_names", "data_source_names", Setting::Strings),
            (
                "disable_settings_metrics",
                "disable_settings_metrics",
                Setting::Flag,
            ),
            (
                "disable_default_metrics",
                "disable_default_metrics",
                Setting::Flag,
            ),
            (
                "query_path",
                "custom_queries_config_path",
                Setting::Text(""),
            ),
        ]),
    },
    Exporter {
        integration: "process",
        component: "process",
        config_name: "process_exporter",
        instance_argument: false,
        settings: Settings::Table(&[("procfs_path", "procfs_path", Setting::Text("/proc"))]),
    },
    Exporter {
        integration: "redis",
        component: "redis",
        config_name: "redis_exporter",
        instance_argument: false,
        settings: Settings::Table(&[
            (
                "include_exporter_metrics",
                "include_exporter_metrics",
                Setting::Flag,
            ),
            ("redis_addr", "redis_addr", Setting::RequiredText),
            ("redis_user", "redis_user", Setting::Text("")),
            (
                "redis_password_file",
                "redis_password_file",
                Setting::Text(""),
            ),
            ("tls_ca_cert_file", "tls_ca_cert_file", Setting::Text("")),
            (
                "tls_client_cert_file",
                "tls_client_cert_file",
                Setting::Text(""),
            ),
            (
                "tls_client_key_file",
                "tls_client_key_file",
                Setting::Text(""),
            ),
        ]),
    },
    Exporter {
        integration: "snmp",
        component: "snmp",
        config_name: "snmp",
        instance_argument: false,
        settings: super::snmp::SETTINGS,
    },
    Exporter {
        integration: "statsd",
        component: "statsd",
        config_name: "statsd_exporter",
        instance_argument: false,
        settings: Settings::Table(&[]),
    },
];

/// Why `value` is not of `setting`'s type, if it is not.
pub(super) fn mistyped(setting: Setting, value: &Value) -> Option<String> {
    match setting {
        Setting::Flag | Setting::FlagOn => {
            (!value.is_boolean()).then(|| "is not a boolean".to_owned())
        }
        Setting::Duration(_) => (value.as_str().and_then(milliseconds).is_none())
            .then(|| "is not a duration".to_owned()),
        Setting::Int(_) => (!value.is_i64()).then(|| "is not a whole number".to_owned()),
        Setting::Strings => match value.as_array() {
            Some(items) if items.is_empty() => {
                Some("is an empty list, which the native writer does not translate yet".to_owned())
            }
            Some(items) if items.iter().all(Value::is_string) => None,
            _ => Some("is not a list of strings".to_owned()),
        },
        Setting::Text(_) | Setting::RequiredText => {
            (!value.is_string()).then(|| "is not a string".to_owned())
        }
    }
}

/// The exporter's body from the flat `settings` of `config`, each left out at Alloy's
/// default as the converter leaves it.
pub(super) fn table_arguments(
    settings: &[(&'static str, &'static str, Setting)],
    config: &Value,
) -> Body {
    let mut body = Body::default();
    for (key, attribute, setting) in settings {
        let value = config.get(key).filter(|v| !v.is_null());
        let expr = match setting {
            Setting::Flag => value
                .and_then(Value::as_bool)
                .filter(|b| *b)
                .map(Expr::Bool),
            Setting::FlagOn => value
                .and_then(Value::as_bool)
                .filter(|b| !*b)
                .map(Expr::Bool),
            Setting::Duration(default) => value
                .and_then(Value::as_str)
                .filter(|d| milliseconds(d) != Some(*default))
                .map(duration),
            Setting::Int(default) => value
                .and_then(Value::as_i64)
                .filter(|n| n != default)
                .map(Expr::Int),
            Setting::Strings => value
                .and_then(Value::as_array)
                .map(|items| Expr::strings(items.iter().filter_map(Value::as_str))),
            Setting::Text(default) => value
                .and_then(Value::as_str)
                .filter(|s| s != default)
                .map(Expr::string),
            Setting::RequiredText => Some(Expr::string(
                value.and_then(Value::as_str).unwrap_or_default(),
            )),
        };
        optional(&mut body, attribute, expr);
    }
    body
}

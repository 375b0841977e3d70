//! What the agent identifies an integration by. In integrations-next mode the agent names each
//! integration of a kind by an identifier (`spec.config.instance`, or one the integration derives
//! from its settings: a server's address, the agent's own host name) and refuses the whole
//! integrations config when it cannot derive one ("could not build identifier for integration
//! \"kafka\"") or when two integrations of a kind share one ("multiple instance names
//! \"m:11211\" in integration \"memcached\""), stopping every integration of the agent. One
//! tenant's Integration must not do that, so the operator rejects the one Integration instead.
//!
//! Only identifiers the operator can tell for certain are worked out (grafana-agent v0.44.8's
//! `InstanceKey` of each kind, with its defaults); for the rest, two Integrations of a kind with
//! equal configs are the one certain collision.

use serde_json::{Map, Value};

use crate::config::common::FieldError;

/// The identifier of an Integration's config, as far as it can be known here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// The agent names the integration this.
    Known(String),
    /// The agent derives it from something the operator does not follow (a DSN, a hash of the
    /// config, a URL of an unusual shape, the host name): only an equal config collides.
    Unknown,
}

/// The settings whose value (or default) is the identifier, by integration: `(integration,
/// setting, default, how)`.
const FROM_SETTING: &[(&str, &str, Option<&str>, Derive)] = &[
    (
        "memcached",
        "memcached_address",
        Some("localhost:11211"),
        Derive::Value,
    ),
    (
        "dnsmasq",
        "dnsmasq_address",
        Some("localhost:53"),
        Derive::Value,
    ),
    ("squid", "address", None, Derive::Value),
    ("redis", "redis_addr", None, Derive::Value),
    ("snowflake", "account_name", None, Derive::Value),
    (
        "elasticsearch",
        "address",
        Some("http://localhost:9200"),
        Derive::UrlHost,
    ),
    (
        "github",
        "api_url",
        Some("https://api.github.com"),
        Derive::UrlHost,
    ),
    (
        "consul",
        "server",
        Some("http://localhost:8500"),
        Derive::UrlHost,
    ),
    (
        "apache_http",
        "scrape_uri",
        Some("http://localhost/server-status?auto"),
        Derive::UrlHost,
    ),
    ("mongodb", "mongodb_uri", None, Derive::UrlHost),
    ("mssql", "connection_string", None, Derive::UrlHost),
];

#[derive(Debug, Clone, Copy)]
enum Derive {
    /// The setting's text.
    Value,
    /// The host (and port) of the URL the setting holds: Go's `url.Parse(..).Host`.
    UrlHost,
}

/// The identifier the agent gives integration `name` of `config`, or why the agent cannot give
/// one (it would refuse the whole integrations config).
pub fn identity(name: &str, config: &Map<String, Value>) -> Result<Identity, FieldError> {
    if let Some(instance) = config.get("instance") {
        return Ok(instance
            .as_str()
            .map_or(Identity::Unknown, |i| Identity::Known(i.to_owned())));
    }
    match name {
        "kafka" => {
            let uris = strings(config.get("kafka_uris"));
            match uris.as_deref() {
                Some([one]) => Ok(Identity::Known(one.clone())),
                Some(many) if many.len() > 1 => Err(kafka_needs_instance(many.len())),
                _ => Ok(Identity::Unknown),
            }
        }
        "postgres" => match strings(config.get("data_source_names")) {
            Some(dsns) if dsns.len() > 1 => Err(FieldError::new(
                "spec.config.instance",
                format!(
                    "the agent names a postgres integration after its one data source name, and this one has {} and no instance (\"can't automatically determine a value for `instance` with {} DSN\"): it would refuse the whole integrations config, stopping every integration of this agent; set spec.config.instance",
                    dsns.len(),
                    dsns.len()
                ),
            )),
            _ => Ok(Identity::Unknown),
        },
        _ => Ok(from_setting(name, config)),
    }
}

/// Kafka with more than one server and no instance: the agent's `InstanceKey` error, which
/// Alloy's `prometheus.exporter.kafka` repeats when it validates its arguments.
pub fn kafka_needs_instance(servers: usize) -> FieldError {
    FieldError::new(
        "spec.config.instance",
        format!(
            "{servers} kafka_uris and no instance: the agent and Alloy name a kafka integration after its one server and refuse this one (\"an automatic value for `instance` cannot be determined from {servers} kafka servers\") with the whole integrations config, stopping every integration of this agent; set spec.config.instance"
        ),
    )
}

fn from_setting(name: &str, config: &Map<String, Value>) -> Identity {
    let Some((_, setting, default, derive)) = FROM_SETTING.iter().find(|(n, ..)| *n == name) else {
        return Identity::Unknown;
    };
    let value = match config.get(*setting) {
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Identity::Unknown,
        None => match default {
            Some(d) => d,
            None => return Identity::Unknown,
        },
    };
    match derive {
        Derive::Value => Identity::Known(value.to_owned()),
        Derive::UrlHost => url_host(value).map_or(Identity::Unknown, Identity::Known),
    }
}

fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    value?
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// The host of `scheme://[userinfo@]host[:port][/path][?query][#fragment]` as Go's
/// `url.Parse` gives it, for the plain shapes only: `None` for anything whose parse could go
/// another way (no scheme, characters Go escapes or refuses, a port that is not a number).
fn url_host(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let mut scheme_chars = scheme.chars();
    if !scheme_chars.next()?.is_ascii_alphabetic()
        || !scheme_chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let valid = userinfo
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=".contains(c));
            if !valid {
                return None;
            }
            host
        }
        None => authority,
    };
    let (name, port) = match host.rsplit_once(':') {
        Some((name, port)) => (name, Some(port)),
        None => (host, None),
    };
    let plain_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c));
    let plain_port = port.is_none_or(|p| p.chars().all(|c| c.is_ascii_digit()));
    (plain_name && plain_port).then(|| host.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(name: &str, config: Value) -> Result<Identity, FieldError> {
        identity(name, config.as_object().expect("a map"))
    }

    fn known(s: &str) -> Result<Identity, FieldError> {
        Ok(Identity::Known(s.to_owned()))
    }

    #[test]
    fn an_instance_names_the_integration_whatever_else_it_says() {
        assert_eq!(
            of(
                "kafka",
                json!({"instance": "k", "kafka_uris": ["a:1", "b:2"]})
            ),
            known("k")
        );
        assert_eq!(of("memcached", json!({"instance": ""})), known(""));
        assert_eq!(
            of("memcached", json!({"instance": 5})),
            Ok(Identity::Unknown)
        );
    }

    #[test]
    fn kafka_is_named_after_its_one_server_and_cannot_be_named_after_two() {
        assert_eq!(
            of("kafka", json!({"kafka_uris": ["a:9092"]})),
            known("a:9092")
        );
        let e = of("kafka", json!({"kafka_uris": ["a:9092", "b:9092"]})).unwrap_err();
        assert_eq!(e.field, "spec.config.instance");
        assert!(e.message.contains("2 kafka servers"), "{e}");
        assert_eq!(of("kafka", json!({})), Ok(Identity::Unknown));
    }

    #[test]
    fn postgres_with_two_data_sources_needs_an_instance() {
        let e = of(
            "postgres",
            json!({"data_source_names": ["postgres://a/x", "postgres://b/y"]}),
        )
        .unwrap_err();
        assert!(e.message.contains("has 2"), "{e}");
        assert_eq!(
            of("postgres", json!({"data_source_names": ["postgres://a/x"]})),
            Ok(Identity::Unknown)
        );
    }

    #[test]
    fn addresses_and_their_defaults_name_the_integration() {
        assert_eq!(of("memcached", json!({})), known("localhost:11211"));
        assert_eq!(
            of("memcached", json!({"memcached_address": "m:1"})),
            known("m:1")
        );
        assert_eq!(
            of("redis", json!({"redis_addr": "r:6379"})),
            known("r:6379")
        );
        assert_eq!(of("redis", json!({})), Ok(Identity::Unknown));
        assert_eq!(of("elasticsearch", json!({})), known("localhost:9200"));
        assert_eq!(of("github", json!({})), known("api.github.com"));
        assert_eq!(
            of(
                "mongodb",
                json!({"mongodb_uri": "mongodb://u:p@db.ns:27017/admin?x=1"})
            ),
            known("db.ns:27017")
        );
        assert_eq!(of("node_exporter", json!({})), Ok(Identity::Unknown));
        assert_eq!(
            of("mysql", json!({"data_source_name": "u@tcp(h:3306)/"})),
            Ok(Identity::Unknown)
        );
    }

    #[test]
    fn urls_of_other_shapes_are_not_guessed() {
        for url in [
            "localhost:9200",
            "http://[::1]:9200",
            "http://u%zz@h:1",
            "http://h:port",
            "http://h h:1",
            "1http://h",
            "http://",
        ] {
            assert_eq!(url_host(url), None, "{url}");
        }
        assert_eq!(
            url_host("https://h.example:443/p?q#f").as_deref(),
            Some("h.example:443")
        );
        assert_eq!(url_host("http://user:pa$$@h").as_deref(), Some("h"));
    }
}

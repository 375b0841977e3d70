//! The elasticsearch integration as `prometheus.exporter.elasticsearch`: the agent's settings
//! (v0.44's `elasticsearch_exporter.Config`) under the attribute names and defaults of
//! Alloy v1.19.2's component, as its converter (`build/elasticsearch_exporter.go`) maps
//! them; `basic_auth` as the component's block, its inline password in Alloy's secret-typed
//! `password` (the config is a Secret, as the static one is).

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::alloy_syntax::Body;

use super::super::block;
use super::Untranslated;
use super::arguments::{GoDuration, flag, go_duration, read, text};
use super::exporters::Settings;

pub(super) const SETTINGS: Settings = Settings::Typed {
    keys: &[
        "address",
        "timeout",
        "all",
        "node",
        "indices",
        "indices_settings",
        "cluster_settings",
        "shards",
        "aliases",
        "snapshots",
        "clusterinfo_interval",
        "ca",
        "client_private_key",
        "client_cert",
        "ssl_skip_verify",
        "data_stream",
        "slm",
        "basic_auth",
    ],
    arguments,
};

/// The agent's settings; `None` is unset (the agent's default, which is Alloy's).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Elasticsearch {
    address: Option<String>,
    timeout: Option<GoDuration>,
    all: Option<bool>,
    node: Option<String>,
    indices: Option<bool>,
    indices_settings: Option<bool>,
    cluster_settings: Option<bool>,
    shards: Option<bool>,
    aliases: Option<bool>,
    snapshots: Option<bool>,
    clusterinfo_interval: Option<GoDuration>,
    ca: Option<String>,
    client_private_key: Option<String>,
    client_cert: Option<String>,
    ssl_skip_verify: Option<bool>,
    data_stream: Option<bool>,
    slm: Option<bool>,
    basic_auth: Option<BasicAuth>,
}

/// Prometheus' basic auth as far as Alloy's `basic_auth` block has it: `username_file`, which
/// the converter drops, is not read (an unknown field keeps the Integration static).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BasicAuth {
    username: Option<String>,
    password: Option<String>,
    password_file: Option<String>,
}

fn arguments(settings: Map<String, Value>) -> Result<Body, Untranslated> {
    let es: Elasticsearch = read(settings)?;
    let mut body = Body::default();
    text(&mut body, "address", &es.address, "http://localhost:9200");
    go_duration(&mut body, "timeout", &es.timeout, 5_000);
    flag(&mut body, "all", es.all, false);
    text(&mut body, "node", &es.node, "_local");
    flag(&mut body, "indices", es.indices, false);
    flag(&mut body, "indices_settings", es.indices_settings, false);
    flag(&mut body, "cluster_settings", es.cluster_settings, false);
    flag(&mut body, "shards", es.shards, false);
    flag(&mut body, "aliases", es.aliases, true);
    flag(&mut body, "snapshots", es.snapshots, false);
    go_duration(
        &mut body,
        "clusterinfo_interval",
        &es.clusterinfo_interval,
        300_000,
    );
    text(&mut body, "ca", &es.ca, "");
    text(&mut body, "client_private_key", &es.client_private_key, "");
    text(&mut body, "client_cert", &es.client_cert, "");
    flag(&mut body, "ssl_skip_verify", es.ssl_skip_verify, false);
    flag(&mut body, "data_stream", es.data_stream, false);
    flag(&mut body, "slm", es.slm, false);
    if let Some(auth) = es.basic_auth {
        // The converter writes the block whenever the agent's is set, even empty.
        let mut b = block("basic_auth");
        text(&mut b.body, "username", &auth.username, "");
        text(&mut b.body, "password", &auth.password, "");
        text(&mut b.body, "password_file", &auth.password_file, "");
        body.block(b);
    }
    Ok(body)
}

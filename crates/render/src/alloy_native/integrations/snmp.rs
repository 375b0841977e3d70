//! The snmp integration as `prometheus.exporter.snmp`: the agent's settings (v0.44's
//! integrations-next `snmp_exporter_v2.Config`, which the pods run) under the arguments of
//! Alloy v1.19.2's component, as its converter (`build/snmp_exporter.go`) maps them:
//! `config_file`, the targets as a list of objects with every key (empty when unset), and each
//! of `walk_params` as a `walk_param "<name>"` block (by name: the converter writes them in Go's
//! map order, which varies), its zero settings left out as the converter leaves them.
//!
//! Where the converter drops a setting Alloy has: `snmp_config`, the inline modules and auths
//! (community strings, SNMPv3 passwords), becomes the `config` string (JSON, a YAML document
//! Alloy reads into the same snmp_exporter types), unless `config_file` is set, which the
//! agent then reads instead (Alloy refuses both at once). With the converter the pods' Alloy
//! runs without them, on the embedded modules.
//!
//! Not translated: a walk_params name Alloy cannot label a block with (not an identifier), and
//! `allow_nonincreasing_oids`, which Alloy's `walk_param` does not have.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::alloy_syntax::{Block, Body, Expr, Identifier};

use super::super::{known, optional};
use super::Untranslated;
use super::arguments::{GoDuration, flag, go_duration, read, text};
use super::exporters::Settings;

pub(super) const SETTINGS: Settings = Settings::Typed {
    keys: &["config_file", "snmp_config", "snmp_targets", "walk_params"],
    arguments,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Snmp {
    config_file: Option<String>,
    snmp_config: Option<Map<String, Value>>,
    snmp_targets: Option<Vec<Target>>,
    walk_params: Option<BTreeMap<String, WalkParams>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Target {
    name: Option<String>,
    address: Option<String>,
    module: Option<String>,
    auth: Option<String>,
    walk_params: Option<String>,
    snmp_context: Option<String>,
}

/// snmp_exporter's `WalkParams` as the agent reads them, less `allow_nonincreasing_oids`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WalkParams {
    max_repetitions: Option<u32>,
    retries: Option<i64>,
    timeout: Option<GoDuration>,
    use_unconnected_udp_socket: Option<bool>,
}

fn arguments(settings: Map<String, Value>) -> Result<Body, Untranslated> {
    let snmp: Snmp = read(settings)?;
    let mut body = Body::default();
    text(&mut body, "config_file", &snmp.config_file, "");
    let file_set = snmp.config_file.as_deref().is_some_and(|f| !f.is_empty());
    if !file_set {
        // serde_json writes every map; the document is a JSON object, which is YAML.
        let inline = snmp.snmp_config.map(|c| Value::Object(c).to_string());
        optional(&mut body, "config", inline.map(Expr::string));
    }
    if let Some(targets) = snmp.snmp_targets.filter(|t| !t.is_empty()) {
        // Every key of every target, empty when unset, as the converter writes them.
        let objects = targets.into_iter().map(|t| {
            let key =
                |k: &str, v: Option<String>| (k.to_owned(), Expr::string(v.unwrap_or_default()));
            Expr::Object(vec![
                key("address", t.address),
                key("auth", t.auth),
                key("module", t.module),
                key("name", t.name),
                key("snmp_context", t.snmp_context),
                key("walk_params", t.walk_params),
            ])
        });
        body.attribute(known("targets"), Expr::Array(objects.collect()));
    }
    for (name, params) in snmp.walk_params.unwrap_or_default() {
        let label = Identifier::new(name.as_str()).map_err(|_| {
            (
                format!("spec.config.walk_params.{name}"),
                format!(
                    "{name:?} is not a name Alloy can label a walk_param block with (letters, digits and _, not first a digit); the converter rewrites it, and the targets that name it then name none"
                ),
            )
        })?;
        body.block(walk_param(label, params));
    }
    Ok(body)
}

const WALK_PARAM: &[Identifier] = &[Identifier::known("walk_param")];

fn walk_param(label: Identifier, params: WalkParams) -> Block {
    let mut block = Block::new(WALK_PARAM, Some(label));
    let body = &mut block.body;
    optional(
        body,
        "max_repetitions",
        params
            .max_repetitions
            .filter(|m| *m != 0)
            .map(|m| Expr::Int(m.into())),
    );
    optional(
        body,
        "retries",
        params.retries.filter(|r| *r != 0).map(Expr::Int),
    );
    go_duration(body, "timeout", &params.timeout, 0);
    flag(
        body,
        "use_unconnected_udp_socket",
        params.use_unconnected_udp_socket,
        false,
    );
    block
}

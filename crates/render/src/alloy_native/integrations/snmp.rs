//! The snmp integration as `prometheus.exporter.snmp`: the agent's settings (v0.44's
//! integrations-next `snmp_exporter_v2.Config`, which the pods run) under the arguments of
//! Alloy v1.19.2's component, as its converter (`build/snmp_exporter.go`) maps them:
//! `config_file`, and the targets as a list of objects with every key (empty when unset).
//!
//! Not translated: `snmp_config`, the inline modules and auths (community strings, SNMPv3
//! passwords), which the converter drops, so that the pods' Alloy runs without them today;
//! and `walk_params`, whose `walk_param` blocks the converter writes in Go's map order
//! (varying from run to run) and the proof's reader does not read yet.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::alloy_syntax::{Body, Expr};

use super::super::known;
use super::Untranslated;
use super::arguments::{read, text};
use super::exporters::Settings;

pub(super) const SETTINGS: Settings = Settings::Typed {
    keys: &["config_file", "snmp_targets"],
    arguments,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Snmp {
    config_file: Option<String>,
    snmp_targets: Option<Vec<Target>>,
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

fn arguments(settings: Map<String, Value>) -> Result<Body, Untranslated> {
    let snmp: Snmp = read(settings)?;
    let mut body = Body::default();
    text(&mut body, "config_file", &snmp.config_file, "");
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
    Ok(body)
}

//! The mongodb integration as `prometheus.exporter.mongodb`, as Alloy v1.19.2's converter
//! (`build/mongodb_exporter.go`) writes it from the settings the pods' Alloy reads: Alloy's
//! static integration defaults `direct_connect` and `discovering_mode` to true, the component
//! to false, so both are written as true unless the Integration sets them false
//! (`compatible_mode`, `collect_all` and `currentop_slow_time` have the same defaults in both,
//! and the agent has no key for them). `mongodb_uri`, which may hold a password, is Alloy's
//! secret-typed attribute (the config is a Secret, as the static one is).
//!
//! `discovering_mode` is true unless set: the agent v0.44's default was false, but the pods
//! run Alloy's static integration today, whose default is true, and native writes what they
//! run. `tls_basic_auth_config_path`, which Alloy's integration does not read, is not
//! translated.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::alloy_syntax::{Body, Expr};

use super::super::known;
use super::Untranslated;
use super::arguments::{flag, read};
use super::exporters::Settings;

pub(super) const SETTINGS: Settings = Settings::Typed {
    keys: &["mongodb_uri", "direct_connect", "discovering_mode"],
    arguments,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Mongodb {
    mongodb_uri: Option<String>,
    direct_connect: Option<bool>,
    discovering_mode: Option<bool>,
}

fn arguments(settings: Map<String, Value>) -> Result<Body, Untranslated> {
    let m: Mongodb = read(settings)?;
    let mut body = Body::default();
    // Required by Alloy: written even when unset, as the converter writes it.
    body.attribute(
        known("mongodb_uri"),
        Expr::string(m.mongodb_uri.unwrap_or_default()),
    );
    let static_default = |value: Option<bool>| Some(value.unwrap_or(true));
    flag(
        &mut body,
        "direct_connect",
        static_default(m.direct_connect),
        false,
    );
    flag(
        &mut body,
        "discovering_mode",
        static_default(m.discovering_mode),
        false,
    );
    Ok(body)
}

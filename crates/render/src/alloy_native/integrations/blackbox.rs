//! The blackbox integration as `prometheus.exporter.blackbox`: the agent's settings (v0.44's
//! integrations-next `blackbox_exporter_v2.Config`, which the pods run) under the arguments of
//! Alloy v1.19.2's component, as its converter (`build/blackbox_exporter.go`) maps them: the
//! inline `blackbox_config` becomes the `config` string (as JSON, a YAML document Alloy reads
//! as the agent does), the targets a list of objects with `name`, `address` and `module`.
//!
//! One difference from the converter, on purpose: `probe_timeout_offset` is the agent's
//! seconds (0.5 by default, Alloy's 500ms default); the converter turns the float into
//! nanoseconds (0.5 becomes `0s`), which would change how long every probe may take.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::alloy_syntax::{Body, Expr};

use super::super::{duration, optional};
use super::Untranslated;
use super::arguments::{read, text};
use super::exporters::Settings;

pub(super) const SETTINGS: Settings = Settings::Typed {
    keys: &[
        "config_file",
        "blackbox_config",
        "blackbox_targets",
        "probe_timeout_offset",
    ],
    arguments,
};

/// The agent's default `probe_timeout_offset`, in milliseconds, which is Alloy's default.
const DEFAULT_OFFSET_MS: f64 = 500.0;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Blackbox {
    config_file: Option<String>,
    blackbox_config: Option<Map<String, Value>>,
    blackbox_targets: Option<Vec<Target>>,
    /// Seconds, as the agent reads them (a float).
    probe_timeout_offset: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Target {
    name: Option<String>,
    address: Option<String>,
    module: Option<String>,
}

fn arguments(settings: Map<String, Value>) -> Result<Body, Untranslated> {
    let bb: Blackbox = read(settings)?;
    if bb.blackbox_config.is_none() && bb.config_file.as_deref().unwrap_or_default().is_empty() {
        // Alloy refuses the component (and the agent the integration): a native config
        // holding it would not load at all.
        return Err((
            "spec.config.blackbox_config".to_owned(),
            "is unset, as is config_file: Alloy's prometheus.exporter.blackbox requires one of them".to_owned(),
        ));
    }
    let mut body = Body::default();
    text(&mut body, "config_file", &bb.config_file, "");
    // serde_json writes no text a map cannot be written as; the document is a JSON object,
    // which YAML reads as the same mapping.
    let config = bb.blackbox_config.map(|c| Value::Object(c).to_string());
    optional(&mut body, "config", config.map(Expr::string));
    if let Some(targets) = bb.blackbox_targets.filter(|t| !t.is_empty()) {
        // Every key of every target, empty when unset, as the converter writes them.
        let objects = targets.into_iter().map(|t| {
            Expr::Object(vec![
                (
                    "address".to_owned(),
                    Expr::string(t.address.unwrap_or_default()),
                ),
                (
                    "module".to_owned(),
                    Expr::string(t.module.unwrap_or_default()),
                ),
                ("name".to_owned(), Expr::string(t.name.unwrap_or_default())),
            ])
        });
        body.attribute(
            super::super::known("targets"),
            Expr::Array(objects.collect()),
        );
    }
    if let Some(seconds) = bb.probe_timeout_offset {
        // Whole milliseconds of a float, within its rounding (`1.001` is 1000.999...).
        let ms = (seconds * 1000.0).round();
        let whole = (seconds * 1000.0 - ms).abs() < 1e-6 && (0.0..1e15).contains(&ms);
        if !whole {
            return Err((
                "spec.config.probe_timeout_offset".to_owned(),
                format!(
                    "{seconds} is not a whole number of milliseconds of 0 or more, which the native writer does not translate yet"
                ),
            ));
        }
        if ms != DEFAULT_OFFSET_MS {
            let text = format!("{}ms", ms as u64);
            optional(&mut body, "probe_timeout_offset", Some(duration(&text)));
        }
    }
    Ok(body)
}

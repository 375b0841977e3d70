//! What the typed integrations ([`super::blackbox`], [`super::elasticsearch`],
//! [`super::mongodb`]) share: reading
//! an Integration's settings into their typed arguments, naming the field of what does not
//! read, and writing an argument only when it differs from Alloy's default, as the converter
//! writes it.

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::alloy_syntax::{Body, Expr};

use super::super::{duration, milliseconds, optional};
use super::Untranslated;

/// `settings` (an Integration's own, without nulls) read into `T`, or the field that does not
/// read (`spec.config.<path>`) and why.
pub(super) fn read<T: DeserializeOwned>(settings: Map<String, Value>) -> Result<T, Untranslated> {
    serde_path_to_error::deserialize(Value::Object(settings)).map_err(|e| {
        let path = e.path().to_string();
        let field = if path == "." {
            "spec.config".to_owned()
        } else {
            format!("spec.config.{path}")
        };
        (field, e.into_inner().to_string())
    })
}

/// A Go duration as the agent reads it (`time.Duration` from a string), in milliseconds.
#[derive(Debug, Clone)]
pub(super) struct GoDuration {
    text: String,
    ms: u128,
}

impl<'de> Deserialize<'de> for GoDuration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let ms = milliseconds(&text)
            .ok_or_else(|| D::Error::custom(format!("{text:?} is not a duration")))?;
        Ok(GoDuration { text, ms })
    }
}

/// `key = value` when `value` is set and is not `default`.
pub(super) fn text(body: &mut Body, key: &'static str, value: &Option<String>, default: &str) {
    optional(
        body,
        key,
        value.as_deref().filter(|v| *v != default).map(Expr::string),
    );
}

/// `key = value` when `value` is set and is not `default`.
pub(super) fn flag(body: &mut Body, key: &'static str, value: Option<bool>, default: bool) {
    optional(body, key, value.filter(|v| *v != default).map(Expr::Bool));
}

/// `key = "<duration>"` when `value` is set and is not `default_ms` long.
pub(super) fn go_duration(
    body: &mut Body,
    key: &'static str,
    value: &Option<GoDuration>,
    default_ms: u128,
) {
    optional(
        body,
        key,
        value
            .as_ref()
            .filter(|d| d.ms != default_ms)
            .map(|d| duration(&d.text)),
    );
}

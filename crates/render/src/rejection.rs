//! Objects that could not be rendered, with the reason. The controller turns these into
//! status entries and Warning Events; `render` prints them on stderr.

use std::fmt;

use crate::input_ref::InputRef;

/// Why an object (or part of it) was left out, for machines: status entries carry it; the
/// Event reason stays `InvalidConfiguration` and the message says the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    /// A label selector with an unknown operator, missing or extra values, or an empty key.
    InvalidSelector,
    /// A referenced Secret does not exist where a value must be inlined.
    SecretNotFound,
    /// A referenced ConfigMap does not exist where a value must be inlined.
    ConfigMapNotFound,
    /// A referenced Secret or ConfigMap exists without the key.
    KeyNotFound,
    /// A referenced value is not UTF-8 text where text is needed.
    ValueNotText,
    /// A Secret or ConfigMap key selector with an empty name or key.
    IncompleteReference,
    /// A regular expression RE2 (Prometheus, Loki) refuses.
    InvalidRegex,
    /// A string used as a label name that is not one.
    InvalidLabelName,
    /// A duration the agent's parser refuses.
    InvalidDuration,
    /// Settings that exclude each other (two ways to authenticate, a timeout above the
    /// interval, a header Prometheus sets itself).
    ConflictingSettings,
    /// A name already used by an earlier entry (remote_write, scrape job, volume).
    DuplicateName,
    /// Inline YAML (additional scrape configs, pipeline stages) that does not parse or has
    /// the wrong shape.
    InvalidYaml,
    /// Any other value the agent would refuse.
    InvalidValue,
    /// An object would make the agent pods read files the GrafanaAgent does not allow it:
    /// a ServiceMonitor's file settings, or an Integration's volumes from another namespace.
    FileAccessDenied,
    /// A volume or mount an Integration adds that cannot be used in the agent's pod.
    InvalidVolume,
    /// A name Kubernetes refuses (too long, or characters it does not allow), given or
    /// generated from the GrafanaAgent's name.
    InvalidName,
    /// An object the GrafanaAgent would generate has the kind and name of one an agent of
    /// its namespace created earlier generates too: the agent is left out whole.
    NameCollision,
    /// A config segment above the 1 MiB Secret limit, even compressed: one line of agent.yml
    /// too long to cut (a config of any size is stored in segments, [`crate::segments`]).
    ConfigTooLarge,
    /// The assets Secret above the 1 MiB Secret limit.
    AssetsTooLarge,
    /// Nothing of the object could be rendered (no usable remote_write or client), so it is
    /// left out whole.
    NothingRendered,
    /// A setting of the GrafanaAgent every monitor depends on is unusable, so the monitor
    /// cannot be rendered.
    AgentSettingUnusable,
    /// Runtime alloy: a setting Alloy's static converter refuses (the object is left out, the
    /// others run).
    AlloyRefuses,
    /// Runtime alloy: a setting Alloy does not use, and what it does instead (a warning: the
    /// object runs).
    AlloyDifference,
    /// A setting this operator accepts but no longer uses, and what it does instead (a
    /// warning: the object runs), e.g. `spec.configReloaderImage`.
    UnusedSetting,
    /// Fields of an object that the schema of our CRD does not have (a cluster may serve a
    /// newer CRD than ours, e.g. prometheus-operator's, and keep them): ignored, as `render`
    /// ignores them (a warning: the object runs without them).
    UnknownField,
}

impl Reason {
    /// The CamelCase name used in status entries and condition reasons.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::InvalidSelector => "InvalidSelector",
            Reason::SecretNotFound => "SecretNotFound",
            Reason::ConfigMapNotFound => "ConfigMapNotFound",
            Reason::KeyNotFound => "KeyNotFound",
            Reason::ValueNotText => "ValueNotText",
            Reason::IncompleteReference => "IncompleteReference",
            Reason::InvalidRegex => "InvalidRegex",
            Reason::InvalidLabelName => "InvalidLabelName",
            Reason::InvalidDuration => "InvalidDuration",
            Reason::ConflictingSettings => "ConflictingSettings",
            Reason::DuplicateName => "DuplicateName",
            Reason::InvalidYaml => "InvalidYaml",
            Reason::InvalidValue => "InvalidValue",
            Reason::FileAccessDenied => "FileAccessDenied",
            Reason::InvalidVolume => "InvalidVolume",
            Reason::InvalidName => "InvalidName",
            Reason::NameCollision => "NameCollision",
            Reason::ConfigTooLarge => "ConfigTooLarge",
            Reason::AssetsTooLarge => "AssetsTooLarge",
            Reason::NothingRendered => "NothingRendered",
            Reason::AgentSettingUnusable => "AgentSettingUnusable",
            Reason::AlloyRefuses => "AlloyRefuses",
            Reason::AlloyDifference => "AlloyDifference",
            Reason::UnusedSetting => "UnusedSetting",
            Reason::UnknownField => "UnknownField",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One object left out of the rendered output (or one part of it dropped), and why.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rejection {
    /// The object at fault.
    pub object: InputRef,
    /// The JSON path of the offending field, e.g. `spec.endpoints[0].basicAuth.password`.
    pub field: Option<String>,
    pub message: String,
    pub reason: Reason,
}

impl Rejection {
    pub fn new(
        object: InputRef,
        reason: Reason,
        field: impl Into<Option<String>>,
        message: impl Into<String>,
    ) -> Self {
        Rejection {
            object,
            field: field.into(),
            message: message.into(),
            reason,
        }
    }
}

impl Rejection {
    /// The warning for `fields` of `object`, the paths its schema check found unknown
    /// ([`crate::manifest::unknown_fields`]): one per object, naming every field, so that one
    /// Event tells one object's set of fields (a different set is a different Event). Sorted:
    /// the order of a live object's fields is the API server's, that of a manifest its
    /// author's, and both must read the same.
    pub fn unknown_fields(object: InputRef, fields: &[String]) -> Self {
        let mut fields: Vec<&str> = fields.iter().map(String::as_str).collect();
        fields.sort_unstable();
        fields.dedup();
        let message = match fields.as_slice() {
            [one] => format!("unknown field, ignored: {one}"),
            _ => format!("unknown fields, ignored: {}", fields.join(", ")),
        };
        Rejection::new(object, Reason::UnknownField, None, message)
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{}: {}: {}", self.object, field, self.message),
            None => write!(f, "{}: {}", self.object, self.message),
        }
    }
}

/// The field path of `key` in the map at `map_field`: `map_field.key` when the key is a plain
/// word (letters, digits, `_`, `-`), else `map_field["key"]`, quoted as JSON quotes it, so
/// that a label key with dots or a slash (`app.kubernetes.io/name`) is not read as nested
/// fields.
pub fn key_path(map_field: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        format!("{map_field}.{key}")
    } else {
        let quoted = serde_json::to_string(key).unwrap_or_else(|_| format!("{key:?}"));
        format!("{map_field}[{quoted}]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assets::{AssetError, AssetKey, AssetSource};
    use crate::config::common::check_regex;

    #[test]
    fn reasons_follow_the_error_they_come_from() {
        let e = check_regex("(unclosed", "spec.endpoints[0].relabelings[0].regex").unwrap_err();
        assert_eq!(e.reason, Reason::InvalidRegex);
        let key = |source| AssetKey {
            source,
            namespace: "ns".into(),
            name: "n".into(),
            key: "k".into(),
        };
        let reasons: Vec<&str> = [
            AssetError::ObjectMissing(key(AssetSource::Secret)),
            AssetError::ObjectMissing(key(AssetSource::ConfigMap)),
            AssetError::KeyMissing(key(AssetSource::Secret)),
            AssetError::NotText(key(AssetSource::Secret)),
            AssetError::Incomplete,
        ]
        .iter()
        .map(|e| Reason::of_asset_error(e).as_str())
        .collect();
        assert_eq!(
            reasons,
            [
                "SecretNotFound",
                "ConfigMapNotFound",
                "KeyNotFound",
                "ValueNotText",
                "IncompleteReference"
            ]
        );
    }
}

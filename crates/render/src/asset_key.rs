//! One key of one Secret or ConfigMap, named as upstream names it: what references point at
//! and assets are keyed by. Its own module so that the store (which lists each object's
//! references) and the assets (which read the store) both use it.

use std::fmt;

use api::selectors::{ConfigMapKeySelector, SecretKeySelector, SecretOrConfigMap};

use crate::input_ref::{InputRef, Kind};

/// The two kinds of data object the store holds values of (Secrets and ConfigMaps); the
/// assets module names its keys by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AssetSource {
    Secret,
    ConfigMap,
}

impl AssetSource {
    pub fn kind(self) -> Kind {
        match self {
            AssetSource::Secret => Kind::Secret,
            AssetSource::ConfigMap => Kind::ConfigMap,
        }
    }
}

/// One Secret or ConfigMap whose values can be loaded: what discovery asks a controller to
/// read ([`crate::discover::Discovery::to_load`]). Only the two data kinds can be named, so a
/// reader never has to guess which kind an input reference means.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DataRef {
    pub source: AssetSource,
    pub namespace: String,
    pub name: String,
}

impl DataRef {
    pub fn new(source: AssetSource, namespace: impl Into<String>, name: impl Into<String>) -> Self {
        DataRef {
            source,
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// The object as the indexes and messages name inputs.
    pub fn input_ref(&self) -> InputRef {
        InputRef::new(self.source.kind(), &self.namespace, &self.name)
    }
}

impl fmt::Display for DataRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}/{}", self.source.kind(), self.namespace, self.name)
    }
}

/// Where the assets Secret is mounted in every agent pod.
pub const ASSETS_MOUNT_PATH: &str = "/var/lib/grafana-agent/secrets";

/// One key of one Secret or ConfigMap.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AssetKey {
    pub source: AssetSource,
    pub namespace: String,
    pub name: String,
    pub key: String,
}

impl AssetKey {
    pub fn secret(namespace: &str, sel: &SecretKeySelector) -> Self {
        AssetKey {
            source: AssetSource::Secret,
            namespace: namespace.to_owned(),
            name: sel.name.clone(),
            key: sel.key.clone(),
        }
    }

    pub fn config_map(namespace: &str, sel: &ConfigMapKeySelector) -> Self {
        AssetKey {
            source: AssetSource::ConfigMap,
            namespace: namespace.to_owned(),
            name: sel.name.clone(),
            key: sel.key.clone(),
        }
    }

    /// The Secret branch when set, else the ConfigMap branch, else nothing (upstream's rule).
    pub fn secret_or_config_map(namespace: &str, sel: &SecretOrConfigMap) -> Option<Self> {
        match (&sel.secret, &sel.config_map) {
            (Some(s), _) => Some(AssetKey::secret(namespace, s)),
            (None, Some(c)) => Some(AssetKey::config_map(namespace, c)),
            (None, None) => None,
        }
    }

    /// Upstream's store key: `/secrets/<ns>/<name>/<key>` or `/configMaps/<ns>/<name>/<key>`.
    pub fn store_key(&self) -> String {
        let prefix = match self.source {
            AssetSource::Secret => "secrets",
            AssetSource::ConfigMap => "configMaps",
        };
        format!("/{prefix}/{}/{}/{}", self.namespace, self.name, self.key)
    }

    /// The store key with every character outside `[a-zA-Z0-9_]` replaced by `_`: the data
    /// key in the assets Secret and the file name under [`ASSETS_MOUNT_PATH`]. Written
    /// directly, not through [`AssetKey::store_key`]: each discovery names every key it
    /// resolves.
    pub fn sanitized(&self) -> String {
        let prefix = match self.source {
            AssetSource::Secret => "_secrets_",
            AssetSource::ConfigMap => "_configMaps_",
        };
        let mut out = String::with_capacity(
            prefix.len() + self.namespace.len() + self.name.len() + self.key.len() + 2,
        );
        out.push_str(prefix);
        push_sanitized(&mut out, &self.namespace);
        out.push('_');
        push_sanitized(&mut out, &self.name);
        out.push('_');
        push_sanitized(&mut out, &self.key);
        out
    }

    /// The file name of a key whose [`AssetKey::sanitized`] name another key of the same
    /// agent shares (Q16): one no other key can have. `_secrets_<ns>_<name>_<key>` unsanitized
    /// when that is a valid Secret data key and can be read back: a namespace and a name hold
    /// no `_` (Kubernetes allows none), so the first two `_` after the prefix end them. Such a
    /// name equals the sanitized one only when nothing was sanitized, and holds a `-` or `.`
    /// otherwise, which no sanitized name does. Any other key (only files can hold one: the
    /// API server refuses such names) is `_x.` and the hex digits of its store key, which
    /// neither of the others starts with.
    pub fn exact_file_name(&self) -> String {
        let prefix = match self.source {
            AssetSource::Secret => "_secrets_",
            AssetSource::ConfigMap => "_configMaps_",
        };
        let part = |s: &str, underscore: bool| {
            !s.is_empty()
                && s.chars().all(|c| {
                    c.is_ascii_alphanumeric() || c == '-' || c == '.' || (underscore && c == '_')
                })
        };
        if part(&self.namespace, false) && part(&self.name, false) && part(&self.key, true) {
            return format!("{prefix}{}_{}_{}", self.namespace, self.name, self.key);
        }
        let mut out = String::from("_x.");
        for byte in self.store_key().bytes() {
            out.push_str(&format!("{byte:02x}"));
        }
        out
    }

    /// A selector with an empty name or key refers to nothing (upstream skips it).
    pub(crate) fn is_complete(&self) -> bool {
        !self.name.is_empty() && !self.key.is_empty()
    }
}

impl fmt::Display for AssetKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.source {
            AssetSource::Secret => "Secret",
            AssetSource::ConfigMap => "ConfigMap",
        };
        write!(
            f,
            "key {:?} of {kind} {}/{}",
            self.key, self.namespace, self.name
        )
    }
}

/// Replaces every character outside `[a-zA-Z0-9_]` with `_` (upstream's label sanitizing).
pub fn sanitize_label(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_sanitized(&mut out, s);
    out
}

/// Appends `s` to `out`, sanitized as [`sanitize_label`] does.
fn push_sanitized(out: &mut String, s: &str) {
    out.extend(s.chars().map(|c| {
        if c.is_ascii_alphanumeric() || c == '_' {
            c
        } else {
            '_'
        }
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sanitized_key_is_the_sanitized_store_key() {
        for (source, namespace, name, key) in [
            (AssetSource::Secret, "default", "basic-auth", "password"),
            (AssetSource::ConfigMap, "team.a", "ca_bundle", "ca.crt"),
            (AssetSource::Secret, "ns", "é-secret", "κλειδί/1"),
        ] {
            let k = AssetKey {
                source,
                namespace: namespace.into(),
                name: name.into(),
                key: key.into(),
            };
            assert_eq!(k.sanitized(), sanitize_label(&k.store_key()), "{k}");
        }
    }

    fn secret(namespace: &str, name: &str, key: &str) -> AssetKey {
        AssetKey {
            source: AssetSource::Secret,
            namespace: namespace.into(),
            name: name.into(),
            key: key.into(),
        }
    }

    /// Issue 38, item 7: keys whose sanitized names are one (across namespaces, or within one)
    /// have exact names that differ, and that no sanitized name can be.
    #[test]
    fn exact_file_names_tell_apart_what_sanitizing_merges() {
        let colliding = [
            secret("team", "a-creds", "password"),
            secret("team-a", "creds", "password"),
            secret("team_a", "creds", "password"),
            secret("team", "a.creds", "password"),
            secret("team", "a", "creds_password"),
            secret("team", "a", "creds-password"),
            secret("team", "a_creds", "password"),
        ];
        let sanitized: std::collections::BTreeSet<String> =
            colliding.iter().map(AssetKey::sanitized).collect();
        assert_eq!(sanitized.len(), 1, "{sanitized:?}");
        let exact: std::collections::BTreeSet<String> =
            colliding.iter().map(AssetKey::exact_file_name).collect();
        assert_eq!(exact.len(), colliding.len(), "{exact:?}");
        assert!(
            exact.contains("_secrets_team_a-creds_password"),
            "{exact:?}"
        );
        assert!(
            exact.contains("_secrets_team-a_creds_password"),
            "{exact:?}"
        );
        // Nothing to sanitize: the exact name is the sanitized one.
        let plain = secret("team", "a", "creds_password");
        assert_eq!(plain.exact_file_name(), plain.sanitized());
        // A name only files can hold: hex, under a prefix of its own.
        assert_eq!(
            secret("team_a", "creds", "password").exact_file_name(),
            format!(
                "_x.{}",
                b"/secrets/team_a/creds/password"
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect::<String>()
            )
        );
        // Every exact name is a valid Secret data key.
        for name in &exact {
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c)),
                "{name}"
            );
        }
    }
}

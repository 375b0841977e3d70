//! Resolving an object's Secret and ConfigMap references into values and in-pod paths.

use api::selectors::{SecretKeySelector, SecretOrConfigMap};

use super::FieldError;
use crate::assets::{AssetError, AssetKey, Assets};
use crate::references::is_optional;
use crate::rejection::Reason;

/// Secret lookups for one object: references resolve in `namespace` (spec 4.1).
#[derive(Clone, Copy)]
pub struct Secrets<'a> {
    pub assets: &'a Assets,
    pub namespace: &'a str,
}

impl Secrets<'_> {
    /// The value of a Secret key, inlined into the config; `None` when the selector is
    /// optional and the Secret or its key is missing (Q17: the field is left out).
    pub fn value(
        &self,
        sel: &SecretKeySelector,
        field: &str,
    ) -> Result<Option<String>, FieldError> {
        let key = AssetKey::secret(self.namespace, sel);
        self.lookup(Assets::value, &key, sel.optional == Some(true), field)
    }

    /// The value of a Secret-or-ConfigMap key; `None` when neither branch is set, or the one
    /// used is optional and missing.
    pub fn value_of(
        &self,
        sel: &SecretOrConfigMap,
        field: &str,
    ) -> Result<Option<String>, FieldError> {
        let Some(key) = AssetKey::secret_or_config_map(self.namespace, sel) else {
            return Ok(None);
        };
        self.lookup(Assets::value, &key, is_optional(sel), field)
    }

    /// The in-pod path of a Secret key; `None` when the selector is optional and the Secret
    /// or its key is missing.
    pub fn path(&self, sel: &SecretKeySelector, field: &str) -> Result<Option<String>, FieldError> {
        let key = AssetKey::secret(self.namespace, sel);
        self.lookup(Assets::path, &key, sel.optional == Some(true), field)
    }

    /// The in-pod path of a Secret-or-ConfigMap key; `None` when neither branch is set, or
    /// the one used is optional and missing.
    pub fn path_of(
        &self,
        sel: &SecretOrConfigMap,
        field: &str,
    ) -> Result<Option<String>, FieldError> {
        let Some(key) = AssetKey::secret_or_config_map(self.namespace, sel) else {
            return Ok(None);
        };
        self.lookup(Assets::path, &key, is_optional(sel), field)
    }

    /// `get` of `key`, its error naming `field`. An optional selector whose object or key is
    /// missing gives `None`: the field is left out, whether it takes the value or a file.
    fn lookup(
        &self,
        get: fn(&Assets, &AssetKey) -> Result<String, AssetError>,
        key: &AssetKey,
        optional: bool,
        field: &str,
    ) -> Result<Option<String>, FieldError> {
        if optional && self.assets.is_missing(key) {
            return Ok(None);
        }
        get(self.assets, key)
            .map(Some)
            .map_err(|e| FieldError::because(Reason::of_asset_error(&e), field, e.to_string()))
    }
}

/// `Some(s)` unless `s` is empty: upstream turns empty strings into absent keys.
pub fn non_empty(s: &Option<String>) -> Option<String> {
    s.as_ref().filter(|s| !s.is_empty()).cloned()
}

/// The value of an optional selector field: `None` when unset (or optional and missing).
pub fn optional_value(
    sel: Option<&SecretKeySelector>,
    secrets: Secrets<'_>,
    field: &str,
) -> Result<Option<String>, FieldError> {
    match sel {
        Some(s) => secrets.value(s, field),
        None => Ok(None),
    }
}

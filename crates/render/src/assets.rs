//! Secret and ConfigMap values referenced by a hierarchy ("assets"), keyed as upstream keys
//! them, so that file paths inside the agent's pod match upstream's.

use std::collections::{BTreeMap, HashMap};

pub use crate::asset_key::{ASSETS_MOUNT_PATH, AssetKey, AssetSource, sanitize_label};
use crate::store::{InputView, KeyLookup};

/// Why a referenced value is not available.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssetError {
    #[error("{0}: the object does not exist")]
    ObjectMissing(AssetKey),
    #[error("{0}: no such key in the object")]
    KeyMissing(AssetKey),
    #[error("{0}: the value is not UTF-8 text")]
    NotText(AssetKey),
    #[error("{key}: its file name {sanitized:?} is already used by {other}")]
    Collision {
        key: Box<AssetKey>,
        sanitized: String,
        other: Box<AssetKey>,
    },
    #[error("a selector with an empty name or key")]
    Incomplete,
    /// The object exists but the value was not read at its current resourceVersion: the
    /// controller loads it and discovers again (see [`crate::discover`]).
    #[error("{0}: the value is not loaded yet")]
    NotLoaded(AssetKey),
}

/// What a reference resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Resolution {
    Value(Vec<u8>),
    Failed(AssetError),
    /// The object exists; its value is not loaded at the current resourceVersion.
    NotLoaded,
}

/// The resolved values of every reference in one hierarchy.
#[derive(Debug, Clone, Default)]
pub struct Assets {
    /// Hashed, not ordered: every reference of every monitor is looked up here at each
    /// discovery (60k lookups at 10k ServiceMonitors), and ordered lookups of four-string keys
    /// took a tenth of an edit's CPU. Readers that iterate sort.
    resolved: HashMap<AssetKey, Resolution, foldhash::fast::RandomState>,
    /// Sanitized key to the asset that owns it, to detect upstream's key collisions (Q16).
    owners: BTreeMap<String, AssetKey>,
}

impl Assets {
    /// What [`Assets::resolve`] returned for `key` when it was first looked up; `None` if it
    /// never was.
    pub fn resolved_before(&self, key: &AssetKey) -> Option<Result<(), AssetError>> {
        self.resolved.get(key).map(|existing| match existing {
            Resolution::Value(_) | Resolution::NotLoaded => Ok(()),
            Resolution::Failed(e) => Err(e.clone()),
        })
    }

    /// Looks `key` up in `inputs` and remembers the outcome. Returns the error, if any,
    /// so the caller can report it against the referencing object. A value not loaded yet is
    /// no error (see [`Assets::not_loaded`]).
    pub fn resolve(
        &mut self,
        inputs: &(impl InputView + ?Sized),
        key: &AssetKey,
    ) -> Result<(), AssetError> {
        if !key.is_complete() {
            return Ok(());
        }
        if let Some(outcome) = self.resolved_before(key) {
            return outcome;
        }
        let sanitized = key.sanitized();
        if let Some(other) = self.owners.get(&sanitized)
            && other != key
        {
            let err = AssetError::Collision {
                key: Box::new(key.clone()),
                sanitized,
                other: Box::new(other.clone()),
            };
            self.resolved
                .insert(key.clone(), Resolution::Failed(err.clone()));
            return Err(err);
        }
        let resolution = match inputs.data_object(key.source, &key.namespace, &key.name) {
            None => Resolution::Failed(AssetError::ObjectMissing(key.clone())),
            Some(object) => match object.lookup(&key.key) {
                KeyLookup::NoSuchKey => Resolution::Failed(AssetError::KeyMissing(key.clone())),
                KeyLookup::NotLoaded => {
                    // Claim the file name now, so collisions do not depend on load order.
                    self.owners.insert(sanitized, key.clone());
                    Resolution::NotLoaded
                }
                KeyLookup::Value(value) => {
                    self.owners.insert(sanitized, key.clone());
                    Resolution::Value(value.to_vec())
                }
            },
        };
        let result = match &resolution {
            // A missing object is reported where the reference is used ([`Assets::value`],
            // [`Assets::path`]), against the referencing object's field; an optional one is
            // no error at all.
            Resolution::Failed(AssetError::ObjectMissing(_))
            | Resolution::Value(_)
            | Resolution::NotLoaded => Ok(()),
            Resolution::Failed(e) => Err(e.clone()),
        };
        self.resolved.insert(key.clone(), resolution);
        result
    }

    /// The value of `key` as text, for fields that are inlined into the config.
    pub fn value(&self, key: &AssetKey) -> Result<String, AssetError> {
        match self.resolved.get(key) {
            Some(Resolution::Value(bytes)) => {
                String::from_utf8(bytes.clone()).map_err(|_| AssetError::NotText(key.clone()))
            }
            Some(Resolution::Failed(e)) => Err(e.clone()),
            Some(Resolution::NotLoaded) => Err(AssetError::NotLoaded(key.clone())),
            None if !key.is_complete() => Err(AssetError::Incomplete),
            None => Err(AssetError::ObjectMissing(key.clone())),
        }
    }

    /// Whether `key`'s object or key is missing (looked up, or never looked up), as opposed
    /// to present, unreadable or colliding. A selector with an empty name or key is not
    /// missing but incomplete, which `optional` does not excuse.
    pub fn is_missing(&self, key: &AssetKey) -> bool {
        match self.resolved.get(key) {
            None => key.is_complete(),
            Some(Resolution::Failed(AssetError::ObjectMissing(_) | AssetError::KeyMissing(_))) => {
                true
            }
            Some(_) => false,
        }
    }

    /// The in-pod file path of `key`, for fields that take a file. Fails when the object or
    /// its key is missing, as for a value: the file would not exist in the pod (upstream
    /// writes the path anyway, and the agent then fails to use it), and a deleted Secret or
    /// ConfigMap must take effect as a missing one does on a fresh start.
    pub fn path(&self, key: &AssetKey) -> Result<String, AssetError> {
        match self.resolved.get(key) {
            Some(Resolution::Failed(
                e @ (AssetError::ObjectMissing(_)
                | AssetError::KeyMissing(_)
                | AssetError::Collision { .. }),
            )) => Err(e.clone()),
            _ if !key.is_complete() => Err(AssetError::Incomplete),
            _ => Ok(key.file_path()),
        }
    }

    /// Every resolved value, by sanitized key: the data of the `<agent>-secrets` Secret.
    pub fn secret_data(&self) -> BTreeMap<String, Vec<u8>> {
        self.resolved
            .iter()
            .filter_map(|(k, r)| match r {
                Resolution::Value(v) => Some((k.sanitized(), v.clone())),
                Resolution::Failed(_) | Resolution::NotLoaded => None,
            })
            .collect()
    }

    /// Every key that was looked up, resolved or not (what the controller must watch), in
    /// order.
    pub fn keys(&self) -> Vec<&AssetKey> {
        let mut keys: Vec<&AssetKey> = self.resolved.keys().collect();
        keys.sort_unstable();
        keys
    }

    /// The keys whose object exists but whose value is not loaded at its current
    /// resourceVersion, in order.
    pub fn not_loaded(&self) -> Vec<&AssetKey> {
        let mut keys: Vec<&AssetKey> = self
            .resolved
            .iter()
            .filter(|(_, r)| matches!(r, Resolution::NotLoaded))
            .map(|(k, _)| k)
            .collect();
        keys.sort_unstable();
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::InputStore;
    use api::selectors::SecretKeySelector;

    fn store() -> InputStore {
        let mut s = InputStore::default();
        let data = BTreeMap::from([("pw".to_string(), b"hunter2".to_vec())]);
        for (ns, name) in [("default", "example-secret"), ("a-b", "c"), ("a_b", "c")] {
            s.apply_data(AssetSource::Secret, ns, name, None, data.clone());
        }
        s
    }

    fn key(ns: &str, name: &str, k: &str) -> AssetKey {
        AssetKey::secret(
            ns,
            &SecretKeySelector {
                key: k.into(),
                name: name.into(),
                optional: None,
            },
        )
    }

    #[test]
    fn keys_sanitize_as_upstream() {
        let k = key("default", "example-secret", "key");
        assert_eq!(k.store_key(), "/secrets/default/example-secret/key");
        assert_eq!(k.sanitized(), "_secrets_default_example_secret_key");
        assert_eq!(
            k.file_path(),
            "/var/lib/grafana-agent/secrets/_secrets_default_example_secret_key"
        );
    }

    #[test]
    fn missing_object_gives_neither_a_path_nor_a_value() {
        let mut a = Assets::default();
        let k = key("default", "absent", "pw");
        assert_eq!(a.resolve(&store(), &k), Ok(()));
        assert_eq!(a.path(&k), Err(AssetError::ObjectMissing(k.clone())));
        assert_eq!(a.value(&k), Err(AssetError::ObjectMissing(k)));
    }

    #[test]
    fn missing_key_fails_value_and_path() {
        let mut a = Assets::default();
        let k = key("default", "example-secret", "nope");
        assert_eq!(
            a.resolve(&store(), &k),
            Err(AssetError::KeyMissing(k.clone()))
        );
        assert!(a.path(&k).is_err());
        assert!(a.value(&k).is_err());
    }

    #[test]
    fn colliding_sanitized_keys_are_detected_not_overwritten() {
        let mut a = Assets::default();
        let s = store();
        let first = key("a-b", "c", "pw");
        let second = key("a_b", "c", "pw");
        assert_eq!(a.resolve(&s, &first), Ok(()));
        assert!(matches!(
            a.resolve(&s, &second),
            Err(AssetError::Collision { .. })
        ));
        assert_eq!(a.value(&first).as_deref(), Ok("hunter2"));
        assert_eq!(a.secret_data().len(), 1);
    }
}

#[cfg(test)]
mod loading_tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::store::InputStore;
    use api::selectors::SecretKeySelector;

    fn key(k: &str) -> AssetKey {
        AssetKey::secret(
            "ns",
            &SecretKeySelector {
                key: k.into(),
                name: "s".into(),
                optional: None,
            },
        )
    }

    fn names(keys: &[&str]) -> BTreeSet<String> {
        keys.iter().map(|k| k.to_string()).collect()
    }

    /// Metadata alone: the object exists, its values are not loaded, which is no error;
    /// content read at another resourceVersion does not count; at the current one it does,
    /// and a key absent from its key names is missing.
    #[test]
    fn values_count_only_when_loaded_at_the_current_resource_version() {
        let mut store = InputStore::new();
        store.apply_meta(AssetSource::Secret, "ns", "s", Some("2".into()));
        let mut a = Assets::default();
        assert_eq!(a.resolve(&store, &key("pw")), Ok(()));
        assert_eq!(a.not_loaded(), [&key("pw")]);
        assert_eq!(a.value(&key("pw")), Err(AssetError::NotLoaded(key("pw"))));
        assert!(a.secret_data().is_empty());

        let values = BTreeMap::from([("pw".to_owned(), b"old".to_vec())]);
        let (ns, name, stale) = ("ns", "s", Some("1".to_owned()));
        let keys = names(&["pw", "user"]);
        store.set_content(AssetSource::Secret, ns, name, stale, keys.clone(), values);
        let mut a = Assets::default();
        assert_eq!(a.resolve(&store, &key("pw")), Ok(()));
        assert_eq!(a.not_loaded().len(), 1, "read at version 1, current is 2");

        let values = BTreeMap::from([("pw".to_owned(), b"new".to_vec())]);
        store.set_content(
            AssetSource::Secret,
            ns,
            name,
            Some("2".into()),
            keys,
            values,
        );
        let mut a = Assets::default();
        assert_eq!(a.resolve(&store, &key("pw")), Ok(()));
        assert_eq!(a.value(&key("pw")).as_deref(), Ok("new"));
        assert_eq!(
            a.resolve(&store, &key("user")),
            Ok(()),
            "a key whose value was not read"
        );
        assert_eq!(a.not_loaded(), [&key("user")]);
        assert_eq!(
            a.resolve(&store, &key("token")),
            Err(AssetError::KeyMissing(key("token")))
        );
        assert_eq!(a.not_loaded().len(), 1);
    }
}

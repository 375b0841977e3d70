//! Secret and ConfigMap values referenced by a hierarchy ("assets"), keyed as upstream keys
//! them, so that file paths inside the agent's pod match upstream's.

use std::collections::{BTreeMap, HashMap};

pub use crate::asset_key::{ASSETS_MOUNT_PATH, AssetKey, AssetSource, sanitize_label};
use crate::store::{InputView, KeyLookup};

/// Why a referenced value is not available.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
pub enum AssetError {
    #[error("{0}: the object does not exist")]
    ObjectMissing(AssetKey),
    /// In the input but refused when read (a manifest document with an error, reported
    /// with it): not the same as missing.
    #[error("{0}: the object was refused when read from the input (see its error)")]
    ObjectRefused(AssetKey),
    #[error("{0}: no such key in the object")]
    KeyMissing(AssetKey),
    #[error("{0}: the value is not UTF-8 text")]
    NotText(AssetKey),
    #[error("a selector with an empty name or key")]
    Incomplete,
    /// The object exists but the value was not read at its current resourceVersion: the
    /// controller loads it and discovers again (see [`crate::discover`]).
    #[error("{0}: the value is not loaded yet")]
    NotLoaded(AssetKey),
}

// Here rather than in `rejection`, which `references` (below `store`, below this module)
// uses: with it there, `rejection` and `assets` used each other through `store`.
impl crate::rejection::Reason {
    /// The reason for a referenced value that could not be used.
    pub fn of_asset_error(e: &AssetError) -> Self {
        use crate::rejection::Reason;
        match e {
            AssetError::ObjectMissing(key) | AssetError::ObjectRefused(key) => match key.source {
                AssetSource::Secret => Reason::SecretNotFound,
                AssetSource::ConfigMap => Reason::ConfigMapNotFound,
            },
            AssetError::KeyMissing(_) => Reason::KeyNotFound,
            AssetError::NotText(_) => Reason::ValueNotText,
            AssetError::Incomplete => Reason::IncompleteReference,
            // Only a plan made before the controller loaded the value meets this.
            AssetError::NotLoaded(_) => Reason::InvalidValue,
        }
    }
}

/// What a reference resolved to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Resolution {
    Value(Vec<u8>),
    Failed(AssetError),
    /// The object exists; its value is not loaded at the current resourceVersion.
    NotLoaded,
}

/// The resolved values of every reference in one hierarchy.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Assets {
    /// Hashed, not ordered: every reference of every monitor is looked up here at each
    /// discovery (60k lookups at 10k ServiceMonitors), and ordered lookups of four-string keys
    /// took a tenth of an edit's CPU. Readers that iterate sort.
    resolved: HashMap<AssetKey, Resolution, foldhash::fast::RandomState>,
    /// How many keys of existing objects claim each sanitized file name: a name claimed more
    /// than once is upstream's key collision (Q16), and those keys use exact names instead
    /// ([`Assets::file_name`]).
    claims: HashMap<String, u32, foldhash::fast::RandomState>,
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
        let resolution = match inputs.data_object(key.source, &key.namespace, &key.name) {
            None if inputs.data_refused(key.source, &key.namespace, &key.name) => {
                Resolution::Failed(AssetError::ObjectRefused(key.clone()))
            }
            None => Resolution::Failed(AssetError::ObjectMissing(key.clone())),
            Some(object) => match object.lookup(&key.key) {
                KeyLookup::NoSuchKey => Resolution::Failed(AssetError::KeyMissing(key.clone())),
                KeyLookup::NotLoaded => {
                    // Claim the file name now, so file names do not depend on load order.
                    *self.claims.entry(key.sanitized()).or_default() += 1;
                    Resolution::NotLoaded
                }
                KeyLookup::Value(value) => {
                    *self.claims.entry(key.sanitized()).or_default() += 1;
                    Resolution::Value(value.to_vec())
                }
            },
        };
        let result = match &resolution {
            // A missing object is reported where the reference is used ([`Assets::value`],
            // [`Assets::path`]), against the referencing object's field; an optional one is
            // no error at all. A refused one is as missing (the API server would not have it),
            // only named as refused.
            Resolution::Failed(AssetError::ObjectMissing(_) | AssetError::ObjectRefused(_))
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
    /// to present or unreadable. A selector with an empty name or key is not
    /// missing but incomplete, which `optional` does not excuse.
    pub fn is_missing(&self, key: &AssetKey) -> bool {
        match self.resolved.get(key) {
            None => key.is_complete(),
            Some(Resolution::Failed(
                AssetError::ObjectMissing(_)
                | AssetError::ObjectRefused(_)
                | AssetError::KeyMissing(_),
            )) => true,
            Some(_) => false,
        }
    }

    /// Feeds what `key` resolved to (its value, or why there is none) and its
    /// [`Assets::path`] into `hasher`, without copying the value: what a monitor referring to
    /// it can read.
    pub fn hash_resolution(&self, key: &AssetKey, hasher: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        self.resolved.get(key).hash(hasher);
        self.path(key).hash(hasher);
    }

    /// The in-pod file path of `key`, for fields that take a file. Fails when the object or
    /// its key is missing, as for a value: the file would not exist in the pod (upstream
    /// writes the path anyway, and the agent then fails to use it), and a deleted Secret or
    /// ConfigMap must take effect as a missing one does on a fresh start.
    pub fn path(&self, key: &AssetKey) -> Result<String, AssetError> {
        match self.resolved.get(key) {
            Some(Resolution::Failed(
                e @ (AssetError::ObjectMissing(_)
                | AssetError::ObjectRefused(_)
                | AssetError::KeyMissing(_)),
            )) => Err(e.clone()),
            _ if !key.is_complete() => Err(AssetError::Incomplete),
            _ => Ok(format!("{ASSETS_MOUNT_PATH}/{}", self.file_name(key))),
        }
    }

    /// `key`'s data key in the assets Secret and file name under [`ASSETS_MOUNT_PATH`]:
    /// upstream's [`AssetKey::sanitized`] name, unless another key of this hierarchy's
    /// existing objects sanitizes to the same name (`team/a-creds` and `team-a/creds`, key
    /// `password`, are both `_secrets_team_a_creds_password`). Then each of them uses its
    /// [`AssetKey::exact_file_name`] (`_secrets_team_a-creds_password`,
    /// `_secrets_team-a_creds_password`): no two keys share a file name, whatever their
    /// namespaces, and every name that collides with nothing stays upstream's (Q16).
    pub fn file_name(&self, key: &AssetKey) -> String {
        let sanitized = key.sanitized();
        if self.claims.get(&sanitized).is_some_and(|n| *n > 1) {
            key.exact_file_name()
        } else {
            sanitized
        }
    }

    /// Every resolved value, by file name: the data of the `<agent>-secrets` Secret.
    pub fn secret_data(&self) -> BTreeMap<String, Vec<u8>> {
        self.resolved
            .iter()
            .filter_map(|(k, r)| match r {
                Resolution::Value(v) => Some((self.file_name(k), v.clone())),
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
        let mut a = Assets::default();
        let mut s = store();
        s.apply_data(
            AssetSource::Secret,
            "default",
            "example-secret",
            None,
            BTreeMap::from([("key".to_string(), b"v".to_vec())]),
        );
        assert_eq!(a.resolve(&s, &k), Ok(()));
        assert_eq!(
            a.path(&k).as_deref(),
            Ok("/var/lib/grafana-agent/secrets/_secrets_default_example_secret_key")
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

    /// Issue 38, item 7: keys whose sanitized names collide (across namespaces too) each get
    /// a file of their own, whatever order they are resolved in; the others keep upstream's
    /// names.
    #[test]
    fn colliding_sanitized_keys_each_get_a_file_of_their_own() {
        let mut s = store();
        let data = BTreeMap::from([("password".to_string(), b"pw".to_vec())]);
        s.apply_data(AssetSource::Secret, "team", "a-creds", None, data.clone());
        s.apply_data(AssetSource::Secret, "team-a", "creds", None, data);
        let team = key("team", "a-creds", "password");
        let team_a = key("team-a", "creds", "password");
        let alone = key("default", "example-secret", "pw");
        for order in [[&team, &team_a, &alone], [&alone, &team_a, &team]] {
            let mut a = Assets::default();
            for k in order {
                assert_eq!(a.resolve(&s, k), Ok(()), "{k}");
            }
            assert_eq!(
                a.path(&team).as_deref(),
                Ok("/var/lib/grafana-agent/secrets/_secrets_team_a-creds_password")
            );
            assert_eq!(
                a.path(&team_a).as_deref(),
                Ok("/var/lib/grafana-agent/secrets/_secrets_team-a_creds_password")
            );
            assert_eq!(
                a.file_name(&alone),
                "_secrets_default_example_secret_pw",
                "upstream's name for a key that collides with nothing"
            );
            let names: Vec<String> = a.secret_data().into_keys().collect();
            assert_eq!(
                names,
                [
                    "_secrets_default_example_secret_pw",
                    "_secrets_team-a_creds_password",
                    "_secrets_team_a-creds_password",
                ]
            );
        }
        // Within one namespace too.
        let mut a = Assets::default();
        for k in [key("a-b", "c", "pw"), key("a_b", "c", "pw")] {
            assert_eq!(a.resolve(&s, &k), Ok(()));
        }
        assert_eq!(a.secret_data().len(), 2);
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

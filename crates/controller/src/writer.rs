//! The one writer of every object the operator manages: an agent's generated Secrets,
//! Services, workloads and config loader Role and RoleBinding (through the apply step) and the kubelet Service, Endpoints and
//! EndpointSlices (through `kubelet`).
//!
//! Every write is a server-side apply with one field manager, forced, so fields other managers
//! own (a `kubectl rollout restart` annotation, say) survive. Whether an object needs a write is
//! decided without a request, from the caller's store of live objects: the applied object
//! carries a hash of its desired content in an annotation (our desired content changed), and
//! the live content is compared with the desired one ([`Managed::drift`]), so someone else's
//! edit of a field we set is repaired by applying again, by this process or by any later one.
//! What is kept in memory ([`Known`]) only spares recomputing a hash or comparing a live copy
//! that has not changed since it was last found right.

use std::any::Any;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::sync::{Arc, Mutex, PoisonError};

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{Endpoints, Secret, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Client, Resource};
use md5::{Digest, Md5};
use serde::Serialize;

use crate::error::Error;
use crate::watches::Namespaced;

/// The field manager of every write the operator makes.
pub const FIELD_MANAGER: &str = "agent-operator";
/// The annotation holding the hash of the desired object an applied object was written from.
pub const DESIRED_HASH_ANNOTATION: &str = "operator.agent.grafana.com/desired-hash";

/// A kind the operator writes.
pub(crate) trait Managed: Namespaced + PartialEq {
    /// Whether an update refused only for changing immutable fields (a workload's selector, a
    /// StatefulSet's claim templates) is applied by deleting the object and creating it again.
    const RECREATE_WHEN_IMMUTABLE: bool = false;

    /// Where the live copy, as the caller's store holds it, departs from the desired one (a
    /// field path), `None` when every field the operator sets holds its value.
    fn drift(want: &Self, live: &Self) -> Option<String>;
}

impl Managed for Secret {
    /// The store of generated Secrets holds each value's digest (`watches::digest_values`).
    fn drift(want: &Secret, live: &Secret) -> Option<String> {
        secret_drift(want, live)
    }
}

impl Managed for Service {
    fn drift(want: &Service, live: &Service) -> Option<String> {
        drift("spec", &want.spec, &live.spec)
    }
}

impl Managed for Role {
    fn drift(want: &Role, live: &Role) -> Option<String> {
        drift("rules", &want.rules, &live.rules)
    }
}

impl Managed for RoleBinding {
    /// `roleRef` cannot change: a binding to another Role is deleted and created again.
    const RECREATE_WHEN_IMMUTABLE: bool = true;

    fn drift(want: &RoleBinding, live: &RoleBinding) -> Option<String> {
        drift("roleRef", &want.role_ref, &live.role_ref)
            .or_else(|| drift("subjects", &want.subjects, &live.subjects))
    }
}

impl Managed for Endpoints {
    fn drift(want: &Endpoints, live: &Endpoints) -> Option<String> {
        drift("subsets", &want.subsets, &live.subsets)
    }
}

impl Managed for EndpointSlice {
    fn drift(want: &EndpointSlice, live: &EndpointSlice) -> Option<String> {
        drift("addressType", &want.address_type, &live.address_type)
            .or_else(|| drift("endpoints", &want.endpoints, &live.endpoints))
            .or_else(|| drift("ports", &want.ports, &live.ports))
    }
}

macro_rules! workload {
    ($($kind:ty),*) => {$(
        impl Managed for $kind {
            const RECREATE_WHEN_IMMUTABLE: bool = true;
            fn drift(want: &$kind, live: &$kind) -> Option<String> {
                drift("spec", &want.spec, &live.spec)
            }
        }
    )*};
}

workload!(StatefulSet, DaemonSet, Deployment);

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wrote {
    /// The live object was written from the same content and has not drifted: no request.
    Unchanged,
    Applied,
    /// Deleted and created again: an immutable field changed.
    Recreated,
}

/// What the writer learnt of the objects of one agent at its last apply, by object: the
/// desired copy it last wrote or checked, that copy's [`desired_hash`], and the live
/// resourceVersion it last found written from that hash without drift. It only spares work:
/// an equal desired copy is compared instead of serialized and digested again, and a live
/// copy unchanged since that check is not compared again. At 10k ServiceMonitors an edit
/// plans 345 config Secrets (1.1 MB) of which it changes one and the head.
#[derive(Default)]
pub(crate) struct Known {
    objects: HashMap<ObjectKey, KnownObject>,
}

struct KnownObject {
    /// The desired object (of the kind of its key).
    desired: Box<dyn Any + Send + Sync>,
    hash: String,
    /// The live resourceVersion last found written from `hash` and not drifted.
    checked_at: Option<String>,
}

/// Writes and deletes managed objects (cheap to clone). Remembers what its own writes left
/// ([`OwnWrites`]) so that their watch events trigger nothing.
#[derive(Clone)]
pub(crate) struct Writer {
    client: Client,
    own_writes: OwnWrites,
}

impl Writer {
    pub(crate) fn new(client: Client, own_writes: OwnWrites) -> Writer {
        Writer { client, own_writes }
    }

    /// Applies `desired` unless the live copy in `store` was written from the same content
    /// and has not drifted. A workload whose immutable fields changed (422) is deleted and
    /// created again, once a dry-run create says the new object is valid.
    pub(crate) async fn write<K: Managed>(
        &self,
        store: &Store<K>,
        desired: &K,
    ) -> Result<Wrote, Error> {
        self.write_known(store, desired, &mut Known::default(), &mut Known::default())
            .await
    }

    /// [`Writer::write`], taking what `previous` knows of the object (moved into `next`,
    /// with what this call learnt): while the desired copy equals the one remembered, its
    /// hash is not computed again, and while the live copy is the one found then without
    /// drift (same resourceVersion: any write changes it), nothing is compared.
    pub(crate) async fn write_known<K: Managed>(
        &self,
        store: &Store<K>,
        desired: &K,
        previous: &mut Known,
        next: &mut Known,
    ) -> Result<Wrote, Error> {
        let kind = K::kind(&());
        let namespace = desired.meta().namespace.clone().unwrap_or_default();
        let name = desired.meta().name.clone().unwrap_or_default();
        let key = OwnWrites::key(kind.clone(), &namespace, &name);
        let mut remembered = previous
            .objects
            .remove(&key)
            .filter(|known| known.desired.downcast_ref::<K>() == Some(desired));
        let live = store
            .get(&ObjectRef::new(&name).within(&namespace))
            .filter(|live| live.meta().deletion_timestamp.is_none());
        let live_version = live
            .as_ref()
            .and_then(|l| l.meta().resource_version.clone());
        if let Some(known) = remembered
            .take_if(|known| known.checked_at.is_some() && known.checked_at == live_version)
        {
            next.objects.insert(key, known);
            return Ok(Wrote::Unchanged);
        }
        let what = format!("{kind} {namespace}/{name}");
        let mut known = match remembered {
            Some(known) => known,
            None => KnownObject {
                hash: desired_hash(desired).map_err(|source| Error::Encode {
                    object: what.clone(),
                    source,
                })?,
                desired: Box::new(desired.clone()),
                checked_at: None,
            },
        };
        let hash = known.hash.as_str();
        if let Some(live) = live.filter(|live| hash_of(live.as_ref()) == Some(hash)) {
            match K::drift(desired, &live) {
                None => {
                    known.checked_at = live_version;
                    next.objects.insert(key, known);
                    return Ok(Wrote::Unchanged);
                }
                Some(difference) => {
                    tracing::info!(object = %what, %difference, "changed by someone else; restoring it");
                }
            }
        }
        let object = with_hash(desired.clone(), hash);
        known.checked_at = None;
        next.objects.insert(key, known);
        self.own_writes
            .set(kind.clone(), &namespace, &name, Some(Left::Writing));
        let result = self.apply(&object, &what).await;
        let left = match &result {
            Ok((meta, _)) => meta.resource_version.clone().map(Left::Version),
            Err(_) => None,
        };
        self.own_writes.set(kind, &namespace, &name, left);
        result.map(|(_, wrote)| wrote)
    }

    async fn apply<K: Managed>(
        &self,
        object: &K,
        what: &str,
    ) -> Result<(kube::api::ObjectMeta, Wrote), Error> {
        let namespace = object.meta().namespace.as_deref().unwrap_or_default();
        let name = object.meta().name.as_deref().unwrap_or_default();
        let api: Api<K> = Api::namespaced(self.client.clone(), namespace);
        let params = apply_params();
        let result = api
            .patch(name, &params, &Patch::Apply(object))
            .await
            .map_err(Error::api(format!("applying {what}")));
        match result {
            Ok(live) => Ok((live.meta().clone(), Wrote::Applied)),
            Err(e) if K::RECREATE_WHEN_IMMUTABLE && e.is_immutable_field_change() => {
                // The update's refusal names only the fields that cannot change, not whether
                // the new object is valid at all (kube-apiserver does not validate a
                // StatefulSet's new claim templates on update). A dry-run create answers
                // that: validation runs before the name is found taken, so 409 means "valid".
                let check = PostParams {
                    dry_run: true,
                    field_manager: Some(FIELD_MANAGER.to_owned()),
                };
                match api.create(&check, object).await {
                    Err(kube::Error::Api(status)) if status.code == 409 => {}
                    Ok(_) => {}
                    Err(refused) => {
                        return Err(Error::api(format!("recreating {what}"))(refused));
                    }
                }
                tracing::info!(object = %what, error = %e, "recreating: an immutable field changed");
                api.delete(name, &DeleteParams::background())
                    .await
                    .map_err(Error::api(format!("deleting {what} to recreate it")))?;
                let live = api
                    .patch(name, &params, &Patch::Apply(object))
                    .await
                    .map_err(Error::api(format!("recreating {what}")))?;
                Ok((live.meta().clone(), Wrote::Recreated))
            }
            Err(e) => Err(e),
        }
    }

    /// Deletes an object of kind `K` (in the background: its dependents go after it); one
    /// already gone is no error.
    pub(crate) async fn delete<K: Managed>(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<(), Error> {
        let kind = K::kind(&());
        let api: Api<K> = Api::namespaced(self.client.clone(), namespace);
        let result = match api.delete(name, &DeleteParams::background()).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
            Err(e) => Err(Error::api(format!("deleting {kind} {namespace}/{name}"))(e)),
        };
        self.own_writes.set(kind, namespace, name, None);
        result
    }
}

/// The hash of `object`'s content, with ownerReference UIDs blanked so that `render` (which
/// knows no UID) computes the same for the same inputs.
pub fn desired_hash<T: Serialize>(object: &T) -> Result<String, serde_json::Error> {
    let mut value = serde_json::to_value(object)?;
    if let Some(owners) = value
        .pointer_mut("/metadata/ownerReferences")
        .and_then(serde_json::Value::as_array_mut)
    {
        for owner in owners {
            if let Some(uid) = owner.get_mut("uid") {
                *uid = serde_json::Value::String(String::new());
            }
        }
    }
    let digest = Md5::digest(serde_json::to_vec(&value)?);
    Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// `object` carrying `hash` (its [`desired_hash`]) in [`DESIRED_HASH_ANNOTATION`]: whoever
/// writes next tells from its cache alone whether the content changed.
fn with_hash<K: Resource>(mut object: K, hash: &str) -> K {
    object
        .meta_mut()
        .annotations
        .get_or_insert_with(Default::default)
        .insert(DESIRED_HASH_ANNOTATION.to_owned(), hash.to_owned());
    object
}

/// The [`desired_hash`] a live object was written from, if the operator wrote it.
fn hash_of<K: Resource>(live: &K) -> Option<&str> {
    live.meta()
        .annotations
        .as_ref()?
        .get(DESIRED_HASH_ANNOTATION)
        .map(String::as_str)
}

/// How the operator writes every object it manages: a server-side apply under
/// [`FIELD_MANAGER`], forced, so fields other managers own survive.
fn apply_params() -> PatchParams {
    PatchParams::apply(FIELD_MANAGER).force()
}

/// The `resourceVersion` the operator's last write left on each object it wrote, by
/// `(kind, namespace, name)`, shared by every reconcile and the watches' mappers: the watch
/// event of the operator's own write is no reason to reconcile again (at 10k monitors that
/// second reconcile doubled the work of every edit and delayed the next one). Cheap to clone.
#[derive(Clone, Debug, Default)]
pub(crate) struct OwnWrites {
    left: Arc<Mutex<HashMap<ObjectKey, Left>>>,
}

type ObjectKey = (Cow<'static, str>, String, String);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Left {
    /// The write is in flight: its watch event can arrive before its response.
    Writing,
    Version(String),
}

impl OwnWrites {
    fn key(kind: impl Into<Cow<'static, str>>, namespace: &str, name: &str) -> ObjectKey {
        (kind.into(), namespace.to_owned(), name.to_owned())
    }

    fn set(
        &self,
        kind: impl Into<Cow<'static, str>>,
        namespace: &str,
        name: &str,
        left: Option<Left>,
    ) {
        let mut all = self.left.lock().unwrap_or_else(PoisonError::into_inner);
        let key = Self::key(kind, namespace, name);
        match left {
            Some(left) => all.insert(key, left),
            None => all.remove(&key),
        };
    }

    /// Whether `object`, as a watch reports it, is what the operator's last write of it left,
    /// or arrived while that write was in flight. A deletion (`still_there` false) or anyone
    /// else's later write is not.
    pub(crate) fn is_echo<K: Resource<DynamicType = ()>>(
        &self,
        object: &K,
        still_there: bool,
    ) -> bool {
        let meta = object.meta();
        let Some(name) = &meta.name else {
            return false;
        };
        let namespace = meta.namespace.as_deref().unwrap_or_default();
        let key = Self::key(K::kind(&()), namespace, name);
        let mut left = self.left.lock().unwrap_or_else(PoisonError::into_inner);
        if !still_there {
            // Gone (garbage-collected with its agent, say): nothing to remember, unless a
            // write of it is in flight (a workload deleted to be recreated).
            if left.get(&key) != Some(&Left::Writing) {
                left.remove(&key);
            }
            return false;
        }
        if meta.deletion_timestamp.is_some() {
            return false;
        }
        match left.get(&key) {
            Some(Left::Writing) => true,
            Some(Left::Version(v)) => meta.resource_version.as_ref() == Some(v),
            None => false,
        }
    }
}

/// Where a generated Secret's live data (each value a digest, see
/// `watches::digest_values`) departs from the desired data.
fn secret_drift(want: &Secret, live: &Secret) -> Option<String> {
    let want = want.data.as_ref().map(|data| {
        data.iter()
            .map(|(key, value)| (key, Md5::digest(&value.0).to_vec()))
            .collect::<BTreeMap<_, _>>()
    });
    let live = live.data.as_ref().map(|data| {
        data.iter()
            .map(|(key, value)| (key, value.0.clone()))
            .collect::<BTreeMap<_, _>>()
    });
    let (want, live) = (want.unwrap_or_default(), live.unwrap_or_default());
    if want == live {
        return None;
    }
    let differing = want
        .keys()
        .chain(live.keys())
        .find(|key| want.get(*key) != live.get(*key))
        .map_or_else(String::new, |key| format!(".{key}"));
    Some(format!("data{differing}"))
}

/// Where `live` departs from `want` under the field `path`, as a field path
/// (`spec.replicas: want 1, have 3`), or `None` when every field `want` sets has the same
/// value in `live`. The API server adds defaults (`live` may hold more fields), drops empty
/// values (an empty string, list or map, `false` or `0` in `want` matches an absent field)
/// and writes quantities its own way (`0.5` is `500m`): none of that is drift.
fn drift<T: Serialize>(path: &str, want: &T, live: &T) -> Option<String> {
    let (Ok(want), Ok(live)) = (serde_json::to_value(want), serde_json::to_value(live)) else {
        return Some(format!("{path}: not comparable"));
    };
    first_difference(&want, &live, path).err()
}

fn first_difference(
    want: &serde_json::Value,
    have: &serde_json::Value,
    path: &str,
) -> Result<(), String> {
    use serde_json::Value;
    match (want, have) {
        (Value::Object(want), Value::Object(have)) => want.iter().try_for_each(|(key, w)| {
            let here = format!("{path}.{key}");
            match have.get(key) {
                Some(h) => first_difference(w, h, &here),
                None if is_empty(w) => Ok(()),
                None => Err(format!("{here}: missing")),
            }
        }),
        (Value::Array(want), Value::Array(have)) if want.len() == have.len() => want
            .iter()
            .zip(have)
            .enumerate()
            .try_for_each(|(i, (w, h))| first_difference(w, h, &format!("{path}[{i}]"))),
        (Value::Number(w), Value::Number(h)) if w.as_f64() == h.as_f64() => Ok(()),
        (Value::String(w), Value::String(h)) if same_quantity(w, h) => Ok(()),
        (w, Value::Null) if is_empty(w) => Ok(()),
        _ if want == have => Ok(()),
        _ => Err(format!(
            "{path}: want {}, have {}",
            brief(want),
            brief(have)
        )),
    }
}

/// A value the API server leaves out when it is all a field holds.
fn is_empty(value: &serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.values().all(is_empty),
    }
}

/// A value as a log line shows it: short (a pod template is not spelled out).
fn brief(value: &serde_json::Value) -> String {
    let mut text = value.to_string();
    if text.len() > 80 {
        let mut end = 77;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("...");
    }
    text
}

/// Whether two strings are the same Kubernetes quantity written two ways (`1Gi` and
/// `1073741824`, `0.5` and `500m`): the API server writes back its canonical form.
fn same_quantity(a: &str, b: &str) -> bool {
    match (quantity(a), quantity(b)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// A quantity's exact value in units of 10^-9 (the finest a quantity holds), `None` for
/// anything that is not a quantity or does not fit.
fn quantity(text: &str) -> Option<i128> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let (sign, number) = match number.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, number.strip_prefix('+').unwrap_or(number)),
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if (whole.is_empty() && fraction.is_empty())
        || !whole
            .chars()
            .chain(fraction.chars())
            .all(|c| c.is_ascii_digit())
    {
        return None;
    }
    // value = digits * 10^(exp10 - fraction digits) * 2^exp2, in nano-units: exp10 + 9.
    let digits: i128 = format!("{whole}{fraction}").parse().ok()?;
    let (exp10, exp2): (i32, u32) = match suffix {
        "" => (0, 0),
        "n" => (-9, 0),
        "u" => (-6, 0),
        "m" => (-3, 0),
        "k" => (3, 0),
        "M" => (6, 0),
        "G" => (9, 0),
        "T" => (12, 0),
        "P" => (15, 0),
        "E" => (18, 0),
        "Ki" => (0, 10),
        "Mi" => (0, 20),
        "Gi" => (0, 30),
        "Ti" => (0, 40),
        "Pi" => (0, 50),
        "Ei" => (0, 60),
        exponent => {
            let e = exponent.strip_prefix(['e', 'E'])?;
            (e.parse().ok()?, 0)
        }
    };
    let scale = exp10 + 9 - i32::try_from(fraction.len()).ok()?;
    let mut value = digits.checked_mul(1i128.checked_shl(exp2)?)?;
    if scale >= 0 {
        value = value.checked_mul(10i128.checked_pow(scale.unsigned_abs())?)?;
    } else {
        let divisor = 10i128.checked_pow(scale.unsigned_abs())?;
        if value % divisor != 0 {
            return None;
        }
        value /= divisor;
    }
    Some(sign * value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::ByteString;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

    fn secret(uid: &str, value: &str) -> Secret {
        Secret {
            metadata: ObjectMeta {
                name: Some("a-config".to_owned()),
                owner_references: Some(vec![OwnerReference {
                    uid: uid.to_owned(),
                    ..OwnerReference::default()
                }]),
                ..ObjectMeta::default()
            },
            string_data: Some([("k".to_owned(), value.to_owned())].into()),
            ..Secret::default()
        }
    }

    fn live_secret(version: &str, deleting: bool) -> Secret {
        Secret {
            metadata: ObjectMeta {
                name: Some("a-config".to_owned()),
                namespace: Some("ns".to_owned()),
                resource_version: Some(version.to_owned()),
                deletion_timestamp: deleting.then_some(
                    k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                        k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
                    ),
                ),
                ..ObjectMeta::default()
            },
            ..Secret::default()
        }
    }

    #[test]
    fn only_the_watch_event_of_the_operators_own_write_is_an_echo() {
        let own = OwnWrites::default();
        let left_at = |v: &str| own.set("Secret", "ns", "a-config", Some(Left::Version(v.into())));
        // Never written: every change counts.
        assert!(!own.is_echo(&live_secret("5", false), true));
        // In flight: the event may come before the response.
        own.set("Secret", "ns", "a-config", Some(Left::Writing));
        assert!(own.is_echo(&live_secret("6", false), true));
        left_at("6");
        assert!(own.is_echo(&live_secret("6", false), true));
        // Someone else's write after ours, a deletion in progress, a deletion.
        assert!(!own.is_echo(&live_secret("7", false), true));
        assert!(!own.is_echo(&live_secret("6", true), true));
        assert!(!own.is_echo(&live_secret("6", false), false));
        // A deleted object is forgotten: the same version seen again is no echo.
        assert!(!own.is_echo(&live_secret("6", false), true));
        // ... unless the operator was writing it (deleted to be recreated).
        own.set("Secret", "ns", "a-config", Some(Left::Writing));
        assert!(!own.is_echo(&live_secret("6", false), false));
        assert!(own.is_echo(&live_secret("8", false), true));
        left_at("6");
        assert!(own.is_echo(&live_secret("6", false), true));
        // Another kind of the same name.
        let service = Service {
            metadata: live_secret("6", false).metadata,
            ..Service::default()
        };
        assert!(!own.is_echo(&service, true));
        // Deleted by the operator: forgotten.
        own.set("Secret", "ns", "a-config", None);
        assert!(!own.is_echo(&live_secret("6", false), true));
    }

    #[test]
    fn drift_is_a_field_we_set_holding_another_value() {
        use serde_json::json;
        let differs = |want: serde_json::Value, have: serde_json::Value| {
            first_difference(&want, &have, "spec").err()
        };
        let want = json!({"replicas": 1, "template": {"spec": {"containers": [
            {"name": "agent", "image": "grafana/agent:v0.44.8", "args": [], "resources": {"requests": {"cpu": "0.5", "memory": "1Gi"}}}
        ]}}});
        // Defaults added, empty values dropped, quantities rewritten: no drift.
        let defaulted = json!({"replicas": 1, "revisionHistoryLimit": 10, "template": {"spec": {"containers": [
            {"name": "agent", "image": "grafana/agent:v0.44.8", "imagePullPolicy": "IfNotPresent", "resources": {"requests": {"cpu": "500m", "memory": "1073741824"}}}
        ], "restartPolicy": "Always"}}});
        assert_eq!(differs(want.clone(), defaulted.clone()), None);
        // Scaled by hand, another image, a container removed.
        let mut scaled = defaulted.clone();
        scaled["replicas"] = json!(3);
        assert_eq!(
            differs(want.clone(), scaled).as_deref(),
            Some("spec.replicas: want 1, have 3")
        );
        let mut image = defaulted.clone();
        image["template"]["spec"]["containers"][0]["image"] = json!("evil:latest");
        assert_eq!(
            differs(want.clone(), image).as_deref(),
            Some(
                r#"spec.template.spec.containers[0].image: want "grafana/agent:v0.44.8", have "evil:latest""#
            )
        );
        let mut removed = defaulted;
        removed["template"]["spec"]["containers"] = json!([]);
        assert!(differs(want, removed).is_some());
    }

    #[test]
    fn quantities_compare_by_value() {
        assert!(same_quantity("0.5", "500m"));
        assert!(same_quantity("1Gi", "1073741824"));
        assert!(same_quantity("1e3", "1k"));
        assert!(same_quantity("1.5Gi", "1536Mi"));
        assert!(!same_quantity("1Gi", "1G"));
        assert!(!same_quantity("100m", "1"));
        assert!(!same_quantity("agent", "agent"), "not quantities");
        assert_eq!(quantity("-2m"), Some(-2_000_000));
        assert_eq!(quantity("1n"), Some(1));
        assert_eq!(quantity("0.1n"), None, "finer than a quantity holds");
        assert_eq!(quantity("9Ei9Ei"), None);
    }

    #[test]
    fn a_generated_secret_drifts_when_a_value_differs_from_the_desired_one() {
        let want = Secret {
            data: Some([("agent.yml".to_owned(), ByteString(b"config".to_vec()))].into()),
            ..Secret::default()
        };
        let mut live = want.clone();
        crate::watches::digest_values(&mut live);
        assert_eq!(secret_drift(&want, &live), None);
        let mut edited = Secret {
            data: Some(
                [(
                    "agent.yml".to_owned(),
                    ByteString(b"edited by hand".to_vec()),
                )]
                .into(),
            ),
            ..Secret::default()
        };
        crate::watches::digest_values(&mut edited);
        assert_eq!(
            secret_drift(&want, &edited).as_deref(),
            Some("data.agent.yml")
        );
        let mut added = live.clone();
        added
            .data
            .get_or_insert_default()
            .insert("extra".to_owned(), ByteString(Vec::new()));
        assert_eq!(secret_drift(&want, &added).as_deref(), Some("data.extra"));
    }

    #[test]
    fn the_hash_ignores_the_owner_uid_and_follows_the_content() {
        let h = |uid, value| desired_hash(&secret(uid, value)).expect("hash");
        assert_eq!(h("", "x"), h("0b0e-uid", "x"));
        assert_ne!(h("", "x"), h("", "y"));
        assert_eq!(h("", "x").len(), 32);
    }
}

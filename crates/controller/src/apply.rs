//! The "apply" step: make the cluster hold the plan's objects, writing only what changed, and
//! delete the managed objects the plan no longer holds.
//!
//! Every write is a server-side apply with one field manager, forced, so fields other managers
//! own (a `kubectl rollout restart` annotation, say) survive. Whether an object needs a write is
//! decided without a request, from the owned-object stores: the applied object carries a hash
//! of its desired content in an annotation (our desired content changed), and the version each
//! write left (see [`Written`]) tells someone else's edit of a field we own from our own writes
//! (drift, repaired by applying again).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex, PoisonError};

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{Secret, Service};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Client, Resource};
use md5::{Digest, Md5};
use render::desired::{DesiredObject, PlannedObject};
use render::discover::Hierarchy;
use render::workloads::prune::{ExistingObject, objects_to_delete};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::Error;
use crate::metrics::Metrics;
use crate::watches::Stores;

/// The field manager of every write the operator makes.
pub const FIELD_MANAGER: &str = "agent-operator";
/// The annotation holding the hash of the desired object an applied object was written from.
pub const DESIRED_HASH_ANNOTATION: &str = "operator.agent.grafana.com/desired-hash";

/// What one apply step changed, as `Kind name`.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    pub written: Vec<String>,
    pub deleted: Vec<String>,
    /// What the API server refused for good (a 422 that recreating cannot fix, a 403).
    pub refused: Vec<Error>,
}

impl Applied {
    pub(crate) fn is_empty(&self) -> bool {
        self.written.is_empty() && self.deleted.is_empty()
    }
}

/// The hash of `object`'s content, with ownerReference UIDs blanked so that `render` (which
/// knows no UID) computes the same for the same inputs.
pub fn desired_hash(object: &DesiredObject) -> Result<String, serde_json::Error> {
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

/// What one agent's objects looked like right after the operator last wrote them, by
/// `(kind, name)` (all in the agent's namespace): the version each write found and the one it
/// left. A live object at neither has been changed by someone else since.
///
/// The version is the `resourceVersion` for Secrets and Services, which nothing else writes,
/// and the `generation` for workloads, whose status the workload controllers keep rewriting:
/// only a spec edit counts as drift there. Held in memory: after a restart the first write of
/// each object sets it, and until then only the desired-content hash decides.
#[derive(Debug, Default)]
pub(crate) struct Written {
    versions: HashMap<(&'static str, String), WriteVersions>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct WriteVersions {
    /// The live version when the write was decided (the store may still show it for a while).
    found: Option<String>,
    /// The version the server answered the write with.
    left: Option<String>,
}

impl Written {
    /// Whether `live_version` shows an edit that was not ours.
    fn drifted(&self, kind: &'static str, name: &str, live_version: Option<&str>) -> bool {
        match self.versions.get(&(kind, name.to_owned())) {
            None => false,
            Some(ours) => {
                live_version != ours.left.as_deref() && live_version != ours.found.as_deref()
            }
        }
    }

    fn record(&mut self, kind: &'static str, name: &str, versions: WriteVersions) {
        self.versions.insert((kind, name.to_owned()), versions);
    }
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

/// Why an object is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reason {
    /// Missing, or written from another desired content.
    Changed,
    /// Someone else edited it since our last write.
    Drifted,
}

/// Applies every object of `objects` (in order) whose content changed or drifted, then
/// deletes the managed objects of `h`'s agent the plan no longer holds. Stops at the first
/// transient failure; objects the server refuses for good are listed in [`Applied::refused`]
/// and the others are still written.
pub(crate) async fn apply(
    client: &Client,
    stores: &Stores,
    metrics: &Metrics,
    h: &Hierarchy,
    objects: &[PlannedObject],
    written: &mut Written,
    own: &OwnWrites,
) -> Result<Applied, Error> {
    let namespace = h.agent_namespace();
    let mut applied = Applied::default();
    for object in objects.iter().map(|planned| &planned.object) {
        let (kind, name) = (object.kind(), object.name());
        let hash = desired_hash(object).map_err(|source| Error::Encode {
            object: format!("{kind} {namespace}/{name}"),
            source,
        })?;
        let live = live_state(stores, object, namespace);
        let reason = match &live {
            Some(live) if live.hash.as_deref() != Some(hash.as_str()) => Reason::Changed,
            None => Reason::Changed,
            Some(live) if written.drifted(kind, name, live.version.as_deref()) => Reason::Drifted,
            Some(_) => continue,
        };
        if reason == Reason::Drifted {
            tracing::info!(object = %format!("{kind} {namespace}/{name}"), "changed by someone else; restoring it");
        }
        let writer = Writer {
            client,
            namespace,
            metrics,
        };
        own.set(kind, namespace, name, Some(Left::Writing));
        let result = match object.clone() {
            DesiredObject::Secret(o) => writer.write(with_hash(o, &hash), false).await,
            DesiredObject::Service(o) => writer.write(with_hash(o, &hash), false).await,
            DesiredObject::StatefulSet(o) => writer.write(with_hash(o, &hash), true).await,
            DesiredObject::DaemonSet(o) => writer.write(with_hash(o, &hash), true).await,
            DesiredObject::Deployment(o) => writer.write(with_hash(o, &hash), true).await,
        };
        let left = match result {
            Ok(left) => left,
            // Retried as a whole, with backoff.
            Err(e) if e.is_transient() => {
                own.set(kind, namespace, name, None);
                return Err(e);
            }
            // Refused for good: the other objects are still written (one bad object must not
            // keep, say, the logs DaemonSet from existing), and the refusal is reported.
            Err(e) => {
                own.set(kind, namespace, name, None);
                applied.refused.push(e);
                continue;
            }
        };
        own.set(
            kind,
            namespace,
            name,
            left.resource_version.clone().map(Left::Version),
        );
        written.record(
            kind,
            name,
            WriteVersions {
                found: live.and_then(|live| live.version),
                left: version_of(object, &left),
            },
        );
        applied.written.push(format!("{kind} {name}"));
    }

    let existing = existing(stores, namespace);
    for stale in objects_to_delete(h, objects, &existing) {
        delete(client, stale).await?;
        own.set(stale.kind.clone(), &stale.namespace, &stale.name, None);
        applied
            .deleted
            .push(format!("{} {}", stale.kind, stale.name));
    }
    Ok(applied)
}

fn with_hash<K: Resource>(mut object: K, hash: &str) -> K {
    object
        .meta_mut()
        .annotations
        .get_or_insert_with(Default::default)
        .insert(DESIRED_HASH_ANNOTATION.to_owned(), hash.to_owned());
    object
}

struct Writer<'a> {
    client: &'a Client,
    namespace: &'a str,
    metrics: &'a Metrics,
}

impl Writer<'_> {
    /// Server-side applies `object`; a workload whose immutable fields changed (422) is
    /// deleted and created again.
    async fn write<K>(&self, object: K, recreate_if_invalid: bool) -> Result<ObjectMeta, Error>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>
            + Serialize
            + DeserializeOwned
            + Clone
            + Debug,
    {
        let api: Api<K> = Api::namespaced(self.client.clone(), self.namespace);
        let kind = K::kind(&());
        let name = object.meta().name.clone().unwrap_or_default();
        let what = format!("{kind} {}/{name}", self.namespace);
        let params = PatchParams::apply(FIELD_MANAGER).force();
        let result = api
            .patch(&name, &params, &Patch::Apply(&object))
            .await
            .map_err(Error::api(format!("applying {what}")));
        match result {
            Ok(live) => Ok(live.meta().clone()),
            Err(e) if recreate_if_invalid && e.is_immutable_field_change() => {
                // The update's refusal names only the fields that cannot change, not whether
                // the new object is valid at all (kube-apiserver does not validate a
                // StatefulSet's new claim templates on update). A dry-run create answers
                // that: validation runs before the name is found taken, so 409 means "valid".
                let check = PostParams {
                    dry_run: true,
                    field_manager: Some(FIELD_MANAGER.to_owned()),
                };
                match api.create(&check, &object).await {
                    Err(kube::Error::Api(status)) if status.code == 409 => {}
                    Ok(_) => {}
                    Err(refused) => {
                        return Err(Error::api(format!("recreating {what}"))(refused));
                    }
                }
                tracing::info!(object = %what, error = %e, "recreating: an immutable field changed");
                api.delete(&name, &DeleteParams::background())
                    .await
                    .map_err(Error::api(format!("deleting {what} to recreate it")))?;
                self.metrics.workload_recreated(&kind);
                let live = api
                    .patch(&name, &params, &Patch::Apply(&object))
                    .await
                    .map_err(Error::api(format!("recreating {what}")))?;
                Ok(live.meta().clone())
            }
            Err(e) => Err(e),
        }
    }
}

/// What the stores show of the live copy of an object.
#[derive(Debug)]
struct LiveState {
    /// The desired-content hash it was written from.
    hash: Option<String>,
    /// See [`Written`].
    version: Option<String>,
}

/// The version [`Written`] tracks for `object`'s kind, from a live object's metadata.
fn version_of(object: &DesiredObject, meta: &ObjectMeta) -> Option<String> {
    match object {
        DesiredObject::Secret(_) | DesiredObject::Service(_) => meta.resource_version.clone(),
        DesiredObject::StatefulSet(_)
        | DesiredObject::DaemonSet(_)
        | DesiredObject::Deployment(_) => meta.generation.map(|g| g.to_string()),
    }
}

/// The live copy of `object` in the stores, unless it is missing or being deleted.
fn live_state(stores: &Stores, object: &DesiredObject, namespace: &str) -> Option<LiveState> {
    fn of<K>(store: &Store<K>, object: &DesiredObject, namespace: &str) -> Option<LiveState>
    where
        K: Resource<DynamicType = ()> + Clone,
    {
        let live = store.get(&ObjectRef::new(object.name()).within(namespace))?;
        let meta = live.meta();
        if meta.deletion_timestamp.is_some() {
            return None;
        }
        Some(LiveState {
            hash: meta
                .annotations
                .as_ref()
                .and_then(|a| a.get(DESIRED_HASH_ANNOTATION))
                .cloned(),
            version: version_of(object, meta),
        })
    }
    match object {
        DesiredObject::Secret(_) => of(&stores.secrets, object, namespace),
        DesiredObject::Service(_) => of(&stores.services, object, namespace),
        DesiredObject::StatefulSet(_) => of(&stores.stateful_sets, object, namespace),
        DesiredObject::DaemonSet(_) => of(&stores.daemon_sets, object, namespace),
        DesiredObject::Deployment(_) => of(&stores.deployments, object, namespace),
    }
}

/// The objects of the kinds the operator creates in `namespace`, as the stores hold them.
fn existing(stores: &Stores, namespace: &str) -> Vec<ExistingObject> {
    fn of<K>(store: &Store<K>, kind: &str, namespace: &str, out: &mut Vec<ExistingObject>)
    where
        K: Resource<DynamicType = ()> + Clone,
    {
        let in_namespace = store.state_filter(|o| o.meta().namespace.as_deref() == Some(namespace));
        out.extend(in_namespace.iter().map(|o| existing_object(kind, o.meta())));
    }
    let mut out = Vec::new();
    of(&stores.secrets, "Secret", namespace, &mut out);
    of(&stores.services, "Service", namespace, &mut out);
    of(&stores.stateful_sets, "StatefulSet", namespace, &mut out);
    of(&stores.daemon_sets, "DaemonSet", namespace, &mut out);
    of(&stores.deployments, "Deployment", namespace, &mut out);
    out
}

fn existing_object(kind: &str, meta: &ObjectMeta) -> ExistingObject {
    ExistingObject {
        kind: kind.to_owned(),
        namespace: meta.namespace.clone().unwrap_or_default(),
        name: meta.name.clone().unwrap_or_default(),
        labels: meta.labels.clone().unwrap_or_default(),
        owner_references: meta.owner_references.clone().unwrap_or_default(),
    }
}

async fn delete(client: &Client, object: &ExistingObject) -> Result<(), Error> {
    async fn by_kind<K>(client: &Client, object: &ExistingObject) -> Result<(), kube::Error>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>
            + DeserializeOwned
            + Clone
            + Debug,
    {
        let api: Api<K> = Api::namespaced(client.clone(), &object.namespace);
        match api.delete(&object.name, &DeleteParams::background()).await {
            Ok(_) => Ok(()),
            // Already gone: what we wanted.
            Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
            Err(e) => Err(e),
        }
    }
    let result = match object.kind.as_str() {
        "Secret" => by_kind::<Secret>(client, object).await,
        "Service" => by_kind::<Service>(client, object).await,
        "StatefulSet" => by_kind::<StatefulSet>(client, object).await,
        "DaemonSet" => by_kind::<DaemonSet>(client, object).await,
        _ => by_kind::<Deployment>(client, object).await,
    };
    result.map_err(Error::api(format!(
        "deleting {} {}/{}",
        object.kind, object.namespace, object.name
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

    fn secret(uid: &str, value: &str) -> DesiredObject {
        DesiredObject::Secret(Secret {
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
        })
    }

    #[test]
    fn drift_is_a_version_the_operator_neither_found_nor_left() {
        let mut written = Written::default();
        // Never written by this process: the hash alone decides.
        assert!(!written.drifted("Secret", "a-config", Some("7")));
        written.record(
            "Secret",
            "a-config",
            WriteVersions {
                found: Some("7".to_owned()),
                left: Some("9".to_owned()),
            },
        );
        // The store still shows the version before our write, or already shows ours.
        assert!(!written.drifted("Secret", "a-config", Some("7")));
        assert!(!written.drifted("Secret", "a-config", Some("9")));
        // Someone else wrote after us.
        assert!(written.drifted("Secret", "a-config", Some("12")));
        // Another object, or another kind of the same name, is not concerned.
        assert!(!written.drifted("Service", "a-config", Some("12")));
        assert!(!written.drifted("Secret", "b-config", Some("12")));
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
    fn workloads_drift_by_generation_and_the_rest_by_resource_version() {
        let meta = ObjectMeta {
            resource_version: Some("41".to_owned()),
            generation: Some(3),
            ..ObjectMeta::default()
        };
        let secret = secret("", "x");
        assert_eq!(version_of(&secret, &meta).as_deref(), Some("41"));
        let statefulset = DesiredObject::StatefulSet(StatefulSet::default());
        assert_eq!(version_of(&statefulset, &meta).as_deref(), Some("3"));
    }

    #[test]
    fn the_hash_ignores_the_owner_uid_and_follows_the_content() {
        let h = |uid, value| desired_hash(&secret(uid, value)).expect("hash");
        assert_eq!(h("", "x"), h("0b0e-uid", "x"));
        assert_ne!(h("", "x"), h("", "y"));
        assert_eq!(h("", "x").len(), 32);
    }
}

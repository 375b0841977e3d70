//! The "apply" step: make the cluster hold the plan's objects, writing only what changed or
//! drifted (through the one [`Writer`]), and delete the managed objects the plan no longer
//! holds. Its result, [`Applied`], says what became of each planned object; the status and
//! the Events are written from it.
//!
//! The order of the writes is the plan's, and the deletions come after every write. For a
//! config stored in segments (`render::segments`) that order is what keeps the config loader
//! of each agent pod from ever finding a head that names a segment not written yet, or gone:
//! * a config's segment Secrets are planned just before their head (`render::plan`), so they
//!   are written before the head that names them;
//! * a head whose segment the API server refused is not written: the live head keeps naming
//!   the segments it named, all still there;
//! * a segment no longer planned is deleted only after its head is written (or found as
//!   planned); while the planned head is not in place, the segments the live one names stay.

use std::collections::BTreeSet;
use std::fmt;

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{Secret, Service};
use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use kube::runtime::reflector::Store;
use render::desired::{DesiredObject, ManagedKind, PlannedObject, Subsystem};
use render::discover::Hierarchy;
use render::plan::segment_of;
use render::segments::SEGMENT_OF_LABEL;
use render::workloads::prune::{ExistingObject, objects_to_delete};

use crate::context::Context;
use crate::error::Error;
use crate::watches::Stores;
use crate::writer::{Known, Wrote};

/// One object the operator manages for an agent, in the agent's namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ManagedRef {
    pub kind: ManagedKind,
    pub name: String,
}

impl fmt::Display for ManagedRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind, self.name)
    }
}

/// What became of one planned object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The live object already held the desired content.
    Unchanged,
    Written,
    /// The API server refused it for good (a 422 that recreating cannot fix, a 403).
    Refused,
    /// Not attempted: an earlier object's transient failure stopped the step, or (a config's
    /// head) a segment it names was refused.
    NotReached,
}

/// One planned object and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AppliedObject {
    pub object: ManagedRef,
    pub subsystem: Subsystem,
    pub outcome: Outcome,
}

/// Why the step did not apply everything.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A transient failure stopped it (retried as a whole, with backoff): what was written
    /// before is not announced, the deletions did not run.
    Stopped(Error),
    /// The API server refused some objects for good; the others were written and the
    /// deletions ran.
    Refused(Error),
}

impl Failure {
    pub(crate) fn error(&self) -> &Error {
        match self {
            Failure::Stopped(e) | Failure::Refused(e) => e,
        }
    }

    pub(crate) fn into_error(self) -> Error {
        match self {
            Failure::Stopped(e) | Failure::Refused(e) => e,
        }
    }
}

/// What one apply step did: every planned object in plan order with its outcome, the
/// objects deleted, and why it fell short, if it did.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    pub objects: Vec<AppliedObject>,
    pub deleted: Vec<ManagedRef>,
    pub failure: Option<Failure>,
}

impl Applied {
    /// The objects written, in plan order.
    pub(crate) fn written(&self) -> impl Iterator<Item = &ManagedRef> {
        self.objects
            .iter()
            .filter(|o| o.outcome == Outcome::Written)
            .map(|o| &o.object)
    }

    pub(crate) fn error(&self) -> Option<&Error> {
        self.failure.as_ref().map(Failure::error)
    }
}

/// Applies every object of `objects` (in order) whose content changed or drifted, then
/// deletes the managed objects of `h`'s agent the plan no longer holds. Stops at the first
/// transient failure; objects the server refuses for good are marked [`Outcome::Refused`]
/// and the others are still written (one bad object must not keep, say, the logs DaemonSet
/// from existing). `known` is what the writer learnt of the agent's objects at its last apply
/// ([`Known`]); it is left knowing the objects of this plan it reached.
pub(crate) async fn apply(
    ctx: &Context,
    h: &Hierarchy,
    objects: &[PlannedObject],
    known: &mut Known,
) -> Applied {
    let mut applied = Applied::default();
    let mut previous = std::mem::take(known);
    let mut refused = Vec::new();
    // The heads of the segments refused so far: not written, so they name no missing segment.
    let mut refused_segments_of: BTreeSet<&str> = BTreeSet::new();
    for planned in objects {
        let object = &planned.object;
        let outcome = match applied.failure {
            Some(_) => Outcome::NotReached,
            None if planned.kind() == ManagedKind::Secret
                && refused_segments_of.contains(planned.name()) =>
            {
                Outcome::NotReached
            }
            None => match write(ctx, object, &mut previous, known).await {
                Ok(Wrote::Unchanged) => Outcome::Unchanged,
                Ok(Wrote::Applied) => Outcome::Written,
                Ok(Wrote::Recreated) => {
                    ctx.metrics.workload_recreated(object.kind().as_str());
                    Outcome::Written
                }
                Err(e) if e.is_transient() => {
                    applied.failure = Some(Failure::Stopped(e));
                    Outcome::NotReached
                }
                Err(e) => {
                    refused_segments_of.extend(segment_of(planned));
                    refused.push(e);
                    Outcome::Refused
                }
            },
        };
        applied.objects.push(AppliedObject {
            object: ManagedRef {
                kind: object.kind(),
                name: object.name().to_owned(),
            },
            subsystem: planned.subsystem,
            outcome,
        });
    }
    if applied.failure.is_some() {
        return applied;
    }

    let existing = existing(&ctx.stores, h.agent_namespace());
    for stale in deletions(h, objects, &applied.objects, &existing) {
        if let Err(e) = delete(ctx, stale).await {
            applied.failure = Some(Failure::Stopped(e));
            return applied;
        }
        applied.deleted.push(ManagedRef {
            kind: stale.kind,
            name: stale.name.clone(),
        });
    }
    applied.failure = Error::refused(refused).map(Failure::Refused);
    applied
}

/// The objects of `existing` to delete once `objects` are applied as `outcomes` says: those
/// the plan no longer holds ([`objects_to_delete`]), but for the segments of a planned head
/// that is not in place (the live head may still name them); heads before segments.
fn deletions<'a>(
    h: &Hierarchy,
    objects: &[PlannedObject],
    outcomes: &[AppliedObject],
    existing: &'a [ExistingObject],
) -> Vec<&'a ExistingObject> {
    let planned_secret = |name: &str| {
        objects
            .iter()
            .any(|o| o.kind() == ManagedKind::Secret && o.name() == name)
    };
    let in_place: BTreeSet<&str> = outcomes
        .iter()
        .filter(|o| o.object.kind == ManagedKind::Secret)
        .filter(|o| matches!(o.outcome, Outcome::Unchanged | Outcome::Written))
        .map(|o| o.object.name.as_str())
        .collect();
    let head_of = |o: &ExistingObject| match o.kind {
        ManagedKind::Secret => o.labels.get(SEGMENT_OF_LABEL).cloned(),
        _ => None,
    };
    let mut stale: Vec<&ExistingObject> = objects_to_delete(h, objects, existing)
        .into_iter()
        .filter(|o| {
            head_of(o).is_none_or(|head| !planned_secret(&head) || in_place.contains(&*head))
        })
        .collect();
    stale.sort_by_key(|o| head_of(o).is_some());
    stale
}

/// Writes one planned object, compared with its kind's store of live objects and with what
/// `previous` knows of it (moved into `next`).
async fn write(
    ctx: &Context,
    object: &DesiredObject,
    previous: &mut Known,
    next: &mut Known,
) -> Result<Wrote, Error> {
    let (w, s, p, n) = (&ctx.writer, &ctx.stores, previous, next);
    match object {
        DesiredObject::Secret(o) => w.write_known(&s.generated_secrets, o, p, n).await,
        DesiredObject::Service(o) => w.write_known(&s.services, o, p, n).await,
        DesiredObject::StatefulSet(o) => w.write_known(&s.stateful_sets, o, p, n).await,
        DesiredObject::DaemonSet(o) => w.write_known(&s.daemon_sets, o, p, n).await,
        DesiredObject::Deployment(o) => w.write_known(&s.deployments, o, p, n).await,
        DesiredObject::Role(o) => w.write_known(&s.roles, o, p, n).await,
        DesiredObject::RoleBinding(o) => w.write_known(&s.role_bindings, o, p, n).await,
    }
}

async fn delete(ctx: &Context, object: &ExistingObject) -> Result<(), Error> {
    let (writer, namespace, name) = (&ctx.writer, &object.namespace, &object.name);
    match object.kind {
        ManagedKind::Secret => writer.delete::<Secret>(namespace, name).await,
        ManagedKind::Service => writer.delete::<Service>(namespace, name).await,
        ManagedKind::StatefulSet => writer.delete::<StatefulSet>(namespace, name).await,
        ManagedKind::DaemonSet => writer.delete::<DaemonSet>(namespace, name).await,
        ManagedKind::Deployment => writer.delete::<Deployment>(namespace, name).await,
        ManagedKind::Role => writer.delete::<Role>(namespace, name).await,
        ManagedKind::RoleBinding => writer.delete::<RoleBinding>(namespace, name).await,
    }
}

/// The objects of the kinds the operator creates in `namespace`, as the stores hold them.
fn existing(stores: &Stores, namespace: &str) -> Vec<ExistingObject> {
    fn of<K>(store: &Store<K>, kind: ManagedKind, namespace: &str, out: &mut Vec<ExistingObject>)
    where
        K: Resource<DynamicType = ()> + Clone,
    {
        let in_namespace = store.state_filter(|o| o.meta().namespace.as_deref() == Some(namespace));
        out.extend(in_namespace.iter().map(|o| existing_object(kind, o.meta())));
    }
    let mut out = Vec::new();
    for kind in ManagedKind::ALL {
        match kind {
            ManagedKind::Secret => of(&stores.secrets, kind, namespace, &mut out),
            ManagedKind::Service => of(&stores.services, kind, namespace, &mut out),
            ManagedKind::StatefulSet => of(&stores.stateful_sets, kind, namespace, &mut out),
            ManagedKind::DaemonSet => of(&stores.daemon_sets, kind, namespace, &mut out),
            ManagedKind::Deployment => of(&stores.deployments, kind, namespace, &mut out),
            ManagedKind::Role => of(&stores.roles, kind, namespace, &mut out),
            ManagedKind::RoleBinding => of(&stores.role_bindings, kind, namespace, &mut out),
        }
    }
    out
}

fn existing_object(kind: ManagedKind, meta: &ObjectMeta) -> ExistingObject {
    ExistingObject {
        kind,
        namespace: meta.namespace.clone().unwrap_or_default(),
        name: meta.name.clone().unwrap_or_default(),
        labels: meta.labels.clone().unwrap_or_default(),
        owner_references: meta.owner_references.clone().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use futures::StreamExt;
    use kube::api::{Api, ListParams, WatchEvent, WatchParams};
    use render::desired::PlanOptions;
    use testkube::RequestMatch;

    use super::*;
    use crate::context::testing::{NS, agent_cluster, context, eventually};

    /// Agent `agent` (UID `agent-uid`) of one MetricsInstance and `monitors` ServiceMonitors,
    /// the `edited`th with another port: a config of several segments.
    fn plan_of(monitors: std::ops::Range<usize>, edited: usize) -> (Hierarchy, Vec<PlannedObject>) {
        let mut text = format!(
            "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {{name: agent, namespace: {NS}, uid: agent-uid}}\nspec:\n  metrics: {{instanceSelector: {{}}}}\n---\napiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata: {{name: primary, namespace: {NS}}}\nspec: {{serviceMonitorSelector: {{}}}}\n"
        );
        for i in monitors {
            let port = if i == edited { "edited" } else { "web" };
            text.push_str(&format!(
                "---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {{name: m-{i:04}, namespace: {NS}}}\nspec: {{selector: {{}}, endpoints: [{{port: {port}}}]}}\n"
            ));
        }
        let mut loader = render::manifest::Loader::new();
        loader.add_source("inputs.yaml", &text);
        let store = loader.finish().store;
        let discovery = render::discover(store.agents().next().expect("the agent"), &store);
        let plan = render::plan::plan(&discovery, &PlanOptions::default());
        assert!(plan.rejections.is_empty(), "{:?}", plan.rejections);
        (discovery.hierarchy, plan.objects)
    }

    /// The config Secrets of `objects`: the head `agent-config`'s segments, in plan order.
    fn segments(objects: &[PlannedObject]) -> Vec<String> {
        objects
            .iter()
            .filter(|o| segment_of(o) == Some("agent-config"))
            .map(|o| o.name().to_owned())
            .collect()
    }

    /// What the API server did to the Secrets of the namespace from `version` on, in order:
    /// `write NAME` and `delete NAME`, until nothing more comes for a second.
    async fn secret_history(api: &Api<Secret>, version: &str) -> Vec<String> {
        let mut events = api
            .watch(&WatchParams::default(), version)
            .await
            .expect("a watch")
            .boxed();
        let mut history = Vec::new();
        while let Ok(Some(event)) =
            tokio::time::timeout(Duration::from_secs(1), events.next()).await
        {
            match event.expect("an event") {
                WatchEvent::Added(s) | WatchEvent::Modified(s) => {
                    history.push(format!("write {}", s.metadata.name.unwrap_or_default()));
                }
                WatchEvent::Deleted(s) => {
                    history.push(format!("delete {}", s.metadata.name.unwrap_or_default()));
                }
                WatchEvent::Bookmark(_) | WatchEvent::Error(_) => {}
            }
        }
        history
    }

    async fn version_now(api: &Api<Secret>) -> String {
        api.list(&ListParams::default())
            .await
            .expect("a list")
            .metadata
            .resource_version
            .expect("a resourceVersion")
    }

    fn position(history: &[String], entry: &str) -> usize {
        history
            .iter()
            .position(|e| e == entry)
            .unwrap_or_else(|| panic!("{entry} not in {history:#?}"))
    }

    /// Segments are written before the head that names them, and the segments a new plan no
    /// longer holds are deleted after the head naming their replacements is written.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn segments_are_written_before_their_head_and_deleted_after_it() {
        let (kube, client) = agent_cluster(Vec::new()).await;
        let (ctx, _readiness) = context(client.clone()).await;
        let api: Api<Secret> = Api::namespaced(client, NS);

        let (h, first) = plan_of(0..600, usize::MAX);
        let first_segments = segments(&first);
        assert!(first_segments.len() > 2, "{first_segments:?}");
        let version = version_now(&api).await;
        let applied = apply(&ctx, &h, &first, &mut Known::default()).await;
        assert!(applied.failure.is_none(), "{:?}", applied.failure);
        let history = secret_history(&api, &version).await;
        let head = position(&history, "write agent-config");
        for segment in &first_segments {
            assert!(position(&history, &format!("write {segment}")) < head);
        }
        eventually("the stores hold every segment", || {
            first_segments.iter().all(|s| {
                ctx.stores
                    .secrets
                    .get(&kube::runtime::reflector::ObjectRef::new(s).within(NS))
                    .is_some()
            })
        })
        .await;

        // The first half of the monitors go, as many come, one is edited: segments go, come
        // and change.
        let (h, second) = plan_of(300..900, 700);
        let second_segments = segments(&second);
        let gone: Vec<&String> = first_segments
            .iter()
            .filter(|s| !second_segments.contains(s))
            .collect();
        assert!(!gone.is_empty(), "{first_segments:?} {second_segments:?}");
        let version = version_now(&api).await;
        let applied = apply(&ctx, &h, &second, &mut Known::default()).await;
        assert!(applied.failure.is_none(), "{:?}", applied.failure);
        let history = secret_history(&api, &version).await;
        let head = position(&history, "write agent-config");
        let written: Vec<&String> = history.iter().filter(|e| e.starts_with("write ")).collect();
        assert!(written.len() >= 2, "{history:#?}");
        for entry in &history {
            if entry.starts_with("write agent-config-") {
                assert!(position(&history, entry) < head, "{history:#?}");
            }
        }
        for segment in gone {
            assert!(
                position(&history, &format!("delete {segment}")) > head,
                "{history:#?}"
            );
        }
        drop(kube);
    }

    /// With what the writer learnt at the last apply, an unchanged plan writes nothing, and a
    /// Secret edited by hand since (a new resourceVersion) is still found drifted and restored.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn known_objects_edited_by_hand_are_still_restored() {
        let (_kube, client) = agent_cluster(Vec::new()).await;
        let (ctx, _readiness) = context(client.clone()).await;
        let api: Api<Secret> = Api::namespaced(client, NS);
        let (h, objects) = plan_of(0..600, usize::MAX);
        let segment = segments(&objects)[1].clone();
        let mut known = Known::default();
        let live_version = |name: &str| {
            ctx.stores
                .generated_secrets
                .get(&kube::runtime::reflector::ObjectRef::new(name).within(NS))
                .and_then(|s| s.metadata.resource_version.clone())
        };
        assert!(
            apply(&ctx, &h, &objects, &mut known)
                .await
                .failure
                .is_none()
        );
        let secrets: Vec<&str> = objects
            .iter()
            .filter(|o| o.kind() == ManagedKind::Secret)
            .map(PlannedObject::name)
            .collect();
        eventually("the store holds every Secret written", || {
            secrets.iter().all(|name| live_version(name).is_some())
        })
        .await;
        for _ in 0..2 {
            let applied = apply(&ctx, &h, &objects, &mut known).await;
            assert!(applied.failure.is_none(), "{:?}", applied.failure);
            let secrets_written = applied
                .written()
                .filter(|o| o.kind == ManagedKind::Secret)
                .count();
            assert_eq!(secrets_written, 0, "{:?}", applied.objects);
        }

        let before = live_version(&segment);
        let edit = serde_json::json!({"data": {"agent.yml": "ZWRpdGVkIGJ5IGhhbmQ="}});
        api.patch(
            &segment,
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(&edit),
        )
        .await
        .expect("a hand edit");
        eventually("the store holds the hand edit", || {
            live_version(&segment) != before
        })
        .await;
        let applied = apply(&ctx, &h, &objects, &mut known).await;
        assert!(applied.failure.is_none(), "{:?}", applied.failure);
        let written: Vec<String> = applied
            .written()
            .filter(|o| o.kind == ManagedKind::Secret)
            .map(|o| o.name.clone())
            .collect();
        assert_eq!(written, [segment]);
    }

    /// A segment the API server refuses keeps its head from being written, and the segments
    /// the live head names from being deleted.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_refused_segment_leaves_the_live_head_and_its_segments_in_place() {
        let (kube, client) = agent_cluster(Vec::new()).await;
        let (ctx, _readiness) = context(client.clone()).await;
        let api: Api<Secret> = Api::namespaced(client, NS);
        let (h, first) = plan_of(0..600, usize::MAX);
        let first_segments = segments(&first);
        assert!(
            apply(&ctx, &h, &first, &mut Known::default())
                .await
                .failure
                .is_none()
        );
        eventually("the stores hold the head and every segment", || {
            std::iter::once(&"agent-config".to_owned())
                .chain(&first_segments)
                .all(|s| {
                    ctx.stores
                        .generated_secrets
                        .get(&kube::runtime::reflector::ObjectRef::new(s).within(NS))
                        .is_some()
                })
        })
        .await;

        // The first Secret written is a changed segment (the assets Secret is unchanged).
        kube.faults()
            .fail_next(RequestMatch::verb_resource("patch", "secrets"), 1, 403);
        let (h, second) = plan_of(300..900, 700);
        let version = version_now(&api).await;
        let applied = apply(&ctx, &h, &second, &mut Known::default()).await;
        assert!(
            matches!(applied.failure, Some(Failure::Refused(_))),
            "{:?}",
            applied.failure
        );
        let outcome = |name: &str| {
            applied
                .objects
                .iter()
                .find(|o| o.object.name == name && o.object.kind == ManagedKind::Secret)
                .map(|o| o.outcome)
        };
        assert_eq!(outcome("agent-config"), Some(Outcome::NotReached));
        let history = secret_history(&api, &version).await;
        assert!(
            !history
                .iter()
                .any(|e| e == "write agent-config" || e.starts_with("delete agent-config")),
            "{history:#?}"
        );
        assert!(
            applied
                .deleted
                .iter()
                .all(|d| !first_segments.contains(&d.name)),
            "{:?}",
            applied.deleted
        );
    }
}

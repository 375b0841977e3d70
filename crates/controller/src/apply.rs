//! The "apply" step: make the cluster hold the plan's objects, writing only what changed or
//! drifted (through the one [`Writer`]), and delete the managed objects the plan no longer
//! holds. Its result, [`Applied`], says what became of each planned object; the status and
//! the Events are written from it.

use std::fmt;

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{Secret, Service};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Resource;
use kube::runtime::reflector::Store;
use render::desired::{DesiredObject, ManagedKind, PlannedObject, Subsystem};
use render::discover::Hierarchy;
use render::workloads::prune::{ExistingObject, objects_to_delete};

use crate::context::Context;
use crate::error::Error;
use crate::watches::Stores;
use crate::writer::Wrote;

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
    /// Not attempted: an earlier object's transient failure stopped the step.
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
/// from existing).
pub(crate) async fn apply(ctx: &Context, h: &Hierarchy, objects: &[PlannedObject]) -> Applied {
    let mut applied = Applied::default();
    let mut refused = Vec::new();
    for planned in objects {
        let object = &planned.object;
        let outcome = match applied.failure {
            Some(_) => Outcome::NotReached,
            None => match write(ctx, object).await {
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
    for stale in objects_to_delete(h, objects, &existing) {
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

/// Writes one planned object, compared with its kind's store of live objects.
async fn write(ctx: &Context, object: &DesiredObject) -> Result<Wrote, Error> {
    let (writer, stores) = (&ctx.writer, &ctx.stores);
    match object {
        DesiredObject::Secret(o) => writer.write(&stores.generated_secrets, o).await,
        DesiredObject::Service(o) => writer.write(&stores.services, o).await,
        DesiredObject::StatefulSet(o) => writer.write(&stores.stateful_sets, o).await,
        DesiredObject::DaemonSet(o) => writer.write(&stores.daemon_sets, o).await,
        DesiredObject::Deployment(o) => writer.write(&stores.deployments, o).await,
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

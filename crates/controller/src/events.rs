//! Events users find with `kubectl describe`: Normal on the agent when its objects change,
//! Warning `InvalidConfiguration` on the agent and on each rejected object, the note starting
//! with the rejection's own reason (`InvalidRegex: ServiceMonitor shop/web: ...`). A rejection
//! is announced once, not again on every reconcile while it stays.

use std::collections::BTreeSet;

use api::GrafanaAgent;
use k8s_openapi::api::core::v1::ObjectReference;
use kube::Resource;
use kube::runtime::events::{Event, EventType, Recorder};
use kube::runtime::reflector::{ObjectRef, Store};
use render::Rejection;
use render::input_ref::{InputRef, Kind};

use crate::apply::Applied;
use crate::watches::Stores;

/// The Events API limit on a note.
const NOTE_LIMIT: usize = 1024;

/// What was last announced for one agent.
#[derive(Debug, Default)]
pub(crate) struct Announced {
    rejections: BTreeSet<String>,
}

pub(crate) async fn publish(
    recorder: &Recorder,
    stores: &Stores,
    agent: &GrafanaAgent,
    applied: &Applied,
    rejections: &[Rejection],
    announced: &mut Announced,
) {
    let agent_ref = agent.object_ref(&());
    if !applied.is_empty() {
        let mut parts = Vec::new();
        if !applied.written.is_empty() {
            parts.push(format!("applied {}", applied.written.join(", ")));
        }
        if !applied.deleted.is_empty() {
            parts.push(format!("deleted {}", applied.deleted.join(", ")));
        }
        let event = Event {
            type_: EventType::Normal,
            reason: "Applied".to_owned(),
            note: Some(truncate(parts.join("; "))),
            action: "Reconcile".to_owned(),
            secondary: None,
        };
        send(recorder, &event, &agent_ref).await;
    }

    let current: BTreeSet<String> = rejections.iter().map(ToString::to_string).collect();
    for rejection in rejections {
        let text = rejection.to_string();
        if announced.rejections.contains(&text) {
            continue;
        }
        let event = Event {
            type_: EventType::Warning,
            reason: api::status::reason::INVALID_CONFIGURATION.to_owned(),
            note: Some(truncate(format!("{}: {text}", rejection.reason))),
            action: "Render".to_owned(),
            secondary: None,
        };
        send(recorder, &event, &agent_ref).await;
        if rejection.object.kind != Kind::GrafanaAgent {
            let object = reference(stores, &rejection.object);
            send(recorder, &event, &object).await;
        }
    }
    announced.rejections = current;
}

async fn send(recorder: &Recorder, event: &Event, on: &ObjectReference) {
    if let Err(e) = recorder.publish(event, on).await {
        // The outcome is also in the status; an Event lost is reported, not fatal.
        tracing::warn!(
            object = on.name.as_deref().unwrap_or_default(),
            kind = on.kind.as_deref().unwrap_or_default(),
            error = %e,
            "publishing an event failed"
        );
    }
}

fn truncate(mut note: String) -> String {
    if note.len() > NOTE_LIMIT {
        let mut end = NOTE_LIMIT - 3;
        while !note.is_char_boundary(end) {
            end -= 1;
        }
        note.truncate(end);
        note.push_str("...");
    }
    note
}

/// An ObjectReference to an input object, with its UID when the stores know it (kubectl
/// describe matches Events by UID).
fn reference(stores: &Stores, object: &InputRef) -> ObjectReference {
    fn uid<K: Resource<DynamicType = ()> + Clone>(
        store: &Store<K>,
        o: &InputRef,
    ) -> Option<String> {
        store
            .get(&ObjectRef::new(&o.name).within(&o.namespace))?
            .meta()
            .uid
            .clone()
    }
    let (api_version, uid) = match object.kind {
        Kind::GrafanaAgent => (GRAFANA, uid(&stores.agents, object)),
        Kind::MetricsInstance => (GRAFANA, uid(&stores.metrics_instances, object)),
        Kind::LogsInstance => (GRAFANA, uid(&stores.logs_instances, object)),
        Kind::PodLogs => (GRAFANA, uid(&stores.pod_logs, object)),
        Kind::Integration => (GRAFANA, uid(&stores.integrations, object)),
        Kind::ServiceMonitor => (COREOS, uid(&stores.service_monitors, object)),
        Kind::PodMonitor => (COREOS, uid(&stores.pod_monitors, object)),
        Kind::Probe => (COREOS, uid(&stores.probes, object)),
        Kind::Secret => ("v1", uid(&stores.secrets, object)),
        Kind::ConfigMap => ("v1", uid(&stores.config_maps, object)),
        Kind::Namespace => ("v1", None),
    };
    ObjectReference {
        api_version: Some(api_version.to_owned()),
        kind: Some(object.kind.as_str().to_owned()),
        namespace: (!object.namespace.is_empty()).then(|| object.namespace.clone()),
        name: Some(object.name.clone()),
        uid,
        ..ObjectReference::default()
    }
}

const GRAFANA: &str = "monitoring.grafana.com/v1alpha1";
const COREOS: &str = "monitoring.coreos.com/v1";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_notes_are_cut_at_a_character_boundary() {
        let note = "é".repeat(NOTE_LIMIT);
        let cut = truncate(note);
        assert!(cut.len() <= NOTE_LIMIT);
        assert!(cut.ends_with("..."));
        assert_eq!(truncate("short".to_owned()), "short");
    }
}

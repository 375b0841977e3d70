//! Events users find with `kubectl describe`: Normal `Applied` on the agent when what a
//! reconcile wrote or deleted differs from what the last announced one did (a change of
//! outcome: the config Secret written at every monitor edit is announced once, not per edit),
//! Warning `InvalidConfiguration` on the agent and on each rejected object, the note starting
//! with the rejection's own reason (`InvalidRegex: ServiceMonitor shop/web: ...`), a Warning
//! under a warning's own reason on the agent and the object (`AlloyDifference`,
//! `UnusedSetting`, `UnknownField`: what the pods do not use; the object runs), and a
//! Warning on the agent when applying failed, its reason the error's category
//! (`crate::error::Category::reason`). A rejection or a failure is announced once, not again on
//! every reconcile (or retry) while it stays. `crate::publisher` writes them.

use std::collections::BTreeSet;

use api::GrafanaAgent;
use k8s_openapi::api::core::v1::ObjectReference;
use kube::Resource;
use kube::runtime::events::{Event, EventType};
use render::Rejection;
use render::input_ref::{InputRef, Kind};

use crate::apply::{Applied, Failure};
use crate::context::Context;
use crate::publisher::Publisher;
use crate::watches::Stores;

/// The Events API limit on a note.
const NOTE_LIMIT: usize = 1024;

/// What was last announced for one agent.
#[derive(Debug, Default)]
pub(crate) struct Announced {
    rejections: BTreeSet<String>,
    /// The failure of the last reconcile, if it failed.
    failure: Option<String>,
    /// The note of the last `Applied` Event.
    applied: Option<String>,
}

/// The note of an `Applied` Event for `applied`, `None` when nothing was written or deleted,
/// or when a transient failure stopped the step (its retry tells what it wrote).
fn applied_note(applied: &Applied) -> Option<String> {
    if let Some(Failure::Stopped(_)) = applied.failure {
        return None;
    }
    let mut parts = Vec::new();
    let written: Vec<String> = applied.written().map(ToString::to_string).collect();
    if !written.is_empty() {
        parts.push(format!("applied {}", written.join(", ")));
    }
    if !applied.deleted.is_empty() {
        let deleted: Vec<String> = applied.deleted.iter().map(ToString::to_string).collect();
        parts.push(format!("deleted {}", deleted.join(", ")));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// What one reconcile did, as its Events tell it.
pub(crate) struct Outcome<'a> {
    pub applied: &'a Applied,
    pub rejections: &'a [Rejection],
    pub warnings: &'a [Rejection],
}

pub(crate) async fn publish(
    ctx: &Context,
    agent: &GrafanaAgent,
    outcome: &Outcome<'_>,
    announced: &mut Announced,
) {
    let recorder = &ctx.publisher;
    let agent_ref = agent.object_ref(&());
    // `Applied` says what a reconcile wrote or deleted when that differs from what the last
    // announced one did (or a failure came between): an edit of a monitor writes the config
    // Secret, and so does the next one; a second Event saying so would cost a request per
    // edit and tell nothing new.
    if let Some(note) = applied_note(outcome.applied)
        && announced.applied.as_ref() != Some(&note)
    {
        let event = Event {
            type_: EventType::Normal,
            reason: "Applied".to_owned(),
            note: Some(truncate(note.clone())),
            action: "Reconcile".to_owned(),
            secondary: None,
        };
        send(recorder, &event, &agent_ref).await;
        announced.applied = Some(note);
    }

    // A failure is announced once, under its category's reason (`Forbidden`, `RefusedByAPI`,
    // ...), until the outcome changes; retries of the same failure add nothing.
    let error = outcome.applied.error();
    let failure = error.map(ToString::to_string);
    if let Some(error) = error
        && announced.failure != failure
    {
        let event = Event {
            type_: EventType::Warning,
            reason: error.category().reason().to_owned(),
            note: Some(truncate(error.to_string())),
            action: "Apply".to_owned(),
            secondary: None,
        };
        send(recorder, &event, &agent_ref).await;
        // What the next successful reconcile writes is news again.
        announced.applied = None;
    }
    announced.failure = failure;

    // Warnings (what the runtime does differently, the fields our schemas lack) are announced
    // like rejections, under their own reason (`AlloyDifference`, `UnusedSetting`,
    // `UnknownField`: one per object, naming its set of fields), and the objects still run.
    let current: BTreeSet<String> = outcome
        .rejections
        .iter()
        .chain(outcome.warnings)
        .map(ToString::to_string)
        .collect();
    let rejected = outcome
        .rejections
        .iter()
        .map(|r| (r, api::status::reason::INVALID_CONFIGURATION));
    let warned = outcome.warnings.iter().map(|w| (w, w.reason.as_str()));
    for (rejection, reason) in rejected.chain(warned) {
        let text = rejection.to_string();
        if announced.rejections.contains(&text) {
            continue;
        }
        let event = Event {
            type_: EventType::Warning,
            reason: reason.to_owned(),
            note: Some(truncate(format!("{}: {text}", rejection.reason))),
            action: "Render".to_owned(),
            secondary: None,
        };
        send(recorder, &event, &agent_ref).await;
        if rejection.object.kind != Kind::GrafanaAgent {
            let object = reference(&ctx.stores, &rejection.object);
            send(recorder, &event, &object).await;
        }
    }
    announced.rejections = current;
}

async fn send(recorder: &Publisher, event: &Event, on: &ObjectReference) {
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
    ObjectReference {
        api_version: Stores::api_version(object.kind),
        kind: Some(object.kind.as_str().to_owned()),
        namespace: (!object.namespace.is_empty()).then(|| object.namespace.clone()),
        name: Some(object.name.clone()),
        uid: stores.uid(object.kind, &object.namespace, &object.name),
        ..ObjectReference::default()
    }
}

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

//! Writes Events (events.k8s.io/v1) for the controller. Repeats of one Event fold into a
//! series as usual, but a series is one object, type, reason, action *and note*: kube-runtime's
//! `Recorder` (like client-go's) keys a series without the note and keeps its first note, so a
//! second, different rejection of the same monitor never showed in `kubectl describe`, and
//! `Applied` kept saying what the first write of the series wrote.
//!
//! What was announced is remembered per process, so a restart would announce every standing
//! rejection again (2 Events per rejected object at each start). Before its first Event the
//! [`Publisher`] lists the Events this controller already published (one paginated list,
//! `reportingController=agent-operator`, in the watched namespace or cluster-wide), and an
//! Event identical to one of them (object, type, reason, action and note) is not sent again
//! by the new process.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::{Event as EventObject, EventSeries};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::Client;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::events::{Event, EventType, Reporter};

/// How long a published Event can be continued as a series (as kube-runtime's `Recorder`).
const SERIES_TTL: Duration = Duration::from_secs(6 * 60);

/// How long an Event found in the cluster at start is taken as still there: the API server's
/// default `--event-ttl`. Bounds what is kept of the Events no reconcile repeats.
const EVENT_TTL: SignedDuration = SignedDuration::from_hours(1);

/// The Events this controller had published when the process started, by what they say,
/// with when each was last observed. An entry is used once: the first identical Event of
/// this process is not sent; a later one (the same rejection back after it went away) is.
type Existing = Mutex<HashMap<SeriesKey, Timestamp>>;

/// Writes Events, folding repeats of the same note into a series. Shared by every reconcile.
pub(crate) struct Publisher {
    client: Client,
    reporter: Reporter,
    /// `--namespace`: where the Events published earlier are listed (else cluster-wide).
    namespace: Option<String>,
    series: Mutex<HashMap<SeriesKey, Series>>,
    /// Listed before the first Event is published.
    existing: tokio::sync::OnceCell<Existing>,
}

/// What makes two Events one series: the same object, type, reason, action and note.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct SeriesKey {
    regarding: (
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
    ),
    type_: &'static str,
    reason: String,
    action: String,
    note: Option<String>,
}

#[derive(Debug, Clone)]
struct Series {
    /// The Event object's name and namespace.
    name: String,
    namespace: String,
    count: i32,
    last: Instant,
}

impl Publisher {
    pub(crate) fn new(client: Client, reporter: Reporter, namespace: Option<String>) -> Publisher {
        Publisher {
            client,
            reporter,
            namespace,
            series: Mutex::default(),
            existing: tokio::sync::OnceCell::new(),
        }
    }

    /// The Events this controller published before this process started (see [`Existing`]).
    /// A list that fails is logged and taken as empty: Events are then sent as before.
    async fn list_existing(&self) -> Existing {
        let api: Api<EventObject> = match &self.namespace {
            Some(ns) => Api::namespaced(self.client.clone(), ns),
            None => Api::all(self.client.clone()),
        };
        let mut params = ListParams::default()
            .fields(&format!("reportingController={}", self.reporter.controller))
            .limit(500);
        let mut found = HashMap::new();
        loop {
            let page = match api.list(&params).await {
                Ok(page) => page,
                Err(e) => {
                    tracing::warn!(error = %e, "listing the Events published earlier failed; a standing rejection is announced again");
                    return Mutex::new(found);
                }
            };
            for event in page.items {
                if event.reporting_controller.as_deref() != Some(&self.reporter.controller) {
                    continue;
                }
                if let Some((key, observed)) = existing_key(&event) {
                    let newest = found.entry(key).or_insert(observed);
                    *newest = (*newest).max(observed);
                }
            }
            match page.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(token) => params = params.continue_token(&token),
                None => break,
            }
        }
        tracing::debug!(events = found.len(), "Events published earlier");
        Mutex::new(found)
    }

    /// Whether an Event with this key was published before this process started and is
    /// still there; the entry is used up.
    async fn already_published(&self, key: &SeriesKey) -> bool {
        let existing = self.existing.get_or_init(|| self.list_existing()).await;
        let mut existing = existing.lock().unwrap_or_else(PoisonError::into_inner);
        if existing.is_empty() {
            return false;
        }
        let now = Timestamp::now();
        existing.retain(|_, observed| now.duration_since(*observed) < EVENT_TTL);
        existing.remove(key).is_some()
    }

    /// Publishes `event` about `regarding`: a new Event, or the next of its series when the
    /// same one was published in the last [`SERIES_TTL`].
    pub(crate) async fn publish(
        &self,
        event: &Event,
        regarding: &ObjectReference,
    ) -> Result<(), kube::Error> {
        let key = SeriesKey {
            regarding: regarding_key(regarding),
            type_: type_name(event.type_),
            reason: event.reason.clone(),
            action: event.action.clone(),
            note: event.note.clone(),
        };
        if self.already_published(&key).await {
            return Ok(());
        }
        let now = Timestamp::now();
        let earlier = {
            let mut all = self.series.lock().unwrap_or_else(PoisonError::into_inner);
            all.retain(|_, s| s.last.elapsed() < SERIES_TTL);
            all.get(&key).cloned()
        };
        if let Some(mut series) = earlier {
            series.count += 1;
            let patch = serde_json::json!({
                "series": EventSeries {
                    count: series.count,
                    last_observed_time: MicroTime(now),
                }
            });
            let api: Api<EventObject> = Api::namespaced(self.client.clone(), &series.namespace);
            match api
                .patch(&series.name, &PatchParams::default(), &Patch::Merge(&patch))
                .await
            {
                Ok(_) => {
                    series.last = Instant::now();
                    self.remember(key, series);
                    return Ok(());
                }
                // Expired on the server meanwhile: a new Event below.
                Err(kube::Error::Api(status)) if status.code == 404 => {}
                Err(e) => return Err(e),
            }
        }
        let namespace = regarding
            .namespace
            .clone()
            .unwrap_or_else(|| "default".to_owned());
        let object = EventObject {
            metadata: ObjectMeta {
                name: Some(format!(
                    "{}.{:x}",
                    regarding
                        .name
                        .as_deref()
                        .unwrap_or(&self.reporter.controller),
                    now.as_nanosecond()
                )),
                namespace: Some(namespace.clone()),
                ..ObjectMeta::default()
            },
            event_time: Some(MicroTime(now)),
            type_: Some(key.type_.to_owned()),
            reason: Some(event.reason.clone()),
            action: Some(event.action.clone()),
            note: event.note.clone(),
            regarding: Some(regarding.clone()),
            related: event.secondary.clone(),
            reporting_controller: Some(self.reporter.controller.clone()),
            reporting_instance: Some(
                self.reporter
                    .instance
                    .clone()
                    .unwrap_or_else(|| self.reporter.controller.clone()),
            ),
            ..EventObject::default()
        };
        let api: Api<EventObject> = Api::namespaced(self.client.clone(), &namespace);
        let created = api.create(&PostParams::default(), &object).await?;
        self.remember(
            key,
            Series {
                name: created.metadata.name.unwrap_or_default(),
                namespace,
                count: 1,
                last: Instant::now(),
            },
        );
        Ok(())
    }

    fn remember(&self, key: SeriesKey, series: Series) {
        self.series
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, series);
    }
}

/// The object of a series: kind, namespace, name and UID.
fn regarding_key(
    regarding: &ObjectReference,
) -> (
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
) {
    (
        regarding.kind.clone(),
        regarding.namespace.clone(),
        regarding.name.clone(),
        regarding.uid.clone(),
    )
}

/// What makes `event` (listed from the cluster) one series, and when it was last observed.
fn existing_key(event: &EventObject) -> Option<(SeriesKey, Timestamp)> {
    let regarding = event.regarding.as_ref()?;
    let type_ = match event.type_.as_deref()? {
        "Normal" => EventType::Normal,
        "Warning" => EventType::Warning,
        _ => return None,
    };
    let observed = event
        .series
        .as_ref()
        .map(|s| s.last_observed_time.0)
        .or(event.event_time.as_ref().map(|t| t.0))?;
    let key = SeriesKey {
        regarding: regarding_key(regarding),
        type_: type_name(type_),
        reason: event.reason.clone()?,
        action: event.action.clone()?,
        note: event.note.clone(),
    };
    Some((key, observed))
}

fn type_name(type_: EventType) -> &'static str {
    match type_ {
        EventType::Normal => "Normal",
        EventType::Warning => "Warning",
    }
}

//! The controller's Prometheus metrics, named after prometheus-operator's (which users of
//! operators already alert on) with the `agent_operator_` prefix.
//!
//! Labels carry kinds, controller names and states only: never object names, and never a value
//! read from a Secret.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use render::input_ref::Kind;

/// The only controller this crate runs (the kubelet controller labels its own metrics).
pub const CONTROLLER: &str = "grafanaagent";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ControllerLabels {
    pub controller: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ErrorLabels {
    pub controller: String,
    /// What kind of failure (`crate::error::Category::label`): `unavailable`, `conflict`,
    /// `throttled`, `forbidden`, `refused`, `client`, `configuration`, `unstable`.
    pub category: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TriggerLabels {
    pub controller: String,
    /// The kind whose change caused a reconcile.
    pub triggered_by: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ManagedLabels {
    pub controller: String,
    /// The input kind (ServiceMonitor, PodLogs, ...).
    pub resource: String,
    /// `selected` or `rejected`.
    pub state: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResourceLabels {
    /// The watched kind.
    pub resource: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct KindLabels {
    /// StatefulSet, DaemonSet or Deployment.
    pub kind: String,
}

/// Every metric the reconciler updates. Cheap to clone: clones share the same series.
#[derive(Clone)]
pub struct Metrics {
    reconcile_operations: Family<ControllerLabels, Counter>,
    reconcile_errors: Family<ErrorLabels, Counter>,
    reconcile_duration: Family<ControllerLabels, Histogram>,
    triggered: Family<TriggerLabels, Counter>,
    managed_resources: Family<ManagedLabels, Gauge>,
    status_updates: Family<ControllerLabels, Counter>,
    status_update_errors: Family<ControllerLabels, Counter>,
    workload_recreations: Family<KindLabels, Counter>,
    watch_events: Family<ResourceLabels, Counter>,
    watch_operations_failed: Family<ResourceLabels, Counter>,
    list_operations: Family<ResourceLabels, Counter>,
    list_operations_failed: Family<ResourceLabels, Counter>,
    /// Each agent's managed-resources counts; the gauges are their sums.
    managed_by_agent: Arc<Mutex<HashMap<String, HashMap<ManagedLabels, i64>>>>,
}

fn controller() -> ControllerLabels {
    ControllerLabels {
        controller: CONTROLLER.to_owned(),
    }
}

impl Metrics {
    /// Registers every metric in `registry` under the `agent_operator_` prefix.
    pub fn new(registry: &mut Registry) -> Metrics {
        let metrics = Metrics {
            reconcile_operations: Family::default(),
            reconcile_errors: Family::default(),
            reconcile_duration: Family::new_with_constructor(|| {
                Histogram::new(exponential_buckets(0.005, 2.0, 14))
            }),
            triggered: Family::default(),
            managed_resources: Family::default(),
            status_updates: Family::default(),
            status_update_errors: Family::default(),
            workload_recreations: Family::default(),
            watch_events: Family::default(),
            watch_operations_failed: Family::default(),
            list_operations: Family::default(),
            list_operations_failed: Family::default(),
            managed_by_agent: Arc::default(),
        };
        let r = registry.sub_registry_with_prefix("agent_operator");
        r.register(
            "reconcile_operations",
            "Reconciles started",
            metrics.reconcile_operations.clone(),
        );
        r.register(
            "reconcile_errors",
            "Reconciles that failed, by category",
            metrics.reconcile_errors.clone(),
        );
        r.register(
            "reconcile_duration_seconds",
            "Time one reconcile took",
            metrics.reconcile_duration.clone(),
        );
        r.register(
            "triggered",
            "Reconciles queued by a change to an object of the given kind",
            metrics.triggered.clone(),
        );
        r.register(
            "managed_resources",
            "Input objects selected or rejected by the GrafanaAgents, by kind",
            metrics.managed_resources.clone(),
        );
        r.register(
            "status_update_operations",
            "Status subresource writes",
            metrics.status_updates.clone(),
        );
        r.register(
            "status_update_errors",
            "Status subresource writes that failed",
            metrics.status_update_errors.clone(),
        );
        r.register(
            "workload_recreations",
            "Workloads deleted and created again because an immutable field changed",
            metrics.workload_recreations.clone(),
        );
        r.register(
            "watch_events",
            "Watch events received (objects added, changed or deleted), by kind",
            metrics.watch_events.clone(),
        );
        r.register(
            "watch_operations_failed",
            "Watch requests that failed or ended in an error (a 410 Gone, say), by kind",
            metrics.watch_operations_failed.clone(),
        );
        r.register(
            "list_operations",
            "Initial lists and relists, by kind",
            metrics.list_operations.clone(),
        );
        r.register(
            "list_operations_failed",
            "Lists that failed, by kind",
            metrics.list_operations_failed.clone(),
        );
        // Counters that read zero before anything happened, rather than being absent: an
        // alert on `rate(..._errors_total[5m]) > 0` or `increase()` sees the first error.
        let _ = metrics.reconcile_operations.get_or_create(&controller());
        for category in crate::error::Category::ALL {
            let _ = metrics.reconcile_errors.get_or_create(&ErrorLabels {
                controller: CONTROLLER.to_owned(),
                category: category.label().to_owned(),
            });
        }
        let _ = metrics.status_updates.get_or_create(&controller());
        let _ = metrics.status_update_errors.get_or_create(&controller());
        for kind in ["StatefulSet", "DaemonSet", "Deployment"] {
            let _ = metrics.workload_recreations.get_or_create(&KindLabels {
                kind: kind.to_owned(),
            });
        }
        metrics
    }

    /// Creates the per-kind series of a watch at zero.
    pub(crate) fn watching(&self, kind: &str) {
        let _ = self.watch_events.get_or_create(&resource(kind));
        let _ = self.watch_operations_failed.get_or_create(&resource(kind));
        let _ = self.list_operations.get_or_create(&resource(kind));
        let _ = self.list_operations_failed.get_or_create(&resource(kind));
    }

    pub(crate) fn reconcile_started(&self) {
        self.reconcile_operations.get_or_create(&controller()).inc();
    }

    pub(crate) fn reconcile_failed(&self, category: crate::error::Category) {
        self.reconcile_errors
            .get_or_create(&ErrorLabels {
                controller: CONTROLLER.to_owned(),
                category: category.label().to_owned(),
            })
            .inc();
    }

    pub(crate) fn reconcile_took(&self, seconds: f64) {
        self.reconcile_duration
            .get_or_create(&controller())
            .observe(seconds);
    }

    pub(crate) fn triggered_by(&self, kind: &str, agents: usize) {
        let labels = TriggerLabels {
            controller: CONTROLLER.to_owned(),
            triggered_by: kind.to_owned(),
        };
        self.triggered.get_or_create(&labels).inc_by(agents as u64);
    }

    pub(crate) fn status_updated(&self) {
        self.status_updates.get_or_create(&controller()).inc();
    }

    pub(crate) fn status_update_failed(&self) {
        self.status_update_errors.get_or_create(&controller()).inc();
    }

    pub(crate) fn workload_recreated(&self, kind: &str) {
        let labels = KindLabels {
            kind: kind.to_owned(),
        };
        self.workload_recreations.get_or_create(&labels).inc();
    }

    pub(crate) fn watch_event(&self, kind: &str) {
        self.watch_events.get_or_create(&resource(kind)).inc();
    }

    pub(crate) fn watch_failed(&self, kind: &str) {
        self.watch_operations_failed
            .get_or_create(&resource(kind))
            .inc();
    }

    pub(crate) fn list_started(&self, kind: &str) {
        self.list_operations.get_or_create(&resource(kind)).inc();
    }

    pub(crate) fn list_failed(&self, kind: &str) {
        self.list_operations_failed
            .get_or_create(&resource(kind))
            .inc();
    }

    /// Records `agent`'s counts of selected and rejected objects, `(kind, state) -> count`,
    /// replacing what it had; `None` forgets the agent.
    pub(crate) fn set_managed(&self, agent: &str, counts: Option<HashMap<(Kind, Selection), i64>>) {
        let mut by_agent = self
            .managed_by_agent
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let labels = |(kind, state): (Kind, Selection)| ManagedLabels {
            controller: CONTROLLER.to_owned(),
            resource: kind.as_str().to_owned(),
            state: state.as_str().to_owned(),
        };
        match counts {
            Some(c) => {
                by_agent.insert(
                    agent.to_owned(),
                    c.into_iter().map(|(k, v)| (labels(k), v)).collect(),
                );
            }
            None => {
                by_agent.remove(agent);
            }
        }
        let mut totals: HashMap<ManagedLabels, i64> = HashMap::new();
        for counts in by_agent.values() {
            for (k, v) in counts {
                *totals.entry(k.clone()).or_default() += v;
            }
        }
        // Series that dropped to zero must read zero, not keep their last value.
        self.managed_resources.clear();
        for (k, v) in totals {
            self.managed_resources.get_or_create(&k).set(v);
        }
    }
}

/// The `state` label of `agent_operator_managed_resources`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Selection {
    /// Selected by an agent's selectors.
    Selected,
    /// Rejected by discovery or rendering.
    Rejected,
}

impl Selection {
    fn as_str(self) -> &'static str {
        match self {
            Selection::Selected => "selected",
            Selection::Rejected => "rejected",
        }
    }
}

fn resource(kind: &str) -> ResourceLabels {
    ResourceLabels {
        resource: kind.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_read_zero_before_the_first_increment() {
        let mut registry = Registry::default();
        let metrics = Metrics::new(&mut registry);
        metrics.watching("ServiceMonitor");
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).expect("encode");
        for series in [
            r#"agent_operator_reconcile_errors_total{controller="grafanaagent",category="forbidden"} 0"#,
            r#"agent_operator_reconcile_errors_total{controller="grafanaagent",category="unavailable"} 0"#,
            r#"agent_operator_status_update_errors_total{controller="grafanaagent"} 0"#,
            r#"agent_operator_workload_recreations_total{kind="StatefulSet"} 0"#,
            r#"agent_operator_watch_events_total{resource="ServiceMonitor"} 0"#,
            r#"agent_operator_watch_operations_failed_total{resource="ServiceMonitor"} 0"#,
            r#"agent_operator_list_operations_failed_total{resource="ServiceMonitor"} 0"#,
        ] {
            assert!(text.contains(series), "{series} missing from:\n{text}");
        }
        assert!(
            !text.contains("agent_operator_watch_operations_total"),
            "{text}"
        );
    }
}

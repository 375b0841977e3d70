//! Phase 1: from one GrafanaAgent and a snapshot, the hierarchy of selected objects (spec 2).
//!
//! Pure and synchronous. Everything comes out ordered by (namespace, name) (fix for Q5), and
//! every selector consulted is returned as a [`Watch`], so the controller can tell which
//! agents an object change affects without calling the API.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use api::grafana_agent::GrafanaAgent;
use api::{Integration, LogsInstance, MetricsInstance, PodLogs, PodMonitor, Probe, ServiceMonitor};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::assets::{AssetKey, Assets};
use crate::input_ref::kube_like::HasMeta;
use crate::input_ref::{InputRef, Kind};
use crate::references::{self, Reference};
use crate::rejection::Rejection;
use crate::selector;
use crate::snapshot::{Snapshot, labels_of};

/// A MetricsInstance and the monitors it selected.
#[derive(Debug, Clone)]
pub struct MetricsInstanceNode {
    pub instance: Arc<MetricsInstance>,
    pub service_monitors: Vec<Arc<ServiceMonitor>>,
    pub pod_monitors: Vec<Arc<PodMonitor>>,
    pub probes: Vec<Arc<Probe>>,
}

/// A LogsInstance and the PodLogs it selected.
#[derive(Debug, Clone)]
pub struct LogsInstanceNode {
    pub instance: Arc<LogsInstance>,
    pub pod_logs: Vec<Arc<PodLogs>>,
}

/// Everything one GrafanaAgent selected, plus the values of every Secret/ConfigMap key the
/// selected objects refer to.
#[derive(Debug, Clone)]
pub struct Hierarchy {
    pub agent: Arc<GrafanaAgent>,
    pub metrics: Vec<MetricsInstanceNode>,
    pub logs: Vec<LogsInstanceNode>,
    pub integrations: Vec<Arc<Integration>>,
    pub assets: Assets,
}

impl Hierarchy {
    pub fn agent_ref(&self) -> InputRef {
        InputRef::of(Kind::GrafanaAgent, self.agent.as_ref())
    }

    pub fn agent_namespace(&self) -> &str {
        self.agent.metadata.namespace.as_deref().unwrap_or_default()
    }

    pub fn agent_name(&self) -> &str {
        self.agent.metadata.name.as_deref().unwrap_or_default()
    }
}

/// One selector discovery consulted: an object of `kind` belongs to the agent's hierarchy
/// (or may start to) when it matches.
#[derive(Debug, Clone, PartialEq)]
pub enum Watch {
    /// A label selector and namespace selector pair, evaluated for objects of `kind`;
    /// `parent_namespace` is the selecting object's namespace (used when
    /// `namespace_selector` is `None`).
    Labels {
        kind: Kind,
        selector: Option<LabelSelector>,
        namespace_selector: Option<LabelSelector>,
        parent_namespace: String,
    },
    /// One Secret or ConfigMap by name (registered even when it does not exist yet).
    Object {
        kind: Kind,
        namespace: String,
        name: String,
    },
}

impl Watch {
    /// Whether an object of `kind` in `namespace` with `labels` (its namespace carrying
    /// `namespace_labels`) matches this watch.
    pub fn matches(
        &self,
        kind: Kind,
        namespace: &str,
        name: &str,
        labels: &BTreeMap<String, String>,
        namespace_labels: &BTreeMap<String, String>,
    ) -> bool {
        match self {
            Watch::Labels {
                kind: k,
                selector,
                namespace_selector,
                parent_namespace,
            } => {
                *k == kind
                    && selector::matches(selector.as_ref(), labels)
                    && match namespace_selector {
                        None => namespace == parent_namespace,
                        Some(ns) => selector::matches(Some(ns), namespace_labels),
                    }
            }
            Watch::Object {
                kind: k,
                namespace: ns,
                name: n,
            } => *k == kind && ns == namespace && n == name,
        }
    }
}

/// The result of discovery for one agent.
#[derive(Debug, Clone)]
pub struct Discovery {
    pub hierarchy: Hierarchy,
    /// Objects (or parts of objects) left out, with the reason.
    pub rejections: Vec<Rejection>,
    /// Every selector and named object the result depends on.
    pub watches: Vec<Watch>,
}

struct Discoverer<'a> {
    snapshot: &'a Snapshot,
    rejections: Vec<Rejection>,
    watches: Vec<Watch>,
    /// The [`Watch::Object`]s already in `watches`: thousands of monitors name the same few
    /// Secrets per namespace, and a linear search per reference made discovery quadratic.
    watched_objects: HashSet<(Kind, String, String)>,
    assets: Assets,
}

impl Discoverer<'_> {
    /// Objects of `kind` in `candidates` selected by (`label_selector`, `namespace_selector`)
    /// from `parent`, whose namespace is the default. An invalid selector selects nothing and
    /// is reported against `parent` at `field`.
    fn select<T: HasMeta>(
        &mut self,
        kind: Kind,
        candidates: &[Arc<T>],
        parent: &InputRef,
        fields: [&str; 2],
        label_selector: Option<&LabelSelector>,
        namespace_selector: Option<&LabelSelector>,
    ) -> Vec<Arc<T>> {
        self.watches.push(Watch::Labels {
            kind,
            selector: label_selector.cloned(),
            namespace_selector: namespace_selector.cloned(),
            parent_namespace: parent.namespace.clone(),
        });
        for (field, sel) in fields.into_iter().zip([label_selector, namespace_selector]) {
            if let Some(Err(e)) = sel.map(selector::validate) {
                let f = field.to_owned();
                self.rejections
                    .push(Rejection::new(parent.clone(), f, e.to_string()));
                return Vec::new();
            }
        }
        candidates
            .iter()
            .filter(|c| {
                let meta = c.meta();
                let ns = meta.namespace.as_deref().unwrap_or_default();
                let namespace_ok = match namespace_selector {
                    None => ns == parent.namespace,
                    Some(nsel) => selector::matches(Some(nsel), self.snapshot.namespace_labels(ns)),
                };
                namespace_ok && selector::matches(label_selector, labels_of(c.as_ref()))
            })
            .cloned()
            .collect()
    }

    /// Resolves `refs` of `owner` into the asset store. Returns false (and reports) when a
    /// referenced Secret exists without the key, or its file name collides.
    fn resolve(&mut self, owner: &InputRef, refs: Vec<Reference>) -> bool {
        let mut ok = true;
        for Reference { field, key } in refs {
            self.watch_object(&key);
            if let Err(e) = self.assets.resolve(self.snapshot, &key) {
                self.rejections
                    .push(Rejection::new(owner.clone(), field, e.to_string()));
                ok = false;
            }
        }
        ok
    }

    fn watch_object(&mut self, key: &AssetKey) {
        let kind = match key.source {
            crate::assets::AssetSource::Secret => Kind::Secret,
            crate::assets::AssetSource::ConfigMap => Kind::ConfigMap,
        };
        let object = (kind, key.namespace.clone(), key.name.clone());
        if self.watched_objects.contains(&object) {
            return;
        }
        self.watches.push(Watch::Object {
            kind,
            namespace: object.1.clone(),
            name: object.2.clone(),
        });
        self.watched_objects.insert(object);
    }

    /// Keeps the leaf objects whose references all resolve; reports the others.
    fn resolved_leaves<T: HasMeta>(
        &mut self,
        kind: Kind,
        objects: Vec<Arc<T>>,
        refs: impl Fn(&T) -> Vec<Reference>,
    ) -> Vec<Arc<T>> {
        objects
            .into_iter()
            .filter(|o| {
                let r = InputRef::of(kind, o.as_ref());
                self.resolve(&r, refs(o))
            })
            .collect()
    }
}

/// Builds the hierarchy of `agent` from `snapshot` (spec 2.2), rejecting only the objects at
/// fault. `snapshot` must be sorted ([`Snapshot::sort`]).
pub fn discover(agent: &Arc<GrafanaAgent>, snapshot: &Snapshot) -> Discovery {
    let mut d = Discoverer {
        snapshot,
        rejections: Vec::new(),
        watches: Vec::new(),
        watched_objects: HashSet::new(),
        assets: Assets::default(),
    };
    let agent_ref = InputRef::of(Kind::GrafanaAgent, agent.as_ref());
    let spec = &agent.spec;
    d.resolve(&agent_ref, references::of_agent(agent));

    let metrics = spec.metrics.as_ref();
    let metrics_instances = d.select(
        Kind::MetricsInstance,
        &snapshot.metrics_instances,
        &agent_ref,
        [
            "spec.metrics.instanceSelector",
            "spec.metrics.instanceNamespaceSelector",
        ],
        metrics.and_then(|m| m.instance_selector.as_ref()),
        metrics.and_then(|m| m.instance_namespace_selector.as_ref()),
    );
    let deny_fs = metrics
        .and_then(|m| m.arbitrary_fs_access_through_sms.as_ref())
        .is_some_and(|a| a.deny);
    let metrics = metrics_instances
        .into_iter()
        .map(|instance| {
            let me = InputRef::of(Kind::MetricsInstance, instance.as_ref());
            d.resolve(&me, references::of_metrics_instance(&instance));
            let s = &instance.spec;
            let sms = d.select(
                Kind::ServiceMonitor,
                &snapshot.service_monitors,
                &me,
                ["spec.serviceMonitorSelector", "spec.serviceMonitorNamespaceSelector"],
                s.service_monitor_selector.as_ref(),
                s.service_monitor_namespace_selector.as_ref(),
            );
            let sms: Vec<_> = sms
                .into_iter()
                .filter(|sm| {
                    let denied = deny_fs.then(|| file_access(sm)).flatten();
                    if let Some(field) = &denied {
                        d.rejections.push(Rejection::new(
                            InputRef::of(Kind::ServiceMonitor, sm.as_ref()),
                            field.clone(),
                            format!(
                                "reads a file from the agent's filesystem, which GrafanaAgent {} denies (spec.metrics.arbitraryFSAccessThroughSMs.deny)",
                                agent_ref.key()
                            ),
                        ));
                    }
                    denied.is_none()
                })
                .collect();
            let pms = d.select(
                Kind::PodMonitor,
                &snapshot.pod_monitors,
                &me,
                ["spec.podMonitorSelector", "spec.podMonitorNamespaceSelector"],
                s.pod_monitor_selector.as_ref(),
                s.pod_monitor_namespace_selector.as_ref(),
            );
            let probes = d.select(
                Kind::Probe,
                &snapshot.probes,
                &me,
                ["spec.probeSelector", "spec.probeNamespaceSelector"],
                s.probe_selector.as_ref(),
                s.probe_namespace_selector.as_ref(),
            );
            MetricsInstanceNode {
                service_monitors: d.resolved_leaves(Kind::ServiceMonitor, sms, references::of_service_monitor),
                pod_monitors: d.resolved_leaves(Kind::PodMonitor, pms, references::of_pod_monitor),
                probes: d.resolved_leaves(Kind::Probe, probes, references::of_probe),
                instance,
            }
        })
        .collect();

    let logs_spec = spec.logs.as_ref();
    let logs_instances = d.select(
        Kind::LogsInstance,
        &snapshot.logs_instances,
        &agent_ref,
        [
            "spec.logs.instanceSelector",
            "spec.logs.instanceNamespaceSelector",
        ],
        logs_spec.and_then(|l| l.instance_selector.as_ref()),
        logs_spec.and_then(|l| l.instance_namespace_selector.as_ref()),
    );
    let logs = logs_instances
        .into_iter()
        .map(|instance| {
            let me = InputRef::of(Kind::LogsInstance, instance.as_ref());
            d.resolve(&me, references::of_logs_instance(&instance));
            let pod_logs = d.select(
                Kind::PodLogs,
                &snapshot.pod_logs,
                &me,
                ["spec.podLogsSelector", "spec.podLogsNamespaceSelector"],
                instance.spec.pod_logs_selector.as_ref(),
                instance.spec.pod_logs_namespace_selector.as_ref(),
            );
            LogsInstanceNode { pod_logs, instance }
        })
        .collect();

    let integrations_spec = spec.integrations.as_ref();
    let integrations = d.select(
        Kind::Integration,
        &snapshot.integrations,
        &agent_ref,
        [
            "spec.integrations.selector",
            "spec.integrations.namespaceSelector",
        ],
        integrations_spec.and_then(|i| i.selector.as_ref()),
        integrations_spec.and_then(|i| i.namespace_selector.as_ref()),
    );
    let integrations =
        d.resolved_leaves(Kind::Integration, integrations, references::of_integration);

    d.rejections.sort();
    d.rejections.dedup();
    Discovery {
        hierarchy: Hierarchy {
            agent: agent.clone(),
            metrics,
            logs,
            integrations,
            assets: d.assets,
        },
        rejections: d.rejections,
        watches: d.watches,
    }
}

/// The first field of `sm` that reads a file from the agent's filesystem (spec 2.3).
fn file_access(sm: &ServiceMonitor) -> Option<String> {
    sm.spec.endpoints.iter().enumerate().find_map(|(i, e)| {
        let set = |s: &Option<String>| s.as_deref().is_some_and(|v| !v.is_empty());
        if set(&e.bearer_token_file) {
            return Some(format!("spec.endpoints[{i}].bearerTokenFile"));
        }
        let tls = e.tls_config.as_ref()?;
        [
            ("caFile", &tls.ca_file),
            ("certFile", &tls.cert_file),
            ("keyFile", &tls.key_file),
        ]
        .into_iter()
        .find(|(_, v)| set(v))
        .map(|(name, _)| format!("spec.endpoints[{i}].tlsConfig.{name}"))
    })
}

//! Every input object the operator reads, at one moment. `render` fills it from files; the
//! controller fills it from its reflector stores. Discovery reads nothing else.

use std::collections::BTreeMap;
use std::sync::Arc;

use api::{
    GrafanaAgent, Integration, LogsInstance, MetricsInstance, PodLogs, PodMonitor, Probe,
    ServiceMonitor,
};

use crate::input_ref::kube_like::HasMeta;

/// `(namespace, name)`.
pub type NamespacedName = (String, String);

/// The data of one Secret or ConfigMap: key to raw bytes (ConfigMap `data` and `binaryData`
/// merged, `data` winning).
pub type KeyValues = BTreeMap<String, Vec<u8>>;

/// All inputs, each list sorted by (namespace, name) by [`Snapshot::sort`].
#[derive(Debug, Default, Clone)]
pub struct Snapshot {
    pub agents: Vec<Arc<GrafanaAgent>>,
    pub metrics_instances: Vec<Arc<MetricsInstance>>,
    pub logs_instances: Vec<Arc<LogsInstance>>,
    pub pod_logs: Vec<Arc<PodLogs>>,
    pub integrations: Vec<Arc<Integration>>,
    pub service_monitors: Vec<Arc<ServiceMonitor>>,
    pub pod_monitors: Vec<Arc<PodMonitor>>,
    pub probes: Vec<Arc<Probe>>,
    /// Namespace name to its labels. A namespace absent here exists without labels.
    pub namespaces: BTreeMap<String, BTreeMap<String, String>>,
    pub secrets: BTreeMap<NamespacedName, KeyValues>,
    pub config_maps: BTreeMap<NamespacedName, KeyValues>,
}

static NO_LABELS: BTreeMap<String, String> = BTreeMap::new();

/// `(namespace, name)` of any object.
pub fn namespaced_name<T: HasMeta>(object: &T) -> NamespacedName {
    let meta = object.meta();
    (
        meta.namespace.clone().unwrap_or_default(),
        meta.name.clone().unwrap_or_default(),
    )
}

/// The labels of any object (empty when it has none).
pub fn labels_of<T: HasMeta>(object: &T) -> &BTreeMap<String, String> {
    object.meta().labels.as_ref().unwrap_or(&NO_LABELS)
}

impl Snapshot {
    /// The labels of namespace `name`; a namespace nobody declared has none.
    pub fn namespace_labels(&self, name: &str) -> &BTreeMap<String, String> {
        self.namespaces.get(name).unwrap_or(&NO_LABELS)
    }

    /// Orders every list by (namespace, name), so discovery output is deterministic.
    pub fn sort(&mut self) {
        fn by_key<T: HasMeta>(list: &mut [Arc<T>]) {
            list.sort_by_cached_key(|o| namespaced_name(o.as_ref()));
        }
        by_key(&mut self.agents);
        by_key(&mut self.metrics_instances);
        by_key(&mut self.logs_instances);
        by_key(&mut self.pod_logs);
        by_key(&mut self.integrations);
        by_key(&mut self.service_monitors);
        by_key(&mut self.pod_monitors);
        by_key(&mut self.probes);
    }
}

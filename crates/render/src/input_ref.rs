//! Naming the objects the operator reads, for messages, indexes and status. The type is
//! `InputRef` rather than `ObjectRef` so it never clashes with `kube_runtime::reflector::ObjectRef`
//! in the controller.

use std::fmt;

/// The kinds of input object the operator reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    GrafanaAgent,
    MetricsInstance,
    LogsInstance,
    PodLogs,
    Integration,
    ServiceMonitor,
    PodMonitor,
    Probe,
    ScrapeConfig,
    Secret,
    ConfigMap,
    Namespace,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::GrafanaAgent => "GrafanaAgent",
            Kind::MetricsInstance => "MetricsInstance",
            Kind::LogsInstance => "LogsInstance",
            Kind::PodLogs => "PodLogs",
            Kind::Integration => "Integration",
            Kind::ServiceMonitor => "ServiceMonitor",
            Kind::PodMonitor => "PodMonitor",
            Kind::Probe => "Probe",
            Kind::ScrapeConfig => "ScrapeConfig",
            Kind::Secret => "Secret",
            Kind::ConfigMap => "ConfigMap",
            Kind::Namespace => "Namespace",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One object: kind, namespace (empty for cluster-scoped kinds) and name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InputRef {
    pub kind: Kind,
    pub namespace: String,
    pub name: String,
}

impl InputRef {
    pub fn new(kind: Kind, namespace: impl Into<String>, name: impl Into<String>) -> Self {
        InputRef {
            kind,
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    /// The object's reference as the kube `Resource` metadata gives it.
    pub fn of<K: kube::core::Resource>(kind: Kind, object: &K) -> Self {
        let meta = object.meta();
        InputRef::new(
            kind,
            meta.namespace.clone().unwrap_or_default(),
            meta.name.clone().unwrap_or_default(),
        )
    }

    /// `namespace/name`, the form upstream uses in config names.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

impl fmt::Display for InputRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace.is_empty() {
            write!(f, "{} {}", self.kind, self.name)
        } else {
            write!(f, "{} {}/{}", self.kind, self.namespace, self.name)
        }
    }
}

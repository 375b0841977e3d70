//! The CustomResourceDefinitions generated from our types.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::CustomResourceExt;

use crate::{
    GrafanaAgent, Integration, LogsInstance, MetricsInstance, PodMonitor, Probe, ServiceMonitor,
};

/// Which CRDs to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrdGroup {
    /// monitoring.grafana.com: the operator's own kinds.
    Grafana,
    /// monitoring.coreos.com: the prometheus-operator kinds.
    Coreos,
}

/// Every CRD of `group` (or of both groups), sorted by name.
pub fn crds(group: Option<CrdGroup>) -> Vec<CustomResourceDefinition> {
    let mut all = Vec::new();
    if group != Some(CrdGroup::Coreos) {
        all.extend([
            GrafanaAgent::crd(),
            Integration::crd(),
            LogsInstance::crd(),
            MetricsInstance::crd(),
            crate::pod_logs::crd(),
        ]);
    }
    if group != Some(CrdGroup::Grafana) {
        all.extend([
            PodMonitor::crd(),
            Probe::crd(),
            crate::ScrapeConfig::crd(),
            ServiceMonitor::crd(),
        ]);
    }
    all.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    all
}

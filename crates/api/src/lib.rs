//! The custom resources agent-operator reads, as Rust types from which its CRDs are generated.
//!
//! * monitoring.grafana.com/v1alpha1: [`GrafanaAgent`], [`MetricsInstance`], [`LogsInstance`],
//!   [`PodLogs`], [`Integration`] (each with a status subresource); PodLogs also as
//!   monitoring.grafana.com/v1alpha2, Grafana Alloy's version, with the same schema
//!   ([`pod_logs::crd`]);
//! * monitoring.coreos.com/v1: [`ServiceMonitor`], [`PodMonitor`], [`Probe`] (read only);
//! * monitoring.coreos.com/v1alpha1: [`ScrapeConfig`] (read only).
//!
//! Field names and types match the upstream Grafana Agent Operator CRDs, so existing
//! manifests deserialize unchanged. This crate has no client and no runtime.

pub mod crds;
pub mod grafana_agent;
pub mod integration;
pub mod logs_instance;
pub mod metrics_instance;
pub mod monitors;
pub mod pod_logs;
pub mod prometheus;
pub mod reference;
pub mod schema;
pub mod scrape_config;
pub mod selectors;
pub mod status;

pub use grafana_agent::{GrafanaAgent, GrafanaAgentSpec, Runtime, ShardingStrategy};
pub use integration::{Integration, IntegrationSpec};
pub use logs_instance::{LogsInstance, LogsInstanceSpec};
pub use metrics_instance::{MetricsInstance, MetricsInstanceSpec};
pub use monitors::{
    PodMonitor, PodMonitorSpec, Probe, ProbeSpec, ServiceMonitor, ServiceMonitorSpec,
};
pub use pod_logs::{PodLogs, PodLogsSpec};
pub use scrape_config::{ScrapeConfig, ScrapeConfigSpec};

/// The group of the operator's own kinds.
pub const GRAFANA_GROUP: &str = "monitoring.grafana.com";
/// The group of the prometheus-operator kinds the operator reads.
pub const COREOS_GROUP: &str = "monitoring.coreos.com";

//! Phase 2a: the agent.yml documents, as typed serde structs (never string templates).
//!
//! * [`metrics`]: `<agent>-config` (spec 4.2-4.10);
//! * [`logs`]: `<agent>-logs-config` (spec 4.11-4.14);
//! * [`integrations`]: `<agent>-integrations-{deploy,ds}-config` (spec 4.15).
//!
//! Each renderer returns the document plus the objects it had to leave out; one bad object
//! never fails the others (fix for Q7).

use serde::Serialize;

use crate::rejection::Rejection;

pub mod common;
pub mod integration_identity;
pub mod integration_settings;
pub mod integrations;
pub mod logs;
pub mod metrics;

/// Where metrics WALs and logs positions live in every agent pod.
pub const DATA_DIRECTORY: &str = "/var/lib/grafana-agent/data";

/// One agent.yml document. Absent sections are omitted.
#[derive(Serialize, Clone, Debug, Default, PartialEq)]
pub struct AgentConfig {
    pub server: ServerConfig,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics: Option<metrics::MetricsSection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logs: Option<logs::LogsSection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integrations: Option<integrations::IntegrationsSection>,
}

/// `server:`; `{}` when neither field is set, as upstream.
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_level: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_format: Option<String>,
}

impl ServerConfig {
    pub fn of(agent: &api::GrafanaAgent) -> Self {
        ServerConfig {
            log_level: common::non_empty(&agent.spec.log_level),
            log_format: common::non_empty(&agent.spec.log_format),
        }
    }
}

/// A rendered document and the objects left out of it.
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    pub config: AgentConfig,
    pub rejections: Vec<Rejection>,
}

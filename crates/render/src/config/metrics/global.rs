//! `metrics.global` (spec 4.2, 4.3): external labels, default scrape timing and the
//! GrafanaAgent's own remote_write list.

use std::collections::BTreeMap;

use api::grafana_agent::GrafanaAgent;
use serde::Serialize;

use crate::config::common::{Secrets, non_empty};
use crate::discover::Hierarchy;
use crate::expansion::ConfigString;
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};

use super::remote_write::{RemoteWriteConfig, remote_writes};
use super::validate::{self, DEFAULT_SCRAPE_INTERVAL_MS};

/// The replica label's value; the config-reloader fills in the pod's ordinal (spec 3.11).
pub const REPLICA_LABEL_VALUE: &str = "replica-$(STATEFULSET_ORDINAL_NUMBER)";

/// `metrics.global`. Always written, as `{}` when empty (upstream builds it literally).
#[derive(Serialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalConfig {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub external_labels: BTreeMap<String, ConfigString>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scrape_interval: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scrape_timeout: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub remote_write: Vec<RemoteWriteConfig>,
}

/// The external labels of `agent`'s metrics (spec 4.3): the cluster label (`<ns>/<name>`,
/// named by `metricsExternalLabelName`, default `cluster`, `""` disables it), overwritten by
/// `externalLabels`, then the replica label (named by `replicaExternalLabelName`, default
/// `__replica__`, `""` disables it) when `with_replica_label`, last so users cannot overwrite
/// it. Label names Prometheus would refuse are reported against the agent and left out.
pub fn external_labels(
    agent: &GrafanaAgent,
    with_replica_label: bool,
    rejections: &mut Vec<Rejection>,
) -> BTreeMap<String, ConfigString> {
    let agent_ref = InputRef::of(Kind::GrafanaAgent, agent);
    let metrics = agent.spec.metrics.as_ref();
    let mut labels = BTreeMap::new();
    let mut add = |name: &str, value: ConfigString, field: String| {
        if validate::is_label_name(name) {
            labels.insert(name.to_owned(), value);
        } else {
            rejections.push(Rejection::new(
                agent_ref.clone(),
                Reason::InvalidLabelName,
                field,
                format!("{name:?} is not a valid label name; the external label is left out"),
            ));
        }
    };
    let cluster = metrics
        .and_then(|m| m.metrics_external_label_name.as_deref())
        .unwrap_or("cluster");
    if !cluster.is_empty() {
        add(
            cluster,
            agent_ref.key().into(),
            "spec.metrics.metricsExternalLabelName".to_owned(),
        );
    }
    for (k, v) in metrics.iter().flat_map(|m| &m.external_labels) {
        add(
            k,
            v.clone().into(),
            crate::config::common::key_path("spec.metrics.externalLabels", k),
        );
    }
    if with_replica_label {
        let replica = metrics
            .and_then(|m| m.replica_external_label_name.as_deref())
            .unwrap_or("__replica__");
        if !replica.is_empty() {
            add(
                replica,
                ConfigString::PodVariable(REPLICA_LABEL_VALUE.to_owned()),
                "spec.metrics.replicaExternalLabelName".to_owned(),
            );
        }
    }
    labels
}

/// `metrics.global` of `h`'s agent. `with_replica_label` is true for the metrics
/// StatefulSets' config and false for the integrations configs (spec 4.15). Unusable
/// settings (a scrape interval Prometheus cannot parse, a remote_write whose secret is
/// missing, ...) are reported against the GrafanaAgent and left out.
pub fn global_section(
    h: &Hierarchy,
    with_replica_label: bool,
    rejections: &mut Vec<Rejection>,
) -> GlobalConfig {
    let agent = h.agent.as_ref();
    let agent_ref = h.agent_ref();
    let metrics = agent.spec.metrics.as_ref();
    let mut timing = |value: Option<String>, field: &str| -> (Option<String>, Option<u64>) {
        let Some(text) = value else {
            return (None, None);
        };
        match validate::prometheus_duration(&text) {
            Ok(ms) => (Some(text), Some(ms)),
            Err(e) => {
                rejections.push(Rejection::new(
                    agent_ref.clone(),
                    Reason::InvalidDuration,
                    field.to_owned(),
                    format!("{e}; left out, the agent's default applies"),
                ));
                (None, None)
            }
        }
    };
    let (scrape_interval, interval_ms) = timing(
        metrics.and_then(|m| non_empty(&m.scrape_interval)),
        "spec.metrics.scrapeInterval",
    );
    let (mut scrape_timeout, timeout_ms) = timing(
        metrics.and_then(|m| non_empty(&m.scrape_timeout)),
        "spec.metrics.scrapeTimeout",
    );
    // Without its own timeout, Prometheus caps the default one at the interval; only an
    // explicit timeout above the interval is refused.
    if let Some(t) = timeout_ms
        && t > interval_ms.unwrap_or(DEFAULT_SCRAPE_INTERVAL_MS)
    {
        rejections.push(Rejection::new(
            agent_ref.clone(), Reason::ConflictingSettings,
            "spec.metrics.scrapeTimeout".to_owned(),
            format!(
                "scrape timeout {:?} is longer than the scrape interval; Prometheus refuses it, so it is left out",
                scrape_timeout.as_deref().unwrap_or_default()
            ),
        ));
        scrape_timeout = None;
    }
    let secrets = Secrets {
        assets: &h.assets,
        namespace: h.agent_namespace(),
    };
    let remote_write = metrics
        .map(|m| {
            remote_writes(
                &m.remote_write,
                secrets,
                "spec.metrics.remoteWrite",
                &agent_ref,
                rejections,
            )
            .unwrap_or_default()
        })
        .unwrap_or_default();
    GlobalConfig {
        external_labels: external_labels(agent, with_replica_label, rejections),
        scrape_interval,
        scrape_timeout,
        remote_write,
    }
}

//! Logs: the DaemonSet `<agent>-logs` (spec 3.7).

use k8s_openapi::api::apps::v1::{DaemonSet, DaemonSetSpec, DaemonSetUpdateStrategy};
use k8s_openapi::api::core::v1::{HostPathVolumeSource, Volume};

use super::labels::{self, Labels, TYPE_LABEL};
use super::metrics::DATA_PATH;
use super::pod_template::{self, AgentContext, PodOptions, Sourced, field_env, mount, value_env};
use crate::desired::logs_daemonset_name;
use crate::rejection::Rejection;

fn host_path_volume(name: &str, path: &str) -> Volume {
    Volume {
        name: name.to_owned(),
        host_path: Some(HostPathVolumeSource {
            path: path.to_owned(),
            type_: None,
        }),
        ..Default::default()
    }
}

/// Upstream's `logsPodTemplateOptions`: the host's log directories, a host directory for the
/// positions file, the node name, and `SHARD=0` (the reloader expands `$(SHARD)` anywhere).
/// The config is in static format; [`daemonset`] runs Alloy's own syntax for agents of
/// [`crate::alloy::native_logs`].
pub fn pod_options() -> PodOptions {
    let host_paths = [
        ("varlog", "/var/log", true),
        ("dockerlogs", "/var/lib/docker/containers", true),
        ("data", DATA_PATH, false),
    ];
    PodOptions {
        selector_labels: Labels::from([(TYPE_LABEL.to_owned(), "logs".to_owned())]),
        volumes: host_paths
            .iter()
            .map(|(name, path, _)| Sourced::operator(host_path_volume(name, path)))
            .collect(),
        mounts: host_paths
            .iter()
            .map(|(name, path, read_only)| Sourced::operator(mount(name, path, *read_only)))
            .collect(),
        env: vec![
            field_env("HOSTNAME", "spec.nodeName"),
            value_env("SHARD", "0"),
        ],
        privileged: true,
        native_config: false,
    }
}

/// The logs DaemonSet; its pods mount the Secret `<agent>-logs-config`.
pub fn daemonset(cx: &AgentContext<'_>) -> Result<DaemonSet, Vec<Rejection>> {
    let h = cx.h;
    let name = logs_daemonset_name(h.agent_name());
    let options = PodOptions {
        native_config: crate::alloy::native_logs(h),
        ..pod_options()
    };
    let template = pod_template::pod_template(cx, &name, options, &[])?;
    Ok(DaemonSet {
        metadata: labels::workload_metadata(h, &name, &template.pod_labels),
        spec: Some(DaemonSetSpec {
            update_strategy: Some(DaemonSetUpdateStrategy {
                type_: Some("RollingUpdate".to_owned()),
                rolling_update: None,
            }),
            selector: template.selector,
            template: template.template,
            ..Default::default()
        }),
        status: None,
    })
}

//! What the operator wants to exist for one GrafanaAgent, as every module names it: the
//! objects and the subsystem each belongs to, their names, the labels and owner reference
//! they all carry, and the operator options that shape them.
//!
//! A leaf of the crate's module graph: the config renderers, the workloads and the plan all
//! use these names, and none of them has to reach into another for them.

use std::collections::BTreeMap;

use api::grafana_agent::{GrafanaAgent, Runtime};
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{Secret, Service};
use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use kube::core::Resource;
use serde::Serialize;

/// The label every object the operator manages carries (deletion only touches these).
pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";
pub const MANAGED_BY_VALUE: &str = "grafana-agent-operator";
/// The label naming the GrafanaAgent an object belongs to.
pub const AGENT_NAME_LABEL: &str = "operator.agent.grafana.com/name";
/// The label naming the [`Subsystem`] an object was written for ([`Subsystem::label_value`]):
/// pruning reads it. Ours alone: upstream's objects carry no such label.
pub const SUBSYSTEM_LABEL: &str = "operator.agent.grafana.com/subsystem";
/// The data key of every config Secret.
pub const CONFIG_KEY: &str = "agent.yml";
/// Configs longer than this are gzip-compressed, as upstream (the reloader gunzips them).
pub const GZIP_THRESHOLD: usize = 100 * 1024;
/// The API server's limit on the data of one Secret.
pub const SECRET_SIZE_LIMIT: usize = 1024 * 1024;

/// The image of the config loader when the operator is given none: the operator's own, as
/// deploy/ runs it (`agent-operator config-loader` is a subcommand of the same binary).
pub const DEFAULT_CONFIG_LOADER_IMAGE: &str = concat!("agent-operator:", env!("CARGO_PKG_VERSION"));

/// Operator-wide settings that shape the plan.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// `--labels`: added to config Secrets, the Service, pod templates and selectors; they win
    /// over the operator's own labels on collision (spec 3.2).
    pub labels: BTreeMap<String, String>,
    /// The operator's version, sanitized into the pods' `app.kubernetes.io/version` label.
    pub operator_version: String,
    /// `--runtime`: what runs the configs of the agents whose `spec.runtime` is unset.
    pub runtime: Runtime,
    /// `--config-loader-image`: the image of every pod's config loader (the init container
    /// `config-loader-init` and the sidecar `config-reloader`), the operator's own.
    pub config_loader_image: String,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            labels: BTreeMap::new(),
            operator_version: String::new(),
            runtime: Runtime::default(),
            config_loader_image: DEFAULT_CONFIG_LOADER_IMAGE.to_owned(),
        }
    }
}

/// The kinds of object the operator writes for an agent. Every match over them is exhaustive
/// (what to compare, how to delete, which subsystem an existing object belongs to), so a new
/// kind cannot be left out of pruning unnoticed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ManagedKind {
    Secret,
    Service,
    StatefulSet,
    DaemonSet,
    Deployment,
    /// `<agent>-config-loader`: read access to the agent's config Secrets for its pods.
    Role,
    /// `<agent>-config-loader`: the Role granted to the pods' ServiceAccount.
    RoleBinding,
}

impl ManagedKind {
    pub const ALL: [ManagedKind; 7] = [
        ManagedKind::Secret,
        ManagedKind::Service,
        ManagedKind::StatefulSet,
        ManagedKind::DaemonSet,
        ManagedKind::Deployment,
        ManagedKind::Role,
        ManagedKind::RoleBinding,
    ];

    /// The Kubernetes kind name.
    pub fn as_str(self) -> &'static str {
        match self {
            ManagedKind::Secret => "Secret",
            ManagedKind::Service => "Service",
            ManagedKind::StatefulSet => "StatefulSet",
            ManagedKind::DaemonSet => "DaemonSet",
            ManagedKind::Deployment => "Deployment",
            ManagedKind::Role => "Role",
            ManagedKind::RoleBinding => "RoleBinding",
        }
    }

    /// Within a subsystem, upstream applies config before the Service before the workloads;
    /// a Role before the binding that grants it.
    fn apply_rank(self) -> u8 {
        match self {
            ManagedKind::Secret => 0,
            ManagedKind::Service => 1,
            ManagedKind::StatefulSet => 2,
            ManagedKind::Deployment => 3,
            ManagedKind::DaemonSet => 4,
            ManagedKind::Role => 5,
            ManagedKind::RoleBinding => 6,
        }
    }
}

impl std::fmt::Display for ManagedKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The part of an agent an object serves. A subsystem runs while it has instances (metrics,
/// logs) or Integrations (each integrations workload); its objects are applied together and
/// pruned together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Subsystem {
    /// Agent-wide: the assets Secret every workload mounts.
    Shared,
    /// Agent-wide while any subsystem has a config: the Role and RoleBinding that let the
    /// pods' config loader read the agent's config Secrets, and nothing else.
    ConfigLoader,
    Metrics,
    Logs,
    /// The integrations Deployment (`allNodes: false`) and its config.
    IntegrationsDeployment,
    /// The integrations DaemonSet (`allNodes: true`) and its config.
    IntegrationsDaemonSet,
}

impl Subsystem {
    /// The subsystems with a config Secret, in upstream's apply order.
    pub const WITH_CONFIG: [Subsystem; 4] = [
        Subsystem::Metrics,
        Subsystem::Logs,
        Subsystem::IntegrationsDeployment,
        Subsystem::IntegrationsDaemonSet,
    ];

    /// The integrations subsystem whose workload runs Integrations with this `allNodes`.
    pub fn integrations(all_nodes: bool) -> Subsystem {
        if all_nodes {
            Subsystem::IntegrationsDaemonSet
        } else {
            Subsystem::IntegrationsDeployment
        }
    }

    /// The name of the subsystem's config Secret (none for [`Subsystem::Shared`]): its
    /// workload's name (shard 0's for metrics) with `-config`.
    pub fn config_secret_name(self, agent: &str) -> Option<String> {
        let workload = match self {
            Subsystem::Shared | Subsystem::ConfigLoader => return None,
            Subsystem::Metrics => statefulset_name(agent, 0),
            Subsystem::Logs => logs_daemonset_name(agent),
            Subsystem::IntegrationsDeployment => integrations_workload_name(agent, false),
            Subsystem::IntegrationsDaemonSet => integrations_workload_name(agent, true),
        };
        Some(format!("{workload}-config"))
    }

    /// The kinds a completely planned subsystem holds at least one object of.
    pub fn kinds(self) -> &'static [ManagedKind] {
        use ManagedKind::{DaemonSet, Deployment, Role, RoleBinding, Secret, Service, StatefulSet};
        match self {
            Subsystem::Shared => &[Secret],
            Subsystem::ConfigLoader => &[Role, RoleBinding],
            Subsystem::Metrics => &[Secret, Service, StatefulSet],
            Subsystem::Logs | Subsystem::IntegrationsDaemonSet => &[Secret, DaemonSet],
            Subsystem::IntegrationsDeployment => &[Secret, Deployment],
        }
    }

    /// The value of [`SUBSYSTEM_LABEL`] on the subsystem's objects.
    pub fn label_value(self) -> &'static str {
        match self {
            Subsystem::Shared => "shared",
            Subsystem::ConfigLoader => "config-loader",
            Subsystem::Metrics => "metrics",
            Subsystem::Logs => "logs",
            Subsystem::IntegrationsDeployment => "integrations-deployment",
            Subsystem::IntegrationsDaemonSet => "integrations-daemonset",
        }
    }

    const ALL: [Subsystem; 6] = [
        Subsystem::Shared,
        Subsystem::ConfigLoader,
        Subsystem::Metrics,
        Subsystem::Logs,
        Subsystem::IntegrationsDeployment,
        Subsystem::IntegrationsDaemonSet,
    ];

    /// The subsystem of an object of this agent that exists in the cluster: its
    /// [`SUBSYSTEM_LABEL`]. An object without the label was written by the upstream operator
    /// or by a version of ours before the label (the way to take over from them): then the
    /// names the operators give their objects tell. `None` for anything else the agent owns,
    /// a label value this version does not know included.
    pub fn of_existing(
        agent: &str,
        kind: ManagedKind,
        name: &str,
        labels: &BTreeMap<String, String>,
    ) -> Option<Subsystem> {
        match labels.get(SUBSYSTEM_LABEL) {
            Some(value) => Subsystem::ALL
                .into_iter()
                .find(|s| s.label_value() == value && s.kinds().contains(&kind)),
            None => Subsystem::of_unlabelled(agent, kind, name),
        }
    }

    /// The subsystem of an object written without [`SUBSYSTEM_LABEL`], from its name.
    fn of_unlabelled(agent: &str, kind: ManagedKind, name: &str) -> Option<Subsystem> {
        let named = |wanted: String, subsystem: Subsystem| (name == wanted).then_some(subsystem);
        match kind {
            // Any shard: their number changes.
            ManagedKind::StatefulSet => Some(Subsystem::Metrics),
            ManagedKind::Service => named(service_name(agent), Subsystem::Metrics),
            ManagedKind::DaemonSet => {
                named(logs_daemonset_name(agent), Subsystem::Logs).or_else(|| {
                    named(
                        integrations_workload_name(agent, true),
                        Subsystem::IntegrationsDaemonSet,
                    )
                })
            }
            ManagedKind::Deployment => named(
                integrations_workload_name(agent, false),
                Subsystem::IntegrationsDeployment,
            ),
            ManagedKind::Secret => {
                named(assets_secret_name(agent), Subsystem::Shared).or_else(|| {
                    Subsystem::WITH_CONFIG
                        .into_iter()
                        .find(|s| s.config_secret_name(agent).as_deref() == Some(name))
                })
            }
            ManagedKind::Role | ManagedKind::RoleBinding => {
                named(config_loader_rbac_name(agent), Subsystem::ConfigLoader)
            }
        }
    }

    /// Upstream's actor order (spec 3.1): assets, metrics, logs, then both integrations
    /// workloads (their configs first, then the Deployment, then the DaemonSet). The config
    /// loader's Role comes right after the assets: it names the config Secrets written after
    /// it, so a pod never waits for a grant of a Secret that exists.
    fn apply_rank(self) -> u8 {
        match self {
            Subsystem::Shared => 0,
            Subsystem::ConfigLoader => 1,
            Subsystem::Metrics => 2,
            Subsystem::Logs => 3,
            Subsystem::IntegrationsDeployment | Subsystem::IntegrationsDaemonSet => 4,
        }
    }
}

/// `<agent>-secrets`, the Secret holding every referenced Secret and ConfigMap value.
pub fn assets_secret_name(agent: &str) -> String {
    format!("{agent}-secrets")
}

/// `<agent>-config-loader`, the Role (and its RoleBinding) that lets the agent's pods read its
/// config Secrets.
pub fn config_loader_rbac_name(agent: &str) -> String {
    format!("{agent}-config-loader")
}

/// `<agent>-operated`, the metrics StatefulSets' governing Service.
pub fn service_name(agent: &str) -> String {
    format!("{agent}-operated")
}

/// Metrics shard 0 is `<agent>`, the others `<agent>-shard-<s>`.
pub fn statefulset_name(agent: &str, shard: i32) -> String {
    if shard == 0 {
        agent.to_owned()
    } else {
        format!("{agent}-shard-{shard}")
    }
}

/// The StatefulSet of replica `replica`'s Alloy cluster (`spec.alloy.clustering`): replica 0
/// is `<agent>`, shard 0's name, so that turning clustering on keeps that StatefulSet; the
/// others are `<agent>-replica-<r>`.
pub fn cluster_statefulset_name(agent: &str, replica: i32) -> String {
    if replica == 0 {
        agent.to_owned()
    } else {
        format!("{agent}-replica-{replica}")
    }
}

/// The headless Service through which the pods of replica `replica`'s Alloy cluster, and
/// only they, find each other: `<agent>-replica-<r>`.
pub fn cluster_peers_service_name(agent: &str, replica: i32) -> String {
    format!("{agent}-replica-{replica}")
}

/// `<agent>-logs`.
pub fn logs_daemonset_name(agent: &str) -> String {
    format!("{agent}-logs")
}

/// `<agent>-integrations-deploy` or `<agent>-integrations-ds`.
pub fn integrations_workload_name(agent: &str, all_nodes: bool) -> String {
    if all_nodes {
        format!("{agent}-integrations-ds")
    } else {
        format!("{agent}-integrations-deploy")
    }
}

/// Every object (kind and name) the GrafanaAgent `agent` may generate, from its spec alone:
/// the assets Secret; with `spec.metrics.instanceSelector` set, the metrics config Secret,
/// Service and every shard's StatefulSet (shards capped at the schema's maximum), and with
/// `spec.alloy.clustering.enabled` every replica's cluster StatefulSet and Service (replicas
/// capped likewise); with `spec.logs.instanceSelector` set, the logs config Secret and
/// DaemonSet; with `spec.integrations.selector` set, both integrations workloads and their
/// configs; with any of them, the config loader's Role and RoleBinding. A plan holds no
/// object outside these. Two agents of a namespace collide when these share an
/// entry (issue 38, item 6): every name starts with its agent's name, so only agents one of
/// whose names starts with the other's can. From the spec, not from the instances selected,
/// so that creating a LogsInstance never moves a rejection from one agent to another.
pub fn generated_names(agent: &GrafanaAgent) -> Vec<(ManagedKind, String)> {
    let name = agent.metadata.name.as_deref().unwrap_or_default();
    let spec = &agent.spec;
    let mut names = vec![(ManagedKind::Secret, assets_secret_name(name))];
    let mut config = |s: Subsystem| {
        if let Some(secret) = s.config_secret_name(name) {
            names.push((ManagedKind::Secret, secret));
        }
    };
    let metrics = spec
        .metrics
        .as_ref()
        .filter(|m| m.instance_selector.is_some());
    let logs = spec
        .logs
        .as_ref()
        .is_some_and(|l| l.instance_selector.is_some());
    let integrations = spec
        .integrations
        .as_ref()
        .is_some_and(|i| i.selector.is_some());
    if metrics.is_some() {
        config(Subsystem::Metrics);
    }
    if logs {
        config(Subsystem::Logs);
    }
    if integrations {
        config(Subsystem::IntegrationsDeployment);
        config(Subsystem::IntegrationsDaemonSet);
    }
    if let Some(m) = metrics {
        names.push((ManagedKind::Service, service_name(name)));
        let shards = m
            .shards
            .unwrap_or(1)
            .clamp(1, api::schema::MAX_METRICS_SHARDS);
        for shard in 0..shards {
            names.push((ManagedKind::StatefulSet, statefulset_name(name, shard)));
        }
        // Alloy clustering: one StatefulSet (replica 0's is shard 0's) and one Service per
        // replica.
        let clustering = spec
            .alloy
            .as_ref()
            .and_then(|a| a.clustering.as_ref())
            .is_some_and(|c| c.enabled);
        if clustering {
            let replicas = m
                .replicas
                .unwrap_or(1)
                .clamp(1, api::schema::MAX_METRICS_REPLICAS);
            for replica in 0..replicas {
                if replica > 0 {
                    names.push((
                        ManagedKind::StatefulSet,
                        cluster_statefulset_name(name, replica),
                    ));
                }
                names.push((
                    ManagedKind::Service,
                    cluster_peers_service_name(name, replica),
                ));
            }
        }
    }
    if logs {
        names.push((ManagedKind::DaemonSet, logs_daemonset_name(name)));
    }
    if integrations {
        names.push((
            ManagedKind::Deployment,
            integrations_workload_name(name, false),
        ));
        names.push((
            ManagedKind::DaemonSet,
            integrations_workload_name(name, true),
        ));
    }
    if metrics.is_some() || logs || integrations {
        let rbac = config_loader_rbac_name(name);
        names.push((ManagedKind::Role, rbac.clone()));
        names.push((ManagedKind::RoleBinding, rbac));
    }
    names
}

/// The ownerReference every generated object carries: a controller reference (fix for Q22),
/// so edits and deletions of any of them are repaired. kube-core's `controller_owner_ref` is
/// the same reference except that it leaves `blockOwnerDeletion` unset (we set it, as
/// upstream, so a foreground deletion of the agent waits for its objects) and gives nothing
/// for an agent without a UID (one read from files: its objects get an empty one).
pub fn owner_reference(agent: &GrafanaAgent) -> OwnerReference {
    OwnerReference {
        api_version: GrafanaAgent::api_version(&()).into_owned(),
        kind: GrafanaAgent::kind(&()).into_owned(),
        name: agent.meta().name.clone().unwrap_or_default(),
        uid: agent.meta().uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// One object to create or update.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum DesiredObject {
    Secret(Secret),
    Service(Service),
    StatefulSet(StatefulSet),
    DaemonSet(DaemonSet),
    Deployment(Deployment),
    Role(Role),
    RoleBinding(RoleBinding),
}

impl DesiredObject {
    pub fn kind(&self) -> ManagedKind {
        match self {
            DesiredObject::Secret(_) => ManagedKind::Secret,
            DesiredObject::Service(_) => ManagedKind::Service,
            DesiredObject::StatefulSet(_) => ManagedKind::StatefulSet,
            DesiredObject::DaemonSet(_) => ManagedKind::DaemonSet,
            DesiredObject::Deployment(_) => ManagedKind::Deployment,
            DesiredObject::Role(_) => ManagedKind::Role,
            DesiredObject::RoleBinding(_) => ManagedKind::RoleBinding,
        }
    }

    pub fn metadata(&self) -> &ObjectMeta {
        match self {
            DesiredObject::Secret(o) => &o.metadata,
            DesiredObject::Service(o) => &o.metadata,
            DesiredObject::StatefulSet(o) => &o.metadata,
            DesiredObject::DaemonSet(o) => &o.metadata,
            DesiredObject::Deployment(o) => &o.metadata,
            DesiredObject::Role(o) => &o.metadata,
            DesiredObject::RoleBinding(o) => &o.metadata,
        }
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        match self {
            DesiredObject::Secret(o) => &mut o.metadata,
            DesiredObject::Service(o) => &mut o.metadata,
            DesiredObject::StatefulSet(o) => &mut o.metadata,
            DesiredObject::DaemonSet(o) => &mut o.metadata,
            DesiredObject::Deployment(o) => &mut o.metadata,
            DesiredObject::Role(o) => &mut o.metadata,
            DesiredObject::RoleBinding(o) => &mut o.metadata,
        }
    }

    pub fn name(&self) -> &str {
        self.metadata().name.as_deref().unwrap_or_default()
    }
}

/// A desired object and the subsystem it serves.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedObject {
    pub subsystem: Subsystem,
    pub object: DesiredObject,
}

impl PlannedObject {
    /// The object, labelled with its subsystem ([`SUBSYSTEM_LABEL`]; the object's own
    /// metadata only, never a pod template or a selector).
    pub fn new(subsystem: Subsystem, mut object: DesiredObject) -> Self {
        object.metadata_mut().labels.get_or_insert_default().insert(
            SUBSYSTEM_LABEL.to_owned(),
            subsystem.label_value().to_owned(),
        );
        PlannedObject { subsystem, object }
    }

    pub fn kind(&self) -> ManagedKind {
        self.object.kind()
    }

    pub fn name(&self) -> &str {
        self.object.name()
    }

    /// The key that sorts a plan into upstream's apply order (spec 3.1).
    pub fn apply_order(&self) -> (u8, u8, &str) {
        (
            self.subsystem.apply_rank(),
            self.object.kind().apply_rank(),
            self.name(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unlabelled_objects_name_maps_back_to_its_subsystem() {
        let agent = "a";
        let named = [
            (
                ManagedKind::Secret,
                assets_secret_name(agent),
                Subsystem::Shared,
            ),
            (
                ManagedKind::Secret,
                "a-config".to_owned(),
                Subsystem::Metrics,
            ),
            (
                ManagedKind::Service,
                service_name(agent),
                Subsystem::Metrics,
            ),
            (
                ManagedKind::StatefulSet,
                statefulset_name(agent, 0),
                Subsystem::Metrics,
            ),
            (
                ManagedKind::StatefulSet,
                statefulset_name(agent, 7),
                Subsystem::Metrics,
            ),
            (
                ManagedKind::Secret,
                "a-logs-config".to_owned(),
                Subsystem::Logs,
            ),
            (
                ManagedKind::DaemonSet,
                logs_daemonset_name(agent),
                Subsystem::Logs,
            ),
            (
                ManagedKind::Secret,
                "a-integrations-deploy-config".to_owned(),
                Subsystem::IntegrationsDeployment,
            ),
            (
                ManagedKind::Deployment,
                integrations_workload_name(agent, false),
                Subsystem::IntegrationsDeployment,
            ),
            (
                ManagedKind::Secret,
                "a-integrations-ds-config".to_owned(),
                Subsystem::IntegrationsDaemonSet,
            ),
            (
                ManagedKind::DaemonSet,
                integrations_workload_name(agent, true),
                Subsystem::IntegrationsDaemonSet,
            ),
            (
                ManagedKind::Role,
                "a-config-loader".to_owned(),
                Subsystem::ConfigLoader,
            ),
            (
                ManagedKind::RoleBinding,
                "a-config-loader".to_owned(),
                Subsystem::ConfigLoader,
            ),
        ];
        for (kind, name, subsystem) in named {
            assert_eq!(
                Subsystem::of_existing(agent, kind, &name, &BTreeMap::new()),
                Some(subsystem),
                "{kind} {name}"
            );
        }
        for (kind, name) in [
            (ManagedKind::Secret, "a-other"),
            (ManagedKind::DaemonSet, "a-config"),
            (ManagedKind::Secret, "b-config"),
            (ManagedKind::Role, "a-config"),
            (ManagedKind::Secret, "a-config-loader"),
        ] {
            assert_eq!(
                Subsystem::of_existing(agent, kind, name, &BTreeMap::new()),
                None,
                "{kind} {name}"
            );
        }
    }

    #[test]
    fn a_labelled_object_belongs_to_the_subsystem_its_label_names_whatever_its_name() {
        let labelled =
            |value: &str| BTreeMap::from([(SUBSYSTEM_LABEL.to_owned(), value.to_owned())]);
        for subsystem in Subsystem::ALL {
            for &kind in subsystem.kinds() {
                assert_eq!(
                    Subsystem::of_existing(
                        "a",
                        kind,
                        "renamed",
                        &labelled(subsystem.label_value())
                    ),
                    Some(subsystem),
                    "{kind} labelled {}",
                    subsystem.label_value()
                );
            }
        }
        // A kind the subsystem has none of, and a value this version does not know: no
        // subsystem, even where the name would tell one.
        assert_eq!(
            Subsystem::of_existing("a", ManagedKind::Deployment, "a", &labelled("metrics")),
            None
        );
        assert_eq!(
            Subsystem::of_existing("a", ManagedKind::Secret, "a-config", &labelled("traces")),
            None
        );
    }

    #[test]
    fn every_planned_object_carries_its_subsystems_label() {
        let object = PlannedObject::new(Subsystem::Logs, DesiredObject::Secret(Secret::default()));
        let labels = object.object.metadata().labels.clone().unwrap_or_default();
        assert_eq!(
            labels.get(SUBSYSTEM_LABEL).map(String::as_str),
            Some("logs")
        );
    }

    #[test]
    fn the_owner_reference_is_kubes_controller_reference_that_blocks_deletion() {
        let mut agent = GrafanaAgent::new("a", Default::default());
        let from_files = owner_reference(&agent);
        assert_eq!(
            (from_files.api_version.as_str(), from_files.kind.as_str()),
            ("monitoring.grafana.com/v1alpha1", "GrafanaAgent")
        );
        assert_eq!(
            (from_files.name.as_str(), from_files.uid.as_str()),
            ("a", "")
        );
        assert_eq!(agent.controller_owner_ref(&()), None);

        agent.metadata.uid = Some("u-1".to_owned());
        let ours = owner_reference(&agent);
        let kubes = agent.controller_owner_ref(&()).expect("a UID");
        assert_eq!(ours.block_owner_deletion, Some(true));
        assert_eq!(
            ours,
            OwnerReference {
                block_owner_deletion: Some(true),
                ..kubes
            }
        );
    }
}

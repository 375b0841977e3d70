//! `manifests.yaml`: the Kubernetes objects that run an exported agent's files with plain
//! Alloy once the operator is gone. Pure: derived from the operator's own plan by transforming
//! its objects, so the pods, volumes, Services and claims cannot drift from what the operator
//! runs:
//!
//! * each workload (StatefulSet, DaemonSet, Deployment) keeps its name, pod template, volumes,
//!   claim templates and Alloy arguments, without the config loader (its init container and
//!   sidecar, their `config-out` volume) and the operator's variables in the environment; the
//!   Alloy container runs its file from a Secret mounted at [`CONFIG_DIR`] instead, the pod's
//!   own when pods differ (`$(POD_NAME).alloy`: the kubelet expands `$(VAR)` in `args` from the
//!   container's environment, where `POD_NAME` comes from `metadata.name`);
//! * one Secret `<workload>-alloy` per workload holding its files: a Secret, not a ConfigMap,
//!   because a config can hold credentials written inline (remote_write headers, an
//!   Integration's `api_token` or `data_source_name`, a password of additionalScrapeConfigs);
//! * the headless Services as planned: the governing one and each Alloy cluster's peers;
//! * a ServiceAccount and the ClusterRole (+ binding) of what Alloy's discovery reads.
//!
//! Nothing carries an owner reference or a label the operator finds its objects by
//! (`app.kubernetes.io/managed-by`, the `operator.agent.grafana.com/` ones become
//! [`EXPORT_LABEL_PREFIX`] ones, in selectors and pods alike): an operator installed again
//! neither prunes nor watches them. The workloads keep their names, so a StatefulSet's pods
//! find the claims (WAL, positions) the operator's pods had.

use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{
    PodTemplateSpec, Secret, SecretVolumeSource, Service, ServiceAccount, Volume, VolumeMount,
};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use render::desired::{DesiredObject, MANAGED_BY_LABEL, SECRET_SIZE_LIMIT};
use render::loader_variables::{OPERATOR_VARIABLES, POD_NAME};
use render::plan::Plan;
use render::workloads::labels::VERSION_LABEL;
use render::workloads::pod_template::{
    AGENT_CONTAINER, CONFIG_FILE, CONFIG_OUT_PATH, LOADER_INIT_CONTAINER, RELOADER_CONTAINER,
    field_env,
};

/// Where each exported pod mounts its workload's config Secret.
pub const CONFIG_DIR: &str = "/etc/alloy";
/// The volume of that Secret.
pub const CONFIG_VOLUME: &str = "alloy-config";
/// What the operator's `operator.agent.grafana.com/<key>` labels become.
pub const EXPORT_LABEL_PREFIX: &str = "alloy-export/";
const OPERATOR_LABEL_PREFIX: &str = "operator.agent.grafana.com/";
/// The operator's mark on its Alloy pods (Alloy reports it in its usage data).
const DEPLOY_MODE_VARIABLE: &str = "ALLOY_DEPLOY_MODE";

/// Why an agent's manifests could not be derived from its plan.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("{kind} {workload}: no {AGENT_CONTAINER} container in its pod template")]
    NoAlloyContainer {
        kind: &'static str,
        workload: String,
    },
    #[error(
        "{kind} {workload}: container {AGENT_CONTAINER} does not run {CONFIG_FILE} (its args were changed by spec.containers?), so the exported file cannot be put in its place"
    )]
    ConfigArgument {
        kind: &'static str,
        workload: String,
    },
    #[error(
        "{kind} {workload}: {what} is already used in its pod (a field of the GrafanaAgent's spec.volumes, spec.volumeMounts or spec.containers?); the export mounts its config there"
    )]
    Taken {
        kind: &'static str,
        workload: String,
        what: String,
    },
    #[error("{kind} {workload}: the export wrote no config file for it")]
    NoFiles {
        kind: &'static str,
        workload: String,
    },
    #[error(
        "Secret {secret}: its files hold {bytes} bytes, above the {SECRET_SIZE_LIMIT}-byte limit of a Secret"
    )]
    TooLarge { secret: String, bytes: usize },
}

/// The files one workload runs, as the export wrote them.
#[derive(Debug, Clone)]
pub struct WorkloadFiles {
    pub workload: String,
    /// File name and text: one file, or one per pod (`<pod>.alloy`).
    pub files: Vec<(String, String)>,
    /// Whether each pod runs its own file.
    pub per_pod: bool,
}

impl WorkloadFiles {
    /// The file the Alloy container runs: the pod's own through `$(POD_NAME)`, else the
    /// workload's one.
    fn path(&self) -> Option<String> {
        if self.per_pod {
            return Some(format!("{CONFIG_DIR}/$({POD_NAME}).alloy"));
        }
        let (name, _) = self.files.first()?;
        Some(format!("{CONFIG_DIR}/{name}"))
    }
}

/// One object of `manifests.yaml`.
#[derive(Debug, Clone, PartialEq)]
pub enum Manifest {
    ServiceAccount(ServiceAccount),
    ClusterRole(ClusterRole),
    ClusterRoleBinding(ClusterRoleBinding),
    Secret(Secret),
    Service(Service),
    StatefulSet(StatefulSet),
    DaemonSet(DaemonSet),
    Deployment(Deployment),
}

impl Manifest {
    pub fn to_value(&self) -> Result<serde_json::Value, serde_json::Error> {
        match self {
            Manifest::ServiceAccount(o) => serde_json::to_value(o),
            Manifest::ClusterRole(o) => serde_json::to_value(o),
            Manifest::ClusterRoleBinding(o) => serde_json::to_value(o),
            Manifest::Secret(o) => serde_json::to_value(o),
            Manifest::Service(o) => serde_json::to_value(o),
            Manifest::StatefulSet(o) => serde_json::to_value(o),
            Manifest::DaemonSet(o) => serde_json::to_value(o),
            Manifest::Deployment(o) => serde_json::to_value(o),
        }
    }
}

/// The name of the Secret holding `workload`'s files. No object of the operator's ends so.
pub fn config_secret_name(workload: &str) -> String {
    format!("{workload}-alloy")
}

/// The name of the ClusterRole and its binding: cluster-wide, so the namespace is in it.
pub fn cluster_role_name(namespace: &str, agent: &str) -> String {
    format!("alloy-{namespace}-{agent}")
}

/// The ServiceAccount of the exported pods: the agent's `spec.serviceAccountName`, else one
/// named after the agent (binding the discovery role to the namespace's `default` account
/// would grant it to every pod of the namespace).
fn service_account(plan: &Plan) -> String {
    plan.objects
        .iter()
        .find_map(|o| pod_template(&o.object).and_then(|(_, _, t)| t.spec.as_ref()))
        .and_then(|spec| spec.service_account_name.clone())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| plan.agent.name.clone())
}

fn pod_template(object: &DesiredObject) -> Option<(&'static str, &str, &PodTemplateSpec)> {
    let (kind, name, template) = match object {
        DesiredObject::StatefulSet(o) => ("StatefulSet", &o.metadata, &o.spec.as_ref()?.template),
        DesiredObject::DaemonSet(o) => ("DaemonSet", &o.metadata, &o.spec.as_ref()?.template),
        DesiredObject::Deployment(o) => ("Deployment", &o.metadata, &o.spec.as_ref()?.template),
        _ => return None,
    };
    Some((kind, name.name.as_deref()?, template))
}

/// What Alloy's components read through the API: Kubernetes discovery (endpoints,
/// endpointslices, services, pods, nodes, ingresses), Kubernetes events, and the kubelet's
/// own and cAdvisor metrics. The rules examples/15-agent-rbac.yaml and
/// docs/getting-started.md grant the agents (the test compares them).
pub fn discovery_rules() -> Vec<PolicyRule> {
    let read = || ["get", "list", "watch"].map(String::from).to_vec();
    let rule = |group: &str, resources: &[&str]| PolicyRule {
        api_groups: Some(vec![group.to_owned()]),
        resources: Some(resources.iter().map(|r| (*r).to_owned()).collect()),
        verbs: read(),
        ..Default::default()
    };
    vec![
        rule(
            "",
            &[
                "nodes",
                "nodes/proxy",
                "nodes/metrics",
                "services",
                "endpoints",
                "pods",
                "events",
            ],
        ),
        rule("networking.k8s.io", &["ingresses"]),
        rule("discovery.k8s.io", &["endpointslices"]),
        PolicyRule {
            non_resource_urls: Some(vec!["/metrics".to_owned(), "/metrics/cadvisor".to_owned()]),
            verbs: vec!["get".to_owned()],
            ..Default::default()
        },
    ]
}

/// Every object of `plan`'s `manifests.yaml`, in the order to apply them: the identity and
/// its grant, the config Secrets, the Services, the workloads. `files` has each workload's
/// exported files. The agent's assets Secret is not among them (`secrets.yaml`).
pub fn manifests(plan: &Plan, files: &[WorkloadFiles]) -> Result<Vec<Manifest>, ManifestError> {
    let namespace = plan.agent.namespace.as_str();
    let account = service_account(plan);
    let role = cluster_role_name(namespace, &plan.agent.name);
    let mut out = vec![
        Manifest::ServiceAccount(ServiceAccount {
            metadata: ObjectMeta {
                name: Some(account.clone()),
                namespace: Some(namespace.to_owned()),
                ..Default::default()
            },
            ..Default::default()
        }),
        Manifest::ClusterRole(ClusterRole {
            metadata: named(&role),
            rules: Some(discovery_rules()),
            ..Default::default()
        }),
        Manifest::ClusterRoleBinding(ClusterRoleBinding {
            metadata: named(&role),
            role_ref: RoleRef {
                api_group: "rbac.authorization.k8s.io".to_owned(),
                kind: "ClusterRole".to_owned(),
                name: role.clone(),
            },
            subjects: Some(vec![Subject {
                kind: "ServiceAccount".to_owned(),
                name: account.clone(),
                namespace: Some(namespace.to_owned()),
                ..Default::default()
            }]),
        }),
    ];
    let mut secrets = Vec::new();
    let mut services = Vec::new();
    let mut workloads = Vec::new();
    // The three workload kinds differ only in their types: one body for them.
    macro_rules! export_arm {
        ($workload:ident, $kind:ident) => {{
            let mut workload = $workload.clone();
            let spec = workload
                .spec
                .as_mut()
                .map(|s| (&mut s.selector, &mut s.template));
            let secret = export_workload(
                stringify!($kind),
                &mut workload.metadata,
                spec,
                files,
                &account,
            )?;
            secrets.push(secret);
            workloads.push(Manifest::$kind(workload));
        }};
    }
    for object in &plan.objects {
        match &object.object {
            // The assets Secret is secrets.yaml; the config Secrets, Role and RoleBinding
            // are the config loader's, which the exported pods do without.
            DesiredObject::Secret(_) | DesiredObject::Role(_) | DesiredObject::RoleBinding(_) => {}
            DesiredObject::Service(service) => {
                let mut service = service.clone();
                strip(&mut service.metadata);
                if let Some(spec) = &mut service.spec {
                    relabel(&mut spec.selector);
                }
                services.push(Manifest::Service(service));
            }
            DesiredObject::StatefulSet(workload) => export_arm!(workload, StatefulSet),
            DesiredObject::DaemonSet(workload) => export_arm!(workload, DaemonSet),
            DesiredObject::Deployment(workload) => export_arm!(workload, Deployment),
        }
    }
    out.extend(secrets);
    out.extend(services);
    out.extend(workloads);
    Ok(out)
}

fn named(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_owned()),
        ..Default::default()
    }
}

/// A workload of the plan (its metadata, selector and pod template) made to run its exported
/// `files` with plain Alloy as `account`; the Secret of its files.
fn export_workload(
    kind: &'static str,
    meta: &mut ObjectMeta,
    spec: Option<(&mut LabelSelector, &mut PodTemplateSpec)>,
    files: &[WorkloadFiles],
    account: &str,
) -> Result<Manifest, ManifestError> {
    let name = meta.name.clone().unwrap_or_default();
    let exported = files_of(files, kind, &name)?;
    let secret = config_secret(meta, exported)?;
    strip(meta);
    let Some((selector, template)) = spec else {
        return Err(ManifestError::NoAlloyContainer {
            kind,
            workload: name,
        });
    };
    relabel(&mut selector.match_labels);
    run_plain_alloy(kind, exported, account, template)?;
    Ok(secret)
}

fn files_of<'a>(
    files: &'a [WorkloadFiles],
    kind: &'static str,
    workload: &str,
) -> Result<&'a WorkloadFiles, ManifestError> {
    files
        .iter()
        .find(|f| f.workload == workload && !f.files.is_empty())
        .ok_or_else(|| ManifestError::NoFiles {
            kind,
            workload: workload.to_owned(),
        })
}

/// The Secret of `files`, labelled as its workload (its labels as exported).
fn config_secret(workload: &ObjectMeta, files: &WorkloadFiles) -> Result<Manifest, ManifestError> {
    let name = config_secret_name(&files.workload);
    let bytes = files.files.iter().map(|(n, t)| n.len() + t.len()).sum();
    if bytes > SECRET_SIZE_LIMIT {
        return Err(ManifestError::TooLarge {
            secret: name,
            bytes,
        });
    }
    let mut labels = workload.labels.clone();
    relabel(&mut labels);
    Ok(Manifest::Secret(Secret {
        metadata: ObjectMeta {
            name: Some(name),
            namespace: workload.namespace.clone(),
            labels,
            ..Default::default()
        },
        data: Some(
            files
                .files
                .iter()
                .map(|(name, text)| (name.clone(), ByteString(text.clone().into_bytes())))
                .collect(),
        ),
        ..Default::default()
    }))
}

/// `meta` without what ties it to the operator: owner references, the operator's labels.
fn strip(meta: &mut ObjectMeta) {
    meta.owner_references = None;
    relabel(&mut meta.labels);
}

/// `labels` without the operator's marks: no `app.kubernetes.io/managed-by` (the operator
/// prunes and watches by it) nor the operator's version, and every `operator.agent.grafana.com/`
/// key under [`EXPORT_LABEL_PREFIX`]: the same rename in selectors and pods keeps each
/// workload and Service selecting exactly the pods it did.
fn relabel(labels: &mut Option<BTreeMap<String, String>>) {
    let Some(map) = labels else {
        return;
    };
    *map = std::mem::take(map)
        .into_iter()
        .filter(|(k, _)| k != MANAGED_BY_LABEL && k != VERSION_LABEL)
        .map(|(k, v)| match k.strip_prefix(OPERATOR_LABEL_PREFIX) {
            Some(key) => (format!("{EXPORT_LABEL_PREFIX}{key}"), v),
            None => (k, v),
        })
        .collect();
    if map.is_empty() {
        *labels = None;
    }
}

/// The operator's pod template as a pod of plain Alloy: no config loader; the Alloy container
/// runs the exported file from the config Secret's volume, as `account`.
fn run_plain_alloy(
    kind: &'static str,
    files: &WorkloadFiles,
    account: &str,
    template: &mut PodTemplateSpec,
) -> Result<(), ManifestError> {
    let workload = || files.workload.clone();
    if let Some(meta) = &mut template.metadata {
        relabel(&mut meta.labels);
    }
    let Some(spec) = &mut template.spec else {
        return Err(ManifestError::NoAlloyContainer {
            kind,
            workload: workload(),
        });
    };
    spec.service_account_name = Some(account.to_owned());
    if let Some(init) = &mut spec.init_containers {
        init.retain(|c| c.name != LOADER_INIT_CONTAINER);
        if init.is_empty() {
            spec.init_containers = None;
        }
    }
    spec.containers.retain(|c| c.name != RELOADER_CONTAINER);
    let Some(alloy) = spec
        .containers
        .iter_mut()
        .find(|c| c.name == AGENT_CONTAINER)
    else {
        return Err(ManifestError::NoAlloyContainer {
            kind,
            workload: workload(),
        });
    };
    let path = files.path().ok_or_else(|| ManifestError::NoFiles {
        kind,
        workload: workload(),
    })?;
    let Some(arg) = alloy
        .args
        .iter_mut()
        .flatten()
        .find(|a| a.as_str() == CONFIG_FILE)
    else {
        return Err(ManifestError::ConfigArgument {
            kind,
            workload: workload(),
        });
    };
    *arg = path;
    // The operator's variables are in the files already.
    if let Some(env) = &mut alloy.env {
        env.retain(|v| {
            v.name != DEPLOY_MODE_VARIABLE && !OPERATOR_VARIABLES.contains(&v.name.as_str())
        });
    }
    let env = alloy.env.get_or_insert_default();
    if files.per_pod && !env.iter().any(|v| v.name == POD_NAME) {
        env.push(field_env(POD_NAME, "metadata.name"));
    }
    let mounts = alloy.volume_mounts.get_or_insert_default();
    let config_out: Vec<String> = mounts
        .iter()
        .filter(|m| m.mount_path == CONFIG_OUT_PATH)
        .map(|m| m.name.clone())
        .collect();
    mounts.retain(|m| m.mount_path != CONFIG_OUT_PATH);
    if mounts.iter().any(|m| m.mount_path == CONFIG_DIR) {
        return Err(ManifestError::Taken {
            kind,
            workload: workload(),
            what: format!("mount path {CONFIG_DIR}"),
        });
    }
    mounts.push(VolumeMount {
        name: CONFIG_VOLUME.to_owned(),
        mount_path: CONFIG_DIR.to_owned(),
        read_only: Some(true),
        ..Default::default()
    });
    // The loader's volume goes unless another container (a user's) mounts it too.
    let still_mounted = |volume: &str| {
        spec.containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
            .flat_map(|c| c.volume_mounts.iter().flatten())
            .any(|m| m.name == volume)
    };
    let unused: Vec<String> = config_out
        .into_iter()
        .filter(|v| !still_mounted(v))
        .collect();
    let volumes = spec.volumes.get_or_insert_default();
    volumes.retain(|v| !unused.contains(&v.name));
    if volumes.iter().any(|v| v.name == CONFIG_VOLUME) {
        return Err(ManifestError::Taken {
            kind,
            workload: workload(),
            what: format!("volume name {CONFIG_VOLUME}"),
        });
    }
    volumes.push(Volume {
        name: CONFIG_VOLUME.to_owned(),
        secret: Some(SecretVolumeSource {
            secret_name: Some(config_secret_name(&files.workload)),
            ..Default::default()
        }),
        ..Default::default()
    });
    Ok(())
}

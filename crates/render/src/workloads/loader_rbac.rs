//! The config loader's least privilege (issue 35): per GrafanaAgent, a Role
//! `<agent>-config-loader` that may `get`, `list` and `watch` exactly the agent's config
//! Secrets (every head and segment the plan holds, by name) and a RoleBinding of the same name
//! granting it to the ServiceAccount the agent's pods run as. Nothing else: the pods read no
//! other Secret, and write nothing.
//!
//! Planned from the Secrets already planned, not from how they are named: whatever Secrets
//! the config is stored in, the loader may read those.

use std::collections::BTreeSet;

use k8s_openapi::api::rbac::v1::{PolicyRule, Role, RoleBinding, RoleRef, Subject};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::desired::{
    AGENT_NAME_LABEL, DesiredObject, MANAGED_BY_LABEL, MANAGED_BY_VALUE, PlanOptions,
    PlannedObject, Subsystem, config_loader_rbac_name, owner_reference,
};
use crate::discover::Hierarchy;

/// The ServiceAccount the pods of `h` run as: `spec.serviceAccountName`, else the namespace's
/// `default`.
pub fn service_account(h: &Hierarchy) -> &str {
    h.agent
        .spec
        .service_account_name
        .as_deref()
        .filter(|name| !name.is_empty())
        .unwrap_or("default")
}

/// Whether `object` is a config Secret (a head or a segment) of a subsystem with a config.
fn is_config_secret(object: &PlannedObject) -> bool {
    matches!(object.object, DesiredObject::Secret(_))
        && Subsystem::WITH_CONFIG.contains(&object.subsystem)
}

/// The Role and RoleBinding of `h`'s config loader: it may read the config Secrets of
/// `planned` (heads and segments) and the head of every subsystem that runs, planned or not
/// (one whose config cannot be rendered or stored now keeps its Secret in the cluster,
/// [`super::prune`], and its running pods their config; the other subsystems are not held
/// back). None when there is no such Secret: a Role without `resourceNames` would grant every
/// Secret of the namespace.
pub fn objects(h: &Hierarchy, opts: &PlanOptions, planned: &[PlannedObject]) -> Vec<DesiredObject> {
    let agent = h.agent_name();
    let secrets: BTreeSet<String> = planned
        .iter()
        .filter(|o| is_config_secret(o))
        .map(|o| o.name().to_owned())
        .chain(
            Subsystem::WITH_CONFIG
                .into_iter()
                .filter(|s| super::prune::enabled(h, *s))
                .filter_map(|s| s.config_secret_name(agent)),
        )
        .collect();
    if secrets.is_empty() {
        return Vec::new();
    }
    let name = config_loader_rbac_name(agent);
    let metadata = ObjectMeta {
        name: Some(name.clone()),
        namespace: Some(h.agent_namespace().to_owned()),
        // As the config Secrets': the managed marker, the agent's name, then `--labels`.
        labels: Some(
            [
                (MANAGED_BY_LABEL.to_owned(), MANAGED_BY_VALUE.to_owned()),
                (AGENT_NAME_LABEL.to_owned(), agent.to_owned()),
            ]
            .into_iter()
            .chain(opts.labels.clone())
            .collect(),
        ),
        owner_references: Some(vec![owner_reference(&h.agent)]),
        ..Default::default()
    };
    let role = Role {
        metadata: metadata.clone(),
        rules: Some(vec![PolicyRule {
            api_groups: Some(vec![String::new()]),
            resources: Some(vec!["secrets".to_owned()]),
            resource_names: Some(secrets.into_iter().collect()),
            verbs: ["get", "list", "watch"].map(str::to_owned).to_vec(),
            non_resource_urls: None,
        }]),
    };
    let binding = RoleBinding {
        metadata,
        role_ref: RoleRef {
            api_group: "rbac.authorization.k8s.io".to_owned(),
            kind: "Role".to_owned(),
            name,
        },
        subjects: Some(vec![Subject {
            kind: "ServiceAccount".to_owned(),
            name: service_account(h).to_owned(),
            namespace: Some(h.agent_namespace().to_owned()),
            api_group: None,
        }]),
    };
    vec![
        DesiredObject::Role(role),
        DesiredObject::RoleBinding(binding),
    ]
}

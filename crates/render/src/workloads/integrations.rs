//! Integrations: the Deployment `<agent>-integrations-deploy` (integrations with
//! `allNodes: false`) and the DaemonSet `<agent>-integrations-ds` (`allNodes: true`),
//! spec 3.8.
//!
//! Each Integration's volumes and mounts are added with the prefix `<ns>-<name>-`, as
//! upstream. Upstream adds them unchecked (Q15), so one bad or colliding name breaks the whole
//! workload. Here an Integration whose volumes cannot be added as they are (an invalid
//! prefixed name, a name or mount path another contributor already uses, a mount of a volume
//! it does not define) is rejected on its own: it is left out of the workload, and
//! [`Accepted`] tells the config renderer to leave it out of the config too. An Integration the
//! config renderer cannot render ([`config::integrations::check`]: a name that is no config
//! key, a config that is not a map) is rejected here the same way, before its volumes are
//! looked at: the pods never carry the volumes, mounts or keys of an Integration that is not in
//! their config, and it takes no name or path from the Integrations after it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use api::Integration;
use k8s_openapi::api::apps::v1::{
    DaemonSet, DaemonSetSpec, DaemonSetUpdateStrategy, Deployment, DeploymentSpec,
    DeploymentStrategy,
};
use k8s_openapi::api::core::v1::{KeyToPath, SecretVolumeSource, Volume, VolumeMount};

use super::labels::{self, Labels, TYPE_LABEL, rules};
use super::pod_template::{self, AgentContext, PodOptions, PodTemplate, Source, Sourced, mount};
use super::{logs, metrics};
use crate::assets::AssetKey;
use crate::config;
use crate::config::integration_identity::{self, Identity};
use crate::desired::{assets_secret_name, integrations_workload_name};
use crate::discover::Hierarchy;
use crate::input_ref::{InputRef, Kind};
use crate::rejection::{Reason, Rejection};

/// Where the Integrations' Secret and ConfigMap keys are mounted.
pub const INTEGRATIONS_SECRETS_PATH: &str = "/etc/grafana-agent/integrations";

/// `<agent>-integrations-secrets`, the projected volume of the Integrations' keys.
pub fn secrets_volume_name(agent: &str) -> String {
    format!("{agent}-integrations-secrets")
}

/// The Integrations one workload runs, in discovery order.
#[derive(Debug, Clone, Default)]
pub struct IntegrationSubset {
    /// The Integrations whose volumes fit in the workload; the config must hold exactly these.
    pub integrations: Vec<Arc<Integration>>,
    /// The Integrations left out, and why.
    pub rejections: Vec<Rejection>,
    /// The volumes and mounts the accepted Integrations add (prefixed), then the projected
    /// volume of their keys.
    options: PodOptions,
}

fn prefix(i: &Integration) -> String {
    format!(
        "{}-{}-",
        i.metadata.namespace.as_deref().unwrap_or_default(),
        i.metadata.name.as_deref().unwrap_or_default()
    )
}

/// The prefixed volumes and mounts of one Integration.
struct Contribution {
    volumes: Vec<Sourced<Volume>>,
    mounts: Vec<Sourced<VolumeMount>>,
}

/// What one Integration adds, or why it cannot be added given what is `taken`.
fn contribution(
    i: &Integration,
    me: &InputRef,
    taken_names: &BTreeMap<String, String>,
    taken_paths: &BTreeMap<String, String>,
) -> Result<Contribution, Vec<Rejection>> {
    let prefix = prefix(i);
    let mut rejections = Vec::new();
    let mut volumes = Vec::new();
    let mut own_names = BTreeSet::new();
    for (k, v) in i.spec.volumes.iter().enumerate() {
        let field = format!("spec.volumes[{k}].name");
        let name = format!("{prefix}{}", v.name);
        // Recorded even when unusable, so its mounts are not reported as well.
        let duplicate = !own_names.insert(name.clone());
        let problem = if let Err(e) = rules::dns1123_label(&name) {
            Some(format!("it {e}"))
        } else if let Some(owner) = taken_names.get(&name) {
            Some(format!("{owner} already has a volume of this name"))
        } else if duplicate {
            Some("another of this Integration's volumes has the same name".to_owned())
        } else {
            None
        };
        if let Some(p) = problem {
            rejections.push(Rejection::new(
                me.clone(), Reason::InvalidVolume,
                field,
                format!(
                    "volume {:?} becomes {name:?} in the agent's pod (prefixed with the Integration's namespace and name), which is not usable: {p}",
                    v.name
                ),
            ));
        }
        let mut v = v.clone();
        v.name = name;
        volumes.push(Sourced {
            item: v,
            source: Source::Integration {
                object: me.clone(),
                field: format!("spec.volumes[{k}]"),
            },
        });
    }
    let secrets = i.spec.secrets.iter().enumerate();
    let config_maps = i.spec.config_maps.iter().enumerate();
    let selectors = secrets
        .map(|(n, s)| (format!("spec.secrets[{n}]"), &s.name, &s.key))
        .chain(config_maps.map(|(n, c)| (format!("spec.configMaps[{n}]"), &c.name, &c.key)));
    for (field, name, key) in selectors {
        if name.is_empty() || key.is_empty() {
            rejections.push(Rejection::new(
                me.clone(),
                Reason::IncompleteReference,
                field,
                "needs both a name and a key to be mounted".to_owned(),
            ));
        }
    }
    let mut mounts = Vec::new();
    let mut own_paths = BTreeSet::new();
    for (k, m) in i.spec.volume_mounts.iter().enumerate() {
        let name = format!("{prefix}{}", m.name);
        if !own_names.contains(&name) {
            rejections.push(Rejection::new(
                me.clone(),
                Reason::InvalidVolume,
                format!("spec.volumeMounts[{k}].name"),
                format!(
                    "mounts volume {:?}, which is not in the Integration's spec.volumes",
                    m.name
                ),
            ));
        }
        let path = &m.mount_path;
        let problem = if path == INTEGRATIONS_SECRETS_PATH {
            Some("it is reserved for the Integrations' secrets and configMaps".to_owned())
        } else if let Some(owner) = taken_paths.get(path) {
            Some(format!("{owner} already mounts a volume there"))
        } else if !own_paths.insert(path.clone()) {
            Some("another of this Integration's mounts uses it".to_owned())
        } else {
            None
        };
        if let Some(p) = problem {
            rejections.push(Rejection::new(
                me.clone(),
                Reason::InvalidVolume,
                format!("spec.volumeMounts[{k}].mountPath"),
                format!("mount path {path:?} cannot be used: {p}"),
            ));
        }
        let mut m = m.clone();
        m.name = name;
        mounts.push(Sourced {
            item: m,
            source: Source::Integration {
                object: me.clone(),
                field: format!("spec.volumeMounts[{k}]"),
            },
        });
    }
    if rejections.is_empty() {
        Ok(Contribution { volumes, mounts })
    } else {
        Err(rejections)
    }
}

/// The volumes of `i` that it may not add (issue 38, item 8): an Integration from another
/// namespace than the agent's adds volumes to a workload of the agent's namespace, so any source
/// but `emptyDir` would read that namespace's Secrets, ConfigMaps and claims, or the node's
/// files, unless the agent allows it (`spec.integrations.allowVolumesFromOtherNamespaces`).
fn foreign_volumes(h: &Hierarchy, i: &Integration, me: &InputRef) -> Result<(), Vec<Rejection>> {
    let agent = h.agent_ref();
    let allowed = h
        .agent
        .spec
        .integrations
        .as_ref()
        .is_some_and(|s| s.allow_volumes_from_other_namespaces);
    if allowed || me.namespace == agent.namespace {
        return Ok(());
    }
    let rejections: Vec<Rejection> = i
        .spec
        .volumes
        .iter()
        .enumerate()
        .filter_map(|(k, v)| {
            let sources: Vec<String> = serde_json::to_value(v)
                .ok()?
                .as_object()?
                .keys()
                .filter(|key| *key != "name" && *key != "emptyDir")
                .cloned()
                .collect();
            (!sources.is_empty()).then(|| {
                Rejection::new(
                    me.clone(),
                    Reason::FileAccessDenied,
                    format!("spec.volumes[{k}]"),
                    format!(
                        "a {} volume would be mounted in the integrations workload of namespace {}, where it reads that namespace's or the node's data; an Integration from another namespace may add emptyDir volumes only, unless GrafanaAgent {} sets spec.integrations.allowVolumesFromOtherNamespaces",
                        sources.join("/"),
                        agent.namespace,
                        agent.key()
                    ),
                )
            })
        })
        .collect();
    if rejections.is_empty() {
        Ok(())
    } else {
        Err(rejections)
    }
}

/// An Integration accepted into a workload, with what the agent names it and who defined it.
struct Named<'a> {
    integration: &'a Integration,
    identity: Identity,
    owner: String,
}

/// What the agent names `i` ([`integration_identity`]), when no Integration of its kind in
/// `accepted` has that name: the agent refuses the whole integrations config over a duplicate
/// or an integration it cannot name. Runtime alloy names its components otherwise (checked by
/// their labels), but refuses kafka's missing instance too.
fn identity_free(
    h: &Hierarchy,
    i: &Integration,
    me: &InputRef,
    accepted: &[Named<'_>],
) -> Result<Identity, Rejection> {
    let empty = serde_json::Map::new();
    let config = i.spec.config.as_object().unwrap_or(&empty);
    let name = &i.spec.name;
    let agent = crate::alloy::runtime(h) == api::grafana_agent::Runtime::Agent;
    let identity = match integration_identity::identity(name, config) {
        Ok(identity) => identity,
        Err(e) if agent => return Err(Rejection::of_field(me.clone(), e)),
        Err(e) if name == "kafka" => {
            return Err(Rejection::new(
                me.clone(),
                Reason::AlloyRefuses,
                e.field,
                format!("runtime alloy: {}", e.message),
            ));
        }
        Err(_) => return Ok(Identity::Unknown),
    };
    if !agent {
        return Ok(identity);
    }
    let same = accepted.iter().find_map(|other| {
        let owner = &other.owner;
        if other.integration.spec.name != *name {
            return None;
        }
        if other.integration.spec.config == i.spec.config {
            return Some(format!(
                "its config equals that of {owner}, so the agent names both alike"
            ));
        }
        match (&identity, &other.identity) {
            (Identity::Known(mine), Identity::Known(theirs)) if mine == theirs => {
                Some(format!("the agent names it {mine:?}, as it names {owner}"))
            }
            _ => None,
        }
    });
    match same {
        None => Ok(identity),
        Some(why) => Err(Rejection::new(
            me.clone(),
            Reason::DuplicateName,
            "spec.config.instance".to_owned(),
            format!(
                "{why}, and would refuse the whole integrations config over the duplicate (\"multiple instance names ... in integration {name:?}\"), stopping every integration of this agent; give the Integrations distinct spec.config.instance values"
            ),
        )),
    }
}

/// The Integrations of the Deployment (`all_nodes` false) or the DaemonSet (true), minus
/// those the config renderer cannot render and those whose volumes cannot be added. Volume
/// names and mount paths are checked against the agent's own, the workload's, and those of
/// the Integrations accepted before (so of two colliding Integrations, the later one is
/// rejected).
pub fn accepted(h: &Hierarchy, all_nodes: bool) -> IntegrationSubset {
    let agent = h.agent_name();
    let workload = integrations_workload_name(agent, all_nodes);
    let reserved = pod_template::reserved(h);
    let agent_pod = "the agent's pod".to_owned();
    let mut taken_names: BTreeMap<String, String> = reserved
        .volume_names
        .into_iter()
        .chain([secrets_volume_name(agent), format!("{workload}-wal")])
        .chain(logs::pod_options().volumes.into_iter().map(|v| v.item.name))
        .map(|n| (n, agent_pod.clone()))
        .collect();
    let mut taken_paths: BTreeMap<String, String> = reserved
        .mount_paths
        .into_iter()
        .map(|p| (p, agent_pod.clone()))
        .collect();

    let mut subset = IntegrationSubset::default();
    let mut alloy_labels: BTreeMap<String, String> = BTreeMap::new();
    let mut items: Vec<KeyToPath> = Vec::new();
    let mut mounted_keys: BTreeSet<AssetKey> = BTreeSet::new();
    // The singleton integrations accepted so far, and who defined each.
    let mut singletons: BTreeMap<String, InputRef> = BTreeMap::new();
    // The Integrations accepted so far, by what the agent names them.
    let mut named: Vec<Named<'_>> = Vec::new();
    for i in h
        .integrations
        .iter()
        .filter(|i| i.spec.type_.all_nodes == all_nodes)
    {
        let me = InputRef::of(Kind::Integration, i.as_ref());
        if let Err(e) = config::integrations::check(i) {
            subset.rejections.push(Rejection::of_field(me, e));
            continue;
        }
        let name = &i.spec.name;
        if config::integrations::singleton(name) == Some(config::integrations::Singleton::Yes)
            && let Some(first) = singletons.get(name.as_str())
        {
            subset.rejections.push(Rejection::new(
                me,
                Reason::DuplicateName,
                "spec.name".to_owned(),
                format!(
                    "the agent runs the {name} integration at most once per config, and {first} already defines it for {workload} (the agent would refuse the whole config: \"integration {name:?} may only be defined once\")"
                ),
            ));
            continue;
        }
        if crate::alloy::runtime(h) == api::grafana_agent::Runtime::Agent
            && let Err(e) = config::integrations::check_autoscrape(h, i)
        {
            subset.rejections.push(Rejection::of_field(me, e));
            continue;
        }
        let identity = match identity_free(h, i, &me, &named) {
            Ok(identity) => identity,
            Err(r) => {
                subset.rejections.push(r);
                continue;
            }
        };
        // Runtime alloy: what Alloy refuses is left out of both the config and the pods.
        if crate::alloy::runtime(h) == api::grafana_agent::Runtime::Alloy {
            if let Ok((_, config)) = config::integrations::entry(i)
                && let Err(r) = crate::alloy::integration_config(h, i, config)
            {
                subset.rejections.push(r);
                continue;
            }
            if let Some(label) = crate::alloy::integration_label(i)
                && let Some(first) = alloy_labels.get(&label)
            {
                subset.rejections.push(Rejection::new(
                        me,
                        Reason::AlloyRefuses,
                        "spec.config.instance".to_owned(),
                        format!(
                            "runtime alloy: Alloy would name its scrape {label:?}, as for {first}, and refuses the whole config over the duplicate; give the Integrations distinct spec.config.instance values"
                        ),
                    ));
                continue;
            }
        }
        if let Err(r) = foreign_volumes(h, i, &me) {
            subset.rejections.extend(r);
            continue;
        }
        match contribution(i, &me, &taken_names, &taken_paths) {
            Err(r) => {
                subset.rejections.extend(r);
                continue;
            }
            Ok(Contribution { volumes, mounts }) => {
                let owner = me.to_string();
                named.push(Named {
                    integration: i,
                    identity,
                    owner: owner.clone(),
                });
                if crate::alloy::runtime(h) == api::grafana_agent::Runtime::Alloy
                    && let Some(label) = crate::alloy::integration_label(i)
                {
                    alloy_labels.insert(label, owner.clone());
                }
                for v in &volumes {
                    taken_names.insert(v.item.name.clone(), owner.clone());
                }
                for m in &mounts {
                    taken_paths.insert(m.item.mount_path.clone(), owner.clone());
                }
                subset.options.volumes.extend(volumes);
                subset.options.mounts.extend(mounts);
            }
        }
        let ns = &me.namespace;
        let keys = i
            .spec
            .secrets
            .iter()
            .map(|s| (AssetKey::secret(ns, s), "secrets", s.optional == Some(true)))
            .chain(i.spec.config_maps.iter().map(|c| {
                (
                    AssetKey::config_map(ns, c),
                    "configMaps",
                    c.optional == Some(true),
                )
            }));
        for (key, dir, optional) in keys {
            // An optional key that is missing is not mounted (Q17): a projected item whose
            // key the assets Secret lacks would keep the pod from starting.
            if optional && h.assets.is_missing(&key) {
                continue;
            }
            if !mounted_keys.insert(key.clone()) {
                continue;
            }
            items.push(KeyToPath {
                key: h.assets.file_name(&key),
                path: format!("{dir}/{ns}/{}/{}", key.name, key.key),
                mode: None,
            });
        }
        if config::integrations::singleton(&i.spec.name)
            == Some(config::integrations::Singleton::Yes)
        {
            singletons.insert(i.spec.name.clone(), me.clone());
        }
        subset.integrations.push(i.clone());
    }
    if !items.is_empty() {
        let name = secrets_volume_name(agent);
        subset.options.volumes.push(Sourced::operator(Volume {
            name: name.clone(),
            secret: Some(SecretVolumeSource {
                // The assets Secret holds every key the Integrations refer to.
                secret_name: Some(assets_secret_name(agent)),
                items: Some(items),
                ..Default::default()
            }),
            ..Default::default()
        }));
        subset.options.mounts.push(Sourced::operator(mount(
            &name,
            INTEGRATIONS_SECRETS_PATH,
            true,
        )));
    }
    subset.options.selector_labels =
        Labels::from([(TYPE_LABEL.to_owned(), "integrations".to_owned())]);
    subset
}

/// The Integrations each integrations workload runs, decided once per plan: the configs
/// and the workloads both take them from here, so the pods and their config agree.
#[derive(Debug, Clone, Default)]
pub struct Accepted {
    deployment: IntegrationSubset,
    daemonset: IntegrationSubset,
}

impl Accepted {
    pub fn new(h: &Hierarchy) -> Self {
        Accepted {
            deployment: accepted(h, false),
            daemonset: accepted(h, true),
        }
    }

    /// The DaemonSet's subset (`all_nodes`), else the Deployment's.
    pub fn workload(&self, all_nodes: bool) -> &IntegrationSubset {
        if all_nodes {
            &self.daemonset
        } else {
            &self.deployment
        }
    }
}

/// Upstream's `mergePodTemplateOptions` with the Integrations' options first: they are taken
/// whole (they were checked by [`accepted`]); from each later set, a mount whose name or path
/// is already taken is skipped together with its volume, volumes are unique by name, env vars
/// by name, and selector labels keep their first value. The privileged flag is not merged, so
/// the integrations pods are never privileged (Q12, kept).
fn merge_options(first: PodOptions, rest: Vec<PodOptions>) -> PodOptions {
    let mut mount_names: BTreeSet<String> =
        first.mounts.iter().map(|m| m.item.name.clone()).collect();
    let mut mount_paths: BTreeSet<String> = first
        .mounts
        .iter()
        .map(|m| m.item.mount_path.clone())
        .collect();
    let mut volume_names: BTreeSet<String> =
        first.volumes.iter().map(|v| v.item.name.clone()).collect();
    let mut env_names: BTreeSet<String> = first.env.iter().map(|e| e.name.clone()).collect();
    let mut merged = PodOptions {
        privileged: false,
        ..first
    };
    for options in rest {
        for (k, v) in options.selector_labels {
            merged.selector_labels.entry(k).or_insert(v);
        }
        let mut ignored = BTreeSet::new();
        for m in options.mounts {
            let name = m.item.name.clone();
            if mount_names.contains(&name) || mount_paths.contains(&m.item.mount_path) {
                ignored.insert(name);
                continue;
            }
            mount_names.insert(name);
            mount_paths.insert(m.item.mount_path.clone());
            merged.mounts.push(m);
        }
        for v in options.volumes {
            if ignored.contains(&v.item.name) || !volume_names.insert(v.item.name.clone()) {
                continue;
            }
            merged.volumes.push(v);
        }
        for e in options.env {
            if env_names.insert(e.name.clone()) {
                merged.env.push(e);
            }
        }
    }
    merged
}

fn template(
    cx: &AgentContext<'_>,
    subset: &IntegrationSubset,
    workload: &str,
) -> Result<PodTemplate, Vec<Rejection>> {
    // The WAL is always an emptyDir here: a DaemonSet cannot use a claim template.
    let metrics_options = metrics::pod_options(cx, workload, 0, None, false);
    let mut options = merge_options(
        subset.options.clone(),
        vec![metrics_options, logs::pod_options()],
    );
    // The config's format decides the arguments (`--config.format=static` or none), so both
    // follow the one answer the plan gives the config.
    options.native_config = crate::alloy_native::integrations::native_integrations(cx.h);
    pod_template::pod_template(cx, workload, options, &[])
}

/// The integrations Deployment, `None` when no Integration runs in it.
pub fn deployment(
    cx: &AgentContext<'_>,
    subset: &IntegrationSubset,
) -> Result<Option<Deployment>, Vec<Rejection>> {
    if subset.integrations.is_empty() {
        return Ok(None);
    }
    let name = integrations_workload_name(cx.h.agent_name(), false);
    let t = template(cx, subset, &name)?;
    Ok(Some(Deployment {
        metadata: labels::workload_metadata(cx.h, &name, &t.pod_labels),
        spec: Some(DeploymentSpec {
            strategy: Some(DeploymentStrategy {
                type_: Some("RollingUpdate".to_owned()),
                rolling_update: None,
            }),
            selector: t.selector,
            template: t.template,
            // One replica (Q12, kept). Set, not left to the API default as upstream does:
            // upstream replaces the whole object on update, which resets a hand-scaled
            // Deployment to 1; a server-side apply only resets the fields it sets, and every
            // integration would otherwise run once per replica someone scaled it to.
            replicas: Some(1),
            ..Default::default()
        }),
        status: None,
    }))
}

/// The integrations DaemonSet, `None` when no Integration runs in it.
pub fn daemonset(
    cx: &AgentContext<'_>,
    subset: &IntegrationSubset,
) -> Result<Option<DaemonSet>, Vec<Rejection>> {
    if subset.integrations.is_empty() {
        return Ok(None);
    }
    let name = integrations_workload_name(cx.h.agent_name(), true);
    let t = template(cx, subset, &name)?;
    Ok(Some(DaemonSet {
        metadata: labels::workload_metadata(cx.h, &name, &t.pod_labels),
        spec: Some(DaemonSetSpec {
            update_strategy: Some(DaemonSetUpdateStrategy {
                type_: Some("RollingUpdate".to_owned()),
                rolling_update: None,
            }),
            selector: t.selector,
            template: t.template,
            ..Default::default()
        }),
        status: None,
    }))
}

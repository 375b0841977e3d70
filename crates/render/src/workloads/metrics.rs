//! Metrics: the governing Service `<agent>-operated` and one StatefulSet per shard
//! (spec 3.6), or, for an Alloy cluster (`spec.alloy.clustering`, [`crate::alloy::clustering`]),
//! one StatefulSet of `shards` pods that share the targets themselves.

use api::prometheus::StorageSpec;
use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetSpec, StatefulSetUpdateStrategy};
use k8s_openapi::api::core::v1::{
    EmptyDirVolumeSource, PersistentVolumeClaim, PersistentVolumeClaimSpec, Service, ServicePort,
    ServiceSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::{effective_replicas, rollout};
use super::labels::{self, Labels, OPERATED_AGENT_LABEL, SHARD_LABEL, TYPE_LABEL, rules};
use super::pod_template::{
    self, AGENT_PORT, AgentContext, PodOptions, Source, Sourced, empty_dir_volume, mount, value_env,
};
use crate::desired::{
    AGENT_NAME_LABEL, MANAGED_BY_LABEL, MANAGED_BY_VALUE, owner_reference, service_name,
    statefulset_name,
};
use crate::rejection::{Reason, Rejection};
use crate::sharding::{self, effective_shards};

/// Where every pod keeps its WAL (and the logs positions file).
pub const DATA_PATH: &str = "/var/lib/grafana-agent/data";
const CLAIM_NAME_FIELD: &str = "spec.storage.volumeClaimTemplate.metadata.name";

/// The user's claim template name, when set.
fn claim_template_name(storage: Option<&StorageSpec>) -> Option<&str> {
    storage
        .and_then(|s| s.volume_claim_template.as_ref())
        .and_then(|t| t.metadata.as_ref())
        .and_then(|m| m.name.as_deref())
        .filter(|n| !n.is_empty())
}

/// The WAL volume's name and where it came from (spec 3.6).
fn wal_volume(workload: &str, storage: Option<&StorageSpec>) -> (String, Source) {
    match claim_template_name(storage) {
        Some(n) => (
            n.to_owned(),
            Source::Agent {
                field: CLAIM_NAME_FIELD.to_owned(),
                struct_item: false,
            },
        ),
        None => (format!("{workload}-wal"), Source::Operator),
    }
}

/// Whether the WAL lives in a PVC from a claim template: any storage but an emptyDir, which
/// includes `storage: {}` and `storage.ephemeral` (Q29, kept).
fn uses_claim_template(storage: Option<&StorageSpec>) -> bool {
    storage.is_some_and(|s| s.empty_dir.is_none())
}

/// The options of shard `shard` of a workload named `workload` (upstream's
/// `metricsPodTemplateOptions`). The integrations workloads reuse them with `storage: None`.
pub fn pod_options(
    cx: &AgentContext<'_>,
    workload: &str,
    shard: i32,
    storage: Option<&StorageSpec>,
    with_sharding_env: bool,
) -> PodOptions {
    let metrics = cx.h.agent.spec.metrics.as_ref();
    // An Alloy cluster is one shard to the config: its pods all get shard 0 of 1, so the
    // template does not change with the instance count and resizing restarts no pod.
    let shards = if crate::alloy::clustering(cx.h) {
        1
    } else {
        effective_shards(metrics)
    };
    let (wal, wal_source) = wal_volume(workload, storage);
    let mut env = vec![
        value_env("SHARD", shard.to_string()),
        value_env("SHARDS", shards.to_string()),
    ];
    if with_sharding_env {
        let strategy = metrics
            .and_then(|m| m.sharding_strategy)
            .unwrap_or_default();
        let (shard, shards) = (shard.unsigned_abs(), shards.unsigned_abs());
        env.extend(
            sharding::extra_env(strategy, shard, shards)
                .into_iter()
                .map(|(name, value)| value_env(&name, value)),
        );
    }
    let volumes = match storage {
        None => vec![empty_dir_volume(&wal, EmptyDirVolumeSource::default())],
        Some(StorageSpec {
            empty_dir: Some(dir),
            ..
        }) => vec![empty_dir_volume(&wal, dir.clone())],
        Some(_) => Vec::new(),
    };
    PodOptions {
        selector_labels: Labels::from([
            (SHARD_LABEL.to_owned(), shard.to_string()),
            (TYPE_LABEL.to_owned(), "metrics".to_owned()),
        ]),
        volumes: volumes
            .into_iter()
            .map(|item| Sourced {
                item,
                source: wal_source.clone(),
            })
            .collect(),
        mounts: vec![Sourced {
            item: mount(&wal, DATA_PATH, false),
            source: wal_source,
        }],
        env,
        privileged: false,
        native_config: crate::alloy::native_metrics(cx.h),
    }
}

/// The governing Service (spec 3.6), with the fix for Q11: its selector also requires
/// `operator.agent.grafana.com/type: metrics`, so it selects only the metrics pods.
pub fn service(cx: &AgentContext<'_>) -> Service {
    let h = cx.h;
    let agent = h.agent_name();
    let port_name = cx.port_name();
    let mut labels = Labels::from([
        (MANAGED_BY_LABEL.to_owned(), MANAGED_BY_VALUE.to_owned()),
        (AGENT_NAME_LABEL.to_owned(), agent.to_owned()),
        (OPERATED_AGENT_LABEL.to_owned(), "true".to_owned()),
    ]);
    labels.extend(cx.opts.labels.clone());
    // Alloy cluster peers find each other through this Service's DNS records: pods that
    // start together are not ready yet, and without their records each would form a cluster
    // of its own until the next rejoin.
    let publish_not_ready_addresses = crate::alloy::clustering(h).then_some(true);
    Service {
        metadata: ObjectMeta {
            name: Some(service_name(agent)),
            namespace: Some(h.agent_namespace().to_owned()),
            labels: Some(labels),
            owner_references: Some(vec![owner_reference(&h.agent)]),
            ..Default::default()
        },
        spec: Some(ServiceSpec {
            cluster_ip: Some("None".to_owned()),
            ports: Some(vec![ServicePort {
                name: Some(port_name.clone()),
                port: AGENT_PORT,
                target_port: Some(IntOrString::String(port_name)),
                ..Default::default()
            }]),
            selector: Some(Labels::from([
                (
                    "app.kubernetes.io/name".to_owned(),
                    "grafana-agent".to_owned(),
                ),
                (AGENT_NAME_LABEL.to_owned(), agent.to_owned()),
                (TYPE_LABEL.to_owned(), "metrics".to_owned()),
            ])),
            publish_not_ready_addresses,
            ..Default::default()
        }),
        status: None,
    }
}

/// The flags that make a metrics pod of `h` join its agent's Alloy cluster: the peers are
/// found through the governing headless Service on the pods' HTTP port, which Alloy's
/// cluster traffic shares. No flag depends on the instance count.
pub fn cluster_args(h: &crate::discover::Hierarchy) -> Vec<String> {
    vec![
        "--cluster.enabled=true".to_owned(),
        format!(
            "--cluster.join-addresses={}.{}.svc:{AGENT_PORT}",
            service_name(h.agent_name()),
            h.agent_namespace()
        ),
    ]
}

/// What an Alloy cluster cannot do yet: `replicas` above 1 (each target scraped by every
/// replica) needs one cluster per replica, which the plan does not make.
fn check_clustering(cx: &AgentContext<'_>) -> Result<(), Rejection> {
    let replicas = effective_replicas(cx.h.agent.spec.metrics.as_ref());
    if replicas > 1 {
        return Err(cx.reject(
            Reason::InvalidValue,
            "spec.metrics.replicas".to_owned(),
            format!(
                "is {replicas}, and spec.alloy.clustering shares each target between the pods of one Alloy cluster: scraping every target once per replica is not supported with clustering yet; set replicas to 1 (or unset), or turn clustering off; the metrics StatefulSets are left as they are"
            ),
        ));
    }
    Ok(())
}

/// The claim template of a StatefulSet named `name` (spec 3.6): copied from
/// `storage.volumeClaimTemplate`, named `<name>-wal` by default, `ReadWriteOnce` by default.
fn claim_template(name: &str, storage: &StorageSpec) -> PersistentVolumeClaim {
    let template = storage.volume_claim_template.clone().unwrap_or_default();
    let meta = template.metadata.unwrap_or_default();
    let mut spec: PersistentVolumeClaimSpec = template.spec.unwrap_or_default();
    if spec.access_modes.is_none() {
        spec.access_modes = Some(vec!["ReadWriteOnce".to_owned()]);
    }
    PersistentVolumeClaim {
        metadata: ObjectMeta {
            name: Some(
                meta.name
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| format!("{name}-wal")),
            ),
            labels: (!meta.labels.is_empty()).then_some(meta.labels),
            annotations: (!meta.annotations.is_empty()).then_some(meta.annotations),
            ..Default::default()
        },
        spec: Some(spec),
        status: template.status,
    }
}

/// Checks the names shard `shard` generates, before anything is built.
fn check_names(cx: &AgentContext<'_>, shards: i32) -> Vec<Rejection> {
    let agent = cx.h.agent_name();
    let mut rejections = Vec::new();
    let service = service_name(agent);
    if let Err(e) = rules::dns1035_label(&service) {
        rejections.push(cx.reject(Reason::InvalidName,
            "metadata.name".to_owned(),
            format!(
                "the metrics Service name {service:?} is not valid: it {e}; use a GrafanaAgent name that starts with a letter and has at most 54 characters"
            ),
        ));
    }
    for shard in 0..shards {
        let name = statefulset_name(agent, shard);
        let problem = if name.len() > rules::STATEFULSET_NAME_MAX {
            Some(format!(
                "is {} characters long; a StatefulSet name may have at most {} so that its pods' controller-revision-hash label stays within 63",
                name.len(),
                rules::STATEFULSET_NAME_MAX
            ))
        } else {
            rules::dns1123_label(&name).err()
        };
        if let Some(p) = problem {
            rejections.push(cx.reject(Reason::InvalidName,
                "metadata.name".to_owned(),
                format!("the metrics StatefulSet name {name:?} {p}; use a shorter GrafanaAgent name or fewer shards"),
            ));
            break;
        }
    }
    let storage = cx.h.agent.spec.storage.as_ref();
    if uses_claim_template(storage) {
        let claim = claim_template_name(storage)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{}-wal", statefulset_name(agent, shards - 1)));
        if let Err(e) = rules::dns1123_label(&claim) {
            let field = if claim_template_name(storage).is_some() {
                CLAIM_NAME_FIELD
            } else {
                "metadata.name"
            };
            rejections.push(cx.reject(
                Reason::InvalidName,
                field.to_owned(),
                format!("the WAL volume claim template name {claim:?} is not valid: it {e}"),
            ));
        }
    }
    rejections
}

/// The metrics objects: the Service, then shard 0..S-1. All or nothing: when one shard
/// cannot be built, none is, so the running StatefulSets are left as they are.
pub fn objects(cx: &AgentContext<'_>) -> Result<(Service, Vec<StatefulSet>), Vec<Rejection>> {
    let h = cx.h;
    let agent = h.agent_name();
    let metrics = h.agent.spec.metrics.as_ref();
    let clustering = crate::alloy::clustering(h);
    // Clustered: one StatefulSet whose pods are the `shards` instances sharing the targets.
    let (shards, replicas) = if clustering {
        check_clustering(cx).map_err(|r| vec![r])?;
        (1, effective_shards(metrics))
    } else {
        (effective_shards(metrics), effective_replicas(metrics))
    };
    let alloy_args = if clustering {
        cluster_args(h)
    } else {
        Vec::new()
    };
    let storage = h.agent.spec.storage.as_ref();

    let name_problems = check_names(cx, shards);
    if !name_problems.is_empty() {
        return Err(name_problems);
    }
    let mut statefulsets = Vec::new();
    let mut rejections = Vec::new();
    for shard in 0..shards {
        let name = statefulset_name(agent, shard);
        let claims: Vec<PersistentVolumeClaim> = storage
            .filter(|s| uses_claim_template(Some(s)))
            .map(|s| claim_template(&name, s))
            .into_iter()
            .collect();
        let claim_names: Vec<String> = claims
            .iter()
            .filter_map(|c| c.metadata.name.clone())
            .collect();
        // A cluster's pods need no bucket list: its scrape jobs have no sharding rules.
        let options = pod_options(cx, &name, shard, storage, !clustering);
        // Every shard mounts the same config Secret, `<agent>-config`.
        let template = match pod_template::pod_template_with_alloy_args(
            cx,
            agent,
            options,
            &claim_names,
            &alloy_args,
        ) {
            Ok(t) => t,
            Err(r) => {
                rejections.extend(r);
                continue;
            }
        };
        statefulsets.push(StatefulSet {
            metadata: labels::workload_metadata(h, &name, &template.pod_labels),
            spec: Some(StatefulSetSpec {
                service_name: Some(service_name(agent)),
                replicas: Some(replicas),
                min_ready_seconds: rollout::min_ready_seconds(h, replicas),
                pod_management_policy: Some("Parallel".to_owned()),
                update_strategy: Some(StatefulSetUpdateStrategy {
                    type_: Some("RollingUpdate".to_owned()),
                    rolling_update: None,
                }),
                selector: template.selector,
                template: template.template,
                volume_claim_templates: (!claims.is_empty()).then_some(claims),
                ..Default::default()
            }),
            status: None,
        });
    }
    if rejections.is_empty() {
        Ok((service(cx), statefulsets))
    } else {
        Err(rejections)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::apps::v1::StatefulSet;

    use crate::desired::DesiredObject;

    /// The clustered agent of the golden case with `shards` instances: its metrics
    /// StatefulSets and the text of its metrics config.
    fn clustered(shards: &str, clustering: bool) -> (Vec<StatefulSet>, String) {
        let text = include_str!("../../../../testdata/workloads/alloy-clustering/input.yaml")
            .replace("shards: 3", &format!("shards: {shards}"))
            .replacen("enabled: true", &format!("enabled: {clustering}"), 1);
        let mut loader = crate::manifest::Loader::new();
        loader.add_source("input.yaml", &text);
        let store = loader.finish().store;
        let plans = crate::output::plan_all(&store, &crate::PlanOptions::default(), None);
        let plan = plans
            .iter()
            .find(|p| p.agent.name == "clustered")
            .expect("the clustered agent is planned");
        let statefulsets = plan
            .objects
            .iter()
            .filter_map(|o| match &o.object {
                DesiredObject::StatefulSet(s) => Some(s.clone()),
                _ => None,
            })
            .collect();
        let config = plan
            .configs
            .iter()
            .find(|c| c.secret_name == "clustered-config")
            .expect("the metrics config")
            .text
            .as_str()
            .to_owned();
        (statefulsets, config)
    }

    #[test]
    fn a_cluster_is_one_statefulset_of_shards_pods_and_resizing_changes_only_its_replicas() {
        let (two, config_two) = clustered("2", true);
        let (five, config_five) = clustered("5", true);
        assert_eq!(two.len(), 1);
        assert_eq!(five.len(), 1);
        let spec = |s: &StatefulSet| s.spec.clone().expect("spec");
        assert_eq!(spec(&two[0]).replicas, Some(2));
        assert_eq!(spec(&five[0]).replicas, Some(5));
        // Nothing else differs: no pod restarts, no config change, when instances come and go.
        assert_eq!(spec(&two[0]).template, spec(&five[0]).template);
        assert_eq!(two[0].metadata, five[0].metadata);
        assert_eq!(config_two, config_five);
        assert!(config_two.contains("clustering {"));
        assert!(!config_two.contains("hashmod"), "{config_two}");
        let args = spec(&two[0]).template.spec.expect("pod").containers[1]
            .args
            .clone()
            .expect("args");
        assert!(
            args.contains(&"--cluster.enabled=true".to_owned()),
            "{args:?}"
        );
        assert!(
            args.contains(
                &"--cluster.join-addresses=clustered-operated.monitoring.svc:8080".to_owned()
            ),
            "{args:?}"
        );
    }

    #[test]
    fn switching_to_a_cluster_keeps_shard_zeros_statefulset_and_deletes_the_other_shards() {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

        use crate::desired::{MANAGED_BY_LABEL, MANAGED_BY_VALUE, ManagedKind};
        use crate::workloads::{ExistingObject, objects_to_delete};

        let text = include_str!("../../../../testdata/workloads/alloy-clustering/input.yaml");
        let mut loader = crate::manifest::Loader::new();
        loader.add_source("input.yaml", text);
        let store = loader.finish().store;
        let agent = store
            .agents()
            .find(|a| a.metadata.name.as_deref() == Some("clustered"))
            .expect("the clustered agent")
            .clone();
        let discovery = crate::discover::discover(&agent, &store);
        let plan = crate::plan::plan(&discovery, &crate::PlanOptions::default());
        let uid = agent.metadata.uid.clone().expect("a uid");
        // What the agent ran before, sharded: one StatefulSet per shard.
        let existing: Vec<ExistingObject> = ["clustered", "clustered-shard-1", "clustered-shard-2"]
            .into_iter()
            .map(|name| ExistingObject {
                kind: ManagedKind::StatefulSet,
                namespace: "monitoring".to_owned(),
                name: name.to_owned(),
                labels: [(MANAGED_BY_LABEL.to_owned(), MANAGED_BY_VALUE.to_owned())].into(),
                owner_references: vec![OwnerReference {
                    api_version: "monitoring.grafana.com/v1alpha1".to_owned(),
                    kind: "GrafanaAgent".to_owned(),
                    name: "clustered".to_owned(),
                    uid: uid.clone(),
                    controller: Some(true),
                    block_owner_deletion: Some(true),
                }],
            })
            .collect();
        let deleted: Vec<&str> = objects_to_delete(&discovery.hierarchy, &plan.objects, &existing)
            .into_iter()
            .map(|o| o.name.as_str())
            .collect();
        assert_eq!(deleted, ["clustered-shard-1", "clustered-shard-2"]);
    }

    #[test]
    fn without_clustering_the_same_agent_is_sharded_by_relabel_rules() {
        let (statefulsets, config) = clustered("3", false);
        assert_eq!(statefulsets.len(), 3);
        assert!(config.contains("hashmod"), "{config}");
        assert!(!config.contains("clustering {"));
        let args = |s: &StatefulSet| {
            s.spec
                .clone()
                .expect("spec")
                .template
                .spec
                .expect("pod")
                .containers[1]
                .args
                .clone()
                .expect("args")
        };
        assert!(
            statefulsets
                .iter()
                .all(|s| !args(s).iter().any(|a| a.starts_with("--cluster.")))
        );
    }
}

//! Metrics: the governing Service `<agent>-operated` and one StatefulSet per shard
//! (spec 3.6), or, with Alloy clustering (`spec.alloy.clustering`, [`crate::alloy_native::clustering`]),
//! one Alloy cluster per replica: a StatefulSet of `shards` pods that share the targets
//! themselves, and the headless Service through which they, and only they, find each other.

use api::prometheus::StorageSpec;
use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetSpec, StatefulSetUpdateStrategy};
use k8s_openapi::api::core::v1::{
    EmptyDirVolumeSource, PersistentVolumeClaim, PersistentVolumeClaimSpec, Service, ServicePort,
    ServiceSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::labels::{
    self, CLUSTER_REPLICA_LABEL, Labels, OPERATED_AGENT_LABEL, SHARD_LABEL, TYPE_LABEL, rules,
};
use super::pod_template::{
    self, AGENT_PORT, AgentContext, PodOptions, Source, Sourced, empty_dir_volume, mount, value_env,
};
use super::{effective_replicas, rollout};
use crate::desired::{
    AGENT_NAME_LABEL, MANAGED_BY_LABEL, MANAGED_BY_VALUE, cluster_peers_service_name,
    cluster_statefulset_name, owner_reference, service_name, statefulset_name,
};
use crate::loader_variables::CLUSTER_REPLICA;
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
    let shards = if crate::alloy_native::clustering(cx.h) {
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
        native_config: crate::alloy_native::native_metrics(cx.h),
    }
}

/// The governing Service (spec 3.6), with the fix for Q11: its selector also requires
/// `operator.agent.grafana.com/type: metrics`, so it selects only the metrics pods.
pub fn service(cx: &AgentContext<'_>) -> Service {
    let mut labels = Labels::from([(OPERATED_AGENT_LABEL.to_owned(), "true".to_owned())]);
    labels.extend(cx.opts.labels.clone());
    headless_service(
        cx,
        service_name(cx.h.agent_name()),
        labels,
        Labels::new(),
        None,
    )
}

/// The headless Service of replica `replica`'s Alloy cluster: it selects that cluster's pods
/// only, so that the peers one cluster resolves are never another's, and publishes them before
/// they are ready: pods that start together are not ready yet, and without their records each
/// would form a cluster of its own until the next rejoin.
fn cluster_peers_service(cx: &AgentContext<'_>, replica: i32) -> Service {
    let mut labels = cx.opts.labels.clone();
    let replica_label = Labels::from([(CLUSTER_REPLICA_LABEL.to_owned(), replica.to_string())]);
    labels.extend(replica_label.clone());
    headless_service(
        cx,
        cluster_peers_service_name(cx.h.agent_name(), replica),
        labels,
        replica_label,
        Some(true),
    )
}

/// A headless Service of `cx`'s metrics pods (those with `extra_selector` too) on the agent's
/// HTTP port, which Alloy's cluster traffic shares.
fn headless_service(
    cx: &AgentContext<'_>,
    name: String,
    extra_labels: Labels,
    extra_selector: Labels,
    publish_not_ready_addresses: Option<bool>,
) -> Service {
    let h = cx.h;
    let agent = h.agent_name();
    let port_name = cx.port_name();
    let mut labels = Labels::from([
        (MANAGED_BY_LABEL.to_owned(), MANAGED_BY_VALUE.to_owned()),
        (AGENT_NAME_LABEL.to_owned(), agent.to_owned()),
    ]);
    labels.extend(extra_labels);
    let mut selector = Labels::from([
        (
            "app.kubernetes.io/name".to_owned(),
            "grafana-agent".to_owned(),
        ),
        (AGENT_NAME_LABEL.to_owned(), agent.to_owned()),
        (TYPE_LABEL.to_owned(), "metrics".to_owned()),
    ]);
    selector.extend(extra_selector);
    Service {
        metadata: ObjectMeta {
            name: Some(name),
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
            selector: Some(selector),
            publish_not_ready_addresses,
            ..Default::default()
        }),
        status: None,
    }
}

/// The flags that make a metrics pod of `h` join replica `replica`'s Alloy cluster: the peers
/// are found through that cluster's own headless Service, and the cluster's name, unique to
/// the agent and replica, makes every other Alloy's gossip (another replica's, another
/// agent's at an address that was once a peer's) refused. No flag depends on the instance
/// count.
pub fn cluster_args(h: &crate::discover::Hierarchy, replica: i32) -> Vec<String> {
    vec![
        "--cluster.enabled=true".to_owned(),
        format!(
            "--cluster.join-addresses={}.{}.svc:{AGENT_PORT}",
            cluster_peers_service_name(h.agent_name(), replica),
            h.agent_namespace()
        ),
        format!(
            "--cluster.name={}/{}/replica-{replica}",
            h.agent_namespace(),
            h.agent_name()
        ),
    ]
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

/// One metrics StatefulSet of the plan: a shard, or the Alloy cluster of a replica.
struct MetricsStatefulSet {
    name: String,
    /// The shard its pods are: 0 for every cluster (a cluster shares all the targets).
    shard: i32,
    pods: i32,
    /// The replica whose Alloy cluster it is, when clustered.
    cluster_replica: Option<i32>,
}

/// The metrics StatefulSets of `cx`: one per shard of `replicas` pods each (spec 3.6), or,
/// clustered, one Alloy cluster per replica of `shards` pods each. With `replicas: 0` a
/// cluster is kept with no pods, as each shard's StatefulSet is.
fn statefulsets_planned(cx: &AgentContext<'_>) -> Vec<MetricsStatefulSet> {
    let agent = cx.h.agent_name();
    let metrics = cx.h.agent.spec.metrics.as_ref();
    let (shards, replicas) = (effective_shards(metrics), effective_replicas(metrics));
    if crate::alloy_native::clustering(cx.h) {
        let pods = if replicas == 0 { 0 } else { shards };
        (0..replicas.max(1))
            .map(|replica| MetricsStatefulSet {
                name: cluster_statefulset_name(agent, replica),
                shard: 0,
                pods,
                cluster_replica: Some(replica),
            })
            .collect()
    } else {
        (0..shards)
            .map(|shard| MetricsStatefulSet {
                name: statefulset_name(agent, shard),
                shard,
                pods: replicas,
                cluster_replica: None,
            })
            .collect()
    }
}

/// Checks the names the planned StatefulSets (and the clusters' Services) generate, before
/// anything is built.
fn check_names(cx: &AgentContext<'_>, planned: &[MetricsStatefulSet]) -> Vec<Rejection> {
    let agent = cx.h.agent_name();
    let mut rejections = Vec::new();
    let services = std::iter::once(service_name(agent)).chain(
        planned
            .iter()
            .filter_map(|p| p.cluster_replica)
            .map(|replica| cluster_peers_service_name(agent, replica)),
    );
    for service in services {
        if let Err(e) = rules::dns1035_label(&service) {
            rejections.push(cx.reject(Reason::InvalidName,
                "metadata.name".to_owned(),
                format!(
                    "the metrics Service name {service:?} is not valid: it {e}; use a GrafanaAgent name that starts with a letter and is shorter"
                ),
            ));
            break;
        }
    }
    for set in planned {
        let name = &set.name;
        let problem = if name.len() > rules::STATEFULSET_NAME_MAX {
            Some(format!(
                "is {} characters long; a StatefulSet name may have at most {} so that its pods' controller-revision-hash label stays within 63",
                name.len(),
                rules::STATEFULSET_NAME_MAX
            ))
        } else {
            rules::dns1123_label(name).err()
        };
        if let Some(p) = problem {
            let fewer = if set.cluster_replica.is_some() {
                "fewer replicas"
            } else {
                "fewer shards"
            };
            rejections.push(cx.reject(Reason::InvalidName,
                "metadata.name".to_owned(),
                format!("the metrics StatefulSet name {name:?} {p}; use a shorter GrafanaAgent name or {fewer}"),
            ));
            break;
        }
    }
    let storage = cx.h.agent.spec.storage.as_ref();
    if uses_claim_template(storage) {
        let longest = planned
            .iter()
            .map(|p| p.name.as_str())
            .max_by_key(|n| n.len())
            .unwrap_or(agent);
        let claim = claim_template_name(storage)
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{longest}-wal"));
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

/// The metrics objects: the Services (the governing one, then each Alloy cluster's), and the
/// StatefulSets in order. All or nothing: when one StatefulSet cannot be built, none is, so
/// the running StatefulSets are left as they are.
pub fn objects(cx: &AgentContext<'_>) -> Result<(Vec<Service>, Vec<StatefulSet>), Vec<Rejection>> {
    let h = cx.h;
    let agent = h.agent_name();
    let planned = statefulsets_planned(cx);
    let storage = h.agent.spec.storage.as_ref();

    let name_problems = check_names(cx, &planned);
    if !name_problems.is_empty() {
        return Err(name_problems);
    }
    let mut services = vec![service(cx)];
    let mut statefulsets = Vec::new();
    let mut rejections = Vec::new();
    for set in &planned {
        let claims: Vec<PersistentVolumeClaim> = storage
            .filter(|s| uses_claim_template(Some(s)))
            .map(|s| claim_template(&set.name, s))
            .into_iter()
            .collect();
        let claim_names: Vec<String> = claims
            .iter()
            .filter_map(|c| c.metadata.name.clone())
            .collect();
        // A cluster's pods need no bucket list: its scrape jobs have no sharding rules.
        let mut options = pod_options(
            cx,
            &set.name,
            set.shard,
            storage,
            set.cluster_replica.is_none(),
        );
        let alloy_args = match set.cluster_replica {
            Some(replica) => {
                let replica_text = replica.to_string();
                options
                    .selector_labels
                    .insert(CLUSTER_REPLICA_LABEL.to_owned(), replica_text.clone());
                options.env.push(value_env(CLUSTER_REPLICA, replica_text));
                services.push(cluster_peers_service(cx, replica));
                cluster_args(h, replica)
            }
            None => Vec::new(),
        };
        // Every StatefulSet mounts the same config Secret, `<agent>-config`.
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
            metadata: labels::workload_metadata(h, &set.name, &template.pod_labels),
            spec: Some(StatefulSetSpec {
                service_name: Some(service_name(agent)),
                replicas: Some(set.pods),
                min_ready_seconds: rollout::min_ready_seconds(h, set.pods),
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
        Ok((services, statefulsets))
    } else {
        Err(rejections)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::apps::v1::StatefulSet;
    use k8s_openapi::api::core::v1::{PodSpec, Service};

    use crate::desired::DesiredObject;

    /// The clustered agent of the golden case with `shards` instances: its metrics
    /// StatefulSets and the text of its metrics config.
    fn clustered(shards: &str, clustering: bool) -> (Vec<StatefulSet>, String) {
        let text = include_str!("../../../../testdata/workloads/alloy-clustering/input.yaml")
            .replace("shards: 3", &format!("shards: {shards}"))
            .replacen("enabled: true", &format!("enabled: {clustering}"), 1);
        let (_, statefulsets, config) = planned(&text, "clustered");
        (statefulsets, config)
    }

    /// The metrics Services and StatefulSets of agent `agent` of `input`, and the text of
    /// its metrics config.
    fn planned(input: &str, agent: &str) -> (Vec<Service>, Vec<StatefulSet>, String) {
        let mut loader = crate::manifest::Loader::new();
        loader.add_source("input.yaml", input);
        let store = loader.finish().store;
        let plans = crate::output::plan_all(&store, &crate::PlanOptions::default(), None);
        let plan = plans
            .iter()
            .find(|p| p.agent.name == agent)
            .expect("the agent is planned");
        assert!(plan.rejections.is_empty(), "{:?}", plan.rejections);
        let services = plan
            .objects
            .iter()
            .filter_map(|o| match &o.object {
                DesiredObject::Service(s) => Some(s.clone()),
                _ => None,
            })
            .collect();
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
            .find(|c| c.secret_name == format!("{agent}-config"))
            .expect("the metrics config")
            .text
            .as_str()
            .to_owned();
        (services, statefulsets, config)
    }

    fn pod(s: &StatefulSet) -> PodSpec {
        s.spec.clone().expect("spec").template.spec.expect("pod")
    }

    fn alloy_args(s: &StatefulSet) -> Vec<String> {
        pod(s).containers[1].args.clone().expect("args")
    }

    /// The plain value of `name` in the environment of the config loader's init container.
    fn loader_env(s: &StatefulSet, name: &str) -> Option<String> {
        pod(s).init_containers.expect("the loader")[0]
            .env
            .iter()
            .flatten()
            .find(|e| e.name == name)
            .and_then(|e| e.value.clone())
    }

    #[test]
    fn each_replica_is_a_cluster_of_its_own_with_its_own_peers_and_replica_label() {
        let input = include_str!("../../../../testdata/workloads/alloy-clustering/input.yaml");
        let (services, statefulsets, config) = planned(input, "ha");
        let names: Vec<_> = statefulsets
            .iter()
            .map(|s| s.metadata.name.clone().expect("name"))
            .collect();
        assert_eq!(names, ["ha", "ha-replica-1"]);
        let service_names: Vec<_> = services
            .iter()
            .map(|s| s.metadata.name.clone().expect("name"))
            .collect();
        assert_eq!(
            service_names,
            ["ha-operated", "ha-replica-0", "ha-replica-1"]
        );
        for (replica, statefulset) in statefulsets.iter().enumerate() {
            let spec = statefulset.spec.clone().expect("spec");
            assert_eq!(spec.replicas, Some(2), "shards pods per cluster");
            let replica_label =
                spec.selector.match_labels.expect("selector")[super::CLUSTER_REPLICA_LABEL].clone();
            assert_eq!(replica_label, replica.to_string());
            // The cluster's Service selects its pods and no other cluster's.
            let peers = &services[replica + 1];
            let selector = peers
                .spec
                .clone()
                .expect("spec")
                .selector
                .expect("selector");
            assert_eq!(selector[super::CLUSTER_REPLICA_LABEL], replica.to_string());
            assert_eq!(
                peers
                    .spec
                    .clone()
                    .expect("spec")
                    .publish_not_ready_addresses,
                Some(true)
            );
            let args = alloy_args(statefulset);
            assert!(
                args.contains(&format!(
                    "--cluster.join-addresses=ha-replica-{replica}.monitoring.svc:8080"
                )),
                "{args:?}"
            );
            assert!(
                args.contains(&format!("--cluster.name=monitoring/ha/replica-{replica}")),
                "{args:?}"
            );
            assert_eq!(
                loader_env(statefulset, crate::loader_variables::CLUSTER_REPLICA),
                Some(replica.to_string())
            );
        }
        // One config for both: each cluster's loader writes its own replica label.
        assert!(
            config.contains(r#"__replica__ = "replica-$(CLUSTER_REPLICA)""#),
            "{config}"
        );
        // The governing Service is upstream's: peers are found through each cluster's own.
        assert_eq!(
            services[0]
                .spec
                .clone()
                .expect("spec")
                .publish_not_ready_addresses,
            None
        );

        // Resizing the clusters changes only their pod counts.
        let (services_five, five, config_five) = planned(
            &input.replace("shards: 2\n    replicas: 2", "shards: 5\n    replicas: 2"),
            "ha",
        );
        assert_eq!(services_five, services);
        assert_eq!(config_five, config);
        for (two, five) in statefulsets.iter().zip(&five) {
            let (mut two, five) = (two.clone(), five.clone());
            assert_eq!(five.spec.as_ref().and_then(|s| s.replicas), Some(5));
            two.spec.as_mut().expect("spec").replicas = Some(5);
            assert_eq!(two, five);
        }
        // A third replica adds a cluster and leaves the first two as they were.
        let (_, three, config_three) = planned(
            &input.replace("shards: 2\n    replicas: 2", "shards: 2\n    replicas: 3"),
            "ha",
        );
        assert_eq!(three.len(), 3);
        assert_eq!(&three[..2], &statefulsets[..]);
        assert_eq!(config_three, config);
    }

    #[test]
    fn no_replicas_keeps_one_cluster_of_no_pods() {
        let input = include_str!("../../../../testdata/workloads/alloy-clustering/input.yaml")
            .replace("shards: 2\n    replicas: 2", "shards: 2\n    replicas: 0");
        let (services, statefulsets, _) = planned(&input, "ha");
        assert_eq!(statefulsets.len(), 1);
        assert_eq!(
            statefulsets[0].spec.as_ref().and_then(|s| s.replicas),
            Some(0)
        );
        assert_eq!(services.len(), 2, "the governing Service and the cluster's");
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
                &"--cluster.join-addresses=clustered-replica-0.monitoring.svc:8080".to_owned()
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

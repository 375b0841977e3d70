//! The workloads plan (spec 3.2-3.9): Q-fixes, kept quirks, bad input and invariants, on
//! hierarchies discovered from YAML written here.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{DaemonSet, Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{Container, PodSpec, Service};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use render::desired::{DesiredObject, PlanOptions, PlannedObject, Subsystem};
use render::manifest::Loader;
use render::workloads::{self, ExistingObject, WorkloadPlan};
use render::{Hierarchy, discover};

fn hierarchy(yaml: &str) -> Hierarchy {
    let mut loader = Loader::new();
    loader.add_source("test.yaml", yaml);
    let loaded = loader.finish();
    assert!(
        loaded.diagnostics.is_empty(),
        "fixture diagnostics: {:?}",
        loaded.diagnostics
    );
    let agent = loaded.store.agents().next().expect("an agent").clone();
    discover(&agent, &loaded.store).hierarchy
}

/// The workloads of `h`, running the Integrations accepted for them (as the plan does).
fn plan_workloads(h: &Hierarchy, opts: &PlanOptions) -> WorkloadPlan {
    workloads::plan(h, opts, &workloads::integrations::Accepted::new(h))
}

fn plan_with(yaml: &str, opts: &PlanOptions) -> (Hierarchy, WorkloadPlan) {
    let h = hierarchy(yaml);
    let p = plan_workloads(&h, opts);
    (h, p)
}

fn plan(yaml: &str) -> WorkloadPlan {
    plan_with(yaml, &PlanOptions::default()).1
}

const AGENT: &str = r#"
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata:
  name: agent
  namespace: monitoring
  uid: 0b1c2d3e-0000-4000-8000-000000000001
spec:
  metrics:
    instanceSelector: {}
  logs:
    instanceSelector: {}
  integrations:
    selector: {}
"#;

const METRICS_INSTANCE: &str = r#"
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: primary, namespace: monitoring}
spec: {}
"#;

const LOGS_INSTANCE: &str = r#"
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: primary, namespace: monitoring}
spec: {}
"#;

fn integration(name: &str, all_nodes: bool, extra: &str) -> String {
    format!(
        r#"
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {{name: {name}, namespace: monitoring}}
spec:
  name: redis
  type: {{allNodes: {all_nodes}}}
  config: {{instance: {name}}}
{extra}
"#
    )
}

fn everything(agent: &str) -> String {
    format!(
        "{agent}{METRICS_INSTANCE}{LOGS_INSTANCE}{}{}",
        integration("deploy", false, ""),
        integration("ds", true, "")
    )
}

fn pod_spec(o: &DesiredObject) -> &PodSpec {
    let template = match o {
        DesiredObject::StatefulSet(s) => &s.spec.as_ref().expect("spec").template,
        DesiredObject::DaemonSet(d) => &d.spec.as_ref().expect("spec").template,
        DesiredObject::Deployment(d) => &d.spec.as_ref().expect("spec").template,
        other => panic!("{} has no pod template", other.kind()),
    };
    template.spec.as_ref().expect("pod spec")
}

fn find<'a>(p: &'a WorkloadPlan, kind: &str, name: &str) -> &'a DesiredObject {
    p.objects
        .iter()
        .find(|o| o.kind().as_str() == kind && o.name() == name)
        .map(|o| &o.object)
        .unwrap_or_else(|| {
            let have: Vec<_> = p.objects.iter().map(|o| (o.kind(), o.name())).collect();
            panic!(
                "no {kind} {name} in {have:?}; rejections: {:?}",
                p.rejections
            )
        })
}

fn container<'a>(spec: &'a PodSpec, name: &str) -> &'a Container {
    spec.containers
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no container {name}"))
}

fn env_names(c: &Container) -> Vec<String> {
    c.env.iter().flatten().map(|e| e.name.clone()).collect()
}

fn volume_names(spec: &PodSpec) -> Vec<String> {
    spec.volumes
        .iter()
        .flatten()
        .map(|v| v.name.clone())
        .collect()
}

fn names(p: &WorkloadPlan) -> Vec<(String, String)> {
    p.objects
        .iter()
        .map(|o| (o.kind().to_string(), o.name().to_owned()))
        .collect()
}

fn rejection_fields(p: &WorkloadPlan) -> Vec<String> {
    p.rejections
        .iter()
        .map(|r| format!("{} {}", r.object, r.field.clone().unwrap_or_default()))
        .collect()
}

#[test]
fn every_subsystem_plans_its_workloads() {
    let p = plan(&everything(AGENT));
    assert!(p.rejections.is_empty(), "{:?}", p.rejections);
    assert_eq!(
        names(&p),
        [
            ("Service", "agent-operated"),
            ("StatefulSet", "agent"),
            ("DaemonSet", "agent-logs"),
            ("Deployment", "agent-integrations-deploy"),
            ("DaemonSet", "agent-integrations-ds"),
        ]
        .map(|(k, n)| (k.to_owned(), n.to_owned()))
    );
}

#[test]
fn nothing_is_planned_without_instances_or_integrations() {
    let p = plan(AGENT);
    assert!(p.objects.is_empty());
    assert!(p.rejections.is_empty());
}

#[test]
fn shards_and_replicas() {
    let yaml = AGENT.replace(
        "    instanceSelector: {}\n  logs:",
        "    instanceSelector: {}\n    shards: 3\n    replicas: 2\n  logs:",
    ) + METRICS_INSTANCE;
    let p = plan(&yaml);
    let sts: Vec<&str> = p
        .objects
        .iter()
        .filter(|o| o.kind().as_str() == "StatefulSet")
        .map(|o| o.name())
        .collect();
    assert_eq!(sts, ["agent", "agent-shard-1", "agent-shard-2"]);
    for (shard, name) in sts.iter().enumerate() {
        let DesiredObject::StatefulSet(s) = find(&p, "StatefulSet", name) else {
            unreachable!()
        };
        let spec = s.spec.as_ref().expect("spec");
        assert_eq!(spec.replicas, Some(2));
        let selector = spec.selector.match_labels.as_ref().expect("labels");
        assert_eq!(
            selector["operator.agent.grafana.com/shard"],
            shard.to_string()
        );
        let agent = container(pod_spec(find(&p, "StatefulSet", name)), "grafana-agent");
        let env: BTreeMap<String, String> = agent
            .env
            .iter()
            .flatten()
            .filter_map(|e| Some((e.name.clone(), e.value.clone()?)))
            .collect();
        assert_eq!(env["SHARD"], shard.to_string());
        assert_eq!(env["SHARDS"], "3");
        // Each shard's WAL volume carries the shard's StatefulSet name.
        assert!(
            volume_names(pod_spec(find(&p, "StatefulSet", name))).contains(&format!("{name}-wal"))
        );
    }
}

#[test]
fn shards_below_two_mean_one() {
    let yaml = AGENT.replace(
        "    instanceSelector: {}\n  logs:",
        "    instanceSelector: {}\n    shards: -4\n    replicas: 0\n  logs:",
    ) + METRICS_INSTANCE;
    let p = plan(&yaml);
    let DesiredObject::StatefulSet(s) = find(&p, "StatefulSet", "agent") else {
        unreachable!()
    };
    assert_eq!(s.spec.as_ref().expect("spec").replicas, Some(0));
    assert_eq!(
        p.objects
            .iter()
            .filter(|o| o.kind().as_str() == "StatefulSet")
            .count(),
        1
    );
}

/// Issue 22, item 11: `replicas: -1` silently gave 0 pods (upstream's reading). It is
/// refused, naming the field, and the metrics StatefulSets and config are left as they are.
#[test]
fn negative_replicas_are_refused() {
    let yaml = AGENT.replace(
        "    instanceSelector: {}\n  logs:",
        "    instanceSelector: {}\n    replicas: -1\n  logs:",
    ) + METRICS_INSTANCE;
    let p = plan(&yaml);
    let rejected: Vec<String> = p.rejections.iter().map(ToString::to_string).collect();
    assert!(
        rejected
            .iter()
            .any(|r| r.contains("spec.metrics.replicas: -1 is negative")),
        "{rejected:?}"
    );
    assert_eq!(
        p.objects
            .iter()
            .filter(|o| o.kind().as_str() == "StatefulSet")
            .count(),
        0
    );
}

#[test]
fn consistent_sharding_adds_its_env_after_shard_and_shards() {
    let yaml = AGENT.replace(
        "    instanceSelector: {}\n  logs:",
        "    instanceSelector: {}\n    shards: 2\n    shardingStrategy: consistent\n  logs:",
    ) + METRICS_INSTANCE;
    let p = plan(&yaml);
    let agent = container(
        pod_spec(find(&p, "StatefulSet", "agent-shard-1")),
        "grafana-agent",
    );
    let names = env_names(agent);
    assert_eq!(
        names[..4],
        ["POD_NAME", "AGENT_DEPLOY_MODE", "SHARD", "SHARDS"]
    );
    let extra: Vec<(String, String)> =
        render::sharding::extra_env(api::ShardingStrategy::Consistent, 1, 2);
    assert!(!extra.is_empty());
    assert_eq!(
        names[4..],
        extra.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn q22_every_workload_has_a_controller_owner_reference() {
    let (h, p) = plan_with(&everything(AGENT), &PlanOptions::default());
    assert_eq!(p.objects.len(), 5);
    for o in p.objects.iter().map(|o| &o.object) {
        let refs = o
            .metadata()
            .owner_references
            .as_ref()
            .expect("ownerReferences");
        assert_eq!(refs.len(), 1, "{} {}", o.kind(), o.name());
        let r = &refs[0];
        assert_eq!(r.controller, Some(true), "{} {}", o.kind(), o.name());
        assert_eq!(r.block_owner_deletion, Some(true));
        assert_eq!(r.kind, "GrafanaAgent");
        assert_eq!(r.api_version, "monitoring.grafana.com/v1alpha1");
        assert_eq!(r.uid, h.agent.metadata.uid.clone().expect("uid"));
    }
}

#[test]
fn q11_the_operated_service_selects_only_metrics_pods() {
    let p = plan(&everything(AGENT));
    let DesiredObject::Service(svc) = find(&p, "Service", "agent-operated") else {
        unreachable!()
    };
    let selector = svc
        .spec
        .as_ref()
        .and_then(|s| s.selector.clone())
        .expect("selector");
    assert_eq!(selector["operator.agent.grafana.com/type"], "metrics");
    // The selector matches the metrics pods and none of the others.
    for o in &p.objects {
        let labels = match &o.object {
            DesiredObject::StatefulSet(s) => s.spec.as_ref().map(|s| &s.template),
            DesiredObject::DaemonSet(d) => d.spec.as_ref().map(|s| &s.template),
            DesiredObject::Deployment(d) => d.spec.as_ref().map(|s| &s.template),
            _ => None,
        }
        .and_then(|t| t.metadata.as_ref())
        .and_then(|m| m.labels.clone());
        let Some(labels) = labels else { continue };
        let selected = selector.iter().all(|(k, v)| labels.get(k) == Some(v));
        assert_eq!(selected, o.kind().as_str() == "StatefulSet", "{}", o.name());
    }
}

#[test]
fn q12_kept_integration_pods_are_not_privileged_and_get_shards() {
    let yaml = AGENT.replace(
        "    instanceSelector: {}\n  logs:",
        "    instanceSelector: {}\n    shards: 4\n  logs:",
    ) + &integration("ds", true, "")
        + &integration("deploy", false, "");
    let p = plan(&yaml);
    for (kind, name) in [
        ("DaemonSet", "agent-integrations-ds"),
        ("Deployment", "agent-integrations-deploy"),
    ] {
        let spec = pod_spec(find(&p, kind, name));
        let agent = container(spec, "grafana-agent");
        let privileged = agent.security_context.as_ref().and_then(|s| s.privileged);
        assert_eq!(privileged, Some(false), "{name}");
        assert_eq!(
            env_names(agent),
            [
                "POD_NAME",
                "AGENT_DEPLOY_MODE",
                "SHARD",
                "SHARDS",
                "HOSTNAME"
            ]
        );
        let shards = agent.env.iter().flatten().find(|e| e.name == "SHARDS");
        assert_eq!(shards.and_then(|e| e.value.as_deref()), Some("4"));
        // Host log directories are mounted (needlessly, as upstream); the logs `data`
        // hostPath loses to the WAL emptyDir mounted at the same path.
        assert_eq!(
            volume_names(spec),
            [
                "config-out",
                "secrets",
                &format!("{name}-wal"),
                "varlog",
                "dockerlogs"
            ]
        );
    }
    let DesiredObject::Deployment(d) = find(&p, "Deployment", "agent-integrations-deploy") else {
        unreachable!()
    };
    // One replica, set: a hand scale is reset (issue 22 item 2), as upstream's full update does.
    assert_eq!(d.spec.as_ref().expect("spec").replicas, Some(1));
}

#[test]
fn logs_daemonset_is_privileged_with_host_paths() {
    let p = plan(&format!("{AGENT}{LOGS_INSTANCE}"));
    let spec = pod_spec(find(&p, "DaemonSet", "agent-logs"));
    let agent = container(spec, "grafana-agent");
    let reloader = container(spec, "config-reloader");
    assert_eq!(
        agent.security_context.as_ref().and_then(|s| s.privileged),
        Some(true)
    );
    assert_eq!(
        reloader
            .security_context
            .as_ref()
            .and_then(|s| s.privileged),
        None
    );
    assert_eq!(
        volume_names(spec),
        ["config-out", "secrets", "varlog", "dockerlogs", "data"]
    );
    // The loader reads the logs config Secret (no volume of it), with the pod's variables.
    let loader_args = |c: &Container| c.args.clone().expect("args");
    assert_eq!(
        loader_args(reloader),
        [
            "config-loader",
            "--namespace=$(POD_NAMESPACE)",
            "--secret=agent-logs-config",
            "--output=/var/lib/grafana-agent/config/agent.yml",
            "--reload-url=http://127.0.0.1:8080/-/reload",
            "--listen-address=0.0.0.0:8079",
        ]
    );
    let init = &spec.init_containers.as_deref().expect("init containers")[0];
    assert_eq!(
        loader_args(init),
        [
            "config-loader",
            "--namespace=$(POD_NAMESPACE)",
            "--secret=agent-logs-config",
            "--output=/var/lib/grafana-agent/config/agent.yml",
            "--once",
        ]
    );
    for loader in [reloader, init] {
        assert_eq!(
            env_names(loader),
            ["POD_NAME", "POD_NAMESPACE", "HOSTNAME", "SHARD"]
        );
        let mounts: Vec<&str> = loader
            .volume_mounts
            .iter()
            .flatten()
            .map(|m| m.name.as_str())
            .collect();
        assert_eq!(mounts, ["config-out"]);
    }
    assert_eq!(
        env_names(agent),
        ["POD_NAME", "AGENT_DEPLOY_MODE", "HOSTNAME", "SHARD"]
    );
}

#[test]
fn q29_kept_empty_storage_gives_an_empty_claim_template() {
    for storage in ["storage: {}", "storage: {ephemeral: {}}"] {
        let yaml = format!("{AGENT}  {storage}\n{METRICS_INSTANCE}");
        let p = plan(&yaml);
        let DesiredObject::StatefulSet(s) = find(&p, "StatefulSet", "agent") else {
            unreachable!()
        };
        let spec = s.spec.as_ref().expect("spec");
        let claims = spec
            .volume_claim_templates
            .as_ref()
            .expect("claim templates");
        assert_eq!(claims.len(), 1);
        assert_eq!(claims[0].metadata.name.as_deref(), Some("agent-wal"));
        let claim_spec = claims[0].spec.as_ref().expect("claim spec");
        assert_eq!(
            claim_spec.access_modes,
            Some(vec!["ReadWriteOnce".to_owned()])
        );
        assert_eq!(claim_spec.resources, None);
        // No WAL volume: the claim provides it.
        let pod = spec.template.spec.as_ref().expect("pod");
        assert_eq!(volume_names(pod), ["config-out", "secrets"]);
    }
}

#[test]
fn q30_kept_the_version_label_is_the_sanitized_operator_version() {
    let yaml = format!("{AGENT}{METRICS_INSTANCE}");
    for (version, label) in [
        ("", ""),
        ("v0.44.8", "v0-44-8"),
        ("1.2.3+dirty", "1-2-3-dirty"),
    ] {
        let opts = PlanOptions {
            operator_version: version.to_owned(),
            ..Default::default()
        };
        let (_, p) = plan_with(&yaml, &opts);
        let DesiredObject::StatefulSet(s) = find(&p, "StatefulSet", "agent") else {
            unreachable!()
        };
        let spec = s.spec.as_ref().expect("spec");
        let pod_labels = spec
            .template
            .metadata
            .as_ref()
            .and_then(|m| m.labels.clone());
        assert_eq!(
            pod_labels.expect("labels")["app.kubernetes.io/version"],
            label
        );
        // Never in the selector, never on the workload.
        let selector = spec.selector.match_labels.as_ref().expect("selector");
        assert!(!selector.contains_key("app.kubernetes.io/version"));
        let workload_labels = s.metadata.labels.as_ref().expect("labels");
        assert!(!workload_labels.contains_key("app.kubernetes.io/version"));
    }
}

#[test]
fn flag_labels_win_everywhere_they_apply() {
    let yaml = format!(
        "{AGENT}  podMetadata:\n    labels: {{team: a, grafana-agent: mine}}\n{METRICS_INSTANCE}"
    );
    let opts = PlanOptions {
        labels: BTreeMap::from([
            ("team".to_owned(), "flag".to_owned()),
            ("env".to_owned(), "prod".to_owned()),
        ]),
        ..Default::default()
    };
    let (_, p) = plan_with(&yaml, &opts);
    let DesiredObject::StatefulSet(s) = find(&p, "StatefulSet", "agent") else {
        unreachable!()
    };
    let spec = s.spec.as_ref().expect("spec");
    let pod = spec
        .template
        .metadata
        .as_ref()
        .and_then(|m| m.labels.clone())
        .expect("labels");
    assert_eq!(pod["team"], "flag");
    assert_eq!(pod["env"], "prod");
    // Selector labels override podMetadata labels.
    assert_eq!(pod["grafana-agent"], "agent");
    let selector = spec.selector.match_labels.clone().expect("selector");
    assert_eq!(selector["env"], "prod");
    assert!(!selector.contains_key("team") || selector["team"] == "flag");
    let DesiredObject::Service(svc) = find(&p, "Service", "agent-operated") else {
        unreachable!()
    };
    let svc_labels = svc.metadata.labels.clone().expect("labels");
    assert_eq!(svc_labels["env"], "prod");
    assert_eq!(svc_labels["operated-agent"], "true");
}

#[test]
fn workload_annotations_drop_kubectl_ones() {
    let yaml = AGENT.replace(
        "  uid:",
        "  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{}'\n    team: a\n  uid:",
    ) + METRICS_INSTANCE;
    let p = plan(&yaml);
    let DesiredObject::StatefulSet(s) = find(&p, "StatefulSet", "agent") else {
        unreachable!()
    };
    assert_eq!(
        s.metadata.annotations,
        Some(BTreeMap::from([("team".to_owned(), "a".to_owned())]))
    );
}

/// The agent's image follows `version` and `image`; the config loader's (init container and
/// sidecar) is the operator's `--config-loader-image` whatever the spec says
/// (`configReloaderImage`/`Version` are no longer used).
#[test]
fn images_default_and_follow_versions() {
    let cases = [
        ("", "grafana/agent:v0.44.8"),
        (
            "  version: v1.2.3\n  configReloaderVersion: v9.9.9\n",
            "grafana/agent:v1.2.3",
        ),
        (
            "  version: v1.2.3\n  image: my/agent:x\n  configReloaderImage: my/reloader:y\n",
            "my/agent:x",
        ),
    ];
    let custom = PlanOptions {
        config_loader_image: "registry.example/agent-operator:1.2".to_owned(),
        ..PlanOptions::default()
    };
    for (spec, agent_image) in cases {
        for (opts, loader_image) in [
            (PlanOptions::default(), "agent-operator:0.1.0"),
            (custom.clone(), "registry.example/agent-operator:1.2"),
        ] {
            let (_, p) = plan_with(&format!("{AGENT}{spec}{METRICS_INSTANCE}"), &opts);
            let pod = pod_spec(find(&p, "StatefulSet", "agent"));
            assert_eq!(pod.containers[0].name, "config-reloader");
            assert_eq!(pod.containers[0].image.as_deref(), Some(loader_image));
            assert_eq!(pod.containers[1].name, "grafana-agent");
            assert_eq!(pod.containers[1].image.as_deref(), Some(agent_image));
            let init = pod.init_containers.as_deref().expect("init containers");
            assert_eq!(init[0].name, "config-loader-init");
            assert_eq!(init[0].image.as_deref(), Some(loader_image));
        }
    }
}

#[test]
fn agent_flags_become_arguments_in_order() {
    let spec = "  enableConfigReadAPI: true\n  disableReporting: true\n  disableSupportBundle: true\n  portName: metrics\n";
    let p = plan(&format!("{AGENT}{spec}{METRICS_INSTANCE}"));
    let agent = container(pod_spec(find(&p, "StatefulSet", "agent")), "grafana-agent");
    assert_eq!(
        agent.args.as_deref().expect("args")[4..],
        [
            "-config.enable-read-api",
            "-disable-reporting",
            "-disable-support-bundle"
        ]
    );
    assert_eq!(
        agent.ports.as_ref().expect("ports")[0].name.as_deref(),
        Some("metrics")
    );
}

// ---- pruning ----

fn existing(kind: &str, namespace: &str, name: &str, uid: &str, managed: bool) -> ExistingObject {
    let mut labels = BTreeMap::new();
    if managed {
        labels.insert(
            "app.kubernetes.io/managed-by".to_owned(),
            "grafana-agent-operator".to_owned(),
        );
    }
    let kind = render::desired::ManagedKind::ALL
        .into_iter()
        .find(|k| k.as_str() == kind)
        .expect("a managed kind");
    ExistingObject {
        kind,
        namespace: namespace.to_owned(),
        name: name.to_owned(),
        labels,
        owner_references: vec![OwnerReference {
            api_version: "monitoring.grafana.com/v1alpha1".to_owned(),
            kind: "GrafanaAgent".to_owned(),
            name: "agent".to_owned(),
            uid: uid.to_owned(),
            controller: Some(true),
            block_owner_deletion: Some(true),
        }],
    }
}

const UID: &str = "0b1c2d3e-0000-4000-8000-000000000001";

fn deleted(h: &Hierarchy, desired: &[PlannedObject], existing: &[ExistingObject]) -> Vec<String> {
    workloads::objects_to_delete(h, desired, existing)
        .into_iter()
        .map(|o| format!("{} {}/{}", o.kind, o.namespace, o.name))
        .collect()
}

#[test]
fn q10_stale_shards_are_deleted_only_in_the_agents_namespace_and_only_if_owned() {
    let yaml = AGENT.replace(
        "    instanceSelector: {}\n  logs:",
        "    instanceSelector: {}\n    shards: 2\n  logs:",
    ) + METRICS_INSTANCE;
    let h = hierarchy(&yaml);
    let mut desired = plan_workloads(&h, &PlanOptions::default()).objects;
    // The metrics config Secret is part of a complete metrics plan.
    desired.push(config_secret(Subsystem::Metrics, "agent-config"));
    let cluster = vec![
        existing("StatefulSet", "monitoring", "agent", UID, true),
        existing("StatefulSet", "monitoring", "agent-shard-1", UID, true),
        existing("StatefulSet", "monitoring", "agent-shard-2", UID, true),
        existing("StatefulSet", "monitoring", "agent-shard-3", UID, true),
        // Same name in another namespace (another agent's shard): never touched.
        existing("StatefulSet", "other", "agent-shard-2", UID, true),
        // Same namespace, not owned by this agent: never touched.
        existing(
            "StatefulSet",
            "monitoring",
            "agent-shard-4",
            "another-uid",
            true,
        ),
        // Not managed: never touched.
        existing("StatefulSet", "monitoring", "agent-shard-5", UID, false),
    ];
    assert_eq!(
        deleted(&h, &desired, &cluster),
        [
            "StatefulSet monitoring/agent-shard-2",
            "StatefulSet monitoring/agent-shard-3"
        ]
    );
}

fn config_secret(subsystem: Subsystem, name: &str) -> PlannedObject {
    let secret = k8s_openapi::api::core::v1::Secret {
        metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some("monitoring".to_owned()),
            ..Default::default()
        },
        ..Default::default()
    };
    PlannedObject::new(subsystem, DesiredObject::Secret(secret))
}

#[test]
fn disabled_subsystems_are_deleted() {
    // Only logs remain; metrics and integrations objects of this agent go away.
    let h = hierarchy(&format!("{AGENT}{LOGS_INSTANCE}"));
    let mut desired = plan_workloads(&h, &PlanOptions::default()).objects;
    desired.push(config_secret(Subsystem::Logs, "agent-logs-config"));
    desired.push(config_secret(Subsystem::Shared, "agent-secrets"));
    let cluster = vec![
        existing("Secret", "monitoring", "agent-secrets", UID, true),
        existing("Secret", "monitoring", "agent-config", UID, true),
        existing("Service", "monitoring", "agent-operated", UID, true),
        existing("StatefulSet", "monitoring", "agent", UID, true),
        existing("Secret", "monitoring", "agent-logs-config", UID, true),
        existing("DaemonSet", "monitoring", "agent-logs", UID, true),
        existing(
            "Secret",
            "monitoring",
            "agent-integrations-ds-config",
            UID,
            true,
        ),
        existing(
            "DaemonSet",
            "monitoring",
            "agent-integrations-ds",
            UID,
            true,
        ),
        existing(
            "Deployment",
            "monitoring",
            "agent-integrations-deploy",
            UID,
            true,
        ),
    ];
    assert_eq!(
        deleted(&h, &desired, &cluster),
        [
            "Secret monitoring/agent-config",
            "Service monitoring/agent-operated",
            "StatefulSet monitoring/agent",
            "Secret monitoring/agent-integrations-ds-config",
            "DaemonSet monitoring/agent-integrations-ds",
            "Deployment monitoring/agent-integrations-deploy",
        ]
    );
}

#[test]
fn a_subsystem_that_failed_to_plan_keeps_its_running_objects() {
    // Metrics has an instance, but its config Secret is not in the plan (e.g. rejected as too
    // large): the previous config and every shard stay. So does the assets Secret when the
    // plan leaves it out (its values add up to more than a Secret holds).
    let yaml = AGENT.replace(
        "    instanceSelector: {}\n  logs:",
        "    instanceSelector: {}\n    shards: 2\n  logs:",
    ) + METRICS_INSTANCE;
    let h = hierarchy(&yaml);
    let desired = plan_workloads(&h, &PlanOptions::default()).objects;
    let cluster = vec![
        existing("Secret", "monitoring", "agent-config", UID, true),
        existing("StatefulSet", "monitoring", "agent-shard-2", UID, true),
        existing("Secret", "monitoring", "agent-secrets", UID, true),
    ];
    assert!(deleted(&h, &desired, &cluster).is_empty());
}

/// `existing`, with the subsystem label our operator writes.
fn labelled(kind: &str, name: &str, subsystem: Subsystem) -> ExistingObject {
    let mut object = existing(kind, "monitoring", name, UID, true);
    object.labels.insert(
        render::desired::SUBSYSTEM_LABEL.to_owned(),
        subsystem.label_value().to_owned(),
    );
    object
}

#[test]
fn a_labelled_object_is_pruned_by_its_subsystem_label_not_its_name() {
    // Only logs run. A Secret labelled logs whose name no subsystem gives (an older config) is
    // logs' and goes once logs are planned whole; a Secret named like logs' config but labelled
    // metrics (disabled here) goes as metrics'. The planned logs objects stay.
    let h = hierarchy(&format!("{AGENT}{LOGS_INSTANCE}"));
    let mut desired = plan_workloads(&h, &PlanOptions::default()).objects;
    desired.push(config_secret(Subsystem::Logs, "agent-logs-config"));
    let cluster = vec![
        labelled("Secret", "agent-logs-config", Subsystem::Logs),
        labelled("DaemonSet", "agent-logs", Subsystem::Logs),
        labelled("Secret", "agent-logs-config-old", Subsystem::Logs),
        labelled("Secret", "agent-logs-config-2", Subsystem::Metrics),
    ];
    assert_eq!(
        deleted(&h, &desired, &cluster),
        [
            "Secret monitoring/agent-logs-config-old",
            "Secret monitoring/agent-logs-config-2",
        ]
    );
    // Logs planned without their config (rejected): the labelled Secret stays, whatever its
    // name, as logs' running config would.
    let workloads_only = plan_workloads(&h, &PlanOptions::default()).objects;
    assert_eq!(
        deleted(&h, &workloads_only, &cluster),
        ["Secret monitoring/agent-logs-config-2"]
    );
}

#[test]
fn every_planned_object_is_labelled_with_its_subsystem_and_no_pod_template_is() {
    let yaml = everything(AGENT);
    let p = plan(&yaml);
    assert!(!p.objects.is_empty());
    for o in &p.objects {
        let labels = o.object.metadata().labels.clone().unwrap_or_default();
        assert_eq!(
            labels
                .get(render::desired::SUBSYSTEM_LABEL)
                .map(String::as_str),
            Some(o.subsystem.label_value()),
            "{} {}",
            o.kind(),
            o.name()
        );
        let json = serde_json::to_value(&o.object).expect("serialize");
        for pointer in [
            "/spec/template/metadata/labels",
            "/spec/selector/matchLabels",
        ] {
            if let Some(inner) = json.pointer(pointer) {
                assert!(
                    inner.get(render::desired::SUBSYSTEM_LABEL).is_none(),
                    "{} {}: {pointer}",
                    o.kind(),
                    o.name()
                );
            }
        }
    }
}

#[test]
fn an_agent_without_uid_owns_nothing() {
    let h = hierarchy(&AGENT.replace("  uid: 0b1c2d3e-0000-4000-8000-000000000001\n", ""));
    let cluster = vec![existing("StatefulSet", "monitoring", "agent", "", true)];
    assert!(deleted(&h, &[], &cluster).is_empty());
}

// ---- round trips ----

#[test]
fn every_object_round_trips_through_the_k8s_openapi_types() {
    let yaml = everything(&format!(
        "{AGENT}  storage:\n    volumeClaimTemplate:\n      metadata: {{name: data, labels: {{a: b}}}}\n      spec: {{resources: {{requests: {{storage: 1Gi}}}}}}\n"
    ));
    let p = plan(&yaml);
    assert_eq!(p.objects.len(), 5, "{:?}", p.rejections);
    for o in p.objects.iter().map(|o| &o.object) {
        let json = serde_json::to_value(o).expect("serialize");
        let back = match o {
            DesiredObject::Service(_) => {
                DesiredObject::Service(serde_json::from_value::<Service>(json).expect("Service"))
            }
            DesiredObject::StatefulSet(_) => DesiredObject::StatefulSet(
                serde_json::from_value::<StatefulSet>(json).expect("StatefulSet"),
            ),
            DesiredObject::DaemonSet(_) => DesiredObject::DaemonSet(
                serde_json::from_value::<DaemonSet>(json).expect("DaemonSet"),
            ),
            DesiredObject::Deployment(_) => DesiredObject::Deployment(
                serde_json::from_value::<Deployment>(json).expect("Deployment"),
            ),
            DesiredObject::Secret(_) | DesiredObject::Role(_) | DesiredObject::RoleBinding(_) => {
                unreachable!("workloads plan no {}", o.kind())
            }
        };
        assert_eq!(&back, o, "{} {}", o.kind(), o.name());
    }
}

// ---- bad input ----

#[test]
fn q7_a_long_agent_name_rejects_the_statefulsets_not_the_logs_daemonset() {
    // 50 characters: the Service (59) and the logs DaemonSet fit, `-shard-1` (58) does not.
    let name = "a".repeat(50);
    let yaml = AGENT
        .replace("  name: agent\n", &format!("  name: {name}\n"))
        .replace(
            "    instanceSelector: {}\n  logs:",
            "    instanceSelector: {}\n    shards: 2\n  logs:",
        )
        + METRICS_INSTANCE
        + LOGS_INSTANCE;
    let p = plan(&yaml);
    assert_eq!(
        names(&p),
        [("DaemonSet".to_owned(), format!("{name}-logs"))]
    );
    assert_eq!(
        rejection_fields(&p),
        [format!("GrafanaAgent monitoring/{name} metadata.name")]
    );
    assert!(
        p.rejections[0].message.contains("at most 52"),
        "{}",
        p.rejections[0]
    );
}

#[test]
fn an_agent_name_too_long_for_a_label_rejects_every_workload() {
    let name = "a".repeat(64);
    let yaml = everything(&AGENT.replace("  name: agent\n", &format!("  name: {name}\n")));
    let p = plan(&yaml);
    assert!(p.objects.is_empty());
    assert_eq!(
        rejection_fields(&p),
        [format!("GrafanaAgent monitoring/{name} metadata.name")]
    );
}

#[test]
fn an_integrations_wal_volume_name_too_long_rejects_that_workload() {
    // `<agent>-integrations-deploy-wal` is a volume name: at most 63 characters.
    let name = "b".repeat(40);
    let yaml = AGENT.replace("  name: agent\n", &format!("  name: {name}\n"))
        + &integration("deploy", false, "")
        + LOGS_INSTANCE;
    let p = plan(&yaml);
    assert_eq!(
        names(&p),
        [("DaemonSet".to_owned(), format!("{name}-logs"))]
    );
    assert_eq!(p.rejections.len(), 1, "{:?}", p.rejections);
    assert!(p.rejections[0].message.contains("integrations-deploy-wal"));
}

#[test]
fn user_volumes_that_collide_with_the_operators_are_rejected() {
    let spec = r#"  volumes:
  - {name: config-out, emptyDir: {}}
  - {name: mine, emptyDir: {}}
  - {name: mine, emptyDir: {}}
  - {name: Not_Valid, emptyDir: {}}
  volumeMounts:
  - {name: mine, mountPath: /var/lib/grafana-agent/config}
  - {name: absent, mountPath: /elsewhere}
"#;
    let p = plan(&format!("{AGENT}{spec}{METRICS_INSTANCE}"));
    assert!(p.objects.is_empty(), "{:?}", names(&p));
    assert_eq!(
        rejection_fields(&p),
        [
            "GrafanaAgent monitoring/agent spec.volumeMounts[0].mountPath",
            "GrafanaAgent monitoring/agent spec.volumeMounts[1].name",
            "GrafanaAgent monitoring/agent spec.volumes[0].name",
            "GrafanaAgent monitoring/agent spec.volumes[2].name",
            "GrafanaAgent monitoring/agent spec.volumes[3].name",
        ]
    );
}

#[test]
fn a_user_volume_named_like_a_logs_volume_only_rejects_the_logs_daemonset() {
    let spec = "  volumes:\n  - {name: varlog, emptyDir: {}}\n";
    let p = plan(&format!("{AGENT}{spec}{METRICS_INSTANCE}{LOGS_INSTANCE}"));
    assert_eq!(
        names(&p),
        [
            ("Service".to_owned(), "agent-operated".to_owned()),
            ("StatefulSet".to_owned(), "agent".to_owned())
        ]
    );
    assert_eq!(
        rejection_fields(&p),
        ["GrafanaAgent monitoring/agent spec.volumes[0].name"]
    );
}

#[test]
fn bad_container_patches_are_rejected() {
    let spec = r#"  containers:
  - name: grafana-agent
    readinessProbe: {exec: {command: ["true"]}}
  - name: sidecar
"#;
    let p = plan(&format!("{AGENT}{spec}{METRICS_INSTANCE}"));
    assert!(p.objects.is_empty());
    assert_eq!(
        rejection_fields(&p),
        [
            "GrafanaAgent monitoring/agent spec.containers[0].readinessProbe",
            "GrafanaAgent monitoring/agent spec.containers[1].image",
        ]
    );
}

#[test]
fn q15_colliding_integration_volumes_reject_the_later_integration() {
    // `monitoring-a-b-data` from Integration a-b (volume data) and from Integration a
    // (volume b-data).
    let first = integration(
        "a-b",
        false,
        "  volumes: [{name: data, emptyDir: {}}]\n  volumeMounts: [{name: data, mountPath: /first}]",
    );
    let second = integration(
        "a",
        false,
        "  volumes: [{name: b-data, emptyDir: {}}]\n  volumeMounts: [{name: b-data, mountPath: /second}]",
    );
    let h = hierarchy(&format!("{AGENT}{first}{second}"));
    // Discovery orders by name: `a` comes first, so `a-b` is the later one.
    let subset = workloads::integrations::accepted(&h, false);
    let kept: Vec<&str> = subset
        .integrations
        .iter()
        .map(|i| i.metadata.name.as_deref().unwrap_or_default())
        .collect();
    assert_eq!(kept, ["a"]);
    let p = plan_workloads(&h, &PlanOptions::default());
    assert_eq!(
        rejection_fields(&p),
        ["Integration monitoring/a-b spec.volumes[0].name"]
    );
    let spec = pod_spec(find(&p, "Deployment", "agent-integrations-deploy"));
    assert!(volume_names(spec).contains(&"monitoring-a-b-data".to_owned()));
    let mounts: Vec<&str> = container(spec, "grafana-agent")
        .volume_mounts
        .iter()
        .flatten()
        .map(|m| m.mount_path.as_str())
        .collect();
    assert!(mounts.contains(&"/second"));
    assert!(!mounts.contains(&"/first"));
}

#[test]
fn integrations_with_unusable_mounts_are_rejected_alone() {
    let good = integration(
        "good",
        true,
        "  volumes: [{name: v, emptyDir: {}}]\n  volumeMounts: [{name: v, mountPath: /good}]",
    );
    let bad = integration(
        "zbad",
        true,
        r#"  volumes: [{name: v, emptyDir: {}}]
  volumeMounts:
  - {name: v, mountPath: /good}
  - {name: missing, mountPath: /x}
  - {name: v, mountPath: /var/lib/grafana-agent/config}"#,
    );
    let p = plan(&format!("{AGENT}{good}{bad}"));
    assert_eq!(
        rejection_fields(&p),
        [
            "Integration monitoring/zbad spec.volumeMounts[0].mountPath",
            "Integration monitoring/zbad spec.volumeMounts[1].name",
            "Integration monitoring/zbad spec.volumeMounts[2].mountPath",
        ]
    );
    let spec = pod_spec(find(&p, "DaemonSet", "agent-integrations-ds"));
    assert!(volume_names(spec).contains(&"monitoring-good-v".to_owned()));
    assert!(!volume_names(spec).contains(&"monitoring-zbad-v".to_owned()));
}

#[test]
fn an_integration_may_mount_one_volume_twice() {
    let i = integration(
        "twice",
        false,
        "  volumes: [{name: v, emptyDir: {}}]\n  volumeMounts: [{name: v, mountPath: /a}, {name: v, mountPath: /b, subPath: s}]",
    );
    let p = plan(&format!("{AGENT}{i}"));
    assert!(p.rejections.is_empty(), "{:?}", p.rejections);
    let spec = pod_spec(find(&p, "Deployment", "agent-integrations-deploy"));
    let mounts = container(spec, "grafana-agent")
        .volume_mounts
        .iter()
        .flatten()
        .filter(|m| m.name == "monitoring-twice-v")
        .count();
    assert_eq!(mounts, 2);
}

// ---- upstream unit tests (spec 6.4) ----

#[test]
fn upstream_security_context_is_unprivileged_by_default() {
    let p = plan(&format!("{AGENT}{METRICS_INSTANCE}"));
    let spec = pod_spec(find(&p, "StatefulSet", "agent"));
    assert_eq!(spec.containers[0].name, "config-reloader");
    for c in &spec.containers {
        let sc = c.security_context.as_ref().expect("securityContext");
        assert_ne!(sc.privileged, Some(true), "{}", c.name);
        assert_ne!(sc.run_as_user, Some(0), "{}", c.name);
        assert_ne!(sc.allow_privilege_escalation, Some(true), "{}", c.name);
    }
}

#[test]
fn upstream_runtime_class_name_passes_through_and_unset_stays_unset() {
    for (spec, expected) in [("", None), ("  runtimeClassName: gvisor\n", Some("gvisor"))] {
        let p = plan(&format!("{AGENT}{spec}{METRICS_INSTANCE}"));
        let pod = pod_spec(find(&p, "StatefulSet", "agent"));
        assert_eq!(pod.runtime_class_name.as_deref(), expected);
    }
}

#[test]
fn upstream_agent_deploy_mode_is_the_second_env_var() {
    let p = plan(&everything(AGENT));
    for o in &p.objects {
        if o.kind().as_str() == "Service" {
            continue;
        }
        let agent = container(pod_spec(&o.object), "grafana-agent");
        let env = &agent.env.as_ref().expect("env")[1];
        assert_eq!(env.name, "AGENT_DEPLOY_MODE", "{}", o.name());
        assert_eq!(env.value.as_deref(), Some("operator"));
    }
}

#[test]
fn upstream_integration_subsets_keep_discovery_order() {
    let yaml = format!(
        "{AGENT}{}{}{}",
        integration("node-exporter", true, ""),
        integration("process", true, ""),
        integration("redis", false, "")
    );
    let h = hierarchy(&yaml);
    let names = |all_nodes| -> Vec<String> {
        workloads::integrations::accepted(&h, all_nodes)
            .integrations
            .iter()
            .map(|i| i.metadata.name.clone().unwrap_or_default())
            .collect()
    };
    assert_eq!(names(false), ["redis"]);
    assert_eq!(names(true), ["node-exporter", "process"]);
}

/// An Integration the config renderer rejects (a name that is no config key, a config that
/// is not a map) is left out of its workload too: none of its volumes, mounts or keys reach
/// the pods, its names and paths stay free for the Integrations after it, and a workload
/// whose Integrations are all rejected is not planned, nor is its config Secret.
#[test]
fn integrations_rejected_by_the_config_renderer_are_left_out_of_the_workloads() {
    let integration = |name: &str, kind: &str, all_nodes: bool, config: &str, path: &str| {
        format!(
            r#"
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {{name: {name}, namespace: monitoring}}
spec:
  name: {kind}
  type: {{allNodes: {all_nodes}}}
  config: {config}
  volumes: [{{name: v, emptyDir: {{}}}}]
  volumeMounts: [{{name: v, mountPath: {path}}}]
  secrets: [{{name: creds, key: {name}}}]
"#
        )
    };
    let yaml = [
        AGENT.to_owned(),
        integration(
            "a-good",
            "node_exporter",
            false,
            "{procfs_path: /proc}",
            "/good",
        ),
        integration("b-bad-name", "node-exporter", false, "{}", "/shared"),
        integration("c-bad-config", "redis", false, "[1, 2]", "/c"),
        // Would collide with b's mount path if b had been taken into the workload.
        integration("d-later", "redis", false, "{redis_addr: r}", "/shared"),
        // The only DaemonSet Integration, rejected.
        integration("e-all-nodes", "Node_Exporter", true, "{}", "/e"),
        r#"
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: monitoring}
stringData: {a-good: a, b-bad-name: b, c-bad-config: c, d-later: d, e-all-nodes: e}
"#
        .to_owned(),
    ]
    .concat();
    let h = hierarchy(&yaml);
    let mut loader = Loader::new();
    loader.add_source("test.yaml", &yaml);
    let store = loader.finish().store;
    let discovery = discover(store.agents().next().expect("a GrafanaAgent"), &store);
    let p = render::plan::plan(&discovery, &PlanOptions::default());

    let rejected: Vec<String> = p
        .rejections
        .iter()
        .map(|r| format!("{} {}", r.object, r.field.clone().unwrap_or_default()))
        .collect();
    assert_eq!(
        rejected,
        [
            "Integration monitoring/b-bad-name spec.name",
            "Integration monitoring/c-bad-config spec.config",
            "Integration monitoring/e-all-nodes spec.name",
        ]
    );

    let names: Vec<(&str, &str)> = p
        .objects
        .iter()
        .map(|o| (o.kind().as_str(), o.name()))
        .collect();
    assert_eq!(
        names,
        [
            ("Secret", "agent-secrets"),
            ("Role", "agent-config-loader"),
            ("RoleBinding", "agent-config-loader"),
            ("Secret", "agent-integrations-deploy-config"),
            ("Deployment", "agent-integrations-deploy"),
        ]
    );
    let config = &p.configs[0];
    assert_eq!(config.secret_name, "agent-integrations-deploy-config");
    assert!(
        config
            .text
            .as_str()
            .contains("  node_exporter_configs:\n  - procfs_path: /proc\n  redis_configs:\n  - redis_addr: r\n"),
        "{}",
        config.text
    );

    let deployment = p
        .objects
        .iter()
        .find(|o| o.kind().as_str() == "Deployment")
        .expect("deployment");
    let deployment = &deployment.object;
    let spec = pod_spec(deployment);
    let volumes = volume_names(spec);
    for wanted in ["monitoring-a-good-v", "monitoring-d-later-v"] {
        assert!(volumes.contains(&wanted.to_owned()), "{volumes:?}");
    }
    for unwanted in ["b-bad-name", "c-bad-config", "e-all-nodes"] {
        assert!(!volumes.iter().any(|v| v.contains(unwanted)), "{volumes:?}");
    }
    let mounts: Vec<&str> = container(spec, "grafana-agent")
        .volume_mounts
        .iter()
        .flatten()
        .filter(|m| m.name.starts_with("monitoring-"))
        .map(|m| m.mount_path.as_str())
        .collect();
    assert_eq!(mounts, ["/good", "/shared"]);
    let keys: Vec<&str> = spec
        .volumes
        .iter()
        .flatten()
        .filter(|v| v.name == "agent-integrations-secrets")
        .flat_map(|v| v.secret.iter().flat_map(|s| s.items.iter().flatten()))
        .map(|i| i.path.as_str())
        .collect();
    assert_eq!(
        keys,
        [
            "secrets/monitoring/creds/a-good",
            "secrets/monitoring/creds/d-later"
        ]
    );

    // The workload planner on its own makes the same decision.
    let accepted = |all_nodes| -> Vec<String> {
        workloads::integrations::accepted(&h, all_nodes)
            .integrations
            .iter()
            .map(|i| i.metadata.name.clone().unwrap_or_default())
            .collect()
    };
    assert_eq!(accepted(false), ["a-good", "d-later"]);
    assert!(accepted(true).is_empty());
}

/// Shard and replica counts beyond the bound that reach render without our CRD (an older CRD
/// in the cluster): refused at once with the field named, the running metrics config and
/// StatefulSets kept (neither planned nor pruned), and logs still planned.
#[test]
fn shards_and_replicas_beyond_the_bound_are_refused_and_the_rest_is_planned() {
    let yaml = format!("{AGENT}{METRICS_INSTANCE}{LOGS_INSTANCE}");
    for field in ["shards", "replicas"] {
        let mut loader = Loader::new();
        loader.add_source("test.yaml", &yaml);
        let mut store = loader.finish().store;
        let mut agent = (**store.agents().next().expect("an agent")).clone();
        let metrics = agent.spec.metrics.as_mut().expect("metrics subsystem");
        match field {
            "shards" => metrics.shards = Some(2_000_000_000),
            _ => metrics.replicas = Some(i32::MAX),
        }
        let agent = std::sync::Arc::new(agent);
        store.apply(agent.clone());
        let discovery = discover(&agent, &store);
        let plan = render::plan::plan(&discovery, &PlanOptions::default());
        let rejected: Vec<String> = plan.rejections.iter().map(ToString::to_string).collect();
        assert_eq!(rejected.len(), 1, "{rejected:?}");
        let expected = format!("GrafanaAgent monitoring/agent: spec.metrics.{field}: ");
        assert!(rejected[0].starts_with(&expected), "{rejected:?}");
        assert!(rejected[0].contains("at most 1000"), "{rejected:?}");
        let kinds: Vec<String> = plan
            .objects
            .iter()
            .map(|o| format!("{} {}", o.kind(), o.name()))
            .collect();
        assert!(
            !kinds.iter().any(|k| k.starts_with("StatefulSet")
                || k == "Secret agent-config"
                || k == "Service agent-operated"),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&"DaemonSet agent-logs".to_owned()),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&"Secret agent-logs-config".to_owned()),
            "{kinds:?}"
        );
        let running = [ExistingObject {
            kind: render::desired::ManagedKind::StatefulSet,
            namespace: "monitoring".to_owned(),
            name: "agent".to_owned(),
            labels: BTreeMap::from([(
                "app.kubernetes.io/managed-by".to_owned(),
                "grafana-agent-operator".to_owned(),
            )]),
            owner_references: vec![OwnerReference {
                uid: "0b1c2d3e-0000-4000-8000-000000000001".to_owned(),
                ..Default::default()
            }],
        }];
        let deleted = workloads::objects_to_delete(&discovery.hierarchy, &plan.objects, &running);
        assert!(deleted.is_empty(), "{deleted:?}");
    }
}

// ---- the config loader's grant (issue 35) ----

/// The full plan (config Secrets included) of the agent in `yaml`.
fn full_plan(yaml: &str) -> render::plan::Plan {
    let mut loader = Loader::new();
    loader.add_source("test.yaml", yaml);
    let store = loader.finish().store;
    let discovery = discover(store.agents().next().expect("a GrafanaAgent"), &store);
    render::plan::plan(&discovery, &PlanOptions::default())
}

/// Per agent, a Role that may read exactly its config Secrets (get, list, watch: the loader
/// watches its head by name) and a binding of it to the pods' ServiceAccount: no other
/// Secret, no other verb. Applied right after the assets Secret, before any config Secret.
#[test]
fn the_config_loader_may_read_the_agents_config_secrets_and_nothing_else() {
    let p = full_plan(&format!(
        "{AGENT}  serviceAccountName: grafana-agent\n{}",
        everything("").trim_start()
    ));
    assert!(p.rejections.is_empty(), "{:?}", p.rejections);
    let kinds: Vec<(&str, &str)> = p
        .objects
        .iter()
        .take(3)
        .map(|o| (o.kind().as_str(), o.name()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("Secret", "agent-secrets"),
            ("Role", "agent-config-loader"),
            ("RoleBinding", "agent-config-loader"),
        ]
    );
    let role = p
        .objects
        .iter()
        .find_map(|o| match &o.object {
            DesiredObject::Role(r) => Some(r),
            _ => None,
        })
        .expect("the Role");
    let rules = role.rules.as_deref().expect("rules");
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].api_groups.as_deref(), Some(&[String::new()][..]));
    assert_eq!(
        rules[0].resources.as_deref(),
        Some(&["secrets".to_owned()][..])
    );
    assert_eq!(rules[0].verbs, ["get", "list", "watch"]);
    let config_secrets: Vec<&str> = p
        .objects
        .iter()
        .filter(|o| o.kind().as_str() == "Secret" && o.name() != "agent-secrets")
        .map(PlannedObject::name)
        .collect();
    let mut granted: Vec<&str> = rules[0]
        .resource_names
        .iter()
        .flatten()
        .map(String::as_str)
        .collect();
    granted.sort_unstable();
    assert_eq!(
        granted,
        [
            "agent-config",
            "agent-integrations-deploy-config",
            "agent-integrations-ds-config",
            "agent-logs-config",
        ]
    );
    let mut planned = config_secrets.clone();
    planned.sort_unstable();
    assert_eq!(granted, planned, "exactly the planned config Secrets");

    let binding = p
        .objects
        .iter()
        .find_map(|o| match &o.object {
            DesiredObject::RoleBinding(b) => Some(b),
            _ => None,
        })
        .expect("the RoleBinding");
    assert_eq!(
        (
            binding.role_ref.kind.as_str(),
            binding.role_ref.name.as_str()
        ),
        ("Role", "agent-config-loader")
    );
    let subjects = binding.subjects.as_deref().expect("subjects");
    assert_eq!(subjects.len(), 1);
    assert_eq!(
        (
            subjects[0].kind.as_str(),
            subjects[0].name.as_str(),
            subjects[0].namespace.as_deref()
        ),
        ("ServiceAccount", "grafana-agent", Some("monitoring"))
    );
    for meta in [&role.metadata, &binding.metadata] {
        let labels = meta.labels.as_ref().expect("labels");
        assert_eq!(
            labels
                .get("app.kubernetes.io/managed-by")
                .map(String::as_str),
            Some("grafana-agent-operator")
        );
        assert_eq!(
            labels
                .get(render::desired::SUBSYSTEM_LABEL)
                .map(String::as_str),
            Some("config-loader")
        );
        let owner = &meta.owner_references.as_deref().expect("owner")[0];
        assert_eq!(owner.controller, Some(true));
    }

    // Without serviceAccountName the pods run as the namespace's `default`.
    let p = full_plan(&format!("{AGENT}{LOGS_INSTANCE}"));
    let binding = p
        .objects
        .iter()
        .find_map(|o| match &o.object {
            DesiredObject::RoleBinding(b) => Some(b),
            _ => None,
        })
        .expect("the RoleBinding");
    assert_eq!(
        binding.subjects.as_deref().expect("subjects")[0].name,
        "default"
    );
}

/// A Role without resourceNames would grant every Secret of the namespace: an agent with no
/// config gets none, and an existing one is pruned; while any subsystem runs, a plan without
/// the Role (not built) keeps the existing one.
#[test]
fn no_config_no_grant() {
    let p = full_plan(AGENT);
    let kinds: Vec<&str> = p.objects.iter().map(|o| o.kind().as_str()).collect();
    assert_eq!(kinds, ["Secret"], "the assets Secret alone");

    let h = hierarchy(AGENT);
    let cluster = vec![
        existing("Role", "monitoring", "agent-config-loader", UID, true),
        existing(
            "RoleBinding",
            "monitoring",
            "agent-config-loader",
            UID,
            true,
        ),
    ];
    assert_eq!(
        deleted(&h, &[], &cluster),
        [
            "Role monitoring/agent-config-loader",
            "RoleBinding monitoring/agent-config-loader"
        ]
    );
    let h = hierarchy(&format!("{AGENT}{LOGS_INSTANCE}"));
    assert!(deleted(&h, &[], &cluster).is_empty());
}

/// `spec.configReloaderImage`/`Version` no longer choose anything: each is a warning on its
/// field (Reason `UnusedSetting`, a `RuntimeDifferences` condition), with either runtime, and
/// the objects run.
#[test]
fn the_config_reloader_image_fields_are_warned_about() {
    for runtime in ["", "  runtime: alloy\n"] {
        let p = full_plan(&format!(
            "{AGENT}{runtime}  configReloaderImage: my/reloader:y\n  configReloaderVersion: v9\n{METRICS_INSTANCE}"
        ));
        assert!(p.rejections.is_empty(), "{:?}", p.rejections);
        let warnings: Vec<String> = p
            .warnings
            .iter()
            .filter(|w| w.reason == render::rejection::Reason::UnusedSetting)
            .map(|w| format!("{} {}", w.object, w.field.clone().unwrap_or_default()))
            .collect();
        assert_eq!(
            warnings,
            [
                "GrafanaAgent monitoring/agent spec.configReloaderImage",
                "GrafanaAgent monitoring/agent spec.configReloaderVersion",
            ]
        );
        let condition = p
            .status
            .agent
            .conditions
            .iter()
            .find(|c| c.type_ == "RuntimeDifferences")
            .expect("the RuntimeDifferences condition");
        assert_eq!(condition.reason, "UnusedSetting");
        assert!(
            condition
                .message
                .contains("spec.configReloaderImage: is not used"),
            "{}",
            condition.message
        );
        assert!(
            p.objects.iter().any(|o| o.name() == "agent"),
            "the StatefulSet runs"
        );
    }
}

/// `minReadySeconds` of each metrics StatefulSet of a two-shard agent with these lines under
/// `spec.metrics`.
fn metrics_min_ready_seconds(metrics: &str) -> Vec<Option<i32>> {
    let yaml = AGENT.replace(
        "    instanceSelector: {}\n  logs:",
        &format!("    instanceSelector: {{}}\n    shards: 2\n{metrics}  logs:"),
    ) + METRICS_INSTANCE;
    plan(&yaml)
        .objects
        .iter()
        .filter_map(|o| match &o.object {
            DesiredObject::StatefulSet(s) => Some(s.spec.as_ref()?.min_ready_seconds),
            _ => None,
        })
        .collect()
}

/// Issue 35: in a roll, a shard's next pod is replaced only once the new one has been Ready
/// for a scrape interval and 30 s (discovering its targets, and the last samples a stopping
/// agent does not send), so that it scraped them before its partner's last delivered sample.
#[test]
fn pods_with_a_partner_are_replaced_only_after_a_scrape_interval_and_discovery() {
    let allowance = 30;
    assert_eq!(
        metrics_min_ready_seconds("    replicas: 2\n    scrapeInterval: 5s\n"),
        [Some(5 + allowance); 2]
    );
    // A part of a second counts as a whole one.
    assert_eq!(
        metrics_min_ready_seconds("    replicas: 3\n    scrapeInterval: 1m30s500ms\n"),
        [Some(91 + allowance); 2]
    );
    // Unset, empty or refused: the agent's default interval, 1m.
    for unset in [
        "",
        "    scrapeInterval: \"\"\n",
        "    scrapeInterval: soon\n",
    ] {
        assert_eq!(
            metrics_min_ready_seconds(&format!("    replicas: 2\n{unset}")),
            [Some(60 + allowance); 2],
            "{unset:?}"
        );
    }
    // A lone pod has no partner to wait for: its roll is not slowed.
    for lone in ["", "    replicas: 1\n", "    replicas: 0\n"] {
        assert_eq!(
            metrics_min_ready_seconds(&format!("{lone}    scrapeInterval: 5s\n")),
            [None, None],
            "{lone:?}"
        );
    }
}

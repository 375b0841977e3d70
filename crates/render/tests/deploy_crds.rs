//! `deploy/crds/` must hold exactly what `agent-operator crds` prints, and be a valid CRD stream.

mod support;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use render::output::crds_stream;

#[test]
fn committed_crds_match_the_generated_ones() {
    let path = support::repo_root().join("deploy/crds/crds.yaml");
    let generated = crds_stream(None).expect("serializable");
    if std::env::var("UPDATE_GOLDEN").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("write deploy/crds/crds.yaml");
    }
    let committed = std::fs::read_to_string(&path).expect("deploy/crds/crds.yaml");
    assert!(
        committed == generated,
        "deploy/crds/crds.yaml is stale: run `cargo run -p agent-operator -- crds > deploy/crds/crds.yaml`"
    );
}

#[test]
fn committed_crds_deserialize_as_custom_resource_definitions() {
    let text =
        std::fs::read_to_string(support::repo_root().join("deploy/crds/crds.yaml")).expect("crds");
    let crds: Vec<CustomResourceDefinition> = text
        .split("---\n")
        .filter(|d| !d.trim().is_empty())
        .map(|d| serde_saphyr::from_str(d).expect("a CustomResourceDefinition"))
        .collect();
    let mut names: Vec<_> = crds
        .iter()
        .filter_map(|c| c.metadata.name.clone())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "grafanaagents.monitoring.grafana.com",
            "integrations.monitoring.grafana.com",
            "logsinstances.monitoring.grafana.com",
            "metricsinstances.monitoring.grafana.com",
            "podlogs.monitoring.grafana.com",
            "podmonitors.monitoring.coreos.com",
            "probes.monitoring.coreos.com",
            "scrapeconfigs.monitoring.coreos.com",
            "servicemonitors.monitoring.coreos.com",
        ]
    );
}

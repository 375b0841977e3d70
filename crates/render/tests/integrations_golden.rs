//! Golden cases for the integrations agent.yml documents (`<agent>-integrations-deploy-config`
//! and `<agent>-integrations-ds-config`): one folder per case under `testdata/integrations/`,
//! covering spec 4.15 and the upstream cases of spec 6.1/6.4.

mod support;

use support::Golden;

fn main() {
    support::run_tests(
        "integrations",
        Golden::Everything,
        &[
            (
                "q13_integrations_configs_leave_out_additional_scrape_configs",
                q13_integrations_configs_leave_out_additional_scrape_configs,
            ),
            (
                "q14_unique_is_not_read_but_a_singleton_runs_once_per_workload",
                q14_unique_is_not_read_but_a_singleton_runs_once_per_workload,
            ),
        ],
    );
}

/// The agent.yml of `secret` in the case `name`.
fn config(case: &support::CaseOutput, secret: &str) -> String {
    case.files
        .get(&format!("config-{secret}.yaml"))
        .unwrap_or_else(|| panic!("no config {secret}"))
        .clone()
}

/// Q13 fixed: instance additionalScrapeConfigs stay in the metrics and logs configs and are
/// left out of the integrations configs.
fn q13_integrations_configs_leave_out_additional_scrape_configs() {
    let case = support::render_case(
        &support::repo_root().join("testdata/integrations/q13-no-additional-scrape-configs"),
    );
    assert!(config(&case, "agent-config").contains("job_name: extra-metrics"));
    assert!(config(&case, "agent-logs-config").contains("job_name: journal"));
    let integrations = config(&case, "agent-integrations-ds-config");
    assert!(
        integrations.contains("name: monitoring/primary"),
        "{integrations}"
    );
    assert!(!integrations.contains("job_name"), "{integrations}");
    assert!(!integrations.contains("scrape_configs"), "{integrations}");
}

/// Q14: `type.unique` is not read (as upstream), but the agent's own rule is: it refuses a
/// config that defines a singleton integration (node_exporter, statsd, process, ...) twice
/// ("integration "node_exporter" may only be defined once"), stopping every integration of
/// that workload. Upstream lists both; the second one is rejected instead (issue 22, item 6).
fn q14_unique_is_not_read_but_a_singleton_runs_once_per_workload() {
    let text = r#"
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: operator}
spec:
  integrations:
    selector: {}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: first, namespace: operator}
spec:
  name: node_exporter
  type: {allNodes: true, unique: true}
  config: {instance: first}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: Integration
metadata: {name: second, namespace: operator}
spec:
  name: node_exporter
  type: {allNodes: true, unique: true}
  config: {instance: second}
"#;
    let mut loader = render::manifest::Loader::new();
    loader.add_source("q14.yaml", text);
    let loaded = loader.finish();
    let plans = render::output::plan_all(&loaded.store, &Default::default(), None);
    let ds = plans[0]
        .configs
        .iter()
        .find(|c| c.secret_name == "agent-integrations-ds-config")
        .expect("ds config");
    let rejected: Vec<String> = plans[0].rejections.iter().map(|r| r.to_string()).collect();
    assert_eq!(rejected.len(), 1, "{rejected:?}");
    assert!(
        rejected[0].starts_with("Integration operator/second: spec.name: the agent runs the node_exporter integration at most once per config, and Integration operator/first already defines it"),
        "{rejected:?}"
    );
    assert!(
        ds.text
            .as_str()
            .ends_with("  node_exporter_configs:\n  - instance: first\n"),
        "{}",
        ds.text
    );
}

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
                "q14_unique_is_not_read_and_every_integration_is_listed",
                q14_unique_is_not_read_and_every_integration_is_listed,
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

/// Q14, kept as upstream: `type.unique` is not read; every Integration goes into its
/// `<name>_configs` list, two "unique" ones included (uniqueness is the agent's business).
fn q14_unique_is_not_read_and_every_integration_is_listed() {
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
    assert!(plans[0].rejections.is_empty(), "{:?}", plans[0].rejections);
    assert!(
        ds.text
            .as_str()
            .ends_with("  node_exporter_configs:\n  - instance: first\n  - instance: second\n"),
        "{}",
        ds.text
    );
}

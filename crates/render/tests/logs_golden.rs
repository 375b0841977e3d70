//! Golden cases for the logs agent.yml (`<agent>-logs-config`): one folder per case under
//! `testdata/logs/`, covering spec 4.11-4.14 and the upstream cases of spec 6.1/6.3.

mod support;

use render::config::{AgentConfig, ServerConfig, logs};
use render::desired::Subsystem;
use render::discover::{Hierarchy, discover};
use render::manifest::Loader;
use support::Golden;

fn main() {
    support::run_tests(
        "logs",
        Golden::ConfigOf(Subsystem::Logs),
        &[
            (
                "upstream_build_config_logs_index_0",
                upstream_build_config_logs_index_0,
            ),
            (
                "q13_instance_config_can_leave_out_pod_logs_and_additional_scrape_configs",
                q13_instance_config_can_leave_out_pod_logs_and_additional_scrape_configs,
            ),
            (
                "a_pod_logs_scrape_config_is_a_function_of_the_pod_logs_and_the_context",
                a_pod_logs_scrape_config_is_a_function_of_the_pod_logs_and_the_context,
            ),
            (
                "q24_pod_logs_get_no_host_filter",
                q24_pod_logs_get_no_host_filter,
            ),
        ],
    );
}

/// The hierarchy of the only GrafanaAgent in `text`.
fn hierarchy(text: &str) -> Hierarchy {
    let mut loader = Loader::new();
    loader.add_source("test.yaml", text);
    let loaded = loader.finish();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let agent = loaded.store.agents().next().expect("one GrafanaAgent");
    discover(agent, &loaded.store).hierarchy
}

/// Spec 6.1 TestBuildConfigLogs/index_0: with only a log level, the document has
/// `server.log_level` and `logs.positions_directory` without configs. Our `<agent>-logs-config`
/// Secret exists only with a LogsInstance (spec 3.4), so the section is built directly.
fn upstream_build_config_logs_index_0() {
    let h = hierarchy(
        "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: agent, namespace: operator}\nspec:\n  logLevel: debug\n",
    );
    let mut rejections = Vec::new();
    let config = AgentConfig {
        server: ServerConfig::of(&h.agent),
        logs: Some(logs::section(&h, true, true, &mut rejections)),
        ..Default::default()
    };
    assert!(rejections.is_empty(), "{rejections:?}");
    assert_eq!(
        render::yaml::to_string(&config).expect("yaml"),
        "server:\n  log_level: debug\nlogs:\n  positions_directory: /var/lib/grafana-agent/data\n"
    );
    assert!(logs::render(&h).is_none(), "no LogsInstance, no Secret");
}

const INSTANCE_WITH_POD_LOGS: &str = r#"
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: agent, namespace: operator}
spec:
  logs:
    instanceSelector: {}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: primary, namespace: operator}
spec:
  clients:
  - url: http://loki/loki/api/v1/push
  podLogsSelector: {}
  additionalScrapeConfigs: {name: extra, key: jobs}
  targetConfig: {syncPeriod: 10s}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {name: web, namespace: operator}
spec:
  selector: {}
---
apiVersion: v1
kind: Secret
metadata: {name: extra, namespace: operator}
stringData:
  jobs: "- job_name: extra\n  static_configs: [{targets: [localhost]}]"
"#;

/// What the integrations configs use (spec 4.15, Q13): the instance with its clients and
/// target config, without its PodLogs and without its additionalScrapeConfigs.
fn q13_instance_config_can_leave_out_pod_logs_and_additional_scrape_configs() {
    let h = hierarchy(INSTANCE_WITH_POD_LOGS);
    let node = &h.logs[0];
    let mut rejections = Vec::new();
    let full = logs::instance_config(&h, node, true, true, &mut rejections).expect("renders");
    let jobs: Vec<&str> = full.scrape_configs.iter().map(|s| s.job_name()).collect();
    assert_eq!(jobs, ["podLogs/operator/web", "extra"]);

    let bare = logs::instance_config(&h, node, false, false, &mut rejections).expect("renders");
    assert!(bare.scrape_configs.is_empty());
    assert_eq!(bare.clients, full.clients);
    assert_eq!(bare.target_config, full.target_config);
    assert_eq!(bare.name, "operator/primary");
    assert!(rejections.is_empty(), "{rejections:?}");
}

/// A PodLogs renders the same wherever it is selected: its scrape config depends only on the
/// PodLogs and the agent-wide context.
fn a_pod_logs_scrape_config_is_a_function_of_the_pod_logs_and_the_context() {
    let h = hierarchy(INSTANCE_WITH_POD_LOGS);
    let ctx = logs::PodLogsContext::of(&h.agent, &h.assets).expect("context");
    let pod_logs = &h.logs[0].pod_logs[0];
    let first = logs::pod_logs::scrape_config(pod_logs, &ctx, None)
        .expect("renders")
        .expect("a job");
    let second = logs::pod_logs::scrape_config(pod_logs, &ctx.clone(), None)
        .expect("renders")
        .expect("a job");
    assert_eq!(first, second);
    let mut rejections = Vec::new();
    let via_instance =
        logs::instance_config(&h, &h.logs[0], true, false, &mut rejections).expect("renders");
    assert_eq!(
        via_instance.scrape_configs,
        vec![logs::ScrapeConfig::PodLogs(Box::new(first))]
    );
}

/// Q24, kept as upstream: PodLogs get no `__host__`/node filter (users add it themselves),
/// and the job name goes to `__tmp_prometheus_job_name` as upstream's code does.
fn q24_pod_logs_get_no_host_filter() {
    let h = hierarchy(INSTANCE_WITH_POD_LOGS);
    let ctx = logs::PodLogsContext::of(&h.agent, &h.assets).expect("context");
    let job = logs::pod_logs::scrape_config(&h.logs[0].pod_logs[0], &ctx, None)
        .expect("renders")
        .expect("a job");
    let targets: Vec<&str> = job
        .relabel_configs
        .iter()
        .filter_map(|r| r.target_label.as_deref())
        .collect();
    assert_eq!(targets[0], "__tmp_prometheus_job_name");
    assert!(!targets.contains(&"__host__"), "{targets:?}");
}

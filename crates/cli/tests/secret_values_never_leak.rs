//! Secret and ConfigMap values never reach a message (issue 22, item 4): a value that cannot
//! be parsed is reported by the name of its Secret or ConfigMap, its key, the line and the
//! column, never quoted. Messages land in status, Events and `explain`, which users who may
//! not read Secrets can read, and `render` prints them.
//!
//! A marker password is planted, in broken YAML or a value of the wrong type, in every place
//! a referenced or read value is parsed: a MetricsInstance's and a LogsInstance's
//! `additionalScrapeConfigs` (broken YAML, not a list, duplicate job names, a field promtail
//! does not have), a Secret manifest that is not YAML, a Secret `data` value that is not
//! base64, and values of the wrong type in a Secret and a ConfigMap. The marker must appear
//! nowhere: not in `render`'s output or messages, `render --config`, `explain` (text and
//! JSON), the rejections, or the status the plan gives. A value used as intended (a
//! remote_write username, inlined into agent.yml) does appear where it belongs, in the
//! config: the checks see what is rendered.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use render::PlanOptions;
use render::manifest::Loader;
use render::output::plan_all;

const LEAK: &str = "hunter2-LEAK-MARKER";
const SHOWN: &str = "inlined-SHOWN-MARKER";

fn inputs() -> String {
    format!(
        r#"apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {{name: agent, namespace: monitoring}}
spec:
  metrics:
    instanceSelector: {{}}
  logs:
    instanceSelector: {{}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {{name: broken-yaml, namespace: monitoring}}
spec:
  remoteWrite:
  - url: http://mimir/api/v1/push
    basicAuth:
      username: {{name: credentials, key: username}}
      password: {{name: credentials, key: password}}
  additionalScrapeConfigs: {{name: extra, key: broken.yaml}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {{name: not-a-list, namespace: monitoring}}
spec:
  remoteWrite: [{{url: http://mimir/api/v1/push}}]
  additionalScrapeConfigs: {{name: extra, key: map.yaml}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {{name: duplicate-jobs, namespace: monitoring}}
spec:
  remoteWrite: [{{url: http://mimir/api/v1/push}}]
  additionalScrapeConfigs: {{name: extra, key: duplicate.yaml}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {{name: tabs, namespace: monitoring}}
spec:
  remoteWrite: [{{url: http://mimir/api/v1/push}}]
  additionalScrapeConfigs: {{name: extra, key: tabs.yaml}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {{name: logs-broken-yaml, namespace: monitoring}}
spec:
  clients: [{{url: http://loki/loki/api/v1/push}}]
  additionalScrapeConfigs: {{name: extra, key: logs-broken.yaml}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {{name: logs-unknown-field, namespace: monitoring}}
spec:
  clients: [{{url: http://loki/loki/api/v1/push}}]
  additionalScrapeConfigs: {{name: extra, key: logs-unknown-field.yaml}}
---
apiVersion: v1
kind: Secret
metadata: {{name: credentials, namespace: monitoring}}
stringData:
  username: {SHOWN}
  password: not-this-one
---
apiVersion: v1
kind: Secret
metadata: {{name: extra, namespace: monitoring}}
stringData:
  broken.yaml: |
    - job_name: extra
      basic_auth:
        username: admin
        password: {LEAK}
       static_configs: [
  map.yaml: |
    basic_auth: {{password: {LEAK}}}
  duplicate.yaml: |
    - job_name: {LEAK}
      static_configs: []
    - job_name: {LEAK}
      static_configs: []
  tabs.yaml: "- job_name: x\n\tpassword: {LEAK}\n"
  logs-broken.yaml: |
    - job_name: files
      static_configs: [{{targets: [localhost], labels: {{__path__: "{LEAK}}}]
  logs-unknown-field.yaml: |
    - job_name: files
      static_configs: [{{targets: [localhost]}}]
      limits_config: {{password: {LEAK}}}
---
apiVersion: v1
kind: Secret
metadata: {{name: not-base64, namespace: monitoring}}
data:
  password: "{LEAK}!"
---
apiVersion: v1
kind: Secret
metadata: {{name: wrong-type, namespace: monitoring}}
stringData:
  password: {{nested: {LEAK}}}
---
apiVersion: v1
kind: ConfigMap
metadata: {{name: wrong-type, namespace: monitoring}}
data:
  ca.crt: [{LEAK}]
---
apiVersion: v1
kind: Secret
metadata: {{name: not-yaml, namespace: monitoring}}
stringData:
  password: "{LEAK}
  other: x
"#
    )
}

fn agent_operator(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agent-operator"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run agent-operator")
}

fn all_output(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn write_inputs() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("secret-values-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("inputs.yaml"), inputs()).expect("write inputs");
    dir
}

fn assert_no_leak(what: &str, text: &str) {
    assert!(
        !text.contains(LEAK) && !text.contains("hunter2"),
        "{what} quotes a Secret's value:\n{text}"
    );
}

#[test]
fn secret_and_config_map_values_appear_in_no_message() {
    let dir = write_inputs();
    let file = dir.join("inputs.yaml");
    let file = file.to_str().expect("utf-8 path");

    let objects = agent_operator(&["render", "-f", file]);
    let configs = agent_operator(&["render", "-f", file, "--config"]);
    let mut explained = Vec::new();
    for object in [
        "metricsinstance/monitoring/broken-yaml",
        "metricsinstance/monitoring/not-a-list",
        "metricsinstance/monitoring/duplicate-jobs",
        "metricsinstance/monitoring/tabs",
        "logsinstance/monitoring/logs-broken-yaml",
        "logsinstance/monitoring/logs-unknown-field",
    ] {
        explained.push((object, agent_operator(&["explain", object, "-f", file])));
        explained.push((
            object,
            agent_operator(&["explain", object, "-f", file, "-o", "json"]),
        ));
    }
    let text = std::fs::read_to_string(Path::new(file)).expect("inputs");
    std::fs::remove_dir_all(&dir).ok();

    // Every planted value was reported, by where it is.
    let stderr = String::from_utf8_lossy(&objects.stderr).into_owned();
    for expected in [
        "MetricsInstance monitoring/broken-yaml: spec.additionalScrapeConfigs: key \"broken.yaml\" of Secret monitoring/extra: not valid YAML: line ",
        "MetricsInstance monitoring/not-a-list: spec.additionalScrapeConfigs: key \"map.yaml\" of Secret monitoring/extra: must be a YAML list",
        "MetricsInstance monitoring/duplicate-jobs: spec.additionalScrapeConfigs: key \"duplicate.yaml\" of Secret monitoring/extra: item [1] has the same job_name as item [0]",
        "MetricsInstance monitoring/tabs: spec.additionalScrapeConfigs: key \"tabs.yaml\" of Secret monitoring/extra: not valid YAML: line ",
        "LogsInstance monitoring/logs-broken-yaml: spec.additionalScrapeConfigs: key \"logs-broken.yaml\" of Secret monitoring/extra: not valid YAML: line ",
        "LogsInstance monitoring/logs-unknown-field: spec.additionalScrapeConfigs: key \"logs-unknown-field.yaml\" of Secret monitoring/extra: item [0] has the field limits_config",
        "Secret monitoring/not-base64: data.password: the value must be a base64-encoded string",
        "Secret monitoring/wrong-type: stringData.password: the value must be a string",
        "ConfigMap monitoring/wrong-type: data.ca.crt: the value must be a string",
        "not valid YAML: line ",
    ] {
        assert!(
            stderr.contains(expected),
            "missing {expected:?} in:\n{stderr}"
        );
    }
    assert_no_leak("render", &all_output(&objects));
    assert_no_leak("render --config", &all_output(&configs));
    for (object, out) in &explained {
        assert!(
            out.status.success(),
            "explain {object}: {}",
            all_output(out)
        );
        assert_no_leak(&format!("explain {object}"), &all_output(out));
    }
    // The value used as intended is in the config, where it belongs.
    assert!(
        String::from_utf8_lossy(&configs.stdout).contains(SHOWN),
        "the inlined username is not in the config"
    );

    // The plan itself: its rejections and the status it gives the agent and the instances.
    let mut loader = Loader::new();
    loader.add_source("inputs.yaml", &text);
    let loaded = loader.finish();
    for d in &loaded.diagnostics {
        assert_no_leak("a load diagnostic", &d.to_string());
    }
    let plans = plan_all(&loaded.store, &PlanOptions::default(), None);
    assert_eq!(plans.len(), 1);
    for r in &plans[0].rejections {
        assert_no_leak("a rejection", &r.to_string());
    }
    assert!(plans[0].rejections.len() >= 6, "{:?}", plans[0].rejections);
    assert_no_leak("the status", &format!("{:?}", plans[0].status));
}

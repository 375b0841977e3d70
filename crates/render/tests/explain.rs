//! `explain`: every reason an object is (not) in an agent's config, from manifests.

use render::desired::PlanOptions;
use render::explain::{Cause, ExplainError, Explanation, Outcome, explain};
use render::input_ref::{InputRef, Kind};
use render::manifest::Loader;

/// Namespaces `ops` (team=ops) and `apps` (team=apps), agent `ops/a` selecting MetricsInstances
/// labelled `agent=a` and LogsInstances labelled `agent=a` in its namespace, and MetricsInstance
/// `ops/primary` with `instance_spec`.
fn world(instance_spec: &str, extra: &str) -> String {
    format!(
        r#"
apiVersion: v1
kind: Namespace
metadata: {{name: ops, labels: {{team: ops}}}}
---
apiVersion: v1
kind: Namespace
metadata: {{name: apps, labels: {{team: apps}}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {{name: a, namespace: ops}}
spec:
  metrics:
    instanceSelector: {{matchLabels: {{agent: a}}}}
  logs:
    instanceSelector: {{matchLabels: {{agent: a}}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {{name: primary, namespace: ops, labels: {{agent: a}}}}
spec:
{instance_spec}
---
{extra}
"#
    )
}

const SM: &str = r#"apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: ops, labels: {app: web, tier: front}}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http}, {port: metrics}]
"#;

fn run(yaml: &str, kind: Kind, ns: &str, name: &str) -> Result<Explanation, ExplainError> {
    let mut loader = Loader::new();
    loader.add_source("test.yaml", yaml);
    let loaded = loader.finish();
    explain(
        &loaded.store,
        &InputRef::new(kind, ns, name),
        &PlanOptions::default(),
    )
}

fn sm_outcome(instance_spec: &str, sm: &str) -> (Outcome, String) {
    let e = run(
        &world(instance_spec, sm),
        Kind::ServiceMonitor,
        "ops",
        "web",
    )
    .expect("the ServiceMonitor exists");
    assert_eq!(e.steps.len(), 1, "{e}");
    (e.steps[0].outcome.clone(), e.to_string())
}

fn requirement(outcome: &Outcome) -> (String, String, Option<String>) {
    match outcome {
        Outcome::NotSelected { reason } => match &reason.cause {
            Cause::Requirement {
                requirement,
                labels_of,
                value,
                ..
            } => (
                format!("{} {}", reason.field, requirement),
                labels_of.clone(),
                value.clone(),
            ),
            other => panic!("not a requirement: {other:?}"),
        },
        other => panic!("not 'not selected': {other:?}"),
    }
}

#[test]
fn a_label_mismatch_names_the_entry_and_the_value_the_object_has() {
    let (outcome, text) = sm_outcome("  serviceMonitorSelector: {matchLabels: {app: api}}", SM);
    assert_eq!(
        requirement(&outcome),
        (
            "spec.serviceMonitorSelector matchLabels.app".into(),
            "ServiceMonitor ops/web".into(),
            Some("web".into())
        )
    );
    assert!(
        text.contains("MetricsInstance ops/primary spec.serviceMonitorSelector matchLabels.app (app=api) does not match: ServiceMonitor ops/web has app=web"),
        "{text}"
    );
}

#[test]
fn expression_mismatches_name_the_expression_for_every_operator() {
    let cases = [
        ("{key: tier, operator: In, values: [back]}", Some("front")),
        (
            "{key: tier, operator: NotIn, values: [front]}",
            Some("front"),
        ),
        ("{key: zone, operator: Exists}", None),
        ("{key: tier, operator: DoesNotExist}", Some("front")),
    ];
    for (expression, value) in cases {
        let spec = format!(
            "  serviceMonitorSelector: {{matchLabels: {{app: web}}, matchExpressions: [{{key: app, operator: Exists}}, {expression}]}}"
        );
        let (outcome, _) = sm_outcome(&spec, SM);
        let (field, _, got) = requirement(&outcome);
        assert_eq!(
            field, "spec.serviceMonitorSelector matchExpressions[1]",
            "{expression}"
        );
        assert_eq!(got.as_deref(), value, "{expression}");
    }
}

#[test]
fn a_namespace_selector_mismatch_names_the_namespace_and_its_value() {
    let spec = "  serviceMonitorSelector: {}\n  serviceMonitorNamespaceSelector: {matchLabels: {team: apps}}";
    let (outcome, _) = sm_outcome(spec, SM);
    assert_eq!(
        requirement(&outcome),
        (
            "spec.serviceMonitorNamespaceSelector matchLabels.team".into(),
            "Namespace ops".into(),
            Some("ops".into())
        )
    );
}

#[test]
fn a_nil_selector_selects_nothing() {
    let (outcome, text) = sm_outcome("  podMonitorSelector: {}", SM);
    let Outcome::NotSelected { reason } = outcome else {
        panic!("{outcome:?}")
    };
    assert_eq!(reason.field, "spec.serviceMonitorSelector");
    assert_eq!(reason.cause, Cause::NilSelector);
    assert!(text.contains("is not set, so it selects nothing"), "{text}");
}

#[test]
fn without_a_namespace_selector_only_the_parent_namespace_is_searched() {
    let sm = SM.replace("namespace: ops", "namespace: apps");
    let e = run(
        &world("  serviceMonitorSelector: {}", &sm),
        Kind::ServiceMonitor,
        "apps",
        "web",
    )
    .expect("exists");
    let Outcome::NotSelected { reason } = &e.steps[0].outcome else {
        panic!("{e}")
    };
    assert_eq!(reason.field, "spec.serviceMonitorNamespaceSelector");
    assert_eq!(
        reason.cause,
        Cause::OtherNamespace {
            searched: "ops".into(),
            namespace: "apps".into()
        }
    );
}

#[test]
fn an_instance_no_agent_selects_is_reported_before_its_monitors() {
    let yaml = world("  serviceMonitorSelector: {}", SM).replace(
        "name: primary, namespace: ops, labels: {agent: a}",
        "name: primary, namespace: ops, labels: {agent: b}",
    );
    let e = run(&yaml, Kind::ServiceMonitor, "ops", "web").expect("exists");
    let Outcome::InstanceNotSelected { reason } = &e.steps[0].outcome else {
        panic!("{e}")
    };
    assert_eq!(reason.field, "spec.metrics.instanceSelector");
    let i = run(&yaml, Kind::MetricsInstance, "ops", "primary").expect("exists");
    let (field, whose, value) = requirement(&i.steps[0].outcome);
    assert_eq!(
        (field.as_str(), whose.as_str(), value.as_deref()),
        (
            "spec.metrics.instanceSelector matchLabels.agent",
            "MetricsInstance ops/primary",
            Some("b")
        )
    );
}

#[test]
fn a_selected_but_rejected_monitor_shows_the_rejection() {
    let sm = SM.replace(
        "{port: http}",
        "{port: http, basicAuth: {username: {name: missing, key: user}, password: {name: missing, key: pw}}}",
    );
    let (outcome, text) = sm_outcome("  serviceMonitorSelector: {}", &sm);
    let Outcome::Rejected { rejections } = &outcome else {
        panic!("{text}")
    };
    assert!(!rejections.is_empty(), "{text}");
    assert!(text.contains("selected but rejected"), "{text}");
}

/// Issue 22, item 1: a monitor whose TLS CA comes from a ConfigMap that does not exist (or was
/// deleted) is rejected with its field, as one whose basic-auth Secret is missing: rendering
/// the file path anyway left the agent a CA file that is not in its pod, and a deleted CA
/// ConfigMap never took effect. The same for a client key from a missing Secret; an optional
/// reference only leaves its setting out.
#[test]
fn a_tls_file_from_a_missing_config_map_or_secret_rejects_the_monitor_with_its_field() {
    for (tls, field, reason) in [
        (
            "{ca: {configMap: {name: deleted-ca, key: ca.crt}}}",
            "spec.endpoints[0].tlsConfig.ca",
            "deleted-ca",
        ),
        (
            "{keySecret: {name: deleted-key, key: tls.key}}",
            "spec.endpoints[0].tlsConfig.keySecret",
            "deleted-key",
        ),
    ] {
        let sm = SM.replace(
            "{port: http}",
            &format!("{{port: http, scheme: https, tlsConfig: {tls}}}"),
        );
        let (outcome, text) = sm_outcome("  serviceMonitorSelector: {}", &sm);
        let Outcome::Rejected { rejections } = &outcome else {
            panic!("{text}")
        };
        assert!(
            rejections
                .iter()
                .any(|r| r.field.as_deref() == Some(field) && r.message.contains(reason)),
            "{text}"
        );
    }
    // Optional: the CA is left out, the monitor renders.
    let sm = SM.replace(
        "{port: http}",
        "{port: http, scheme: https, tlsConfig: {ca: {configMap: {name: deleted-ca, key: ca.crt, optional: true}}}}",
    );
    let (outcome, text) = sm_outcome("  serviceMonitorSelector: {}", &sm);
    assert!(matches!(outcome, Outcome::Rendered { .. }), "{text}");
}

/// A rendered monitor names the scrape class it took: the one it names, else the instance's
/// default (issue 36); none when the instance has no class for it.
#[test]
fn a_rendered_monitor_names_its_scrape_class() {
    let classes = "  serviceMonitorSelector: {matchLabels: {app: web}}\n  scrapeClasses:\n  - {name: mesh, default: true, relabelings: [{targetLabel: mesh, replacement: istio}]}\n  - {name: plain}";
    let class_of = |sm: &str| match sm_outcome(classes, sm) {
        (Outcome::Rendered { scrape_class, .. }, text) => (scrape_class, text),
        (other, text) => panic!("not rendered: {other:?}\n{text}"),
    };
    let (default, text) = class_of(SM);
    assert_eq!(default.as_deref(), Some("mesh"), "{text}");
    assert!(text.contains("scrape class: mesh"), "{text}");
    let named = SM.replace("  selector:", "  scrapeClass: plain\n  selector:");
    assert_eq!(class_of(&named).0.as_deref(), Some("plain"));
    let (none, text) = match sm_outcome("  serviceMonitorSelector: {matchLabels: {app: web}}", SM) {
        (Outcome::Rendered { scrape_class, .. }, text) => (scrape_class, text),
        (other, text) => panic!("not rendered: {other:?}\n{text}"),
    };
    assert_eq!(none, None, "{text}");
    assert!(!text.contains("scrape class"), "{text}");
}

/// Probes and ScrapeConfigs take scrape classes too (issue 36): explain names the one applied.
#[test]
fn a_rendered_probe_and_scrape_config_name_their_scrape_class() {
    let instance = "  probeSelector: {}\n  scrapeConfigSelector: {}\n  scrapeClasses:\n  - {name: mesh, default: true}\n  - {name: plain}";
    let probe = r#"apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: web, namespace: ops}
spec:
  prober: {url: "blackbox:9115"}
  targets: {staticConfig: {static: ["https://example.com"]}}
"#;
    let scrape_config = r#"apiVersion: monitoring.coreos.com/v1alpha1
kind: ScrapeConfig
metadata: {name: web, namespace: ops}
spec:
  scrapeClass: plain
  staticConfigs: [{targets: ["web:8080"]}]
"#;
    for (kind, object, class) in [
        (Kind::Probe, probe, "mesh"),
        (Kind::ScrapeConfig, scrape_config, "plain"),
    ] {
        let e = run(&world(instance, object), kind, "ops", "web").expect("exists");
        let text = e.to_string();
        match &e.steps[0].outcome {
            Outcome::Rendered { scrape_class, .. } => {
                assert_eq!(scrape_class.as_deref(), Some(class), "{text}")
            }
            other => panic!("not rendered: {other:?}\n{text}"),
        }
        assert!(text.contains(&format!("scrape class: {class}")), "{text}");
    }
}

#[test]
fn a_rendered_monitor_lists_its_jobs() {
    let (outcome, text) = sm_outcome("  serviceMonitorSelector: {matchLabels: {app: web}}", SM);
    assert_eq!(
        outcome,
        Outcome::Rendered {
            jobs: vec![
                "serviceMonitor/ops/web/0".into(),
                "serviceMonitor/ops/web/1".into()
            ],
            dropped: vec![],
            warnings: vec![],
            scrape_class: None
        },
        "{text}"
    );
    let i = run(
        &world("  serviceMonitorSelector: {}", SM),
        Kind::MetricsInstance,
        "ops",
        "primary",
    )
    .expect("exists");
    assert!(
        matches!(&i.steps[0].outcome, Outcome::Rendered { jobs, .. } if jobs.len() == 2),
        "{i}"
    );
}

#[test]
fn pod_logs_go_through_logs_instances() {
    let extra = r#"apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {name: logs, namespace: ops, labels: {agent: a}}
spec:
  podLogsSelector: {matchLabels: {app: web}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {name: web, namespace: ops, labels: {app: web}}
spec:
  selector: {matchLabels: {app: web}}
"#;
    let e = run(&world("", extra), Kind::PodLogs, "ops", "web").expect("exists");
    assert_eq!(e.steps.len(), 1, "{e}");
    assert_eq!(
        e.steps[0].outcome,
        Outcome::Rendered {
            jobs: vec!["podLogs/ops/web".into()],
            dropped: vec![],
            warnings: vec![],
            scrape_class: None
        },
        "{e}"
    );
}

/// Runtime alloy writes the configs in Alloy's syntax by default: a monitor's and a PodLogs'
/// jobs are those of the document that text is written from, as in the static format.
#[test]
fn with_alloy_in_either_format_a_monitor_and_pod_logs_list_their_jobs() {
    let extra = format!(
        r#"{SM}---
apiVersion: monitoring.grafana.com/v1alpha1
kind: LogsInstance
metadata: {{name: logs, namespace: ops, labels: {{agent: a}}}}
spec:
  clients: [{{url: http://loki/loki/api/v1/push}}]
  podLogsSelector: {{matchLabels: {{app: web}}}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: PodLogs
metadata: {{name: web, namespace: ops, labels: {{app: web}}}}
spec:
  selector: {{matchLabels: {{app: web}}}}
"#
    );
    let native = world(
        "  remoteWrite: [{url: http://mimir/api/v1/push}]\n  serviceMonitorSelector: {}",
        &extra,
    );
    let static_format = native.replace(
        "spec:\n  metrics:",
        "spec:\n  alloy: {configFormat: static}\n  metrics:",
    );
    assert_ne!(static_format, native);
    for yaml in [&native, &static_format] {
        let jobs = |kind, name| {
            let e = run_as(yaml, kind, "ops", name, api::Runtime::Alloy).expect("exists");
            match &e.steps[0].outcome {
                Outcome::Rendered { jobs, .. } => jobs.clone(),
                other => panic!("{other:?}\n{e}"),
            }
        };
        assert_eq!(
            jobs(Kind::ServiceMonitor, "web"),
            ["serviceMonitor/ops/web/0", "serviceMonitor/ops/web/1"]
        );
        assert_eq!(jobs(Kind::PodLogs, "web"), ["podLogs/ops/web"]);
    }
}

#[test]
fn an_invalid_selector_and_a_missing_object_are_reported() {
    let (outcome, _) = sm_outcome(
        "  serviceMonitorSelector: {matchExpressions: [{key: app, operator: In}]}",
        SM,
    );
    let Outcome::NotSelected { reason } = outcome else {
        panic!("{outcome:?}")
    };
    assert!(
        matches!(reason.cause, Cause::InvalidSelector { .. }),
        "{reason}"
    );
    let missing = run(&world("", ""), Kind::ServiceMonitor, "ops", "nope");
    assert_eq!(
        missing.map(|_| ()),
        Err(ExplainError::NotFound(InputRef::new(
            Kind::ServiceMonitor,
            "ops",
            "nope"
        )))
    );
}

/// Issue 22, item 12: a monitor selected by an instance that is itself left out (none of its
/// remote_writes renders) was "selected but rejected" with no reason, and `-o json` had
/// `"rejections": []`. The instance's rejection is the reason, and says whose it is.
#[test]
fn a_monitor_left_out_with_its_rejected_instance_gives_the_instance_s_reason() {
    let instance = "  serviceMonitorSelector: {}\n  remoteWrite:\n  - url: http://mimir\n    basicAuth: {username: {name: missing, key: user}, password: {name: missing, key: pw}}";
    let e = run(&world(instance, SM), Kind::ServiceMonitor, "ops", "web").expect("exists");
    let text = e.to_string();
    let Outcome::Rejected { rejections } = &e.steps[0].outcome else {
        panic!("{text}")
    };
    assert!(!rejections.is_empty(), "{text}");
    assert!(
        rejections.iter().all(|r| r
            .object
            .as_ref()
            .is_some_and(|o| o.kind == "MetricsInstance" && o.name == "primary")),
        "{text}"
    );
    assert!(
        text.contains("MetricsInstance ops/primary: spec.remoteWrite"),
        "{text}"
    );
    let json = serde_json::to_value(&e).expect("json");
    let listed = json["steps"][0]["outcome"]["rejections"]
        .as_array()
        .expect("rejections");
    assert!(!listed.is_empty(), "{json}");
    assert_eq!(listed[0]["object"]["kind"], "MetricsInstance", "{json}");
}

/// [`run`] with the operator's `--runtime`.
fn run_as(
    yaml: &str,
    kind: Kind,
    ns: &str,
    name: &str,
    runtime: api::Runtime,
) -> Result<Explanation, ExplainError> {
    let mut loader = Loader::new();
    loader.add_source("test.yaml", yaml);
    let loaded = loader.finish();
    let opts = PlanOptions {
        runtime,
        ..PlanOptions::default()
    };
    explain(&loaded.store, &InputRef::new(kind, ns, name), &opts)
}

/// The instance's warnings (fields) that `explain` shows for runtime alloy, and its text.
fn alloy_warnings_of_the_instance(yaml: &str) -> (Vec<String>, String) {
    let e = run_as(
        yaml,
        Kind::MetricsInstance,
        "ops",
        "primary",
        api::Runtime::Alloy,
    )
    .expect("exists");
    let Outcome::Rendered { warnings, .. } = &e.steps[0].outcome else {
        panic!("{e}")
    };
    let fields = warnings.iter().filter_map(|w| w.field.clone()).collect();
    (fields, e.to_string())
}

#[test]
fn with_alloy_an_instance_shows_the_settings_alloy_does_not_use() {
    let yaml = world(
        "  serviceMonitorSelector: {}\n  walTruncateFrequency: 30m\n  writeStaleOnShutdown: true",
        SM,
    );
    // Alloy's own syntax (the default) writes the WAL setting; none has a staleness setting.
    let (fields, text) = alloy_warnings_of_the_instance(&yaml);
    assert_eq!(fields, ["spec.writeStaleOnShutdown"], "{text}");
    // The static format's converter drops both.
    let static_format = yaml.replace(
        "spec:\n  metrics:",
        "spec:\n  alloy: {configFormat: static}\n  metrics:",
    );
    assert_ne!(static_format, yaml);
    let (fields, text) = alloy_warnings_of_the_instance(&static_format);
    assert_eq!(
        fields,
        ["spec.walTruncateFrequency", "spec.writeStaleOnShutdown"],
        "{text}"
    );
    assert!(
        text.contains("      runtime difference: spec.walTruncateFrequency: not used by Alloy"),
        "{text}"
    );
    // The agent uses them: nothing to say.
    let e = run_as(
        &yaml,
        Kind::MetricsInstance,
        "ops",
        "primary",
        api::Runtime::Agent,
    )
    .expect("exists");
    assert!(
        matches!(&e.steps[0].outcome, Outcome::Rendered { warnings, .. } if warnings.is_empty()),
        "{e}"
    );
    assert!(!e.to_string().contains("runtime difference"), "{e}");
}

#[test]
fn with_alloy_a_monitor_whose_component_label_collides_is_explained_as_rejected() {
    let other = r#"apiVersion: v1
kind: Namespace
metadata: {name: ops-web, labels: {team: ops}}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: x, namespace: ops-web}
spec:
  selector: {matchLabels: {app: x}}
  endpoints: [{port: http}]
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web-x, namespace: ops}
spec:
  selector: {matchLabels: {app: web}}
  endpoints: [{port: http}]
"#;
    let yaml = world(
        "  serviceMonitorSelector: {}\n  serviceMonitorNamespaceSelector: {}",
        other,
    );
    let e = run_as(
        &yaml,
        Kind::ServiceMonitor,
        "ops-web",
        "x",
        api::Runtime::Alloy,
    )
    .expect("exists");
    let Outcome::Rejected { rejections } = &e.steps[0].outcome else {
        panic!("{e}")
    };
    assert_eq!(rejections[0].field.as_deref(), Some("metadata.name"), "{e}");
    assert!(
        rejections[0]
            .message
            .contains("metrics_ops_primary_serviceMonitor_ops_web_x_0, as the scrape job serviceMonitor/ops/web-x/0 of ServiceMonitor ops/web-x does"),
        "{e}"
    );
    let e = run_as(
        &yaml,
        Kind::ServiceMonitor,
        "ops-web",
        "x",
        api::Runtime::Agent,
    )
    .expect("exists");
    assert!(
        matches!(&e.steps[0].outcome, Outcome::Rendered { jobs, .. } if jobs == &["serviceMonitor/ops-web/x/0"]),
        "{e}"
    );
}

/// A MetricsInstance of agent `ops/a` without a serviceMonitorSelector: it selects nothing.
const UNSET_INSTANCE: &str = "---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: unset, namespace: ops, labels: {agent: a}}
spec: {}
";

/// Issue 38, item 9b: the default text names the instance that selects the monitor first,
/// then one line per reason the others leave it out, with a count and the first three; a
/// reason only one gives is printed in full. The full text (`--all`) and `-o json` keep
/// every instance.
#[test]
fn the_summary_groups_the_instances_that_leave_the_monitor_out_by_reason() {
    let mut extra = String::from(SM);
    for i in 0..5 {
        extra.push_str(&format!(
            "---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {{name: other-{i}, namespace: ops, labels: {{agent: a}}}}
spec:
  serviceMonitorSelector: {{matchLabels: {{app: other-{i}}}}}
"
        ));
    }
    extra.push_str(UNSET_INSTANCE);
    let e = run(
        &world(
            "  serviceMonitorSelector: {matchLabels: {app: web}}",
            &extra,
        ),
        Kind::ServiceMonitor,
        "ops",
        "web",
    )
    .expect("the ServiceMonitor exists");
    assert_eq!(
        e.summary().to_string(),
        "ServiceMonitor ops/web
  GrafanaAgent ops/a > MetricsInstance ops/primary: selected, jobs: serviceMonitor/ops/web/0, serviceMonitor/ops/web/1
  5 not selected: MetricsInstance spec.serviceMonitorSelector matchLabels.app does not match: ServiceMonitor ops/web has app=web; GrafanaAgent ops/a > MetricsInstance ops/other-0 (app=other-0), GrafanaAgent ops/a > MetricsInstance ops/other-1 (app=other-1), GrafanaAgent ops/a > MetricsInstance ops/other-2 (app=other-2) and 2 more
  GrafanaAgent ops/a > MetricsInstance ops/unset: not selected: MetricsInstance ops/unset spec.serviceMonitorSelector is not set, so it selects nothing
  (--all prints each of the 7 on its own line)
"
    );
    let all = e.to_string();
    assert_eq!(all.lines().count(), 8, "{all}");
    assert!(
        all.contains("MetricsInstance ops/other-4: not selected"),
        "{all}"
    );
    let json = serde_json::to_value(&e).expect("json");
    assert_eq!(json["steps"].as_array().map(Vec::len), Some(7), "{json}");
}

/// One line per agent and instance when each leaves the monitor out for a reason of its own:
/// the summary is the full text.
#[test]
fn the_summary_of_distinct_reasons_is_the_full_text() {
    let e = run(
        &world(
            "  serviceMonitorSelector: {matchLabels: {app: other}}",
            &format!("{SM}{UNSET_INSTANCE}"),
        ),
        Kind::ServiceMonitor,
        "ops",
        "web",
    )
    .expect("the ServiceMonitor exists");
    assert_eq!(e.steps.len(), 2, "{e}");
    assert_eq!(e.summary().to_string(), e.to_string());
}

/// Issue 38, item 9c: a Secret (or ConfigMap) in the input but refused when read (here, a
/// value that is not base64) is named as refused, not as missing ("the object does not
/// exist").
#[test]
fn a_reference_to_a_refused_secret_or_config_map_says_it_was_refused() {
    for (tls, refused, field) in [
        (
            "{keySecret: {name: bad-key, key: tls.key}}",
            "apiVersion: v1\nkind: Secret\nmetadata: {name: bad-key, namespace: ops}\ndata: {tls.key: \"not base64!\"}\n",
            "spec.endpoints[0].tlsConfig.keySecret",
        ),
        (
            "{ca: {configMap: {name: bad-ca, key: ca.crt}}}",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad-ca, namespace: ops}\nbinaryData: {ca.crt: \"not base64!\"}\n",
            "spec.endpoints[0].tlsConfig.ca",
        ),
    ] {
        let sm = SM.replace(
            "{port: http}",
            &format!("{{port: http, scheme: https, tlsConfig: {tls}}}"),
        );
        let (outcome, text) = sm_outcome(
            "  serviceMonitorSelector: {}",
            &format!("{sm}---\n{refused}"),
        );
        let Outcome::Rejected { rejections } = &outcome else {
            panic!("{text}")
        };
        assert!(
            rejections
                .iter()
                .any(|r| r.field.as_deref() == Some(field)
                    && r.message.contains("refused when read")),
            "{text}"
        );
        assert!(!text.contains("does not exist"), "{text}");
    }
}

/// Issue 36 item 2: a ScrapeConfig is explained as a monitor is: its selector's field when it
/// is not selected, its job when it is, the field that rejects it otherwise.
#[test]
fn a_scrape_config_is_explained_with_its_selector_job_and_rejection() {
    let scrape_config = |spec: &str| {
        format!(
            "apiVersion: monitoring.coreos.com/v1alpha1\nkind: ScrapeConfig\nmetadata: {{name: nodes, namespace: ops, labels: {{app: nodes}}}}\nspec:\n{spec}\n"
        )
    };
    let targets = "  staticConfigs: [{targets: ['10.0.0.1:9100']}]";
    let outcome = |instance_spec: &str, spec: &str| {
        let e = run(
            &world(instance_spec, &scrape_config(spec)),
            Kind::ScrapeConfig,
            "ops",
            "nodes",
        )
        .expect("the ScrapeConfig exists");
        assert_eq!(e.steps.len(), 1, "{e}");
        (e.steps[0].outcome.clone(), e.to_string())
    };

    let (not_selected, text) =
        outcome("  scrapeConfigSelector: {matchLabels: {app: web}}", targets);
    assert_eq!(
        requirement(&not_selected),
        (
            "spec.scrapeConfigSelector matchLabels.app".into(),
            "ScrapeConfig ops/nodes".into(),
            Some("nodes".into())
        ),
        "{text}"
    );

    let (rendered, text) = outcome("  scrapeConfigSelector: {}", targets);
    let Outcome::Rendered { jobs, .. } = &rendered else {
        panic!("{text}")
    };
    assert_eq!(jobs, &["scrapeConfig/ops/nodes"], "{text}");

    let (rejected, text) = outcome(
        "  scrapeConfigSelector: {}",
        "  gceSDConfigs: [{project: p, zone: z}]",
    );
    let Outcome::Rejected { rejections } = &rejected else {
        panic!("{text}")
    };
    assert!(text.contains("spec.gceSDConfigs"), "{text}");
    assert!(!rejections.is_empty(), "{text}");
}

//! Discovery's selector rules (spec 2.1), from manifests as users write them.

use render::discover::discover;
use render::input_ref::Kind;
use render::manifest::Loader;
use render::store::InputStore;

fn store(yaml: &str) -> InputStore {
    let mut loader = Loader::new();
    loader.add_source("test.yaml", yaml);
    let loaded = loader.finish();
    let errors: Vec<_> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == render::manifest::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    loaded.store
}

const NAMESPACES: &str = r#"
apiVersion: v1
kind: Namespace
metadata: {name: ops, labels: {team: ops}}
---
apiVersion: v1
kind: Namespace
metadata: {name: apps, labels: {team: apps}}
"#;

fn agent(metrics: &str) -> String {
    format!(
        "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {{name: a, namespace: ops}}\nspec:\n  metrics:\n{metrics}\n"
    )
}

fn instance(ns: &str, name: &str, labels: &str, spec: &str) -> String {
    format!(
        "apiVersion: monitoring.grafana.com/v1alpha1\nkind: MetricsInstance\nmetadata: {{name: {name}, namespace: {ns}, labels: {labels}}}\nspec:\n{spec}\n"
    )
}

fn selected_instances(yaml: &str) -> Vec<String> {
    let s = store(yaml);
    let d = discover(s.agents().next().expect("a GrafanaAgent"), &s);
    d.hierarchy
        .metrics
        .iter()
        .map(|m| {
            let meta = &m.instance.metadata;
            format!(
                "{}/{}",
                meta.namespace.as_deref().unwrap_or(""),
                meta.name.as_deref().unwrap_or("")
            )
        })
        .collect()
}

fn world(agent_metrics: &str) -> String {
    [
        NAMESPACES.to_string(),
        agent(agent_metrics),
        instance("ops", "b", "{x: one}", "  {}"),
        instance("ops", "a", "{x: one}", "  {}"),
        instance("apps", "c", "{x: one}", "  {}"),
        instance("apps", "d", "{x: two}", "  {}"),
    ]
    .join("\n---\n")
}

#[test]
fn nil_instance_selector_selects_nothing() {
    assert!(selected_instances(&world("    shards: 1")).is_empty());
}

#[test]
fn empty_selector_with_nil_namespace_selector_selects_all_in_own_namespace_sorted() {
    assert_eq!(
        selected_instances(&world("    instanceSelector: {}")),
        ["ops/a", "ops/b"]
    );
}

#[test]
fn empty_namespace_selector_spans_all_namespaces() {
    let w = world("    instanceSelector: {}\n    instanceNamespaceSelector: {}");
    assert_eq!(
        selected_instances(&w),
        ["apps/c", "apps/d", "ops/a", "ops/b"]
    );
}

#[test]
fn namespace_selector_matches_namespace_labels() {
    let w = world(
        "    instanceSelector: {matchLabels: {x: one}}\n    instanceNamespaceSelector: {matchLabels: {team: apps}}",
    );
    assert_eq!(selected_instances(&w), ["apps/c"]);
}

#[test]
fn namespaces_without_a_namespace_object_have_no_labels() {
    let w = [
        agent("    instanceSelector: {}\n    instanceNamespaceSelector: {matchExpressions: [{key: team, operator: DoesNotExist}]}"),
        instance("elsewhere", "e", "{}", "  {}"),
        NAMESPACES.to_string(),
        instance("apps", "c", "{}", "  {}"),
    ]
    .join("\n---\n");
    assert_eq!(selected_instances(&w), ["elsewhere/e"]);
}

#[test]
fn invalid_selector_is_reported_on_the_selecting_object_and_selects_nothing() {
    let w = world(
        "    instanceSelector: {matchExpressions: [{key: x, operator: Equals, values: [one]}]}",
    );
    let s = store(&w);
    let d = discover(s.agents().next().expect("a GrafanaAgent"), &s);
    assert!(d.hierarchy.metrics.is_empty());
    assert_eq!(d.rejections.len(), 1);
    let r = &d.rejections[0];
    assert_eq!(r.object.kind, Kind::GrafanaAgent);
    assert_eq!(r.field.as_deref(), Some("spec.metrics.instanceSelector"));
    assert!(r.message.contains("Equals"), "{}", r.message);
}

const MONITORS: &str = r#"
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: apps, labels: {team: apps}}
spec: {selector: {}, endpoints: [{port: http}]}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: db, namespace: ops, labels: {team: ops}}
spec:
  selector: {}
  endpoints:
  - port: http
    bearerTokenSecret: {name: token, key: t}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: files, namespace: ops, labels: {team: ops}}
spec: {selector: {}, endpoints: [{port: http, bearerTokenFile: /etc/token}]}
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {name: p, namespace: ops}
spec: {targets: {staticConfig: {static: [a]}}}
---
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: ops}
stringData: {other: x}
"#;

#[test]
fn monitors_are_selected_cross_namespace_and_bad_references_reject_only_that_monitor() {
    let w = [
        NAMESPACES.to_string(),
        agent("    instanceSelector: {}\n    arbitraryFSAccessThroughSMs: {deny: true}"),
        instance(
            "ops",
            "i",
            "{}",
            "  serviceMonitorSelector: {}\n  serviceMonitorNamespaceSelector: {}",
        ),
        MONITORS.to_string(),
    ]
    .join("\n---\n");
    let s = store(&w);
    let d = discover(s.agents().next().expect("a GrafanaAgent"), &s);
    let node = &d.hierarchy.metrics[0];
    let names: Vec<_> = node
        .service_monitors
        .iter()
        .map(|m| m.metadata.name.clone().unwrap_or_default())
        .collect();
    assert_eq!(
        names,
        ["web"],
        "db lacks its Secret key, files reads a file"
    );
    assert!(
        node.probes.is_empty(),
        "a nil probeSelector selects nothing"
    );
    let rejected: Vec<_> = d
        .rejections
        .iter()
        .map(|r| (r.object.name.as_str(), r.field.as_deref()))
        .collect();
    assert_eq!(
        rejected,
        [
            ("db", Some("spec.endpoints[0].bearerTokenSecret")),
            ("files", Some("spec.endpoints[0].bearerTokenFile")),
        ]
    );
}

#[test]
fn dependencies_cover_every_selector_member_and_referenced_object() {
    let w = [
        NAMESPACES.to_string(),
        agent("    instanceSelector: {}"),
        instance(
            "ops",
            "i",
            "{}",
            "  serviceMonitorSelector: {matchLabels: {team: ops}}",
        ),
        MONITORS.to_string(),
    ]
    .join("\n---\n");
    let s = store(&w);
    let d = discover(s.agents().next().expect("a GrafanaAgent"), &s);
    let deps = &d.dependencies;
    let no_labels = Default::default();
    let ops_labels = [("team".to_string(), "ops".to_string())].into();
    let hits = |kind, ns: &str, labels| {
        deps.selectors
            .iter()
            .any(|w| w.matches(kind, ns, labels, &no_labels))
    };
    assert!(
        hits(Kind::MetricsInstance, "ops", &no_labels),
        "a new instance in the agent's namespace"
    );
    assert!(
        !hits(Kind::MetricsInstance, "apps", &no_labels),
        "not in another namespace"
    );
    assert!(hits(Kind::ServiceMonitor, "ops", &ops_labels));
    assert!(!hits(Kind::ServiceMonitor, "ops", &no_labels));
    assert!(
        !hits(Kind::Probe, "ops", &no_labels),
        "a nil probe selector selects nothing"
    );
    let members: Vec<String> = deps.members.iter().map(ToString::to_string).collect();
    assert_eq!(
        members,
        [
            "MetricsInstance ops/i",
            "ServiceMonitor ops/db",
            "ServiceMonitor ops/files",
        ],
        "selected monitors are members even when rejected afterwards"
    );
    let references: Vec<(String, Vec<&str>)> = deps
        .references
        .iter()
        .map(|(o, keys)| (o.to_string(), keys.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(references, [("Secret ops/token".to_owned(), vec!["t"])]);
    assert!(d.to_load.is_empty(), "files hold every value");
}

#[test]
fn one_object_can_belong_to_two_agents() {
    let w = [
        NAMESPACES.to_string(),
        agent("    instanceSelector: {}"),
        agent("    instanceSelector: {}").replace("name: a,", "name: b,"),
        instance("ops", "i", "{}", "  {}"),
    ]
    .join("\n---\n");
    let s = store(&w);
    assert_eq!(s.agents().count(), 2);
    for a in s.agents() {
        assert_eq!(discover(a, &s).hierarchy.metrics.len(), 1);
    }
}

/// A selector that requires a label value reads the store's label index instead of every
/// object of the namespaces it searches: the same monitors, in the same order, as matching
/// every monitor one by one, whatever the selector's shape.
#[test]
fn selecting_through_the_label_index_selects_what_a_full_scan_selects() {
    let mut docs = vec![
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: n0, labels: {team: a}}".to_owned(),
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: n1, labels: {team: b}}".to_owned(),
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: n2, labels: {team: a}}".to_owned(),
        // n3 has no Namespace object: no labels.
        agent("    instanceSelector: {}\n    instanceNamespaceSelector: {}").replace("ops", "n0"),
    ];
    for i in 0..60 {
        let app = if i % 5 == 0 { "db" } else { "web" };
        docs.push(format!(
            "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {{name: m{i:02}, namespace: n{}, labels: {{agent: x{}, app: {app}}}}}\nspec:\n  selector: {{}}\n  endpoints: [{{port: web}}]",
            i % 4,
            i % 3
        ));
    }
    let selectors = [
        "serviceMonitorSelector: {matchLabels: {agent: x1}}",
        "serviceMonitorSelector: {matchLabels: {agent: x1}}\n  serviceMonitorNamespaceSelector: {}",
        "serviceMonitorSelector: {matchExpressions: [{key: agent, operator: In, values: [x0, x2, x2, nobody]}]}\n  serviceMonitorNamespaceSelector: {matchLabels: {team: a}}",
        "serviceMonitorSelector: {matchLabels: {agent: x0, app: web}}\n  serviceMonitorNamespaceSelector: {}",
        "serviceMonitorSelector: {matchLabels: {app: db}, matchExpressions: [{key: agent, operator: NotIn, values: [x0]}]}\n  serviceMonitorNamespaceSelector: {matchExpressions: [{key: team, operator: DoesNotExist}]}",
        "serviceMonitorSelector: {matchExpressions: [{key: agent, operator: NotIn, values: [x0]}]}\n  serviceMonitorNamespaceSelector: {}",
        "serviceMonitorSelector: {matchExpressions: [{key: app, operator: Exists}, {key: agent, operator: In, values: [x1]}]}\n  serviceMonitorNamespaceSelector: {matchExpressions: [{key: team, operator: In, values: [b]}]}",
        "serviceMonitorSelector: {matchLabels: {agent: nobody}}\n  serviceMonitorNamespaceSelector: {}",
        "serviceMonitorSelector: {}",
    ];
    for (i, selector) in selectors.iter().enumerate() {
        docs.push(instance(
            "n1",
            &format!("i{i}"),
            "{}",
            &format!("  {selector}"),
        ));
    }
    let s = store(&docs.join("\n---\n"));
    let d = discover(s.agents().next().expect("a GrafanaAgent"), &s);
    assert!(d.rejections.is_empty(), "{:?}", d.rejections);
    assert_eq!(d.hierarchy.metrics.len(), selectors.len());
    let mut selected_by_index = 0;
    for node in &d.hierarchy.metrics {
        let spec = &node.instance.spec;
        let scanned: Vec<String> = s
            .objects::<api::ServiceMonitor>()
            .iter()
            .filter(|m| {
                let ns = m.metadata.namespace.as_deref().unwrap_or_default();
                let in_scope = match &spec.service_monitor_namespace_selector {
                    None => ns == "n1",
                    Some(sel) => render::selector::matches(
                        Some(sel),
                        render::store::InputView::namespace_labels(&s, ns),
                    ),
                };
                in_scope
                    && render::selector::matches(
                        spec.service_monitor_selector.as_ref(),
                        render::store::labels_of(m.as_ref()),
                    )
            })
            .map(|m| render::input_ref::InputRef::of(Kind::ServiceMonitor, m.as_ref()).key())
            .collect();
        let selected: Vec<String> = node
            .service_monitors
            .iter()
            .map(|m| render::input_ref::InputRef::of(Kind::ServiceMonitor, m.as_ref()).key())
            .collect();
        assert_eq!(selected, scanned, "{:?}", node.instance.metadata.name);
        selected_by_index += selected.len();
    }
    assert!(selected_by_index > 40, "the selectors select something");
}

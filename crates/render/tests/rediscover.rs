//! `rediscover` (an earlier discovery brought up to date after monitor edits) against a full
//! discovery of the same store: equal whenever it takes the changes, and declining every
//! change that could select, reject or resolve anything differently.

use std::sync::Arc;

use api::grafana_agent::GrafanaAgent;
use api::{PodMonitor, Probe, ScrapeConfig, ServiceMonitor};
use render::input_ref::{InputRef, Kind};
use render::manifest::Loader;
use render::store::InputStore;
use render::{Discovery, discover, rediscover};
use serde_json::{Value, json};

const WORLD: &str = r#"
apiVersion: v1
kind: Namespace
metadata: {name: ops, labels: {team: ops}}
---
apiVersion: v1
kind: Namespace
metadata: {name: apps, labels: {team: apps}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, namespace: ops}
spec:
  metrics:
    instanceSelector: {matchLabels: {agent: a}}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: main, namespace: ops, labels: {agent: a}}
spec:
  remoteWrite: [{url: "http://prometheus:9090/api/v1/write"}]
  serviceMonitorSelector: {matchLabels: {scrape: "yes"}}
  serviceMonitorNamespaceSelector: {}
  podMonitorSelector: {matchLabels: {scrape: "yes"}}
  podMonitorNamespaceSelector: {}
  probeSelector: {matchLabels: {scrape: "yes"}}
  probeNamespaceSelector: {}
  scrapeConfigSelector: {matchLabels: {scrape: "yes"}}
  scrapeConfigNamespaceSelector: {}
---
apiVersion: monitoring.grafana.com/v1alpha1
kind: MetricsInstance
metadata: {name: apps-only, namespace: ops, labels: {agent: a}}
spec:
  serviceMonitorSelector: {matchLabels: {scrape: "yes"}}
  serviceMonitorNamespaceSelector: {matchLabels: {team: apps}}
---
apiVersion: v1
kind: Secret
metadata: {name: auth, namespace: apps}
stringData: {user: u, password: p}
---
apiVersion: v1
kind: Secret
metadata: {name: auth, namespace: ops}
stringData: {user: u, password: p}
"#;

fn service_monitor(ns: &str, name: &str, scrape: &str) -> String {
    format!(
        r#"
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {{name: {name}, namespace: {ns}, labels: {{scrape: "{scrape}"}}}}
spec:
  selector: {{matchLabels: {{app: {name}}}}}
  endpoints:
  - port: http
    basicAuth:
      username: {{name: auth, key: user}}
      password: {{name: auth, key: password}}
"#
    )
}

fn others(ns: &str) -> String {
    format!(
        r#"
---
apiVersion: monitoring.coreos.com/v1
kind: PodMonitor
metadata: {{name: pods, namespace: {ns}, labels: {{scrape: "yes"}}}}
spec:
  selector: {{matchLabels: {{app: pods}}}}
  podMetricsEndpoints: [{{port: http}}]
---
apiVersion: monitoring.coreos.com/v1
kind: Probe
metadata: {{name: probe, namespace: {ns}, labels: {{scrape: "yes"}}}}
spec:
  prober: {{url: "blackbox:9115"}}
  targets: {{staticConfig: {{static: ["http://example.com"]}}}}
---
apiVersion: monitoring.coreos.com/v1alpha1
kind: ScrapeConfig
metadata: {{name: static, namespace: {ns}, labels: {{scrape: "yes"}}}}
spec:
  staticConfigs: [{{targets: ["a:9100"]}}]
"#
    )
}

/// Ten ServiceMonitors in each of two namespaces (two not selected), and one of each other
/// monitor kind per namespace.
fn store() -> InputStore {
    let mut yaml = WORLD.to_owned();
    for ns in ["apps", "ops"] {
        for i in 0..10 {
            let scrape = if i == 7 { "no" } else { "yes" };
            yaml.push_str(&service_monitor(ns, &format!("sm-{i}"), scrape));
        }
        yaml.push_str(&others(ns));
    }
    let mut loader = Loader::new();
    loader.add_source("world.yaml", &yaml);
    let loaded = loader.finish();
    let errors: Vec<_> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == render::manifest::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    loaded.store
}

fn agent(store: &InputStore) -> Arc<GrafanaAgent> {
    store.agents().next().expect("a GrafanaAgent").clone()
}

/// The object of kind `T` at `ns/name` with `edit` applied to its JSON and a new
/// resourceVersion, put in the store.
fn edit<T>(store: &mut InputStore, ns: &str, name: &str, edit: impl FnOnce(&mut Value))
where
    T: render::store::Input + serde::Serialize + serde::de::DeserializeOwned,
{
    let current = store.objects::<T>().get(ns, name).expect("the object");
    let mut value = serde_json::to_value(current.as_ref()).expect("to JSON");
    let version = value["metadata"]["resourceVersion"]
        .as_str()
        .unwrap_or("0")
        .to_owned();
    value["metadata"]["resourceVersion"] = format!("{version}+").into();
    edit(&mut value);
    store.apply(Arc::new(
        serde_json::from_value::<T>(value).expect("from JSON"),
    ));
}

fn add_relabeling(path: &str, marker: &str) -> impl FnOnce(&mut Value) {
    let (path, marker) = (path.to_owned(), marker.to_owned());
    move |value| {
        let target = value.pointer_mut(&path).expect("the endpoint");
        let relabelings = target
            .as_object_mut()
            .expect("an object")
            .entry("relabelings")
            .or_insert_with(|| json!([]));
        relabelings
            .as_array_mut()
            .expect("a list")
            .push(json!({"targetLabel": "marker", "replacement": marker}));
    }
}

/// Brings `previous` up to date, and checks it equals a full discovery when taken.
fn rediscovered(store: &InputStore, previous: &mut Discovery) -> bool {
    let agent = agent(store);
    let taken = rediscover(&agent, store, previous);
    let full = discover(&agent, store);
    if taken {
        assert_eq!(*previous, full, "rediscovered differs from discovered");
    }
    taken
}

#[test]
fn spec_edits_of_every_monitor_kind_are_taken_and_equal_a_full_discovery() {
    let mut store = store();
    let mut d = discover(&agent(&store), &store);
    assert!(d.rejections.is_empty(), "{:?}", d.rejections);
    for round in 0..3 {
        let marker = format!("m{round}");
        for ns in ["apps", "ops"] {
            for i in 0..10 {
                let path = "/spec/endpoints/0";
                edit::<ServiceMonitor>(
                    &mut store,
                    ns,
                    &format!("sm-{i}"),
                    add_relabeling(path, &marker),
                );
            }
            let path = "/spec/podMetricsEndpoints/0";
            edit::<PodMonitor>(&mut store, ns, "pods", add_relabeling(path, &marker));
            edit::<Probe>(&mut store, ns, "probe", |v| {
                v["spec"]["module"] = json!(marker)
            });
            edit::<ScrapeConfig>(&mut store, ns, "static", |v| {
                v["spec"]["staticConfigs"][0]["targets"] = json!([format!("{marker}:9100")]);
            });
            assert!(rediscovered(&store, &mut d), "round {round} in {ns}");
        }
    }
    // The new versions are the ones discovered.
    let sm = &d.hierarchy.metrics[0].service_monitors[0];
    assert_eq!(sm.metadata.resource_version.as_deref(), Some("0+++"));
}

#[test]
fn a_discovery_already_current_is_taken_as_it_is() {
    let store = store();
    let mut d = discover(&agent(&store), &store);
    let before = d.clone();
    assert!(rediscovered(&store, &mut d));
    assert_eq!(d, before);
}

#[test]
fn an_edit_of_a_monitor_not_selected_changes_nothing() {
    let mut store = store();
    let mut d = discover(&agent(&store), &store);
    let before = d.clone();
    edit::<ServiceMonitor>(
        &mut store,
        "apps",
        "sm-7",
        add_relabeling("/spec/endpoints/0", "x"),
    );
    assert!(rediscovered(&store, &mut d));
    assert_eq!(d.hierarchy, before.hierarchy);
}

#[test]
fn changes_that_may_select_reject_or_resolve_differently_are_declined() {
    type Change = Box<dyn Fn(&mut InputStore)>;
    let changes: Vec<(&str, Change)> = vec![
        (
            "a relabelled monitor",
            Box::new(|s| {
                edit::<ServiceMonitor>(s, "apps", "sm-1", |v| {
                    v["metadata"]["labels"]["scrape"] = json!("no");
                })
            }),
        ),
        (
            "a monitor referring to another Secret key",
            Box::new(|s| {
                edit::<ServiceMonitor>(s, "apps", "sm-1", |v| {
                    v["spec"]["endpoints"][0]["basicAuth"]["password"]["key"] = json!("missing");
                })
            }),
        ),
        (
            "a monitor reading the agent's files",
            Box::new(|s| {
                edit::<ServiceMonitor>(s, "apps", "sm-1", |v| {
                    v["spec"]["endpoints"][0]["bearerTokenFile"] = json!("/etc/passwd");
                })
            }),
        ),
        (
            "a new monitor",
            Box::new(|s| {
                let mut loader = Loader::new();
                loader.add_source("new.yaml", &service_monitor("apps", "sm-new", "yes"));
                let sm = loader.finish().store;
                let sm = sm
                    .objects::<ServiceMonitor>()
                    .get("apps", "sm-new")
                    .expect("sm");
                s.apply(sm.clone());
            }),
        ),
        (
            "a deleted monitor",
            Box::new(|s| {
                s.delete(Kind::ServiceMonitor, "apps", "sm-1");
            }),
        ),
        (
            "a relabelled namespace",
            Box::new(|s| s.apply_namespace("apps", Default::default())),
        ),
        (
            "a Secret changed",
            Box::new(|s| {
                s.apply_meta(
                    render::assets::AssetSource::Secret,
                    "apps",
                    "auth",
                    Some("9".into()),
                )
            }),
        ),
        (
            "an instance edited",
            Box::new(|s| {
                edit::<api::MetricsInstance>(s, "ops", "main", |v| {
                    v["spec"]["scrapeInterval"] = json!("15s");
                })
            }),
        ),
    ];
    for (what, change) in changes {
        let mut store = store();
        let mut d = discover(&agent(&store), &store);
        let before = d.clone();
        change(&mut store);
        assert!(!rediscovered(&store, &mut d), "{what}: taken");
        assert_eq!(d, before, "{what}: the declined discovery was changed");
    }
}

#[test]
fn an_edit_of_a_rejected_monitor_is_declined() {
    let mut store = store();
    edit::<ServiceMonitor>(&mut store, "apps", "sm-2", |v| {
        v["spec"]["endpoints"][0]["basicAuth"]["password"]["key"] = json!("missing");
    });
    let mut d = discover(&agent(&store), &store);
    let sm2 = InputRef::new(Kind::ServiceMonitor, "apps", "sm-2");
    assert!(d.rejections.iter().any(|r| r.object == sm2));
    edit::<ServiceMonitor>(
        &mut store,
        "apps",
        "sm-2",
        add_relabeling("/spec/endpoints/0", "x"),
    );
    assert!(!rediscovered(&store, &mut d));
}

#[test]
fn changes_of_secrets_and_config_maps_not_referred_to_are_taken() {
    use render::assets::AssetSource;
    let mut store = store();
    let mut d = discover(&agent(&store), &store);
    // The operator's own config Secret, written at every edit, and others nobody refers to.
    store.apply_meta(AssetSource::Secret, "ops", "a-config", Some("5".into()));
    store.apply_meta(AssetSource::ConfigMap, "apps", "auth", Some("6".into()));
    store.delete(Kind::Secret, "ops", "unrelated");
    edit::<ServiceMonitor>(
        &mut store,
        "ops",
        "sm-4",
        add_relabeling("/spec/endpoints/0", "x"),
    );
    assert!(rediscovered(&store, &mut d));
    // The one referred to is not.
    store.delete(Kind::Secret, "ops", "auth");
    assert!(!rediscovered(&store, &mut d));
}

#[test]
fn an_edited_agent_is_declined() {
    let mut store = store();
    let mut d = discover(&agent(&store), &store);
    edit::<GrafanaAgent>(&mut store, "ops", "a", |v| v["spec"]["replicas"] = json!(2));
    assert!(!rediscovered(&store, &mut d));
}

#[test]
fn unknown_fields_recorded_anew_are_warned_about() {
    let mut store = store();
    let mut d = discover(&agent(&store), &store);
    let sm = InputRef::new(Kind::ServiceMonitor, "ops", "sm-3");
    store.set_unknown_fields(sm.clone(), vec!["spec.future".to_owned()]);
    assert!(rediscovered(&store, &mut d));
    assert!(
        d.warnings.iter().any(|w| w.object == sm),
        "{:?}",
        d.warnings
    );
}

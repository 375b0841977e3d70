//! The manifest loader on bad input: it names the source, document, object and field, never
//! panics, and keeps everything else.

use render::InputView;
use render::assets::AssetSource;
use render::manifest::{Diagnostic, Loader, Severity};

fn load(text: &str) -> (render::manifest::Loaded, Vec<Diagnostic>) {
    let mut loader = Loader::new();
    loader.add_source("in.yaml", text);
    let loaded = loader.finish();
    let diags = loaded.diagnostics.clone();
    (loaded, diags)
}

const GOOD_AGENT: &str = "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: a, namespace: ops}\nspec: {}\n";

#[test]
fn invalid_yaml_is_reported_with_its_document_and_the_rest_still_loads() {
    let text = format!(
        "{GOOD_AGENT}---\nkind: [unclosed\n---\n{}",
        GOOD_AGENT.replace("name: a", "name: b")
    );
    let (loaded, diags) = load(&text);
    assert_eq!(loaded.store.agents().count(), 2);
    assert_eq!(diags.len(), 1);
    assert_eq!((diags[0].severity, diags[0].document), (Severity::Error, 2));
    assert!(
        diags[0]
            .to_string()
            .starts_with("error: in.yaml (document 2): not valid YAML"),
        "{}",
        diags[0]
    );
}

#[test]
fn unknown_fields_warn_and_missing_required_fields_get_zero_values() {
    let text = r#"
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: web, namespace: apps}
spec:
  selector: {}
  endpoints:
  - port: http
    intervall: 30s
"#;
    let (loaded, diags) = load(&text.replace("  selector: {}\n", ""));
    assert_eq!(loaded.store.objects::<api::ServiceMonitor>().len(), 1);
    let shown: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        shown,
        [
            "warning: in.yaml (document 1): ServiceMonitor apps/web: spec.endpoints[0].intervall: unknown field, ignored",
            "warning: in.yaml (document 1): ServiceMonitor apps/web: spec.selector: required field is missing; using {}",
        ]
    );
    let _ = text;
}

#[test]
fn a_field_of_the_wrong_type_rejects_only_that_object() {
    let text = format!(
        "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {{name: bad, namespace: ops}}\nspec:\n  metrics:\n    shards: many\n---\n{GOOD_AGENT}"
    );
    let (loaded, diags) = load(&text);
    assert_eq!(loaded.store.agents().count(), 1);
    assert_eq!(diags.len(), 1);
    assert_eq!(diags[0].object.as_deref(), Some("GrafanaAgent ops/bad"));
    assert_eq!(diags[0].field.as_deref(), Some("spec.metrics.shards"));
    assert_eq!(diags[0].message, "expected an integer, got a string");
}

#[test]
fn shards_and_replicas_above_the_crd_maximum_reject_only_that_agent() {
    for (field, value) in [
        ("shards", "2000000000"),
        ("replicas", "2000000000"),
        ("shards", "1001"),
    ] {
        let text = format!(
            "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {{name: bad, namespace: ops}}\nspec:\n  metrics:\n    {field}: {value}\n---\n{GOOD_AGENT}"
        );
        let (loaded, diags) = load(&text);
        assert_eq!(loaded.store.agents().count(), 1, "{field}: {value}");
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert_eq!(diags[0].severity, Severity::Error);
        assert_eq!(diags[0].object.as_deref(), Some("GrafanaAgent ops/bad"));
        assert_eq!(
            diags[0].field.as_deref(),
            Some(format!("spec.metrics.{field}").as_str())
        );
        assert_eq!(
            diags[0].message,
            format!("{value} is too large: at most 1000 is allowed")
        );
    }
    let at_the_bound = GOOD_AGENT.replace(
        "spec: {}",
        "spec:\n  metrics: {shards: 1000, replicas: 1000}",
    );
    let (loaded, diags) = load(&at_the_bound);
    assert_eq!(
        (loaded.store.agents().count(), diags.len()),
        (1, 0),
        "{diags:?}"
    );
}

#[test]
fn duplicates_are_reported_and_the_first_wins() {
    let (loaded, diags) = load(&format!(
        "{GOOD_AGENT}---\n{}",
        GOOD_AGENT.replace("spec: {}", "spec: {logLevel: debug}")
    ));
    assert_eq!(loaded.store.agents().count(), 1);
    assert_eq!(
        loaded
            .store
            .agents()
            .next()
            .expect("a GrafanaAgent")
            .spec
            .log_level,
        None
    );
    assert!(
        diags[0].message.starts_with("duplicate object"),
        "{}",
        diags[0]
    );
}

#[test]
fn other_kinds_and_empty_documents_are_skipped_quietly() {
    let text = "---\n# just a comment\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: sa}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {}\n---\n";
    let (loaded, diags) = load(text);
    assert!(diags.is_empty(), "{diags:?}");
    assert_eq!(loaded.accepted, 0);
}

#[test]
fn secrets_accept_data_and_string_data_and_lists_are_expanded() {
    let text = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Secret
  metadata: {name: s, namespace: ns}
  data: {a: aGVsbG8=, b: b2xk}
  stringData: {b: new}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: c}
  data: {k: v}
  binaryData: {bin: AAE=}
---
apiVersion: v1
kind: Secret
metadata: {name: bad, namespace: ns}
data: {a: "not base64!"}
"#;
    let (loaded, diags) = load(text);
    let data = |source, ns, name| {
        let object = loaded.store.data_object(source, ns, name).expect("stored");
        object
            .current_content()
            .expect("loaded whole")
            .values()
            .clone()
    };
    let s = data(AssetSource::Secret, "ns", "s");
    assert_eq!(s["a"], b"hello");
    assert_eq!(s["b"], b"new", "stringData wins over data");
    let c = data(AssetSource::ConfigMap, "default", "c");
    assert_eq!(
        (c["k"].as_slice(), c["bin"].as_slice()),
        (&b"v"[..], &[0u8, 1][..])
    );
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].object.as_deref(), Some("Secret ns/bad"));
    assert!(
        diags[0]
            .field
            .as_deref()
            .is_some_and(|f| f.starts_with("data")),
        "{:?}",
        diags[0]
    );
}

#[test]
fn namespace_labels_are_read() {
    let (loaded, _) =
        load("apiVersion: v1\nkind: Namespace\nmetadata: {name: apps, labels: {team: apps}}\n");
    assert_eq!(loaded.store.namespace_labels("apps")["team"], "apps");
    assert!(loaded.store.namespace_labels("other").is_empty());
}

/// Garbage, truncated documents and odd shapes never panic.
#[test]
fn garbage_and_truncated_documents_never_panic() {
    let full = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/20-metrics.yaml"
    ))
    .expect("example");
    let mut inputs: Vec<String> = vec![
        "\0\u{1}\u{2}".into(),
        "{{{{".into(),
        "- - - -".into(),
        "apiVersion: 1\nkind: 2\n".into(),
        "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: 5\n".into(),
        "apiVersion: monitoring.grafana.com/v1alpha1\nkind: GrafanaAgent\nmetadata: {name: x}\nspec: [1, 2]\n".into(),
        "apiVersion: monitoring.grafana.com/v2\nkind: GrafanaAgent\nmetadata: {name: x}\n".into(),
        "apiVersion: monitoring.grafana.com/v1alpha1\nkind: Unknown\nmetadata: {name: x}\n".into(),
        "&a [*a]".into(),
        "a: &x\n  b: *x\n".into(),
        "key: \"unterminated\n".into(),
    ];
    for cut in (0..full.len()).step_by(37) {
        if full.is_char_boundary(cut) {
            inputs.push(full[..cut].to_owned());
        }
    }
    for (i, text) in inputs.iter().enumerate() {
        let result = std::panic::catch_unwind(|| {
            let mut loader = Loader::new();
            loader.add_source("garbage.yaml", text);
            let loaded = loader.finish();
            render::output::plan_all(&loaded.store, &Default::default(), None)
        });
        assert!(result.is_ok(), "input {i} panicked: {text:?}");
    }
}

/// The API server applies the CRD's defaults before the operator reads an object; `render`
/// reads manifests offline, so the loader applies them: `protocol: TCP` on every container
/// port of the pod-template fields, whether the port left it out or set it to null.
#[test]
fn crd_defaults_are_applied_as_the_api_server_would() {
    let text = r#"
apiVersion: monitoring.grafana.com/v1alpha1
kind: GrafanaAgent
metadata: {name: a, namespace: ops}
spec:
  containers:
  - name: agent
    ports:
    - {name: profiling, containerPort: 6060}
    - {name: dns, containerPort: 53, protocol: UDP}
    - {name: nulled, containerPort: 81, protocol: null}
  - name: sidecar
  initContainers:
  - name: init
    ports:
    - {containerPort: 9000}
"#;
    let (loaded, diags) = load(text);
    assert!(diags.is_empty(), "{diags:?}");
    let spec = &loaded.store.agents().next().expect("a GrafanaAgent").spec;
    let protocols = |c: &k8s_openapi::api::core::v1::Container| -> Vec<Option<String>> {
        c.ports
            .iter()
            .flatten()
            .map(|p| p.protocol.clone())
            .collect()
    };
    let tcp = Some("TCP".to_owned());
    assert_eq!(
        protocols(&spec.containers[0]),
        [tcp.clone(), Some("UDP".to_owned()), tcp.clone()]
    );
    assert_eq!(spec.containers[1].ports, None, "no ports list is made up");
    assert_eq!(protocols(&spec.init_containers[0]), [tcp]);
}

/// Issue 22, item 11: an object whose name is longer than Kubernetes allows (10 MB here) was
/// dropped without a word. It is reported, with the name's length and not the name itself
/// (which would be a 10 MB line), and the other objects still load.
#[test]
fn an_oversized_name_is_reported_not_dropped_silently() {
    let huge = "a".repeat(10 * 1024 * 1024);
    let text = format!(
        "{GOOD_AGENT}---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {{name: {huge}, namespace: ops}}\nspec: {{selector: {{}}, endpoints: [{{port: http}}]}}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {{name: {}}}\n",
        "n".repeat(64)
    );
    let (loaded, diags) = load(&text);
    assert_eq!(loaded.store.agents().count(), 1);
    assert_eq!(loaded.store.objects::<api::ServiceMonitor>().len(), 0);
    let shown: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        shown.len(),
        2,
        "{:?}",
        shown
            .iter()
            .map(|s| &s[..s.len().min(300)])
            .collect::<Vec<_>>()
    );
    assert!(
        shown.iter().all(|s| s.len() < 400),
        "the name is not printed whole"
    );
    assert!(
        shown[0].starts_with("error: in.yaml (document 2): ServiceMonitor ops/aaaaaaaa")
            && shown[0]
                .contains("metadata.name: 10485760 characters long; Kubernetes allows at most 253"),
        "{}",
        &shown[0][..shown[0].len().min(400)]
    );
    assert!(
        shown[1].contains("metadata.name: 64 characters long; Kubernetes allows at most 63"),
        "{}",
        shown[1]
    );
}
